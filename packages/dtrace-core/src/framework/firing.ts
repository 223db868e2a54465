// What one DIFO execution sees of its firing (illumos's dtrace_mstate_t) and
// the probe-context memory access every part of the VM shares.
//
// DTrace Probe Context Functions: guest memory is read only through
// MachineInterface.load (NOFAULT: a bad address becomes DTRACEFLT_BADADDR,
// never a guest fault); framework memory is the arena (arena.ts). The VM loop
// (vm.ts) and the subroutines (subr.ts) both go through these functions.

import { bytesString, stringBytes } from '../dif/difo.js';
import { ARENA_BASE, type Arena } from './arena.js';
import { DTRACEFLT, DifFault } from './faults.js';
import type { MachineInterface } from './machine.js';

const U64 = (v: bigint): bigint => BigInt.asUintN(64, v);

/** One entry of the tuple stack (pushtr/pushtv): a value, or bytes for by-reference keys. */
export interface TupleEntry {
  readonly value: bigint;
  /** A by-reference entry's bytes (a string's up to strsize and its NUL) ... */
  readonly bytes?: Uint8Array;
  /** ... and whether it is a string, which keys by its bytes up to the NUL. */
  readonly string?: boolean;
}

/**
 * Variable storage the VM reads and writes; the framework implements it with
 * dynvarsize accounting. A by-reference value a load returns may be a view
 * of the storage, which the VM copies out at once; one a store is given is
 * copied in, and may be reused by the caller after.
 */
export interface VmVariables {
  loadGlobal(id: number): bigint | Uint8Array;
  storeGlobal(id: number, v: bigint | Uint8Array): void;
  /** A thread-local of the thread whose tid is `thread`. */
  loadThread(id: number, thread: number): bigint | Uint8Array;
  storeThread(id: number, thread: number, v: bigint | Uint8Array | undefined): void;
  /** An associative array's variable, keyed by `tuple` and, for self->x[...], the thread's tid. */
  loadAssoc(id: number, tuple: readonly TupleEntry[], thread: number | undefined): bigint | Uint8Array;
  storeAssoc(id: number, tuple: readonly TupleEntry[], thread: number | undefined, v: bigint | Uint8Array | undefined): void;
}

/**
 * The arguments of a firing that the provider did not put in its array,
 * fetched only when a clause reads one, as illumos's dtrace_getarg() reads
 * stack arguments on demand: one object per provider and CPU, reused by every
 * firing and valid only while that firing lasts.
 */
export interface ProbeArgumentSource {
  /** args[index] for an index at or past the array's length; 0 for an argument the probe does not have. */
  arg(index: number): bigint;
}

/** Everything one DIFO execution can see of the firing (dtrace_mstate_t). */
export interface VmFiring {
  readonly machine: MachineInterface;
  readonly arena: Arena;
  readonly variables: VmVariables;
  /** Clause-local variables, reset for each clause. */
  readonly locals: Map<number, bigint | Uint8Array>;
  readonly cpu: number;
  readonly probeId: number;
  readonly epid: number;
  /** The arguments the provider passed in an array (possibly none) ... */
  readonly args: readonly bigint[];
  /** ... and where the others come from, when it has more (read through firingArg). */
  readonly restArgs?: ProbeArgumentSource | undefined;
  readonly probe: { readonly provider: string; readonly module: string; readonly function: string; readonly name: string };
  /** The firing's timestamp; chill() moves it on (illumos re-reads the clock after a chill). */
  timestamp: bigint;
  readonly strsize: number;
  /** Allocates a speculation buffer id (0 when none is free). */
  speculation(): number;
  /** errno of the current thread (syscall provider), 0 here. */
  readonly errno?: number;
  /** Counts executed instructions (for the bench). */
  instructions: number;
  /** Data model of the program (layout of curpsinfo & co); LP64 when absent. */
  readonly dataModel?: 'ILP32' | 'LP64';
  /** Where strtok(NULL, ...) continues (per firing, as dtms_strtok). */
  strtokRest?: string | undefined;
}

/** args[index] of a firing: from the provider's array, else from its source of the rest, else 0. */
export function probeArgument(args: readonly bigint[], rest: ProbeArgumentSource | undefined, index: number): bigint {
  if (index < args.length) return args[index]!;
  return rest === undefined ? 0n : rest.arg(index);
}

/** args[index] of the firing `f` (probeArgument). */
export function firingArg(f: VmFiring, index: number): bigint {
  return probeArgument(f.args, f.restArgs, index);
}

const encoder = new TextEncoder();

