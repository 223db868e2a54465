// Test helper: a bare x86-64 core with flat memory (paging off, CPL 0) for
// running code at fixed addresses, as the differential vectors need.
import { createX86Core, type WasmBuild, type X86HostImports } from '../src/index.js';

export interface BareCore {
  core: Awaited<ReturnType<typeof createX86Core>>;
  ram: () => Uint8Array;
  regs: () => BigUint64Array;
  setRip(v: bigint): void;
  /** Writes bytes into guest RAM and tells the core (its decoded-instruction cache) about it. */
  poke(addr: number, bytes: ArrayLike<number>): void;
  rip(): bigint;
}

export async function bareCore(ramBytes: number, build: WasmBuild = 'debug', host: X86HostImports = {}): Promise<BareCore> {
  const core = (await createX86Core(build, host)) as BareCore['core'];
  core.initRam(ramBytes);
  return {
    core,
    ram: () => new Uint8Array(core.memory.buffer, core.ramOffset(), ramBytes),
    regs: () => new BigUint64Array(core.memory.buffer, core.regsOffset(), 16),
    poke: (addr, bytes) => {
      new Uint8Array(core.memory.buffer, core.ramOffset(), ramBytes).set(bytes, addr);
      core.codeWritten(addr, bytes.length);
    },
    setRip: (v) => core.setRipParts(Number(v & 0xffffffffn), Number(v >> 32n)),
    rip: () => (BigInt(core.getRipHi() >>> 0) << 32n) | BigInt(core.getRipLo() >>> 0),
  };
}
