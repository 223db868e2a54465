// x86-64 CPU core — entry module of the WebAssembly build.
// Everything the host calls is exported from here; the core's parts live in
// the files this module re-exports.
export { parityFlag } from './flags';
export { DECODE_RECORD, DECODE_INPUT } from './decode';
import { decodeInstruction, writeDecodeRecord, DECODE_INPUT } from './decode';

/**
 * Decodes the instruction whose bytes the host placed at DECODE_INPUT
 * (`available` of them, at most 16) and fills DECODE_RECORD.
 * Returns the length, or -1 (bytes run out) / -2 (longer than 15 bytes).
 */
export function decode(available: i32): i32 {
  const n = decodeInstruction(DECODE_INPUT, available > 16 ? 16 : available);
  writeDecodeRecord();
  return n;
}

// ---- CPU state, memory and run loop ---------------------------------------------
/** Sets up `bytes` of guest RAM (once); returns its offset in the linear memory, 0 on failure. */
export function initRam(bytes: u32): usize { return cpu.initRam(<u64>bytes); }
export { STOP_BUDGET, STOP_HALT, STOP_EXCEPTION } from './run';
import * as cpu from './cpu';
import * as run_ from './run';

/** Offset of guest RAM in the linear memory (0 before initRam). */
export function ramOffset(): usize { return cpu.ramBase; }
/** Size of guest RAM in bytes (low 32 bits; RAM is below 4 GiB). */
export function ramBytes(): u32 { return <u32>cpu.ramSize; }
/** Offset of the 16 general registers (u64 each, encoding order). */
export function regsOffset(): usize { return cpu.REGS; }
export function xmmOffset(): usize { return cpu.XMM; }

export function getRipLo(): u32 { return <u32>cpu.rip; }
export function getRipHi(): u32 { return <u32>(cpu.rip >> 32); }
export function setRipParts(lo: u32, hi: u32): void { cpu.setRip((<u64>hi << 32) | lo); }
export function getFlags(): u32 { cpu.flushFlags(); return <u32>cpu.rflags; }
export function setFlagsValue(v: u32): void { cpu.setFlags(v); }

/** Runs up to `budget` instructions; returns STOP_*. */
export function run(budget: i32): i32 { return run_.runLoop(budget); }
export function stopPcLo(): u32 { return <u32>run_.stopPc; }
export function stopPcHi(): u32 { return <u32>(run_.stopPc >> 32); }
export function stopVector(): i32 { return run_.stopVector; }
export function stopErrorCode(): i32 { return run_.stopError; }
export function stopAddressLo(): u32 { return <u32>run_.stopAddress; }
export function stopAddressHi(): u32 { return <u32>(run_.stopAddress >> 32); }
/** Instructions retired so far (low/high halves). */
export function retiredLo(): u32 { return <u32>cpu.retired; }
export function retiredHi(): u32 { return <u32>(cpu.retired >> 32); }
/** Clears the halted state (the host does this when an interrupt arrives). */
export function wake(): void { cpu.setHalted(false); }

// ---- system state, interrupts and exceptions --------------------------------------
import * as sys from './exec-system';
export { raiseInterrupt, clearInterrupts, requestStop, setAutoDeliver, requestInterruptWindow, STOP_TRIPLE_FAULT, STOP_INTERRUPT_WINDOW } from './run';
/** Delivers `vector` to the guest IDT after a stop (error code pushed when the vector has one); 0 ok, 1 double fault, 2 triple fault. */
export function deliverException(vector: i32, errorCode: i32): i32 {
  const ret = vector == 3 ? run_.stopNextRip : cpu.rip;
  return sys.deliverException(vector, errorCode, run_.hasErrorCode(vector), ret);
}
export function getCpl(): u32 { return cpu.cpl; }
/** Sets CS and SS selectors (CPL = CS.RPL). */
export function setSegments(cs: u32, ss: u32): void { sys.setSelectors(cs, ss); }
export function getCs(): u32 { return sys.csSel; }
export function getSs(): u32 { return sys.ssSel; }
/** Control registers 0, 2, 3, 4 as two halves. */
export function setControlRegister(n: i32, lo: u32, hi: u32): void { cpu.setCr(n, (<u64>hi << 32) | lo); }
export function getControlRegisterLo(n: i32): u32 { return <u32>crValue(n); }
export function getControlRegisterHi(n: i32): u32 { return <u32>(crValue(n) >> 32); }
function crValue(n: i32): u64 { return n == 0 ? cpu.cr0 : n == 2 ? cpu.cr2 : n == 3 ? cpu.cr3 : n == 4 ? cpu.cr4 : 0; }
/** MSR access for the host; returns false for an unknown MSR. */
export function writeMsr(n: u32, lo: u32, hi: u32): bool { return sys.writeMsr(n, (<u64>hi << 32) | lo); }
export function readMsrLo(n: u32): u32 { return <u32>sys.readMsr(n); }
export function readMsrHi(n: u32): u32 { return <u32>(sys.readMsr(n) >> 32); }
export function setIdtr(lo: u32, hi: u32, limit: u32): void { sys.setIdt((<u64>hi << 32) | lo, limit); }
/** GDTR as lgdt would load it. */
export function setGdtr(lo: u32, hi: u32, limit: u32): void { sys.setGdt((<u64>hi << 32) | lo, limit); }
/** TSS base (RSP0 at +4, IST1..7 at +0x24) used on a privilege change. */
export function setTss(lo: u32, hi: u32): void { sys.setTssBase((<u64>hi << 32) | lo); }
/** rdtsc = retired instructions + this offset. */
export function setTscOffset(lo: u32, hi: u32): void { cpu.setTscOffset((<u64>hi << 32) | lo); }

