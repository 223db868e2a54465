// What an ISA's fbt part finds in one function.
import type { InvopResult } from '../../kernel-target.js';
import type { KernelInsn } from '../../isa/common.js';

/** A place fbt patches: the instruction, the bytes written, and how to perform it once the probe fired. */
export interface FbtPoint {
  readonly insn: KernelInsn;
  readonly patch: Uint8Array;
  readonly result: InvopResult;
}

export interface FbtFunctionPoints {
  readonly entry?: FbtPoint;
  readonly returns: readonly FbtPoint[];
  /** Why there is no entry probe, when there is none. */
  readonly noEntry?: string;
  /** Why there is no return probe, when there is none. */
  readonly noReturn?: string;
}

/** Branch targets inside [start, end) of the function's direct jumps. */
export function internalTargets(insns: readonly KernelInsn[], start: bigint, end: bigint): Set<bigint> {
  const s = new Set<bigint>();
  for (const i of insns) if (i.target !== undefined && i.target >= start && i.target < end) s.add(i.target);
  return s;
}
