// Patched instructions shared by the providers of one text: one entry per
// patched address, holding the original bytes and every probe placed there.
// The first probe placed decides the bytes written and how the displaced
// instruction is performed; all probes at an address fire on each trap
// there. Removing the last probe restores the exact original bytes. One
// invop handler serves the whole table. The kernel's table (fbt, sdt, kinst)
// is `tracepointsOf(machine)`; the text and the traps a table claims are
// parameters, so a process's text (pid, usdt) can have a table of its own.
import type { FastSiteFilter, InvopHandler, InvopResult, Machine, Trap } from '@wdtrace/kernel';

/** The text a table patches and the trap path it listens on (a Machine, for the kernel's text). */
export interface PatchableText {
  /** The text as it is now. Throws when unmapped. */
  readText(va: bigint, length: number): Uint8Array;
  /** Patches the text from the host (decode caches stay exact). */
  writeText(va: bigint, bytes: Uint8Array): void;
  addInvopHandler(handler: InvopHandler): () => void;
  /** Differences d such that text linked at v also runs at v - d (Machine.textAliases). */
  textAliases?(): readonly bigint[];
  /** Fast probe sites of the text's CPU cores (Machine.setFastSite and the rest), where it has them. */
  setFastSite?(handler: InvopHandler, address: bigint, filter: FastSiteFilter, perform: Extract<InvopResult, { kind: 'emulate' | 'displaced' }>): boolean;
  removeFastSite?(address: bigint): number;
  fastSiteFirings?(address: bigint): number;
}

/** A probe placed on a kernel instruction. */
export interface Tracepoint {
  readonly address: bigint;
  /** Bytes written at `address` while the tracepoint is installed. */
  readonly patch: Uint8Array;
  /** Fires the probe for a trap at `address` and says how to perform the displaced instruction. */
  fire(trap: Trap): InvopResult;
  /** Name for diagnostics ("fbt:kernel:vfs_read:entry"). */
  readonly name: string;
  /** Firing order among probes at one address, lowest first (entry probes before return probes). */
  readonly order?: number;
  /**
   * A tracepoint whose `fire` always answers `fastResult` and whose probe's
   * arguments 0..3 are the ISA's first four argument registers (an fbt
   * entry) may offer its probe's filter: while it is a site's only owner,
   * the site is made a fast site with the filter (see TracepointTable).
   */
  fastFilter?(): FastSiteFilter | undefined;
  readonly fastResult?: InvopResult;
}

/** A probe that places its tracepoints together and takes them out together (fbt's, sdt's). */
export interface PlacedProbe {
  tracepoints?: Tracepoint[];
}

interface Site {
  readonly address: bigint;
  /** The address's high 32 bits, as `low32` gives the low ones (a signed int). */
  readonly high: number;
  /** The next site whose address has the same low 32 bits (see TracepointTable.siteAt). */
  sameLow: Site | undefined;
  readonly original: Uint8Array;
  readonly owners: Tracepoint[];
  /**
   * The owners in firing order, made anew (never changed in place) whenever
   * the owners change, so a trap neither sorts nor copies, and a firing that
   * installs or removes tracepoints leaves the order being fired as it was.
   */
  firing: readonly Tracepoint[];
  /** Bytes currently written (the head owner's patch). */
  written: Uint8Array;
  /** The filter of the fast site it is (none: not one), and a filter the machine refused for it. */
  fast: FastSiteFilter | undefined;
  refused: FastSiteFilter | undefined;
}

/** The owners of a site in firing order: by `order`, then as installed. */
function firingOrder(owners: readonly Tracepoint[]): readonly Tracepoint[] {
  return [...owners].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
}

const hex = (v: bigint): string => `0x${v.toString(16)}`;

/** The longest patch any ISA writes (an x86-64 instruction's 15 bytes bound it). */
const MAX_PATCH = 16;

