// @wdtrace/isa-x86-as — host side of the x86-64 core: instantiates the
// WebAssembly module (debug or release build) from embedded bytes, so it
// needs no file or network access and runs the same in Node and browsers.
import { instantiateWasm, wasmBytes, type WasmBuild } from './generated/wasm.js';
import { X86Decoder, type DecoderExports } from './describe.js';

export { wasmBytes, type WasmBuild };
export { X86Decoder, describeFields, gprName } from './describe.js';
export type { DecodedFields, InstructionDescription, DecoderExports } from './describe.js';

/** Stop reasons returned by `run`. */
export const X86Stop = { budget: 0, halt: 1, exception: 2, tripleFault: 3, interruptWindow: 4 } as const;
export { X86Emulation } from './emulation.js';
export { X86FastSites, type X86FastFilter, type X86FastPerform } from './fast-sites.js';

/**
 * The functions the x86-64 core exports. 64-bit values cross as lo/hi 32-bit
 * halves (no BigInt on the hot paths). Everything acts on the selected CPU,
 * except the `...Of(n)` getters, which read any CPU's state without selecting it.
 */
export interface X86CoreExports extends DecoderExports {
  memory: WebAssembly.Memory;
  /** RFLAGS.PF (0 or 4) for a result whose low byte is `result`. */
  parityFlag(result: number): number;
  // guest RAM and register files (views over `memory.buffer`)
  initRam(bytes: number): number;
  ramOffset(): number;
  ramBytes(): number;
  regsOffset(): number;
  xmmOffset(): number;
  /** The host changed guest RAM [paddr, paddr + length) directly: call after patching code. */
  codeWritten(paddr: number, length: number): void;
  setCodeCache(enabled: number | boolean): void;
  // CPUs
  selectCpu(n: number): void;
  selectedCpu(): number;
  /** Instructions retired by CPU `n` (selected or not) as a number; selects nothing. */
  retiredOf(n: number): number;
  /** CR3 of CPU `n` (selected or not) as halves; selects nothing. */
  cr3LoOf(n: number): number; cr3HiOf(n: number): number;
  // registers
  getRipLo(): number; getRipHi(): number; setRipParts(lo: number, hi: number): void;
  getFlags(): number; setFlagsValue(v: number): void;
  getCpl(): number; setSegments(cs: number, ss: number): void; getCs(): number; getSs(): number;
  setControlRegister(n: number, lo: number, hi: number): void;
  getControlRegisterLo(n: number): number; getControlRegisterHi(n: number): number;
  writeMsr(n: number, lo: number, hi: number): number;
  readMsrLo(n: number): number; readMsrHi(n: number): number;
  setIdtr(lo: number, hi: number, limit: number): void;
  /** GDTR base and limit, as lgdt would load them. */
  setGdtr(lo: number, hi: number, limit: number): void;
  setTss(lo: number, hi: number): void;
  setTscOffset(lo: number, hi: number): void;
  // running
  run(budget: number): number;
  wake(): void;
  stopPcLo(): number; stopPcHi(): number;
  stopVector(): number; stopErrorCode(): number;
  stopAddressLo(): number; stopAddressHi(): number;
  retiredLo(): number; retiredHi(): number;
  raiseInterrupt(vector: number): void;
  /** Drops every pending external interrupt of the selected CPU (its interrupt input went low). */
  clearInterrupts(): void;
  /** From a device callback during run(): run() returns X86Stop.budget after the current instruction. */
  requestStop(): void;
  /** Stop with X86Stop.interruptWindow at the next boundary where IF=1 (one-shot). */
  requestInterruptWindow(on: number | boolean): void;
  raiseInterruptOnCpu(cpu: number, vector: number): void;
  /** Bit per vector 0-31: exceptions delivered to the guest IDT without stopping. */
  setAutoDeliver(mask: number): void;
  /** 0 delivered, 1 double fault delivered instead, 2 triple fault. */
  deliverException(vector: number, errorCode: number): number;
  // DTrace support
  /** Returns -1 when done, else a stop code (state unchanged). */
  emulate(code: number): number;
  /** Runs the `length` bytes at DECODE_INPUT as if at the current rip; -1 when done, else a stop code. */
  executeDisplaced(length: number): number;
  readVirtualSafe(lo: number, hi: number, length: number): number;
  safeFaultAddressLo(): number; safeFaultAddressHi(): number;
  SAFE_BUFFER: WebAssembly.Global;
  /** Whether the last exception stop is a fast site's displaced instruction faulting: an exception to deliver, not a trap (1 or 0). */
  stoppedAtFastSite(): number;
  /** The core's function table (growable): fast sites' filters go into it (X86FastSites). */
  table: WebAssembly.Table;
  /** Fast probe sites (assembly/fastsite.ts): where their table and the per-CPU limits are, its capacity, the switch. */
  fastSitesOffset(): number;
  fastLimitsOffset(): number;
  fastSiteCapacity(): number;
  setFastSites(on: number): void;
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
export { disassemble, formatLine, formatSymbolHeader } from './disassemble.js';
export type { DisassemblyLine, Symbolizer } from './disassemble.js';
