// The speculation buffers (dtsp_buffer[cpu] of each dtrace_speculation_t):
// each CPU's buffer of a speculation is a region of the shared WebAssembly
// memory (wmem.ts), as the principal buffers are (buffers.ts). A
// speculation's buffers are laid out when speculation() first makes it (the
// state makes speculations as they are first needed, up to nspec), and freed
// when tracing stops.
//
// A speculation has a descriptor of three words per CPU in the shared
// memory, as a principal buffer does (base, tail, limit: buffers.ts D_*),
// and each CPU's region holds that CPU's speculative records one after
// another, each an ECB's chunk (its epid first; the library's ERROR record
// never goes in a speculation):
//
//   descriptor (per speculation)     region of CPU 0            region of CPU 1
//   +------+------+-------+----      +------+--------+------+   +------ ...
//   | base | tail | limit | ...      | epid | records| epid |   | epid
//   +------+------+-------+----      +------+--------+------+   +------ ...
//     cpu 0                cpu 1     ^ base          base + tail ^
//
// A buffer is a NOSWITCH buffer of specsize bytes (dtrace_state_buffer): a
// record that would take it past specsize is a drop (dtb_drops), which the
// state counts as a speculative drop once the speculation is committed
// (dtb_xamot_drops), and forgets on a discard. A CPU's region is made at
// its first record, small, and doubles as records need it, up to specsize;
// when the memory cannot grow any more, the record is a drop too. The limit
// word is where records may go without a growth (the region's size, at most
// specsize): a trampoline could place records below it itself.
//
// A commit copies the CPU's records into that CPU's principal buffer as
// dtrace_speculation_commit does: all of them or none, the space for the
// whole buffer reserved at once under the principal buffer's policy (a
// reservation that fails is a drop there, and the commit counts one more),
// each record's timestamp then set to the commit's time, so that the
// principal buffer's records stay in time order; it empties the
// speculation's buffer. A discard empties it.
//
// Nothing handed out is a view of the shared memory (a growth detaches it).

import { D_BASE, D_LIMIT, D_TAIL, type PrincipalBuffers } from './buffers.js';
import { sharedBlock } from './wasm.js';
import { OwnedRegions } from './wmem.js';

const DESCRIPTOR_SIZE = 16;

/** What a commit stamps its records with: the commit's time, and each record's header size by its epid. */
export interface CommitStamp {
  readonly timestamp: bigint;
  headerOf(epid: number): number;
}
/** The size a speculation buffer's region starts with (at most specsize). */
const INITIAL_REGION = 4096;

/** One speculation's buffers: its descriptors' region, each CPU's region size (0: none yet) and drops. */
interface SpeculationRegions {
  readonly descriptors: number;
  readonly sizes: number[];
  readonly drops: number[];
}

export class SpeculationBuffers {
  private readonly specs: SpeculationRegions[] = [];
  /** Every region held, for freeing. */
  private readonly owned = new OwnedRegions(this);

  constructor(
    readonly ncpus: number,
    readonly specsize: number,
  ) {}

  /** How many speculations have buffers. */
  get count(): number {
    return this.specs.length;
  }

  /**
   * Lays out the buffers of one more speculation (its descriptors; each
   * CPU's region comes with its first record): its index, or undefined when
   * the memory cannot hold them.
   */
  make(): number | undefined {
    const d = this.owned.allocate(this.ncpus * DESCRIPTOR_SIZE);
    if (d === undefined) return undefined;
    this.specs.push({ descriptors: d, sizes: new Array<number>(this.ncpus).fill(0), drops: new Array<number>(this.ncpus).fill(0) });
    return this.specs.length - 1;
  }

  /** Hands every region back (tracing stopped): the speculations have no buffers any more. */
  free(): void {
    this.owned.freeAll();
    this.specs.length = 0;
  }

  /** The address of the descriptor of `cpu`'s buffer of speculation `spec` (0 when it has none). */
  descriptor(spec: number, cpu: number): number {
    const s = this.specs[spec];
    return s === undefined ? 0 : s.descriptors + cpu * DESCRIPTOR_SIZE;
  }

  private word(spec: number, cpu: number, word: number): number {
    return sharedBlock().i32[(this.specs[spec]!.descriptors + cpu * DESCRIPTOR_SIZE + word) >> 2]!;
  }

