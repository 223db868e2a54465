// ISA support for the kernel providers, by ISA name.
import type { KernelIsaName } from '../kernel-target.js';
import { ArmSupport } from './arm.js';
import type { IsaSupport } from './common.js';
import { X86Support } from './x86.js';

export * from './common.js';
export { ArmEmulation, ArmSupport, armEmulationCode } from './arm.js';
export { X86Support, X86_ARG_REGS, X86_INT3, isNearRet } from './x86.js';

/** ISA support for `isa` (x86-64 instantiates its decoder core). */
export async function createIsaSupport(isa: KernelIsaName): Promise<IsaSupport> {
  if (isa === 'x86_64') return X86Support.create();
  if (isa === 'arm') return new ArmSupport();
  throw new Error(`no kernel provider support for ISA "${String(isa)}"`);
}
