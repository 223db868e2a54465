// What the instructions do, shared by both instruction sets: one function
// per operation (data processing, shifts, loads and stores, block
// transfers, exclusives, multiplies, saturation, packing, status registers,
// CP15, pc writes), taking decoded operands — register numbers, immediates,
// flags — rather than an encoding. The A32 handlers (exec.ts) and the T32
// handlers (exec-t32.ts) extract their encoding's fields and call these, so
// an operation has one implementation whichever encoding reaches it.
// Pseudocode references are to the ARM ARM (DDI 0406C).
//
// Rules for callers: registers are read with r15 = the instruction's
// address + 8 (A32) or + 4 (T32), as beginInstruction sets it; the pc is
// written only through the *WritePc functions (which set pcWritten); no
// register changes after a memory access aborted (`aborted`).
import {
  reg, setRegRaw, st, setSt, FLAG_N, FLAG_Z, FLAG_C, FLAG_V, FLAG_Q, FLAG_GE, CPSR_CTL, PSR_T, PSR_I, PSR_F, PSR_A, PSR_E,
  readCpsr, writeFlags, writeControl, writeCpsr, currentMode, privileged, spsrOf, bankedReg, setBankedReg, validMode,
  MODE_USR, MODE_FIQ, MODE_IRQ, MODE_SVC, MODE_ABT, MODE_UND, MODE_SYS,
  CP15_SCTLR, CP15_TTBR0, CP15_TTBR1, CP15_TTBCR, CP15_DACR, CP15_DFSR, CP15_DFAR, CP15_IFSR, CP15_IFAR, CP15_VBAR,
  CP15_CONTEXTIDR, CP15_TPIDRURW, CP15_TPIDRURO, CP15_TPIDRPRW, CP15_CPACR, CP15_PAR, EXCL_ADDR, EXCL_OPEN, CPU_ID,
  FAULT_ADDR, FAULT_STATUS, invalidateFetch,
} from './state';
import { read, write, aborted, alignmentAbort, setForceUser, translate, tlbFlush, tlbFlushPage, ACC_READ, ACC_WRITE, clearAbort, probeWrite } from './memory';

// ---- Execution context shared with the run loop ----
/** Address of the executing instruction. */
export let curPc: u32 = 0;
/** Size in bytes of the executing instruction (4 in A32, 2 or 4 in T32). */
export let curSize: u32 = 4;
/** Whether the executing instruction is T32. */
export let curThumb: bool = false;
/** Set when the instruction wrote the pc. */
export let pcWritten: bool = false;
/** Exception the instruction raised (EXC_*), 0 for none. */
export let raised: u32 = 0;

export const EXC_UNDEF: u32 = 1;
export const EXC_SVC: u32 = 2;
export const EXC_PABT: u32 = 3;
export const EXC_DABT: u32 = 4;
export const EXC_IRQ: u32 = 5;
export const EXC_FIQ: u32 = 6;
export const EXC_BKPT: u32 = 7;
export const EXC_DTRACE: u32 = 8;
export const EXC_WFI: u32 = 9;

export function clearRaised(): void {
  raised = 0;
}
@inline export function raise(exc: u32): void {
  raised = exc;
}

/** Starts an A32 instruction at pc: r15 reads as pc + 8. */
export function beginInstruction(pc: u32): void {
  curPc = pc;
  curSize = 4;
  curThumb = false;
  pcWritten = false;
  raised = 0;
  setRegRaw(15, pc + 8);
}

/** Starts a T32 instruction of `size` bytes at pc: r15 reads as pc + 4. */
export function beginThumbInstruction(pc: u32, size: u32): void {
  curPc = pc;
  curSize = size;
  curThumb = true;
  pcWritten = false;
  raised = 0;
  setRegRaw(15, pc + 4);
}

/** Address of the next instruction (the return address of a call). */
@inline export function nextPc(): u32 {
  return curPc + curSize;
}

// ---- pc writes (A2.3.1) ----
/** BranchWritePC: no change of instruction set. */
@inline export function branchWritePc(v: u32): void {
  setRegRaw(15, curThumb ? v & ~1 : v & ~3);
  pcWritten = true;
}
/** BXWritePC (LoadWritePC too): bit 0 selects Thumb state, clear selects ARM. */
export function bxWritePc(v: u32): void {
  const ctl = st(CPSR_CTL);
  if (v & 1) {
    if ((ctl & PSR_T) == 0) {
      setSt(CPSR_CTL, ctl | PSR_T);
      invalidateFetch();
    }
    setRegRaw(15, v & ~1);
  } else {
    if (ctl & PSR_T) {
      setSt(CPSR_CTL, ctl & ~PSR_T);
      invalidateFetch();
    }
    setRegRaw(15, v & ~3);
  }
  pcWritten = true;
}
/** ALUWritePC: interworking in ARM state, a plain branch in Thumb state. */
export function aluWritePc(v: u32): void {
  if (curThumb) branchWritePc(v);
  else bxWritePc(v);
}

// ---- Conditions (A8.3) ----
@inline export function conditionPassed(cond: u32): bool {
  let r: bool;
  switch (cond >>> 1) {
    case 0: r = st(FLAG_Z) != 0; break;
    case 1: r = st(FLAG_C) != 0; break;
    case 2: r = st(FLAG_N) != 0; break;
    case 3: r = st(FLAG_V) != 0; break;
    case 4: r = st(FLAG_C) != 0 && st(FLAG_Z) == 0; break;
    case 5: r = st(FLAG_N) == st(FLAG_V); break;
    case 6: r = st(FLAG_N) == st(FLAG_V) && st(FLAG_Z) == 0; break;
    default: return true;
  }
  return (cond & 1) ? !r : r;
}

// ---- Shifts (A8.4.3) ----
/** Carry out of the last shift. */
export let shCarry: u32 = 0;

/** Shift_C with an immediate amount as encoded (type, imm5; DecodeImmShift). */
@inline export function shiftImm(v: u32, type: u32, imm5: u32): u32 {
  switch (type) {
    case 0:
      if (imm5 == 0) { shCarry = st(FLAG_C); return v; }
      shCarry = (v >>> (32 - imm5)) & 1;
      return v << imm5;
    case 1:
      if (imm5 == 0) { shCarry = v >>> 31; return 0; }
      shCarry = (v >>> (imm5 - 1)) & 1;
      return v >>> imm5;
    case 2:
      if (imm5 == 0) { shCarry = v >>> 31; return u32(i32(v) >> 31); }
      shCarry = (v >>> (imm5 - 1)) & 1;
      return u32(i32(v) >> imm5);
    default:
      if (imm5 == 0) { shCarry = v & 1; return (st(FLAG_C) << 31) | (v >>> 1); }
      shCarry = (v >>> (imm5 - 1)) & 1;
      return rotr<u32>(v, imm5);
  }
}

