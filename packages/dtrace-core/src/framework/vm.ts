// The DIF virtual machine, after illumos dtrace_dif_emulate(). It runs a DIFO
// that the verifier (verify.ts) has accepted, so the loop does not re-check
// register numbers, branch targets or table indexes.
//
// DTrace Probe Context Functions: everything here runs as if in probe
// context, through the memory access of firing.ts; the subroutines that
// DIF_OP_CALL reaches are in subr.ts, the arena in arena.ts.

import { DIF_OP } from '../dif/opcodes.js';
import { DIF_VAR, DIF_TF_BYREF, DIF_TF_BYUREF, DIFV_SCOPE_GLOBAL, DIFV_SCOPE_LOCAL, DIFV_SCOPE_THREAD, DIF_VAR_OTHER_UBASE } from '../dif/constants.js';
import { type Difo, type DifVariable } from '../dif/difo.js';
import type { Arena } from './arena.js';
import type { ThreadIdentity } from './machine.js';
import { DTRACEFLT, DifFault } from './faults.js';
import { firingArg, loadValue as load, readBytes, readString, readStringBytes, scratchBytes, scratchName, scratchString, type TupleEntry, type VmFiring } from './firing.js';
import { cpuinfoBytes, lwpsinfoBytes, psinfoBytes } from './procinfo.js';
import { callSubroutine } from './subr.js';

const U64 = (v: bigint): bigint => BigInt.asUintN(64, v);
const S64 = (v: bigint): bigint => BigInt.asIntN(64, v);

