// The host's side of the core's fast probe sites (assembly/fastsite.ts): the
// table of sites in the core's memory, laid out here (open addressing with
// linear probing, at most half full, rewritten whenever a site goes away),
// the filters in the core's exported function table, the per-CPU retired
// limits and the switch. Sites are keyed by the int3's address (rip).
import { X86Emulation } from './emulation.js';
import type { X86CoreExports } from './index.js';

/** How the core performs a fast site's displaced instruction. */
export type X86FastPerform =
  /** emulate(code), as X86CoreExports.emulate. */
  | { readonly kind: 'emulate'; readonly code: number }
  /** The displaced instruction's bytes (1 to 15), run at the int3's address as X86CoreExports.executeDisplaced. */
  | { readonly kind: 'displaced'; readonly bytes: Uint8Array };

/** A filter as the core calls it: (cpu, rdi, rsi, rdx, rcx) -> 0 when the firing does nothing. */
export type X86FastFilter = (cpu: number, a0: bigint, a1: bigint, a2: bigint, a3: bigint) => number;

const SITE_SIZE = 48;
const KIND_EMULATE = 1, KIND_DISPLACED = 2;
const MAX_U64 = 0xffff_ffff_ffff_ffffn;
const EMULATIONS = new Set<number>([X86Emulation.nop, X86Emulation.pushRbp, X86Emulation.popRbp, X86Emulation.leave, X86Emulation.ret]);

interface Site {
  readonly rip: bigint;
  readonly low: number;
  readonly high: number;
  readonly slot: number;
  kind: number;
  /** The emulation code, or the displaced instruction's length. */
  code: number;
  readonly bytes: Uint8Array;
  /** Fast firings counted before the table was last rewritten. */
  carried: number;
}

const hash = (low: number, capacity: number): number => ((low >>> 4) ^ (low >>> 14)) & (capacity - 1);

export class X86FastSites {
  private readonly sites = new Map<bigint, Site>();
  private readonly freeSlots: number[] = [];
  private readonly capacity: number;
  private readonly base: number;
  private readonly limitsBase: number;
  private readonly table: WebAssembly.Table;

  constructor(private readonly core: X86CoreExports) {
    this.capacity = core.fastSiteCapacity();
    this.base = core.fastSitesOffset();
    this.limitsBase = core.fastLimitsOffset();
    this.table = core.table;
  }

  /** How many sites are registered. */
  get size(): number {
    return this.sites.size;
  }

  /**
   * Registers (or updates) the fast site at `rip`: `filter` decides, `perform`
   * says how the displaced instruction runs. False when the table is full
   * (half its slots), `rip` is not a 64-bit address, or the instruction
   * cannot be performed so (an unknown emulation, 0 or more than 15 bytes).
   */
  set(rip: bigint, filter: X86FastFilter, perform: X86FastPerform): boolean {
    if (rip < 0n || rip > MAX_U64) return false;
    let kind: number, code: number;
    const bytes = new Uint8Array(16);
    if (perform.kind === 'emulate') {
      if (!EMULATIONS.has(perform.code)) return false;
      [kind, code] = [KIND_EMULATE, perform.code];
    } else {
      const b = perform.bytes;
      if (b.length < 1 || b.length > 15) return false;
      bytes.set(b);
      [kind, code] = [KIND_DISPLACED, b.length];
    }
    let site = this.sites.get(rip);
    if (site === undefined) {
      if (this.sites.size + 1 > this.capacity / 2) return false;
      const slot = this.freeSlots.pop() ?? this.table.grow(1);
      site = { rip, low: Number(rip & 0xffff_ffffn), high: Number(rip >> 32n), slot, kind, code, bytes, carried: 0 };
      this.sites.set(rip, site);
      this.table.set(slot, filter);
      this.write(site, 0);
      return true;
    }
    this.table.set(site.slot, filter);
    site.kind = kind;
    site.code = code;
    site.bytes.set(bytes);
    const at = this.find(site);
    const words = this.words();
    words[(at >>> 2) + 2] = site.slot;
    words[(at >>> 2) + 3] = kind;
    words[(at >>> 2) + 4] = code;
    this.bytesView().set(site.bytes, at + 32);
    return true;
  }

  /** Takes out the site at `rip`; returns its fast firings (0 when there was none). */
  remove(rip: bigint): number {
    const site = this.sites.get(rip);
    if (site === undefined) return 0;
    const n = this.firings(rip);
    for (const s of this.sites.values()) s.carried = this.firings(s.rip);
    this.sites.delete(rip);
    this.table.set(site.slot, null);
    this.freeSlots.push(site.slot);
    this.words().fill(0, this.base >>> 2, (this.base + this.capacity * SITE_SIZE) >>> 2);
    for (const s of this.sites.values()) this.write(s, 0);
    return n;
  }

  /** Fast firings of the site at `rip` since it was registered. */
  firings(rip: bigint): number {
    const site = this.sites.get(rip);
    if (site === undefined) return 0;
    const at = this.find(site);
    const words = this.words();
    return site.carried + words[(at >>> 2) + 6]! + words[(at >>> 2) + 7]! * 0x1_0000_0000;
  }

  /** CPU `cpu` takes the fast path only while its retired count is below `retired` (Infinity: always). */
  setLimit(cpu: number, retired: number): void {
    const words = this.words();
    const at = (this.limitsBase >>> 2) + cpu * 2;
    if (retired === Infinity) {
      words[at] = 0xffffffff;
      words[at + 1] = 0xffffffff;
    } else {
      const n = Math.max(0, Math.floor(retired));
      words[at] = n % 0x1_0000_0000;
      words[at + 1] = Math.floor(n / 0x1_0000_0000);
    }
  }

  /** Turns the fast path on or off for every site. */
  enable(on: boolean): void {
    this.core.setFastSites(on ? 1 : 0);
  }

  private words(): Uint32Array {
    return new Uint32Array(this.core.memory.buffer);
  }

  private bytesView(): Uint8Array {
    return new Uint8Array(this.core.memory.buffer);
  }

  /** The byte offset of the slot holding `site` (which must be registered). */
  private find(site: Site): number {
    const words = this.words();
    for (let i = hash(site.low, this.capacity); ; i = (i + 1) & (this.capacity - 1)) {
      const at = this.base + i * SITE_SIZE;
      if (words[(at >>> 2) + 3] === 0) throw new Error(`fast site 0x${site.rip.toString(16)} is not in the core's table`);
      if (words[at >>> 2] === site.low && words[(at >>> 2) + 1] === site.high) return at;
    }
  }

  /** Writes `site` into a free slot of its search, its firing count from `count`. */
  private write(site: Site, count: number): void {
    const words = this.words();
    let i = hash(site.low, this.capacity);
    while (words[((this.base + i * SITE_SIZE) >>> 2) + 3] !== 0) i = (i + 1) & (this.capacity - 1);
    const at = this.base + i * SITE_SIZE;
    const w = at >>> 2;
    words[w] = site.low;
    words[w + 1] = site.high;
    words[w + 2] = site.slot;
    words[w + 3] = site.kind;
    words[w + 4] = site.code;
    words[w + 5] = 0;
    words[w + 6] = count;
    words[w + 7] = 0;
    this.bytesView().set(site.bytes, at + 32);
  }
}