/** Shift_C by a register amount (bottom byte). */
@inline export function shiftReg(v: u32, type: u32, amount: u32): u32 {
  const n = amount & 0xff;
  if (n == 0) { shCarry = st(FLAG_C); return v; }
  switch (type) {
    case 0:
      if (n < 32) { shCarry = (v >>> (32 - n)) & 1; return v << n; }
      shCarry = n == 32 ? v & 1 : 0;
      return 0;
    case 1:
      if (n < 32) { shCarry = (v >>> (n - 1)) & 1; return v >>> n; }
      shCarry = n == 32 ? v >>> 31 : 0;
      return 0;
    case 2:
      if (n < 32) { shCarry = (v >>> (n - 1)) & 1; return u32(i32(v) >> n); }
      shCarry = v >>> 31;
      return u32(i32(v) >> 31);
    default: {
      const r = n & 31;
      const res = rotr<u32>(v, r);
      shCarry = res >>> 31;
      return res;
    }
  }
}

/** Shift without carry out (addressing offsets, saturation). */
@inline export function shiftNoCarry(v: u32, type: u32, imm5: u32): u32 {
  const c = shCarry;
  const r = shiftImm(v, type, imm5);
  shCarry = c;
  return r;
}

// ---- Data processing (A8.4) ----
@inline export function setNZ(r: u32): void {
  setSt(FLAG_N, r >>> 31);
  setSt(FLAG_Z, u32(r == 0));
}

/** Exception return through a flag-setting data-processing write of the pc (SUBS PC, LR and friends, B9.3.19). */
export function aluExceptionReturn(result: u32): void {
  const spsr = spsrOf(currentMode());
  if (spsr == 0) {
    // UNPREDICTABLE in User/System mode: treat as a plain branch.
    bxWritePc(result);
    return;
  }
  writeCpsr(st(spsr));
  if (st(CPSR_CTL) & PSR_T) setRegRaw(15, result & ~1);
  else setRegRaw(15, result & ~3);
  pcWritten = true;
}

// Operation numbers: the A32 opcode field (bits 24:21), plus ORN (T32 only).
export const DP_AND: u32 = 0;
export const DP_EOR: u32 = 1;
export const DP_SUB: u32 = 2;
export const DP_RSB: u32 = 3;
export const DP_ADD: u32 = 4;
export const DP_ADC: u32 = 5;
export const DP_SBC: u32 = 6;
export const DP_RSC: u32 = 7;
export const DP_TST: u32 = 8;
export const DP_TEQ: u32 = 9;
export const DP_CMP: u32 = 10;
export const DP_CMN: u32 = 11;
export const DP_ORR: u32 = 12;
export const DP_MOV: u32 = 13;
export const DP_BIC: u32 = 14;
export const DP_MVN: u32 = 15;
export const DP_ORN: u32 = 16;

/**
 * One data-processing operation: Rd = a op b (no write for TST/TEQ/CMP/CMN),
 * flags when `s`, `logicalCarry` the shifter's carry out for the logical
 * operations. A write of r15 is ALUWritePC, or an exception return with `s`.
 */
@inline export function dataProcessing(op: u32, d: u32, a: u32, b: u32, logicalCarry: u32, s: bool): void {
  let res: u32 = 0;
  let c = logicalCarry;
  let v = st(FLAG_V);
  let arith = true;
  switch (op) {
    case 0: case 8: res = a & b; arith = false; break; // AND, TST
    case 1: case 9: res = a ^ b; arith = false; break; // EOR, TEQ
    case 2: case 10: res = a - b; c = u32(a >= b); v = ((a ^ b) & (a ^ res)) >>> 31; break; // SUB, CMP
    case 3: res = b - a; c = u32(b >= a); v = ((b ^ a) & (b ^ res)) >>> 31; break; // RSB
    case 4: case 11: res = a + b; c = u32(res < a); v = (~(a ^ b) & (a ^ res)) >>> 31; break; // ADD, CMN
    case 5: { // ADC
      const cin = st(FLAG_C);
      res = a + b + cin;
      c = cin ? u32(res <= a) : u32(res < a);
      v = (~(a ^ b) & (a ^ res)) >>> 31;
      break;
    }
    case 6: { // SBC
      const cin = st(FLAG_C);
      res = a + ~b + cin;
      c = cin ? u32(a >= b) : u32(a > b);
      v = ((a ^ b) & (a ^ res)) >>> 31;
      break;
    }
    case 7: { // RSC
      const cin = st(FLAG_C);
      res = b + ~a + cin;
      c = cin ? u32(b >= a) : u32(b > a);
      v = ((b ^ a) & (b ^ res)) >>> 31;
      break;
    }
    case 12: res = a | b; arith = false; break; // ORR
    case 13: res = b; arith = false; break; // MOV
    case 14: res = a & ~b; arith = false; break; // BIC
    case 16: res = a | ~b; arith = false; break; // ORN
    default: res = ~b; arith = false; break; // MVN
  }
  const writes = op < 8 || op >= 12;
  if (writes && d == 15) {
    if (s) aluExceptionReturn(res);
    else aluWritePc(res);
    return;
  }
  if (writes) setRegRaw(d, res);
  if (s) {
    setNZ(res);
    setSt(FLAG_C, c);
    if (arith) setSt(FLAG_V, v);
  }
}

// ---- Status registers (B9.3) ----
/** MSR: writes the bytes of CPSR (or the SPSR) selected by `mask` (bit 0 = byte 0 ... bit 3 = byte 3). */
export function psrWrite(mask: u32, value: u32, spsr: bool): void {
  let bytes: u32 = 0;
  if (mask & 1) bytes |= 0x000000ff;
  if (mask & 2) bytes |= 0x0000ff00;
  if (mask & 4) bytes |= 0x00ff0000;
  if (mask & 8) bytes |= 0xff000000;
  if (spsr) {
    const at = spsrOf(currentMode());
    if (at == 0) return; // UNPREDICTABLE without an SPSR: ignore
    setSt(at, (st(at) & ~bytes) | (value & bytes));
    return;
  }
  const old = readCpsr();
  // User mode may only write the flags (NZCVQ) and GE.
  let writable: u32 = privileged() ? bytes : bytes & 0xf80f0000;
  writable &= 0xf80f03df | 0x200; // never the IT/J bits; T only through exception return
  writable &= ~u32(PSR_T);
  const v = (old & ~writable) | (value & writable);
  writeFlags(v);
  if (writable & 0xff) writeControl(v);
  else if (writable & 0x200) setSt(CPSR_CTL, (st(CPSR_CTL) & ~PSR_E) | (v & PSR_E));
}

