// kinst on ARM: the probed word becomes the DTrace breakpoint carrying the
// instruction's condition (so a probe on a conditional instruction fires
// only when it would execute); once the probe fired the original word runs
// out of line as if at its own address.
import type { ArmSupport } from '../../isa/arm.js';
import type { KernelInsn } from '../../isa/common.js';
import type { InvopResult } from '../../kernel-target.js';

export function armKinstPatch(support: ArmSupport, insn: KernelInsn): { patch: Uint8Array; result: InvopResult } {
  return { patch: support.breakpoint(insn), result: { kind: 'displaced', bytes: insn.bytes } };
}
