// The x87 FPU's state (SDM vol. 1, 8.1): eight 80-bit data registers used
// as a stack, the control, status and tag words, and the last instruction
// and data pointers; the memory images FNSTENV/FLDENV, FNSAVE/FRSTOR and
// FXSAVE/FXRSTOR read and write; per-CPU parking. The instructions that
// use it are in exec-x87.ts.
//
// Physical registers R0..R7 are 16 bytes apart in FPR (u64 significand,
// u16 sign/exponent, padding): the stride of the XMM file, so MMX register
// n, the significand of Rn, is addressed like an XMM register. ST(i) is
// R((TOP + i) mod 8). The tag word is kept as an "empty" bit per physical
// register: the full two-bit tags FNSTENV stores are computed from the
// contents (SDM vol. 1, 8.1.7), and loading them keeps only empty/non-empty.
import { cpuSlot } from './cpu';
import * as F from './float80';

export const FPR: usize = memory.data(8 * 16, 16);

// status word bits
export const SW_IE: u32 = 0x1;
export const SW_DE: u32 = 0x2;
export const SW_ZE: u32 = 0x4;
export const SW_OE: u32 = 0x8;
export const SW_UE: u32 = 0x10;
export const SW_PE: u32 = 0x20;
export const SW_SF: u32 = 0x40;
export const SW_ES: u32 = 0x80;
export const SW_C0: u32 = 0x100;
export const SW_C1: u32 = 0x200;
export const SW_C2: u32 = 0x400;
export const SW_C3: u32 = 0x4000;
export const SW_B: u32 = 0x8000;
export const SW_CC: u32 = SW_C0 | SW_C1 | SW_C2 | SW_C3;
const SW_EXCEPTIONS: u32 = 0x3f;

export const CONTROL_DEFAULT: u32 = 0x037f;

/** Control word (reserved bit 6 reads as 1). */
export let fpuControl: u32 = CONTROL_DEFAULT;
/** Status word without TOP, ES and B (kept in fpuTop / computed). */
export let fpuStatus: u32 = 0;
export let fpuTop: u32 = 0;
/** Bit i set: R i is empty. */
export let fpuEmpty: u32 = 0xff;
/** Last non-control instruction: its address, opcode (11 bits) and data operand address. */
export let fpuLastIp: u64 = 0;
export let fpuLastOpcode: u32 = 0;
export let fpuLastData: u64 = 0;

export function setControl(v: u32): void { fpuControl = (v & 0x1f3f) | 0x40; }
export function setStatusBits(v: u32): void { fpuStatus = v & 0x477f; fpuTop = (v >> 11) & 7; }
export function setTop(v: u32): void { fpuTop = v & 7; }
export function setEmptyMask(v: u32): void { fpuEmpty = v & 0xff; }
export function setLastInstruction(ip: u64, opcode: u32): void { fpuLastIp = ip; fpuLastOpcode = opcode & 0x7ff; }
export function setLastData(address: u64): void { fpuLastData = address; }
export function orStatus(bits: u32): void { fpuStatus |= bits; }
export function clearStatus(bits: u32): void { fpuStatus &= ~bits; }

/** An exception flag is set whose mask bit is clear: ES (and B) are set, and the next waiting instruction raises #MF. */
// @ts-ignore: decorator
@inline export function exceptionPending(): bool { return (fpuStatus & ~fpuControl & SW_EXCEPTIONS) != 0; }

/** The status word as FNSTSW stores it. */
export function statusWord(): u32 {
  let s = (fpuStatus & 0x477f) | (fpuTop << 11);
  if (exceptionPending()) s |= SW_ES | SW_B;
  return s;
}

/**
 * x87 rounding control, precision (bits) and unmasked exceptions, for
 * float80's operations. The precision control applies to the basic
 * arithmetic only (SDM vol. 1, 8.1.5.2): `fullPrecision` for the rest.
 */
export function prepareArithmetic(toRegister: bool, fullPrecision: bool = false): void {
  const pc = (fpuControl >> 8) & 3;
  F.setContext((fpuControl >> 10) & 3, fullPrecision || pc == 1 || pc == 3 ? 64 : pc == 0 ? 24 : 53, ~fpuControl & SW_EXCEPTIONS, toRegister);
  F.clearFlags();
}

/** FNINIT / the state FNSAVE leaves (SDM vol. 1, table 8-?: FINIT). */
export function fpuReset(): void {
  fpuControl = CONTROL_DEFAULT;
  fpuStatus = 0;
  fpuTop = 0;
  fpuEmpty = 0xff;
  fpuLastIp = 0; fpuLastOpcode = 0; fpuLastData = 0;
}