/** MRS: Rd = CPSR (what the mode may see) or the SPSR. */
export function psrRead(d: u32, spsr: bool): void {
  let v: u32;
  if (spsr) {
    const at = spsrOf(currentMode());
    if (at == 0) { raised = EXC_UNDEF; return; }
    v = st(at);
  } else {
    // The execution state bits (IT, J, T) read as zero (B9.3.9). In User
    // mode the bits other than the APSR's are UNKNOWN: they read as the
    // CPSR's, as on qemu.
    v = readCpsr() & 0xf80f03df;
  }
  setRegRaw(d, v);
}

/** B9.2.3 banked register encodings: returns mode << 8 | register (16 = SPSR), or 0xffff. */
function bankedTarget(r: u32, m: u32, m1: u32): u32 {
  const sysm = (r << 5) | (m << 4) | m1;
  if (sysm <= 0x06) return (MODE_USR << 8) | (8 + sysm);
  if (sysm >= 0x08 && sysm <= 0x0e) return (MODE_FIQ << 8) | (sysm);
  switch (sysm) {
    case 0x10: return (MODE_IRQ << 8) | 14;
    case 0x11: return (MODE_IRQ << 8) | 13;
    case 0x12: return (MODE_SVC << 8) | 14;
    case 0x13: return (MODE_SVC << 8) | 13;
    case 0x14: return (MODE_ABT << 8) | 14;
    case 0x15: return (MODE_ABT << 8) | 13;
    case 0x16: return (MODE_UND << 8) | 14;
    case 0x17: return (MODE_UND << 8) | 13;
    case 0x2e: return (MODE_FIQ << 8) | 16;
    case 0x30: return (MODE_IRQ << 8) | 16;
    case 0x32: return (MODE_SVC << 8) | 16;
    case 0x34: return (MODE_ABT << 8) | 16;
    case 0x36: return (MODE_UND << 8) | 16;
  }
  return 0xffff;
}
/** MRS (banked register): Rd = the register SYSm = r:m:m1 names. */
export function bankedRead(d: u32, r: u32, m: u32, m1: u32): void {
  const t = bankedTarget(r, m, m1);
  if (t == 0xffff || !privileged()) { raised = EXC_UNDEF; return; }
  const mode = t >>> 8;
  const n = t & 0xff;
  setRegRaw(d, n == 16 ? st(spsrOf(mode)) : bankedReg(mode, n));
}
/** MSR (banked register): the register SYSm = r:m:m1 names = Rn. */
export function bankedWrite(n: u32, r: u32, m: u32, m1: u32): void {
  const t = bankedTarget(r, m, m1);
  if (t == 0xffff || !privileged()) { raised = EXC_UNDEF; return; }
  const mode = t >>> 8;
  const target = t & 0xff;
  if (target == 16) setSt(spsrOf(mode), reg(n));
  else setBankedReg(mode, target, reg(n));
}

/** CPS: imod 2 enables, 3 disables the A/I/F interrupts named; a mode change when `changeMode`. */
export function changeProcessorState(imod: u32, changeMode: bool, a: bool, i: bool, f: bool, mode: u32): void {
  if (!privileged()) return; // NOP in User mode
  let ctl = st(CPSR_CTL);
  let flags: u32 = 0;
  if (a) flags |= PSR_A;
  if (i) flags |= PSR_I;
  if (f) flags |= PSR_F;
  if (imod == 2) ctl &= ~flags;
  else if (imod == 3) ctl |= flags;
  if (changeMode && validMode(mode)) ctl = (ctl & ~0x1f) | mode;
  writeControl(ctl);
}

/** SETEND: big-endian data is not modelled, so SETEND BE is undefined here. */
export function setEndianness(big: bool): void {
  if (big) raised = EXC_UNDEF;
}

// ---- Multiplies (A4.4) ----
/** MUL, MLA: Rd = Rn * Rm (+ Ra), NZ when `s`. */
@inline export function multiply(d: u32, n: u32, m: u32, acc: u32, s: bool): void {
  const r = reg(n) * reg(m) + acc;
  setRegRaw(d, r);
  if (s) setNZ(r);
}
/** MLS: Rd = Ra - Rn * Rm. */
export function multiplySubtract(d: u32, n: u32, m: u32, a: u32): void {
  setRegRaw(d, reg(a) - reg(n) * reg(m));
}
/** Writes a 64-bit result to RdHi:RdLo, NZ when `s`. */
@inline function setLong(lo: u32, hi: u32, r: u64, s: bool): void {
  setRegRaw(lo, u32(r));
  setRegRaw(hi, u32(r >>> 32));
  if (s) {
    setSt(FLAG_N, u32(r >>> 63));
    setSt(FLAG_Z, u32(r == 0));
  }
}
@inline function accumulator(lo: u32, hi: u32): u64 {
  return (u64(reg(hi)) << 32) | u64(reg(lo));
}
export const LONG_UMULL: u32 = 0;
export const LONG_UMLAL: u32 = 1;
export const LONG_SMULL: u32 = 2;
export const LONG_SMLAL: u32 = 3;
/** UMULL, UMLAL, SMULL, SMLAL (kind LONG_*). */
export function multiplyLong(kind: u32, lo: u32, hi: u32, n: u32, m: u32, s: bool): void {
  let r: u64;
  if (kind >= LONG_SMULL) r = u64(i64(i32(reg(n))) * i64(i32(reg(m))));
  else r = u64(reg(n)) * u64(reg(m));
  if (kind & 1) r += accumulator(lo, hi);
  setLong(lo, hi, r, s);
}
/** UMAAL: RdHi:RdLo = Rn * Rm + RdLo + RdHi. */
export function multiplyAccumulateAccumulate(lo: u32, hi: u32, n: u32, m: u32): void {
  const r = u64(reg(n)) * u64(reg(m)) + u64(reg(lo)) + u64(reg(hi));
  setRegRaw(lo, u32(r));
  setRegRaw(hi, u32(r >>> 32));
}

