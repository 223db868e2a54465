// Run loop, exception entry and the host-facing control surface of the
// ARMv7-A core: reset, run(budget) with the decoded-instruction caches (A32
// and T32), stop reasons, delivering a stopped exception to the guest's
// vector table (ARM ARM B1.8), interrupts, IT-block state, and the
// displaced-execution primitives for both instruction sets.
import {
  S, selectCpu, reg, setRegRaw, st, setSt, cpuCount, readCpsr, writeCpsr, changeMode, currentMode, spsrOf,
  MODE_USR, MODE_SVC, FLAG_N, FLAG_Z, FLAG_C, FLAG_V, MODE_UND, MODE_ABT, MODE_IRQ, MODE_FIQ, PSR_I, PSR_F, PSR_A, PSR_T, PSR_E, CPSR_CTL,
  CP15_SCTLR, CP15_VBAR, CP15_DFSR, CP15_DFAR, CP15_IFSR, CP15_IFAR, RETIRED, STOP_REASON, STOP_PC, STOP_WORD,
  FAULT_ADDR, FAULT_STATUS, IRQ_LINE, FIQ_LINE, WAITING, STOP_MASK, PENDING_EXC, CPU_ID, EXCL_OPEN, STATE_SIZE, statesBase,
  fetchValid, setFetchValid, setRunning, stateBlock, setLiveDone, stopRequested, setStopRequested, isRunning, IT_STATE, itAdvance, itWritten,
  clearItWritten, invalidateFetch,
} from './state';
import {
  translate, aborted, clearAbort, ACC_FETCH, ramBase, ramSize, decodeTags, DECODE_ENTRIES, DECODE_SHIFT, DECODE_ENTRY_SIZE, configureMemory, tlbFlush,
  cpuTlb, ramAccess as ramAccessIn, invalidateCodeWord, P_PRIV_R, P_PRIV_W, P_USER_R, P_USER_W, thumbDecodeTags, THUMB_DECODE_ENTRIES, markThumbPage,
} from './memory';
import {
  fastRecord, K_MOV_I, K_ADD_I, K_RSB_I, K_AND_I, K_ORR_I, K_EOR_I, K_MOV_R, K_MVN_R, K_ADD_R, K_SUB_R, K_RSB_R, K_AND_R, K_ORR_R,
  K_EOR_R, K_BIC_R, K_MOVT, K_CMP_I, K_CMN_I, K_CMP_R, K_CMN_R, K_TST_I, K_TST_R, K_ADDS_I, K_SUBS_I, K_ADDS_R, K_SUBS_R, K_MUL, K_MLA,
  K_UXTB, K_UXTH, K_SXTB, K_SXTH, K_LDR_I, K_STR_I, K_LDRB_I, K_STRB_I, K_LDR_R, K_STR_R, K_LDRB_R, K_STRB_R, K_B, K_BL, K_BX,
  K_LDR_IW, K_STR_IW, K_LDRB_IW, K_STRB_IW, K_FUSABLE, K_FUSABLE_COUNT, K_MOVS_I, K_MOVS_R, K_MVNS_R, K_ANDS_R, K_ORRS_R, K_EORS_R, K_BICS_R,
  K_BX_T, K_BCOND, K_LDR_PC, K_ADD_PC, K_SHIFTS_I, K_BCOND_W, thumbFastRecord,
} from './fast';
import {
  beginInstruction, beginThumbInstruction, clearRaised, conditionPassed, pcWritten, raised, EXC_UNDEF, EXC_SVC, EXC_PABT, EXC_DABT, EXC_IRQ, EXC_FIQ,
  EXC_BKPT, EXC_DTRACE, EXC_WFI,
} from './semantics';
import { decodeA32, PURE } from './generated/a32-decoder';
import { fastTrap, fastSitesOn } from './fastsite';
import { HANDLERS } from './generated/a32-dispatch';
import { decodeT16, decodeT32, isT32Wide, T32_CLASS, T32_REGISTER_FIELDS } from './generated/t32-decoder';
import { HANDLERS as T32_HANDLERS } from './generated/t32-dispatch';

// ---- Stop reasons returned by run() ----
export const STOP_BUDGET: u32 = 1; // instruction budget used up
export const STOP_HALT: u32 = 2; // wfi with no interrupt pending
export const STOP_DTRACE: u32 = 3; // the DTrace breakpoint (UDF 0xe7f000f<cond>), condition passed
export const STOP_BKPT: u32 = 4; // bkpt
export const STOP_UNDEFINED: u32 = 5; // undefined or unimplemented instruction
export const STOP_PREFETCH_ABORT: u32 = 6;
export const STOP_DATA_ABORT: u32 = 7;
export const STOP_SVC: u32 = 8; // only when SVC is in the stop mask
export const STOP_TRAPPED: u32 = 9; // the host's trap import, called inside the run, ended it (setTrapHook)

/** Stop-mask bits: 1 << EXC_* for exceptions that stop to the host instead of entering the guest vector. */
export const DEFAULT_STOP_MASK: u32 = (1 << EXC_UNDEF) | (1 << EXC_PABT) | (1 << EXC_DABT) | (1 << EXC_BKPT) | (1 << EXC_DTRACE);

/** The CPU of the latest run() call (-1: none yet). */
let lastRunCpu: i32 = -1;

// ---- Traps taken inside the run ----
//
// With the hook on, a stop for a trap (the DTrace breakpoint, bkpt, an
// undefined instruction: reasons STOP_DTRACE to STOP_UNDEFINED) does not
// leave run(): the stop is recorded as for a return (STOP_PC, STOP_WORD,
// PENDING_EXC, r15 = the trapping instruction), the instructions so far
// retire, and the host's `trap(cpu, reason)` import is called right there.
// The host handles the trap as it would after a return — it may call any
// export, on any CPU, except run() — and answers how many more instructions
// this run may execute, or -1 to end it (run() then returns STOP_TRAPPED).
// The run goes on from the CPU's state as the host left it, as a new run()
// call on the same CPU would, without leaving and re-entering WebAssembly.

@external('env', 'trap')
declare function hostTrap(cpu: i32, reason: i32): i32;

/** Whether traps call the host inside run() (setTrapHook). */
let trapHook: bool = false;
/** Set while the host's trap import runs: run() may not be called then. */
let inHostTrap: bool = false;

/** Turns on (1) or off (0) calling the host's `trap` import from inside run() for traps. */
export function setTrapHook(on: u32): void {
  trapHook = on != 0;
}

/** Lays out memory for `cpus` CPUs and `ramBytes` of RAM and resets every CPU. 0 on success, -1 on failure. */
export function init(cpus: u32, ramBytes: u32): i32 {
  if (cpus == 0 || cpus > 64) return -1;
  if (configureMemory(cpus, ramBytes) != 0) return -1;
  lastRunCpu = -1;
  for (let c: u32 = 0; c < cpus; c++) reset(c);
  return 0;
}

