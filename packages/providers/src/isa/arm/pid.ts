// pid's return sites on ARM (A32), the instructions that leave a function
// for its caller: `pop {..., pc}` and `ldm ... {..., pc}`, `ldr pc, [sp], #4`,
// `bx lr`, `mov pc, lr`, and a `b` out of the function (a tail call) — the
// same instructions fbt's return probes take in the kernel. The probe sits
// on the instruction itself, so r0 is the value returned; its breakpoint
// carries the instruction's condition, so a conditional return fires only
// when it returns.
import type { KernelInsn } from '../support.js';
import { armFbtReturns } from './fbt.js';

export function armPidReturns(insns: readonly KernelInsn[], start: bigint, end: bigint): KernelInsn[] {
  return armFbtReturns(insns, start, end).map((p) => p.insn);
}