/** Where an address is split to take its low 32 bits without making a bigint. */
const ADDRESS_WORD = new DataView(new ArrayBuffer(8));
/** The low 32 bits of an address (modulo 2^64), as a signed int: a small integer, quick to look up. */
function low32(address: bigint): number {
  ADDRESS_WORD.setBigUint64(0, address, true);
  return ADDRESS_WORD.getInt32(0, true);
}
/** Bits 63:32 of an address (modulo 2^64), as a signed int. */
function high32(address: bigint): number {
  ADDRESS_WORD.setBigUint64(0, address, true);
  return ADDRESS_WORD.getInt32(4, true);
}

/**
 * Sites by the low 32 bits of their address, those that share them chained
 * (Site.sameLow): a map of 4 KiB pages, each an array by the byte offset in
 * the page. A trap's lookup then reads a map of a few pages and one array
 * slot, where a map of every site (thousands, under fbt) costs a hashed
 * lookup in a table that seldom stays in the caches between firings.
 */
class LowIndex {
  private readonly pages = new Map<number, { readonly slots: (Site | undefined)[]; used: number }>();

  /** The first site whose address's low 32 bits are `low` (as a signed or an unsigned int). */
  get(low: number): Site | undefined {
    const page = this.pages.get(low >>> 12);
    return page === undefined ? undefined : page.slots[low & 0xfff];
  }

  set(low: number, site: Site): void {
    let page = this.pages.get(low >>> 12);
    if (page === undefined) {
      page = { slots: new Array<Site | undefined>(4096).fill(undefined), used: 0 };
      this.pages.set(low >>> 12, page);
    }
    if (page.slots[low & 0xfff] === undefined) page.used++;
    page.slots[low & 0xfff] = site;
  }

  delete(low: number): void {
    const page = this.pages.get(low >>> 12);
    if (page === undefined || page.slots[low & 0xfff] === undefined) return;
    page.slots[low & 0xfff] = undefined;
    if (--page.used === 0) this.pages.delete(low >>> 12);
  }
}

export class TracepointTable {
  private readonly sites = new Map<bigint, Site>();
  /**
   * The same sites by the low 32 bits of their address, those that share
   * them chained: a trap finds its site with a small-integer key, not a
   * bigint one (hashing a 64-bit bigint cost more than the rest of the
   * lookup).
   */
  private readonly byLow = new LowIndex();
  private removeHandler: (() => void) | undefined;
  /** The invop handler, as registered (a fast site names it). */
  private readonly handler: InvopHandler = (trap) => this.handle(trap);
  /** Traps claimed since creation, and firings the cores took at fast sites since taken out. */
  private claimed = 0;
  private fastTaken = 0;
  /** The sites that are fast sites now. */
  private readonly fastSites = new Set<Site>();

  /**
   * Firings since creation (all probes): the traps claimed and the firings
   * the CPU cores took at fast sites without a trap.
   */
  get firings(): number {
    return this.claimed + this.fastFirings;
  }

  /** Firings the CPU cores took at fast sites (see "Fast sites" below). */
  get fastFirings(): number {
    let n = this.fastTaken;
    for (const site of this.fastSites) n += this.text.fastSiteFirings!(site.address);
    return n;
  }

  constructor(
    private readonly text: PatchableText,
    /** Which traps are this table's to look at (the kernel's: those not taken in user mode). */
    private readonly claims: (trap: Trap) => boolean = (trap) => !trap.user,
  ) {}

  /** Installed addresses. */
  get size(): number {
    return this.sites.size;
  }

  /** Kernel text with every installed patch taken back out: what the kernel looks like unpatched. */
  readOriginal(va: bigint, length: number): Uint8Array {
    const bytes = this.text.readText(va, length).slice();
    const end = va + BigInt(length);
    for (const [addr, site] of this.sites) {
      const siteEnd = addr + BigInt(site.original.length);
      if (siteEnd <= va || addr >= end) continue;
      for (let i = 0; i < site.original.length; i++) {
        const a = addr + BigInt(i);
        if (a >= va && a < end) bytes[Number(a - va)] = site.original[i]!;
      }
    }
    return bytes;
  }