// ---- DTrace support ------------------------------------------------------------------
export { emulate, SAFE_BUFFER } from './dtrace';
/** NOFAULT read of `length` (<= 4096) bytes at virtual hi:lo into SAFE_BUFFER; returns bytes read (short: see safeFaultAddress). */
export function readVirtualSafe(lo: u32, hi: u32, length: i32): i32 { return dt.readVirtualSafe((<u64>hi << 32) | lo, length); }
import * as dt from './dtrace';
/** Executes the displaced instruction placed at DECODE_INPUT at the current rip. */
export function executeDisplaced(length: i32): i32 { return dt.executeDisplaced(length, cpu.rip); }
/** Whether the last exception stop is a fast site's displaced instruction faulting (fastsite.ts): to deliver, not a trap. */
export function stoppedAtFastSite(): bool { return run_.stopAtFastSite; }
export { fastSitesOffset, fastLimitsOffset, fastSiteCapacity, setFastSites } from './fastsite';
export function safeFaultAddressLo(): u32 { return <u32>dt.safeFaultAddress; }
export function safeFaultAddressHi(): u32 { return <u32>(dt.safeFaultAddress >> 32); }

// ---- decoded-instruction cache ---------------------------------------------------------
import * as cc from './code-cache';
/** The host changed guest RAM [pa, pa + length) directly (e.g. patched code): retire cached decodes there. */
export function codeWritten(paLo: u32, length: u32): void { cc.codeWritten(<u64>paLo, length); }
/** Turns the decoded-instruction cache on or off (off: decode every instruction). */
export function setCodeCache(enabled: bool): void { cc.setCacheEnabled(enabled); }

// ---- several CPUs ---------------------------------------------------------------------
import * as x87 from './x87-state';
/** Makes CPU `n` (0..15) the one that run() and every getter/setter act on. */
export function selectCpu(n: i32): void {
  if (n < 0 || n >= cpu.MAX_CPUS || n == cpu.cpuIndex) return;
  const old = cpu.cpuIndex;
  cpu.parkCpu(); sys.parkSystem(old); run_.parkInterrupts(old); x87.parkFpu(old);
  cpu.loadCpu(n); sys.loadSystem(n); run_.loadInterrupts(n); x87.loadFpu(n);
}
export function selectedCpu(): i32 { return cpu.cpuIndex; }
/** Instructions retired by CPU `n`, the selected one or another, as a number (exact below 2^53): no CPU is selected. */
export function retiredOf(n: i32): f64 {
  if (<u32>n >= <u32>cpu.MAX_CPUS) return 0;
  return <f64>(n == cpu.cpuIndex ? cpu.retired : load<u64>(cpu.cpuSlot(n), 488));
}
/** CR3 of CPU `n`, the selected one or another (low and high halves): no CPU is selected. */
export function cr3LoOf(n: i32): u32 { return <u32>cr3Of(n); }
export function cr3HiOf(n: i32): u32 { return <u32>(cr3Of(n) >> 32); }
function cr3Of(n: i32): u64 {
  if (<u32>n >= <u32>cpu.MAX_CPUS) return 0;
  return n == cpu.cpuIndex ? cpu.cr3 : load<u64>(cpu.cpuSlot(n), 416);
}
/** Raises external interrupt `vector` on CPU `n` (delivered when it runs with IF=1). */
export function raiseInterruptOnCpu(n: i32, vector: i32): void {
  if (n == cpu.cpuIndex) run_.raiseInterrupt(vector); else run_.raiseInterruptOn(n, vector);
}