/** Architectural reset of one CPU: SVC mode, interrupts masked, MMU off, pc = 0. */
export function reset(cpu: u32): void {
  selectCpu(cpu);
  memory.fill(S, 0, STATE_SIZE);
  setSt(CPU_ID, cpu);
  setSt(CPSR_CTL, 0x1f); // start in SYS so the first mode change banks cleanly
  writeCpsr(MODE_SVC | PSR_I | PSR_F | PSR_A);
  setSt(CP15_SCTLR, 0x00c50078);
  setSt(STOP_MASK, DEFAULT_STOP_MASK);
  setRegRaw(15, 0);
  tlbFlush();
}

function stopFor(exc: u32): u32 {
  switch (exc) {
    case EXC_UNDEF: return STOP_UNDEFINED;
    case EXC_PABT: return STOP_PREFETCH_ABORT;
    case EXC_DABT: return STOP_DATA_ABORT;
    case EXC_BKPT: return STOP_BKPT;
    case EXC_DTRACE: return STOP_DTRACE;
    case EXC_SVC: return STOP_SVC;
    default: return STOP_UNDEFINED;
  }
}

/**
 * Exception entry (B1.8.3-B1.8.10): banks the CPSR (ITSTATE included) into
 * the target mode's SPSR, sets the return link and jumps through the vector
 * table. `pc` is the address of the instruction the exception is about (for
 * interrupts, the next one to execute). The link (B1.8.3, table B1-7): pc +
 * 4 for svc and undefined instructions from A32, pc + 2 from T32 (16-bit
 * svc; the T32 undefined instruction's address + 2 whatever its size, as
 * qemu does too); pc + 4 for prefetch aborts, bkpt and interrupts, pc + 8
 * for data aborts, in either state. The handler runs in Thumb state when
 * SCTLR.TE is set.
 */
export function takeException(exc: u32, pc: u32): void {
  let mode: u32;
  let offset: u32;
  let lr: u32;
  let mask: u32 = PSR_I;
  const narrow: u32 = (st(CPSR_CTL) & PSR_T) != 0 ? 2 : 4;
  switch (exc) {
    case EXC_SVC: mode = MODE_SVC; offset = 0x08; lr = pc + narrow; break;
    case EXC_PABT: case EXC_BKPT: mode = MODE_ABT; offset = 0x0c; lr = pc + 4; mask |= PSR_A; break;
    case EXC_DABT: mode = MODE_ABT; offset = 0x10; lr = pc + 8; mask |= PSR_A; break;
    case EXC_IRQ: mode = MODE_IRQ; offset = 0x18; lr = pc + 4; mask |= PSR_A; break;
    case EXC_FIQ: mode = MODE_FIQ; offset = 0x1c; lr = pc + 4; mask |= PSR_A | PSR_F; break;
    default: mode = MODE_UND; offset = 0x04; lr = pc + narrow; break; // undefined, DTrace breakpoint
  }
  const saved = readCpsr();
  changeMode(mode);
  setSt(spsrOf(mode), saved);
  setSt(IT_STATE, 0);
  setRegRaw(14, lr);
  // T from SCTLR.TE, E from SCTLR.EE (0): little-endian.
  const sctlr = st(CP15_SCTLR);
  const thumb: u32 = (sctlr & (1 << 30)) != 0 ? PSR_T : 0;
  setSt(CPSR_CTL, (((st(CPSR_CTL) | mask) & ~(PSR_T | PSR_E)) | thumb));
  invalidateFetch();
  const base = (sctlr & (1 << 13)) ? 0xffff0000 : st(CP15_VBAR);
  setRegRaw(15, base + offset);
  setSt(EXCL_OPEN, 0);
  setSt(WAITING, 0);
  if (exc == EXC_DABT) {
    setSt(CP15_DFSR, st(FAULT_STATUS));
    setSt(CP15_DFAR, st(FAULT_ADDR));
  } else if (exc == EXC_PABT) {
    setSt(CP15_IFSR, st(FAULT_STATUS));
    setSt(CP15_IFAR, st(FAULT_ADDR));
  } else if (exc == EXC_BKPT) {
    setSt(CP15_IFSR, 0x2); // debug event
  }
}

/** Records a stop for `exc` at `pc` (the instruction is not executed) and returns its reason. */
function stopWith(exc: u32, pc: u32, word: u32): u32 {
  setSt(PENDING_EXC, exc);
  setSt(STOP_PC, pc);
  setSt(STOP_WORD, word);
  setRegRaw(15, pc);
  const reason = stopFor(exc);
  setSt(STOP_REASON, reason);
  return reason;
}


/**
 * Whether the instruction can take the run loop's short path: a @pure
 * encoding none of whose register fields is r15, so it reads no pc, writes
 * no pc, touches no memory and raises nothing.
 */
@inline function shortPathClass(op: u32, word: u32): u32 {
  const kind = u32(load<u8>(PURE + usize(op)));
  if (kind == 0) return 0;
  if (kind == 3) return (word & 0x0e000000) == 0x0a000000 || (word & 15) != 15 ? 3 : 0; // b/bl, or bx rm (rm != pc)
  if (kind == 4) return (word & 0x8000) == 0 && ((word >>> 16) & 15) != 15 ? 4 : 0;
  if (((word >>> 16) & 15) == 15 || ((word >>> 12) & 15) == 15) return 0;
  // Register fields in bits 11:8 and 3:0 (pure forms; mem register offsets use 3:0).
  if (kind == 1 && (((word >>> 8) & 15) == 15 || (word & 15) == 15)) return 0;
  if (kind == 2 && (word & 15) == 15) return 0;
  return kind;
}

/** Function-table index of the handler for an Op id. */
@inline function handlerIndex(op: u32): u32 {
  return load<u32>(changetype<usize>(unchecked(HANDLERS[op])));
}

/**
 * Fills the decode-cache entry for the instruction at `pa`: +0 tag, +4 the
 * word, +8 the handler's table index, +12 the Op id and run-loop class,
 * +16 the specialised record (assembly/fast.ts).
 */
function decodeInto(entry: usize, pa: u32): void {
  const word = load<u32>(ramBase + usize(pa));
  const op = decodeA32(word);
  store<u32>(entry, pa | 1);
  store<u32>(entry, word, 4);
  store<u32>(entry, handlerIndex(op), 8);
  store<u32>(entry, op | (shortPathClass(op, word) << 30), 12);
  fastRecord(op, word, entry + 16);
}

/** T32 handler's function-table index for a TOp id. */
@inline function thumbHandlerIndex(op: u32): u32 {
  return load<u32>(changetype<usize>(unchecked(T32_HANDLERS[op])));
}

/**
 * The T32 run-loop class (t32.decode's flags, as shortPathClass for A32):
 * 0 when a 4-bit register field names r15, for stm with r15 in its list and
 * for branches (they take the full step).
 */
@inline function thumbShortClass(op: u32, value: u32, wide: bool): u32 {
  const kind = u32(load<u8>(T32_CLASS + usize(op)));
  if (kind == 0 || kind == 3) return 0;
  let fields = load<u32>(T32_REGISTER_FIELDS + (usize(op) << 2));
  while (fields != 0) {
    if (((value >>> ctz<u32>(fields)) & 15) == 15) return 0;
    fields &= fields - 1;
  }
  if (kind == 4 && wide && (value & 0x8000) != 0) return 0;
  return kind;
}

