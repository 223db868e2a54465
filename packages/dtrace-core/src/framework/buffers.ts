// The principal buffers (dtrace_buffer_t): each CPU's buffer is a region of
// the shared WebAssembly memory (wmem.ts), laid out when tracing starts
// (dtrace_state_go) and freed when it stops. Records sit in it one after
// another, each an ECB's chunk (its epid first, then the header's timestamp
// and the records at the offsets the program gives) or the library's ERROR
// record, which starts with epid 0 (DTRACE_EPIDNONE):
//
//   +------+-----------+------+---------------+------+-----
//   | epid | records   | epid | records       | 0    | ERROR record ...
//   +------+-----------+------+---------------+------+-----
//   ^ base                                              ^ base + tail
//
// A descriptor of three words per CPU, also in the shared memory, says
// where the CPU's active buffer is (base), where the next record goes
// (tail) and how far records may go without the policy having a say
// (limit): a probe's trampoline writes its records at base + tail and moves
// tail itself while tail + size stays within limit, and calls out to
// reserve() otherwise. reserve() applies the policy:
//
// - switch: two buffers, the active one and the inactive one; a snapshot
//   (dtrace_buffer_switch) makes the other one active and copies the
//   records out of the one taken. A record that does not fit is a drop.
// - fill: one buffer; a record that does not fit is a drop, and the buffer
//   is full (tracing stops). Room for the END enablings' records is kept
//   (dts_reserve) for END alone.
// - ring: one buffer whose oldest records make room for new ones; it is
//   read when tracing stops. A record that would pass the end of the region
//   goes to its start (the tail of the region is left unused up to `wrap`);
//   the region holds bufsize plus the largest record, so that a record
//   always fits in place of the oldest ones once they are evicted.
//
// What the records take is counted as before: their sizes (an ERROR
// record ERROR_RECORD_SIZE), against bufsize. A region starts small and
// doubles as records need it, up to what the policy lays out; when the
// memory cannot grow any more, the record is a drop.
//
// Nothing handed out is a view of the shared memory (a growth detaches
// it): snapshots copy the records out.

import { sharedBlock } from './wasm.js';
import { OwnedRegions } from './wmem.js';

export type BufferPolicyName = 'switch' | 'fill' | 'ring';

/** A descriptor's words (byte offsets): the active buffer's address, the next record's offset in it, the bound of records placed without reserve(). */
export const D_BASE = 0, D_TAIL = 4, D_LIMIT = 8;
const DESCRIPTOR_SIZE = 16;
/** The epid of the library's ERROR record (DTRACE_EPIDNONE). */
export const ERROR_EPID = 0;
/** What an ERROR record takes of a buffer. */
export const ERROR_RECORD_SIZE = 48;
/** The size a buffer region starts with (at most what the policy lays out). */
const INITIAL_REGION = 16 * 1024;

interface CpuBuffer {
  /** The region of each buffer (two with switch), its size, and which one is active. */
  readonly regions: number[];
  readonly sizes: number[];
  active: number;
  /** Ring: the offset of the oldest record, and where the records before the start of the region end (-1: not wrapped). */
  head: number;
  wrap: number;
  drops: number;
  /** Fill: a record did not fit. */
  full: boolean;
}

/** What a snapshot takes of a buffer: its records' bytes, copied out, and its drops. */
export interface TakenBuffer {
  readonly bytes: Uint8Array;
  readonly drops: number;
}

export class PrincipalBuffers {
  private readonly cpus: CpuBuffer[] = [];
  /** The descriptors' region, 0 until laid out. */
  private descriptors = 0;
  /** Every region held, for freeing. */
  private readonly owned = new OwnedRegions(this);
  /** Whether END fires (cooldown): it may use the reserve of a fill buffer. */
  private ending = false;
  /** The size each buffer grows to. */
  private readonly full: number;

  constructor(
    readonly ncpus: number,
    readonly policy: BufferPolicyName,
    readonly bufsize: number,
    /** What a fill buffer keeps for END (the END ECBs' sizes). */
    readonly endReserve: number,
    /** The largest record (an ECB's size or an ERROR record's). */
    readonly largest: number,
  ) {
    this.full = policy === 'ring' ? bufsize + largest : bufsize;
  }

  get laidOut(): boolean {
    return this.descriptors !== 0;
  }

