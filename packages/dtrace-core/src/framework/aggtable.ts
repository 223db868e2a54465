// Keyed aggregation tables in the shared WebAssembly memory: one per
// aggregation whose entries a probe's trampoline updates by integer or
// string keys (`@[arg0] = count()`, `@[pid, arg1] = sum(arg2)`, `@[cpu] =
// quantize(arg0)`, `@[execname] = count()`), so that a firing that
// finds its entry there costs no JavaScript. The table is an open-addressed
// hash table (linear probing, at most half full) in a region of the shared
// memory (wmem.ts); a descriptor of its own 16-byte region says where the
// slots are, so the table can grow without the trampolines being rebuilt:
//
//   descriptor: | slots' address (i32) | mask = capacity - 1 (i32) | 0 ... |
//
//   slot:       | tag (i32, 1: used) | 0 | key 0 ... key n-1 | cell words |
//
// An integer key is the 64 bits of its DIF's value, in 8 bytes. A string key
// is its bytes as the aggregation keys it (up to the NUL, at most `limit`:
// strsize, and one less than its record), zero-padded to a field of
// limit + 1 bytes rounded up to 8, so the byte after the string is always a
// zero. The hash is KEY_HASH's (the same in the trampoline, trampoline.ts).
// The cell is what the trampoline's
// firings added since the entry was last read (count, sum: additions; min,
// max: the least, the greatest; avg: the count and the sum: two words, as a
// trampoline cell of a probe-constant entry holds, see cellStart; quantize,
// lquantize: what was added to each bucket, as many words as the data,
// each at its data word's place; stddev: the count, the sum and the
// sum of squares in three words, low first): the entry itself
// (AggregationBucket, state.ts) lives in JavaScript, which takes the cell in
// when it is read, at each snapshot and at stop.
//
// The trampoline only finds entries: one it does not find (missing, or the
// table not holding it) is left to the firing plan's JavaScript, which
// makes the entry as dtrace_aggregate does (aggsize, drops, its place in the
// aggregation's order) and puts it in the table (insert). So what is in the
// table is always an entry of the JavaScript's, and the results are those
// of the JavaScript's alone.

import { KEY_HASH_MULTIPLIER, SLOT_KEYS, cellStart, type CellFunction, type TableFunction } from './trampoline.js';
import { sharedBlock } from './wasm.js';
import { allocateRegion, freeRegion } from './wmem.js';

/** What a keyed table's cells hold. */
export type KeyedFunction = CellFunction | TableFunction;

/** A table's first capacity, in slots (a power of two). */
const INITIAL_CAPACITY = 64;

/** What a key of a table is: an integer, or a string of at most `limit` bytes. */
export type KeyShape = { readonly string: false } | { readonly string: true; readonly limit: number };

/** Bytes a key takes in a slot: 8 for an integer; a string's limit + 1 rounded up to 8. */
export const keyFieldSize = (shape: KeyShape): number => (shape.string ? (shape.limit + 8) & ~7 : 8);

/**
 * KEY_HASH: h = 0; for each key, an integer's h = ((h ^ key) *
 * KEY_HASH_MULTIPLIER) mod 2^64, a string's the same for each of its bytes
 * in turn; then h ^= h >> 32. The slot to start from is h's low 32 bits & mask.
 */
export function keyHash(keys: readonly (bigint | Uint8Array)[]): number {
  let h = 0n;
  for (const k of keys) {
    if (typeof k === 'bigint') {
      h = BigInt.asUintN(64, (h ^ BigInt.asUintN(64, k)) * KEY_HASH_MULTIPLIER);
    } else {
      for (let i = 0; i < k.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(k[i]!)) * KEY_HASH_MULTIPLIER);
    }
    h ^= h >> 32n;
  }
  return Number(h & 0xffffffffn);
}

/** A string key's bytes as a table keys it: up to the first NUL, at most `limit`. */
function stringKey(bytes: Uint8Array, limit: number): Uint8Array {
  let n = 0;
  while (n < limit && n < bytes.length && bytes[n] !== 0) n++;
  return bytes.subarray(0, n);
}

/** An entry of a table: what the table tells it of its slot. */
export interface KeyedOwner {
  /** Its slot's index in `keyed`, while it has one. */
  slot: number;
  keyed: KeyedTable | undefined;
  /** Takes in its cell (at `address`), which the table then empties. */
  absorbCell(fn: KeyedFunction, address: number): void;
}

/**
 * Takes what a cell at `address` holds into `words` (an entry's data) and
 * empties the cell: count and sum add (wrapping as int64_t), min and max
 * keep the least and the greatest, avg adds its count and sum; a
 * histogram's buckets add (lquantize's and llquantize's first word is its parameters).
 */
