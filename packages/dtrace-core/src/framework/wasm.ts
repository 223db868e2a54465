// The WebAssembly backend for DIF (-x backend=wasm): each verified DIFO is
// translated at enable time into one WebAssembly function, its eight
// registers i64 locals and its condition codes i32 locals, emitted as a
// module binary here with no other tool. The DIF stays the contract: the
// verifier runs first, -S shows the DIF, and the interpreter (vm.ts) is the
// reference this backend must equal.
//
// Roadmap:
//   Translation strategy   - what runs in WebAssembly, what calls out
//   Translation             - DIF instruction by instruction
//   Running                 - the JavaScript side of a call
//
// Translation strategy. ALU, compares, branches, setx/sets, mov and ret run
// inside WebAssembly, and so do the reads of the firing's integer builtins
// (arg0..arg9 and args[i] of the arguments the provider passed, timestamp,
// epid, id, cpu, ipl, pid, ppid, tid, uid, gid, errno): before a run the
// JavaScript side writes the ones the DIFO reads into the firing block of
// the memory every module shares (see "The firing block"), as Numbers or as the
// BigInts the firing already holds, so no BigInt is made for them. A probe's
// trampoline (trampoline.ts) fills it once per firing for the DIFOs it calls
// itself, through their exported functions. Every
// other instruction (other builtins, loads, variables, tuples, scratch,
// stores, subroutines) is one call of an imported helper with the
// instruction's index and its register fields' values; the helper runs
// vm.ts's difStep, the interpreter's own code, so both backends do the same
// work there. The argN a DIFO names are written into the firing block before
// its run, read through the provider's lazy source where the provider passed
// none; args[i] beyond those in the block is a call too.
//
// Loads (ld*, rld*, uld*). On a machine that offers its guest RAM
// (MachineInterface.guestMemory), a load calls the module's own `ld`, which
// calls the machine's `walk` (wasm-walk.ts, another WebAssembly instance
// over the CPU core's memory) with the translation registers the firing
// block holds: a mapped, aligned word of RAM is read without leaving
// WebAssembly. Whatever the walk does not take, and every load on a machine
// without guest RAM, calls `load` with the address alone, which runs
// firing.ts's loadValue as difStep would (the value, or the fault with its
// address).
//
// A DIFO whose module would exceed MODULE_LIMIT bytes stays with the
// interpreter: browsers compile larger modules synchronously only off the
// main thread, and Node must choose the same DIFOs as the browser.
//
// Faults: the helper gives a fault without an offset the faulting
// instruction's (index * 4), as the interpreter does; a division by zero
// calls `fault` with its index. Instruction counts: DIF has no backward
// branches (the verifier refuses them), so the code is straight-line runs
// ending at a branch, a ret, a helper call that may fault or a division;
// each run adds its length to the counter in the shared memory as it
// starts, so a run cut short by a fault has counted up to the faulting
// instruction, as the interpreter counts.
//
// Control flow: branches only go forward, so each branch target closes one
// WebAssembly block opened at the function's start (outermost = furthest
// target); a branch to T is a br out of the blocks that end before T.

import { DIF_TF_BYREF, DIF_TF_BYUREF, DIF_VAR, DIFV_SCOPE_THREAD } from '../dif/constants.js';
import { ARENA_BASE } from './arena.js';
import { DIF_OP, DIF_OPCODES } from '../dif/opcodes.js';
import { DTRACEFLT, DifFault } from './faults.js';
import type { GuestMemoryWindow, MachineInterface } from './machine.js';
import { loadValue, probeArgument, type ProbeArgumentSource, type TupleEntry, type VmFiring } from './firing.js';
import { difEmulate, difStep, type LoadedDifo } from './vm.js';
import { Bytes, Code, I32, I64, OP } from './wasm-encoding.js';
import { guestWalk, walkWords } from './wasm-walk.js';

/**
 * A dynamic-variable table (dynvar.ts implements it) whose integer
 * thread-locals a DIFO reads and writes inline: its address in the shared
 * memory, the WebAssembly functions it imports for them, and their
 * arguments for a variable.
 */
export interface ThreadLocalTable {
  readonly address: number;
  /** tload(table, key, tid) -> value and tstore(table, key, tid, value, base). */
  functions(): { readonly tload: (table: number, key: number, tid: bigint) => bigint; readonly tstore: (table: number, key: number, tid: bigint, value: bigint, base: number) => void };
  /** The `key` argument for thread-local `id` ... */
  threadKey(id: number): number;
  /** ... and tstore's `base` (its accounting's fixed part). */
  threadBase(id: number): number;
}

/** The largest module translated; larger DIFOs stay with the interpreter (see the strategy above). */
export const MODULE_LIMIT = 4096;

/* ---------------------------------------------------------------------- */
/* Translation                                                            */
/* ---------------------------------------------------------------------- */

// Locals: %r0..%r7, then the condition codes, then a scratch i64, then an inline SCMP's i32s.
const CC_N = 8, CC_Z = 9, CC_V = 10, CC_C = 11, TMP = 12;
const S_I = 13, S_A = 14, S_B = 15, S_LA = 16, S_LB = 17, S_CA = 18, S_CB = 19;

/**
 * SCMP of %r1 and %r2 into TMP (-1, 0, 1) as difStep compares them, inline
 * where both are NULL or strings in the state's arena, which lies in the
 * shared memory (arena.ts): byte by byte as unsigned chars, up to the NUL,
 * at most strsize bytes and the arena's end; NULL reads as "", the same
 * address compares equal. Anything else calls out (`slow` pushes the
 * helper's result), which also faults where difStep would.
 */
