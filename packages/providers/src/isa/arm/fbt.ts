// fbt on ARM (A32), after the NetBSD/FreeBSD arm fbt_isa.c: the patched word
// is the DTrace breakpoint carrying the displaced instruction's condition, so
// a probe on a conditional return only fires when the return happens, and the
// core performs the displaced instruction by emulation code.
// - entry: the function's first instruction (usually `push {..., lr}`, for
//   leaf functions whatever comes first: PUSHM, MOV_IP_SP, SUB_SP, LDR_IMM,
//   MOVW, MOV_IMM, CMP_IMM ... or the general displaced execution);
// - return: `pop {..., pc}` / `ldm ... {..., pc}`, `ldr pc, [sp], #4`,
//   `bx lr`, `mov pc, lr`, and a `b` out of the function (a tail call).
import type { DecodedFunction, FbtFunctionPoints, FbtPoint, KernelInsn } from '../support.js';
import { breakpointArm, emulatedArm, unprobeableArm } from './decode.js';

function isReturn(insn: KernelInsn, start: bigint, end: bigint): boolean {
  const c = insn.classes;
  if (c.has('ldm-pc') || c.has('bx-lr') || c.has('mov-pc-lr')) return true;
  if (c.has('pop') && c.has('writes-pc')) return true;
  return insn.encoding === 'B' && insn.target !== undefined && (insn.target < start || insn.target >= end);
}

const point = (insn: KernelInsn): FbtPoint => ({ insn, patch: breakpointArm(insn), result: emulatedArm(insn) });

export function armFbtPoints(start: bigint, size: number, decoded: DecodedFunction): FbtFunctionPoints {
  const insns = decoded.insns;
  const end = start + BigInt(size);
  if (insns.length === 0) return { returns: [], noEntry: 'no instructions', noReturn: 'no instructions' };
  const first = insns[0]!;
  let entry: FbtPoint | undefined;
  let noEntry: string | undefined;
  if (first.address !== start) noEntry = 'the function starts with data';
  else {
    const why = unprobeableArm(first);
    if (why) noEntry = `first instruction "${first.text}": ${why}`;
    else entry = point(first);
  }
  const returns: FbtPoint[] = [];
  for (const insn of insns) {
    if (!isReturn(insn, start, end) || unprobeableArm(insn)) continue;
    returns.push(point(insn));
  }
  if (!decoded.complete) return { entry, returns: [], noEntry, noReturn: 'the function is not whole words of A32 code' };
  return { entry, returns, noEntry, noReturn: returns.length ? undefined : 'no return instruction or tail branch' };
}