  /**
   * Lays out each CPU's buffers (dtrace_state_go); false when the memory
   * cannot hold them.
   */
  layout(): boolean {
    if (this.laidOut) return true;
    const d = this.owned.allocate(this.ncpus * DESCRIPTOR_SIZE);
    if (d === undefined) return false;
    this.descriptors = d;
    this.cpus.length = 0;
    const n = this.policy === 'switch' ? 2 : 1;
    const initial = Math.max(1, Math.min(this.full, INITIAL_REGION));
    for (let cpu = 0; cpu < this.ncpus; cpu++) {
      const regions: number[] = [];
      for (let i = 0; i < n; i++) {
        const r = this.owned.allocate(initial);
        if (r === undefined) {
          this.free();
          return false;
        }
        regions.push(r);
      }
      this.cpus.push({ regions, sizes: regions.map(() => initial), active: 0, head: 0, wrap: -1, drops: 0, full: false });
      const i32 = sharedBlock().i32;
      i32[(d + cpu * DESCRIPTOR_SIZE + D_BASE) >> 2] = regions[0]!;
      i32[(d + cpu * DESCRIPTOR_SIZE + D_TAIL) >> 2] = 0;
      this.setLimit(cpu);
    }
    return true;
  }

  /** Hands every region back (tracing stopped); whether a buffer filled is kept. */
  free(): void {
    this.owned.freeAll();
    this.descriptors = 0;
  }

  /** The address of `cpu`'s descriptor (0 before layout). */
  descriptor(cpu: number): number {
    return this.descriptors === 0 ? 0 : this.descriptors + cpu * DESCRIPTOR_SIZE;
  }

  /** END fires (or has finished): a fill buffer's reserve is END's. */
  setEnding(ending: boolean): void {
    if (this.ending === ending) return;
    this.ending = ending;
    if (this.laidOut) for (let cpu = 0; cpu < this.ncpus; cpu++) this.setLimit(cpu);
  }

  /** Counts a drop on `cpu`'s buffer (dtrace_buffer_drop): a speculation's commit that found no room. */
  drop(cpu: number): void {
    const b = this.cpus[cpu];
    if (b !== undefined) b.drops++;
  }

  isFull(cpu: number): boolean {
    return this.cpus[cpu]?.full ?? false;
  }

  anyFull(): boolean {
    return this.cpus.some((b) => b.full);
  }

  /** What records may take now. */
  private cap(): number {
    return this.policy === 'fill' && !this.ending ? Math.max(0, this.bufsize - this.endReserve) : this.bufsize;
  }

  private tail(cpu: number): number {
    return sharedBlock().i32[(this.descriptors + cpu * DESCRIPTOR_SIZE + D_TAIL) >> 2]!;
  }

  private setTail(cpu: number, tail: number): void {
    sharedBlock().i32[(this.descriptors + cpu * DESCRIPTOR_SIZE + D_TAIL) >> 2] = tail;
  }

  /** The bytes the records of `cpu`'s buffer take. */
  private used(b: CpuBuffer, tail: number): number {
    return b.wrap < 0 ? tail - b.head : b.wrap - b.head + tail;
  }

  /**
   * The limit word: records placed below it fit without eviction, growth
   * or drop, exactly as reserve() would place them.
   */
  private setLimit(cpu: number): void {
    const b = this.cpus[cpu]!;
    const size = b.sizes[b.active]!;
    const cap = this.cap();
    let limit: number;
    if (this.policy !== 'ring') limit = Math.min(cap, size);
    else if (b.wrap < 0) limit = Math.min(b.head + cap, size);
    else limit = b.head + cap - b.wrap;
    sharedBlock().i32[(this.descriptors + cpu * DESCRIPTOR_SIZE + D_LIMIT) >> 2] = limit;
  }