function inlineStringCompare(c: Bytes, r1: number, r2: number, strings: NonNullable<LoadedDifo['arenaStrings']>, slow: () => void): void {
  const get = (r: number): Bytes => (r < 8 ? c.u8(OP.local_get, r) : c.u8(OP.i64_const, 0));
  const i32 = (v: number): Bytes => c.u8(OP.i32_const).sleb(BigInt(v));
  c.u8(OP.block, 0x40); // out
  c.u8(OP.block, 0x40); // slow
  get(r1);
  get(r2).u8(OP.i64_eq, OP.if, 0x40, OP.i64_const, 0, OP.local_set, TMP, OP.br, 2, OP.end);
  // Each side: its bytes' address and how many may be read (NULL: none); outside the arena: slow.
  for (const [r, at, limit] of [[r1, S_A, S_LA], [r2, S_B, S_LB]] as const) {
    get(r).u8(OP.i64_eqz, OP.if, 0x40);
    i32(0).u8(OP.local_set, limit);
    c.u8(OP.else);
    get(r).u8(OP.i64_const).sleb(BigInt.asIntN(64, ARENA_BASE)).u8(OP.i64_sub, OP.local_tee, TMP, OP.i64_const).sleb(BigInt(strings.size)).u8(OP.i64_ge_u, OP.br_if, 1);
    c.u8(OP.local_get, TMP, OP.i32_wrap_i64);
    i32(strings.start).u8(OP.i32_add, OP.local_set, at);
    i32(strings.size).u8(OP.local_get, TMP, OP.i32_wrap_i64, OP.i32_sub, OP.local_tee, limit);
    i32(strings.strsize).u8(OP.local_get, limit);
    i32(strings.strsize).u8(OP.i32_lt_u, OP.select, OP.local_set, limit);
    c.u8(OP.end);
  }
  i32(0).u8(OP.local_set, S_I);
  c.u8(OP.loop, 0x40);
  for (const [at, limit, ch] of [[S_A, S_LA, S_CA], [S_B, S_LB, S_CB]] as const) {
    c.u8(OP.local_get, S_I, OP.local_get, limit, OP.i32_lt_u, OP.if, I32);
    c.u8(OP.local_get, at, OP.local_get, S_I, OP.i32_add, OP.i32_load8_u, 0, 0);
    c.u8(OP.else);
    i32(0).u8(OP.end, OP.local_set, ch);
  }
  c.u8(OP.local_get, S_CA, OP.local_get, S_CB, OP.i32_ne, OP.if, 0x40);
  c.u8(OP.i64_const).sleb(-1n).u8(OP.i64_const, 1, OP.local_get, S_CA, OP.local_get, S_CB, OP.i32_lt_u, OP.select, OP.local_set, TMP, OP.br, 3, OP.end);
  c.u8(OP.local_get, S_CA, OP.i32_eqz, OP.if, 0x40, OP.i64_const, 0, OP.local_set, TMP, OP.br, 3, OP.end);
  c.u8(OP.local_get, S_I, OP.i32_const, 1, OP.i32_add, OP.local_set, S_I, OP.br, 0);
  c.u8(OP.end); // loop
  c.u8(OP.end); // slow
  slow();
  c.u8(OP.local_set, TMP);
  c.u8(OP.end); // out
}
// Imported functions.
const F_OP = 0, F_FAULT = 1, F_OP0 = 2, F_LOAD = 3;
// With guest RAM: the imported walk. With a dynamic-variable table: its
// tload and tstore (after the walk, if any). Then run and the module's own ld.
const F_WALK = 4;

/**
 * The loads (ld*, rld*, uld*): size, signedness, user space. Where they
 * call out they call `load(pc, address)`, which runs firing.ts's loadValue
 * as difStep does: one 64-bit value into JavaScript, not three, and no
 * dispatch.
 */
const LOADS: ReadonlyMap<number, readonly [size: number, signed: boolean, user: boolean]> = new Map([
  [DIF_OP.LDSB, [1, true, false]], [DIF_OP.LDSH, [2, true, false]], [DIF_OP.LDSW, [4, true, false]],
  [DIF_OP.LDUB, [1, false, false]], [DIF_OP.LDUH, [2, false, false]], [DIF_OP.LDUW, [4, false, false]], [DIF_OP.LDX, [8, false, false]],
  [DIF_OP.RLDSB, [1, true, false]], [DIF_OP.RLDSH, [2, true, false]], [DIF_OP.RLDSW, [4, true, false]],
  [DIF_OP.RLDUB, [1, false, false]], [DIF_OP.RLDUH, [2, false, false]], [DIF_OP.RLDUW, [4, false, false]], [DIF_OP.RLDX, [8, false, false]],
  [DIF_OP.ULDSB, [1, true, true]], [DIF_OP.ULDSH, [2, true, true]], [DIF_OP.ULDSW, [4, true, true]],
  [DIF_OP.ULDUB, [1, false, true]], [DIF_OP.ULDUH, [2, false, true]], [DIF_OP.ULDUW, [4, false, true]], [DIF_OP.ULDX, [8, false, true]],
]);

/*
 * The firing block: the start of the memory every module imports (d.m), what
 * the JavaScript side writes before a run and reads after it.
 *
 *   0    i32  instructions executed (the runs add to it)
 *   4    i32  argc: how many of args[0..9] the block holds: those the provider
 *             passed, and, read through its lazy source, those up to the highest
 *             argN the DIFO names (at most 10)
 *   8    i64  args[0..9]
 *   88   i64  timestamp
 *   96   f64  epid, id, cpu, pid, ppid, tid, uid, gid, errno (Numbers, exact)
 *   168  u32  the translation registers of the loads (TRANSLATION_WORDS of
 *             GuestMemoryWindow.translationRegisters): kernel root, user
 *             root, then what else the walk takes (at most 6 words)
 *   192  i32  the index of the ECB a probe's trampoline runs (trampoline.ts),
 *             which a fault unwinding out of it is reported against
 *   196  i32  the id of the predicate DIFO the trampoline has called, while it
 *             runs (0 otherwise): a run of that DIFO entered meanwhile is
 *             left to the interpreter
 *   200  i32  the action index (ndx) of the aggregation or record whose DIFO
 *             the trampoline runs, 0 while it runs a predicate
 *   248  i32  the address of the firing CPU's principal-buffer descriptor
 *             (buffers.ts), where the trampoline writes its records
 *   1024      the record stage: the chunk of an ECB whose records the
 *             trampoline writes itself when they do not fit below the
 *             buffer's limit, which the buffer's policy then places
 *             (RECORD_STAGE_SIZE)
 */
