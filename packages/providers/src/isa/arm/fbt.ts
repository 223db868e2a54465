// fbt on ARM (A32), after the NetBSD/FreeBSD arm fbt_isa.c: the patched word
// is the DTrace breakpoint carrying the displaced instruction's condition, so
// a probe on a conditional return only fires when the return happens, and the
// core performs the displaced instruction by emulation code.
// - entry: the function's first instruction (usually `push {..., lr}`, for
//   leaf functions whatever comes first: PUSHM, MOV_IP_SP, SUB_SP, LDR_IMM,
//   MOVW, MOV_IMM, CMP_IMM ... or the general displaced execution);
// - return: `pop {..., pc}` / `ldm ... {..., pc}`, `ldr pc, [sp], #4`,
//   `bx lr`, `mov pc, lr`, and a `b` out of the function (a tail call).
import type { FbtPoint, KernelInsn } from '../support.js';
import { breakpointArm, emulatedArm, unprobeableArm } from './decode.js';

function isReturn(insn: KernelInsn, start: bigint, end: bigint): boolean {
  const c = insn.classes;
  if (c.has('ldm-pc') || c.has('bx-lr') || c.has('mov-pc-lr')) return true;
  if (c.has('pop') && c.has('writes-pc')) return true;
  return insn.encoding === 'B' && insn.target !== undefined && (insn.target < start || insn.target >= end);
}

const point = (insn: KernelInsn): FbtPoint => ({ insn, patch: breakpointArm(insn), result: emulatedArm(insn) });

/** The entry point: whatever instruction comes first, or why it can have no probe. */
export function armFbtEntry(first: KernelInsn, start: bigint): FbtPoint | string {
  if (first.address !== start) return 'the function starts with data';
  const why = unprobeableArm(first);
  return why ? `first instruction "${first.text}": ${why}` : point(first);
}

/** The return points: every return instruction and tail branch out of the function. */
export function armFbtReturns(insns: readonly KernelInsn[], start: bigint, end: bigint): FbtPoint[] {
  return insns.filter((insn) => isReturn(insn, start, end) && !unprobeableArm(insn)).map(point);
}
