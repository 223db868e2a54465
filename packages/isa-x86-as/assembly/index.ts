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
export { initRam } from './cpu';
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
export function getFlags(): u32 { return <u32>cpu.rflags; }
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
