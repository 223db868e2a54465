// @wdtrace/providers — see README.md for what this package owns and may depend on.
// The providers: dtrace (BEGIN/END/ERROR), profile (profile-N, tick-N on the
// virtual clock), and on a guest Machine the kernel providers fbt, sdt (with
// proc, sched, io), kinst and syscall; each ISA's part behind IsaSupport.
export * from './provider.js';
export * from './dtrace/provider.js';
export * from './profile/provider.js';
export * from './tracepoints.js';
export * from './isa/index.js';
export * from './exclusions.js';
export * from './fbt/provider.js';
export * from './fbt/points.js';
export * from './sdt/provider.js';
export * from './sdt/library.js';
export * from './kinst/provider.js';
export * from './kinst/inline.js';
export * from './syscall/provider.js';
export * from './pid/provider.js';
export * from './pid/image.js';
export * from './kernel-providers.js';
export * from './guest-view.js';
export * from './usdt/sites.js';
export * from './usdt/stapsdt.js';
