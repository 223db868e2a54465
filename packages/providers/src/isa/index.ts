// The IsaSupport of each ISA, by name.
import type { Isa } from '@wdtrace/kernel';
import { ARM_SUPPORT } from './arm/index.js';
import type { IsaSupport } from './support.js';
import { createX86Support } from './x86/index.js';

export * from './support.js';

const SUPPORT: Readonly<Record<Isa, () => Promise<IsaSupport>>> = {
  x86_64: createX86Support,
  arm: async () => ARM_SUPPORT,
};

/** The providers' support for `isa` (x86-64 instantiates its decoder core). */
export function createIsaSupport(isa: Isa): Promise<IsaSupport> {
  const make = SUPPORT[isa];
  if (!make) throw new Error(`no provider support for ISA "${String(isa)}"`);
  return make();
}