/**
 * Fills the T32 decode-cache entry for the instruction at `pa` (its page
 * holds both halfwords of a 32-bit one): +0 tag, +4 the halfword or first
 * << 16 | second, +8 the handler's table index, +12 the TOp id | 32-bit
 * << 29 | run-loop class << 30, +16 the specialised record (assembly/fast.ts).
 */
function decodeThumbInto(entry: usize, pa: u32): void {
  const first = u32(load<u16>(ramBase + usize(pa)));
  let value = first;
  let op: u32;
  const wide = isT32Wide(first);
  if (wide) {
    value = (first << 16) | u32(load<u16>(ramBase + usize(pa) + 2));
    op = decodeT32(value);
  } else op = decodeT16(first);
  store<u32>(entry, pa | 1);
  store<u32>(entry, value, 4);
  store<u32>(entry, thumbHandlerIndex(op), 8);
  store<u32>(entry, op | (u32(wide) << 29) | (thumbShortClass(op, value, wide) << 30), 12);
  thumbFastRecord(op, value, entry + 16);
  markThumbPage(pa);
}

/** The decoded TOp of a T32 instruction value (a halfword, or first << 16 | second). */
export function decodeThumbValue(value: u32): u32 {
  if (value > 0xffff) return decodeT32(value);
  return isT32Wide(value) ? 0 : decodeT16(value);
}

// Context of the inline loads and stores, set at every instruction boundary
// the outer loop of run() sees: constant-address loads keep it out of the
// inner loop's registers.
const CTX: usize = memory.data(64, 16);
const CTX_MMU: usize = 0; // SCTLR.M
const CTX_ALIGN: usize = 4; // 3 with SCTLR.A set, else 0
const CTX_NEED_R: usize = 8; // TLB permission bit a read needs
const CTX_NEED_W: usize = 12; // ... and a write
const CTX_TLB: usize = 16; // the running CPU's TLB
const CTX_STALLED: usize = 20; // prefetch aborts taken in-guest in this run() call
const CTX_BUDGET: usize = 24; // the run() call's budget
const CTX_PAGE_VA: usize = 28; // the cached code page: virtual base, or 1 for none
const CTX_PAGE_PA: usize = 32; // ... and its physical base

/** fetchMiss results that are not a physical address (those are word aligned). */
const FETCH_TAKEN: u32 = 1; // a prefetch abort entered the guest's vector
const FETCH_STOPPED: u32 = 3; // a stop: its reason is in fetchStopReason
let fetchStopReason: u32 = 0;

/**
 * Fetch translation when `pc` is not in the cached code page: the physical
 * address of the instruction (caching its page when all of it is RAM), or
 * a prefetch abort (taken in-guest or stopped). Results FETCH_TAKEN and
 * FETCH_STOPPED are odd; instruction addresses are even in both states.
 */
function fetchMiss(pc: u32): u32 {
  setRegRaw(15, pc);
  const align: u32 = (st(CPSR_CTL) & PSR_T) != 0 ? 1 : 3;
  clearAbort();
  const pa = translate(pc, ACC_FETCH);
  if (aborted) {
    clearAbort();
    const r = exceptionOrStop(EXC_PABT, pc, 0);
    if (r != 0) {
      fetchStopReason = r;
      return FETCH_STOPPED;
    }
    return FETCH_TAKEN;
  }
  if (pa > ramSize - (align + 1) || ramSize < 4 || (pc & align) != 0) {
    // Executing outside RAM (device window or nothing), or misaligned: prefetch abort.
    setSt(FAULT_ADDR, pc);
    setSt(FAULT_STATUS, (pc & align) != 0 ? 0x01 : 0x08);
    const r = exceptionOrStop(EXC_PABT, pc, 0);
    if (r != 0) {
      fetchStopReason = r;
      return FETCH_STOPPED;
    }
    return FETCH_TAKEN;
  }
  // Cache the page only when all of it is RAM.
  if ((pa | 0xfff) < ramSize) {
    store<u32>(CTX, pc & 0xfffff000, CTX_PAGE_VA);
    store<u32>(CTX, pa & 0xfffff000, CTX_PAGE_PA);
    setFetchValid();
  } else store<u32>(CTX, 1, CTX_PAGE_VA);
  return pa;
}

/**
 * After a fetch that did not give an address: the stop reason, or 0 when a
 * prefetch abort was taken in-guest and the run goes on at the vector. Such
 * an exception entry retires nothing; a vector whose fetch aborts too must
 * still hand control back once the budget is spent.
 */
@inline function fetchFailed(result: u32): u32 {
  if (result == FETCH_STOPPED) return fetchStopReason;
  return stalledOut() ? STOP_BUDGET : 0;
}

/** Counts a prefetch abort taken in-guest; true when as many as the budget have been (the run ends). */
@inline function stalledOut(): bool {
  const n = load<u32>(CTX, CTX_STALLED) + 1;
  store<u32>(CTX, n, CTX_STALLED);
  return n >= load<u32>(CTX, CTX_BUDGET);
}
@inline function alignMask(): u32 {
  return load<u32>(CTX, CTX_ALIGN);
}
@inline function needR(): u32 {
  return load<u32>(CTX, CTX_NEED_R);
}
@inline function needW(): u32 {
  return load<u32>(CTX, CTX_NEED_W);
}
/** ramAccess (assembly/memory.ts) in the current context. */
@inline function ramAccess(va: u32, size: u32, need: u32): usize {
  return ramAccessIn(va, size, load<u32>(CTX, CTX_MMU) != 0, usize(load<u32>(CTX, CTX_TLB)), need);
}

// Fields of a specialised record (assembly/fast.ts), each loaded only by the forms that use it.
@inline function recA(entry: usize): usize {
  return usize(load<u8>(entry, 17));
}
@inline function recB(entry: usize): usize {
  return usize(load<u8>(entry, 18));
}
@inline function recC(entry: usize): usize {
  return usize(load<u8>(entry, 19));
}
@inline function recImm(entry: usize): u32 {
  return load<u32>(entry, 20);
}
@inline function recExtra(entry: usize): u32 {
  return load<u32>(entry, 24);
}

// Register access by state-block byte offset (the specialised records hold offsets).
@inline function rOff(off: usize): u32 {
  return load<u32>(S + off);
}
@inline function setROff(off: usize, v: u32): void {
  store<u32>(S + off, v);
}

/** A register offset of a load/store: shifted, and negated when the record's extra has 0x80 (U = 0). */
@inline function offsetOf(v: u32, extra: u32): u32 {
  const o = shifted(v, extra & 0x7f);
  return (extra & 0x80) != 0 ? 0 - o : o;
}

/** A register operand's immediate shift without carry out (record form: type | imm5 << 2). */
@inline function shifted(v: u32, sh: u32): u32 {
  if (sh == 0) return v;
  const amount = sh >>> 2;
  switch (sh & 3) {
    case 0: return v << amount;
    case 1: return amount == 0 ? 0 : v >>> amount;
    case 2: return u32(i32(v) >> (amount == 0 ? 31 : amount));
    default: return amount == 0 ? (st(FLAG_C) << 31) | (v >>> 1) : rotr<u32>(v, amount);
  }
}

