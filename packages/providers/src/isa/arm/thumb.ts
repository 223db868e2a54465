// Thumb-2 (T32) code for the providers, beside the A32 parts of this folder
// and behind the same IsaSupport: a function whose symbol has bit 0 set is
// walked halfword by halfword with the core's T32 table (walkT32, which
// follows IT blocks), skipping literal pools.
//
// Breakpoints carry no condition in Thumb code: a 16-bit `udf #0xf0` over a
// 16-bit instruction, a 32-bit `udf.w #0xf0` over a 32-bit one. Inside an IT
// block the block's condition applies to the breakpoint as it would to the
// instruction it replaces, so a probe on a conditional instruction fires
// only when that instruction executes (the seeds' conditional breakpoint,
// with the condition kept by the IT state instead of the word). The
// displaced instruction then runs out of line in Thumb state as if at its
// own address (the pc reads as address + 4, Align(pc, 4) for literals), and
// the CPU's IT state applies to it and advances exactly as in place. The
// common prologue and epilogue forms (push, pop, bx lr, mov r7, sp, add r7,
// sp, #n, sub sp, #n, sp-relative ldr/str) go by emulation code instead
// (thumbEmulationCode): the core checks that the word is of its class
// before it runs it, so a probe can never run another instruction.
import { ArmEmulation, DTRACE_BREAKPOINT_T16, DTRACE_BREAKPOINT_T32, walkT32 } from '@wdtrace/isa-arm-as';
import type { InvopResult, SdtSite } from '@wdtrace/kernel';
import { inRanges, type AddressRanges, type DecodedFunction, type FbtPoint, type KernelInsn, type PatchedInstruction } from '../support.js';
import { unprobeableArm } from './decode.js';

/** Thumb-only refusals, besides those A32 and T32 share (udf, bkpt, svc, exclusives, wfi/wfe). */
const UNPROBEABLE_THUMB: ReadonlyMap<string, string> = new Map([['it', 'an it instruction sets the condition of the instructions after it']]);

export function decodeThumb(bytes: Uint8Array, address: bigint, dataRanges?: AddressRanges): DecodedFunction {
  const insns: KernelInsn[] = [];
  if (address % 2n !== 0n) return { insns, complete: false, stoppedAt: { address, reason: 'not halfword aligned' } };
  // Walk each run of code between literal pools on its own, so a pool never
  // takes a code halfword as its second half.
  const base = Number(address & 0xffffffffn);
  let runStart = 0;
  const walk = (from: number, to: number): void => {
    if (to <= from) return;
    for (const line of walkT32(bytes.subarray(from, to), base + from)) {
      const off = line.address - base;
      const d = line.insn;
      insns.push({
        address: BigInt(line.address >>> 0), length: line.size, bytes: bytes.slice(off, off + line.size),
        classes: d.classes as ReadonlySet<string>, target: d.target === undefined ? undefined : BigInt(d.target >>> 0),
        text: d.text, word: d.word >>> 0, cond: d.cond, encoding: d.encoding, thumb: true,
      });
    }
  };
  for (let off = 0; off < bytes.length; off += 2) {
    if (!inRanges(dataRanges, address + BigInt(off))) continue;
    walk(runStart, off);
    runStart = off + 2;
  }
  walk(runStart, bytes.length);
  const last = insns.at(-1);
  // A 32-bit instruction's first half at the very end is no whole instruction.
  const cut = last !== undefined && last.length === 2 && last.classes.has('undefined') && last.address + 2n === address + BigInt(bytes.length);
  return { insns, complete: bytes.length % 2 === 0 && !cut, ...(cut ? { stoppedAt: { address: last.address, reason: 'the function ends in half an instruction' } } : {}) };
}

export function unprobeableThumb(insn: KernelInsn): string | undefined {
  for (const [c, why] of UNPROBEABLE_THUMB) if (insn.classes.has(c)) return why;
  if (insn.encoding === 'WFI_T1' || insn.encoding === 'WFI_T2' || insn.encoding === 'WFE_T1' || insn.encoding === 'WFE_T2') return 'wfi/wfe wait for an interrupt and are not run out of line';
  return unprobeableArm(insn);
}