@inline function half(v: u32, top: bool): i32 {
  return top ? i32(v) >> 16 : i32(i16(v));
}
@inline function setQIfOverflow(r: i64): u32 {
  if (r != i64(i32(r))) setSt(FLAG_Q, 1);
  return u32(r);
}
/** SMLA<x><y> (with `accumulate`) and SMUL<x><y>: halves of Rn and Rm chosen by nTop/mTop. */
export function multiplyHalves(d: u32, n: u32, m: u32, a: u32, nTop: bool, mTop: bool, accumulate: bool): void {
  const p = i64(half(reg(n), nTop)) * i64(half(reg(m), mTop));
  if (accumulate) setRegRaw(d, setQIfOverflow(p + i64(i32(reg(a)))));
  else setRegRaw(d, u32(p));
}
/** SMLAW<y> (with `accumulate`) and SMULW<y>: Rn times a half of Rm, bits 47:16. */
export function multiplyWordHalf(d: u32, n: u32, m: u32, a: u32, mTop: bool, accumulate: bool): void {
  const p = (i64(i32(reg(n))) * i64(half(reg(m), mTop))) >> 16;
  if (accumulate) setRegRaw(d, setQIfOverflow(p + i64(i32(reg(a)))));
  else setRegRaw(d, u32(p));
}
/** SMLAL<x><y>: RdHi:RdLo += half(Rn) * half(Rm). */
export function multiplyHalvesLong(lo: u32, hi: u32, n: u32, m: u32, nTop: bool, mTop: bool): void {
  const p = i64(half(reg(n), nTop)) * i64(half(reg(m), mTop));
  const r = u64(p) + accumulator(lo, hi);
  setRegRaw(lo, u32(r));
  setRegRaw(hi, u32(r >>> 32));
}

// Dual 16-bit multiplies: the product of the low halves is returned, the high one left in dualHigh.
let dualHigh: i64 = 0;
@inline function dualProducts(n: u32, m: u32, swap: bool): i64 {
  let mv = reg(m);
  if (swap) mv = rotr<u32>(mv, 16);
  const nv = reg(n);
  dualHigh = i64(half(nv, true)) * i64(half(mv, true));
  return i64(half(nv, false)) * i64(half(mv, false));
}
/** SMLAD/SMLSD (`subtract`), SMUAD/SMUSD without `accumulate`. */
export function multiplyDual(d: u32, n: u32, m: u32, a: u32, swap: bool, subtract: bool, accumulate: bool): void {
  const lo = dualProducts(n, m, swap);
  const sum = subtract ? lo - dualHigh : lo + dualHigh;
  if (accumulate) setRegRaw(d, setQIfOverflow(sum + i64(i32(reg(a)))));
  else if (subtract) setRegRaw(d, u32(sum));
  else setRegRaw(d, setQIfOverflow(sum));
}
/** SMLALD/SMLSLD (`subtract`). */
export function multiplyDualLong(lo: u32, hi: u32, n: u32, m: u32, swap: bool, subtract: bool): void {
  const low = dualProducts(n, m, swap);
  const r = u64(subtract ? low - dualHigh : low + dualHigh) + accumulator(lo, hi);
  setRegRaw(lo, u32(r));
  setRegRaw(hi, u32(r >>> 32));
}
/** SMMUL/SMMLA/SMMLS: the top word of Ra:0 +/- Rn * Rm, rounded when `round`. */
export function multiplyMostSignificant(d: u32, n: u32, m: u32, a: u32, accumulate: bool, negate: bool, round: bool): void {
  const p = i64(i32(reg(n))) * i64(i32(reg(m)));
  const acc: i64 = accumulate ? i64(reg(a)) << 32 : 0;
  let r = negate ? acc - p : acc + p;
  if (round) r += 0x80000000;
  setRegRaw(d, u32(r >> 32));
}
/** SDIV (`signed`) and UDIV: division by zero gives 0 (no trap, as SCTLR.DZ = 0). */
export function divide(d: u32, n: u32, m: u32, signed: bool): void {
  if (signed) {
    const x = i32(reg(n));
    const y = i32(reg(m));
    let r: i32;
    if (y == 0) r = 0;
    else if (x == i32.MIN_VALUE && y == -1) r = x;
    else r = x / y;
    setRegRaw(d, u32(r));
  } else {
    const y = reg(m);
    setRegRaw(d, y == 0 ? 0 : reg(n) / y);
  }
}

// ---- Saturation (A2.2.1) ----
let satFlag: bool = false;
@inline function signedSat(v: i64, bits: u32): u32 {
  const max = (i64(1) << (bits - 1)) - 1;
  const min = -(i64(1) << (bits - 1));
  if (v > max) { satFlag = true; return u32(max); }
  if (v < min) { satFlag = true; return u32(min); }
  return u32(v);
}
@inline function unsignedSat(v: i64, bits: u32): u32 {
  const max = (i64(1) << bits) - 1;
  if (v > max) { satFlag = true; return u32(max); }
  if (v < 0) { satFlag = true; return 0; }
  return u32(v);
}

/** QADD/QSUB/QDADD/QDSUB: Rd = sat(Rm +/- (doubled, saturated) Rn). */
export function saturatingArithmetic(d: u32, m: u32, n: u32, double: bool, subtract: bool): void {
  satFlag = false;
  let b = i64(i32(reg(n)));
  if (double) b = i64(i32(signedSat(b * 2, 32)));
  const a = i64(i32(reg(m)));
  const r = signedSat(subtract ? a - b : a + b, 32);
  setRegRaw(d, r);
  if (satFlag) setSt(FLAG_Q, 1);
}
/** SSAT (`signed`, to `bits` bits) and USAT of Rn shifted (type 0 lsl / 2 asr by imm5). */
export function saturate(d: u32, n: u32, bits: u32, shiftType: u32, imm5: u32, signed: bool): void {
  satFlag = false;
  const operand = shiftNoCarry(reg(n), shiftType, imm5);
  setRegRaw(d, signed ? signedSat(i64(i32(operand)), bits) : unsignedSat(i64(i32(operand)), bits));
  if (satFlag) setSt(FLAG_Q, 1);
}
/** SSAT16/USAT16: each half of Rn saturated to `bits` bits. */
export function saturateHalves(d: u32, n: u32, bits: u32, signed: bool): void {
  satFlag = false;
  const v = reg(n);
  const lo = (signed ? signedSat(i64(half(v, false)), bits) : unsignedSat(i64(half(v, false)), bits)) & 0xffff;
  const hi = (signed ? signedSat(i64(half(v, true)), bits) : unsignedSat(i64(half(v, true)), bits)) & 0xffff;
  setRegRaw(d, lo | (hi << 16));
  if (satFlag) setSt(FLAG_Q, 1);
}

