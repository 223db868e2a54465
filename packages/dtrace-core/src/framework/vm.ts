// The DIF virtual machine, after illumos dtrace_dif_emulate(). It runs a DIFO
// that the verifier (verify.ts) has accepted, so the loop does not re-check
// register numbers, branch targets or table indexes.
//
// DTrace Probe Context Functions: everything here runs as if in probe
// context. Guest memory is read only through MachineInterface.load (NOFAULT:
// a bad address becomes DTRACEFLT_BADADDR, never a guest fault); D-visible
// memory that the framework owns (string tables, scratch) lives in one
// internal arena addressed from ARENA_BASE:
//
//   ARENA_BASE
//   +-----------------------------+------------------------------------+
//   | static: DIFO string tables  | scratch: per-firing bump allocator |
//   +-----------------------------+------------------------------------+
//
// By-reference values (strings, structs) are addresses in that arena or in
// the guest; variables keep copies of their bytes (see VmVariables).

import { DIF_OP } from '../dif/opcodes.js';
import { DIF_SUBR, DIF_VAR, DIF_TF_BYREF, DIF_TF_BYUREF, DIFV_SCOPE_GLOBAL, DIFV_SCOPE_LOCAL, DIFV_SCOPE_THREAD, DIF_VAR_OTHER_UBASE } from '../dif/constants.js';
import { type Difo, type DifVariable, bytesString, stringBytes } from '../dif/difo.js';
import { DTRACEFLT, DifFault } from './faults.js';
import type { MachineInterface } from './machine.js';
import { cpuinfoBytes, lwpsinfoBytes, psinfoBytes } from './procinfo.js';

/** Base of the framework arena in the D address space (non-canonical on x86-64, beyond 32 bits on ARM). */
export const ARENA_BASE = 0x7ffe_0000_0000_0000n;

const U64 = (v: bigint): bigint => BigInt.asUintN(64, v);
const S64 = (v: bigint): bigint => BigInt.asIntN(64, v);

/** The arena: static string tables, then scratch reset at every firing. */
export class Arena {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private staticTop = 0;
  private scratchTop: number;

  constructor(staticSize: number, readonly scratchSize: number) {
    this.bytes = new Uint8Array(staticSize + scratchSize);
    this.view = new DataView(this.bytes.buffer);
    this.scratchTop = staticSize;
    this.scratchBase = staticSize;
  }
  private readonly scratchBase: number;

  /** Copies `data` into the static area (string tables at load, global storage) and returns its address. */
  addStatic(data: Uint8Array): bigint {
    this.staticTop = (this.staticTop + 7) & ~7;
    if (this.staticTop + data.length > this.scratchBase) throw new RangeError('arena static area exhausted');
    this.bytes.set(data, this.staticTop);
    const addr = ARENA_BASE + BigInt(this.staticTop);
    this.staticTop += data.length;
    return addr;
  }
  resetScratch(): void {
    this.scratchTop = this.scratchBase;
  }
  /** Allocates zeroed scratch, 8-byte aligned; faults NOSCRATCH when exhausted. */
  alloc(size: number): bigint {
    const start = (this.scratchTop + 7) & ~7;
    if (size < 0 || start + size > this.bytes.length) throw new DifFault(DTRACEFLT.NOSCRATCH, 0n);
    this.bytes.fill(0, start, start + size);
    this.scratchTop = start + size;
    return ARENA_BASE + BigInt(start);
  }
  /** Offset of [addr, addr+size) in the arena, or -1. */
  offsetOf(addr: bigint, size: number): number {
    const off = addr - ARENA_BASE;
    if (off < 0n || off + BigInt(size) > BigInt(this.bytes.length)) return -1;
    return Number(off);
  }
  private readonly variableRegions: [number, number][] = [];
  private readonly globalAddresses = new Map<number, bigint>();

  /**
   * Static storage of a by-reference global (string, array, struct): D
   * programs may take its address and store through it, as into
   * dts_globals in illumos. Allocated once per variable id, zero-filled.
   */
  globalStorage(id: number, size: number): bigint {
    let addr = this.globalAddresses.get(id);
    if (addr === undefined) {
      addr = this.addStatic(new Uint8Array(Math.max(size, 1)));
      const off = Number(addr - ARENA_BASE);
      this.variableRegions.push([off, off + Math.max(size, 1)]);
      this.globalAddresses.set(id, addr);
    }
    return addr;
  }
  globalAddress(id: number): bigint | undefined {
    return this.globalAddresses.get(id);
  }
  /** Scratch or by-reference global storage: where DIF may store. */
  isWritable(addr: bigint, size: number): boolean {
    const off = this.offsetOf(addr, size);
    if (off < 0) return false;
    if (off >= this.scratchBase) return true;
    return this.variableRegions.some(([a, b]) => off >= a && off + size <= b);
  }
  isScratch(addr: bigint, size: number): boolean {
    const off = this.offsetOf(addr, size);
    return off >= this.scratchBase;
  }
  read(off: number, size: number): bigint {
    switch (size) {
      case 1: return BigInt(this.view.getUint8(off));
      case 2: return BigInt(this.view.getUint16(off, true));
      case 4: return BigInt(this.view.getUint32(off, true));
      default: return this.view.getBigUint64(off, true);
    }
  }
  write(off: number, size: number, v: bigint): void {
    switch (size) {
      case 1: this.view.setUint8(off, Number(v & 0xffn)); break;
      case 2: this.view.setUint16(off, Number(v & 0xffffn), true); break;
      case 4: this.view.setUint32(off, Number(v & 0xffffffffn), true); break;
      default: this.view.setBigUint64(off, U64(v), true);
    }
  }
}

/** One entry of the tuple stack (pushtr/pushtv): a value, or bytes for by-reference keys. */
export interface TupleEntry {
  readonly value: bigint;
  readonly bytes?: Uint8Array;
}

