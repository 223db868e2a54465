// DTrace Dynamic Variables: the dynamic-variable space of a state (illumos's
// dtrace_dstate_t), thread-locals and associative arrays, laid out in a
// region of the shared WebAssembly memory (wmem.ts) sized from dynvarsize.
// Both backends use this one table: the interpreter (vm.ts difStep, through
// the state's VmVariables) reads and writes it with views taken afresh at
// each access, since the memory can grow; a translated DIFO (wasm.ts) loads
// and stores integer-valued thread-locals inline, calling the `tload` and
// `tstore` functions of this file's WebAssembly module, which follow the
// same steps as the JavaScript below, so that mixed access gives the same
// bytes.
//
// DTrace Probe Context Functions: nothing here allocates in the memory or
// grows it, but for the byte heap below, which moves to a larger region
// when the one variable the accounting lets exceed dynvarsize does not fit
// it; a store that does not fit is a dynamic-variable drop.
//
// The region (offsets from its start, little-endian):
//
//   0   u32  live variables                 24  i64  bytes in use (accounting)
//   4   u32  free slot list (slot + 1)      32  i64  dynvarsize (the limit)
//   8   u32  slots handed out so far        40  i64  dynamic-variable drops
//   12  u32  slots                          48  u32  the heap's address (0: none yet)
//   16  u32  bucket mask (buckets - 1)      52  u32  its size   56  u32  its top
//   20  u32  address of slot 0              60  u32  its dead blobs' bytes
//   64       buckets: u32 (slot + 1) each, heads of their chains
//   ...      slots, SLOT bytes each
//
//   slot:  +------+------+------------------+------+-----------+-----------+
//          | next | hash | id | kind << 16  | size | key (i64) | value i64 |
//          +------+------+------------------+------+-----------+-----------+
//          0      4      8                  12     16          24          32
//
// A thread-local (kind 1) is keyed by its id and the thread's key, the tid
// (as vm.ts's threadKey), in the slot's key word; an associative array's
// variable (kind 2, also self->x[...]) by its id and its key bytes (the
// tuple's, with the thread's tid in front for self->: see tupleKey).
// Those bytes, and the bytes of a by-reference value (a string,
// a struct; the slot's idkind then has BYREF set), are kept in the table's
// byte heap, a region of its own, as illumos's dtrace_dynvar_t holds its
// key tuple and data in the dynamic variable space: one blob per variable,
// its key bytes then its value bytes; the key word then holds the key
// bytes' address and length, the value word the value bytes' address and
// length. So the table alone is the variables' storage. A slot is found by
// hashing its key into a bucket and walking the bucket's chain; a new
// variable goes at the end of its chain, in the slot at the head of the
// free list or else the next never used one; a freed slot goes to the head
// of the free list. A store of 0 frees the variable, as dtrace_dynvar does;
// a load of an absent variable gives 0.
//
// Accounting (the same as before the table): a variable counts its value's
// size (8 for an integer, the bytes of a by-reference one) plus its key
// string's length (`t<id>:<tid>` or `a<id>:<tuple>`, the tuple as tupleKey
// counts it) plus 16; a store that
// would take the bytes in use past dynvarsize drops, unless it is the only
// variable (dtrace_dstate_init always leaves room for one chunk); a drop
// that replaced a variable frees it. The slots are as many as the smallest
// variables (31 bytes: an id is at least DIF_VAR_OTHER_UBASE, four digits)
// that fit, plus one, at most MAX_SLOTS; past those a store drops too.

import { DIF_OP } from '../dif/opcodes.js';
import { allocateRegion, freeRegion } from './wmem.js';
import { sharedBlock, type ThreadLocalTable } from './wasm.js';
import type { TupleEntry } from './firing.js';
import { Bytes, Code, I32, I64, OP } from './wasm-encoding.js';

export const SLOT = 32;
const HEADER = 64;
const H_COUNT = 0, H_FREE = 4, H_TOP = 8, H_NSLOTS = 12, H_MASK = 16, H_SLOTS = 20, H_BYTES = 24, H_LIMIT = 32, H_DROPS = 40;
const S_NEXT = 0, S_HASH = 4, S_IDKIND = 8, S_SIZE = 12, S_KEY = 16, S_VALUE = 24;
const H_HEAP = 48, H_HEAPSIZE = 52, H_HEAPTOP = 56, H_HEAPDEAD = 60;
/** The bit of a slot's idkind that says its value is by reference (its bytes in the heap). */
const BYREF = 1 << 24;
/** A blob: its owner (slot + 1, 0 once freed), its size with this header (a multiple of 8), then its bytes. */
const BLOB_HEADER = 8, B_OWNER = 0, B_SIZE = 4;
/** The heap's first size. */
const INITIAL_HEAP = 4096;
export const KIND_THREAD = 1, KIND_ASSOC = 2;
/** The smallest variable's accounted size: `t1280:0` with an integer value. */
const SMALLEST = 8 + 7 + 16;
/** The most slots a table has (32 MiB of slots). */
export const MAX_SLOTS = 1 << 20;