// ---- Parallel add/subtract (A4.4.3) ----
// kind: 0 S, 1 Q, 2 SH, 3 U, 4 UQ, 5 UH; op: 0 ADD16, 1 ASX, 2 SAX, 3 SUB16, 4 ADD8, 7 SUB8
export function parallel(d: u32, n: u32, m: u32, kind: u32, op: u32): void {
  const a = reg(n);
  const b = reg(m);
  const signed = kind < 3;
  const lanes: u32 = op >= 4 ? 4 : 2;
  const width: u32 = op >= 4 ? 8 : 16;
  const laneMask: u32 = (u32(1) << width) - 1;
  let result: u32 = 0;
  let ge: u32 = 0;
  for (let i: u32 = 0; i < lanes; i++) {
    // Which halves pair up: ASX/SAX cross them.
    const ai = i;
    let bi = i;
    let add = true;
    if (op == 0 || op == 4) add = true;
    else if (op == 3 || op == 7) add = false;
    else if (op == 1) { bi = 1 - i; add = i == 1; } // ASX: lo = a.lo - b.hi, hi = a.hi + b.lo
    else { bi = 1 - i; add = i == 0; } // SAX: lo = a.lo + b.hi, hi = a.hi - b.lo
    const ra = (a >>> (ai * width)) & laneMask;
    const rb = (b >>> (bi * width)) & laneMask;
    const x: i32 = signed ? (i32(ra << (32 - width)) >> (32 - width)) : i32(ra);
    const y: i32 = signed ? (i32(rb << (32 - width)) >> (32 - width)) : i32(rb);
    const r: i32 = add ? x + y : x - y;
    let lane: u32;
    let geBit: bool;
    switch (kind) {
      case 0: lane = u32(r); geBit = r >= 0; break;
      case 1: lane = signedSat(i64(r), width); geBit = false; break;
      case 2: lane = u32(r >> 1); geBit = false; break;
      case 3: lane = u32(r); geBit = add ? r >= i32(1 << width) : r >= 0; break;
      case 4: lane = unsignedSat(i64(r), width); geBit = false; break;
      default: lane = u32(r >> 1); geBit = false; break;
    }
    result |= (lane & laneMask) << (i * width);
    if (geBit) ge |= width == 16 ? (u32(3) << (i * 2)) : (u32(1) << i);
  }
  setRegRaw(d, result);
  if (kind == 0 || kind == 3) setSt(FLAG_GE, ge);
}

/** SEL: each byte from Rn where its GE bit is set, else from Rm. */
export function select(d: u32, n: u32, m: u32): void {
  const ge = st(FLAG_GE);
  const a = reg(n);
  const b = reg(m);
  let r: u32 = 0;
  for (let i: u32 = 0; i < 4; i++) r |= (((ge >>> i) & 1) ? a : b) & (u32(0xff) << (i * 8));
  setRegRaw(d, r);
}
/** USAD8/USADA8: sum of absolute byte differences of Rn and Rm, plus Ra when `accumulate`. */
export function sumAbsoluteDifferences(d: u32, n: u32, m: u32, a: u32, accumulate: bool): void {
  const x = reg(n);
  const y = reg(m);
  let s: u32 = 0;
  for (let i: u32 = 0; i < 32; i += 8) {
    const diff = i32((x >>> i) & 0xff) - i32((y >>> i) & 0xff);
    s += u32(diff < 0 ? -diff : diff);
  }
  setRegRaw(d, accumulate ? s + reg(a) : s);
}

// ---- Packing, extends, reversal, bit fields ----
/** PKHBT (bottom from Rn, top from Rm lsl) and PKHTB (`topBottom`: top from Rn, bottom from Rm asr). */
export function pack(d: u32, n: u32, m: u32, topBottom: bool, imm5: u32): void {
  if (!topBottom) {
    setRegRaw(d, (reg(n) & 0xffff) | ((reg(m) << imm5) & 0xffff0000));
  } else {
    const v = u32(i32(reg(m)) >> (imm5 == 0 ? 31 : imm5));
    setRegRaw(d, (reg(n) & 0xffff0000) | (v & 0xffff));
  }
}

export const EXTEND_SXTB: u32 = 0;
export const EXTEND_SXTH: u32 = 1;
export const EXTEND_UXTB: u32 = 2;
export const EXTEND_UXTH: u32 = 3;
export const EXTEND_SXTB16: u32 = 4;
export const EXTEND_UXTB16: u32 = 5;
/** The extends (kind EXTEND_*) of Rm rotated right by `rotation` bits, added to Rn unless n = 15. */
@inline export function extend(d: u32, n: u32, m: u32, rotation: u32, kind: u32): void {
  const v = rotr<u32>(reg(m), rotation);
  const add: u32 = n == 15 ? 0 : reg(n);
  let r: u32;
  switch (kind) {
    case 0: r = add + u32(i32(i8(v))); break;
    case 1: r = add + u32(i32(i16(v))); break;
    case 2: r = add + (v & 0xff); break;
    case 3: r = add + (v & 0xffff); break;
    default: {
      const signed = kind == EXTEND_SXTB16;
      const lo = signed ? u32(i32(i8(v))) : v & 0xff;
      const hi = signed ? u32(i32(i8(v >>> 16))) : (v >>> 16) & 0xff;
      r = ((lo + add) & 0xffff) | (((hi + (add >>> 16)) & 0xffff) << 16);
    }
  }
  setRegRaw(d, r);
}

export const REVERSE_REV: u32 = 0;
export const REVERSE_REV16: u32 = 1;
export const REVERSE_REVSH: u32 = 2;
export const REVERSE_RBIT: u32 = 3;
export const REVERSE_CLZ: u32 = 4;
/** REV, REV16, REVSH, RBIT and CLZ of Rm. */
export function reverse(d: u32, m: u32, kind: u32): void {
  let v = reg(m);
  let r: u32;
  switch (kind) {
    case 0: r = bswap<u32>(v); break;
    case 1: r = ((v & 0x00ff00ff) << 8) | ((v >>> 8) & 0x00ff00ff); break;
    case 2: r = u32(i32(i16(((v & 0xff) << 8) | ((v >>> 8) & 0xff)))); break;
    case 3: {
      r = 0;
      for (let i = 0; i < 32; i++) {
        r = (r << 1) | (v & 1);
        v >>>= 1;
      }
      break;
    }
    default: r = clz<u32>(v);
  }
  setRegRaw(d, r);
}

