// Kernel functions the kernel providers never patch: those where a probe
// would break the machine rather than trace it. There are none today.
// - Nothing recurses: the invop path is host-side (the machine offers a
//   trap to the providers before the guest sees it), so no guest code runs
//   while a probe fires, and the trap and entry stubs can be probed too.
// - Code that runs before the MMU maps the kernel at its link address (ARM
//   boot, a secondary CPU's first instructions) traps at its physical alias;
//   the targets report that alias (KernelTarget.textAliases) and the shared
//   tracepoint table treats such a trap as one at the probe's address.
// A function added here is skipped by fbt and refused by kinst, with the
// reason given as the map's value.

/** Names of functions never patched, with why. */
export const UNTRACEABLE_FUNCTIONS: ReadonlyMap<string, string> = new Map<string, string>([]);