/** Reads bytes of D-visible memory: arena or guest (NOFAULT). */
export function readBytes(f: VmFiring, addr: bigint, size: number): Uint8Array {
  const off = f.arena.offsetOf(addr, size);
  if (off >= 0) return f.arena.bytes.slice(off, off + size);
  // Guest memory, byte by byte. A size beyond what a scratch copy could hold
  // is read before its buffer is made: it faults at the first unreadable byte
  // instead of asking for a buffer of any size.
  if (size <= f.arena.scratchSize) {
    const out = new Uint8Array(size);
    for (let i = 0; i < size; i++) out[i] = guestByte(f, addr + BigInt(i));
    return out;
  }
  const bytes: number[] = [];
  for (let i = 0; i < size; i++) bytes.push(guestByte(f, addr + BigInt(i)));
  return Uint8Array.from(bytes);
}

function guestByte(f: VmFiring, addr: bigint): number {
  const b = f.machine.load(addr, 1, false);
  if (b === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr);
  return Number(b);
}

/** The bytes of a NUL-terminated string (without the NUL), reading at most `max` bytes. */
export function readStringBytes(f: VmFiring, addr: bigint, max: number): Uint8Array {
  const off = f.arena.offsetOf(addr, 1);
  if (off >= 0) {
    const arena = f.arena.bytes;
    const limit = Math.min(arena.length, off + max);
    let end = off;
    while (end < limit && arena[end] !== 0) end++;
    return arena.slice(off, end);
  }
  const bytes: number[] = [];
  for (let i = 0; i < max; i++) {
    const v = f.machine.load(addr + BigInt(i), 1, false);
    if (v === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
    if (v === 0n) break;
    bytes.push(Number(v));
  }
  return Uint8Array.from(bytes);
}

/**
 * Reads a NUL-terminated string of at most `max` bytes, as a byte string
 * (one code unit per byte: D strings are bytes, see stringBytes).
 */
export function readString(f: VmFiring, addr: bigint, max: number): string {
  if (addr === 0n) throw new DifFault(DTRACEFLT.BADADDR, 0n);
  const off = f.arena.offsetOf(addr, 1);
  if (off >= 0) {
    // Arena strings: one scan for the NUL, one conversion.
    const arena = f.arena.bytes;
    const limit = Math.min(arena.length, off + max);
    let end = off;
    while (end < limit && arena[end] !== 0) end++;
    return bytesString(arena.subarray(off, end));
  }
  const bytes: number[] = [];
  for (let i = 0; i < max; i++) {
    let b: number;
    if (off >= 0) {
      if (off + i >= f.arena.bytes.length) break;
      b = f.arena.bytes[off + i]!;
    } else {
      const v = f.machine.load(addr + BigInt(i), 1, false);
      if (v === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
      b = Number(v);
    }
    if (b === 0) break;
    bytes.push(b);
  }
  return bytesString(Uint8Array.from(bytes));
}

/** Copies bytes (a struct the framework builds, a copy of a stored value) into scratch. */
export function scratchBytes(f: VmFiring, b: Uint8Array): bigint {
  const off = f.arena.allocOffset(b.length);
  f.arena.bytes.set(b, off);
  return ARENA_BASE + BigInt(off);
}

/** Encoded names (probefunc, execname ...): the same few strings come back at every firing. */
const encodedNames = new Map<string, Uint8Array>();

/** Copies a byte string (a D string's bytes, one code unit each) into scratch, NUL-terminated and strsize-bounded. */
export function scratchString(f: VmFiring, s: string): bigint {
  let b = stringBytes(s);
  if (b.length > f.strsize - 1) b = b.subarray(0, f.strsize - 1);
  const off = f.arena.allocOffset(b.length + 1);
  f.arena.bytes.set(b, off);
  return ARENA_BASE + BigInt(off);
}

/** Copies a name the machine or a provider gives as text (probefunc, execname ...) into scratch as its UTF-8 bytes. */
export function scratchName(f: VmFiring, s: string): bigint {
  let b = encodedNames.get(s);
  if (b === undefined) {
    b = encoder.encode(s);
    if (encodedNames.size >= 4096) encodedNames.clear();
    encodedNames.set(s, b);
  }
  if (b.length > f.strsize - 1) b = b.subarray(0, f.strsize - 1);
  const off = f.arena.allocOffset(b.length + 1);
  f.arena.bytes.set(b, off);
  return ARENA_BASE + BigInt(off);
}

/**
 * dtrace_load8/16/32/64: a `size`-byte load of kernel (arena or guest) or
 * user memory, sign-extended to 64 bits when `signed`. Kernel loads must be
 * aligned (DTRACEFLT_BADALIGN); unmapped memory is DTRACEFLT_BADADDR.
 */
export function loadValue(f: VmFiring, addr: bigint, size: number, signed: boolean, user: boolean): bigint {
  if (!user && (addr & BigInt(size - 1)) !== 0n) throw new DifFault(DTRACEFLT.BADALIGN, addr);
  let v: bigint | undefined;
  const off = user ? -1 : f.arena.offsetOf(addr, size);
  if (off >= 0) v = f.arena.read(off, size);
  else v = f.machine.load(addr, size, user);
  if (v === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr);
  return signed ? U64(BigInt.asIntN(size * 8, v)) : v;
}