/** SBFX (`signed`) and UBFX: `width` bits of Rn from `lsb`. */
export function bitfieldExtract(d: u32, n: u32, lsb: u32, width: u32, signed: bool): void {
  if (lsb + width > 32) { raised = EXC_UNDEF; return; } // UNPREDICTABLE
  const v = reg(n) << (32 - lsb - width);
  setRegRaw(d, signed ? u32(i32(v) >> (32 - width)) : v >>> (32 - width));
}
/** BFI (source Rn) and BFC (source 0): bits lsb..msb of Rd replaced. */
export function bitfieldInsert(d: u32, source: u32, lsb: u32, msb: u32): void {
  if (msb < lsb) { raised = EXC_UNDEF; return; } // UNPREDICTABLE
  const width = msb - lsb + 1;
  const mask: u32 = (width == 32 ? 0xffffffff : ((u32(1) << width) - 1)) << lsb;
  setRegRaw(d, (reg(d) & ~mask) | ((source << lsb) & mask));
}

// ---- Loads and stores (A8.6) ----
/** An alignment fault: reported like any other data abort. */
@inline export function alignmentFault(va: u32): void {
  alignmentAbort(va, false);
}

/**
 * A single load or store of `size` bytes: the address is `base` +/- offset
 * when `index`, else `base` (post-indexed); Rn = the offset address when
 * `wback`. Unprivileged (LDRT and friends) accesses check User permissions.
 * A load of r15 is LoadWritePC.
 */
@inline export function transfer(t: u32, n: u32, base: u32, offset: u32, add: bool, index: bool, wback: bool, size: u32, load: bool, signed: bool, unprivileged: bool): void {
  const offsetAddr = add ? base + offset : base - offset;
  const addr = index ? offsetAddr : base;
  // Unaligned word and halfword accesses are allowed unless SCTLR.A is set (A3.5.5).
  if ((addr & (size - 1)) != 0 && (st(CP15_SCTLR) & 2) != 0) {
    alignmentAbort(addr, !load);
    return;
  }
  if (unprivileged) setForceUser(true);
  if (load) {
    let v = read(addr, size);
    setForceUser(false);
    if (aborted) return;
    if (signed) v = size == 1 ? u32(i32(i8(v))) : u32(i32(i16(v)));
    if (wback) setRegRaw(n, offsetAddr);
    if (t == 15) {
      if (size == 4) bxWritePc(v);
      else raised = EXC_UNDEF; // UNPREDICTABLE
    } else setRegRaw(t, v);
  } else {
    write(addr, size, reg(t));
    setForceUser(false);
    if (aborted) return;
    if (wback) setRegRaw(n, offsetAddr);
  }
}

/** LDRD/STRD of Rt and Rt2 at base +/- offset (indexing and writeback as transfer()). */
export function transferDouble(t: u32, t2: u32, n: u32, base: u32, offset: u32, add: bool, index: bool, wback: bool, load: bool): void {
  const offsetAddr = add ? base + offset : base - offset;
  const addr = index ? offsetAddr : base;
  if (addr & 3) { alignmentFault(addr); return; }
  if (load) {
    const lo = read(addr, 4);
    if (aborted) return;
    const hi = read(addr + 4, 4);
    if (aborted) return;
    if (wback) setRegRaw(n, offsetAddr);
    setRegRaw(t, lo);
    setRegRaw(t2, hi);
  } else {
    if (!probeWrite(addr + 4)) return;
    write(addr, 4, reg(t));
    if (aborted) return;
    write(addr + 4, 4, reg(t2));
    if (aborted) return;
    if (wback) setRegRaw(n, offsetAddr);
  }
}

export const BLOCK_NORMAL: u32 = 0;
export const BLOCK_USER: u32 = 1; // ^ without pc: the User registers
export const BLOCK_RETURN: u32 = 2; // ^ with pc in a load: exception return
const loadBuffer = memory.data(64);
/** LDM/STM of `list` at Rn (decrement `before`/increment `up` as A32's P/U), writeback when `wback`. */
export function blockTransfer(n: u32, list: u32, before: bool, up: bool, wback: bool, isLoad: bool, kind: u32): void {
  const count = popcnt<u32>(list);
  const base = reg(n);
  let start: u32;
  let end: u32;
  if (up) {
    start = before ? base + 4 : base;
    end = base + count * 4;
  } else {
    start = before ? base - count * 4 : base - count * 4 + 4;
    end = base - count * 4;
  }
  if (count == 0) { raised = EXC_UNDEF; return; } // UNPREDICTABLE
  if (start & 3) { alignmentFault(start); return; }
  if (kind == BLOCK_USER && !privileged()) { raised = EXC_UNDEF; return; }
  if (isLoad) {
    // Load everything first so an abort leaves the registers unchanged.
    let addr = start;
    const saved = loadBuffer;
    for (let i: u32 = 0; i < 16; i++) {
      if (list & (1 << i)) {
        const v = read(addr, 4);
        if (aborted) return;
        store<u32>(saved + (usize(i) << 2), v);
        addr += 4;
      }
    }
    if (wback && kind != BLOCK_USER) setRegRaw(n, end);
    for (let i: u32 = 0; i < 15; i++) {
      if (list & (1 << i)) {
        const v = load<u32>(saved + (usize(i) << 2));
        if (kind == BLOCK_USER) setBankedReg(MODE_USR, i, v);
        else setRegRaw(i, v);
      }
    }
    if (list & 0x8000) {
      const pcv = load<u32>(saved + 60);
      if (kind == BLOCK_RETURN) aluExceptionReturn(pcv);
      else bxWritePc(pcv);
    }
  } else {
    let addr = start;
    // Check the last word first: a fault then leaves memory unchanged in the common case.
    if (!probeWrite(start + (count - 1) * 4)) return;
    for (let i: u32 = 0; i < 16; i++) {
      if (list & (1 << i)) {
        const v = kind == BLOCK_USER ? bankedReg(MODE_USR, i) : reg(i);
        write(addr, 4, v);
        if (aborted) return;
        addr += 4;
      }
    }
    if (wback) setRegRaw(n, end);
  }
}