const B_COUNT = 0, B_ARGC = 4, B_ARGS = 8, B_TIMESTAMP = 88, B_NUMBERS = 96, B_TRANSLATION = 168;
export const B_ECB = 192, B_PREDICATE = 196, B_NDX = 200, B_BUFFER = 248, B_STAGE = 1024, RECORD_STAGE_SIZE = 4096;
export { B_COUNT, B_TIMESTAMP };
export { B_NUMBERS };
/** For filter.ts, which fills the block's arguments and identifiers itself. */
export { B_ARGC, B_ARGS };
/** The f64 slot of each Number builtin, and what its value needs written. */
export const NEED_ARGS = 1, NEED_TIMESTAMP = 2, NEED_IDS = 4, NEED_THREAD = 8, NEED_ERRNO = 16;
/** Translation registers, for a DIFO whose loads walk guest RAM: kernel loads, user loads. */
const NEED_KERNEL_WALK = 32, NEED_USER_WALK = 64;
const NUMBER_BUILTINS: ReadonlyMap<number, { slot: number; need: number }> = new Map([
  [DIF_VAR.EPID, { slot: 0, need: NEED_IDS }],
  [DIF_VAR.ID, { slot: 1, need: NEED_IDS }],
  [DIF_VAR.CPU, { slot: 2, need: NEED_IDS }],
  [DIF_VAR.PID, { slot: 3, need: NEED_THREAD }],
  [DIF_VAR.PPID, { slot: 4, need: NEED_THREAD }],
  [DIF_VAR.TID, { slot: 5, need: NEED_THREAD }],
  [DIF_VAR.UID, { slot: 6, need: NEED_THREAD }],
  [DIF_VAR.GID, { slot: 7, need: NEED_THREAD }],
  [DIF_VAR.ERRNO, { slot: 8, need: NEED_ERRNO }],
]);
const isArgN = (id: number): boolean => id >= DIF_VAR.ARG0 && id <= DIF_VAR.ARG9;
/** Whether `ldgs id` reads the firing block (see the strategy above). */
const inlineBuiltin = (id: number): boolean => isArgN(id) || id === DIF_VAR.TIMESTAMP || id === DIF_VAR.IPL || NUMBER_BUILTINS.has(id);
/**
 * What of the firing block the DIFO reads, as NEED_ bits; bits 8 and up
 * hold one more than the highest argN it names (0 for none).
 */
function blockNeeds(text: ArrayLike<number>, inlineVariable: (instr: number) => boolean): number {
  let needs = 0;
  let named = 0;
  for (let pc = 0; pc < text.length; pc++) {
    const instr = text[pc]!;
    const op = instr >>> 24;
    if (inlineVariable(instr)) needs |= NEED_THREAD;
    if (op === DIF_OP.LDGA && ((instr >>> 16) & 0xff) === DIF_VAR.ARGS) needs |= NEED_ARGS;
    if (op !== DIF_OP.LDGS) continue;
    const id = (instr >>> 8) & 0xffff;
    if (isArgN(id)) {
      needs |= NEED_ARGS;
      named = Math.max(named, id - DIF_VAR.ARG0 + 1);
    } else if (id === DIF_VAR.TIMESTAMP) needs |= NEED_TIMESTAMP;
    else needs |= NUMBER_BUILTINS.get(id)?.need ?? 0;
  }
  return needs | (named << 8);
}

const isBranch = (op: number): boolean => op >= DIF_OP.BA && op <= DIF_OP.BLEU;
const isDivision = (op: number): boolean => op === DIF_OP.SDIV || op === DIF_OP.UDIV || op === DIF_OP.SREM || op === DIF_OP.UREM;
const INLINE = new Set<number>([
  DIF_OP.OR, DIF_OP.XOR, DIF_OP.AND, DIF_OP.SLL, DIF_OP.SRL, DIF_OP.SRA, DIF_OP.SUB, DIF_OP.ADD, DIF_OP.MUL,
  DIF_OP.SDIV, DIF_OP.UDIV, DIF_OP.SREM, DIF_OP.UREM, DIF_OP.NOT, DIF_OP.MOV, DIF_OP.CMP, DIF_OP.TST,
  DIF_OP.BA, DIF_OP.BE, DIF_OP.BNE, DIF_OP.BG, DIF_OP.BGU, DIF_OP.BGE, DIF_OP.BGEU, DIF_OP.BL, DIF_OP.BLU, DIF_OP.BLE, DIF_OP.BLEU,
  DIF_OP.RET, DIF_OP.NOP, DIF_OP.SETX, DIF_OP.SETS,
]);
/**
 * Call-outs that read no register (only their index, the firing and the
 * tuple stack): they call `op0(pc)`, which passes no 64-bit value into
 * JavaScript (each would be a BigInt made).
 */
const NO_REGISTER_INPUT = new Set<number>([
  DIF_OP.LDGS, DIF_OP.LDTS, DIF_OP.LDLS, DIF_OP.LDGAA, DIF_OP.LDTAA, DIF_OP.CALL, DIF_OP.POPTS, DIF_OP.FLUSHTS,
]);
/** Whether an instruction runs as a call of the `op` helper. */
export const difCallsOut = (op: number): boolean => !INLINE.has(op);

/**
 * Whether `instr` is a load or store of an integer-valued thread-local
 * (ldts, stts of a variable that is not by reference) that the DIFO does
 * inline, calling the dynamic-variable table's tload or tstore (dynvar.ts)
 * with the thread's key, the tid of the firing block: never with a table
 * (`table` undefined), which the state has when its program uses dynamic
 * variables.
 */
function inlineVariables(ld: LoadedDifo, table: ThreadLocalTable | undefined): (instr: number) => boolean {
  if (table === undefined) return () => false;
  return (instr) => {
    const op = instr >>> 24;
    if (op !== DIF_OP.LDTS && op !== DIF_OP.STTS) return false;
    const v = ld.variableTypes.get(`${DIFV_SCOPE_THREAD}:${(instr >>> 8) & 0xffff}`);
    return v === undefined || (v.type.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) === 0;
  };
}

const BINARY: Partial<Record<number, number>> = {
  [DIF_OP.OR]: OP.i64_or, [DIF_OP.XOR]: OP.i64_xor, [DIF_OP.AND]: OP.i64_and,
  [DIF_OP.SLL]: OP.i64_shl, [DIF_OP.SRL]: OP.i64_shr_u, [DIF_OP.SRA]: OP.i64_shr_s,
  [DIF_OP.SUB]: OP.i64_sub, [DIF_OP.ADD]: OP.i64_add, [DIF_OP.MUL]: OP.i64_mul,
  [DIF_OP.UDIV]: OP.i64_div_u, [DIF_OP.SREM]: OP.i64_rem_s, [DIF_OP.UREM]: OP.i64_rem_u,
};

