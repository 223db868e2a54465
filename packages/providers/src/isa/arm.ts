// ARM (A32) support for the kernel providers: word-by-word decoding with the
// table the core runs (describeA32), skipping literal pools, the DTrace
// breakpoint word carrying the displaced instruction's condition, and the
// AAPCS argument convention: r0-r3, then the stack.
import { DTRACE_BREAKPOINT, describeA32 } from '@wdtrace/isa-arm-as';
import type { InvopResult, KernelTarget, RegisterFile } from '../kernel-target.js';
import { inRanges, stackWords, type DecodedFunction, type IsaSupport, type KernelInsn } from './common.js';

/**
 * The core's emulation codes for a displaced instruction (isa-arm-as
 * assembly/dtrace.ts and README "DTrace"): each checks that the word is of
 * its class and executes it as if at its own address.
 */
export const ArmEmulation = {
  PUSHM: 1, POPM: 2, B: 3, BX_LR: 4, MOV_PC_LR: 5, LDM: 6, LDR_IMM: 7, MOVW: 8, MOV_IMM: 9,
  CMP_IMM: 10, MOV_IP_SP: 11, SUB_SP: 12, ADD_FP: 13, STR_IMM: 14, ANY: 15,
} as const;

const UNPROBEABLE: ReadonlyMap<string, string> = new Map([
  ['undefined', 'the word is no instruction the core executes'],
  ['udf', 'a udf is already a trap (the DTrace breakpoint is one)'],
  ['bkpt', 'a bkpt is already a breakpoint'],
  ['svc', 'svc changes mode'],
  ['exclusive', 'a breakpoint between ldrex and strex would clear the exclusive monitor'],
  ['vfp', 'VFP/Advanced SIMD is not executed by the core'],
]);

/** The emulation code for a displaced instruction, the most specific the core has. */
export function armEmulationCode(insn: KernelInsn): number {
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

export class ArmSupport implements IsaSupport {
  readonly isa = 'arm' as const;
  readonly wordSize = 4 as const;

  decode(bytes: Uint8Array, address: bigint, dataRanges?: readonly { start: bigint; end: bigint }[]): DecodedFunction {
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

  unprobeable(insn: KernelInsn): string | undefined {
    for (const [c, why] of UNPROBEABLE) if (insn.classes.has(c)) return why;
    // As x86-64 refuses hlt: run out of line, a wait that halts the core is
    // not a halt the machine's run loop sees (it ended the machine).
    if (insn.encoding === 'WFI' || insn.encoding === 'WFE') return 'wfi/wfe wait for an interrupt and are not run out of line';
    return undefined;
  }

  breakpoint(insn: KernelInsn): Uint8Array {
    // Unconditional-space encodings (cond 1111: cps, dmb, pld, blx imm ...)
    // always execute: their breakpoint carries AL (1110).
    const cond = insn.cond === 15 ? 14 : insn.cond! & 15;
    const word = (DTRACE_BREAKPOINT | cond) >>> 0;
    return Uint8Array.of(word & 0xff, (word >>> 8) & 0xff, (word >>> 16) & 0xff, word >>> 24);
  }

  displaced(insn: KernelInsn): InvopResult {
    return { kind: 'displaced', bytes: insn.bytes };
  }

  /** The emulation of the displaced instruction by code, as fbt uses it. */
  emulation(insn: KernelInsn): InvopResult {
    return { kind: 'emulate', code: armEmulationCode(insn), word: insn.word! >>> 0 };
  }

  entryArgs(target: KernelTarget, regs: RegisterFile, count: number): bigint[] {
    return this.callArgs(target, regs, count);
  }

  callArgs(target: KernelTarget, regs: RegisterFile, count: number): bigint[] {
    // bl does not push: at a call and at the callee's first instruction the
    // fifth argument is at [sp].
    const out: bigint[] = [];
    for (let i = 0; i < Math.min(count, 4); i++) out.push(regs.get(i));
    return out.concat(stackWords(target, regs.sp(), 4, 0, count - out.length));
  }

  returnValue(regs: RegisterFile): bigint {
    return regs.get(0);
  }
}