/** Variable storage the VM reads and writes; the framework implements it with dynvarsize accounting. */
export interface VmVariables {
  loadGlobal(id: number): bigint | Uint8Array;
  storeGlobal(id: number, v: bigint | Uint8Array): void;
  loadThread(id: number, key: string): bigint | Uint8Array;
  storeThread(id: number, key: string, v: bigint | Uint8Array | undefined): void;
  loadAssoc(id: number, tuple: string): bigint | Uint8Array;
  storeAssoc(id: number, tuple: string, v: bigint | Uint8Array | undefined): void;
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
  readonly args: readonly bigint[];
  readonly probe: { readonly provider: string; readonly module: string; readonly function: string; readonly name: string };
  readonly timestamp: bigint;
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

/** The per-DIFO data the VM needs besides the instructions: its string table in the arena. */
export interface LoadedDifo {
  readonly difo: Difo;
  readonly strtabAddress: bigint;
  /** Variables by id, for by-reference sizes. */
  readonly variableTypes: ReadonlyMap<string, DifVariable>;
}

function varKey(scope: number, id: number): string {
  return `${scope}:${id}`;
}

export function loadDifo(difo: Difo, arena: Arena): LoadedDifo {
  const strtabAddress = arena.addStatic(difo.strtab.length > 0 ? difo.strtab : new Uint8Array(1));
  for (const v of difo.vartab) {
    if (v.scope === DIFV_SCOPE_GLOBAL && v.kind === 1 && v.id >= DIF_VAR_OTHER_UBASE && isByRef(v)) arena.globalStorage(v.id, v.type.size);
  }
  const variableTypes = new Map<string, DifVariable>();
  for (const v of difo.vartab) variableTypes.set(varKey(v.scope, v.id), v);
  return { difo, strtabAddress, variableTypes };
}

const encoder = new TextEncoder();

/** Reads bytes of D-visible memory: arena or guest (NOFAULT). */
export function readBytes(f: VmFiring, addr: bigint, size: number): Uint8Array {
  const off = f.arena.offsetOf(addr, size);
  if (off >= 0) return f.arena.bytes.slice(off, off + size);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const b = f.machine.load(addr + BigInt(i), 1, false);
    if (b === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
    out[i] = Number(b);
  }
  return out;
}

/** The bytes of a NUL-terminated string (without the NUL), reading at most `max` bytes. */
export function readStringBytes(f: VmFiring, addr: bigint, max: number): Uint8Array {
  const off = f.arena.offsetOf(addr, 1);
  if (off >= 0) {
    const limit = Math.min(f.arena.bytes.length, off + max);
    let end = off;
    while (end < limit && f.arena.bytes[end] !== 0) end++;
    return f.arena.bytes.slice(off, end);
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
    const limit = Math.min(f.arena.bytes.length, off + max);
    let end = off;
    while (end < limit && f.arena.bytes[end] !== 0) end++;
    return bytesString(f.arena.bytes.subarray(off, end));
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

function scratchBytes(f: VmFiring, b: Uint8Array): bigint {
  const addr = f.arena.alloc(b.length);
  f.arena.bytes.set(b, f.arena.offsetOf(addr, b.length));
  return addr;
}

/** Copies a JS string into scratch as a strsize-bounded NUL-terminated string. */
/**
 * DIF_SUBR_INET_NTOP's IPv6 text: 16-bit groups in lower-case hexadecimal,
 * the first longest run of two or more zero groups as "::", and an IPv4
 * mapped (::ffff:a.b.c.d) or compatible (::a.b.c.d, not :: or ::1) address
 * with its last four bytes dotted — alone for inet_ntoa6().
 */
export function inet6String(a: Uint8Array, v4Only: boolean): string {
  let firstzero = -1;
  let tryzero = -1;
  let numzero = 1;
  for (let i = 0; i < 16; i++) {
    if (a[i] === 0 && tryzero === -1 && i % 2 === 0) {
      tryzero = i;
      continue;
    }
    if (tryzero !== -1 && (a[i] !== 0 || i === 15)) {
      if (i - tryzero <= numzero) {
        tryzero = -1;
        continue;
      }
      firstzero = tryzero;
      numzero = i - (i % 2) - tryzero;
      tryzero = -1;
      if (a[i] === 0 && i === 15) numzero += 2;
    }
  }
  const zero12 = a.subarray(0, 10).every((b) => b === 0);
  const mapped = zero12 && a[10] === 0xff && a[11] === 0xff;
  const last = ((a[12]! << 24) | (a[13]! << 16) | (a[14]! << 8) | a[15]!) >>> 0;
  const compat = zero12 && a[10] === 0 && a[11] === 0 && last !== 0 && last !== 1;
  let out = '';
  let v6end = 14;
  if (mapped || compat) {
    out = `${a[12]}.${a[13]}.${a[14]}.${a[15]}`;
    if (v4Only) return out;
    v6end = 10;
  }
  // Built backwards from the last group, as the kernel does.
  for (let i = v6end; i >= 0; i -= 2) {
    if (i === firstzero + numzero - 2) {
      out = '::' + out;
      i -= numzero - 2;
      continue;
    }
    if (i < 14 && i !== firstzero - 2) out = ':' + out;
    out = ((a[i]! << 8) + a[i + 1]!).toString(16) + out;
  }
  return out;
}

/** Encoded names (probefunc, execname ...): the same few strings come back at every firing. */
const encodedNames = new Map<string, Uint8Array>();

/** Copies a byte string (a D string's bytes, one code unit each) into scratch, NUL-terminated and strsize-bounded. */
export function scratchString(f: VmFiring, s: string): bigint {
  let b = stringBytes(s);
  if (b.length > f.strsize - 1) b = b.subarray(0, f.strsize - 1);
  const addr = f.arena.alloc(b.length + 1);
  f.arena.bytes.set(b, f.arena.offsetOf(addr, b.length + 1));
  return addr;
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
  const addr = f.arena.alloc(b.length + 1);
  f.arena.bytes.set(b, f.arena.offsetOf(addr, b.length + 1));
  return addr;
}

function load(f: VmFiring, addr: bigint, size: number, signed: boolean, user: boolean): bigint {
  if (!user && (addr & BigInt(size - 1)) !== 0n) throw new DifFault(DTRACEFLT.BADALIGN, addr);
  let v: bigint | undefined;
  const off = user ? -1 : f.arena.offsetOf(addr, size);
  if (off >= 0) v = f.arena.read(off, size);
  else v = f.machine.load(addr, size, user);
  if (v === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr);
  return signed ? U64(BigInt.asIntN(size * 8, v)) : v;
}

function isByRef(v: DifVariable | undefined): boolean {
  return v !== undefined && (v.type.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) !== 0;
}

/** Bytes of a by-reference value at `addr`: strings up to their NUL (padded to size), objects whole. */
function byRefBytes(f: VmFiring, addr: bigint, v: DifVariable): Uint8Array {
  const size = v.type.size;
  if (v.type.kind === 1 /* DIF_TYPE_STRING */) {
    const s = readStringBytes(f, addr, Math.min(size, f.strsize));
    const out = new Uint8Array(size);
    out.set(s.subarray(0, size - 1));
    return out;
  }
  return readBytes(f, addr, size);
}

function fromStored(f: VmFiring, stored: bigint | Uint8Array): bigint {
  if (typeof stored === 'bigint') return stored;
  const addr = f.arena.alloc(stored.length);
  f.arena.bytes.set(stored, f.arena.offsetOf(addr, stored.length));
  return addr;
}

function isZero(v: bigint | Uint8Array): boolean {
  if (typeof v === 'bigint') return v === 0n;
  return v.every((b) => b === 0);
}

function tupleKey(tuple: readonly TupleEntry[]): string {
  return tuple.map((t) => (t.bytes ? 's' + bytesString(t.bytes.subarray(0, (t.bytes.indexOf(0) + 1 || t.bytes.length + 1) - 1)) : 'i' + t.value.toString(16))).join('\u0000');
}

function builtin(f: VmFiring, id: number, index?: bigint): bigint {
  const th = () => f.machine.thread(f.cpu);
  switch (id) {
    case DIF_VAR.ARGS: {
      const i = Number(index ?? 0n);
      if (i < 0 || i >= 10) throw new DifFault(DTRACEFLT.ILLOP, 0n);
      return f.args[i] ?? 0n;
    }
    case DIF_VAR.TIMESTAMP: return f.timestamp;
    case DIF_VAR.VTIMESTAMP: return f.machine.vtime?.(f.cpu) ?? f.timestamp;
    case DIF_VAR.WALLTIMESTAMP: return f.machine.walltime();
    case DIF_VAR.EPID: return BigInt(f.epid);
    case DIF_VAR.ID: return BigInt(f.probeId);
    case DIF_VAR.CPU: return BigInt(f.cpu);
    case DIF_VAR.IPL: return 0n;
    case DIF_VAR.PROBEPROV: return scratchName(f, f.probe.provider);
    case DIF_VAR.PROBEMOD: return scratchName(f, f.probe.module);
    case DIF_VAR.PROBEFUNC: return scratchName(f, f.probe.function);
    case DIF_VAR.PROBENAME: return scratchName(f, f.probe.name);
    case DIF_VAR.PID: return BigInt(th().pid);
    case DIF_VAR.PPID: return BigInt(th().ppid);
    case DIF_VAR.TID: return BigInt(th().tid);
    case DIF_VAR.UID: return BigInt(th().uid);
    case DIF_VAR.GID: return BigInt(th().gid);
    case DIF_VAR.EXECNAME: return scratchName(f, th().execname);
    case DIF_VAR.ZONENAME: return scratchString(f, 'global');
    case DIF_VAR.ERRNO: return BigInt(f.errno ?? th().errno ?? 0);
    case DIF_VAR.STACKDEPTH: return BigInt(f.machine.kernelStack(f.cpu, 100).length);
    case DIF_VAR.USTACKDEPTH: return BigInt(f.machine.userStack(f.cpu, 100).length);
    case DIF_VAR.CALLER: return f.machine.caller ? f.machine.caller(f.cpu) : (f.machine.kernelStack(f.cpu, 2)[1] ?? 0n);
    case DIF_VAR.UCALLER: return f.machine.userStack(f.cpu, 2)[1] ?? 0n;
    case DIF_VAR.CURTHREAD: return th().address ?? BigInt(th().tid);
    case DIF_VAR.CURPSINFO: return scratchBytes(f, psinfoBytes(f.dataModel ?? 'LP64', th()));
    case DIF_VAR.CURLWPSINFO: return scratchBytes(f, lwpsinfoBytes(f.dataModel ?? 'LP64', th(), f.cpu));
    case DIF_VAR.CURCPU: return scratchBytes(f, cpuinfoBytes(f.dataModel ?? 'LP64', f.cpu));
    case DIF_VAR.CWD:
    case DIF_VAR.ROOT: return scratchString(f, '/');
    default:
      if (id >= DIF_VAR.ARG0 && id <= DIF_VAR.ARG9) return f.args[id - DIF_VAR.ARG0] ?? 0n;
      throw new DifFault(DTRACEFLT.ILLOP, BigInt(id));
  }
}

/** Runs `ld` and returns the value of its `ret` (by-reference results are addresses). */
export function difEmulate(ld: LoadedDifo, f: VmFiring): bigint {
  const { difo } = ld;
  const text = difo.buf;
  const regs: bigint[] = [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n];
  const tuple: TupleEntry[] = [];
  let cc_n = false, cc_z = false, cc_v = false, cc_c = false;
  let pc = 0;
  const threadKey = (): string => `${f.machine.thread(f.cpu).tid}`;
  try {
    for (;;) {
      const opc = pc;
      const instr = text[pc++]!;
      f.instructions++;
      const op = instr >>> 24;
      const r1 = (instr >>> 16) & 0xff;
      const r2 = (instr >>> 8) & 0xff;
      const rd = instr & 0xff;
      try {
        switch (op) {
          case DIF_OP.OR: regs[rd] = regs[r1]! | regs[r2]!; break;
          case DIF_OP.XOR: regs[rd] = regs[r1]! ^ regs[r2]!; break;
          case DIF_OP.AND: regs[rd] = regs[r1]! & regs[r2]!; break;
          case DIF_OP.SLL: regs[rd] = U64(regs[r1]! << (regs[r2]! & 63n)); break;
          case DIF_OP.SRL: regs[rd] = regs[r1]! >> (regs[r2]! & 63n); break;
          case DIF_OP.SRA: regs[rd] = U64(S64(regs[r1]!) >> (regs[r2]! & 63n)); break;
          case DIF_OP.SUB: regs[rd] = U64(regs[r1]! - regs[r2]!); break;
          case DIF_OP.ADD: regs[rd] = U64(regs[r1]! + regs[r2]!); break;
          case DIF_OP.MUL: regs[rd] = U64(regs[r1]! * regs[r2]!); break;
          case DIF_OP.SDIV:
            if (regs[r2] === 0n) throw new DifFault(DTRACEFLT.DIVZERO, 0n);
            regs[rd] = U64(S64(regs[r1]!) / S64(regs[r2]!));
            break;
          case DIF_OP.UDIV:
            if (regs[r2] === 0n) throw new DifFault(DTRACEFLT.DIVZERO, 0n);
            regs[rd] = regs[r1]! / regs[r2]!;
            break;
          case DIF_OP.SREM:
            if (regs[r2] === 0n) throw new DifFault(DTRACEFLT.DIVZERO, 0n);
            regs[rd] = U64(S64(regs[r1]!) % S64(regs[r2]!));
            break;
          case DIF_OP.UREM:
            if (regs[r2] === 0n) throw new DifFault(DTRACEFLT.DIVZERO, 0n);
            regs[rd] = regs[r1]! % regs[r2]!;
            break;
          case DIF_OP.NOT: regs[rd] = U64(~regs[r1]!); break;
          case DIF_OP.MOV: regs[rd] = regs[r1]!; break;
          case DIF_OP.CMP: {
            const a = regs[r1]!, b = regs[r2]!;
            const r = U64(a - b);
            cc_n = (r >> 63n) !== 0n;
            cc_z = r === 0n;
            cc_v = (((a ^ b) & (r ^ a)) >> 63n) !== 0n;
            cc_c = a < b;
            break;
          }
          case DIF_OP.TST:
            cc_n = (regs[r1]! >> 63n) !== 0n;
            cc_z = regs[r1] === 0n;
            cc_v = cc_c = false;
            break;
          case DIF_OP.BA: pc = instr & 0xffffff; break;
          case DIF_OP.BE: if (cc_z) pc = instr & 0xffffff; break;
          case DIF_OP.BNE: if (!cc_z) pc = instr & 0xffffff; break;
          case DIF_OP.BG: if (!(cc_z || cc_n !== cc_v)) pc = instr & 0xffffff; break;
          case DIF_OP.BGU: if (!(cc_c || cc_z)) pc = instr & 0xffffff; break;
          case DIF_OP.BGE: if (cc_n === cc_v) pc = instr & 0xffffff; break;
          case DIF_OP.BGEU: if (!cc_c) pc = instr & 0xffffff; break;
          case DIF_OP.BL: if (cc_n !== cc_v) pc = instr & 0xffffff; break;
          case DIF_OP.BLU: if (cc_c) pc = instr & 0xffffff; break;
          case DIF_OP.BLE: if (cc_z || cc_n !== cc_v) pc = instr & 0xffffff; break;
          case DIF_OP.BLEU: if (cc_c || cc_z) pc = instr & 0xffffff; break;
          case DIF_OP.LDSB: case DIF_OP.RLDSB: regs[rd] = load(f, regs[r1]!, 1, true, false); break;
          case DIF_OP.LDSH: case DIF_OP.RLDSH: regs[rd] = load(f, regs[r1]!, 2, true, false); break;
          case DIF_OP.LDSW: case DIF_OP.RLDSW: regs[rd] = load(f, regs[r1]!, 4, true, false); break;
          case DIF_OP.LDUB: case DIF_OP.RLDUB: regs[rd] = load(f, regs[r1]!, 1, false, false); break;
          case DIF_OP.LDUH: case DIF_OP.RLDUH: regs[rd] = load(f, regs[r1]!, 2, false, false); break;
          case DIF_OP.LDUW: case DIF_OP.RLDUW: regs[rd] = load(f, regs[r1]!, 4, false, false); break;
          case DIF_OP.LDX: case DIF_OP.RLDX: regs[rd] = load(f, regs[r1]!, 8, false, false); break;
          case DIF_OP.ULDSB: regs[rd] = load(f, regs[r1]!, 1, true, true); break;
          case DIF_OP.ULDSH: regs[rd] = load(f, regs[r1]!, 2, true, true); break;
          case DIF_OP.ULDSW: regs[rd] = load(f, regs[r1]!, 4, true, true); break;
          case DIF_OP.ULDUB: regs[rd] = load(f, regs[r1]!, 1, false, true); break;
          case DIF_OP.ULDUH: regs[rd] = load(f, regs[r1]!, 2, false, true); break;
          case DIF_OP.ULDUW: regs[rd] = load(f, regs[r1]!, 4, false, true); break;
          case DIF_OP.ULDX: regs[rd] = load(f, regs[r1]!, 8, false, true); break;
          case DIF_OP.RET: return regs[rd]!;
          case DIF_OP.NOP: break;
          case DIF_OP.SETX: regs[rd] = U64(difo.inttab[(instr >>> 8) & 0xffff]!); break;
          case DIF_OP.SETS: regs[rd] = ld.strtabAddress + BigInt((instr >>> 8) & 0xffff); break;
          case DIF_OP.SCMP: {
            const a = readString(f, regs[r1]!, f.strsize);
            const b = readString(f, regs[r2]!, f.strsize);
            const r = a < b ? -1 : a > b ? 1 : 0;
            cc_n = r < 0;
            cc_z = r === 0;
            cc_v = cc_c = false;
            break;
          }
          case DIF_OP.LDGA: regs[rd] = builtin(f, r1, regs[r2]!); break;
          case DIF_OP.LDTA: throw new DifFault(DTRACEFLT.ILLOP, 0n);
          case DIF_OP.LDGS: {
            const id = (instr >>> 8) & 0xffff;
            if (id < DIF_VAR_OTHER_UBASE) regs[rd] = builtin(f, id);
            else {
              const addr = f.arena.globalAddress(id);
              regs[rd] = addr !== undefined ? addr : fromStored(f, f.variables.loadGlobal(id));
            }
            break;
          }
          case DIF_OP.STGS: {
            const id = (instr >>> 8) & 0xffff;
            const v = ld.variableTypes.get(varKey(DIFV_SCOPE_GLOBAL, id));
            if (isByRef(v)) {
              const bytes = byRefBytes(f, regs[rd]!, v!);
              const addr = f.arena.globalStorage(id, v!.type.size);
              f.arena.bytes.set(bytes.subarray(0, v!.type.size), f.arena.offsetOf(addr, 1));
            } else {
              f.variables.storeGlobal(id, regs[rd]!);
            }
            break;
          }
          case DIF_OP.LDTS: regs[rd] = fromStored(f, f.variables.loadThread((instr >>> 8) & 0xffff, threadKey())); break;
          case DIF_OP.STTS: {
            const id = (instr >>> 8) & 0xffff;
            const v = ld.variableTypes.get(varKey(DIFV_SCOPE_THREAD, id));
            const val = isByRef(v) ? byRefBytes(f, regs[rd]!, v!) : regs[rd]!;
            f.variables.storeThread(id, threadKey(), isZero(val) ? undefined : val);
            break;
          }
          case DIF_OP.LDLS: regs[rd] = fromStored(f, f.locals.get((instr >>> 8) & 0xffff) ?? 0n); break;
          case DIF_OP.STLS: {
            const id = (instr >>> 8) & 0xffff;
            const v = ld.variableTypes.get(varKey(DIFV_SCOPE_LOCAL, id));
            f.locals.set(id, isByRef(v) ? byRefBytes(f, regs[rd]!, v!) : regs[rd]!);
            break;
          }
          case DIF_OP.LDGAA: regs[rd] = fromStored(f, f.variables.loadAssoc((instr >>> 8) & 0xffff, tupleKey(tuple))); break;
          case DIF_OP.LDTAA: regs[rd] = fromStored(f, f.variables.loadAssoc((instr >>> 8) & 0xffff, threadKey() + '\u0001' + tupleKey(tuple))); break;
          case DIF_OP.STGAA:
          case DIF_OP.STTAA: {
            const id = (instr >>> 8) & 0xffff;
            const scope = op === DIF_OP.STGAA ? DIFV_SCOPE_GLOBAL : DIFV_SCOPE_THREAD;
            const v = ld.variableTypes.get(varKey(scope, id));
            const val = isByRef(v) ? byRefBytes(f, regs[rd]!, v!) : regs[rd]!;
            const key = (op === DIF_OP.STTAA ? threadKey() + '\u0001' : '') + tupleKey(tuple);
            f.variables.storeAssoc(id, key, isZero(val) ? undefined : val);
            break;
          }
          case DIF_OP.STGA: throw new DifFault(DTRACEFLT.ILLOP, 0n);
          case DIF_OP.PUSHTR: {
            if (tuple.length >= 8) throw new DifFault(DTRACEFLT.TUPOFLOW, 0n);
            const type = r1;
            const size = Number(regs[r2]!);
            const addr = regs[rd]!;
            if (type === 1 /* DIF_TYPE_STRING */) {
              const s = readStringBytes(f, addr, Math.min(size || f.strsize, f.strsize));
              const bytes = new Uint8Array(s.length + 1);
              bytes.set(s);
              tuple.push({ value: addr, bytes });
            } else {
              tuple.push({ value: addr, bytes: readBytes(f, addr, size) });
            }
            break;
          }
          case DIF_OP.PUSHTV:
            if (tuple.length >= 8) throw new DifFault(DTRACEFLT.TUPOFLOW, 0n);
            tuple.push({ value: regs[rd]! });
            break;
          case DIF_OP.POPTS: tuple.pop(); break;
          case DIF_OP.FLUSHTS: tuple.length = 0; break;
          case DIF_OP.ALLOCS: {
            const size = regs[r1]!;
            if (size > BigInt(f.arena.scratchSize)) throw new DifFault(DTRACEFLT.NOSCRATCH, 0n);
            regs[rd] = f.arena.alloc(Number(size));
            break;
          }
          case DIF_OP.COPYS: {
            const size = Number(regs[r2]!);
            const src = readBytes(f, regs[r1]!, size);
            const off = f.arena.offsetOf(regs[rd]!, size);
            if (off < 0 || !f.arena.isWritable(regs[rd]!, size)) throw new DifFault(DTRACEFLT.BADADDR, regs[rd]!);
            f.arena.bytes.set(src, off);
            break;
          }
          case DIF_OP.STB: case DIF_OP.STH: case DIF_OP.STW: case DIF_OP.STX: {
            const size = op === DIF_OP.STB ? 1 : op === DIF_OP.STH ? 2 : op === DIF_OP.STW ? 4 : 8;
            const addr = regs[rd]!;
            if (!f.arena.isWritable(addr, size)) throw new DifFault(DTRACEFLT.BADADDR, addr);
            if ((addr & BigInt(size - 1)) !== 0n) throw new DifFault(DTRACEFLT.BADALIGN, addr);
            f.arena.write(f.arena.offsetOf(addr, size), size, regs[r1]!);
            break;
          }
          case DIF_OP.CALL: regs[rd] = callSubroutine(f, (instr >>> 8) & 0xffff, tuple); break;
          default:
            throw new DifFault(DTRACEFLT.ILLOP, BigInt(op));
        }
      } catch (e) {
        if (e instanceof DifFault && e.difOffset < 0) e.difOffset = opc * 4;
        throw e;
      }
    }
  } finally {
    tuple.length = 0;
  }
}

// ---------------------------------------------------------------------------
// DTrace Subroutines: arguments come from the tuple stack, as the compiler
// pushes them; strings are read bounded by strsize and results go to scratch.

const arg = (t: readonly TupleEntry[], i: number): bigint => {
  const e = t[i];
  if (!e) throw new DifFault(DTRACEFLT.ILLOP, 0n);
  return e.value;
};
const sarg = (f: VmFiring, t: readonly TupleEntry[], i: number): string => readString(f, arg(t, i), f.strsize);

function basename(s: string): string {
  if (s === '') return '.';
  const t = s.replace(/\/+$/, '');
  if (t === '') return '/';
  return t.slice(t.lastIndexOf('/') + 1);
}
function dirname(s: string): string {
  const t = s.replace(/\/+$/, '');
  if (t === '') return s.startsWith('/') ? '/' : '.';
  const i = t.lastIndexOf('/');
  if (i < 0) return '.';
  const d = t.slice(0, i).replace(/\/+$/, '');
  return d === '' ? '/' : d;
}
/**
 * DIF_SUBR_CLEANPATH, step for step: "//" and "/./" collapse, "/../" backs up
 * to the previous '/', anything else is copied — so "./a", "a/." and "../a"
 * stay as they are, and a relative "a/.." leaves "a" (the kernel's quirks).
 */
export function cleanpath(s: string, size = 256): string {
  const load = (k: number): string => (k < s.length ? s[k]! : '\0');
  const d: string[] = [];
  let i = 0;
  let j = 0;
  let c = '';
  let reload = true;
  for (;;) {
    if (reload) c = load(i++);
    reload = true;
    if (j + 5 >= size) break; // 5 = strlen("/..c\0")
    if (c !== '/') {
      d[j++] = c;
      if (c === '\0') break;
      continue;
    }
    c = load(i++);
    if (c === '/') {
      reload = false; // two slashes: look at this one again
      continue;
    }
    if (c !== '.') {
      d[j++] = '/';
      d[j++] = c;
      if (c === '\0') break;
      continue;
    }
    c = load(i++);
    if (c === '/') {
      reload = false; // "/./"
      continue;
    }
    if (c !== '.') {
      d[j++] = '/';
      d[j++] = '.';
      d[j++] = c;
      if (c === '\0') break;
      continue;
    }
    c = load(i++);
    if (c !== '/' && c !== '\0') {
      d[j++] = '/';
      d[j++] = '.';
      d[j++] = '.';
      d[j++] = c;
      continue;
    }
    // "/../" or "/..\0": back the destination up to the previous '/'.
    i--;
    while (j !== 0 && d[--j] !== '/');
    if (c === '\0') {
      d[++j] = '/';
      break;
    }
  }
  const out = d.slice(0, j).join('');
  const nul = out.indexOf('\0');
  return nul < 0 ? out : out.slice(0, nul);
}
function swap(v: bigint, bytes: number): bigint {
  let r = 0n;
  for (let i = 0; i < bytes; i++) r = (r << 8n) | ((v >> BigInt(8 * i)) & 0xffn);
  return r;
}

let randState = 0x2545f4914f6cdd1dn;

function callSubroutine(f: VmFiring, subr: number, t: readonly TupleEntry[]): bigint {
  switch (subr) {
    case DIF_SUBR.RAND:
      randState = U64(randState * 6364136223846793005n + 1442695040888963407n);
      return randState >> 33n;
    case DIF_SUBR.STRLEN: return BigInt(sarg(f, t, 0).length);
    case DIF_SUBR.STRJOIN: {
      // DIF_SUBR_STRJOIN: a result that does not fit strsize (with its NUL) is out of scratch space.
      const joined = sarg(f, t, 0) + sarg(f, t, 1);
      if (joined.length >= f.strsize) throw new DifFault(DTRACEFLT.NOSCRATCH, 0n);
      return scratchString(f, joined);
    }
    case DIF_SUBR.SUBSTR: {
      // DIF_SUBR_SUBSTR's arithmetic: a negative index counts from the end and may eat into
      // the length; a negative length stops that many characters before the end.
      const s = sarg(f, t, 0);
      const len = BigInt(s.length);
      const size = BigInt(f.strsize);
      let index = S64(arg(t, 1));
      let remaining = t.length > 2 ? S64(arg(t, 2)) : size;
      if (index < 0n) {
        index += len;
        if (index < 0n && index + remaining > 0n) {
          remaining += index;
          index = 0n;
        }
      }
      if (index >= len || index < 0n) remaining = 0n;
      else if (remaining < 0n) remaining += len - index;
      else if (index + remaining > size) remaining = size - index;
      return scratchString(f, remaining > 0n ? s.slice(Number(index), Number(index + remaining)) : '');
    }
    case DIF_SUBR.INDEX:
    case DIF_SUBR.RINDEX: {
      const s = sarg(f, t, 0);
      const sub = sarg(f, t, 1);
      if (subr === DIF_SUBR.INDEX) {
        const start = t.length > 2 ? Number(S64(arg(t, 2))) : 0;
        return U64(BigInt(s.indexOf(sub, Math.max(0, start))));
      }
      // rindex(): a negative position finds nothing, except the empty string at 0.
      const start = t.length > 2 ? Number(S64(arg(t, 2))) : s.length;
      if (start < 0) return U64(sub.length === 0 ? 0n : -1n);
      return U64(BigInt(s.lastIndexOf(sub, start)));
    }
    case DIF_SUBR.STRCHR:
    case DIF_SUBR.STRRCHR: {
      const base = arg(t, 0);
      const s = readString(f, base, f.strsize);
      const c = String.fromCharCode(Number(arg(t, 1) & 0xffn));
      const i = subr === DIF_SUBR.STRCHR ? s.indexOf(c) : s.lastIndexOf(c);
      return i < 0 ? 0n : scratchString(f, s.slice(i));
    }
    case DIF_SUBR.STRSTR: {
      const s = sarg(f, t, 0);
      const i = s.indexOf(sarg(f, t, 1));
      return i < 0 ? 0n : scratchString(f, s.slice(i));
    }
    case DIF_SUBR.STRTOK: {
      // strtok(s, delims): a NULL s continues from where the last call of this firing stopped.
      const first = arg(t, 0);
      let s: string;
      if (first === 0n) {
        if (f.strtokRest === undefined) return 0n;
        s = f.strtokRest;
      } else {
        s = readString(f, first, f.strsize);
      }
      const delims = sarg(f, t, 1);
      let i = 0;
      while (i < s.length && delims.includes(s[i]!)) i++;
      if (i >= s.length) {
        f.strtokRest = undefined;
        return 0n;
      }
      let j = i;
      while (j < s.length && !delims.includes(s[j]!)) j++;
      f.strtokRest = j < s.length ? s.slice(j + 1) : undefined;
      return scratchString(f, s.slice(i, j));
    }
    case DIF_SUBR.JSON: {
      // json(text, "a.b[2].c"): the member's value as a string; NULL when absent or not JSON.
      let v: unknown;
      try {
        v = JSON.parse(sarg(f, t, 0));
      } catch {
        return 0n;
      }
      const path = sarg(f, t, 1);
      for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
        if (v === null || typeof v !== 'object') return 0n;
        const key = part.startsWith('[') ? Number(part.slice(1, -1)) : part;
        v = (v as Record<string | number, unknown>)[key];
        if (v === undefined) return 0n;
      }
      if (v === null) return scratchString(f, 'null');
      return scratchString(f, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    case DIF_SUBR.LLTOSTR: {
      const base = t.length > 1 ? Number(arg(t, 1)) : 10;
      if (base < 2 || base > 36) throw new DifFault(DTRACEFLT.ILLOP, BigInt(base));
      const v = S64(arg(t, 0));
      // DIF_SUBR_LLTOSTR: the digits of the unsigned value, then "0x" (base 16) or "0" (base 8, or zero in any base).
      const digits = v === 0n ? '' : U64(v).toString(base);
      const s = base === 10 ? v.toString(10) : base === 16 ? `0x${digits || '0'}` : `${base === 8 || v === 0n ? '0' : ''}${digits}`;
      return scratchString(f, s);
    }
    case DIF_SUBR.STRTOLL: {
      // dtrace_strtoll: skip blanks and tabs, an optional sign, "0x" only in base 16 and only before a
      // hexadecimal digit, then digits below the base; the value wraps as an int64_t.
      const base = t.length > 1 ? Number(S64(arg(t, 1))) : 10;
      if (base <= 1 || base > 36) throw new DifFault(DTRACEFLT.ILLOP, BigInt(base));
      const s = sarg(f, t, 0);
      let pos = 0;
      while (s[pos] === ' ' || s[pos] === '\t') pos++;
      let neg = false;
      if (s[pos] === '-' || s[pos] === '+') neg = s[pos++] === '-';
      if (base === 16 && s[pos] === '0' && (s[pos + 1] === 'x' || s[pos + 1] === 'X') && /[0-9a-fA-F]/.test(s[pos + 2] ?? '')) pos += 2;
      let v = 0n;
      for (; pos < s.length; pos++) {
        const ch = s[pos]!;
        if (!/[0-9a-zA-Z]/.test(ch)) break;
        const d = parseInt(ch, 36);
        if (d >= base) break;
        v = BigInt.asIntN(64, v * BigInt(base) + BigInt(d));
      }
      return U64(neg ? -v : v);
    }
    case DIF_SUBR.BASENAME: return scratchString(f, basename(sarg(f, t, 0)));
    case DIF_SUBR.DIRNAME: return scratchString(f, dirname(sarg(f, t, 0)));
    case DIF_SUBR.CLEANPATH: return scratchString(f, cleanpath(sarg(f, t, 0), f.strsize));
    // ASCII letters only, as the kernel's loop over 'a'..'z' / 'A'..'Z'.
    case DIF_SUBR.TOUPPER: return scratchString(f, sarg(f, t, 0).replace(/[a-z]/g, (c) => c.toUpperCase()));
    case DIF_SUBR.TOLOWER: return scratchString(f, sarg(f, t, 0).replace(/[A-Z]/g, (c) => c.toLowerCase()));
    case DIF_SUBR.HTONS: case DIF_SUBR.NTOHS: return swap(arg(t, 0), 2);
    case DIF_SUBR.HTONL: case DIF_SUBR.NTOHL: return swap(arg(t, 0), 4);
    case DIF_SUBR.HTONLL: case DIF_SUBR.NTOHLL: return swap(arg(t, 0), 8);
    case DIF_SUBR.SPECULATION: return BigInt(f.speculation());
    case DIF_SUBR.ALLOCA: return f.arena.alloc(Number(arg(t, 0)));
    case DIF_SUBR.BCOPY: {
      const size = Number(arg(t, 2));
      const src = readBytes(f, arg(t, 0), size);
      const dst = arg(t, 1);
      if (!f.arena.isScratch(dst, size)) throw new DifFault(DTRACEFLT.BADADDR, dst);
      f.arena.bytes.set(src, f.arena.offsetOf(dst, size));
      return 0n;
    }
    case DIF_SUBR.COPYIN: {
      const addr = arg(t, 0);
      const size = Number(arg(t, 1));
      const dst = f.arena.alloc(size);
      const off = f.arena.offsetOf(dst, size);
      for (let i = 0; i < size; i++) {
        const b = f.machine.load(addr + BigInt(i), 1, true);
        if (b === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
        f.arena.bytes[off + i] = Number(b);
      }
      return dst;
    }
    case DIF_SUBR.COPYINTO: {
      const addr = arg(t, 0);
      const size = Number(arg(t, 1));
      const dst = arg(t, 2);
      if (!f.arena.isScratch(dst, size)) throw new DifFault(DTRACEFLT.BADADDR, dst);
      const off = f.arena.offsetOf(dst, size);
      for (let i = 0; i < size; i++) {
        const b = f.machine.load(addr + BigInt(i), 1, true);
        if (b === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
        f.arena.bytes[off + i] = Number(b);
      }
      return 0n;
    }
    case DIF_SUBR.COPYINSTR: {
      const addr = arg(t, 0);
      const max = Math.min(t.length > 1 ? Number(arg(t, 1)) : f.strsize, f.strsize);
      const bytes: number[] = [];
      for (let i = 0; i < max - 1; i++) {
        const b = f.machine.load(addr + BigInt(i), 1, true);
        if (b === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
        if (b === 0n) break;
        bytes.push(Number(b));
      }
      const dst = f.arena.alloc(bytes.length + 1);
      f.arena.bytes.set(bytes, f.arena.offsetOf(dst, 1));
      return dst;
    }
    case DIF_SUBR.PROGENYOF: {
      const pid = Number(arg(t, 0));
      const th = f.machine.thread(f.cpu);
      return th.pid === pid || th.ppid === pid ? 1n : 0n;
    }
    case DIF_SUBR.INET_NTOA: {
      const b = readBytes(f, arg(t, 0), 4);
      return scratchString(f, Array.from(b).join('.'));
    }
    case DIF_SUBR.INET_NTOA6:
      return scratchString(f, inet6String(readBytes(f, arg(t, 0), 16), true));
    case DIF_SUBR.INET_NTOP: {
      // AF_INET is 2; AF_INET6 is 10 in the guest's (Linux) ABI and 26 in illumos' net.d.
      const af = Number(S64(arg(t, 0)));
      if (af === 2) return scratchString(f, Array.from(readBytes(f, arg(t, 1), 4)).join('.'));
      if (af === 10 || af === 26) return scratchString(f, inet6String(readBytes(f, arg(t, 1), 16), false));
      throw new DifFault(DTRACEFLT.ILLOP, BigInt(af));
    }
    case DIF_SUBR.GETMAJOR:
    case DIF_SUBR.GETMINOR: {
      // dev_t layout of the data model: LP64 32-bit major and minor, ILP32 14-bit major and 18-bit minor.
      const dev = U64(arg(t, 0));
      const lp64 = (f.dataModel ?? 'LP64') === 'LP64';
      const minorBits = lp64 ? 32n : 18n;
      if (subr === DIF_SUBR.GETMINOR) return dev & ((1n << minorBits) - 1n);
      return (dev >> minorBits) & (lp64 ? 0xffffffffn : 0x3fffn);
    }
    case DIF_SUBR.MUTEX_OWNED:
    case DIF_SUBR.MUTEX_OWNER:
    case DIF_SUBR.MUTEX_TYPE_ADAPTIVE:
    case DIF_SUBR.MUTEX_TYPE_SPIN: {
      // dtrace_load64 of the kmutex_t, read as illumos's mutex_impl_t: an adaptive mutex's word is its
      // owner thread with flag bits below MUTEX_THREAD (-8); a spin mutex has 0xff in its first byte
      // (m_dummylock) and its lock in the second (m_spinlock). Unmapped memory faults (bad address).
      const m = load(f, arg(t, 0), 8, false, false);
      const adaptive = (m & MUTEX_DEAD) === 0n;
      const owner = m & ~7n;
      switch (subr) {
        case DIF_SUBR.MUTEX_OWNED: return adaptive ? (owner !== 0n ? 1n : 0n) : ((m >> 8n) & 0xffn) !== 0n ? 1n : 0n;
        case DIF_SUBR.MUTEX_OWNER: return adaptive ? owner : 0n;
        case DIF_SUBR.MUTEX_TYPE_ADAPTIVE: return adaptive ? 1n : 0n;
        default: return (m & 0xffn) === 0xffn ? 1n : 0n;
      }
    }
    case DIF_SUBR.RW_READ_HELD:
    case DIF_SUBR.RW_WRITE_HELD:
    case DIF_SUBR.RW_ISWRITER: {
      // dtrace_loadptr of the krwlock_t's rw_wwwh (rwlock_impl.h): the hold count or owner above
      // bit 3, RW_WRITE_LOCKED (4), RW_WRITE_WANTED (2), RW_HAS_WAITERS (1).
      const bits = BigInt(pointerSize(f) * 8);
      const w = load(f, arg(t, 0), pointerSize(f), false, false);
      const locked = BigInt.asUintN(Number(bits), ~7n);
      switch (subr) {
        case DIF_SUBR.RW_READ_HELD: return (w & locked) !== 0n && (w & RW_WRITE_LOCKED) === 0n ? 1n : 0n;
        case DIF_SUBR.RW_WRITE_HELD: {
          const curthread = BigInt.asUintN(Number(bits), f.machine.thread(f.cpu).address ?? 0n);
          return (w & (locked | RW_WRITE_LOCKED)) === (curthread | RW_WRITE_LOCKED) ? 1n : 0n;
        }
        default: return (w & (RW_WRITE_LOCKED | RW_WRITE_WANTED)) !== 0n ? 1n : 0n;
      }
    }
    case DIF_SUBR.MSGSIZE:
    case DIF_SUBR.MSGDSIZE: {
      // The mblk_t chain through b_cont: the bytes between b_rptr and b_wptr of each block (of M_DATA
      // blocks only for msgdsize), at most dtrace_msgdsize_max blocks (illegal operation beyond).
      const ptr = pointerSize(f);
      const first = arg(t, 0);
      let baddr = first;
      let count = 0n;
      let cont = 0;
      while (baddr !== 0n) {
        const wptr = load(f, baddr + BigInt(4 * ptr), ptr, false, false);
        const rptr = load(f, baddr + BigInt(3 * ptr), ptr, false, false);
        if (wptr < rptr) throw new DifFault(DTRACEFLT.BADADDR, first);
        const daddr = load(f, baddr + BigInt(5 * ptr), ptr, false, false);
        baddr = load(f, baddr + BigInt(2 * ptr), ptr, false, false);
        if (cont++ > MSGDSIZE_MAX) throw new DifFault(DTRACEFLT.ILLOP, 0n);
        // dblk_t's db_type follows db_frtnp, db_base, db_lim and db_ref; M_DATA is 0.
        if (subr === DIF_SUBR.MSGDSIZE && load(f, daddr + BigInt(3 * ptr + 1), 1, false, false) !== 0n) continue;
        count += wptr - rptr;
      }
      return U64(count);
    }
    case DIF_SUBR.DDI_PATHNAME: {
      // The walk of a dev_info tree: no machine here has illumos device nodes, so any node is a bad
      // address (illumos faults at the node's first field it reads). A NULL node with no minor
      // name (-1) is the empty path, as the kernel's loop returns it.
      const daddr = arg(t, 0);
      if (daddr === 0n && S64(arg(t, 1)) === -1n) return scratchString(f, '');
      throw new DifFault(DTRACEFLT.BADADDR, daddr);
    }
    case DIF_SUBR.GETF:
      // The current process's file_t for a descriptor, NULL when it has none open there: the
      // framework sees no process file tables, so every descriptor has none.
      return 0n;
    case DIF_SUBR.COPYOUT:
    case DIF_SUBR.COPYOUTSTR: {
      // Destructive (-w): kernel or D memory into the current process's memory. copyout copies
      // `size` bytes; copyoutstr the string and its NUL, at most `size` bytes. Without a user address
      // space to write to, or at a page that is not user-writable, the copy faults (bad address).
      const size = Number(BigInt.asUintN(32, arg(t, 2)));
      const uaddr = arg(t, 1);
      let bytes: Uint8Array;
      if (subr === DIF_SUBR.COPYOUT) bytes = readBytes(f, arg(t, 0), size);
      else {
        const s = readStringBytes(f, arg(t, 0), size);
        bytes = new Uint8Array(Math.min(s.length + 1, size));
        bytes.set(s.subarray(0, bytes.length));
      }
      if (bytes.length === 0) return 0n;
      const failed = f.machine.storeUser ? f.machine.storeUser(uaddr, bytes) : uaddr;
      if (failed !== undefined) throw new DifFault(DTRACEFLT.BADADDR, failed);
      return 0n;
    }
    default:
      throw new DifFault(DTRACEFLT.ILLOP, BigInt(subr));
  }
}

/** mutex_impl.h's MUTEX_DEAD: the flag bits an adaptive mutex never has set. */
const MUTEX_DEAD = 6n;
const RW_WRITE_WANTED = 2n;
const RW_WRITE_LOCKED = 4n;
/** dtrace_msgdsize_max: the longest mblk_t chain msgsize() and msgdsize() follow. */
const MSGDSIZE_MAX = 128;

function pointerSize(f: VmFiring): number {
  return (f.dataModel ?? 'LP64') === 'LP64' ? 8 : 4;
}