/**
 * The function body of `ld`'s DIFO; with `walks`, its loads call the
 * module's `ld` (function `fLd`, see the strategy above); with `table`, its
 * integer thread-locals are that table's, read and written by the imported
 * tload and tstore (functions `fTable` and `fTable + 1`).
 */
function translateBody(ld: LoadedDifo, walks: boolean, table: ThreadLocalTable | undefined, fTable: number, fLd: number): Bytes {
  const text = ld.difo.buf;
  const inlineVariable = inlineVariables(ld, table);
  const n = text.length;
  const targets = new Set<number>();
  for (let pc = 0; pc < n; pc++) if (isBranch(text[pc]! >>> 24)) targets.add(text[pc]! & 0xffffff);
  const sorted = [...targets].sort((a, b) => a - b);
  // An inline builtin read cannot fault (an argument beyond those passed reads as 0 or lazily, never faulting), so it does not end a run.
  const ends = (instr: number): boolean => {
    const op = instr >>> 24;
    return isBranch(op) || op === DIF_OP.RET || isDivision(op) || (difCallsOut(op) && !(op === DIF_OP.LDGS && inlineBuiltin((instr >>> 8) & 0xffff)) && !inlineVariable(instr));
  };

  const c = new Bytes();
  c.uleb(4).uleb(8).u8(I64).uleb(4).u8(I32).uleb(1).u8(I64).uleb(7).u8(I32);
  for (let i = sorted.length - 1; i >= 0; i--) c.u8(OP.block, 0x40);
  const get = (r: number): Bytes => (r < 8 ? c.u8(OP.local_get, r) : c.u8(OP.i64_const, 0));
  const flag = (l: number): Bytes => c.u8(OP.local_get, l);
  /** op(pc, r1, r2, rd), or op0(pc) for an instruction that reads no register: the interpreter's difStep; leaves its i64. */
  const callOut = (pc: number, instr: number): void => {
    c.u8(OP.i32_const).sleb(BigInt(pc));
    if (NO_REGISTER_INPUT.has(instr >>> 24)) c.u8(OP.call, F_OP0);
    else if (LOADS.has(instr >>> 24)) get((instr >>> 16) & 0xff).u8(OP.call, F_LOAD);
    else {
      get((instr >>> 16) & 0xff);
      get((instr >>> 8) & 0xff);
      get(instr & 0xff).u8(OP.call, F_OP);
    }
  };
  /** A call-out, then its result where the instruction puts it: rd, or SCMP's condition codes. */
  const callOutAndStore = (pc: number, instr: number): void => {
    const op = instr >>> 24;
    const rd = instr & 0xff;
    callOut(pc, instr);
    if (op === DIF_OP.SCMP) {
      c.u8(OP.local_set, TMP, OP.local_get, TMP, OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_N);
      c.u8(OP.local_get, TMP, OP.i64_eqz, OP.local_set, CC_Z);
      c.u8(OP.i32_const, 0, OP.local_set, CC_V, OP.i32_const, 0, OP.local_set, CC_C);
    } else if (DIF_OPCODES[op]?.writesRd && rd < 8) c.u8(OP.local_set, rd);
    else c.u8(OP.drop);
  };
  let open = 0; // index in `sorted` of the innermost open block
  let runStart = true;
  for (let pc = 0; pc < n; pc++) {
    if (targets.has(pc)) {
      c.u8(OP.end);
      open++;
      runStart = true;
    }
    const instr = text[pc]!;
    const op = instr >>> 24;
    const r1 = (instr >>> 16) & 0xff;
    const r2 = (instr >>> 8) & 0xff;
    const rd = instr & 0xff;
    if (runStart) {
      let k = 0;
      for (let j = pc; j < n; j++) {
        k++;
        if (ends(text[j]!) || targets.has(j + 1)) break;
      }
      c.u8(OP.i32_const, 0, OP.i32_const, 0, OP.i32_load, 2, B_COUNT, OP.i32_const).sleb(BigInt(k)).u8(OP.i32_add, OP.i32_store, 2, B_COUNT);
      runStart = false;
    }
    if (ends(instr)) runStart = true;
    const binary = BINARY[op];
    if (isDivision(op)) {
      get(r2).u8(OP.i64_eqz, OP.if, 0x40, OP.i32_const).sleb(BigInt(pc)).u8(OP.call, F_FAULT, OP.end);
    }
    if (op === DIF_OP.SDIV) {
      // INT64_MIN / -1 traps in WebAssembly; DIF's result is INT64_MIN, which 0 - r1 gives.
      get(r2).u8(OP.i64_const).sleb(-1n).u8(OP.i64_eq, OP.if, I64, OP.i64_const, 0);
      get(r1).u8(OP.i64_sub, OP.else);
      get(r1);
      get(r2).u8(OP.i64_div_s, OP.end, OP.local_set, rd);
    } else if (binary !== undefined) {
      get(r1);
      get(r2).u8(binary, OP.local_set, rd);
    } else if (isBranch(op)) {
      const depth = sorted.indexOf(instr & 0xffffff) - open;
      switch (op) {
        case DIF_OP.BA: break;
        case DIF_OP.BE: flag(CC_Z); break;
        case DIF_OP.BNE: flag(CC_Z).u8(OP.i32_eqz); break;
        case DIF_OP.BG: flag(CC_Z); flag(CC_N); flag(CC_V).u8(OP.i32_ne, OP.i32_or, OP.i32_eqz); break;
        case DIF_OP.BGU: flag(CC_C); flag(CC_Z).u8(OP.i32_or, OP.i32_eqz); break;
        case DIF_OP.BGE: flag(CC_N); flag(CC_V).u8(OP.i32_eq); break;
        case DIF_OP.BGEU: flag(CC_C).u8(OP.i32_eqz); break;
        case DIF_OP.BL: flag(CC_N); flag(CC_V).u8(OP.i32_ne); break;
        case DIF_OP.BLU: flag(CC_C); break;
        case DIF_OP.BLE: flag(CC_Z); flag(CC_N); flag(CC_V).u8(OP.i32_ne, OP.i32_or); break;
        case DIF_OP.BLEU: flag(CC_C); flag(CC_Z).u8(OP.i32_or); break;
      }
      c.u8(op === DIF_OP.BA ? OP.br : OP.br_if).uleb(depth);
    } else {
      switch (op) {
        case DIF_OP.NOT: get(r1).u8(OP.i64_const).sleb(-1n).u8(OP.i64_xor, OP.local_set, rd); break;
        case DIF_OP.MOV: get(r1).u8(OP.local_set, rd); break;
        case DIF_OP.CMP:
          get(r1);
          get(r2).u8(OP.i64_sub, OP.local_set, TMP);
          c.u8(OP.local_get, TMP, OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_N);
          get(r1);
          get(r2).u8(OP.i64_eq, OP.local_set, CC_Z);
          get(r1);
          get(r2).u8(OP.i64_xor, OP.local_get, TMP);
          get(r1).u8(OP.i64_xor, OP.i64_and, OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_V);
          get(r1);
          get(r2).u8(OP.i64_lt_u, OP.local_set, CC_C);
          break;
        case DIF_OP.TST:
          get(r1).u8(OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_N);
          get(r1).u8(OP.i64_eqz, OP.local_set, CC_Z);
          c.u8(OP.i32_const, 0, OP.local_set, CC_V, OP.i32_const, 0, OP.local_set, CC_C);
          break;
        case DIF_OP.RET: get(rd).u8(OP.return); break;
        case DIF_OP.NOP: break;
        case DIF_OP.SETX: c.u8(OP.i64_const).sleb(BigInt.asIntN(64, ld.difo.inttab[(instr >>> 8) & 0xffff]!)).u8(OP.local_set, rd); break;
        case DIF_OP.SETS: c.u8(OP.i64_const).sleb(BigInt.asIntN(64, ld.strtabAddress + BigInt((instr >>> 8) & 0xffff))).u8(OP.local_set, rd); break;
        case DIF_OP.LDGS: {
          const id = (instr >>> 8) & 0xffff;
          if (!inlineBuiltin(id)) {
            callOutAndStore(pc, instr);
            break;
          }
          const number = NUMBER_BUILTINS.get(id);
          if (isArgN(id)) {
            // The block's args[N]: fillBlock wrote every argN the DIFO names (0 where the probe has none).
            c.u8(OP.i32_const, 0, OP.i64_load, 3).uleb(B_ARGS + 8 * (id - DIF_VAR.ARG0));
          } else if (id === DIF_VAR.TIMESTAMP) c.u8(OP.i32_const, 0, OP.i64_load, 3).uleb(B_TIMESTAMP);
          else if (number !== undefined) c.u8(OP.i32_const, 0, OP.f64_load, 3).uleb(B_NUMBERS + 8 * number.slot).u8(OP.i64_trunc_f64_s);
          else c.u8(OP.i64_const, 0); // ipl
          if (rd < 8) c.u8(OP.local_set, rd);
          else c.u8(OP.drop);
          break;
        }
        case DIF_OP.LDGA:
          if (r1 !== DIF_VAR.ARGS) {
            callOutAndStore(pc, instr);
            break;
          }
          // args[i]: i < argc ? the block's args[i] : op (a lazily read argument, 0, or the fault of an index beyond 9).
          get(r2).u8(OP.i32_const, 0, OP.i32_load, 2, B_ARGC, OP.i64_extend_i32_u, OP.i64_lt_u, OP.if, I64);
          get(r2).u8(OP.i32_wrap_i64, OP.i32_const, 3, OP.i32_shl, OP.i64_load, 3).uleb(B_ARGS);
          c.u8(OP.else);
          callOut(pc, instr);
          c.u8(OP.end);
          if (rd < 8) c.u8(OP.local_set, rd);
          else c.u8(OP.drop);
          break;
        case DIF_OP.LDTS:
        case DIF_OP.STTS: {
          if (!inlineVariable(instr)) {
            callOutAndStore(pc, instr);
            break;
          }
          // tload(table, key, tid) or tstore(table, key, tid, value, base): see ThreadLocalTable.
          const id = (instr >>> 8) & 0xffff;
          c.u8(OP.i32_const).sleb(BigInt(table!.address)).u8(OP.i32_const).sleb(BigInt(table!.threadKey(id)));
          c.u8(OP.i32_const, 0, OP.f64_load, 3).uleb(B_NUMBERS + 8 * NUMBER_BUILTINS.get(DIF_VAR.TID)!.slot).u8(OP.i64_trunc_f64_s);
          if (op === DIF_OP.LDTS) {
            c.u8(OP.call).uleb(fTable);
            if (rd < 8) c.u8(OP.local_set, rd);
            else c.u8(OP.drop);
          } else {
            get(rd).u8(OP.i32_const).sleb(BigInt(table!.threadBase(id))).u8(OP.call).uleb(fTable + 1);
          }
          break;
        }
        case DIF_OP.SCMP: {
          const strings = ld.arenaStrings;
          if (strings === undefined) {
            callOutAndStore(pc, instr);
            break;
          }
          inlineStringCompare(c, r1, r2, strings, () => callOut(pc, instr));
          c.u8(OP.local_get, TMP, OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_N);
          c.u8(OP.local_get, TMP, OP.i64_eqz, OP.local_set, CC_Z);
          c.u8(OP.i32_const, 0, OP.local_set, CC_V, OP.i32_const, 0, OP.local_set, CC_C);
          break;
        }
        default: {
          const load = walks ? LOADS.get(op) : undefined;
          if (load === undefined) {
            callOutAndStore(pc, instr);
            break;
          }
          // ld(pc, address, size | user << 4): the word zero-extended (the walk's) or as `load` gives it, then sign-extended.
          const [size, signed, user] = load;
          c.u8(OP.i32_const).sleb(BigInt(pc));
          get(r1).u8(OP.i32_const).sleb(BigInt(size | (user ? 16 : 0))).u8(OP.call).uleb(fLd);
          if (signed && size < 8) c.u8(size === 1 ? OP.i64_extend8_s : size === 2 ? OP.i64_extend16_s : OP.i64_extend32_s);
          if (rd < 8) c.u8(OP.local_set, rd);
          else c.u8(OP.drop);
        }
      }
    }
  }
  // The verifier made the last instruction a ret.
  c.u8(OP.unreachable, OP.end);
  return c;
}

