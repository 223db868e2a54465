// @wdtrace/isa-x86-as — host side of the x86-64 core: instantiates the
// WebAssembly module (debug or release build) from embedded bytes, so it
// needs no file or network access and runs the same in Node and browsers.
import { instantiateWasm, wasmBytes, type WasmBuild } from './generated/wasm.js';

export { wasmBytes, type WasmBuild };

/** The functions the x86-64 core exports. */
export interface X86CoreExports {
  memory: WebAssembly.Memory;
  /** RFLAGS.PF (0 or 4) for a result whose low byte is `result`. */
  parityFlag(result: number): number;
}

/** Instantiates a fresh x86-64 core. */
export async function createX86Core(build: WasmBuild = 'release'): Promise<X86CoreExports> {
  const instance = await instantiateWasm(build);
  return instance.exports as unknown as X86CoreExports;
}
