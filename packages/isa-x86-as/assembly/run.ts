// The run loop: fetch, decode, dispatch through the generated handler table,
// retire. It runs until a stop and returns the stop reason; the host reads
// the details (pc, vector, error code, fault address) through getters and
// resumes with another run() call.
import { decodeInstruction, PFX_LOCK, DECODE_TRUNCATED } from './decode';
import { insn, setInsn, INSN_SCRATCH, dForm, dPrefixes, dFast, dMod, dHasModrm } from './insn';
import { HANDLERS } from './generated/dispatch';
import { runFast, selectFast, fastFusable } from './generated/fast';
import { lazyConditionAny } from './exec-fast';
import {
  FETCH, rip, setRip, nextRip, setNextRip, faultVector, faultError, clearFault, raise, translate, ACC_EXEC,
  ramBase, ramSize, halted, countRetired, VEC_PF, VEC_GP, VEC_UD, cr2,
} from './cpu';
import { setInsnRip } from './exec';
import { cacheEnabled, cacheLookup, cacheClaim } from './code-cache';
import { saveDecoded } from './decode';
import { deliverException, interruptShadow, clearInterruptShadow } from './exec-system';
let clearInterruptShadowAfterNext: bool = false;
import { rflags, IF, tlbHit, flushFlags, simdGate, cr0, retired } from './cpu';
import { fastTrap, fastSitesOn, FAST_TAKEN, FAST_STOPPED } from './fastsite';
const VEC_NM: i32 = 7;

export const STOP_NONE: i32 = -1;
export const STOP_BUDGET: i32 = 0;
export const STOP_HALT: i32 = 1;
export const STOP_EXCEPTION: i32 = 2;
export const STOP_TRIPLE_FAULT: i32 = 3;
export const STOP_INTERRUPT_WINDOW: i32 = 4;

/**
 * Set whenever something the run loop checks between instructions changes
 * from outside an instruction (the host, from a device callback): the
 * straight-line path of runLoop then returns to those checks.
 */
let attention: bool = false;

/** When set, run() stops at the first instruction boundary where interrupts can be taken (IF=1, no STI shadow). */
export let interruptWindowWanted: bool = false;
export function requestInterruptWindow(on: bool): void { interruptWindowWanted = on; attention = true; }

/** Vectors that carry an error code (SDM vol. 3, table 6-1). */
export function hasErrorCode(v: i32): bool { return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21; }

// Pending external interrupts: 256-bit bitmap.
const PENDING: usize = memory.data(32, 16);
let anyPending: bool = false;
export function raiseInterrupt(vector: i32): void {
  attention = true;
  store<u8>(PENDING + ((vector & 255) >> 3), <u8>(<u32>load<u8>(PENDING + ((vector & 255) >> 3)) | (<u32>1 << <u32>(vector & 7))));
  anyPending = true;
}
function takePending(): i32 {
  for (let i = 31; i >= 0; i--) {
    const b = <u32>load<u8>(PENDING + i);
    if (b != 0) {
      const bit = 31 - clz<u32>(b);
      store<u8>(PENDING + i, <u8>(b & ~(1 << bit)));
      let left = false;
      for (let j = 0; j < 32; j++) if (load<u8>(PENDING + j) != 0) { left = true; break; }
      anyPending = left;
      return (i << 3) | <i32>bit;
    }
  }
  anyPending = false;
  return -1;
}
/** Per-CPU pending interrupts and delivery mask (CPU_AREA slot offsets 576..). */
import { cpuSlot } from './cpu';
export function parkInterrupts(n: i32): void {
  const s = cpuSlot(n);
  memory.copy(s + 576, PENDING, 32);
  store<u32>(s, autoDeliverMask, 608);
}
export function loadInterrupts(n: i32): void {
  const s = cpuSlot(n);
  memory.copy(PENDING, s + 576, 32);
  autoDeliverMask = load<u32>(s, 608);
  anyPending = false;
  for (let j = 0; j < 32; j++) if (load<u8>(PENDING + j) != 0) { anyPending = true; break; }
}
/** Drops every pending external interrupt of the running CPU (its interrupt input went low). */
export function clearInterrupts(): void {
  memory.fill(PENDING, 0, 32);
  anyPending = false;
}
/** Set by the host (e.g. from a device callback): run() returns STOP_BUDGET after the current instruction. */
export let stopRequested: bool = false;
export function requestStop(): void { stopRequested = true; attention = true; }
/** Raises an interrupt on a CPU that is not the running one. */
export function raiseInterruptOn(n: i32, vector: i32): void {
  const p = cpuSlot(n) + 576 + <usize>((vector & 255) >> 3);
  store<u8>(p, <u8>(<u32>load<u8>(p) | (<u32>1 << <u32>(vector & 7))));
}
/** Exceptions (bit per vector 0-31) delivered to the guest IDT without stopping. */
export let autoDeliverMask: u32 = 0;
export function setAutoDeliver(mask: u32): void { autoDeliverMask = mask; }
export let stopNextRip: u64 = 0;