/** Whether the DIFO loads from memory (kernel loads: bit 0, user loads: bit 1). */
function loadKinds(text: ArrayLike<number>): number {
  let kinds = 0;
  for (let pc = 0; pc < text.length; pc++) {
    const load = LOADS.get(text[pc]! >>> 24);
    if (load !== undefined) kinds |= load[2] ? 2 : 1;
  }
  return kinds;
}

/**
 * The module's `ld(pc, address, size | user << 4) -> i64`: the walk with
 * the root of its kind and the other translation words from the firing
 * block; on a miss, `load(pc, address)`.
 */
function ldBody(words: number): Code {
  const PC = 0, ADDRESS = 1, KIND = 2, VALUE = 3, HIT = 4;
  const c = new Code();
  c.uleb(2).uleb(1).u8(I64).uleb(1).u8(I32);
  c.get(ADDRESS).get(KIND).i32(15).u8(OP.i32_and);
  // The root: word 0 (kernel) or 1 (user).
  c.get(KIND).i32(4).u8(OP.i32_shr_u).i32(2).u8(OP.i32_shl).mem(OP.i32_load, 2, B_TRANSLATION);
  for (let i = 2; i <= words; i++) c.i32(0).mem(OP.i32_load, 2, B_TRANSLATION + 4 * i);
  c.u8(OP.call, F_WALK).set(HIT).set(VALUE);
  c.get(HIT).if_(I64).get(VALUE).else_().get(PC).get(ADDRESS).u8(OP.call, F_LOAD).end();
  c.u8(OP.end);
  return c;
}