@inline function setNZ(r: u32): void {
  setSt(FLAG_N, r >>> 31);
  setSt(FLAG_Z, u32(r == 0));
}
/** Flags of a - b (SUB, CMP). */
@inline function subFlags(a: u32, b: u32, r: u32): void {
  setNZ(r);
  setSt(FLAG_C, u32(a >= b));
  setSt(FLAG_V, ((a ^ b) & (a ^ r)) >>> 31);
}
/** Flags of a + b (ADD, CMN). */
@inline function addFlags(a: u32, b: u32, r: u32): void {
  setNZ(r);
  setSt(FLAG_C, u32(r < a));
  setSt(FLAG_V, (~(a ^ b) & (a ^ r)) >>> 31);
}

/** What inlineForm returns when the inline path does not apply (instruction addresses are even). */
const NOT_INLINE: u32 = 1;

/**
 * Executes the specialised form `kind` (assembly/fast.ts) of the decoded
 * instruction at `entry` from its record — the same forms for A32 and T32 —
 * and returns the next pc: `pc` + `size` (the instruction's address and
 * size), a branch target (bl links to `link`), or NOT_INLINE when the
 * inline path does not apply (a load or store that needs the walk, a
 * device or alignment checking, a bx that changes instruction set): the
 * handler then runs.
 */