const le16 = (h: number): Uint8Array => Uint8Array.of(h & 0xff, h >>> 8);
/** A 32-bit T32 instruction's bytes: first halfword, then second, each little-endian. */
const t32Bytes = (v: number): Uint8Array => Uint8Array.of((v >>> 16) & 0xff, v >>> 24, v & 0xff, (v >>> 8) & 0xff);

/** `udf #0xf0` over a 16-bit instruction, `udf.w #0xf0` over a 32-bit one. */
export function breakpointThumb(insn: KernelInsn): Uint8Array {
  return insn.length === 2 ? le16(DTRACE_BREAKPOINT_T16) : t32Bytes(DTRACE_BREAKPOINT_T32);
}

/** The displaced instruction, run out of line in Thumb state (the CPU stopped in it). */
export function displacedThumb(insn: KernelInsn): InvopResult {
  return { kind: 'displaced', bytes: insn.bytes };
}

/**
 * The Thumb emulation code for the common prologue and epilogue forms
 * (push, pop, bx lr, mov r7, sp, add r7, sp, #n, sub sp, #n, sp-relative
 * ldr/str, 16- and 32-bit), or undefined for any other instruction. The
 * core checks the same fields before it emulates (emulationMatches), and
 * the machine refuses a code that does not fit its word.
 */
export function thumbEmulationCode(insn: KernelInsn): ArmEmulation | undefined {
  const v = insn.word! >>> 0;
  const rn = (v >>> 16) & 15;
  const rd = (v >>> 8) & 15;
  const rt = (v >>> 12) & 15;
  const noFlags = (v & (1 << 20)) === 0;
  switch (insn.encoding) {
    case 'PUSH_T1': return ArmEmulation.T_PUSH;
    case 'POP_T1': return ArmEmulation.T_POP;
    case 'STMDB_T1': return rn === 13 && (v & (1 << 21)) !== 0 ? ArmEmulation.T_PUSH : undefined;
    case 'LDM_T2': return rn === 13 && (v & (1 << 21)) !== 0 ? ArmEmulation.T_POP : undefined;
    case 'STR_imm_T4': return rn === 13 && (v & 0xfff) === 0xd04 ? ArmEmulation.T_PUSH : undefined;
    case 'LDR_imm_T4': return rn === 13 && (v & 0xfff) === 0xb04 ? ArmEmulation.T_POP : undefined;
    case 'BX_T1': return ((v >>> 3) & 15) === 14 ? ArmEmulation.T_BX_LR : undefined;
    case 'MOV_reg_T1': return (v & 0xff) === 0x6f ? ArmEmulation.T_MOV_FP_SP : undefined;
    case 'ADD_sp_imm_T1': return ((v >>> 8) & 7) === 7 ? ArmEmulation.T_ADD_FP_SP : undefined;
    case 'ADD_imm_T3':
    case 'ADD_imm_T4': return rn === 13 && rd === 7 && noFlags ? ArmEmulation.T_ADD_FP_SP : undefined;
    case 'SUB_sp_imm_T1': return ArmEmulation.T_SUB_SP;
    case 'SUB_imm_T3':
    case 'SUB_imm_T4': return rn === 13 && rd === 13 && noFlags ? ArmEmulation.T_SUB_SP : undefined;
    case 'LDR_imm_T2': return ArmEmulation.T_LDR_SP;
    case 'LDR_imm_T3': return rn === 13 && rt !== 15 ? ArmEmulation.T_LDR_SP : undefined;
    case 'STR_imm_T2': return ArmEmulation.T_STR_SP;
    case 'STR_imm_T3': return rn === 13 ? ArmEmulation.T_STR_SP : undefined;
  }
  return undefined;
}