  private setWord(spec: number, cpu: number, word: number, value: number): void {
    sharedBlock().i32[(this.specs[spec]!.descriptors + cpu * DESCRIPTOR_SIZE + word) >> 2] = value;
  }

  /** The bytes the records of `cpu`'s buffer of `spec` take (dtb_offset). */
  used(spec: number, cpu: number): number {
    return this.specs[spec] === undefined ? 0 : this.word(spec, cpu, D_TAIL);
  }

  /** The records of `cpu`'s buffer of `spec` that did not fit since it was last emptied (dtb_drops). */
  drops(spec: number, cpu: number): number {
    return this.specs[spec]?.drops[cpu] ?? 0;
  }

  /**
   * Room for a record of `size` bytes at the end of `cpu`'s buffer of
   * `spec` (dtrace_buffer_reserve on a NOSWITCH buffer): its address in the
   * shared memory, which the caller fills at once (views taken afresh: the
   * memory may have grown), or -1 when it is dropped.
   */
  reserve(spec: number, cpu: number, size: number): number {
    const s = this.specs[spec];
    if (s === undefined) return -1;
    const tail = this.word(spec, cpu, D_TAIL);
    if (tail + size > this.specsize) {
      s.drops[cpu]!++;
      return -1;
    }
    if (tail + size > s.sizes[cpu]! && !this.grow(s, spec, cpu, tail, tail + size)) {
      s.drops[cpu]!++;
      return -1;
    }
    this.setWord(spec, cpu, D_TAIL, tail + size);
    return this.word(spec, cpu, D_BASE) + tail;
  }

  /** Makes or moves `cpu`'s region of `spec` to one that holds `need` bytes, its `tail` bytes of records at its start. */
  private grow(s: SpeculationRegions, spec: number, cpu: number, tail: number, need: number): boolean {
    let size = Math.max(s.sizes[cpu]!, Math.min(INITIAL_REGION, this.specsize));
    while (size < need) size *= 2;
    size = Math.min(size, this.specsize);
    const r = this.owned.allocate(size);
    if (r === undefined) return false;
    if (s.sizes[cpu]! > 0) {
      const old = this.word(spec, cpu, D_BASE);
      sharedBlock().u8.copyWithin(r, old, old + tail);
      this.owned.release(old);
    }
    s.sizes[cpu] = size;
    this.setWord(spec, cpu, D_BASE, r);
    this.setWord(spec, cpu, D_LIMIT, size);
    return true;
  }

  /** Empties `cpu`'s buffer of `spec`, forgetting its drops (a discard, or the end of a commit). */
  clear(spec: number, cpu: number): void {
    const s = this.specs[spec];
    if (s === undefined) return;
    this.setWord(spec, cpu, D_TAIL, 0);
    s.drops[cpu] = 0;
  }

  /**
   * Copies `cpu`'s records of `spec` into `cpu`'s principal buffer, all or
   * none (see the top; `sizeOf` gives a record's size by its epid), with
   * `stamp`, each record whose header holds a timestamp (`headerOf` its
   * size, 12 bytes or more) stamped with `stamp.timestamp`; and empties the
   * buffer: its drops, for the state to count as speculative drops.
   */
  commit(spec: number, cpu: number, into: PrincipalBuffers, sizeOf: (epid: number) => number, stamp?: CommitStamp): number {
    const s = this.specs[spec];
    if (s === undefined) return 0;
    const tail = this.word(spec, cpu, D_TAIL);
    const base = this.word(spec, cpu, D_BASE);
    if (tail > 0) {
      const to = into.reserve(cpu, tail);
      if (to < 0) into.drop(cpu);
      else {
        // reserve() may have grown the memory: fresh views.
        const b = sharedBlock();
        b.u8.copyWithin(to, base, base + tail);
        if (stamp !== undefined) {
          const hi = Number(BigInt.asUintN(64, stamp.timestamp) >> 32n);
          const lo = Number(BigInt.asUintN(32, stamp.timestamp));
          const view = new DataView(b.memory.buffer);
          for (let at = 0; at < tail; ) {
            // Records are packed by their sizes: the epid may be unaligned.
            const p = to + at;
            const epid = view.getUint32(p, true);
            if (stamp.headerOf(epid) >= 12) {
              view.setUint32(p + 4, hi, true);
              view.setUint32(p + 8, lo, true);
            }
            at += sizeOf(epid);
          }
        }
      }
    }
    const drops = s.drops[cpu]!;
    this.clear(spec, cpu);
    return drops;
  }
}