/** The accounting's fixed part of an integer thread-local `id`: its value, `t`, `:`, the id's digits and 16. */
export const threadBase = (id: number): number => 8 + 2 + String(id).length + 16;

const M1 = 0x9e3779b1 | 0, M2 = 0x85ebca6b | 0, M3 = 0xc2b2ae35 | 0;

/** The low and high 32 bits of an integral Number, as of its 64-bit two's complement. */
const low32 = (v: number): number => v >>> 0;
const high32 = (v: number): number => Math.floor(v / 4294967296) >>> 0;

/** A non-negative i64 of the header at byte `at`, read and written as two u32 halves (no BigInt): byte counts and drops stay far below 2^53. */
function header64(u32: Uint32Array, at: number): number {
  return u32[at >> 2]! + u32[(at >> 2) + 1]! * 4294967296;
}
function setHeader64(u32: Uint32Array, at: number, v: number): void {
  u32[at >> 2] = low32(v);
  u32[(at >> 2) + 1] = high32(v);
}

/** The hash of a thread-local's key (the WebAssembly `hash` computes the same). */
export function threadHash(idkind: number, tid: number): number {
  let h = Math.imul(idkind ^ M3, M1);
  h = Math.imul(h ^ low32(tid), M2);
  h = Math.imul(h ^ high32(tid), M1);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The hash of an associative array variable's key bytes, the first `length` of `key` (FNV-1a). */
export function assocHash(idkind: number, key: Uint8Array, length: number): number {
  let h = Math.imul(0x811c9dc5 ^ idkind, 0x01000193);
  for (let i = 0; i < length; i++) h = Math.imul(h ^ key[i]!, 0x01000193);
  return (h ^ (h >>> 16)) >>> 0;
}

/*
 * An associative array's key bytes: the thread's tid for self->x[...]
 * (tag 't', LEB128), then each tuple entry: an integer (tag 'i', its 64
 * bits in LEB128), a string (tag 's', its bytes up to the NUL, a NUL), any
 * other by-reference entry, a struct or an array (tag 'b', its length in
 * LEB128, all its bytes, zeros included). Every entry says where it ends,
 * so two tuples never have the same bytes.
 *
 * The accounting counts the key as the string it was before the table kept
 * bytes: the tid's decimal digits and one, then the entries joined by one
 * byte each: 'i' and the integer's hex digits; 's' and the string's bytes;
 * 'b', the length's decimal digits, one, and the bytes. The bytes are never
 * more than that count and one, so a variable's blob (with its header and
 * padding) is never larger than its accounted size.
 */

/** Where tupleKey encodes a key (grown as needed), and its accounted length. */
let keyBytes = new Uint8Array(1024);
let keyAccounted = 0;
const KEY_WORD = new DataView(new ArrayBuffer(8));

/** Room for `n` more bytes after `at` in keyBytes. */
function keyRoom(at: number, n: number): void {
  if (at + n <= keyBytes.length) return;
  const grown = new Uint8Array(Math.max(keyBytes.length * 2, at + n));
  grown.set(keyBytes.subarray(0, at));
  keyBytes = grown;
}

/** Writes `v`'s 64 bits (taken modulo 2^64) in LEB128 at `at`; returns the end. Its hex digits go to keyAccounted. */
function putInteger(at: number, v: bigint): number {
  KEY_WORD.setBigUint64(0, v, true);
  let lo = KEY_WORD.getUint32(0, true);
  let hi = KEY_WORD.getUint32(4, true);
  const bits = hi !== 0 ? 64 - Math.clz32(hi) : 32 - Math.clz32(lo);
  keyAccounted += Math.max(1, Math.ceil(bits / 4));
  keyRoom(at, 10);
  while (hi !== 0 || lo >= 0x80) {
    keyBytes[at++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | ((hi & 0x7f) << 25)) >>> 0;
    hi >>>= 7;
  }
  keyBytes[at++] = lo;
  return at;
}

/**
 * Encodes the key of an associative array variable (see above) into the
 * shared key scratch: its tuple, after the thread's tid for self->x[...];
 * returns its length (keyAccounted: its accounted length).
 */
export function tupleKey(thread: number | undefined, tuple: readonly TupleEntry[]): number {
  let at = 0;
  keyAccounted = 0;
  if (thread !== undefined) {
    keyRoom(at, 1);
    keyBytes[at++] = 0x74;
    at = putInteger(at, BigInt(thread));
    keyAccounted = String(thread).length + 1;
  }
  for (let i = 0; i < tuple.length; i++) {
    const t = tuple[i]!;
    const b = t.bytes;
    keyAccounted += i > 0 ? 2 : 1;
    if (b === undefined) {
      keyRoom(at, 1);
      keyBytes[at++] = 0x69;
      at = putInteger(at, t.value);
    } else if (t.string === true) {
      keyRoom(at, b.length + 2);
      const key = keyBytes;
      key[at++] = 0x73;
      let n = 0;
      for (; n < b.length; n++) {
        const c = b[n]!;
        if (c === 0) break;
        key[at++] = c;
      }
      key[at++] = 0;
      keyAccounted += n;
    } else {
      keyRoom(at, 1);
      keyBytes[at++] = 0x62;
      const counted = keyAccounted;
      at = putInteger(at, BigInt(b.length));
      keyAccounted = counted + String(b.length).length + 1 + b.length;
      keyRoom(at, b.length);
      keyBytes.set(b, at);
      at += b.length;
    }
  }
  return at;
}

/** The key bytes of a tuple, copied (for tests). */
export function tupleKeyBytes(thread: number | undefined, tuple: readonly TupleEntry[]): { bytes: Uint8Array; accounted: number } {
  const n = tupleKey(thread, tuple);
  return { bytes: keyBytes.slice(0, n), accounted: keyAccounted };
}

const VARIABLE_OPS: ReadonlySet<number> = new Set([DIF_OP.LDTS, DIF_OP.STTS, DIF_OP.LDGAA, DIF_OP.STGAA, DIF_OP.LDTAA, DIF_OP.STTAA]);
/** Whether DIF text reads or writes dynamic variables (thread-locals, associative arrays). */
export function usesDynamicVariables(text: ArrayLike<number>): boolean {
  for (let pc = 0; pc < text.length; pc++) if (VARIABLE_OPS.has(text[pc]! >>> 24)) return true;
  return false;
}

/** The slots and buckets of a table for `dynvarsize`. */
export function tableShape(dynvarsize: number): { slots: number; buckets: number; bytes: number } {
  const slots = Math.min(MAX_SLOTS, Math.floor(dynvarsize / SMALLEST) + 1);
  // At least two buckets, so that the slots after them are 8-byte aligned.
  let buckets = 2;
  while (buckets < slots) buckets *= 2;
  return { slots, buckets, bytes: HEADER + 4 * buckets + SLOT * slots };
}

/** One state's dynamic-variable table in the shared memory. */
export class DynamicVariables implements ThreadLocalTable {
  /** The region's address, which a translated DIFO's code names. */
  readonly address: number;
  private freed = false;
  private finalDrops = 0;
  /** What find leaves besides the slot: the address of the link that points at it (a bucket or the previous slot's next) or ends the chain. */
  private link = 0;

  /** A table for `dynvarsize` bytes of variables; undefined when the memory cannot grow for it. */
  static create(dynvarsize: number): DynamicVariables | undefined {
    const shape = tableShape(dynvarsize);
    const address = allocateRegion(shape.bytes);
    return address === undefined ? undefined : new DynamicVariables(address, shape.slots, shape.buckets, dynvarsize);
  }

  private constructor(address: number, slots: number, buckets: number, limit: number) {
    this.address = address;
    const b = sharedBlock();
    const w = address >> 2;
    b.u32[w + (H_NSLOTS >> 2)] = slots;
    b.u32[w + (H_MASK >> 2)] = buckets - 1;
    b.u32[w + (H_SLOTS >> 2)] = address + HEADER + 4 * buckets;
    b.i64[(address + H_LIMIT) >> 3] = BigInt(limit);
  }

  functions(): DynvarFunctions {
    return dynvarFunctions();
  }

  threadKey(id: number): number {
    return id | (KIND_THREAD << 16);
  }

  threadBase(id: number): number {
    return threadBase(id);
  }

  /** Dynamic-variable drops so far. */
  get drops(): number {
    return this.freed ? this.finalDrops : header64(sharedBlock().u32, this.address + H_DROPS);
  }

  /** Live variables. */
  get count(): number {
    return this.freed ? 0 : sharedBlock().u32[(this.address + H_COUNT) >> 2]!;
  }

  /** Bytes in use, as the accounting counts them. */
  get bytesInUse(): number {
    return this.freed ? 0 : header64(sharedBlock().u32, this.address + H_BYTES);
  }

  /** The address of the byte heap (0 before its first blob), for tests. */
  get heapAddress(): number {
    return this.freed ? 0 : sharedBlock().u32[(this.address + H_HEAP) >> 2]!;
  }

  /** Hands the regions back (at stop); the drops stay readable, the variables are gone. */
  free(): void {
    if (this.freed) return;
    this.finalDrops = this.drops;
    this.freed = true;
    const heap = sharedBlock().u32[(this.address + H_HEAP) >> 2]!;
    if (heap !== 0) freeRegion(heap);
    freeRegion(this.address);
  }

  loadThread(id: number, tid: number): bigint | Uint8Array {
    if (this.freed) return 0n;
    const idkind = id | (KIND_THREAD << 16);
    const s = this.find(threadHash(idkind, tid), idkind, low32(tid), high32(tid), -1);
    return s < 0 ? 0n : this.value(s);
  }

  storeThread(id: number, tid: number, v: bigint | Uint8Array | undefined): void {
    if (this.freed) return;
    const idkind = id | (KIND_THREAD << 16);
    this.store(threadHash(idkind, tid), idkind, low32(tid), high32(tid), -1, 1 + String(id).length + 1 + String(tid).length, v);
  }

  /** An associative array's variable: `tuple` keys it, after the thread's tid for self->x[...] (see tupleKey). */
  loadAssoc(id: number, tuple: readonly TupleEntry[], thread: number | undefined): bigint | Uint8Array {
    if (this.freed) return 0n;
    const idkind = id | (KIND_ASSOC << 16);
    const n = tupleKey(thread, tuple);
    const s = this.find(assocHash(idkind, keyBytes, n), idkind, 0, 0, n);
    return s < 0 ? 0n : this.value(s);
  }

  storeAssoc(id: number, tuple: readonly TupleEntry[], thread: number | undefined, v: bigint | Uint8Array | undefined): void {
    if (this.freed) return;
    const idkind = id | (KIND_ASSOC << 16);
    const n = tupleKey(thread, tuple);
    this.store(assocHash(idkind, keyBytes, n), idkind, 0, 0, n, 1 + String(id).length + 1 + keyAccounted, v);
  }

  private slotAddress(s: number): number {
    return sharedBlock().u32[(this.address + H_SLOTS) >> 2]! + s * SLOT;
  }

  /**
   * A slot's value: its integer, or a view of its by-reference bytes in the
   * heap, which the caller copies out before anything else runs (see
   * VmVariables): a copy of a string's strsize bytes would cost V8 an
   * allocation outside its heap at every load.
   */
  private value(s: number): bigint | Uint8Array {
    const b = sharedBlock();
    const a = this.slotAddress(s);
    if ((b.u32[(a + S_IDKIND) >> 2]! & BYREF) === 0) return b.u64[(a + S_VALUE) >> 3]!;
    const at = b.u32[(a + S_VALUE) >> 2]!;
    return b.u8.subarray(at, at + b.u32[(a + S_VALUE + 4) >> 2]!);
  }

  /**
   * The slot of a key (-1 if absent), its 64-bit part given as low and high
   * halves, or for an associative array the length of its key bytes in the
   * key scratch (-1 for a thread-local), compared with the key bytes in the
   * heap; this.link is left at the address of the link that points at it.
   */
  private find(hash: number, idkind: number, low: number, high: number, key: number): number {
    const b = sharedBlock();
    const u32 = b.u32;
    const t = this.address;
    let link = t + HEADER + 4 * (hash & u32[(t + H_MASK) >> 2]!);
    const slots = u32[(t + H_SLOTS) >> 2]!;
    for (let p = u32[link >> 2]!; p !== 0; p = u32[link >> 2]!) {
      const w = (slots + (p - 1) * SLOT) >> 2;
      if (u32[w + (S_HASH >> 2)] === hash && (u32[w + (S_IDKIND >> 2)]! & ~BYREF) === idkind && (key < 0 ? u32[w + (S_KEY >> 2)] === low && u32[w + (S_KEY >> 2) + 1] === high : sameKey(b.u8, u32[w + (S_KEY >> 2)]!, u32[w + (S_KEY >> 2) + 1]!, key))) {
        this.link = link;
        return p - 1;
      }
      link = (w << 2) + S_NEXT;
    }
    this.link = link;
    return -1;
  }

  /** The blob of slot `s`'s bytes (0: it has none): its key bytes' or else its value bytes' address, less the blob's header. */
  private blobOf(s: number): number {
    const u32 = sharedBlock().u32;
    const a = this.slotAddress(s);
    const idkind = u32[(a + S_IDKIND) >> 2]!;
    if (((idkind >>> 16) & 0xff) === KIND_ASSOC) return u32[(a + S_KEY) >> 2]! - BLOB_HEADER;
    if ((idkind & BYREF) !== 0) return u32[(a + S_VALUE) >> 2]! - BLOB_HEADER;
    return 0;
  }

  /** Unlinks slot `s` (reached through `link`), frees its blob and puts it at the head of the free list. */
  private release(s: number, link: number): void {
    const blob = this.blobOf(s);
    if (blob !== 0) this.freeBlob(blob);
    const b = sharedBlock();
    const t = this.address;
    const a = this.slotAddress(s);
    b.u32[link >> 2] = b.u32[(a + S_NEXT) >> 2]!;
    b.u32[(a + S_NEXT) >> 2] = b.u32[(t + H_FREE) >> 2]!;
    b.u32[(t + H_FREE) >> 2] = s + 1;
    b.u32[(t + H_COUNT) >> 2]!--;
  }

  /** The store of dtrace_dynvar and the accounting above: `v` undefined (a zero) frees. */
  private store(hash: number, idkind: number, low: number, high: number, key: number, keyLength: number, v: bigint | Uint8Array | undefined): void {
    const slot = this.find(hash, idkind, low, high, key);
    const link = this.link;
    let b = sharedBlock();
    const t = this.address;
    let bytes = header64(b.u32, t + H_BYTES);
    if (slot >= 0) {
      bytes -= b.u32[(this.slotAddress(slot) + S_SIZE) >> 2]!;
      setHeader64(b.u32, t + H_BYTES, bytes);
      if (v === undefined) {
        this.release(slot, link);
        return;
      }
    } else if (v === undefined) return;
    const size = (typeof v === 'bigint' ? 8 : v.length) + keyLength + 16;
    const found = slot >= 0 ? 1 : 0;
    if (bytes + size > header64(b.u32, t + H_LIMIT) && b.u32[(t + H_COUNT) >> 2]! > found) {
      if (slot >= 0) this.release(slot, link);
      this.drop();
      return;
    }
    // The bytes the variable keeps in the heap: its key's (in the key scratch), then its value's.
    const keySize = key < 0 ? 0 : key;
    const valueBytes = typeof v === 'bigint' ? 0 : v.length;
    let s = slot;
    let blob = 0;
    if (s >= 0) {
      const old = this.blobOf(s);
      if (keySize + valueBytes === 0) {
        if (old !== 0) this.freeBlob(old);
      } else if (old !== 0 && sharedBlock().u32[(old + B_SIZE) >> 2]! === blobSize(keySize + valueBytes)) {
        // The same size (a by-reference value's is its type's): in place. A
        // blob is never kept larger than its variable needs, so the heap's
        // live bytes stay below the accounting's.
        blob = old;
      } else {
        // A larger blob (the key is written again from the key string); the
        // old one, which the new one's compaction may move, is freed after.
        blob = this.allocateBlob(keySize + valueBytes, s);
        if (blob === 0) {
          this.release(s, link);
          this.drop();
          return;
        }
        if (old !== 0) this.freeBlob(this.blobOf(s));
      }
    } else {
      const free = b.u32[(t + H_FREE) >> 2]!;
      if (free !== 0) s = free - 1;
      else if (b.u32[(t + H_TOP) >> 2]! < b.u32[(t + H_NSLOTS) >> 2]!) s = b.u32[(t + H_TOP) >> 2]!;
      else {
        this.drop();
        return;
      }
      if (keySize + valueBytes !== 0) {
        blob = this.allocateBlob(keySize + valueBytes, s);
        if (blob === 0) {
          this.drop();
          return;
        }
      }
      b = sharedBlock();
      if (free !== 0) b.u32[(t + H_FREE) >> 2] = b.u32[(this.slotAddress(s) + S_NEXT) >> 2]!;
      else b.u32[(t + H_TOP) >> 2]!++;
      const a = this.slotAddress(s);
      b.u32[(a + S_NEXT) >> 2] = b.u32[link >> 2]!;
      b.u32[(a + S_HASH) >> 2] = hash;
      b.u32[(a + S_IDKIND) >> 2] = idkind;
      b.u32[(a + S_KEY) >> 2] = low;
      b.u32[((a + S_KEY) >> 2) + 1] = high;
      b.u32[link >> 2] = s + 1;
      b.u32[(t + H_COUNT) >> 2]!++;
    }
    b = sharedBlock();
    const a = this.slotAddress(s);
    b.u32[(a + S_SIZE) >> 2] = size;
    if (key >= 0) {
      const at = blob + BLOB_HEADER;
      b.u8.set(keyBytes.subarray(0, keySize), at);
      b.u32[(a + S_KEY) >> 2] = at;
      b.u32[((a + S_KEY) >> 2) + 1] = keySize;
    }
    if (typeof v === 'bigint') {
      b.u32[(a + S_IDKIND) >> 2] = idkind;
      b.u64[(a + S_VALUE) >> 3] = BigInt.asUintN(64, v);
    } else {
      const at = blob + BLOB_HEADER + keySize;
      b.u8.set(v, at);
      b.u32[(a + S_IDKIND) >> 2] = idkind | BYREF;
      b.u32[(a + S_VALUE) >> 2] = at;
      b.u32[((a + S_VALUE) >> 2) + 1] = valueBytes;
    }
    setHeader64(b.u32, t + H_BYTES, bytes + size);
  }

  private drop(): void {
    const b = sharedBlock();
    setHeader64(b.u32, this.address + H_DROPS, header64(b.u32, this.address + H_DROPS) + 1);
  }

  /*
   * The heap. Blobs are laid end to end from the heap's start; a freed one
   * is marked dead (owner 0) and its bytes are taken back when the heap is
   * compacted: a new blob goes at the top, or, when it does not fit there
   * but the live blobs and it fit the heap, after the live blobs slid down
   * over the dead ones; otherwise the heap moves to a region twice as large
   * (or as large as needed). A variable's blob is never larger than its
   * accounted size (its header and padding, at most 15 bytes, are less than
   * the 16 plus the name the accounting adds), so the heap only grows past
   * dynvarsize for the one variable the accounting lets exceed it.
   */

  /** A blob of `n` bytes owned by slot `s` (its address), or 0 when the memory cannot hold it. */
  private allocateBlob(n: number, s: number): number {
    const t = this.address;
    const size = blobSize(n);
    let u32 = sharedBlock().u32;
    let heap = u32[(t + H_HEAP) >> 2]!;
    let heapSize = u32[(t + H_HEAPSIZE) >> 2]!;
    let top = u32[(t + H_HEAPTOP) >> 2]!;
    const live = top - u32[(t + H_HEAPDEAD) >> 2]!;
    if (top + size > heapSize) {
      if (live + size <= heapSize) {
        top = this.compact(heap, top, heap);
      } else {
        const grown = Math.max(live + size, heapSize * 2, INITIAL_HEAP);
        const to = allocateRegion(grown);
        if (to === undefined) return 0;
        top = heap === 0 ? 0 : this.compact(heap, top, to);
        if (heap !== 0) freeRegion(heap);
        heap = to;
        heapSize = grown;
      }
      u32 = sharedBlock().u32;
      u32[(t + H_HEAP) >> 2] = heap;
      u32[(t + H_HEAPSIZE) >> 2] = heapSize;
      u32[(t + H_HEAPDEAD) >> 2] = 0;
    }
    const blob = heap + top;
    u32[(blob + B_OWNER) >> 2] = s + 1;
    u32[(blob + B_SIZE) >> 2] = size;
    u32[(t + H_HEAPTOP) >> 2] = top + size;
    return blob;
  }

  /** Marks a blob dead; one at the heap's top gives its bytes back at once. */
  private freeBlob(blob: number): void {
    const u32 = sharedBlock().u32;
    const t = this.address;
    const size = u32[(blob + B_SIZE) >> 2]!;
    u32[(blob + B_OWNER) >> 2] = 0;
    const top = u32[(t + H_HEAPTOP) >> 2]!;
    if (blob + size === u32[(t + H_HEAP) >> 2]! + top) u32[(t + H_HEAPTOP) >> 2] = top - size;
    else u32[(t + H_HEAPDEAD) >> 2]! += size;
  }

  /** Copies the live blobs of the heap at `from` (`top` bytes used) end to end to `to` (which may be `from`), telling their slots; returns the bytes copied. */
  private compact(from: number, top: number, to: number): number {
    const b = sharedBlock();
    let out = 0;
    for (let at = 0; at < top; ) {
      const blob = from + at;
      const owner = b.u32[(blob + B_OWNER) >> 2]!;
      const size = b.u32[(blob + B_SIZE) >> 2]!;
      if (owner !== 0) {
        const moved = to + out;
        if (moved !== blob) b.u8.copyWithin(moved, blob, blob + size);
        const a = this.slotAddress(owner - 1);
        const idkind = b.u32[(a + S_IDKIND) >> 2]!;
        let keySize = 0;
        if (((idkind >>> 16) & 0xff) === KIND_ASSOC) {
          b.u32[(a + S_KEY) >> 2] = moved + BLOB_HEADER;
          keySize = b.u32[((a + S_KEY) >> 2) + 1]!;
        }
        if ((idkind & BYREF) !== 0) b.u32[(a + S_VALUE) >> 2] = moved + BLOB_HEADER + keySize;
        out += size;
      }
      at += size;
    }
    return out;
  }
}

/** The size of a blob of `n` bytes, with its header. */
const blobSize = (n: number): number => BLOB_HEADER + ((n + 7) & ~7);

/** Whether the `length` key bytes at `at` are the first `n` of the key scratch. */
function sameKey(u8: Uint8Array, at: number, length: number, n: number): boolean {
  if (length !== n) return false;
  for (let i = 0; i < n; i++) if (u8[at + i] !== keyBytes[i]) return false;
  return true;
}

/* ---------------------------------------------------------------------- */
/* The WebAssembly side                                                   */
/* ---------------------------------------------------------------------- */

/**
 * `hash(idkind, tid)` into local `h`: threadHash's steps. Locals: IDKIND
 * (i32) and TID (i64) are parameters 1 and 2 of both functions.
 */
function emitHash(c: Code, h: number): void {
  c.get(1).i32(M3).u8(OP.i32_xor).i32(M1).u8(OP.i32_mul);
  c.get(2).u8(OP.i32_wrap_i64, OP.i32_xor).i32(M2).u8(OP.i32_mul);
  c.get(2).i64(32).u8(OP.i64_shr_u, OP.i32_wrap_i64, OP.i32_xor).i32(M1).u8(OP.i32_mul).set(h);
  c.get(h).get(h).i32(16).u8(OP.i32_shr_u, OP.i32_xor).set(h);
}

/**
 * The walk of `find`: from the bucket of `h`, `link` is the address of the
 * link to the slot at `a` with number `p` (slot + 1) that matches, or the
 * end's link with `p` 0. Parameters: 0 the table, 1 idkind, 2 tid.
 */
function emitFind(c: Code, h: number, link: number, p: number, a: number): void {
  c.get(0).get(h).get(0).mem(OP.i32_load, 2, H_MASK).u8(OP.i32_and).i32(2).u8(OP.i32_shl, OP.i32_add).i32(HEADER).u8(OP.i32_add).set(link);
  c.block('search').loop('walk');
  c.get(link).mem(OP.i32_load, 2, 0).u8(OP.local_tee).uleb(p).u8(OP.i32_eqz).brIf('search');
  c.get(0).mem(OP.i32_load, 2, H_SLOTS).get(p).i32(1).u8(OP.i32_sub).i32(5).u8(OP.i32_shl, OP.i32_add).set(a);
  c.get(a).mem(OP.i32_load, 2, S_HASH).get(h).u8(OP.i32_eq);
  c.get(a).mem(OP.i32_load, 2, S_IDKIND).get(1).u8(OP.i32_eq, OP.i32_and);
  c.get(a).mem(OP.i64_load, 3, S_KEY).get(2).u8(OP.i64_eq, OP.i32_and).brIf('search');
  c.get(a).i32(S_NEXT).u8(OP.i32_add).set(link).br('walk');
  c.end().end();
}

/** `tload(table, idkind, tid) -> value`: loadThread of an integer thread-local. */
function tloadBody(): Code {
  const H = 3, LINK = 4, P = 5, A = 6;
  const c = new Code();
  c.uleb(1).uleb(4).u8(I32);
  emitHash(c, H);
  emitFind(c, H, LINK, P, A);
  c.get(P).if_(I64).get(A).mem(OP.i64_load, 3, S_VALUE).else_().i64(0).end();
  c.u8(OP.end);
  return c;
}

/** `tstore(table, idkind, tid, value, base)`: storeThread of an integer thread-local, `base` its threadBase. */
function tstoreBody(): Code {
  const VALUE = 3, BASE = 4, H = 5, LINK = 6, P = 7, A = 8, FOUND = 9, SIZE = 10, T = 11;
  const c = new Code();
  c.uleb(2).uleb(6).u8(I32).uleb(1).u8(I64);
  const bytes = (): Code => c.get(0).mem(OP.i64_load, 3, H_BYTES);
  const setBytes = (delta: () => void): void => {
    c.get(0);
    bytes();
    delta();
    c.mem(OP.i64_store, 3, H_BYTES);
  };
  const release = (): void => {
    c.get(LINK).get(A).mem(OP.i32_load, 2, S_NEXT).mem(OP.i32_store, 2, 0);
    c.get(A).get(0).mem(OP.i32_load, 2, H_FREE).mem(OP.i32_store, 2, S_NEXT);
    c.get(0).get(P).mem(OP.i32_store, 2, H_FREE);
    c.get(0).get(0).mem(OP.i32_load, 2, H_COUNT).i32(1).u8(OP.i32_sub).mem(OP.i32_store, 2, H_COUNT);
  };
  const drop = (): void => {
    c.get(0).get(0).mem(OP.i64_load, 3, H_DROPS).i64(1).u8(OP.i64_add).mem(OP.i64_store, 3, H_DROPS);
  };
  emitHash(c, H);
  emitFind(c, H, LINK, P, A);
  c.get(P).i32(0).u8(OP.i32_ne).set(FOUND);
  c.get(FOUND).if_();
  setBytes(() => c.get(A).mem(OP.i32_load, 2, S_SIZE).u8(OP.i64_extend_i32_u, OP.i64_sub));
  c.get(VALUE).u8(OP.i64_eqz).if_();
  release();
  c.u8(OP.return).end();
  c.else_().get(VALUE).u8(OP.i64_eqz).if_().u8(OP.return).end().end();
  // size = base + the tid's decimal digits (and its sign).
  c.get(BASE).i32(1).u8(OP.i32_add).set(SIZE).get(2).set(T);
  c.get(2).i64(0).u8(OP.i64_lt_s).if_().get(SIZE).i32(1).u8(OP.i32_add).set(SIZE).i64(0).get(2).u8(OP.i64_sub).set(T).end();
  c.block('digits').loop('more');
  c.get(T).i64(10).u8(OP.i64_lt_u).brIf('digits');
  c.get(T).i64(10).u8(OP.i64_div_u).set(T).get(SIZE).i32(1).u8(OP.i32_add).set(SIZE).br('more');
  c.end().end();
  // Past dynvarsize, unless it is the only variable: a drop, which frees what it replaced.
  bytes().get(SIZE).u8(OP.i64_extend_i32_u, OP.i64_add).get(0).mem(OP.i64_load, 3, H_LIMIT).u8(OP.i64_gt_s);
  c.get(0).mem(OP.i32_load, 2, H_COUNT).get(FOUND).u8(OP.i32_gt_u, OP.i32_and).if_();
  c.get(FOUND).if_();
  release();
  c.end();
  drop();
  c.u8(OP.return).end();
  // A new variable: the free list's head, else the next slot never used, else a drop.
  c.get(FOUND).u8(OP.i32_eqz).if_();
  c.get(0).mem(OP.i32_load, 2, H_FREE).u8(OP.local_tee).uleb(P).if_();
  c.get(0).mem(OP.i32_load, 2, H_SLOTS).get(P).i32(1).u8(OP.i32_sub).i32(5).u8(OP.i32_shl, OP.i32_add).set(A);
  c.get(0).get(A).mem(OP.i32_load, 2, S_NEXT).mem(OP.i32_store, 2, H_FREE);
  c.else_();
  c.get(0).mem(OP.i32_load, 2, H_TOP).get(0).mem(OP.i32_load, 2, H_NSLOTS).u8(OP.i32_lt_u).if_();
  c.get(0).mem(OP.i32_load, 2, H_TOP).i32(1).u8(OP.i32_add).set(P);
  c.get(0).get(P).mem(OP.i32_store, 2, H_TOP);
  c.get(0).mem(OP.i32_load, 2, H_SLOTS).get(P).i32(1).u8(OP.i32_sub).i32(5).u8(OP.i32_shl, OP.i32_add).set(A);
  c.else_();
  drop();
  c.u8(OP.return).end();
  c.end();
  c.get(A).get(LINK).mem(OP.i32_load, 2, 0).mem(OP.i32_store, 2, S_NEXT);
  c.get(A).get(H).mem(OP.i32_store, 2, S_HASH);
  c.get(A).get(1).mem(OP.i32_store, 2, S_IDKIND);
  c.get(A).get(2).mem(OP.i64_store, 3, S_KEY);
  c.get(LINK).get(P).mem(OP.i32_store, 2, 0);
  c.get(0).get(0).mem(OP.i32_load, 2, H_COUNT).i32(1).u8(OP.i32_add).mem(OP.i32_store, 2, H_COUNT);
  c.end();
  c.get(A).get(SIZE).mem(OP.i32_store, 2, S_SIZE);
  c.get(A).get(VALUE).mem(OP.i64_store, 3, S_VALUE);
  setBytes(() => c.get(SIZE).u8(OP.i64_extend_i32_u, OP.i64_add));
  c.u8(OP.end);
  return c;
}

/** The module: imports d.m (the shared memory), exports tload and tstore. */
export function dynvarModuleBytes(): Uint8Array<ArrayBuffer> {
  const m = new Bytes().u8(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  const types = new Bytes().uleb(2);
  types.u8(0x60).uleb(3).u8(I32, I32, I64).uleb(1).u8(I64);
  types.u8(0x60).uleb(5).u8(I32, I32, I64, I64, I32).uleb(0);
  m.section(1, types);
  m.section(2, new Bytes().uleb(1).name('d').name('m').u8(0x02, 0x00).uleb(1));
  m.section(3, new Bytes().uleb(2).uleb(0).uleb(1));
  m.section(7, new Bytes().uleb(2).name('tload').u8(0x00).uleb(0).name('tstore').u8(0x00).uleb(1));
  m.section(10, new Bytes().uleb(2).bytes(tloadBody()).bytes(tstoreBody()));
  return Uint8Array.from(m.b);
}

export interface DynvarFunctions {
  readonly tload: (table: number, idkind: number, tid: bigint) => bigint;
  readonly tstore: (table: number, idkind: number, tid: bigint, value: bigint, base: number) => void;
}

let runtime: DynvarFunctions | undefined;
/** The instance over the shared memory (one per process, as the memory): what translated DIFOs import. */
export function dynvarFunctions(): DynvarFunctions {
  if (runtime === undefined) {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(dynvarModuleBytes()), { d: { m: sharedBlock().memory } });
    runtime = instance.exports as unknown as DynvarFunctions;
  }
  return runtime;
}
