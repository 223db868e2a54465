// kinst on x86-64, after FreeBSD's amd64 kinst: the probed instruction's
// first byte becomes int3; once the probe fired the original bytes run out of
// line as if at their own address (the core's displaced execution: rip-
// relative operands, jumps, calls and ret behave exactly as in place).
import type { KernelInsn } from '../../isa/common.js';
import { X86_INT3 } from '../../isa/x86.js';
import type { InvopResult } from '../../kernel-target.js';

export function x86KinstPatch(insn: KernelInsn): { patch: Uint8Array; result: InvopResult } {
  return { patch: Uint8Array.of(X86_INT3), result: { kind: 'displaced', bytes: insn.bytes } };
}