export let stopPc: u64 = 0;
/** Whether the last stop is a fault of a fast site's displaced instruction (fastsite.ts): an exception to deliver, not a trap. */
export let stopAtFastSite: bool = false;
export let stopVector: i32 = -1;
export let stopError: i32 = 0;
export let stopAddress: u64 = 0;

/** Copies up to 15 code bytes at `va` into FETCH; returns how many are readable (0 after a fault). */
function fetch(va: u64): i32 {
  const pa = translate(va, ACC_EXEC);
  if (pa == <u64>-1) return 0;
  if (pa >= ramSize) { raise(VEC_GP, 0); return 0; }
  let n = <i32>(0x1000 - (va & 0xfff));
  if (n > 15) n = 15;
  if (<u64>n > ramSize - pa) n = <i32>(ramSize - pa);
  memory.copy(FETCH, ramBase + <usize>pa, n);
  if (n < 15) {
    // the instruction may continue on the next page: fetch it only if mapped
    const save = faultVector;
    const pa2 = translate(va + <u64>n, ACC_EXEC);
    if (pa2 != <u64>-1 && pa2 < ramSize) {
      let m = 15 - n;
      if (<u64>m > ramSize - pa2) m = <i32>(ramSize - pa2);
      memory.copy(FETCH + n, ramBase + <usize>pa2, m);
      return n + m;
    }
    // leave the fault for later: only raised if decoding needs those bytes
    if (save < 0) clearFault();
  }
  return n;
}

/** Executes one instruction at rip; returns false if it stopped with a fault. */
export function step(): bool {
  const pc = rip;
  if (cacheEnabled) {
    let pa = tlbHit(pc, ACC_EXEC);
    if (pa == <u64>-1) pa = translate(pc, ACC_EXEC);
    if (pa == <u64>-1) return false;
    if (pa < ramSize) {
      const e = cacheLookup(pa);
      if (e != 0) {
        setInsn(e);
        return execute(pc, <i32>load<u8>(e, 14));
      }
      const avail = fetch(pc);
      if (faultVector >= 0) return false;
      const len = decodeInstruction(FETCH, avail);
      if (len <= 0) return decodeFailed(pc, len, avail);
      // an instruction crossing a page is not cached: its second page's
      // mapping and permissions are checked again by every fetch
      if ((pc & 0xfff) + <u64>len <= 0x1000) {
        const record = cacheClaim(pa, len);
        setDecoded(record, true);
        fuseJcc(record, pc, len, avail);
      } else setDecoded(INSN_SCRATCH, false);
      return execute(pc, len);
    }
  }
  const avail = fetch(pc);
  if (faultVector >= 0) return false;
  const len = decodeInstruction(FETCH, avail);
  if (len <= 0) return decodeFailed(pc, len, avail);
  setDecoded(INSN_SCRATCH, false);
  return execute(pc, len);
}

/**
 * Saves the instruction just decoded into `record` and makes it the current
 * one. Choosing a specialised handler pays only for a record that is kept
 * (`cached`): an instruction decoded for one execution runs its generic one.
 */
function setDecoded(record: usize, cached: bool): void {
  saveDecoded(record);
  store<u8>(record, cached ? <u8>selectFast() : 0, 30);
  store<u8>(record, 0, 31);
  setInsn(record);
}

/**
 * Compare-and-branch fusion: when the record just cached is a specialised
 * flag-setting ALU instruction on registers and a jcc (rel8 or rel32, no
 * prefix) follows it on the same page, the record also keeps that jcc —
 * byte 31 = 0x10 | condition, byte 56 = its length, bytes 40-47 (the second
 * immediate, which no specialised form has) = its displacement — and the
 * straight-line path runs both in one step, retiring two instructions.
 * Nothing can happen between the two (a register ALU operation neither
 * faults nor reaches a device); a budget that ends between them runs the
 * first alone. The jcc's bytes are on the record's page, so a write to them
 * retires the record with the page.
 */