export function absorbCell(fn: KeyedFunction, address: number, words: bigint[]): void {
  const mem = sharedBlock().i64;
  const at = address >> 3;
  if (fn === 'stddev') {
    // The count and the sum add, the 128-bit sums of squares add (the data's low word is kept unsigned, as aggregate() keeps it).
    if (mem[at] === 0n && mem[at + 1] === 0n && mem[at + 2] === 0n && mem[at + 3] === 0n && mem[at + 4] === 0n) return;
    const squares = (BigInt.asUintN(64, mem[at + 4]!) << 128n) | (BigInt.asUintN(64, mem[at + 3]!) << 64n) | BigInt.asUintN(64, mem[at + 2]!);
    words[0] = words[0]! + mem[at]!;
    words[1] = BigInt.asIntN(64, words[1]! + mem[at + 1]!);
    const sq = ((words[3]! << 64n) | BigInt.asUintN(64, words[2]!)) + squares;
    words[2] = BigInt.asUintN(64, sq);
    words[3] = sq >> 64n;
    mem.fill(0n, at, at + 5);
    return;
  }
  if (fn === 'quantize' || fn === 'lquantize' || fn === 'llquantize') {
    for (let j = fn === 'quantize' ? 0 : 1; j < words.length; j++) {
      const a = mem[at + j]!;
      if (a === 0n) continue;
      words[j] = BigInt.asIntN(64, words[j]! + a);
      mem[at + j] = 0n;
    }
    return;
  }
  const a = mem[at]!;
  const start = cellStart(fn);
  if (a === start && (fn !== 'avg' || mem[at + 1] === 0n)) return;
  switch (fn) {
    case 'count':
    case 'sum': words[0] = BigInt.asIntN(64, words[0]! + a); break;
    case 'min': if (a < words[0]!) words[0] = a; break;
    case 'max': if (a > words[0]!) words[0] = a; break;
    case 'avg':
      words[0] = words[0]! + a;
      words[1] = BigInt.asIntN(64, words[1]! + mem[at + 1]!);
      mem[at + 1] = 0n;
      break;
  }
  mem[at] = start;
}

/** One aggregation's keyed table (see the top). */
export class KeyedTable {
  /** The descriptor's address, fixed for the table's life. */
  readonly descriptor: number;
  /** Bytes of a slot: tag, keys, two cell words. */
  readonly slotSize: number;
  private base = 0;
  private capacity = 0;
  private count = 0;
  /** By slot index, the entry it holds. */
  private owners: (KeyedOwner | undefined)[] = [];
  private freed = false;
  /** Each key's offset in a slot's keys, and their bytes in all. */
  readonly keyOffsets: readonly number[];
  readonly keysSize: number;

  private constructor(
    readonly fn: KeyedFunction,
    readonly shapes: readonly KeyShape[],
    /** Words of a cell: 2, a histogram's data words, or stddev()'s 5. */
    readonly cellWords: number,
    descriptor: number,
  ) {
    this.descriptor = descriptor;
    const offsets: number[] = [];
    let size = 0;
    for (const s of shapes) {
      offsets.push(size);
      size += keyFieldSize(s);
    }
    this.keyOffsets = offsets;
    this.keysSize = size;
    this.slotSize = SLOT_KEYS + size + 8 * cellWords;
  }

  /** How many keys an entry has. */
  get nkeys(): number {
    return this.shapes.length;
  }

  /**
   * A table for `fn` of `keys` (a number: that many integer keys; for a
   * histogram, of `dataWords`, its data's words), or undefined when the
   * shared memory cannot hold it.
   */
  static make(fn: KeyedFunction, keys: number | readonly KeyShape[], dataWords = 2): KeyedTable | undefined {
    const shapes: readonly KeyShape[] = typeof keys === 'number' ? Array.from({ length: keys }, () => ({ string: false }) as const) : keys;
    const descriptor = allocateRegion(16);
    if (descriptor === undefined) return undefined;
    const t = new KeyedTable(fn, shapes, fn === 'stddev' ? 5 : fn === 'count' || fn === 'sum' || fn === 'min' || fn === 'max' || fn === 'avg' ? 2 : dataWords, descriptor);
    if (!t.resize(INITIAL_CAPACITY)) {
      freeRegion(descriptor);
      return undefined;
    }
    return t;
  }

  /** The cell's address of slot `slot`. */
  cellAddress(slot: number): number {
    return this.base + slot * this.slotSize + SLOT_KEYS + this.keysSize;
  }

