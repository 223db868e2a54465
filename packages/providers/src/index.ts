// @wdtrace/providers — see README.md for what this package owns and may depend on.
// Providers implemented so far: dtrace (BEGIN/END/ERROR), profile
// (profile-N, tick-N on the virtual clock), and the kernel providers fbt,
// sdt (with proc, sched, io) and kinst over a KernelTarget.
export * from './dtrace/provider.js';
export * from './profile/provider.js';
export * from './session.js';
export * from './kernel-target.js';
export * from './tracepoints.js';
export * from './isa/index.js';
export * from './exclusions.js';
export * from './core-target.js';
export * from './machine-target.js';
export * from './fbt/provider.js';
export * from './sdt/provider.js';
export * from './sdt/library.js';
export * from './kinst/provider.js';
export * from './kinst/inline.js';
export { GuestTracer, type GuestTracerOptions, type GuestSessionOptions, type GuestSessionResult } from './guest/session.js';
export { GuestMachineView } from './guest/guest-machine.js';