  /**
   * Room for a record of `size` bytes at the end of `cpu`'s buffer
   * (dtrace_buffer_reserve, with the policies above): its address in the
   * shared memory, which the caller fills at once (views taken afresh: the
   * memory may have grown), or -1 when it is dropped.
   */
  reserve(cpu: number, size: number): number {
    const d = this.descriptors + cpu * DESCRIPTOR_SIZE;
    if (this.descriptors !== 0) {
      // Below the limit: in place, as a trampoline places it.
      const i32 = sharedBlock().i32;
      const t = i32[(d + D_TAIL) >> 2]!;
      if (t + size <= i32[(d + D_LIMIT) >> 2]!) {
        i32[(d + D_TAIL) >> 2] = t + size;
        return i32[(d + D_BASE) >> 2]! + t;
      }
    }
    const b = this.cpus[cpu];
    if (b === undefined || !this.laidOut) return -1;
    const cap = this.cap();
    let tail = this.tail(cpu);
    let used = this.used(b, tail);
    if (used + size > cap) {
      if (this.policy === 'ring' && size <= cap) {
        while (used + size > cap && used > 0) {
          const evicted = this.recordSize(b.regions[b.active]! + b.head);
          b.head += evicted;
          used -= evicted;
          if (b.wrap >= 0 && b.head >= b.wrap) {
            b.head = 0;
            b.wrap = -1;
          }
        }
        if (used === 0) {
          b.head = 0;
          b.wrap = -1;
          tail = 0;
        }
      } else {
        b.drops++;
        if (this.policy === 'fill') b.full = true;
        return -1;
      }
    }
    let region = b.sizes[b.active]!;
    if (b.wrap < 0 && tail + size > region) {
      if (region < this.full) {
        if (!this.grow(cpu, b, tail, tail + size)) {
          b.drops++;
          if (this.policy === 'fill') b.full = true;
          return -1;
        }
        tail -= b.head;
        b.head = 0;
        region = b.sizes[b.active]!;
      } else {
        // Ring only (a linear buffer's records never pass its full size): go on from the start.
        b.wrap = tail;
        tail = 0;
      }
    }
    const at = b.regions[b.active]! + tail;
    this.setTail(cpu, tail + size);
    this.setLimit(cpu);
    return at;
  }

  /** The size of the record at `address` (by its epid). */
  private recordSize(address: number): number {
    // Records are packed by their sizes: the epid may be unaligned.
    const u8 = sharedBlock().u8;
    const epid = (u8[address]! | (u8[address + 1]! << 8) | (u8[address + 2]! << 16) | (u8[address + 3]! << 24)) >>> 0;
    return epid === ERROR_EPID ? ERROR_RECORD_SIZE : this.sizeOf(epid);
  }

  /** The size of an ECB's records by epid (set by the state). */
  sizeOf: (epid: number) => number = () => {
    throw new RangeError('no ECB sizes');
  };

  /**
   * Moves the active buffer of `cpu` (not wrapped) to a larger region that
   * holds `need` bytes, its records [head, tail) at its start.
   */
  private grow(cpu: number, b: CpuBuffer, tail: number, need: number): boolean {
    let size = b.sizes[b.active]!;
    while (size < need) size *= 2;
    size = Math.min(size, this.full);
    if (size < need) return false;
    const r = this.owned.allocate(size);
    if (r === undefined) return false;
    const old = b.regions[b.active]!;
    sharedBlock().u8.copyWithin(r, old + b.head, old + tail);
    this.owned.release(old);
    b.regions[b.active] = r;
    b.sizes[b.active] = size;
    sharedBlock().i32[(this.descriptors + cpu * DESCRIPTOR_SIZE + D_BASE) >> 2] = r;
    return true;
  }

  /**
   * The buffer's records and drops, copied out, leaving it empty
   * (dtrace_buffer_switch: with switch the other buffer becomes active).
   */
  take(cpu: number): TakenBuffer {
    const b = this.cpus[cpu];
    if (b === undefined || !this.laidOut) return { bytes: new Uint8Array(0), drops: 0 };
    const tail = this.tail(cpu);
    const base = b.regions[b.active]!;
    const u8 = sharedBlock().u8;
    let bytes: Uint8Array;
    if (b.wrap < 0) {
      bytes = u8.slice(base + b.head, base + tail);
    } else {
      bytes = new Uint8Array(b.wrap - b.head + tail);
      bytes.set(u8.subarray(base + b.head, base + b.wrap), 0);
      bytes.set(u8.subarray(base, base + tail), b.wrap - b.head);
    }
    const drops = b.drops;
    b.drops = 0;
    b.head = 0;
    b.wrap = -1;
    if (this.policy === 'switch') {
      b.active ^= 1;
      sharedBlock().i32[(this.descriptors + cpu * DESCRIPTOR_SIZE + D_BASE) >> 2] = b.regions[b.active]!;
    }
    this.setTail(cpu, 0);
    this.setLimit(cpu);
    return { bytes, drops };
  }
}
