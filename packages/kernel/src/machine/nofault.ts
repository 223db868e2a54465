// NOFAULT access to guest virtual memory: the one path every host-side read
// of guest memory (DTrace's loads, stack walks, strings) and every copyout
// takes, after the illumos dtrace_load*/dtrace_copyout rules. A CPU port
// supplies its ISA's page-table walk; the page-by-page copy, the device
// window test and the fault address live here, once.
//
// Invariants:
// - Nothing here changes guest state but the bytes a copyout writes: no
//   accessed/dirty bits, no TLB fills, no guest-visible fault.
// - The device window is toxic (the board's own test, `isDeviceAddress`):
//   an access that reaches it faults at its first address there, as one
//   that reaches an unmapped page or the end of RAM does.
import { isDeviceAddress } from '../board/devices.js';
import type { SafeRead } from './types.js';

const PAGE = 4096;

/** A port's translation of one virtual address to physical, undefined when not mapped (or not allowed). */
export type PageTranslation = (va: bigint) => number | undefined;

/** Where a NOFAULT access works: guest RAM, its size, and the ISA's address arithmetic. */
export interface NofaultSpace {
  /** Guest RAM from physical 0 (a live view). */
  ram(): Uint8Array;
  readonly ramBytes: number;
  /** The address `va + offset` as the ISA forms it (x86-64 wraps at 2^64; ARM leaves it past 2^32, where nothing translates). */
  address(va: bigint, offset: number): bigint;
}

/** The first address of `[at, at + n)` (physical `pa`) that is not RAM outside the device window, or undefined when all is. */
function firstBad(space: NofaultSpace, at: bigint, pa: number, n: number): bigint | undefined {
  if (isDeviceAddress(pa)) return at;
  if (pa + n > space.ramBytes) return pa < space.ramBytes ? at + BigInt(space.ramBytes - pa) : at;
  return undefined;
}

/**
 * Reads `length` bytes at `va`: the bytes, or the first address that
 * faulted. With `into` (at least `length` bytes), they are read into it and
 * the bytes returned are its first `length`: a caller that reads often
 * keeps one (a typed array of more than 64 bytes costs V8 an allocation
 * outside its heap, several times the read itself).
 */
export function nofaultRead(space: NofaultSpace, va: bigint, length: number, translate: PageTranslation, into?: Uint8Array): SafeRead {
  const out = into === undefined ? new Uint8Array(length) : into.length === length ? into : into.subarray(0, length);
  const ram = space.ram();
  let done = 0;
  while (done < length) {
    const at = space.address(va, done);
    const pa = translate(at);
    if (pa === undefined) return { fault: at };
    // A page's offset is the same in both address spaces.
    const n = Math.min(length - done, PAGE - (pa % PAGE));
    const bad = firstBad(space, at, pa, n);
    if (bad !== undefined) return { fault: bad };
    if (n <= 16) {
      // a word or so: a byte loop costs less than a subarray view
      for (let i = 0; i < n; i++) out[done + i] = ram[pa + i]!;
    } else {
      out.set(ram.subarray(pa, pa + n), done);
    }
    done += n;
  }
  return { bytes: out };
}

/** Where `nofaultReadWord` leaves the first address that faulted. */
export interface WordFault {
  fault: bigint;
}

/**
 * Reads the little-endian word of `size` bytes (1 to 8) at `va` as
 * `nofaultRead` reads its bytes, without allocating a byte array or a result:
 * the value, or undefined with the first address that faulted in `fault`.
 */
export function nofaultReadWord(space: NofaultSpace, va: bigint, size: number, translate: PageTranslation, fault: WordFault): bigint | undefined {
  const at = space.address(va, 0);
  const pa = translate(at);
  if (pa === undefined) {
    fault.fault = at;
    return undefined;
  }
  if (size > PAGE - (pa % PAGE)) {
    // The word crosses into the next page: the general path translates that one too.
    const r = nofaultRead(space, va, size, translate);
    if ('fault' in r) {
      fault.fault = r.fault;
      return undefined;
    }
    return wordOf(r.bytes, 0, size);
  }
  const bad = firstBad(space, at, pa, size);
  if (bad !== undefined) {
    fault.fault = bad;
    return undefined;
  }
  return wordOf(space.ram(), pa, size);
}

/** The little-endian value of `bytes[at, at + size)`, 1 to 8 bytes, made as one bigint. */
function wordOf(bytes: Uint8Array, at: number, size: number): bigint {
  let low = 0;
  let high = 0;
  for (let i = Math.min(size, 4) - 1; i >= 0; i--) low = low * 256 + bytes[at + i]!;
  for (let i = size - 1; i >= 4; i--) high = high * 256 + bytes[at + i]!;
  WORD_SCRATCH.setUint32(0, low, true);
  WORD_SCRATCH.setUint32(4, high, true);
  return WORD_SCRATCH.getBigUint64(0, true);
}
const WORD_SCRATCH = new DataView(new ArrayBuffer(8));

/**
 * Writes `bytes` at `va` through `translate` (which allows only what the
 * write may touch), in order: at the first address it may not write it stops
 * — what came before stays written — and returns that address; undefined
 * when all was written. `written` hears of each physical range written.
 */
export function nofaultWrite(space: NofaultSpace, va: bigint, bytes: Uint8Array, translate: PageTranslation, written: (pa: number, n: number) => void): bigint | undefined {
  const ram = space.ram();
  let done = 0;
  while (done < bytes.length) {
    const at = space.address(va, done);
    const pa = translate(at);
    if (pa === undefined) return at;
    const n = Math.min(bytes.length - done, PAGE - (pa % PAGE));
    const bad = firstBad(space, at, pa, n);
    if (bad !== undefined) return bad;
    ram.set(bytes.subarray(done, done + n), pa);
    written(pa, n);
    done += n;
  }
  return undefined;
}