/**
 * The module of one DIFO: imports d.op, d.fault, d.op0, d.load and d.m (the
 * shared memory, whose start is the firing block), and with `translation`
 * (a machine's guest RAM, for a DIFO that loads) d.walk of that kind;
 * exports run.
 */
export function difoModuleBytes(ld: LoadedDifo, translation?: GuestMemoryWindow['translation'], table?: ThreadLocalTable): Uint8Array<ArrayBuffer> {
  const words = translation === undefined || loadKinds(ld.difo.buf) === 0 ? 0 : walkWords(translation);
  const inlineVariable = inlineVariables(ld, table);
  let variables = false;
  for (let pc = 0; pc < ld.difo.buf.length && !variables; pc++) variables = inlineVariable(ld.difo.buf[pc]!);
  const fTable = words === 0 ? F_LOAD + 1 : F_WALK + 1;
  const fRun = fTable + (variables ? 2 : 0);
  const m = new Bytes().u8(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  const types = new Bytes().uleb((words === 0 ? 5 : 7) + (variables ? 2 : 0));
  types.u8(0x60).uleb(0).uleb(1).u8(I64); // run: () -> i64
  types.u8(0x60).uleb(4).u8(I32, I64, I64, I64).uleb(1).u8(I64); // op: (pc, r1, r2, rd) -> i64
  types.u8(0x60).uleb(1).u8(I32).uleb(0); // fault: (pc) -> ()
  types.u8(0x60).uleb(1).u8(I32).uleb(1).u8(I64); // op0: (pc) -> i64
  types.u8(0x60).uleb(2).u8(I32, I64).uleb(1).u8(I64); // load: (pc, address) -> i64
  if (words !== 0) {
    types.u8(0x60).uleb(2 + words).u8(I64); // walk: (address, size, root, ...) -> (value, hit)
    for (let i = 0; i <= words; i++) types.u8(I32);
    types.uleb(2).u8(I64, I32);
    types.u8(0x60).uleb(3).u8(I32, I64, I32).uleb(1).u8(I64); // ld: (pc, address, kind) -> i64
  }
  const tTable = words === 0 ? 5 : 7;
  if (variables) {
    types.u8(0x60).uleb(3).u8(I32, I32, I64).uleb(1).u8(I64); // tload: (table, idkind, tid) -> i64
    types.u8(0x60).uleb(5).u8(I32, I32, I64, I64, I32).uleb(0); // tstore: (table, idkind, tid, value, base) -> ()
  }
  m.section(1, types);
  const imports = new Bytes().uleb((words === 0 ? 5 : 6) + (variables ? 2 : 0));
  imports.name('d').name('op').u8(0x00).uleb(1);
  imports.name('d').name('fault').u8(0x00).uleb(2);
  imports.name('d').name('op0').u8(0x00).uleb(3);
  imports.name('d').name('load').u8(0x00).uleb(4);
  if (words !== 0) imports.name('d').name('walk').u8(0x00).uleb(5);
  if (variables) {
    imports.name('d').name('tload').u8(0x00).uleb(tTable);
    imports.name('d').name('tstore').u8(0x00).uleb(tTable + 1);
  }
  imports.name('d').name('m').u8(0x02, 0x00).uleb(1);
  m.section(2, imports);
  m.section(3, words === 0 ? new Bytes().uleb(1).uleb(0) : new Bytes().uleb(2).uleb(0).uleb(6));
  // run comes after the imported functions.
  m.section(7, new Bytes().uleb(1).name('run').u8(0x00).uleb(fRun));
  const code = new Bytes().uleb(words === 0 ? 1 : 2).bytes(translateBody(ld, words !== 0, table, fTable, fRun + 1));
  if (words !== 0) code.bytes(ldBody(words));
  m.section(10, code);
  return Uint8Array.from(m.b);
}

/* ---------------------------------------------------------------------- */
/* Running                                                                */
/* ---------------------------------------------------------------------- */

/**
 * The memory every module imports: its start is the firing block (see
 * "Translation"), filled before each run with what the DIFO reads. A run
 * entered from inside another (a probe fired in a call-out) refills it for
 * the outer run when it returns.
 */
interface Block {
  readonly memory: WebAssembly.Memory;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly u64: BigUint64Array;
  readonly i64: BigInt64Array;
  readonly f64: Float64Array;
  readonly u8: Uint8Array;
}
/**
 * The shared memory: the firing block in its first page, the aggregation
 * cells of trampolines (see allocateCell) in the second, then the regions
 * wmem.ts hands out. Only wmem.ts grows it, and it then makes the views
 * again (refreshSharedViews): a view or Block taken from sharedBlock() is
 * good until the next region is allocated, so none is kept across one.
 */
let block: Block | undefined;
export function sharedBlock(): Block {
  if (block === undefined) refreshSharedViews(new WebAssembly.Memory({ initial: SHARED_PAGES, maximum: SHARED_MAXIMUM_PAGES }));
  return block!;
}
/** Pages the shared memory starts with: the firing block's and the cells'. */
export const SHARED_PAGES = 2;
/** The most pages the shared memory grows to (1 GiB). */
export const SHARED_MAXIMUM_PAGES = 16384;
/** Makes the views over the shared memory again, after it has grown (or at first). */
export function refreshSharedViews(memory: WebAssembly.Memory): void {
  const buffer = memory.buffer;
  block = { memory, i32: new Int32Array(buffer), u32: new Uint32Array(buffer), u64: new BigUint64Array(buffer), i64: new BigInt64Array(buffer), f64: new Float64Array(buffer), u8: new Uint8Array(buffer) };
}

/** Aggregation cells: 16 bytes each, in the shared memory's second page. */
const CELLS_START = 65536, CELL_SIZE = 16, CELLS_END = 131072;
const freeCells: number[] = [];
let cellsTop = CELLS_START;

/**
 * A cell of the shared memory for a trampoline's aggregation (two i64
 * words, set to `first` and 0), or 0 when every cell is taken (the
 * aggregation then stays with the firing plan's JavaScript). Cells are
 * handed back with freeCell when their entry is snapshot, their
 * trampoline replaced or tracing stopped.
 */
export function allocateCell(first: bigint): number {
  let address = freeCells.pop();
  if (address === undefined) {
    if (cellsTop + CELL_SIZE > CELLS_END) return 0;
    address = cellsTop;
    cellsTop += CELL_SIZE;
  }
  const b = sharedBlock();
  b.i64[address >> 3] = first;
  b.i64[(address >> 3) + 1] = 0n;
  return address;
}
export function freeCell(address: number): void {
  freeCells.push(address);
}

/** How many times the block was filled: a trampoline refills it for its later ECBs when a run in between did. */
let fills = 0;
export const blockFills = (): number => fills;

/** Writes what `needs` asks of firing `f` into the firing block. */
function fillBlock(b: Block, f: VmFiring, needs: number): void {
  fillFiringBlock(b, f.machine, f.cpu, f.probeId, f.epid, f.args, f.restArgs, f.timestamp, f.errno, needs);
}

/**
 * Writes what `needs` asks of a firing into the firing block: of probe
 * `probeId` on `cpu`, with the provider's `args` (the rest read through
 * `rest`), at `timestamp`, for the ECB `epid`.
 */
export function fillFiringBlock(
  b: Block, machine: MachineInterface, cpu: number, probeId: number, epid: number,
  args: readonly bigint[], rest: ProbeArgumentSource | undefined, timestamp: bigint, errno: number | undefined, needs: number,
): void {
  fills++;
  if (needs & NEED_ARGS) {
    // A provider that reads its arguments lazily (fbt, sdt, pid: registers,
    // then stack words) passes none: the argN the DIFO names are read here,
    // one call each, so that the run reads them without calling out.
    const passed = args.length < 10 ? args.length : 10;
    const named = needs >>> 8;
    const n = passed > named ? passed : named;
    b.i32[B_ARGC >> 2] = n;
    for (let i = 0; i < n; i++) b.u64[(B_ARGS >> 3) + i] = i < passed ? args[i]! : probeArgument(args, rest, i);
  }
  if (needs & NEED_TIMESTAMP) b.u64[B_TIMESTAMP >> 3] = timestamp;
  const nums = B_NUMBERS >> 3;
  if (needs & NEED_IDS) {
    b.f64[nums] = epid;
    b.f64[nums + 1] = probeId;
    b.f64[nums + 2] = cpu;
  }
  if (needs & (NEED_THREAD | NEED_ERRNO)) {
    const th = machine.thread(cpu);
    b.f64[nums + 3] = th.pid;
    b.f64[nums + 4] = th.ppid;
    b.f64[nums + 5] = th.tid;
    b.f64[nums + 6] = th.uid;
    b.f64[nums + 7] = th.gid;
    b.f64[nums + 8] = errno ?? th.errno ?? 0;
  }
  // The DIFO's loads walk guest RAM: the machine's translation registers of now.
  if (needs & (NEED_KERNEL_WALK | NEED_USER_WALK)) machine.guestMemory!.translationRegisters(b.u32, B_TRANSLATION >> 2, (needs & NEED_USER_WALK) !== 0);
}

/** Whether `needs` asks for the ECB's identifiers (epid, id, cpu), which a trampoline writes per ECB. */
export const needsIds = (needs: number): boolean => (needs & NEED_IDS) !== 0;
/** The union of two DIFOs' needs (the highest argN of either). */
export function unionNeeds(a: number, b: number): number {
  return (a | b) & 0xff | (Math.max(a >>> 8, b >>> 8) << 8);
}

/** The runs in progress, innermost last (a run inside another is rare: the outer's block is refilled after it). */
const runningFirings: VmFiring[] = [];
const runningNeeds: number[] = [];
let running = 0;

/**
 * The firing whose DIF runs now: the call-outs of every module read it. A
 * DIFO's own entry (WasmDifo.run) sets it for its run; a probe's trampoline
 * sets it once per ECB whose predicate calls out (setCurrentFiring), with
 * the needs of its block, which a run entered from a call-out of that
 * predicate refills when it returns.
 */
let current: VmFiring | undefined;
let trampolineNeeds = 0;
export function setCurrentFiring(f: VmFiring | undefined, needs = 0): void {
  current = f;
  trampolineNeeds = needs;
}

/**
 * Compiled modules by their bytes: the same small DIFO in many clauses
 * (`ldgs probefunc; ret`), or the same program enabled again, is compiled
 * once (the D compiler's corpus has 206 distinct modules among 385 DIFOs).
 */
const modules = new Map<string, WebAssembly.Module>();
export function compiledModule(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Module {
  let key = '';
  for (let i = 0; i < bytes.length; i += 1024) key += String.fromCharCode(...bytes.subarray(i, i + 1024));
  let m = modules.get(key);
  if (m === undefined) {
    if (modules.size >= 1024) modules.clear();
    m = new WebAssembly.Module(bytes);
    modules.set(key, m);
  }
  return m;
}

/** The helper's registers: filled from its arguments, read back after difStep. */
const helperRegs: bigint[] = new Array<bigint>(256).fill(0n);

/** Ids of translated DIFOs (B_PREDICATE), from 1. */
let nextDifoId = 1;

/** A DIFO translated to WebAssembly. */
export interface WasmDifo {
  /** Runs it in a firing (the block filled for it, the current firing set): what DTraceState calls. */
  readonly run: (f: VmFiring) => bigint;
  /** The module's exported function: what a trampoline imports and calls, the block and current firing being its caller's. */
  readonly exported: () => bigint;
  /** What of the firing block it reads (NEED_ bits). */
  readonly needs: number;
  /** Whether a run may call into JavaScript for more than a division fault: it needs the current firing then. */
  readonly callsOut: boolean;
  /** Its id, which a trampoline writes at B_PREDICATE while it runs it. */
  readonly id: number;
  /** Empties its tuple stack (after a run that faulted or left entries). */
  reset(): void;
}

/**
 * Translates `ld` and returns the function that runs it in a firing, or
 * undefined when it stays with the interpreter
 * (no WebAssembly, or a module over MODULE_LIMIT). Its loads walk the guest
 * RAM of `machine` where it offers it (every firing it runs in must be of
 * that machine).
 */
export function wasmCompile(ld: LoadedDifo, machine?: MachineInterface, table?: ThreadLocalTable): ((f: VmFiring) => bigint) | undefined {
  return wasmTranslate(ld, machine, table)?.run;
}

/**
 * wasmCompile's translation with what a trampoline needs of it. With
 * `table` (the state's dynamic-variable table, dynvar.ts),
 * its integer thread-locals are read and written inline.
 */
export function wasmTranslate(ld: LoadedDifo, machine?: MachineInterface, table?: ThreadLocalTable): WasmDifo | undefined {
  if (typeof WebAssembly === 'undefined') return undefined;
  const text = ld.difo.buf;
  const kinds = loadKinds(text);
  const window = kinds === 0 ? undefined : machine?.guestMemory;
  const walk = window === undefined ? undefined : guestWalk(window);
  const bytes = difoModuleBytes(ld, walk === undefined ? undefined : window!.translation, table);
  if (bytes.length > MODULE_LIMIT) return undefined;
  const inlineVariable = inlineVariables(ld, table);
  const needs = blockNeeds(text, inlineVariable) | (walk === undefined ? 0 : (kinds & 1 ? NEED_KERNEL_WALK : 0) | (kinds & 2 ? NEED_USER_WALK : 0));
  let callsOut = kinds !== 0;
  for (let pc = 0; pc < text.length && !callsOut; pc++) {
    const instr = text[pc]!;
    const op = instr >>> 24;
    if (difCallsOut(op) && !(op === DIF_OP.LDGS && inlineBuiltin((instr >>> 8) & 0xffff)) && !inlineVariable(instr)) callsOut = true;
  }
  const id = nextDifoId++;
  const tuple: TupleEntry[] = [];
  const op = (pc: number, a: bigint, b: bigint, d: bigint): bigint => {
    const instr = text[pc]!;
    const regs = helperRegs;
    regs[(instr >>> 16) & 0xff] = BigInt.asUintN(64, a);
    regs[(instr >>> 8) & 0xff] = BigInt.asUintN(64, b);
    regs[instr & 0xff] = BigInt.asUintN(64, d);
    try {
      const r = difStep(ld, current!, instr, regs, tuple);
      return instr >>> 24 === DIF_OP.SCMP ? BigInt(r) : regs[instr & 0xff]!;
    } catch (e) {
      if (e instanceof DifFault && e.difOffset < 0) e.difOffset = pc * 4;
      throw e;
    }
  };
  const op0 = (pc: number): bigint => {
    const instr = text[pc]!;
    try {
      difStep(ld, current!, instr, helperRegs, tuple);
      return helperRegs[instr & 0xff]!;
    } catch (e) {
      if (e instanceof DifFault && e.difOffset < 0) e.difOffset = pc * 4;
      throw e;
    }
  };
  const load = (pc: number, addr: bigint): bigint => {
    const [size, signed, user] = LOADS.get(text[pc]! >>> 24)!;
    try {
      return loadValue(current!, BigInt.asUintN(64, addr), size, signed, user);
    } catch (e) {
      if (e instanceof DifFault && e.difOffset < 0) e.difOffset = pc * 4;
      throw e;
    }
  };
  const fault = (pc: number): never => {
    throw new DifFault(DTRACEFLT.DIVZERO, 0n, pc * 4);
  };
  const imports: WebAssembly.ModuleImports = { op, fault, op0, load, m: sharedBlock().memory };
  if (walk !== undefined) imports['walk'] = walk;
  if (table !== undefined) {
    const f = table.functions();
    imports['tload'] = f.tload;
    imports['tstore'] = f.tstore;
  }
  const instance = new WebAssembly.Instance(compiledModule(bytes), { d: imports });
  const exported = instance.exports['run'] as () => bigint;
  let busy = false;
  const run = (f: VmFiring): bigint => {
    // The views are taken afresh: the shared memory may have grown since (wmem.ts).
    let b = sharedBlock();
    let counter = b.i32;
    // A DIFO that is already running (a probe fired from inside it) runs the second time in the interpreter.
    if (busy || counter[B_PREDICATE >> 2] === id) return difEmulate(ld, f);
    busy = true;
    const outerFiring = current;
    const outerTrampolineNeeds = trampolineNeeds;
    current = f;
    if (needs !== 0) fillBlock(b, f, needs);
    const depth = running++;
    runningFirings[depth] = f;
    runningNeeds[depth] = needs;
    const outer = counter[B_COUNT >> 2]!;
    counter[B_COUNT >> 2] = 0;
    try {
      return BigInt.asUintN(64, exported());
    } finally {
      b = sharedBlock();
      counter = b.i32;
      f.instructions += counter[B_COUNT >> 2]!;
      counter[B_COUNT >> 2] = outer;
      if (tuple.length !== 0) tuple.length = 0;
      busy = false;
      current = outerFiring;
      trampolineNeeds = outerTrampolineNeeds;
      running = depth;
      if (depth > 0) {
        if (runningNeeds[depth - 1] !== 0) fillBlock(b, runningFirings[depth - 1]!, runningNeeds[depth - 1]!);
      } else if (counter[B_PREDICATE >> 2] !== 0 && outerFiring !== undefined && outerTrampolineNeeds !== 0) {
        // Entered from a call-out of a predicate a trampoline runs: its block again.
        fillBlock(b, outerFiring, outerTrampolineNeeds);
      }
    }
  };
  const reset = (): void => {
    if (tuple.length !== 0) tuple.length = 0;
  };
  return { run, exported, needs, callsOut, id, reset };
}