function fuseJcc(record: usize, pc: u64, len: i32, avail: i32): void {
  if (!fastFusable(<u32>load<u8>(record, 30))) return;
  const b = <u32>load<u8>(FETCH + len);
  let jlen = 0;
  let cc: u32 = 0;
  let disp: i64 = 0;
  if ((b & 0xf0) == 0x70 && avail >= len + 2) {
    jlen = 2; cc = b & 15; disp = <i64>load<i8>(FETCH + len + 1);
  } else if (b == 0x0f && avail >= len + 6 && (<u32>load<u8>(FETCH + len + 1) & 0xf0) == 0x80) {
    jlen = 6; cc = <u32>load<u8>(FETCH + len + 1) & 15; disp = <i64>load<i32>(FETCH + len + 2);
  } else return;
  if ((pc & 0xfff) + <u64>(len + jlen) > 0x1000) return;
  store<i64>(record, disp, 40);
  store<u8>(record, <u8>jlen, 56);
  store<u8>(record, <u8>(0x10 | cc), 31);
}

function decodeFailed(pc: u64, len: i32, avail: i32): bool {
  if (len == DECODE_TRUNCATED && avail < 15) {
    // the missing bytes are on the next page: take its fault
    translate(pc + <u64>avail, ACC_EXEC);
    if (faultVector < 0) raise(VEC_GP, 0);
  } else raise(VEC_GP, 0);
  return false;
}

// @ts-ignore: decorator
@inline function execute(pc: u64, len: i32): bool {
  setInsnRip(pc);
  setNextRip(pc + <u64>len);
  const fast = dFast();
  if (fast != 0) runFast(fast, insn);
  else {
    if (!formAllowed()) return false;
    unchecked(HANDLERS[dForm()])();
  }
  if (faultVector >= 0) return false;
  setRip(nextRip);
  countRetired();
  return true;
}

/** Runs the current record's generic handler (not inlined: one copy of runFast in the run loop is enough). */
function executeGeneric(pc: u64, len: i32): bool {
  setInsnRip(pc);
  setNextRip(pc + <u64>len);
  if (!formAllowed()) return false;
  unchecked(HANDLERS[dForm()])();
  if (faultVector >= 0) return false;
  setRip(nextRip);
  countRetired();
  return true;
}

// LOCK is allowed on the forms the table marks `lock`, with a memory destination.
import { FORMS } from './generated/decode-tables';
/**
 * The checks a form makes before its handler runs: LOCK only where the table
 * allows it (#UD); SSE and MMX forms under CR0.EM (#UD) or CR0.TS (#NM).
 * Returns false when one raised.
 */
// @ts-ignore: decorator
@inline export function formAllowed(): bool {
  // the usual case, inlined into the run loop: no LOCK, CR0.EM and TS clear
  if ((dPrefixes() & PFX_LOCK) == 0 && !simdGate) return true;
  return formChecks();
}
function formChecks(): bool {
  if ((dPrefixes() & PFX_LOCK) != 0 && !lockAllowed()) { raise(VEC_UD, 0); return false; }
  if (simdGate && (load<u8>(FORMS + (<usize>dForm() << 3) + 6) & 16) != 0) { raise((cr0 & 4) != 0 ? VEC_UD : VEC_NM, 0); return false; }
  return true;
}
function lockAllowed(): bool {
  const form = dForm();
  return form != 0 && (load<u8>(FORMS + (<usize>form << 3) + 6) & 8) != 0 && dHasModrm() && dMod() != 3;
}

/** Records the pending fault as the stop details and clears it. */
export function finishStop(): i32 {
  stopPc = rip;
  stopVector = faultVector;
  stopError = faultError;
  stopAddress = faultVector == VEC_PF ? cr2 : 0;
  // traps (int3) resume after the instruction
  stopNextRip = faultVector == 3 ? nextRip : rip;
  clearFault();
  return STOP_EXCEPTION;
}