// ---- Exclusive access (A3.4) ----
/** LDREX{B,H}: Rt = [address], the local monitor open for it. */
@inline export function loadExclusive(t: u32, addr: u32, size: u32): void {
  if (addr & (size - 1)) { alignmentFault(addr); return; }
  const v = read(addr, size);
  if (aborted) return;
  setSt(EXCL_ADDR, addr);
  setSt(EXCL_OPEN, 1);
  setRegRaw(t, v);
}
/** STREX{B,H}: stores Rt when the monitor is open for the address; Rd = 0 on success, 1 otherwise. */
@inline export function storeExclusive(d: u32, t: u32, addr: u32, size: u32): void {
  if (addr & (size - 1)) { alignmentFault(addr); return; }
  const ok = st(EXCL_OPEN) != 0 && st(EXCL_ADDR) == addr;
  if (ok) {
    write(addr, size, reg(t));
    if (aborted) return;
  }
  setSt(EXCL_OPEN, 0);
  setRegRaw(d, ok ? 0 : 1);
}
/** LDREXD: Rt, Rt2 = the doubleword at Rn. */
export function loadExclusiveDouble(t: u32, t2: u32, n: u32): void {
  const addr = reg(n);
  if (addr & 7) { alignmentFault(addr); return; }
  const lo = read(addr, 4);
  if (aborted) return;
  const hi = read(addr + 4, 4);
  if (aborted) return;
  setSt(EXCL_ADDR, addr);
  setSt(EXCL_OPEN, 1);
  setRegRaw(t, lo);
  setRegRaw(t2, hi);
}
/** STREXD: Rt, Rt2 to the doubleword at Rn when the monitor is open; Rd = status. */
export function storeExclusiveDouble(d: u32, t: u32, t2: u32, n: u32): void {
  const addr = reg(n);
  if (addr & 7) { alignmentFault(addr); return; }
  const ok = st(EXCL_OPEN) != 0 && st(EXCL_ADDR) == addr;
  if (ok) {
    if (!probeWrite(addr + 4)) return;
    write(addr, 4, reg(t));
    if (aborted) return;
    write(addr + 4, 4, reg(t2));
    if (aborted) return;
  }
  setSt(EXCL_OPEN, 0);
  setRegRaw(d, ok ? 0 : 1);
}
export function clearExclusive(): void {
  setSt(EXCL_OPEN, 0);
}

// ---- Exception return and save (B9.3.13, B9.3.16) ----
/** SRS: stores LR and SPSR to the stack of `mode` (increment `up`, `before` as P), writeback when `wback`. */
export function storeReturnState(mode: u32, before: bool, up: bool, wback: bool): void {
  if (!privileged()) { raised = EXC_UNDEF; return; }
  if (!validMode(mode) || mode == MODE_USR || mode == MODE_SYS) { raised = EXC_UNDEF; return; }
  const spsrAt = spsrOf(currentMode());
  if (spsrAt == 0) { raised = EXC_UNDEF; return; }
  const base = bankedReg(mode, 13);
  const addr = up ? (before ? base + 4 : base) : (before ? base - 8 : base - 4);
  if (addr & 3) { alignmentFault(addr); return; }
  if (!probeWrite(addr + 4)) return;
  write(addr, 4, reg(14));
  if (aborted) return;
  write(addr + 4, 4, st(spsrAt));
  if (aborted) return;
  if (wback) setBankedReg(mode, 13, up ? base + 8 : base - 8);
}
/** RFE: loads pc and CPSR from Rn. */
export function returnFromException(n: u32, before: bool, up: bool, wback: bool): void {
  if (!privileged()) { raised = EXC_UNDEF; return; }
  const base = reg(n);
  const addr = up ? (before ? base + 4 : base) : (before ? base - 8 : base - 4);
  if (addr & 3) { alignmentFault(addr); return; }
  const pcv = read(addr, 4);
  if (aborted) return;
  const psr = read(addr + 4, 4);
  if (aborted) return;
  if (wback) setRegRaw(n, up ? base + 8 : base - 8);
  writeCpsr(psr);
  setRegRaw(15, (psr & PSR_T) ? pcv & ~1 : pcv & ~3);
  pcWritten = true;
}

// ---- Coprocessors: CP15 system control (B4.1), everything else undefined ----
const MIDR: u32 = 0x410fc075; // Cortex-A7 r0p5
const CTR: u32 = 0x84448003;

/** Called after any change that affects translation. */
function translationChanged(): void {
  tlbFlush();
}

function cp15Read(opc1: u32, crn: u32, crm: u32, opc2: u32): u32 {
  const user = !privileged();
  if (crn == 13 && opc1 == 0 && crm == 0) {
    if (opc2 == 2) return st(CP15_TPIDRURW);
    if (opc2 == 3) return st(CP15_TPIDRURO);
    if (user) { raised = EXC_UNDEF; return 0; }
    if (opc2 == 4) return st(CP15_TPIDRPRW);
    if (opc2 == 1) return st(CP15_CONTEXTIDR);
    if (opc2 == 0) return 0; // FCSEIDR
  }
  if (user) { raised = EXC_UNDEF; return 0; }
  if (opc1 == 0) {
    if (crn == 0 && crm == 0) {
      if (opc2 == 0 || opc2 == 4 || opc2 == 6 || opc2 == 7) return MIDR;
      if (opc2 == 1) return CTR;
      if (opc2 == 5) return 0x80000000 | st(CPU_ID);
      return 0;
    }
    if (crn == 0) return 0; // feature registers: nothing optional implemented
    if (crn == 1 && crm == 0) {
      if (opc2 == 0) return st(CP15_SCTLR);
      if (opc2 == 1) return 0; // ACTLR
      if (opc2 == 2) return st(CP15_CPACR);
    }
    if (crn == 2 && crm == 0) {
      if (opc2 == 0) return st(CP15_TTBR0);
      if (opc2 == 1) return st(CP15_TTBR1);
      if (opc2 == 2) return st(CP15_TTBCR);
    }
    if (crn == 3 && crm == 0 && opc2 == 0) return st(CP15_DACR);
    if (crn == 5 && crm == 0) {
      if (opc2 == 0) return st(CP15_DFSR);
      if (opc2 == 1) return st(CP15_IFSR);
    }
    if (crn == 5 && crm == 1) return 0; // ADFSR/AIFSR
    if (crn == 6 && crm == 0) {
      if (opc2 == 0) return st(CP15_DFAR);
      if (opc2 == 2) return st(CP15_IFAR);
    }
    if (crn == 7 && crm == 4 && opc2 == 0) return st(CP15_PAR);
    if (crn == 10) return 0; // PRRR/NMRR: memory attributes are not modelled
    if (crn == 12 && crm == 0 && opc2 == 0) return st(CP15_VBAR);
    if (crn == 12 && crm == 1 && opc2 == 0) return 0; // ISR
  }
  if (opc1 == 1 && crn == 0 && crm == 0) return 0; // CCSIDR, CLIDR, AIDR
  if (opc1 == 2 && crn == 0 && crm == 0 && opc2 == 0) return 0; // CSSELR
  raised = EXC_UNDEF;
  return 0;
}