  /**
   * `keys` as the table keys them (strings up to their NUL and limit), or
   * undefined when they are not of its shapes. An integer must be an
   * unsigned 64-bit value: an entry keyed by a negative BigInt is one the
   * trampoline, which keys by the bits, might take for another.
   */
  private tableKeys(keys: readonly (bigint | Uint8Array)[]): (bigint | Uint8Array)[] | undefined {
    if (keys.length !== this.shapes.length) return undefined;
    const out: (bigint | Uint8Array)[] = [];
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const shape = this.shapes[k]!;
      if (shape.string) {
        if (!(key instanceof Uint8Array)) return undefined;
        out.push(stringKey(key, shape.limit));
      } else {
        if (typeof key !== 'bigint' || key < 0n || key > 0xffffffffffffffffn) return undefined;
        out.push(key);
      }
    }
    return out;
  }

  /** The keys slot memory at `at` holds. */
  private slotKeys(at: number): (bigint | Uint8Array)[] {
    const b = sharedBlock();
    return this.shapes.map((shape, k) => {
      const from = at + SLOT_KEYS + this.keyOffsets[k]!;
      return shape.string ? stringKey(b.u8.slice(from, from + keyFieldSize(shape)), shape.limit) : b.u64[from >> 3]!;
    });
  }

  /** How many entries it holds. */
  get size(): number {
    return this.count;
  }

  /**
   * Puts `owner`, of `keys` (integers, the bytes of strings, as the entry
   * holds them), in the table with an empty cell; returns whether it did
   * (not when they are not of its keys' shapes, when the table cannot grow
   * to keep at most half of its slots used, nor once freed).
   */
  insert(entryKeys: readonly (bigint | Uint8Array)[], owner: KeyedOwner): boolean {
    const keys = this.tableKeys(entryKeys);
    if (this.freed || keys === undefined) return false;
    if ((this.count + 1) * 2 > this.capacity && !this.resize(this.capacity * 2)) return false;
    const slot = this.place(keys);
    const b = sharedBlock();
    const at = this.base + slot * this.slotSize;
    b.i32[at >> 2] = 1;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const from = at + SLOT_KEYS + this.keyOffsets[k]!;
      if (typeof key === 'bigint') b.u64[from >> 3] = key;
      else b.u8.set(key, from);
    }
    const cell = (at + SLOT_KEYS + this.keysSize) >> 3;
    b.i64.fill(0n, cell, cell + this.cellWords);
    b.i64[cell] = cellStart(this.fn);
    this.owners[slot] = owner;
    owner.slot = slot;
    owner.keyed = this;
    this.count++;
    return true;
  }

  /** The free slot `keys` go to (the table has one: it is at most half full). */
  private place(keys: readonly (bigint | Uint8Array)[]): number {
    const mask = this.capacity - 1;
    const tags = sharedBlock().i32;
    let slot = keyHash(keys) & mask;
    while (tags[(this.base + slot * this.slotSize) >> 2] !== 0) slot = (slot + 1) & mask;
    return slot;
  }

  /** Moves the entries to a table of `capacity` slots; false when the memory cannot hold it. */
  private resize(capacity: number): boolean {
    const base = allocateRegion(capacity * this.slotSize);
    if (base === undefined) return false;
    const oldBase = this.base;
    const oldOwners = this.owners;
    this.base = base;
    this.capacity = capacity;
    this.owners = new Array<KeyedOwner | undefined>(capacity);
    const b = sharedBlock();
    for (let slot = 0; slot < oldOwners.length; slot++) {
      const owner = oldOwners[slot];
      if (owner === undefined) continue;
      const from = oldBase + slot * this.slotSize;
      const to = this.place(this.slotKeys(from));
      b.u8.copyWithin(base + to * this.slotSize, from, from + this.slotSize);
      this.owners[to] = owner;
      owner.slot = to;
    }
    if (oldBase !== 0) freeRegion(oldBase);
    b.i32[this.descriptor >> 2] = base;
    b.i32[(this.descriptor >> 2) + 1] = capacity - 1;
    return true;
  }

  /** Takes every entry's cell in and empties the table (the aggregation buffer switch). */
  clear(): void {
    if (this.count === 0) return;
    for (let slot = 0; slot < this.owners.length; slot++) {
      const owner = this.owners[slot];
      if (owner === undefined) continue;
      owner.absorbCell(this.fn, this.cellAddress(slot));
      owner.slot = -1;
      owner.keyed = undefined;
    }
    this.owners = new Array<KeyedOwner | undefined>(this.capacity);
    this.count = 0;
    sharedBlock().u8.fill(0, this.base, this.base + this.capacity * this.slotSize);
  }

  /** Takes every cell in and hands the regions back: nothing fires any more. */
  free(): void {
    if (this.freed) return;
    this.clear();
    this.freed = true;
    freeRegion(this.base);
    freeRegion(this.descriptor);
    this.base = 0;
    this.capacity = 0;
  }
}