/** The emulation of a patched Thumb instruction when it has a code, else displaced execution. */
export function emulatedThumb(insn: KernelInsn): InvopResult {
  const code = thumbEmulationCode(insn);
  return code === undefined ? displacedThumb(insn) : { kind: 'emulate', code, word: insn.word! >>> 0 };
}

// ---- fbt ----
// Entry: the function's first instruction, usually `push {..., r7, lr}`.
// Return: `pop {..., pc}` (16-bit or pop.w), `ldr pc, [sp], #4`, `bx lr`,
// `mov pc, lr`, a `b`/`b.w` out of the function (a tail call), and `bx`
// through another register: a tail call through a function pointer, or the
// linker's interworking veneer (`movw ip; movt ip; bx ip`) jumping on.

function isThumbReturn(insn: KernelInsn, start: bigint, end: bigint): boolean {
  const c = insn.classes;
  if (c.has('ldm-pc') || c.has('bx-lr') || c.has('mov-pc-lr')) return true;
  if (c.has('pop') && c.has('writes-pc')) return true;
  if (insn.encoding === 'BX_T1') return true;
  return (insn.encoding === 'B_T1' || insn.encoding === 'B_T2' || insn.encoding === 'B_T3' || insn.encoding === 'B_T4') && insn.target !== undefined && (insn.target < start || insn.target >= end);
}

const thumbPoint = (insn: KernelInsn): FbtPoint => ({ insn, patch: breakpointThumb(insn), result: emulatedThumb(insn) });

export function thumbFbtEntry(first: KernelInsn, start: bigint): FbtPoint | string {
  if (first.address !== start) return 'the function starts with data';
  const why = unprobeableThumb(first);
  return why ? `first instruction "${first.text}": ${why}` : thumbPoint(first);
}

export function thumbFbtReturns(insns: readonly KernelInsn[], start: bigint, end: bigint): FbtPoint[] {
  return insns.filter((insn) => isThumbReturn(insn, start, end) && !unprobeableThumb(insn)).map(thumbPoint);
}

// ---- sdt ----
/** krtld's Thumb site patterns: `nop.w` over a `bl`, `bx lr; nop` over a tail `b.w`. */
const NOP_W = 0xf3af8000;
const BX_LR_NOP = 0x4770bf00;

/** Whether a site's patch is one of krtld's Thumb patterns. */
export function isThumbSdtSite(site: SdtSite): boolean {
  const p = site.patch;
  if (p.length !== 4) return false;
  const v = (((p[0]! | (p[1]! << 8)) << 16) | p[2]! | (p[3]! << 8)) >>> 0;
  return v === NOP_W || v === BX_LR_NOP;
}

/**
 * The breakpoint over a Thumb site. A nop site runs its `nop.w` displaced
 * (which moves the pc and the IT state on); a tail site runs its `bx lr`.
 */
export function thumbSdtPatch(site: SdtSite): PatchedInstruction {
  if (site.tailCall) return { patch: le16(DTRACE_BREAKPOINT_T16), result: { kind: 'displaced', bytes: site.patch.slice(0, 2) } };
  return { patch: t32Bytes(DTRACE_BREAKPOINT_T32), result: { kind: 'displaced', bytes: site.patch.slice() } };
}

// ---- frames ----
/** `push {..., r7, lr}` (PUSH_T1 with r7 and lr in its list). */
const PUSH_FRAME_T16 = { mask: 0xff80, value: 0xb580 };
/** `bx lr`. */
const BX_LR_T16 = 0x4770;

/** As armFrameEstablished for Thumb code: the frame record is r7's, built by `push {..., r7, lr}`. */
export function thumbFrameEstablished(start: bigint, pc: bigint, original: (address: bigint, length: number) => Uint8Array | undefined): boolean {
  const first = original(start, 2);
  const at = original(pc, 2);
  if (!first || first.length < 2 || !at || at.length < 2) return false;
  const h0 = first[0]! | (first[1]! << 8);
  const h = at[0]! | (at[1]! << 8);
  return (h0 & PUSH_FRAME_T16.mask) === PUSH_FRAME_T16.value && h !== BX_LR_T16;
}
