// x86-64 CPU core — entry module of the WebAssembly build.
// Everything the host calls is exported from here; the core's parts live in
// the files this module re-exports.
export { parityFlag } from './flags';