  install(tp: Tracepoint): void {
    if (tp.patch.length > MAX_PATCH) throw new Error(`${tp.name}: a patch of ${tp.patch.length} bytes is longer than any instruction`);
    const site = this.sites.get(tp.address);
    if (site) {
      if (site.owners.includes(tp)) throw new Error(`${tp.name}: already installed at ${hex(tp.address)}`);
      this.dropFast(site);
      site.owners.push(tp);
      site.firing = firingOrder(site.owners);
      // Firing order only: the head (the bytes written) stays the first installed.
      return;
    }
    // Patches are at most MAX_PATCH bytes: only sites that close can overlap this one.
    for (let d = -(MAX_PATCH - 1); d < tp.patch.length; d++) {
      const addr = tp.address + BigInt(d);
      const other = d === 0 ? undefined : this.sites.get(addr);
      if (other && addr < tp.address + BigInt(tp.patch.length) && tp.address < addr + BigInt(other.written.length)) {
        throw new Error(`${tp.name}: patch at ${hex(tp.address)} would overlap the one at ${hex(addr)} (${other.owners[0]!.name})`);
      }
    }
    const original = this.text.readText(tp.address, tp.patch.length).slice();
    this.addSite({ address: tp.address, high: high32(tp.address), sameLow: undefined, original, owners: [tp], firing: [tp], written: tp.patch, fast: undefined, refused: undefined });
    this.text.writeText(tp.address, tp.patch);
    if (!this.removeHandler) this.removeHandler = this.text.addInvopHandler(this.handler);
  }

  /**
   * Installs every tracepoint of a probe and records them on it, or none:
   * when one cannot be installed those before it come out again.
   */
  place(probe: PlacedProbe, tps: Tracepoint[]): void {
    const done: Tracepoint[] = [];
    try {
      for (const tp of tps) {
        this.install(tp);
        done.push(tp);
      }
    } catch (e) {
      for (const tp of done) this.remove(tp);
      throw e;
    }
    probe.tracepoints = tps;
  }

  /** Removes the tracepoints a probe placed (none placed: nothing to do). */
  unplace(probe: PlacedProbe): void {
    if (!probe.tracepoints) return;
    for (const tp of probe.tracepoints) this.remove(tp);
    probe.tracepoints = undefined;
  }

  remove(tp: Tracepoint): void {
    const site = this.sites.get(tp.address);
    const i = site ? site.owners.indexOf(tp) : -1;
    if (!site || i < 0) throw new Error(`${tp.name}: not installed at ${hex(tp.address)}`);
    this.dropFast(site);
    site.owners.splice(i, 1);
    site.firing = firingOrder(site.owners);
    if (site.owners.length === 0) {
      this.text.writeText(tp.address, site.original);
      this.deleteSite(site);
      if (this.sites.size === 0 && this.removeHandler) {
        this.removeHandler();
        this.removeHandler = undefined;
      }
      return;
    }
    const head = site.owners[0]!;
    if (head.patch !== site.written) {
      // The new head's pattern may be shorter: put the original back first.
      this.text.writeText(tp.address, site.original);
      this.text.writeText(tp.address, head.patch);
      site.written = head.patch;
    }
  }

  /**
   * Drops every tracepoint in [start, end) without writing: the memory no
   * longer holds that code (a module was unloaded). Returns what was dropped.
   */
  forget(start: bigint, end: bigint): Tracepoint[] {
    const dropped: Tracepoint[] = [];
    for (const [addr, site] of [...this.sites]) {
      if (addr < start || addr >= end) continue;
      this.dropFast(site);
      dropped.push(...site.owners);
      this.deleteSite(site);
    }
    if (this.sites.size === 0 && this.removeHandler) {
      this.removeHandler();
      this.removeHandler = undefined;
    }
    return dropped;
  }

  private addSite(site: Site): void {
    this.sites.set(site.address, site);
    const low = low32(site.address);
    site.sameLow = this.byLow.get(low);
    this.byLow.set(low, site);
  }

  private deleteSite(site: Site): void {
    this.sites.delete(site.address);
    const low = low32(site.address);
    const first = this.byLow.get(low);
    if (first === site) {
      if (site.sameLow === undefined) this.byLow.delete(low);
      else this.byLow.set(low, site.sameLow);
    } else {
      for (let s = first; s !== undefined; s = s.sameLow) {
        if (s.sameLow === site) {
          s.sameLow = site.sameLow;
          break;
        }
      }
    }
    site.sameLow = undefined;
  }

