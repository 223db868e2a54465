// The host's side of the core's fast probe sites (assembly/fastsite.ts): the
// table of sites in the core's memory, laid out here (open addressing with
// linear probing, at most half full, rewritten whenever a site goes away),
// the filters in the core's exported function table, the per-CPU retired
// limits and the switch. Sites are keyed by the breakpoint's pc.
import type { ArmCoreExports } from './index.js';

/** How the core performs a fast site's displaced instruction. */
export type ArmFastPerform =
  /** emulate(code, word), as ArmCoreExports.emulate. */
  | { readonly kind: 'emulate'; readonly code: number; readonly word: number }
  /** The displaced instruction's bytes (2 or 4), run as A32 or T32 by the CPU's state at the trap, as executeDisplaced / executeDisplacedT32. */
  | { readonly kind: 'displaced'; readonly bytes: Uint8Array };

/** A filter as the core calls it: (cpu, r0, r1, r2, r3 zero-extended) -> 0 when the firing does nothing. */
export type ArmFastFilter = (cpu: number, a0: bigint, a1: bigint, a2: bigint, a3: bigint) => number;

const SITE_SIZE = 32;
const KIND_EMULATE = 1, KIND_DISPLACED = 2, KIND_DISPLACED_T16 = 3;

interface Site {
  readonly pc: number;
  readonly slot: number;
  kind: number;
  code: number;
  word: number;
  /** Fast firings counted before the table was last rewritten. */
  carried: number;
}

const hash = (pc: number, capacity: number): number => ((pc >>> 1) ^ (pc >>> 13)) & (capacity - 1);

export class ArmFastSites {
  private readonly sites = new Map<number, Site>();
  private readonly freeSlots: number[] = [];
  private readonly capacity: number;
  private readonly base: number;
  private readonly limitsBase: number;
  private readonly table: WebAssembly.Table;

  constructor(private readonly core: ArmCoreExports) {
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
   * Registers (or updates) the fast site at `pc`: `filter` decides, `perform`
   * says how the displaced instruction runs. False when the table is full
   * (half its slots) or the instruction cannot be performed so.
   */
  set(pc: number, filter: ArmFastFilter, perform: ArmFastPerform): boolean {
    pc >>>= 0;
    let kind: number, code: number, word: number;
    if (perform.kind === 'emulate') {
      if (!this.core.emulationMatches(perform.code, perform.word >>> 0)) return false;
      [kind, code, word] = [KIND_EMULATE, perform.code, perform.word >>> 0];
    } else {
      const b = perform.bytes;
      if (b.length !== 2 && b.length !== 4) return false;
      const hw0 = b[0]! | (b[1]! << 8);
      if (b.length === 2) [kind, code, word] = [KIND_DISPLACED_T16, hw0, 0];
      else [kind, code, word] = [KIND_DISPLACED, ((hw0 << 16) | b[2]! | (b[3]! << 8)) >>> 0, (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0];
    }
    let site = this.sites.get(pc);
    if (site === undefined) {
      if (this.sites.size + 1 > this.capacity / 2) return false;
      const slot = this.freeSlots.pop() ?? this.table.grow(1);
      site = { pc, slot, kind, code, word, carried: 0 };
      this.sites.set(pc, site);
      this.table.set(slot, filter);
      this.write(site, 0);
      return true;
    }
    this.table.set(site.slot, filter);
    site.kind = kind;
    site.code = code;
    site.word = word;
    const at = this.find(pc);
    this.words()[(at >>> 2) + 1] = site.slot;
    this.words()[(at >>> 2) + 2] = kind;
    this.words()[(at >>> 2) + 3] = code;
    this.words()[(at >>> 2) + 4] = word;
    return true;
  }

  /** Takes out the site at `pc`; returns its fast firings (0 when there was none). */
  remove(pc: number): number {
    pc >>>= 0;
    const site = this.sites.get(pc);
    if (site === undefined) return 0;
    const n = this.firings(pc);
    for (const s of this.sites.values()) s.carried = this.firings(s.pc);
    this.sites.delete(pc);
    this.table.set(site.slot, null);
    this.freeSlots.push(site.slot);
    const words = this.words();
    words.fill(0, this.base >>> 2, (this.base + this.capacity * SITE_SIZE) >>> 2);
    for (const s of this.sites.values()) this.write(s, 0);
    return n;
  }

  /** Fast firings of the site at `pc` since it was registered. */
  firings(pc: number): number {
    const site = this.sites.get(pc >>> 0);
    if (site === undefined) return 0;
    const at = this.find(site.pc);
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

  /** The byte offset of the slot holding `pc` (which must be registered). */
  private find(pc: number): number {
    const words = this.words();
    for (let i = hash(pc, this.capacity); ; i = (i + 1) & (this.capacity - 1)) {
      const at = this.base + i * SITE_SIZE;
      if (words[(at >>> 2) + 2] === 0) throw new Error(`fast site 0x${pc.toString(16)} is not in the core's table`);
      if (words[at >>> 2] === pc) return at;
    }
  }

  /** Writes `site` into its slot, its firing count from `count`. */
  private write(site: Site, count: number): void {
    const words = this.words();
    let i = hash(site.pc, this.capacity);
    while (words[((this.base + i * SITE_SIZE) >>> 2) + 2] !== 0) i = (i + 1) & (this.capacity - 1);
    const w = (this.base + i * SITE_SIZE) >>> 2;
    words[w] = site.pc;
    words[w + 1] = site.slot;
    words[w + 2] = site.kind;
    words[w + 3] = site.code;
    words[w + 4] = site.word;
    words[w + 5] = 0;
    words[w + 6] = count;
    words[w + 7] = 0;
  }
}
