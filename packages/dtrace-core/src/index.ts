// @wdtrace/dtrace-core — see README.md for what this package owns and may depend on.
// The framework (probe registry, ECBs, DIF verifier and VM, buffers,
// aggregations, dynamic variables, speculations) and the consumer (record
// decoding and dtrace(1)'s output). DIF, types and the program format are
// also available as the ./dif, ./types and ./program subpaths.
export * from './framework/machine.js';
export * from './framework/faults.js';
export * from './framework/probes.js';
export * from './framework/options.js';
export * from './framework/verify.js';
export * from './framework/stability.js';
export { Arena, ARENA_BASE } from './framework/arena.js';
export { difEmulate, difRun, loadDifo, type LoadedDifo } from './framework/vm.js';
export { wasmCompile, difoModuleBytes } from './framework/wasm.js';
export { FILTER_ARGS, type ProbeFilterFunction } from './framework/filter.js';
export { guestMemoryReader } from './framework/wasm-walk.js';
export { regionBytesInUse } from './framework/wmem.js';
export type { ProbeArgumentSource, VmFiring, VmVariables, TupleEntry } from './framework/firing.js';
export { probeArgument } from './framework/firing.js';
export * from './framework/buckets.js';
export * from './framework/state.js';
export * from './consumer/printf.js';
export * from './consumer/cformat.js';
export * from './consumer/aggprint.js';
export * from './consumer/consume.js';
export * from './program/index.js';
export * from './builder.js';