/** The per-DIFO data the VM needs besides the instructions: its string table in the arena. */
export interface LoadedDifo {
  readonly difo: Difo;
  readonly strtabAddress: bigint;
  /** Variables by id, for by-reference sizes. */
  readonly variableTypes: ReadonlyMap<string, DifVariable>;
  /** Its WebAssembly translation (wasm.ts) when the backend is wasm and it translated; the interpreter runs it otherwise. */
  compiled?: ((f: VmFiring) => bigint) | undefined;
  /** Where its state's arena lies in the shared memory, its size, and strsize: its translation compares strings there inline. */
  arenaStrings?: { readonly start: number; readonly size: number; readonly strsize: number } | undefined;
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

function isByRef(v: DifVariable | undefined): boolean {
  return v !== undefined && (v.type.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) !== 0;
}

/** Bytes of a by-reference value at `addr`: strings up to their NUL (padded to size), objects whole. */
function byRefBytes(f: VmFiring, addr: bigint, v: DifVariable): Uint8Array {
  const size = v.type.size;
  if (v.type.kind === 1 /* DIF_TYPE_STRING */) {
    // Into a buffer kept for the size (every store copies what it is given): a fresh typed array of a
    // string's strsize bytes would cost V8 an allocation outside its heap at every store.
    let out = storeBuffers.get(size);
    if (out === undefined) {
      if (storeBuffers.size >= 16) storeBuffers.clear();
      storeBuffers.set(size, (out = new Uint8Array(size)));
    }
    // The string's bytes up to its NUL, at most strsize and one less than the variable.
    const max = Math.min(size, f.strsize);
    const off = f.arena.offsetOf(addr, 1);
    let n: number;
    if (off >= 0) {
      const arena = f.arena.bytes;
      const limit = Math.min(arena.length, off + max, off + size - 1);
      let end = off;
      while (end < limit && arena[end] !== 0) end++;
      n = end - off;
      out.set(arena.subarray(off, end));
    } else {
      const s = readStringBytes(f, addr, max);
      n = Math.min(s.length, size - 1);
      out.set(n === s.length ? s : s.subarray(0, n));
    }
    out.fill(0, n);
    return out;
  }
  return readBytes(f, addr, size);
}
/** byRefBytes's buffers, by size. */
const storeBuffers = new Map<number, Uint8Array>();

function fromStored(f: VmFiring, stored: bigint | Uint8Array): bigint {
  if (typeof stored === 'bigint') return stored;
  const addr = f.arena.alloc(stored.length);
  f.arena.bytes.set(stored, f.arena.offsetOf(addr, stored.length));
  return addr;
}

function th(f: VmFiring): ThreadIdentity {
  return f.machine.thread(f.cpu);
}

function builtin(f: VmFiring, id: number, index?: bigint): bigint {
  switch (id) {
    case DIF_VAR.ARGS: {
      const i = Number(index ?? 0n);
      if (i < 0 || i >= 10) throw new DifFault(DTRACEFLT.ILLOP, 0n);
      return firingArg(f, i);
    }
    case DIF_VAR.UREGS: {
      const v = f.machine.userRegister?.(f.cpu, Number(index ?? 0n));
      if (v === undefined) throw new DifFault(DTRACEFLT.ILLOP, 0n);
      return v;
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
    case DIF_VAR.PID: return BigInt(th(f).pid);
    case DIF_VAR.PPID: return BigInt(th(f).ppid);
    case DIF_VAR.TID: return BigInt(th(f).tid);
    case DIF_VAR.UID: return BigInt(th(f).uid);
    case DIF_VAR.GID: return BigInt(th(f).gid);
    case DIF_VAR.EXECNAME: return scratchName(f, th(f).execname);
    case DIF_VAR.ZONENAME: return scratchString(f, 'global');
    case DIF_VAR.ERRNO: return BigInt(f.errno ?? th(f).errno ?? 0);
    case DIF_VAR.STACKDEPTH: return BigInt(f.machine.kernelStack(f.cpu, 100).length);
    case DIF_VAR.USTACKDEPTH: return BigInt(f.machine.userStack(f.cpu, 100).length);
    case DIF_VAR.CALLER: return f.machine.caller ? f.machine.caller(f.cpu) : (f.machine.kernelStack(f.cpu, 2)[1] ?? 0n);
    case DIF_VAR.UCALLER: return f.machine.userStack(f.cpu, 2)[1] ?? 0n;
    case DIF_VAR.CURTHREAD: return th(f).address ?? BigInt(th(f).tid);
    case DIF_VAR.CURPSINFO: return scratchBytes(f, psinfoBytes(f.dataModel ?? 'LP64', th(f)));
    case DIF_VAR.CURLWPSINFO: return scratchBytes(f, lwpsinfoBytes(f.dataModel ?? 'LP64', th(f), f.cpu));
    case DIF_VAR.CURCPU: return scratchBytes(f, cpuinfoBytes(f.dataModel ?? 'LP64', f.cpu));
    case DIF_VAR.CWD:
    case DIF_VAR.ROOT: return scratchString(f, '/');
    default:
      if (id >= DIF_VAR.ARG0 && id <= DIF_VAR.ARG9) return firingArg(f, id - DIF_VAR.ARG0);
      throw new DifFault(DTRACEFLT.ILLOP, BigInt(id));
  }
}

/** Runs `ld` with the backend it was loaded for: its WebAssembly translation, else the interpreter. */
export function difRun(ld: LoadedDifo, f: VmFiring): bigint {
  return ld.compiled !== undefined ? ld.compiled(f) : difEmulate(ld, f);
}

/** Runs `ld` in the interpreter and returns the value of its `ret` (by-reference results are addresses). */
export function difEmulate(ld: LoadedDifo, f: VmFiring): bigint {
  const { difo } = ld;
  const text = difo.buf;
  const regs: bigint[] = [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n];
  const tuple: TupleEntry[] = [];
  let cc_n = false, cc_z = false, cc_v = false, cc_c = false;
  let pc = 0;
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
          case DIF_OP.RET: return regs[rd]!;
          case DIF_OP.NOP: break;
          case DIF_OP.SETX: regs[rd] = U64(difo.inttab[(instr >>> 8) & 0xffff]!); break;
          case DIF_OP.SETS: regs[rd] = ld.strtabAddress + BigInt((instr >>> 8) & 0xffff); break;
          case DIF_OP.SCMP: {
            const r = difStep(ld, f, instr, regs, tuple);
            cc_n = r < 0;
            cc_z = r === 0;
            cc_v = cc_c = false;
            break;
          }
          default: difStep(ld, f, instr, regs, tuple);
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

/**
 * One DIF instruction other than the ALU, compare, branch, set and ret
 * instructions: loads, variables, tuples, scratch, stores and subroutine
 * calls. It reads and writes `regs` (indexed by the instruction's register
 * fields) and returns SCMP's comparison (-1, 0, 1), 0 for the others. The
 * interpreter and the WebAssembly backend (wasm.ts) share it, so both
 * backends do exactly the same work here.
 */
export function difStep(ld: LoadedDifo, f: VmFiring, instr: number, regs: bigint[], tuple: TupleEntry[]): number {
  const op = instr >>> 24;
  const r1 = (instr >>> 16) & 0xff;
  const r2 = (instr >>> 8) & 0xff;
  const rd = instr & 0xff;
  switch (op) {
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
        case DIF_OP.SCMP: {
          // dtrace_strncmp: the same address compares equal; NULL reads as the empty string.
          const p1 = regs[r1]!;
          const p2 = regs[r2]!;
          if (p1 === p2) return 0;
          // Both in the arena (or NULL): byte by byte where they lie, as the strings' code units compare.
          const o1 = p1 === 0n ? -2 : f.arena.offsetOf(p1, 1);
          const o2 = p2 === 0n ? -2 : f.arena.offsetOf(p2, 1);
          if (o1 !== -1 && o2 !== -1) {
            const arena = f.arena.bytes;
            // NULL's bytes end where they start.
            const l1 = o1 < 0 ? o1 : Math.min(arena.length, o1 + f.strsize);
            const l2 = o2 < 0 ? o2 : Math.min(arena.length, o2 + f.strsize);
            for (let i = 0; ; i++) {
              const c1 = o1 + i < l1 ? arena[o1 + i]! : 0;
              const c2 = o2 + i < l2 ? arena[o2 + i]! : 0;
              if (c1 !== c2) return c1 < c2 ? -1 : 1;
              if (c1 === 0) return 0;
            }
          }
          const a = p1 === 0n ? '' : readString(f, p1, f.strsize);
          const b = p1 === p2 ? a : p2 === 0n ? '' : readString(f, p2, f.strsize);
          return a < b ? -1 : a > b ? 1 : 0;
        }
        case DIF_OP.LDGA: regs[rd] = builtin(f, r1, regs[r2]!); break;
        case DIF_OP.LDTA: throw new DifFault(DTRACEFLT.ILLOP, 0n);
        case DIF_OP.LDGS: {
          const id = (instr >>> 8) & 0xffff;
          if (id < DIF_VAR_OTHER_UBASE) regs[rd] = builtin(f, id);
          else {
            const addr = f.arena.globalAddress(id);
            regs[rd] = addr !== undefined ? (f.arena.isNull(`g${id}`) ? 0n : addr) : fromStored(f, f.variables.loadGlobal(id));
          }
          break;
        }
        case DIF_OP.STGS: {
          const id = (instr >>> 8) & 0xffff;
          const v = ld.variableTypes.get(varKey(DIFV_SCOPE_GLOBAL, id));
          if (isByRef(v)) {
            // Storing NULL marks the variable (illumos: UINT8_MAX in its storage) instead of copying.
            f.arena.setNull(`g${id}`, regs[rd] === 0n);
            if (regs[rd] === 0n) break;
            const bytes = byRefBytes(f, regs[rd]!, v!);
            const addr = f.arena.globalStorage(id, v!.type.size);
            f.arena.bytes.set(bytes.subarray(0, v!.type.size), f.arena.offsetOf(addr, 1));
          } else {
            f.variables.storeGlobal(id, regs[rd]!);
          }
          break;
        }
        case DIF_OP.LDTS: regs[rd] = fromStored(f, f.variables.loadThread((instr >>> 8) & 0xffff, th(f).tid)); break;
        case DIF_OP.STTS: {
          const id = (instr >>> 8) & 0xffff;
          const v = ld.variableTypes.get(varKey(DIFV_SCOPE_THREAD, id));
          // As dtrace_dynvar is asked: a zero register frees the variable; any other value (a by-reference value's address, even of "") keeps it.
          const val = regs[rd] === 0n ? undefined : isByRef(v) ? byRefBytes(f, regs[rd]!, v!) : regs[rd]!;
          f.variables.storeThread(id, th(f).tid, val);
          break;
        }
        case DIF_OP.LDLS: {
          // A by-reference clause-local (string, struct, array) is its per-CPU storage's address.
          const id = (instr >>> 8) & 0xffff;
          const v = ld.variableTypes.get(varKey(DIFV_SCOPE_LOCAL, id));
          regs[rd] = !isByRef(v) ? fromStored(f, f.locals.get(id) ?? 0n) : f.arena.isNull(`l${id}:${f.cpu}`) ? 0n : f.arena.localStorage(id, f.cpu, v!.type.size);
          break;
        }
        case DIF_OP.STLS: {
          const id = (instr >>> 8) & 0xffff;
          const v = ld.variableTypes.get(varKey(DIFV_SCOPE_LOCAL, id));
          if (isByRef(v)) {
            f.arena.setNull(`l${id}:${f.cpu}`, regs[rd] === 0n);
            if (regs[rd] === 0n) break;
            const bytes = byRefBytes(f, regs[rd]!, v!);
            const addr = f.arena.localStorage(id, f.cpu, v!.type.size);
            f.arena.bytes.set(bytes.subarray(0, v!.type.size), f.arena.offsetOf(addr, 1));
          } else {
            f.locals.set(id, regs[rd]!);
          }
          break;
        }
        // self-> associative arrays are keyed by the thread's tid too, which also keys its thread-locals (ldts, stts).
        case DIF_OP.LDGAA: regs[rd] = fromStored(f, f.variables.loadAssoc((instr >>> 8) & 0xffff, tuple, undefined)); break;
        case DIF_OP.LDTAA: regs[rd] = fromStored(f, f.variables.loadAssoc((instr >>> 8) & 0xffff, tuple, th(f).tid)); break;
        case DIF_OP.STGAA:
        case DIF_OP.STTAA: {
          const id = (instr >>> 8) & 0xffff;
          const scope = op === DIF_OP.STGAA ? DIFV_SCOPE_GLOBAL : DIFV_SCOPE_THREAD;
          const v = ld.variableTypes.get(varKey(scope, id));
          const val = regs[rd] === 0n ? undefined : isByRef(v) ? byRefBytes(f, regs[rd]!, v!) : regs[rd]!;
          f.variables.storeAssoc(id, tuple, op === DIF_OP.STTAA ? th(f).tid : undefined, val);
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
            tuple.push({ value: addr, bytes, string: true });
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
  return 0;
}
