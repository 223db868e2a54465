// Kernel functions the kernel providers never patch, each because a probe
// there would break the machine rather than trace it. The invop path is
// host-side (the machine offers a trap to the providers before the guest
// sees it), so no guest code runs while a probe fires and nothing recurses:
// the only functions left out are the ones that run at an address other
// than their link address, where a breakpoint's trap pc matches no probe and
// the unclaimed trap would reach a guest that has no handler for it yet.

/** Names of functions never patched, with why. */
export const UNTRACEABLE_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  // Boot entry of CPU 0: runs from its physical load address with paging/MMU off.
  ['_start', 'runs before paging maps it at its link address'],
  // Entry of a secondary CPU started later (even while tracing): same reason.
  ['secondary_entry', 'runs before paging maps it at its link address'],
]);
