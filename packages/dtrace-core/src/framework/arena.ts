// The framework's arena: the D-visible memory the framework owns, addressed
// from ARENA_BASE in the D address space. String tables and by-reference
// global storage live in its static area; scratch (alloca(), string results,
// copies) is a bump allocator reset at every firing.
//
//   ARENA_BASE
//   +-----------------------------+------------------------------------+
//   | static: DIFO string tables  | scratch: per-firing bump allocator |
//   +-----------------------------+------------------------------------+
//
// A state's arena lives in a region of the shared WebAssembly memory (wmem.ts)
// where it can have one (`backing`), so that the WebAssembly a probe's
// trampoline runs reads its strings where the interpreter does (a string key
// hashed in the trampoline, trampoline.ts); else in an array of its own.
// Growing the shared memory detaches its views: `bytes` makes them again.

import { DTRACEFLT, DifFault } from './faults.js';

/** Base of the framework arena in the D address space (non-canonical on x86-64, beyond 32 bits on ARM). */
export const ARENA_BASE = 0x7ffe_0000_0000_0000n;

const U64 = (v: bigint): bigint => BigInt.asUintN(64, v);
/** A 64-bit word to split an address into 32-bit halves. */
const WORD = new DataView(new ArrayBuffer(8));

/** Where an arena's bytes live when they are not an array of their own: `size` bytes from `start` of a memory's buffer, which may be replaced (a grown WebAssembly memory's). */
export interface ArenaBacking {
  readonly start: number;
  buffer(): ArrayBuffer;
}

/** The arena: static string tables, then scratch reset at every firing. */
export class Arena {
  private view_: Uint8Array;
  private data: DataView;
  private staticTop = 0;
  private scratchTop: number;
  /** ARENA_BASE + the arena's size: the first address past it. */
  private readonly end: bigint;
  /** Its bytes' count. */
  readonly size: number;

  /** An arena of `staticSize` + `scratchSize` bytes, in `backing` (zeroed) or in an array of its own. */
  constructor(staticSize: number, readonly scratchSize: number, private backing?: ArenaBacking) {
    this.size = staticSize + scratchSize;
    this.view_ = backing === undefined ? new Uint8Array(this.size) : new Uint8Array(backing.buffer(), backing.start, this.size);
    this.data = new DataView(this.view_.buffer, this.view_.byteOffset, this.size);
    this.end = ARENA_BASE + BigInt(this.size);
    this.scratchTop = staticSize;
    this.scratchBase = staticSize;
  }
  private readonly scratchBase: number;

  /** Its bytes (a view made again when its memory grew). */
  get bytes(): Uint8Array {
    const b = this.view_;
    return b.length !== 0 || this.size === 0 ? b : this.remake();
  }

  private get view(): DataView {
    if (this.view_.length === 0 && this.size !== 0) this.remake();
    return this.data;
  }

  private remake(): Uint8Array {
    this.view_ = new Uint8Array(this.backing!.buffer(), this.backing!.start, this.size);
    this.data = new DataView(this.view_.buffer, this.view_.byteOffset, this.size);
    return this.view_;
  }

  /** Where its bytes start in the shared memory, while it lives there. */
  get sharedStart(): number | undefined {
    return this.backing?.start;
  }

  /** Moves its bytes into an array of its own (they stay readable) and returns where they were in their backing, to hand back; undefined when it had none. */
  unshare(): number | undefined {
    const backing = this.backing;
    if (backing === undefined) return undefined;
    const own = this.bytes.slice();
    this.backing = undefined;
    this.view_ = own;
    this.data = new DataView(own.buffer);
    return backing.start;
  }