@inline function inlineForm(kind: u32, entry: usize, pc: u32, size: u32, link: u32): u32 {
  switch (kind) {
    case K_MOV_I: setROff(recA(entry), recImm(entry)); return pc + size;
    case K_ADD_I: setROff(recA(entry), rOff(recB(entry)) + recImm(entry)); return pc + size;
    case K_RSB_I: setROff(recA(entry), recImm(entry) - rOff(recB(entry))); return pc + size;
    case K_AND_I: setROff(recA(entry), rOff(recB(entry)) & recImm(entry)); return pc + size;
    case K_ORR_I: setROff(recA(entry), rOff(recB(entry)) | recImm(entry)); return pc + size;
    case K_EOR_I: setROff(recA(entry), rOff(recB(entry)) ^ recImm(entry)); return pc + size;
    case K_MOV_R: setROff(recA(entry), shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_MVN_R: setROff(recA(entry), ~shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_ADD_R: setROff(recA(entry), rOff(recB(entry)) + shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_SUB_R: setROff(recA(entry), rOff(recB(entry)) - shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_RSB_R: setROff(recA(entry), shifted(rOff(recC(entry)), recExtra(entry)) - rOff(recB(entry))); return pc + size;
    case K_AND_R: setROff(recA(entry), rOff(recB(entry)) & shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_ORR_R: setROff(recA(entry), rOff(recB(entry)) | shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_EOR_R: setROff(recA(entry), rOff(recB(entry)) ^ shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_BIC_R: setROff(recA(entry), rOff(recB(entry)) & ~shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_MOVT: setROff(recA(entry), (rOff(recA(entry)) & 0xffff) | recImm(entry)); return pc + size;
    case K_CMP_I: {
      const x = rOff(recB(entry));
      subFlags(x, recImm(entry), x - recImm(entry));
      return pc + size;
    }
    case K_CMN_I: {
      const x = rOff(recB(entry));
      addFlags(x, recImm(entry), x + recImm(entry));
      return pc + size;
    }
    case K_CMP_R: {
      const x = rOff(recB(entry));
      const y = shifted(rOff(recC(entry)), recExtra(entry));
      subFlags(x, y, x - y);
      return pc + size;
    }
    case K_CMN_R: {
      const x = rOff(recB(entry));
      const y = shifted(rOff(recC(entry)), recExtra(entry));
      addFlags(x, y, x + y);
      return pc + size;
    }
    case K_TST_I: {
      setNZ(rOff(recB(entry)) & recImm(entry));
      if (recExtra(entry)) setSt(FLAG_C, recImm(entry) >>> 31);
      return pc + size;
    }
    case K_TST_R: setNZ(rOff(recB(entry)) & rOff(recC(entry))); return pc + size;
    case K_ADDS_I: {
      const x = rOff(recB(entry));
      const r = x + recImm(entry);
      setROff(recA(entry), r);
      addFlags(x, recImm(entry), r);
      return pc + size;
    }
    case K_SUBS_I: {
      const x = rOff(recB(entry));
      const r = x - recImm(entry);
      setROff(recA(entry), r);
      subFlags(x, recImm(entry), r);
      return pc + size;
    }
    case K_ADDS_R: {
      const x = rOff(recB(entry));
      const y = shifted(rOff(recC(entry)), recExtra(entry));
      const r = x + y;
      setROff(recA(entry), r);
      addFlags(x, y, r);
      return pc + size;
    }
    case K_SUBS_R: {
      const x = rOff(recB(entry));
      const y = shifted(rOff(recC(entry)), recExtra(entry));
      const r = x - y;
      setROff(recA(entry), r);
      subFlags(x, y, r);
      return pc + size;
    }
    case K_MUL: setROff(recA(entry), rOff(recB(entry)) * rOff(recC(entry))); return pc + size;
    case K_MLA: setROff(recA(entry), rOff(recB(entry)) * rOff(recC(entry)) + rOff(usize(recExtra(entry)))); return pc + size;
    case K_UXTB: setROff(recA(entry), rotr<u32>(rOff(recC(entry)), recExtra(entry)) & 0xff); return pc + size;
    case K_UXTH: setROff(recA(entry), rotr<u32>(rOff(recC(entry)), recExtra(entry)) & 0xffff); return pc + size;
    case K_SXTB: setROff(recA(entry), u32(i32(i8(rotr<u32>(rOff(recC(entry)), recExtra(entry)))))); return pc + size;
    case K_SXTH: setROff(recA(entry), u32(i32(i16(rotr<u32>(rOff(recC(entry)), recExtra(entry)))))); return pc + size;
    case K_LDR_I: case K_LDR_R: {
      const va = rOff(recB(entry)) + (kind == K_LDR_I ? recImm(entry) : offsetOf(rOff(recC(entry)), recExtra(entry)));
      const p = ramAccess(va, 4, needR());
      if (p == 0 || (va & alignMask()) != 0) return NOT_INLINE;
      setROff(recA(entry), load<u32>(p));
      return pc + size;
    }
    case K_LDRB_I: case K_LDRB_R: {
      const va = rOff(recB(entry)) + (kind == K_LDRB_I ? recImm(entry) : offsetOf(rOff(recC(entry)), recExtra(entry)));
      const p = ramAccess(va, 1, needR());
      if (p == 0) return NOT_INLINE;
      setROff(recA(entry), load<u8>(p));
      return pc + size;
    }
    case K_STR_I: case K_STR_R: {
      const va = rOff(recB(entry)) + (kind == K_STR_I ? recImm(entry) : offsetOf(rOff(recC(entry)), recExtra(entry)));
      const p = ramAccess(va, 4, needW());
      if (p == 0 || (va & alignMask()) != 0) return NOT_INLINE;
      store<u32>(p, rOff(recA(entry)));
      const pa = u32(p - ramBase);
      invalidateCodeWord(pa);
      if (pa & 3) invalidateCodeWord(pa + 4);
      return pc + size;
    }
    case K_STRB_I: case K_STRB_R: {
      const va = rOff(recB(entry)) + (kind == K_STRB_I ? recImm(entry) : offsetOf(rOff(recC(entry)), recExtra(entry)));
      const p = ramAccess(va, 1, needW());
      if (p == 0) return NOT_INLINE;
      store<u8>(p, u8(rOff(recA(entry))));
      invalidateCodeWord(u32(p - ramBase));
      return pc + size;
    }
    case K_LDR_IW: case K_LDRB_IW: {
      const base = rOff(recB(entry));
      const next = base + recImm(entry);
      const va = recExtra(entry) != 0 ? next : base;
      const bytes: u32 = kind == K_LDR_IW ? 4 : 1;
      const p = ramAccess(va, bytes, needR());
      if (p == 0 || (va & (bytes - 1) & alignMask()) != 0) return NOT_INLINE;
      setROff(recA(entry), bytes == 4 ? load<u32>(p) : u32(load<u8>(p)));
      setROff(recB(entry), next);
      return pc + size;
    }
    case K_STR_IW: case K_STRB_IW: {
      const base = rOff(recB(entry));
      const next = base + recImm(entry);
      const va = recExtra(entry) != 0 ? next : base;
      const bytes: u32 = kind == K_STR_IW ? 4 : 1;
      const p = ramAccess(va, bytes, needW());
      if (p == 0 || (va & (bytes - 1) & alignMask()) != 0) return NOT_INLINE;
      const v = rOff(recA(entry));
      const pa = u32(p - ramBase);
      if (bytes == 4) {
        store<u32>(p, v);
        if (pa & 3) invalidateCodeWord(pa + 4);
      } else store<u8>(p, u8(v));
      invalidateCodeWord(pa);
      setROff(recB(entry), next);
      return pc + size;
    }
    case K_MOVS_I: {
      const r = recImm(entry);
      setROff(recA(entry), r);
      setNZ(r);
      return pc + size;
    }
    case K_MOVS_R: case K_MVNS_R: {
      const x = rOff(recC(entry));
      const r = kind == K_MOVS_R ? x : ~x;
      setROff(recA(entry), r);
      setNZ(r);
      return pc + size;
    }
    case K_ANDS_R: case K_ORRS_R: case K_EORS_R: case K_BICS_R: {
      const x = rOff(recB(entry));
      const y = rOff(recC(entry));
      const r = kind == K_ANDS_R ? x & y : kind == K_ORRS_R ? x | y : kind == K_EORS_R ? x ^ y : x & ~y;
      setROff(recA(entry), r);
      setNZ(r);
      return pc + size;
    }
    case K_B: return pc + recImm(entry);
    case K_BL: {
      setRegRaw(14, link);
      return pc + recImm(entry);
    }
    case K_BX: {
      const target = rOff(recC(entry));
      return (target & 1) == 0 ? target & ~3 : NOT_INLINE; // to Thumb: the full path changes CPSR.T
    }
    case K_BX_T: {
      const target = rOff(recC(entry));
      return (target & 1) != 0 ? target & ~1 : NOT_INLINE; // to ARM: the full path changes CPSR.T
    }
    case K_BCOND: case K_BCOND_W: return conditionPassed(recExtra(entry)) ? pc + recImm(entry) : pc + size;
    case K_ADD_PC: setROff(recA(entry), pc + recImm(entry) + shifted(rOff(recC(entry)), recExtra(entry))); return pc + size;
    case K_SHIFTS_I: {
      const x = rOff(recC(entry));
      const sh = recExtra(entry);
      const n = sh >>> 2;
      let r: u32;
      let carry: u32;
      if ((sh & 3) == 0) {
        r = x << n;
        carry = (x >>> (32 - n)) & 1;
      } else if ((sh & 3) == 1) {
        r = n == 32 ? 0 : x >>> n;
        carry = (x >>> (n - 1)) & 1;
      } else {
        r = u32(i32(x) >> (n == 32 ? 31 : n));
        carry = u32(i32(x) >> (n - 1)) & 1;
      }
      setROff(recA(entry), r);
      setNZ(r);
      setSt(FLAG_C, carry);
      return pc + size;
    }
    case K_LDR_PC: {
      const va = ((pc + 4) & ~3) + recImm(entry);
      const p = ramAccess(va, 4, needR());
      if (p == 0 || (va & alignMask()) != 0) return NOT_INLINE;
      setROff(recA(entry), load<u32>(p));
      return pc + size;
    }
  }
  return NOT_INLINE;
}

/** Executes one decoded instruction at pc; returns a stop reason or 0. */
@inline function step(pc: u32, word: u32, handler: u32): u32 {
  const cond = word >>> 28;
  if (cond < 14 && !conditionPassed(cond)) {
    setRegRaw(15, pc + 4);
    return 0;
  }
  beginInstruction(pc);
  clearAbort();
  call_indirect<void>(handler, word);
  if (aborted) {
    clearAbort();
    return exceptionOrStop(EXC_DABT, pc, word);
  }
  if (raised) return raisedException(pc, word);
  if (!pcWritten) setRegRaw(15, pc + 4);
  return 0;
}

/** wfi at pc (the next instruction at `next`): halts until an interrupt line is high. */
function waitForInterrupt(pc: u32, next: u32): u32 {
  setRegRaw(15, next);
  if (interruptLineHigh()) return 0;
  setSt(WAITING, 1);
  setSt(STOP_PC, pc);
  setSt(STOP_REASON, STOP_HALT);
  return STOP_HALT;
}

function raisedException(pc: u32, word: u32): u32 {
  const exc = raised;
  if (exc == EXC_WFI) return waitForInterrupt(pc, pc + 4);
  if (exc == EXC_DTRACE) {
    // The displaced instruction's condition rides in the breakpoint's low nibble.
    if (!conditionPassed(word & 0xf)) {
      setRegRaw(15, pc + 4);
      return 0;
    }
  }
  return exceptionOrStop(exc, pc, word);
}

/**
 * Executes one T32 instruction at pc (`value` as decoded, `size` 2 or 4)
 * under ITSTATE (A2.5.2): inside an IT block it runs only when the block's
 * current condition passes (bkpt always), and ITSTATE then advances, unless
 * the instruction wrote it (IT, an exception return). An exception raised
 * by the instruction leaves ITSTATE as it was, except svc, whose return
 * address is the next instruction. Returns a stop reason or 0.
 */
function stepThumb(pc: u32, value: u32, handler: u32, size: u32): u32 {
  const it = st(IT_STATE);
  if (it != 0 && !conditionPassed(it >>> 4) && !(size == 2 && (value & 0xff00) == 0xbe00)) {
    setSt(IT_STATE, itAdvance(it));
    setRegRaw(15, pc + size);
    return 0;
  }
  beginThumbInstruction(pc, size);
  clearAbort();
  clearItWritten();
  call_indirect<void>(handler, value);
  if (aborted) {
    clearAbort();
    setRegRaw(15, pc);
    return exceptionOrStop(EXC_DABT, pc, value);
  }
  if (raised) return raisedThumb(pc, value, it, size);
  if (!itWritten) setSt(IT_STATE, itAdvance(it));
  if (!pcWritten) setRegRaw(15, pc + size);
  return 0;
}

function raisedThumb(pc: u32, value: u32, it: u32, size: u32): u32 {
  const exc = raised;
  if (exc == EXC_WFI || exc == EXC_SVC) setSt(IT_STATE, itAdvance(it));
  if (exc == EXC_WFI) return waitForInterrupt(pc, pc + size);
  return exceptionOrStop(exc, pc, value);
}

/** What stepAcrossPages returns when the second halfword's fetch took a prefetch abort in-guest (nothing retired). */
const NOTHING_RETIRED: u32 = 0xffffffff;

/** Runs a 32-bit T32 instruction whose second halfword is on the next page, fetched uncached. */
function stepAcrossPages(pc: u32, pa: u32): u32 {
  const first = u32(load<u16>(ramBase + usize(pa)));
  clearAbort();
  const second = translate(pc + 2, ACC_FETCH);
  if (aborted != 0 || second > ramSize - 2) {
    if (aborted == 0) {
      setSt(FAULT_ADDR, pc + 2);
      setSt(FAULT_STATUS, 0x08);
    }
    clearAbort();
    setRegRaw(15, pc);
    const r = exceptionOrStop(EXC_PABT, pc, 0);
    return r != 0 ? r : NOTHING_RETIRED;
  }
  const value = (first << 16) | u32(load<u16>(ramBase + usize(second)));
  return stepThumb(pc, value, thumbHandlerIndex(decodeT32(value)), 4);
}

function exceptionOrStop(exc: u32, pc: u32, word: u32): u32 {
  if (st(STOP_MASK) & (1 << exc)) return stopWith(exc, pc, word);
  takeException(exc, pc);
  return 0;
}

/** WFI wakes on an asserted interrupt line even when CPSR masks it (B1.8.13). */
@inline function interruptLineHigh(): bool {
  return (st(IRQ_LINE) | st(FIQ_LINE)) != 0;
}

/** The Thumb inner loop's pc and stop reason when it returns (its result is the retired count). */
let thumbLoopPc: u32 = 0;
let thumbLoopReason: u32 = 0;

/**
 * The inner loop of run() in Thumb state, from `pc` with `done` retired,
 * while done < `limit`: run()'s A32 loop in the T32 shape, with halfword
 * fetch, the T32 decode cache and ITSTATE. Returns the retired count; the pc
 * and a stop reason (0 when none) in thumbLoopPc and thumbLoopReason.
 * Instructions inside an IT block take the full step, which checks the
 * block's condition and advances it; only a full step changes ITSTATE, and
 * each leaves the loop, so ITSTATE is read once per call.
 */
function thumbLoop(pc: u32, done: u32, limit: u32): u32 {
  const inItBlock = st(IT_STATE) != 0;
  let reason: u32 = 0;
  while (done < limit) {
    let pa: u32;
    if (((pc ^ load<u32>(CTX, CTX_PAGE_VA)) & 0xfffff001) == 0) {
      pa = load<u32>(CTX, CTX_PAGE_PA) | (pc & 0xfff);
    } else {
      limit = 0;
      pa = fetchMiss(pc);
      if (pa & 1) {
        const r = fetchFailed(pa);
        if (r != 0) { reason = r; break; }
        pc = reg(15);
        continue;
      }
    }
    const entry = thumbDecodeTags + (usize((pa >>> 1) & (THUMB_DECODE_ENTRIES - 1)) << DECODE_SHIFT);
    if (load<u32>(entry) != (pa | 1)) {
      if ((pa & 0xffe) == 0xffe && isT32Wide(u32(load<u16>(ramBase + usize(pa))))) {
        limit = 0;
        setLiveDone(done);
        const r = stepAcrossPages(pc, pa);
        pc = reg(15);
        if (r == NOTHING_RETIRED) {
          if (stalledOut()) { reason = STOP_BUDGET; break; }
          continue;
        }
        if (r != 0) { reason = r; break; }
        done++;
        continue;
      }
      decodeThumbInto(entry, pa);
    }
    const kind = load<u8>(entry, 16);
    if (!inItBlock && kind != 0) {
      // Specialised forms (outside IT blocks), executed inline from the
      // record, by a copy of the switch for each instruction size: a size
      // loaded from the entry and added to the pc would chain each
      // instruction's fetch to a load of the one before (a dependency the
      // A32 loop's pc + 4 does not have), where a branch on the size is
      // predicted.
      const wide = (load<u32>(entry, 12) & (1 << 29)) != 0;
      let after: u32;
      if (wide) after = inlineForm(kind, entry, pc, 4, (pc + 4) | 1);
      else after = inlineForm(kind, entry, pc, 2, (pc + 2) | 1);
      if (after != NOT_INLINE) {
        const size: u32 = wide ? 4 : 2;
        // A b<cond> right after a compare runs in the same step, as in
        // the A32 loop, when it is decoded, on the same page and in the
        // budget (the page check also keeps the next entry in the cache).
        if (kind - K_FUSABLE < K_FUSABLE_COUNT && (pa & 0xfff) + size < 0x1000 && done + 1 < limit) {
          const next = entry + (usize(size) << (DECODE_SHIFT - 1));
          if (load<u32>(next) == ((pa + size) | 1) && load<u8>(next, 16) == K_BCOND) {
            // (16-bit b<cond> only: the pc not taken is a constant.)
            done += 2;
            pc = conditionPassed(recExtra(next)) ? after + recImm(next) : after + 2;
            continue;
          }
        }
        pc = after;
        done++;
        continue;
      }
    }
    const value = load<u32>(entry, 4);
    const info = load<u32>(entry, 12);
    const size: u32 = 2 + ((info >>> 28) & 2);
    const shortClass = info >>> 30;
    if (shortClass != 0 && !inItBlock) {
      if (shortClass == 1) {
        // @pure: no pc, memory or exception bookkeeping.
        call_indirect<void>(load<u32>(entry, 8), value);
        pc += size;
        done++;
        continue;
      }
      // @mem and @block (stores without r15): an abort, or an exception
      // the handler raised, goes the full way.
      clearAbort();
      clearRaised();
      setLiveDone(done);
      call_indirect<void>(load<u32>(entry, 8), value);
      limit = 0; // a device access may have raised an interrupt line
      if (aborted | raised) {
        setRegRaw(15, pc);
        let r: u32;
        if (aborted) {
          clearAbort();
          r = exceptionOrStop(EXC_DABT, pc, value);
        } else r = raisedThumb(pc, value, 0, size);
        if (r != 0) { reason = r; break; }
        pc = reg(15);
        continue;
      }
      pc += size;
      done++;
      continue;
    }
    setLiveDone(done);
    const r = stepThumb(pc, value, load<u32>(entry, 8), size);
    if (r != 0) {
      reason = r;
      break;
    }
    pc = reg(15);
    limit = 0;
    done++;
  }
  thumbLoopPc = pc;
  thumbLoopReason = reason;
  return done;
}


/**
 * Runs `cpu` for at most `budget` instructions. Returns a STOP_* reason;
 * the retired-instruction counter advances by the instructions completed.
 */
export function run(cpu: u32, budget: u32): u32 {
  if (cpu >= cpuCount || inHostTrap) return STOP_UNDEFINED;
  // A host exception thrown from an MMIO callback may have left the flag set.
  setRunning(false);
  selectCpu(cpu);
  let done: u32 = 0;
  // Prefetch aborts taken in-guest (they retire nothing), counted in memory:
  // the inner loop's registers are for the common case.
  store<u32>(CTX, 0, CTX_STALLED);
  store<u32>(CTX, budget, CTX_BUDGET);
  let reason: u32 = 0; // 0 while running
  if (st(WAITING) != 0) {
    if (!interruptLineHigh()) {
      setSt(STOP_REASON, STOP_HALT);
      return STOP_HALT;
    }
    setSt(WAITING, 0);
  }
  setRunning(true);
  setStopRequested(false);
  // CPUs take turns between run() calls, so when another CPU ran since this
  // one's last turn it may have stored to this CPU's exclusive address:
  // clear the local monitor (an architecturally permitted spurious clear;
  // the strex fails, the guest's loop retries) so a strex never succeeds
  // after another CPU's turn. Turns of the same CPU keep it (a probe
  // between ldrex and strex on one CPU does not make the loop spin).
  const sameCpu = lastRunCpu == i32(cpu);
  if (!sameCpu) setSt(EXCL_OPEN, 0);
  lastRunCpu = i32(cpu);
  // Invariant: `pc` is the next instruction; memory r15 is brought up to
  // date before anything that reads it (the slow path, exceptions, exit).
  // Interrupts, the fetch page and CPSR.T can change only through the slow
  // path (or the host, between calls), so the short path skips checking them.
  let pc = reg(15);
  // The inner loop runs while done < limit; limit drops to 0 when the next
  // instruction boundary needs the checks of the outer loop (after anything
  // but an inline form), and a reason set inside ends the run.
  let limit: u32 = 0;
  // The code page cached by this CPU's last run stays good while nothing
  // cleared fetchValid since (a CPU switch, a mode or instruction-set
  // change, a TLB flush or translation change, an exception entry, whether
  // in a run, an emulation or a host call): a trap's round trip then
  // re-enters without a translation.
  if (!sameCpu || !fetchValid) store<u32>(CTX, 1, CTX_PAGE_VA); // not page aligned: no cached page
  store<u32>(CTX, u32(cpuTlb()), CTX_TLB);
  while (done < budget) {
    {
      if (stopRequested) break; // the host asked from a device access (power-off)
      if (!fetchValid) store<u32>(CTX, 1, CTX_PAGE_VA);
      const lines = st(IRQ_LINE) | st(FIQ_LINE);
      if (lines) {
        const ctl = st(CPSR_CTL);
        if (st(FIQ_LINE) != 0 && (ctl & PSR_F) == 0) {
          takeException(EXC_FIQ, pc);
          pc = reg(15);
          store<u32>(CTX, 1, CTX_PAGE_VA);
        } else if (st(IRQ_LINE) != 0 && (ctl & PSR_I) == 0) {
          takeException(EXC_IRQ, pc);
          pc = reg(15);
          store<u32>(CTX, 1, CTX_PAGE_VA);
        }
      }
      // What the inline loads and stores depend on (translation on, alignment
      // checking, the permission a user or privileged access needs): only
      // the full paths change it, and each of them leaves the inner loop.
      const sctlr = st(CP15_SCTLR);
      const user = currentMode() == MODE_USR;
      store<u32>(CTX, sctlr & 1, CTX_MMU);
      store<u32>(CTX, (sctlr & 2) != 0 ? 3 : 0, CTX_ALIGN);
      store<u32>(CTX, user ? P_USER_R : P_PRIV_R, CTX_NEED_R);
      store<u32>(CTX, user ? P_USER_W : P_PRIV_W, CTX_NEED_W);
    }
    limit = budget;
    if ((st(CPSR_CTL) & PSR_T) != 0) {
      done = thumbLoop(pc, done, limit);
      pc = thumbLoopPc;
      reason = thumbLoopReason;
    } else while (done < limit) {
    let pa: u32;
    if (((pc ^ load<u32>(CTX, CTX_PAGE_VA)) & 0xfffff003) == 0) {
      pa = load<u32>(CTX, CTX_PAGE_PA) | (pc & 0xfff);
    } else {
      limit = 0;
      pa = fetchMiss(pc);
      if (pa & 1) {
        const r = fetchFailed(pa);
        if (r != 0) { reason = r; break; }
        pc = reg(15);
        continue;
      }
    }
    const entry = decodeTags + (usize((pa >>> 2) & (DECODE_ENTRIES - 1)) << DECODE_SHIFT);
    if (load<u32>(entry) != (pa | 1)) decodeInto(entry, pa);
    const word = load<u32>(entry, 4);
    const kind = load<u8>(entry, 16);
    if (kind != 0) {
      // Specialised forms, executed inline from the pre-decoded record.
      const cond = word >>> 28;
      if (cond < 14 && !conditionPassed(cond)) {
        pc += 4;
        done++;
        continue;
      }
      const after = inlineForm(kind, entry, pc, 4, pc + 4);
      if (after != NOT_INLINE) {
        // A b<cond> right after a compare (the commonest pair) runs in the
        // same step when it is decoded and in the budget.
        if (kind - K_FUSABLE < K_FUSABLE_COUNT && (pa & 0xffc) != 0xffc && done + 1 < limit) {
          const next = entry + DECODE_ENTRY_SIZE;
          if (load<u32>(next) == ((pa + 4) | 1) && load<u8>(next, 16) == K_B) {
            const bc = load<u32>(next, 4) >>> 28;
            done += 2;
            pc += bc >= 14 || conditionPassed(bc) ? 4 + recImm(next) : 8;
            continue;
          }
        }
        pc = after;
        done++;
        continue;
      }
    }
    const shortClass = load<u32>(entry, 12) >>> 30;
    if (shortClass == 1) {
      // Short path for @pure: no pc, memory or exception bookkeeping.
      const cond = word >>> 28;
      if (cond >= 14 || conditionPassed(cond)) call_indirect<void>(load<u32>(entry, 8), word);
      pc += 4;
      done++;
      continue;
    }
    if (shortClass == 3) {
      // b / bl inline (A8.8.18, A8.8.25). A taken branch also lets the next
      // iteration look at the interrupt lines, so loops stay interruptible.
      const cond = word >>> 28;
      if (cond >= 14 || conditionPassed(cond)) {
        if ((word & 0x0e000000) == 0x0a000000) {
          if (word & (1 << 24)) setRegRaw(14, pc + 4);
          pc = pc + 8 + u32(i32(word << 8) >> 6);
        } else {
          // bx rm: to Thumb code takes the full path (it changes CPSR.T).
          const target = reg(word & 15);
          if (target & 1) {
            const r = step(pc, word, load<u32>(entry, 8));
            if (r != 0) { reason = r; break; }
            pc = reg(15);
            limit = 0;
            done++;
            continue;
          }
          pc = target & ~3;
        }
        limit = 0;
      } else pc += 4;
      done++;
      continue;
    }
    if (shortClass == 4) {
      // ldm/stm without r15: an abort or an exception raised by the handler
      // (alignment, empty list) goes the full way.
      const cond = word >>> 28;
      if (cond >= 14 || conditionPassed(cond)) {
        clearAbort();
        clearRaised();
        setLiveDone(done);
        call_indirect<void>(load<u32>(entry, 8), word);
        if (aborted | raised) {
          setRegRaw(15, pc);
          let r: u32;
          if (aborted) {
            clearAbort();
            r = exceptionOrStop(EXC_DABT, pc, word);
          } else r = raisedException(pc, word);
          if (r != 0) { reason = r; break; }
          pc = reg(15);
          limit = 0;
          continue;
        }
        limit = 0;
      }
      pc += 4;
      done++;
      continue;
    }
    if (shortClass == 2) {
      // Short path for @mem: only a data abort can happen. r15 is not an
      // operand, so memory r15 need not be current during the access.
      const cond = word >>> 28;
      if (cond >= 14 || conditionPassed(cond)) {
        clearAbort();
        setLiveDone(done);
        call_indirect<void>(load<u32>(entry, 8), word);
        if (aborted) {
          clearAbort();
          setRegRaw(15, pc);
          const r = exceptionOrStop(EXC_DABT, pc, word);
          if (r != 0) { reason = r; break; }
          pc = reg(15);
          limit = 0;
          continue;
        }
        limit = 0; // a device access may have raised an interrupt line
      }
      pc += 4;
      done++;
      continue;
    }
    setLiveDone(done);
    const r = step(pc, word, load<u32>(entry, 8));
    if (r != 0) {
      reason = r;
      break;
    }
    pc = reg(15);
    limit = 0;
    done++;
    }
    if (reason != 0) {
      if (reason == STOP_DTRACE && fastSitesOn()) {
        // A fast probe site whose filter says the firing does nothing (fastsite.ts):
        // the core performed the displaced instruction; the run goes on.
        const took = fastTrap(cpu, done);
        if (took != 0) {
          budget -= took - 1;
          done = 0;
          reason = 0;
          store<u32>(CTX, budget, CTX_BUDGET);
          if (st(WAITING) != 0) {
            reason = STOP_HALT;
            break;
          }
          pc = reg(15);
          continue;
        }
      }
      if (!trapHook || reason < STOP_DTRACE || reason > STOP_UNDEFINED) break;
      // A trap taken inside the run (see setTrapHook): what ran so far retires first.
      store<u64>(S + RETIRED, load<u64>(S + RETIRED) + u64(done));
      done = 0;
      setRunning(false);
      inHostTrap = true;
      const more = hostTrap(i32(cpu), i32(reason));
      inHostTrap = false;
      // The host may have selected another CPU; this one's state is where it left it.
      selectCpu(cpu);
      if (more < 0) {
        reason = STOP_TRAPPED;
        break;
      }
      setRunning(true);
      reason = 0;
      budget = u32(more);
      store<u32>(CTX, 0, CTX_STALLED);
      store<u32>(CTX, budget, CTX_BUDGET);
      store<u32>(CTX, u32(cpuTlb()), CTX_TLB);
      pc = reg(15);
    }
  }
  if (reason == 0) reason = STOP_BUDGET;
  if (reason == STOP_BUDGET) setRegRaw(15, pc);
  setRunning(false);
  setStopRequested(false);
  setSt(STOP_REASON, reason);
  store<u64>(S + RETIRED, load<u64>(S + RETIRED) + u64(done));
  return reason;
}

/** Clears the running state after run() was left by a host exception (the loader calls this). */
export function abandonRun(): void {
  inHostTrap = false;
  setRunning(false);
  setStopRequested(false);
}

/**
 * From a device callback during run(): the running CPU stops after the
 * current instruction and run() returns STOP_BUDGET (the host powers off).
 * Outside run() it does nothing.
 */
export function requestStop(): void {
  if (isRunning()) setStopRequested(true);
}

/** Enters the guest vector for the exception the last stop reported (an unclaimed trap). */
export function deliverStop(cpu: u32): void {
  selectCpu(cpu);
  const exc = st(PENDING_EXC);
  if (exc == 0) return;
  setSt(PENDING_EXC, 0);
  takeException(exc, st(STOP_PC));
}

/** Sets which exceptions stop to the host (bit 1 << EXC_*). */
export function setStopMask(cpu: u32, mask: u32): void {
  selectCpu(cpu);
  setSt(STOP_MASK, mask);
}

/** External interrupt line levels. */
export function setIrqLine(cpu: u32, level: u32): void {
  if (cpu < cpuCount) store<u32>(stateBlock(cpu) + IRQ_LINE, level != 0 ? 1 : 0);
}
export function setFiqLine(cpu: u32, level: u32): void {
  if (cpu < cpuCount) store<u32>(stateBlock(cpu) + FIQ_LINE, level != 0 ? 1 : 0);
}

/**
 * Executes `word` once as if it were at `address` (displaced execution for
 * kinst/fasttrap): pc-relative operands, links and branches behave as in
 * place. Returns a stop reason (0 = completed and pc updated).
 */
export function executeDisplaced(cpu: u32, word: u32, address: u32): u32 {
  selectCpu(cpu);
  return executeDecoded(word, address, decodeA32(word));
}

/** executeDisplaced on the selected CPU of a word already decoded as `op`. */
export function executeDecoded(word: u32, address: u32, op: u32): u32 {
  setSt(STOP_REASON, 0);
  const r = step(address, word, handlerIndex(op));
  if (r == 0) store<u64>(S + RETIRED, load<u64>(S + RETIRED) + 1);
  return r;
}

/**
 * Executes the T32 instruction `value` — a 16-bit one as its halfword, a
 * 32-bit one as first halfword << 16 | second — once in Thumb state as if
 * it were at `address` (displaced execution for probes on Thumb code):
 * pc-relative operands (Align(PC, 4) literals and ADR, branches, cbz,
 * tbb/tbh, bl/blx links) behave as in place, and the CPU's ITSTATE applies
 * as it would have there: inside an IT block the instruction runs only when
 * the block's current condition passes, and ITSTATE advances past it. So a
 * host that stopped on a Thumb breakpoint (ITSTATE untouched by the stop)
 * and calls this with the original instruction continues exactly as the
 * unpatched code would. Returns a stop reason (0 = completed, pc updated).
 */
export function executeDisplacedT32(cpu: u32, value: u32, address: u32): u32 {
  selectCpu(cpu);
  return executeDecodedT32(value, address, decodeThumbValue(value));
}

/** executeDisplacedT32 on the selected CPU of a value already decoded as `op`. */
export function executeDecodedT32(value: u32, address: u32, op: u32): u32 {
  setSt(STOP_REASON, 0);
  const ctl = st(CPSR_CTL);
  if ((ctl & PSR_T) == 0) {
    setSt(CPSR_CTL, ctl | PSR_T);
    invalidateFetch();
  }
  const r = stepThumb(address & ~1, value, thumbHandlerIndex(op), value > 0xffff ? 4 : 2);
  if (r == 0) store<u64>(S + RETIRED, load<u64>(S + RETIRED) + 1);
  return r;
}
