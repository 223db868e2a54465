// Regions of the shared WebAssembly memory (wasm.ts sharedBlock): the
// buffers a state lays out at enable (principal buffers, aggregation and
// dynamic-variable tables) are carved from it past its first two pages, so
// every DIFO module and trampoline, which import that one memory, can write
// them with plain loads and stores.
//
//   0        64 KiB        128 KiB                                  top
//   +--------+-------------+-----------+-------+-----------+------+
//   | block  | agg. cells  | region    | free  | region    | ...  |
//   +--------+-------------+-----------+-------+-----------+------+
//
// A region is 16-byte aligned and zeroed when handed out. Freed regions are
// kept in address order and merged with their free neighbours; the first
// one that fits is taken, else the memory grows. Growing detaches the old
// ArrayBuffer: allocateRegion makes the shared views again, so nothing may
// keep a view (or a Block) across a call to it, and nothing handed to a
// consumer may be a view of this memory (copy out instead).

import { SHARED_MAXIMUM_PAGES, SHARED_PAGES, refreshSharedViews, sharedBlock } from './wasm.js';

const PAGE = 65536;
const ALIGN = 16;
/** Where regions start: past the firing block's page and the cells' page. */
export const REGIONS_START = SHARED_PAGES * PAGE;

/** Free extents, in address order: [start, size]. */
const free: Array<[number, number]> = [];
/** Allocated regions: start -> size. */
const used = new Map<number, number>();
/** The end of what has been handed out or freed: memory past it is untouched. */
let top = REGIONS_START;

/**
 * A zeroed region of `size` bytes (16-byte aligned) of the shared memory,
 * its byte offset; undefined when the memory cannot grow to hold it (the
 * caller then keeps its data in JavaScript, or reports the allocation
 * failure as DTrace would).
 */
export function allocateRegion(size: number): number | undefined {
  if (!Number.isInteger(size) || size <= 0) throw new RangeError(`region size ${size}`);
  const want = Math.ceil(size / ALIGN) * ALIGN;
  for (let i = 0; i < free.length; i++) {
    const [start, length] = free[i]!;
    if (length < want) continue;
    if (length === want) free.splice(i, 1);
    else free[i] = [start + want, length - want];
    used.set(start, want);
    sharedBlock().u8.fill(0, start, start + want);
    return start;
  }
  const start = top;
  const end = start + want;
  const memory = sharedBlock().memory;
  const have = memory.buffer.byteLength;
  if (end > have) {
    const pages = Math.ceil((end - have) / PAGE);
    if (have / PAGE + pages > SHARED_MAXIMUM_PAGES) return undefined;
    try {
      memory.grow(pages);
    } catch {
      return undefined;
    }
    refreshSharedViews(memory);
  }
  top = end;
  used.set(start, want);
  // Memory past `top` was never handed out, but a grown page is zero and a
  // region freed at the end is not: clear it either way.
  sharedBlock().u8.fill(0, start, end);
  return start;
}

/** Hands a region back; its bytes may be given out again at once. */
export function freeRegion(start: number): void {
  const size = used.get(start);
  if (size === undefined) throw new RangeError(`no region at ${start}`);
  used.delete(start);
  let i = 0;
  while (i < free.length && free[i]![0] < start) i++;
  free.splice(i, 0, [start, size]);
  // Merge with the next extent, then with the previous one.
  const next = free[i + 1];
  if (next !== undefined && start + size === next[0]) {
    free[i] = [start, size + next[1]];
    free.splice(i + 1, 1);
  }
  const prev = free[i - 1];
  if (prev !== undefined && prev[0] + prev[1] === start) {
    prev[1] += free[i]![1];
    free.splice(i, 1);
    i--;
  }
  // An extent reaching `top` gives its bytes back to the end.
  const last = free[free.length - 1];
  if (last !== undefined && last[0] + last[1] === top) {
    top = last[0];
    free.pop();
  }
}

/** The size of the region at `start` (as rounded up), or undefined. */
export function regionSize(start: number): number | undefined {
  return used.get(start);
}

/** Bytes handed out and not freed: for tests and leak checks. */
export function regionBytesInUse(): number {
  let n = 0;
  for (const s of used.values()) n += s;
  return n;
}

/** Frees the regions of owners dropped while holding them (a state dropped while tracing). */
const unfreed = typeof FinalizationRegistry === 'undefined' ? undefined : new FinalizationRegistry<number[]>((starts) => {
  for (const s of starts) freeRegion(s);
});

/**
 * The regions one owner holds (a state's principal buffers, its speculations'
 * buffers): handed back together by freeAll(), or by a finalizer should the
 * owner be dropped while it holds some.
 */
export class OwnedRegions {
  private readonly held: number[] = [];
  private registered = false;

  constructor(private readonly owner: object) {}

  /** A region of `size` bytes (allocateRegion), held until released or freed. */
  allocate(size: number): number | undefined {
    const r = allocateRegion(size);
    if (r === undefined) return undefined;
    if (!this.registered) {
      unfreed?.register(this.owner, this.held, this);
      this.registered = true;
    }
    this.held.push(r);
    return r;
  }

  /** Hands one held region back. */
  release(start: number): void {
    const i = this.held.indexOf(start);
    if (i >= 0) this.held.splice(i, 1);
    freeRegion(start);
  }

  /** Hands every held region back. */
  freeAll(): void {
    if (this.registered) unfreed?.unregister(this);
    this.registered = false;
    for (const r of this.held.splice(0)) freeRegion(r);
  }
}