  /** Copies `data` into the static area (string tables at load, global storage) and returns its address. */
  addStatic(data: Uint8Array): bigint {
    this.staticTop = (this.staticTop + 7) & ~7;
    if (this.staticTop + data.length > this.scratchBase) throw new RangeError('arena static area exhausted');
    this.bytes.set(data, this.staticTop);
    const addr = ARENA_BASE + BigInt(this.staticTop);
    this.staticTop += data.length;
    return addr;
  }
  resetScratch(): void {
    this.scratchTop = this.scratchBase;
  }
  /** Allocates zeroed scratch, 8-byte aligned; faults NOSCRATCH when exhausted. */
  alloc(size: number): bigint {
    return ARENA_BASE + BigInt(this.allocOffset(size));
  }
  /** alloc(), returning the offset in `bytes` (its address is ARENA_BASE + offset). */
  allocOffset(size: number): number {
    const start = (this.scratchTop + 7) & ~7;
    if (size < 0 || start + size > this.size) throw new DifFault(DTRACEFLT.NOSCRATCH, 0n);
    this.bytes.fill(0, start, start + size);
    this.scratchTop = start + size;
    return start;
  }
  /** Offset of [addr, addr+size) in the arena, or -1. Compares before it subtracts: an address outside makes no BigInt, one inside none either. */
  offsetOf(addr: bigint, size: number): number {
    // Between ARENA_BASE and the arena's end, the offset is the address's low
    // 32 bits (ARENA_BASE's are zero; the arena is far smaller than 4 GiB),
    // read without BigInt arithmetic: this runs for most D loads and strings.
    if (addr >= ARENA_BASE && addr <= this.end && size >= 0) {
      WORD.setBigUint64(0, addr, true);
      const off = WORD.getUint32(0, true);
      return off + size > this.size ? -1 : off;
    }
    const off = addr - ARENA_BASE;
    if (off < 0n || off + BigInt(size) > BigInt(this.size)) return -1;
    return Number(off);
  }
  private readonly variableRegions: [number, number][] = [];
  private readonly globalAddresses = new Map<number, bigint>();

  /**
   * Static storage of a by-reference global (string, array, struct): D
   * programs may take its address and store through it, as into
   * dts_globals in illumos. Allocated once per variable id, zero-filled.
   */
  globalStorage(id: number, size: number): bigint {
    let addr = this.globalAddresses.get(id);
    if (addr === undefined) {
      addr = this.addStatic(new Uint8Array(Math.max(size, 1)));
      const off = Number(addr - ARENA_BASE);
      this.variableRegions.push([off, off + Math.max(size, 1)]);
      this.globalAddresses.set(id, addr);
    }
    return addr;
  }
  private readonly localAddresses = new Map<string, bigint>();
  /**
   * By-reference variables last assigned NULL ("g<id>", "l<id>:<cpu>"): as
   * illumos marks their storage with UINT8_MAX, they read back as NULL.
   */
  private readonly nullVariables = new Set<string>();
  setNull(key: string, isNull: boolean): void {
    if (isNull) this.nullVariables.add(key);
    else this.nullVariables.delete(key);
  }
  isNull(key: string): boolean {
    return this.nullVariables.size !== 0 && this.nullVariables.has(key);
  }

  /**
   * Static storage of a by-reference clause-local (this->) variable on one
   * CPU, as illumos keeps dtvs_locals: one zero-filled area per variable
   * and CPU, allocated on first use and kept across firings (clause-locals
   * are not initialized). Faults NOSCRATCH when the static area is full.
   */
  localStorage(id: number, cpu: number, size: number): bigint {
    const key = `${id}:${cpu}`;
    let addr = this.localAddresses.get(key);
    if (addr === undefined) {
      const n = Math.max(size, 1);
      if (((this.staticTop + 7) & ~7) + n > this.scratchBase) throw new DifFault(DTRACEFLT.NOSCRATCH, 0n);
      addr = this.addStatic(new Uint8Array(n));
      const off = Number(addr - ARENA_BASE);
      this.variableRegions.push([off, off + n]);
      this.localAddresses.set(key, addr);
    }
    return addr;
  }
  globalAddress(id: number): bigint | undefined {
    return this.globalAddresses.get(id);
  }
  /** Scratch or by-reference global storage: where DIF may store. */
  isWritable(addr: bigint, size: number): boolean {
    const off = this.offsetOf(addr, size);
    if (off < 0) return false;
    if (off >= this.scratchBase) return true;
    return this.variableRegions.some(([a, b]) => off >= a && off + size <= b);
  }
  isScratch(addr: bigint, size: number): boolean {
    const off = this.offsetOf(addr, size);
    return off >= this.scratchBase;
  }
  read(off: number, size: number): bigint {
    switch (size) {
      case 1: return BigInt(this.view.getUint8(off));
      case 2: return BigInt(this.view.getUint16(off, true));
      case 4: return BigInt(this.view.getUint32(off, true));
      default: return this.view.getBigUint64(off, true);
    }
  }
  write(off: number, size: number, v: bigint): void {
    switch (size) {
      case 1: this.view.setUint8(off, Number(v & 0xffn)); break;
      case 2: this.view.setUint16(off, Number(v & 0xffffn), true); break;
      case 4: this.view.setUint32(off, Number(v & 0xffffffffn), true); break;
      default: this.view.setBigUint64(off, U64(v), true);
    }
  }
}
