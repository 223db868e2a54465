// ARM (A32) instructions for the providers: word-by-word decoding with the
// table the core runs (describeA32), skipping literal pools; which
// instructions refuse a probe; the DTrace breakpoint word carrying the
// displaced instruction's condition, so a probe on a conditional instruction
// only fires when it would execute; the emulation code the core has for a
// displaced instruction; and general displaced execution.
import { ArmEmulation, DTRACE_BREAKPOINT, describeA32 } from '@wdtrace/isa-arm-as';
import type { InvopResult } from '@wdtrace/kernel';
import { inRanges, type AddressRanges, type DecodedFunction, type KernelInsn } from '../support.js';

const UNPROBEABLE: ReadonlyMap<string, string> = new Map([
  ['undefined', 'the word is no instruction the core executes'],
  ['udf', 'a udf is already a trap (the DTrace breakpoint is one)'],
  ['bkpt', 'a bkpt is already a breakpoint'],
  ['svc', 'svc changes mode'],
  ['exclusive', 'a breakpoint between ldrex and strex would clear the exclusive monitor'],
]);

/** A 32-bit word as its four little-endian bytes. */
export const le32 = (w: number): Uint8Array => Uint8Array.of(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);

/** The DTrace breakpoint with condition `cond` (0-14). */
export const breakpointWord = (cond: number): Uint8Array => le32((DTRACE_BREAKPOINT | cond) >>> 0);

/** The condition AL: always. */
export const COND_AL = 0xe;

export function decodeArm(bytes: Uint8Array, address: bigint, dataRanges?: AddressRanges): DecodedFunction {
  const insns: KernelInsn[] = [];
  if (address % 4n !== 0n) return { insns, complete: false, stoppedAt: { address, reason: 'not word aligned (Thumb code is not traced)' } };
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let off = 0; off + 4 <= bytes.length; off += 4) {
    const at = address + BigInt(off);
    if (inRanges(dataRanges, at)) continue; // literal pool word
    const word = dv.getUint32(off, true);
    const d = describeA32(word, Number(at & 0xffffffffn));
    insns.push({
      address: at, length: 4, bytes: bytes.slice(off, off + 4), classes: d.classes as ReadonlySet<string>,
      target: d.target === undefined ? undefined : BigInt(d.target >>> 0), text: d.text, word, cond: d.cond, encoding: d.encoding,
    });
  }
  return { insns, complete: bytes.length % 4 === 0 };
}

export function unprobeableArm(insn: KernelInsn): string | undefined {
  for (const [c, why] of UNPROBEABLE) if (insn.classes.has(c)) return why;
  // As x86-64 refuses hlt: run out of line, a wait that halts the core is
  // not a halt the machine's run loop sees (it ended the machine).
  if (insn.encoding === 'WFI' || insn.encoding === 'WFE') return 'wfi/wfe wait for an interrupt and are not run out of line';
  return undefined;
}

export function breakpointArm(insn: KernelInsn): Uint8Array {
  // Unconditional-space encodings (cond 1111: cps, dmb, pld, blx imm ...)
  // always execute: their breakpoint carries AL (1110).
  return breakpointWord(insn.cond === 15 ? COND_AL : insn.cond! & 15);
}

export function displacedArm(insn: KernelInsn): InvopResult {
  return { kind: 'displaced', bytes: insn.bytes };
}

/** The emulation code for a displaced instruction, the most specific the core has. */
export function armEmulationCode(insn: KernelInsn): ArmEmulation {
  const c = insn.classes;
  const w = insn.word! >>> 0;
  const rd = (w >>> 12) & 15;
  const rn = (w >>> 16) & 15;
  const enc = insn.encoding;
  if (c.has('push')) return ArmEmulation.PUSHM;
  if (c.has('pop') && ((enc === 'LDM' && (w & (1 << 22)) === 0) || enc === 'LDR_imm')) return ArmEmulation.POPM;
  if (enc === 'LDM' || enc === 'LDMDA' || enc === 'LDMDB' || enc === 'LDMIB') return ArmEmulation.LDM;
  if (enc === 'B' || enc === 'BL') return ArmEmulation.B;
  if (c.has('bx-lr')) return ArmEmulation.BX_LR;
  if (c.has('mov-pc-lr')) return ArmEmulation.MOV_PC_LR;
  if (c.has('mov-ip-sp')) return ArmEmulation.MOV_IP_SP;
  if (enc === 'LDR_imm') return ArmEmulation.LDR_IMM;
  if (enc === 'STR_imm') return ArmEmulation.STR_IMM;
  if (enc === 'MOVW') return ArmEmulation.MOVW;
  if (enc === 'MOV_imm' || enc === 'MVN_imm') return ArmEmulation.MOV_IMM;
  if (enc === 'CMP_imm') return ArmEmulation.CMP_IMM;
  if (enc === 'SUB_imm' && rd === 13 && rn === 13) return ArmEmulation.SUB_SP;
  if (enc === 'ADD_imm' && rd === 11 && rn === 13) return ArmEmulation.ADD_FP;
  return ArmEmulation.ANY;
}

/** The emulation of the displaced instruction by code, as fbt uses it. */
export function emulatedArm(insn: KernelInsn): InvopResult {
  return { kind: 'emulate', code: armEmulationCode(insn), word: insn.word! >>> 0 };
}