  /** The site at `address`, found by the low 32 bits of the address. */
  private siteAt(address: bigint): Site | undefined {
    let s = this.byLow.get(low32(address));
    while (s !== undefined && s.address !== address) s = s.sameLow;
    return s;
  }

  /** The site at a trap's pc: by its 32-bit halves when the port gave them (no bigint made), else as siteAt. */
  private siteOfTrap(trap: Trap): Site | undefined {
    const low = trap.pcLow32;
    if (low === undefined) return this.siteAt(trap.pc);
    const high = trap.pcHigh32! | 0;
    let s = this.byLow.get(low);
    while (s !== undefined && s.high !== high) s = s.sameLow;
    return s;
  }

  /** How many sites are fast sites now (see "Fast sites" below). */
  get fastSiteCount(): number {
    return this.fastSites.size;
  }

  /** Makes `site` a fast site with its owner's filter of now, or takes it out (see "Fast sites" below). */
  private refreshFast(site: Site, owner: Tracepoint): void {
    const filter = owner.fastFilter!();
    if (filter === site.fast) return;
    this.dropFast(site);
    const perform = owner.fastResult;
    if (filter === undefined || filter === site.refused || this.text.setFastSite === undefined || (perform?.kind !== 'emulate' && perform?.kind !== 'displaced')) return;
    if (this.text.setFastSite(this.handler, site.address, filter, perform)) {
      site.fast = filter;
      this.fastSites.add(site);
    } else site.refused = filter;
  }

  private dropFast(site: Site): void {
    if (site.fast === undefined) return;
    this.fastTaken += this.text.removeFastSite!(site.address);
    site.fast = undefined;
    this.fastSites.delete(site);
  }

  /** Whether a tracepoint is installed at `address`. */
  has(address: bigint): boolean {
    return this.sites.has(address);
  }

  /**
   * The invop handler: every probe at the trap's pc fires; the head's result
   * performs the instruction. A trap at an alias of the text (the kernel
   * running at its physical address before the MMU is on) is a trap at the
   * linked address; emulations and displaced execution act at the trap's pc
   * either way, and a resume address is moved by the alias.
   */
  handle(trap: Trap): InvopResult | undefined {
    if (!this.claims(trap)) return undefined;
    let site = this.siteOfTrap(trap);
    let alias = 0n;
    if (!site && this.text.textAliases) {
      for (const d of this.text.textAliases()) {
        site = this.siteAt(trap.pc + d);
        if (site) {
          alias = d;
          break;
        }
      }
    }
    if (!site) return undefined;
    this.claimed++;
    const head = site.owners[0]!;
    let result: InvopResult | undefined;
    const firing = site.firing;
    for (let i = 0; i < firing.length; i++) {
      const o = firing[i]!;
      const r = o.fire(trap);
      if (o === head) result = r;
    }
    if (head.fastFilter !== undefined && alias === 0n && site.owners.length === 1 && site.owners[0] === head) this.refreshFast(site, head);
    if (alias !== 0n && result?.kind === 'resume' && result.pc !== undefined) return { kind: 'resume', pc: result.pc - alias };
    return result;
  }
}

// Fast sites. A site whose only owner offers its probe's filter is made a
// fast site of the text's CPU cores (Machine.setFastSite): its breakpoint
// stays, and a core that hits it calls the filter and, when the firing
// would do nothing, performs the owner's displaced instruction itself
// without a trap. Made lazily: each firing on the trap path (the first
// one, and each one the filter sends on because it is stale or the state
// changed) asks the owner for its probe's filter now and makes, replaces
// or takes out the fast site to match. A change of the site's owners takes
// the fast site out first; its firings count on in `fastTaken`.

const tables = new WeakMap<Machine, TracepointTable>();

/** The tracepoint table of a machine's kernel text, shared by its kernel providers. */
export function tracepointsOf(machine: Machine): TracepointTable {
  let t = tables.get(machine);
  if (!t) {
    t = new TracepointTable(machine);
    tables.set(machine, t);
  }
  return t;
}