// ---- registers --------------------------------------------------------------------
// @ts-ignore: decorator
@inline export function physical(i: u32): u32 { return (fpuTop + i) & 7; }
// @ts-ignore: decorator
@inline export function regSig(p: u32): u64 { return load<u64>(FPR + (<usize>p << 4)); }
// @ts-ignore: decorator
@inline export function regSe(p: u32): u32 { return <u32>load<u16>(FPR + (<usize>p << 4), 8); }
// @ts-ignore: decorator
@inline export function isEmpty(p: u32): bool { return ((fpuEmpty >> p) & 1) != 0; }
export function writeReg(p: u32, se: u32, sig: u64): void {
  store<u64>(FPR + (<usize>p << 4), sig);
  store<u16>(FPR + (<usize>p << 4), <u16>se, 8);
  fpuEmpty &= ~(<u32>1 << p);
}
/** Writes R p without changing its tag (FRSTOR, FXRSTOR load the tags themselves). */
export function storeReg(p: u32, se: u32, sig: u64): void {
  store<u64>(FPR + (<usize>p << 4), sig);
  store<u16>(FPR + (<usize>p << 4), <u16>se, 8);
}
export function freeReg(p: u32): void { fpuEmpty |= <u32>1 << p; }
export function pop(): void { fpuEmpty |= <u32>1 << fpuTop; fpuTop = (fpuTop + 1) & 7; }
/** Whether a push has room: ST(7), which becomes ST(0), is empty. */
// @ts-ignore: decorator
@inline export function canPush(): bool { return isEmpty((fpuTop + 7) & 7); }
export function push(se: u32, sig: u64): void {
  fpuTop = (fpuTop + 7) & 7;
  writeReg(fpuTop, se, sig);
}

/** Two-bit tag of R p from its contents: 0 valid, 1 zero, 2 special, 3 empty. */
export function tagOf(p: u32): u32 {
  if (isEmpty(p)) return 3;
  const se = regSe(p), sig = regSig(p);
  const e = se & 0x7fff;
  if (e == 0x7fff) return 2;
  if (e == 0) return sig == 0 ? 1 : 2;
  return (sig >> 63) != 0 ? 0 : 2;
}
export function tagWord(): u32 {
  let t: u32 = 0;
  for (let p: u32 = 0; p < 8; p++) t |= tagOf(p) << (p * 2);
  return t;
}
/** Loads a full tag word: only "empty" (11) is kept. */
export function setTagWord(t: u32): void {
  let empty: u32 = 0;
  for (let p: u32 = 0; p < 8; p++) if (((t >> (p * 2)) & 3) == 3) empty |= <u32>1 << p;
  fpuEmpty = empty;
}

// ---- MMX view (SDM vol. 1, 9.5) ----------------------------------------------------
/** An MMX instruction: TOP = 0, every register valid. */
export function enterMmx(): void { fpuTop = 0; fpuEmpty = 0; }
/** A write to MMn: the exponent field of Rn becomes all ones. */
export function mmxWritten(n: u32): void { store<u16>(FPR + (<usize>(n & 7) << 4), 0xffff, 8); }
/** EMMS: every register empty. */
export function emms(): void { fpuEmpty = 0xff; }

// ---- per-CPU parking (CPU_AREA slot offsets 640..799) ---------------------------------
export function parkFpu(n: i32): void {
  const s = cpuSlot(n);
  memory.copy(s + 640, FPR, 128);
  store<u32>(s, fpuControl, 768); store<u32>(s, fpuStatus, 772); store<u32>(s, fpuTop, 776); store<u32>(s, fpuEmpty, 780);
  store<u64>(s, fpuLastIp, 784); store<u64>(s, fpuLastData, 792); store<u32>(s, fpuLastOpcode, 800);
}
export function loadFpu(n: i32): void {
  const s = cpuSlot(n);
  memory.copy(FPR, s + 640, 128);
  fpuControl = load<u32>(s, 768); fpuStatus = load<u32>(s, 772); fpuTop = load<u32>(s, 776); fpuEmpty = load<u32>(s, 780);
  fpuLastIp = load<u64>(s, 784); fpuLastData = load<u64>(s, 792); fpuLastOpcode = load<u32>(s, 800);
  // a slot never parked: the state after power-on is FNINIT's
  if (fpuControl == 0) { fpuControl = CONTROL_DEFAULT; fpuEmpty = 0xff; }
}