function cp15Write(opc1: u32, crn: u32, crm: u32, opc2: u32, v: u32): void {
  const user = !privileged();
  if (crn == 13 && opc1 == 0 && crm == 0 && opc2 == 2) { setSt(CP15_TPIDRURW, v); return; }
  // User-mode CP15 barrier operations (deprecated but available).
  if (opc1 == 0 && crn == 7 && ((crm == 10 && (opc2 == 4 || opc2 == 5)) || (crm == 5 && opc2 == 4))) return;
  if (user) { raised = EXC_UNDEF; return; }
  if (opc1 != 0) {
    if (opc1 == 2 && crn == 0 && crm == 0 && opc2 == 0) return; // CSSELR
    raised = EXC_UNDEF;
    return;
  }
  switch (crn) {
    case 1:
      if (crm == 0 && opc2 == 0) {
        // Supported SCTLR bits: M(0) A(1) C(2) Z(11) I(12) V(13) TE(30) plus RES1 bits.
        setSt(CP15_SCTLR, (v & 0x40003807) | 0x00c50078);
        translationChanged();
        return;
      }
      if (crm == 0 && opc2 == 1) return; // ACTLR
      if (crm == 0 && opc2 == 2) { setSt(CP15_CPACR, v & 0x00f00000); return; } // cp10 and cp11 (VFP) only
      break;
    case 2:
      if (crm == 0 && opc2 == 0) { setSt(CP15_TTBR0, v); translationChanged(); return; }
      if (crm == 0 && opc2 == 1) { setSt(CP15_TTBR1, v); translationChanged(); return; }
      if (crm == 0 && opc2 == 2) { setSt(CP15_TTBCR, v & 7); translationChanged(); return; }
      break;
    case 3:
      if (crm == 0 && opc2 == 0) { setSt(CP15_DACR, v); translationChanged(); return; }
      break;
    case 5:
      if (crm == 0 && opc2 == 0) { setSt(CP15_DFSR, v); return; }
      if (crm == 0 && opc2 == 1) { setSt(CP15_IFSR, v); return; }
      if (crm == 1) return;
      break;
    case 6:
      if (crm == 0 && opc2 == 0) { setSt(CP15_DFAR, v); return; }
      if (crm == 0 && opc2 == 2) { setSt(CP15_IFAR, v); return; }
      break;
    case 7:
      if (crm == 4 && opc2 == 0) { setSt(CP15_PAR, v); return; }
      if (crm == 8) { addressTranslate(opc2, v); return; }
      // Cache and branch-predictor maintenance: the decode cache is always coherent.
      if (crm == 0 || crm == 1 || crm == 5 || crm == 6 || crm == 10 || crm == 11 || crm == 14) return;
      break;
    case 8:
      // TLB maintenance (B4.2.2): by MVA flushes one page, everything else all.
      if (opc2 == 1 || opc2 == 3) tlbFlushPage(v);
      else tlbFlush();
      return;
    case 10:
      return; // PRRR/NMRR, memory attributes are not modelled
    case 12:
      if (crm == 0 && opc2 == 0) { setSt(CP15_VBAR, v & ~0x1f); return; }
      break;
    case 13:
      if (crm == 0 && opc2 == 0) return; // FCSEIDR (FCSE not implemented, RAZ/WI)
      if (crm == 0 && opc2 == 1) { setSt(CP15_CONTEXTIDR, v); translationChanged(); return; }
      if (crm == 0 && opc2 == 3) { setSt(CP15_TPIDRURO, v); return; }
      if (crm == 0 && opc2 == 4) { setSt(CP15_TPIDRPRW, v); return; }
      break;
  }
  raised = EXC_UNDEF;
}

/** ATS1C{P,U}{R,W}: translate and report the result in PAR (B4.2.6). */
function addressTranslate(opc2: u32, va: u32): void {
  if (opc2 > 3) { raised = EXC_UNDEF; return; }
  const savedAddr = st(FAULT_ADDR);
  const savedStatus = st(FAULT_STATUS);
  if (opc2 >= 2) setForceUser(true);
  const pa = translate(va, (opc2 & 1) ? ACC_WRITE : ACC_READ);
  setForceUser(false);
  if (aborted) {
    const fsr = st(FAULT_STATUS);
    setSt(CP15_PAR, 1 | ((fsr & 0xf) << 1) | (((fsr >>> 10) & 1) << 5));
    clearAbort();
    setSt(FAULT_ADDR, savedAddr);
    setSt(FAULT_STATUS, savedStatus);
  } else setSt(CP15_PAR, pa & 0xfffff000);
}

/**
 * MCR and MRC (A8.8.99, A8.8.108), whose fields sit at the same bits in A32
 * and T32: bits 27:0 of the word, the condition or T32 prefix above. Only
 * CP15 exists; MRC to r15 sets the APSR flags.
 */
export function coprocessorTransfer(w: u32, toCoprocessor: bool): void {
  if (((w >>> 8) & 15) != 15) { raised = EXC_UNDEF; return; }
  const opc1 = (w >>> 21) & 7;
  const crn = (w >>> 16) & 15;
  const t = (w >>> 12) & 15;
  const opc2 = (w >>> 5) & 7;
  const crm = w & 15;
  if (toCoprocessor) {
    cp15Write(opc1, crn, crm, opc2, reg(t));
    return;
  }
  const v = cp15Read(opc1, crn, crm, opc2);
  if (raised) return;
  if (t == 15) {
    // APSR_nzcv form
    setSt(FLAG_N, v >>> 31);
    setSt(FLAG_Z, (v >>> 30) & 1);
    setSt(FLAG_C, (v >>> 29) & 1);
    setSt(FLAG_V, (v >>> 28) & 1);
  } else setRegRaw(t, v);
}