/** Runs up to `budget` instructions. */
export function runLoop(budget: i32): i32 {
  stopVector = -1;
  stopError = 0;
  stopRequested = false;
  stopAtFastSite = false;
  const start = retired;
  let i = 0;
  while (i < budget) {
    // one test for the usual case: nothing pending, nothing asked for
    if ((<i32>stopRequested | <i32>interruptShadow | <i32>interruptWindowWanted | <i32>anyPending | <i32>halted) != 0) {
      if (stopRequested) { stopRequested = false; stopPc = rip; return STOP_BUDGET; }
      if (interruptShadow) clearInterruptShadowAfterNext = true;
      else if (interruptWindowWanted && (rflags & IF) != 0) {
        interruptWindowWanted = false;
        stopPc = rip;
        return STOP_INTERRUPT_WINDOW;
      } else if (anyPending && (rflags & IF) != 0) {
        const v = takePending();
        if (v >= 0 && deliverException(v, 0, false, rip) == 2) { stopPc = rip; return STOP_TRIPLE_FAULT; }
      }
      if (halted) { stopPc = rip; return STOP_HALT; }
    }
    attention = false;
    let ok = true;
    let slow = true;
    if (cacheEnabled && !clearInterruptShadowAfterNext) {
      // Straight-line run of cached instructions with specialised handlers:
      // one translation per code page instead of one per instruction. It
      // leaves for the full path at an instruction without a cached
      // specialised handler (its first run decodes it), at a page change
      // whose translation misses the TLB, when a device callback asked for
      // attention (a stop or an interrupt), at a fault, and when the budget
      // is spent. The handlers it runs change neither paging, privilege nor
      // interrupt state, so the translation of the page stays valid.
      let pc = rip;
      let pa = tlbHit(pc, ACC_EXEC);
      if (pa != <u64>-1 && pa < ramSize) {
        while (true) {
          const e = cacheLookup(pa);
          if (e == 0) break;
          const fast = <u32>load<u8>(e, 30);
          if (fast == 0) {
            setInsn(e);
            // the form's generic handler, then back to the checks (it may change anything)
            flushFlags();
            ok = executeGeneric(pc, <i32>load<u8>(e, 14));
            if (ok) i++;
            slow = false;
            break;
          }
          setNextRip(pc + <u64>load<u8>(e, 14));
          runFast(fast, e);
          if (faultVector >= 0) { ok = false; slow = false; break; }
          const fused = <u32>load<u8>(e, 31);
          if (fused != 0 && i + 1 < budget) {
            // the jcc kept with this record (fuseJcc): retire the ALU instruction, run the jcc
            countRetired();
            i++;
            const fall = nextRip + <u64>load<u8>(e, 56);
            setNextRip(lazyConditionAny(fused & 15) ? fall + <u64>load<i64>(e, 40) : fall);
          }
          const npc = nextRip;
          setRip(npc);
          countRetired();
          i++;
          if (i >= budget || attention) { slow = false; break; }
          if (((npc ^ pc) >> 12) == 0) pa += npc - pc;
          else {
            pa = tlbHit(npc, ACC_EXEC);
            if (pa == <u64>-1 || pa >= ramSize) break;
          }
          pc = npc;
        }
        // lazy flags never outlive the straight-line path
        flushFlags();
      }
    }
    if (slow) {
      ok = step();
      flushFlags();
      if (clearInterruptShadowAfterNext) { clearInterruptShadowAfterNext = false; clearInterruptShadow(); }
      if (ok) { i++; continue; }
    }
    if (!ok) {
      // a fault uses up one instruction of the budget, delivered or not
      i++;
      const v = faultVector;
      if (v == 3 && fastSitesOn()) {
        // A fast probe site whose filter says the firing does nothing
        // (fastsite.ts): the core performed the displaced instruction. The
        // budget left is what the host would give the run after a trap
        // stop: the run's budget less the instructions it retired.
        const f = fastTrap();
        if (f == FAST_TAKEN) {
          i = <i32>(retired - start);
          continue;
        }
        if (f == FAST_STOPPED) {
          stopAtFastSite = true;
          return STOP_EXCEPTION;
        }
      }
      if (v < 32 && ((autoDeliverMask >> <u32>v) & 1) != 0) {
        const err = faultError;
        const ret = v == 3 ? nextRip : rip;
        clearFault();
        if (deliverException(v, err, hasErrorCode(v), ret) == 2) { stopPc = rip; return STOP_TRIPLE_FAULT; }
        continue;
      }
      return finishStop();
    }
  }
  stopPc = rip;
  return STOP_BUDGET;
}
