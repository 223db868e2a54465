// @wdtrace/isa-x86-as — host side of the x86-64 core: instantiates the
// WebAssembly module (debug or release build) from embedded bytes, so it
// needs no file or network access and runs the same in Node and browsers.
import { instantiateWasm, wasmBytes, type WasmBuild } from './generated/wasm.js';
import { X86Decoder, type DecoderExports } from './describe.js';

export { wasmBytes, type WasmBuild };
export { X86Decoder, describeFields, gprName } from './describe.js';
export type { DecodedFields, InstructionDescription, DecoderExports } from './describe.js';

/** The functions the x86-64 core exports. */
export interface X86CoreExports extends DecoderExports {
  memory: WebAssembly.Memory;
  /** RFLAGS.PF (0 or 4) for a result whose low byte is `result`. */
  parityFlag(result: number): number;
}

/** Host functions for the device window [0xF000_0000, 0xF100_0000). */
export interface X86HostImports {
  /** Load of `size` (1, 2, 4) bytes at physical `paddr` by CPU `cpu`. */
  mmioRead?(cpu: number, paddr: number, size: number): number;
  /** Store of `size` (1, 2, 4) bytes; 8-byte stores arrive as two 4-byte ones. */
  mmioWrite?(cpu: number, paddr: number, size: number, value: number): void;
}

/** Instantiates a fresh x86-64 core; without device handlers, the window reads as all ones and ignores writes. */
export async function createX86Core(build: WasmBuild = 'release', host: X86HostImports = {}): Promise<X86CoreExports> {
  const env = {
    mmioRead: host.mmioRead ?? ((_cpu: number, _paddr: number, size: number) => (size >= 4 ? -1 : (1 << (size * 8)) - 1)),
    mmioWrite: host.mmioWrite ?? (() => {}),
  };
  const instance = await instantiateWasm(build, { env });
  return instance.exports as unknown as X86CoreExports;
}

/** A decoder with its own core instance: `describe(bytes, offset, address)`. */
export async function createX86Decoder(build: WasmBuild = 'release'): Promise<X86Decoder> {
  return new X86Decoder(await createX86Core(build));
}
export { disassemble, formatLine, formatSymbolHeader, SymbolTable } from './disassemble.js';
export type { DisassemblyLine, DisassemblySymbol } from './disassemble.js';
