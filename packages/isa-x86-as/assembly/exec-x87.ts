// x87 instructions (opcodes D8-DF, FWAIT, FXSAVE/FXRSTOR; SDM vol. 1,
// chapter 8 and the vol. 2 pages of each): one entry point decodes the
// opcode byte and ModRM as the SDM's opcode map (appendix A.4) lays them
// out, the arithmetic is float80.ts's, the state x87-state.ts's.
//
// Every instruction follows the same order: a waiting instruction first
// raises #MF if an unmasked exception is pending; memory operands are read
// (a fault leaves everything as it was); the stack is checked (underflow of
// an empty operand, overflow of a push: invalid with SF, C1 = 0 or 1); the
// operation runs with the control word's rounding, precision and masks;
// then, unless an unmasked invalid, denormal or zero-divide exception
// stopped it, the result is stored (a memory store first, so a fault still
// leaves the FPU unchanged), the stack popped, and the exception flags and
// C1 (rounded up) merged into the status word. With a masked exception the
// SDM's masked response is the result (the indefinite, the quieted NaN,
// infinity ...).
import { dOpcode, dModrm, dMod, dRex, dPrefixes } from './insn';
import { PFX_66 } from './decode';
import { effectiveAddress, rip_of_insn } from './exec';
import { csSel } from './exec-system';
import {
  raise, readV, writeV, probeWrite, faultVector, reg64, setReg64, rflags, setFlags, cr0, mxcsr, setMxcsr,
  XMM, CF, PF, ZF, SF, AF, OF, ARITH_FLAGS, VEC_GP, VEC_UD,
} from './cpu';
import * as F from './float80';
import * as T from './float80-transcendental';
import {
  FPR, fpuControl, fpuStatus, fpuTop, fpuEmpty, fpuLastIp, fpuLastOpcode, fpuLastData, setControl, setStatusBits, setTop,
  setEmptyMask, setLastInstruction, setLastData, orStatus, clearStatus, exceptionPending, statusWord, prepareArithmetic,
  fpuReset, physical, regSig, regSe, isEmpty, writeReg, storeReg, freeReg, pop, canPush, push, tagOf, tagWord, setTagWord,
  SW_IE, SW_DE, SW_ZE, SW_PE, SW_SF, SW_C0, SW_C1, SW_C2, SW_C3, SW_CC,
} from './x87-state';

const VEC_NM: i32 = 7;
const VEC_MF: i32 = 16;

// ---- instruction prologue and epilogue -----------------------------------------------

/**
 * CR0.EM or CR0.TS makes x87 instructions raise #NM (device not available)
 * so a kernel can switch FPU state lazily; a waiting instruction raises #MF
 * first when an unmasked exception is pending. Returns false if it raised.
 */
function begin(waiting: bool): bool {
  if ((cr0 & 0xc) != 0) { raise(VEC_NM, 0); return false; }
  if (waiting && exceptionPending()) { raise(VEC_MF, 0); return false; }
  return true;
}
/** Records the instruction as the last non-control one (FIP, FOP; FDP for a memory operand). */
function noteInstruction(address: u64, hasMemory: bool): void {
  setLastInstruction(rip_of_insn, ((dOpcode() & 7) << 8) | dModrm());
  if (hasMemory) setLastData(address);
}
/** Merges the operation's exception flags; C1 = rounded up. */
function mergeFlags(): void {
  clearStatus(SW_C1);
  orStatus((F.flags & 0x3f) | (F.roundedUp && (F.flags & SW_PE) != 0 ? SW_C1 : 0));
}
/** Stack underflow (an empty operand): invalid with SF, C1 = 0. Returns true when masked (go on with the indefinite). */
function stackUnderflow(): bool {
  clearStatus(SW_C1);
  orStatus(SW_IE | SW_SF);
  return (fpuControl & SW_IE) != 0;
}
/** Stack overflow (a push onto a full stack): invalid with SF, C1 = 1. True when masked (the indefinite is pushed). */
function stackOverflow(): bool {
  orStatus(SW_IE | SW_SF | SW_C1);
  return (fpuControl & SW_IE) != 0;
}
/** Pushes a value, with the overflow response when the stack is full. */
function pushChecked(se: u32, sig: u64): void {
  if (!canPush()) {
    if (!stackOverflow()) return;
    push(F.INDEFINITE_SE, F.INDEFINITE_SIG);
    return;
  }
  push(se, sig);
}

// ---- memory operands ------------------------------------------------------------------
// A loaded operand arrives in loadedSe/loadedSig (conversion flags in F.flags).
let memAddress: u64 = 0;
let loadedSe: u32 = 0;
let loadedSig: u64 = 0;

const M32FP: u32 = 0;
const M64FP: u32 = 1;
const M32INT: u32 = 2;
const M16INT: u32 = 3;
const M80FP: u32 = 4;
const M64INT: u32 = 5;
const M80BCD: u32 = 6;

/**
 * Reads the memory operand of `kind` and converts it to 80 bits exactly (an
 * m80fp one as it is; SNaNs of m32fp/m64fp stay signaling, their denormals
 * raise denormal). False on a fault.
 */
function loadOperand(kind: u32): bool {
  const a = effectiveAddress();
  memAddress = a;
  if (kind == M80FP || kind == M80BCD) {
    const lo = readV(a, 8), hi = <u32>readV(a + 8, 2);
    if (faultVector >= 0) return false;
    if (kind == M80FP) { loadedSe = hi; loadedSig = lo; } else fromBcd(lo, hi);
    return true;
  }
  const v = readV(a, kind == M32INT || kind == M32FP ? 4 : kind == M16INT ? 2 : 8);
  if (faultVector >= 0) return false;
  if (kind == M32FP || kind == M64FP) F.fromBinary(v, kind == M32FP);
  else if (kind == M32INT) F.fromInt64(<i64><i32><u32>v);
  else if (kind == M16INT) F.fromInt64(<i64><i16><u16>v);
  else F.fromInt64(<i64>v);
  loadedSe = F.resultSe; loadedSig = F.resultSig;
  return true;
}

/** Packed BCD (SDM vol. 1, 4.7): 18 digits, two per byte from the low byte, the sign in bit 79 (-0 kept). */
function fromBcd(lo: u64, hi: u32): void {
  let v: i64 = 0;
  for (let i = 8; i >= 0; i--) {
    const b = i == 8 ? hi & 0xff : <u32>(lo >> (<u64>i * 8)) & 0xff;
    v = v * 100 + <i64>((b >> 4) * 10 + (b & 15));
  }
  F.fromInt64(v);
  loadedSe = F.resultSe | ((hi & 0x8000) != 0 ? 0x8000 : 0);
  loadedSig = F.resultSig;
}

/** SNaN from memory: invalid, delivered quieted (the loads). */
function quietLoaded(): void {
  if (F.isSignaling80(loadedSe, loadedSig)) { F.signalInvalid(); F.setResult(loadedSe, loadedSig | F.QUIET_BIT); loadedSig |= F.QUIET_BIT; }
}

// ---- arithmetic ------------------------------------------------------------------------
/** op: 0 add, 1 mul, 4 sub (a - b), 5 subr (b - a), 6 div (a / b), 7 divr (b / a). */
function arithmetic(op: u32, aSe: u32, aSig: u64, bSe: u32, bSig: u64): void {
  if (op == 0) F.add80(aSe, aSig, bSe, bSig, false);
  else if (op == 1) F.mul80(aSe, aSig, bSe, bSig);
  else if (op == 4) F.add80(aSe, aSig, bSe, bSig, true);
  else if (op == 5) F.add80(bSe, bSig, aSe, aSig, true);
  else if (op == 6) F.div80(aSe, aSig, bSe, bSig);
  else F.div80(bSe, bSig, aSe, aSig);
}

/** Sets C3 C2 C0 from a comparison (C1 cleared), unless an unmasked invalid operand stopped it. */
function compareCodes(r: i32): void {
  if ((F.flags & SW_IE & ~fpuControl) != 0) return;
  setCompareCodes(r);
}
function setCompareCodes(r: i32): void {
  clearStatus(SW_CC);
  if (r == F.CMP_LESS) orStatus(SW_C0);
  else if (r == F.CMP_EQUAL) orStatus(SW_C3);
  else if (r == F.CMP_UNORDERED) orStatus(SW_C3 | SW_C2 | SW_C0);
}
/** FCOMI/FUCOMI: ZF PF CF as C3 C2 C0; OF SF AF cleared. */
function setCompareEflags(r: i32): void {
  let f: u64 = 0;
  if (r == F.CMP_LESS) f = CF;
  else if (r == F.CMP_EQUAL) f = ZF;
  else if (r == F.CMP_UNORDERED) f = ZF | PF | CF;
  setFlags((rflags & ~ARITH_FLAGS) | f);
}

/** ST(0) op operand, or the register forms; `dest` physical, `pops` 0-2. */
function arithmeticForm(op: u32, aSe: u32, aSig: u64, bSe: u32, bSig: u64, dest: u32, pops: i32): void {
  if (op == 2 || op == 3) {
    // FCOM/FCOMP: compare a (ST0) with b
    const r = F.compare80(aSe, aSig, bSe, bSig, false);
    orStatus(F.flags & 0x3f);
    compareCodes(r);
    for (let i = 0; i < pops; i++) pop();
    return;
  }
  arithmetic(op, aSe, aSig, bSe, bSig);
  mergeFlags();
  if (!F.hasResult) return;
  writeReg(dest, F.resultSe, F.resultSig);
  for (let i = 0; i < pops; i++) pop();
}

// ---- entry point ----------------------------------------------------------------------
export function exec_x87(): void {
  const op = dOpcode() & 7; // D8..DF
  const modrm = dModrm();
  const reg = (modrm >> 3) & 7;
  if (dMod() != 3) memoryForm(op, reg);
  else registerForm(op, reg, modrm & 7);
}

export function exec_fwait(): void {
  if ((cr0 & 0xa) == 0xa) { raise(VEC_NM, 0); return; } // MP and TS
  if (exceptionPending()) raise(VEC_MF, 0);
}

// D8 /r m32fp, DC /r m64fp, DA /r m32int, DE /r m16int: arithmetic and compares with ST(0);
// D9, DB, DD, DF: loads, stores and the environment
function memoryForm(op: u32, reg: u32): void {
  if (op == 0 || op == 2 || op == 4 || op == 6) {
    const kind: u32 = op == 0 ? 0 : op == 4 ? 1 : op == 2 ? 2 : 3;
    if (!begin(true)) return;
    prepareArithmetic(true);
    if (!loadOperand(kind)) return;
    noteInstruction(memAddress, true);
    const st0 = physical(0);
    const bSe = loadedSe, bSig = loadedSig;
    const aSe = regSe(st0), aSig = regSig(st0);
    if (isEmpty(st0)) {
      // a compare reports "unordered" even when the stack fault is unmasked
      const masked = stackUnderflow();
      if (reg == 2 || reg == 3) { setCompareCodes(F.CMP_UNORDERED); if (masked && reg == 3) pop(); return; }
      if (masked) writeReg(st0, F.INDEFINITE_SE, F.INDEFINITE_SIG);
      return;
    }
    // the operation sees a denormal memory operand (F.sourceDenormal) as such
    arithmeticForm(reg, aSe, aSig, bSe, bSig, st0, reg == 3 ? 1 : 0);
    return;
  }
  if (op == 1) {
    if (reg == 0) loadForm(0);
    else if (reg == 2 || reg == 3) storeFloat(false, reg == 3);
    else if (reg == 4) { if (begin(false)) loadEnvironment(effectiveAddress()); }
    else if (reg == 5) fldcw();
    else if (reg == 6) { if (begin(false)) storeEnvironment(effectiveAddress(), true); }
    else if (reg == 7) { if (begin(false)) writeV(effectiveAddress(), 2, fpuControl); }
    else raise(VEC_UD, 0);
    return;
  }
  if (op == 3) {
    if (reg == 0) loadForm(2);
    else if (reg == 1) storeInt(4, true, true);
    else if (reg == 2 || reg == 3) storeInt(4, reg == 3, false);
    else if (reg == 5) loadForm(4);
    else if (reg == 7) storeExtended();
    else raise(VEC_UD, 0);
    return;
  }
  if (op == 5) {
    if (reg == 0) loadForm(1);
    else if (reg == 1) storeInt(8, true, true);
    else if (reg == 2 || reg == 3) storeFloat(true, reg == 3);
    else if (reg == 4) { if (begin(false)) loadState(effectiveAddress()); }
    else if (reg == 6) { if (begin(false)) saveState(effectiveAddress()); }
    else if (reg == 7) { if (begin(false)) writeV(effectiveAddress(), 2, statusWord()); }
    else raise(VEC_UD, 0);
    return;
  }
  // DF
  if (reg == 0) loadForm(3);
  else if (reg == 1) storeInt(2, true, true);
  else if (reg == 2 || reg == 3) storeInt(2, reg == 3, false);
  else if (reg == 4) loadForm(6);
  else if (reg == 5) loadForm(5);
  else if (reg == 6) storeBcd();
  else storeInt(8, true, false);
}

/** FLD m32fp/m64fp/m80fp, FILD m16/32/64int, FBLD. */
function loadForm(kind: u32): void {
  if (!begin(true)) return;
  prepareArithmetic(true);
  if (!loadOperand(kind)) return;
  noteInstruction(memAddress, true);
  // a full stack is the fault that counts (highest priority): the operand is not looked at
  if (!canPush()) { if (stackOverflow()) push(F.INDEFINITE_SE, F.INDEFINITE_SIG); return; }
  if (kind == M32FP || kind == M64FP) {
    quietLoaded();
    // a denormal is loaded (normalized) even when its exception is unmasked
    if ((F.flags & SW_IE) == 0 && F.sourceDenormal) F.signalDenormal();
  }
  if ((F.flags & ~fpuControl & SW_IE) != 0) { orStatus(F.flags & 0x3f); return; }
  clearStatus(SW_C1);
  orStatus(F.flags & 0x3f);
  pushChecked(loadedSe, loadedSig);
}

/** FST/FSTP m32fp (single) or m64fp. */
function storeFloat(double: bool, popAfter: bool): void {
  if (!begin(true)) return;
  prepareArithmetic(false);
  const a = effectiveAddress();
  noteInstruction(a, true);
  const st0 = physical(0);
  let bits: u64;
  if (isEmpty(st0)) {
    if (!probeWrite(a, double ? 8 : 4)) return;
    if (!stackUnderflow()) return;
    bits = double ? 0xfff8000000000000 : 0xffc00000;
  } else {
    F.toFloat(regSe(st0), regSig(st0), !double);
    if (!F.hasResult) { if (probeWrite(a, double ? 8 : 4)) mergeFlags(); return; }
    bits = F.resultBits;
  }
  writeV(a, double ? 8 : 4, bits);
  if (faultVector >= 0) return;
  if (!isEmpty(st0)) mergeFlags();
  if (popAfter) pop();
}

/** FIST/FISTP (rounding control) and FISTTP (truncating) to a 16/32/64-bit integer. */
function storeInt(bytes: i32, popAfter: bool, truncate: bool): void {
  if (!begin(true)) return;
  prepareArithmetic(false);
  const a = effectiveAddress();
  noteInstruction(a, true);
  const st0 = physical(0);
  let v: i64;
  if (isEmpty(st0)) {
    if (!probeWrite(a, bytes)) return;
    if (!stackUnderflow()) return;
    v = bytes == 8 ? <i64>0x8000000000000000 : bytes == 4 ? <i64>-0x80000000 : <i64>-0x8000;
  } else {
    v = F.toInt(regSe(st0), regSig(st0), bytes, truncate);
    if (!F.hasResult) { if (probeWrite(a, bytes)) mergeFlags(); return; }
  }
  writeV(a, bytes, <u64>v);
  if (faultVector >= 0) return;
  if (!isEmpty(st0)) mergeFlags();
  if (popAfter) pop();
}

/** FSTP m80fp: the register as it is. */
function storeExtended(): void {
  if (!begin(true)) return;
  const a = effectiveAddress();
  noteInstruction(a, true);
  const st0 = physical(0);
  let se = regSe(st0), sig = regSig(st0);
  if (!probeWrite(a, 10)) return;
  if (isEmpty(st0)) {
    if (!stackUnderflow()) return;
    se = F.INDEFINITE_SE; sig = F.INDEFINITE_SIG;
  } else clearStatus(SW_C1);
  writeV(a, 8, sig);
  writeV(a + 8, 2, se);
  pop();
}

/** FBSTP m80bcd: ST(0) rounded to an integer; more than 18 digits is invalid (the BCD indefinite when masked). */
function storeBcd(): void {
  if (!begin(true)) return;
  prepareArithmetic(false);
  const a = effectiveAddress();
  noteInstruction(a, true);
  if (!probeWrite(a, 10)) return;
  const st0 = physical(0);
  let lo: u64 = 0xc000000000000000, hi: u32 = 0xffff; // packed BCD indefinite
  if (isEmpty(st0)) {
    if (!stackUnderflow()) return;
  } else {
    const v = F.toInt(regSe(st0), regSig(st0), 8, false);
    const mag: u64 = v < 0 ? <u64>(0 - v) : <u64>v;
    if ((F.flags & SW_IE) == 0 && mag > 999999999999999999) { F.clearFlags(); F.signalInvalid(); }
    if ((F.flags & SW_IE) != 0) {
      if ((fpuControl & SW_IE) == 0) { mergeFlags(); return; }
    } else {
      lo = 0; hi = 0;
      let m = mag;
      for (let i = 0; i < 9; i++) {
        const byte = <u64>((m % 10) | (((m / 10) % 10) << 4));
        m /= 100;
        if (i == 8) hi = <u32>byte; else lo |= byte << (<u64>i * 8);
      }
      if (F.signOf(regSe(st0)) != 0) hi |= 0x8000;
    }
    mergeFlags();
  }
  writeV(a, 8, lo);
  writeV(a + 8, 2, hi);
  pop();
}

/** FLDCW: control word from memory; a pending exception it unmasks is raised by the next waiting instruction. */
function fldcw(): void {
  if (!begin(true)) return;
  const v = readV(effectiveAddress(), 2);
  if (faultVector >= 0) return;
  setControl(<u32>v);
}

// ---- register forms ----------------------------------------------------------------------
function registerForm(op: u32, reg: u32, i: u32): void {
  if (op == 0 || op == 4 || op == 6) {
    // D8: ST0 = ST0 op STi; DC: STi = STi op ST0 (sub/div reversed); DE: the DC forms then pop
    if (op == 6 && (reg == 2 || (reg == 3 && i != 1))) { raise(VEC_UD, 0); return; }
    if (!begin(true)) return;
    prepareArithmetic(true);
    noteInstruction(0, false);
    const st0 = physical(0), sti = physical(i);
    if (op == 6 && reg == 3) { compareRegisters(1, false, 2); return; } // FCOMPP
    if (reg == 2 || reg == 3) { compareRegisters(i, false, reg == 3 ? 1 : 0); return; }
    const dest = op == 0 ? st0 : sti;
    if (isEmpty(st0) || isEmpty(sti)) {
      if (!stackUnderflow()) return;
      writeReg(dest, F.INDEFINITE_SE, F.INDEFINITE_SIG);
      if (op == 6) pop();
      return;
    }
    if (op == 0) arithmeticForm(reg, regSe(st0), regSig(st0), regSe(sti), regSig(sti), dest, 0);
    else arithmeticForm(reg >= 4 ? reg ^ 1 : reg, regSe(sti), regSig(sti), regSe(st0), regSig(st0), dest, op == 6 ? 1 : 0);
    return;
  }
  if (op == 1) { d9Register(reg, i); return; }
  if (op == 2) {
    if (reg < 4) { fcmov(reg, false, i); return; }
    if (reg == 5 && i == 1) { if (begin(true)) { prepareArithmetic(true); noteInstruction(0, false); compareRegisters(1, true, 2); } return; } // FUCOMPP
    raise(VEC_UD, 0);
    return;
  }
  if (op == 3) {
    if (reg < 4) { fcmov(reg, true, i); return; }
    if (reg == 4) {
      if (i == 2) { if (begin(false)) clearStatus(0x3f | SW_SF | 0x8080); return; } // FNCLEX
      if (i == 3) { if (begin(false)) fpuReset(); return; } // FNINIT
      raise(VEC_UD, 0);
      return;
    }
    if (reg == 5 || reg == 6) { compareEflagsForm(i, reg == 5, false); return; } // FUCOMI, FCOMI
    raise(VEC_UD, 0);
    return;
  }
  if (op == 5) {
    if (reg == 1 || reg == 6 || reg == 7) { raise(VEC_UD, 0); return; }
    if (!begin(true)) return;
    prepareArithmetic(true);
    noteInstruction(0, false);
    if (reg == 0) { clearStatus(SW_C1); freeReg(physical(i)); return; } // FFREE
    if (reg == 4 || reg == 5) { compareRegisters(i, true, reg == 5 ? 1 : 0); return; } // FUCOM, FUCOMP
    // FST / FSTP ST(i)
    const st0 = physical(0);
    if (isEmpty(st0)) {
      if (!stackUnderflow()) return;
      writeReg(physical(i), F.INDEFINITE_SE, F.INDEFINITE_SIG);
    } else {
      clearStatus(SW_C1);
      writeReg(physical(i), regSe(st0), regSig(st0));
    }
    if (reg == 3) pop();
    return;
  }
  // DF
  if (reg == 4 && i == 0) { if (begin(false)) setReg64(0, (reg64(0) & ~<u64>0xffff) | <u64>statusWord()); return; } // FNSTSW AX
  if (reg == 5 || reg == 6) { compareEflagsForm(i, reg == 5, true); return; } // FUCOMIP, FCOMIP
  raise(VEC_UD, 0);
}

/**
 * FCOM/FUCOM ST(i) and their popping forms (C3 C2 C0), or FCOMI/FUCOMI
 * (`eflags`: ZF PF CF), popping `pops` times. A stack underflow reports
 * "unordered" even when it is unmasked; an unmasked invalid operand sets
 * nothing and pops nothing.
 */
function compareRegisters(i: u32, quiet: bool, pops: i32, eflags: bool = false): void {
  const st0 = physical(0), sti = physical(i);
  if (isEmpty(st0) || isEmpty(sti)) {
    const masked = stackUnderflow();
    if (eflags) setCompareEflags(F.CMP_UNORDERED); else setCompareCodes(F.CMP_UNORDERED);
    if (!masked) return;
  } else {
    const r = F.compare80(regSe(st0), regSig(st0), regSe(sti), regSig(sti), quiet);
    orStatus(F.flags & 0x3f);
    if ((F.flags & ~fpuControl & SW_IE) != 0) return;
    if (eflags) setCompareEflags(r); else setCompareCodes(r);
  }
  for (let k = 0; k < pops; k++) pop();
}

/** FCOMI/FUCOMI ST(i) and the popping forms (the FPU's condition codes stay as they are). */
function compareEflagsForm(i: u32, quiet: bool, popAfter: bool): void {
  if (!begin(true)) return;
  prepareArithmetic(true);
  noteInstruction(0, false);
  compareRegisters(i, quiet, popAfter ? 1 : 0, true);
}

/** FCMOVcc: DA /0-3 B E BE U; DB /0-3 their negations. */
function fcmov(cond: u32, negate: bool, i: u32): void {
  if (!begin(true)) return;
  noteInstruction(0, false);
  const st0 = physical(0), sti = physical(i);
  if (isEmpty(st0) || isEmpty(sti)) {
    if (!stackUnderflow()) return;
    writeReg(st0, F.INDEFINITE_SE, F.INDEFINITE_SIG);
    return;
  }
  const f = rflags;
  let c: bool = cond == 0 ? (f & CF) != 0 : cond == 1 ? (f & ZF) != 0 : cond == 2 ? (f & (CF | ZF)) != 0 : (f & PF) != 0;
  if (negate) c = !c;
  if (c) writeReg(st0, regSe(sti), regSig(sti));
}

// D9 register forms: FLD ST(i), FXCH, FNOP, FCHS FABS FTST FXAM, the constants, and the D9 F0-FF group
function d9Register(reg: u32, i: u32): void {
  if (reg == 2 && i != 0) { raise(VEC_UD, 0); return; }
  if (reg == 3 || (reg == 4 && (i == 2 || i == 3 || i > 5)) || (reg == 5 && i == 7)) { raise(VEC_UD, 0); return; }
  if (!begin(true)) return;
  prepareArithmetic(true);
  noteInstruction(0, false);
  const st0 = physical(0);
  if (reg == 0) { // FLD ST(i)
    const p = physical(i);
    if (isEmpty(p)) {
      // the underflow is the fault reported; the indefinite is pushed whatever ST(7) holds
      if (stackUnderflow()) push(F.INDEFINITE_SE, F.INDEFINITE_SIG);
      return;
    }
    clearStatus(SW_C1);
    pushChecked(regSe(p), regSig(p));
    return;
  }
  if (reg == 1) { // FXCH
    const p = physical(i);
    let aSe = regSe(st0), aSig = regSig(st0), bSe = regSe(p), bSig = regSig(p);
    if (isEmpty(st0) || isEmpty(p)) {
      if (!stackUnderflow()) return;
      if (isEmpty(st0)) { aSe = F.INDEFINITE_SE; aSig = F.INDEFINITE_SIG; }
      if (isEmpty(p)) { bSe = F.INDEFINITE_SE; bSig = F.INDEFINITE_SIG; }
    } else clearStatus(SW_C1);
    writeReg(st0, bSe, bSig);
    writeReg(p, aSe, aSig);
    return;
  }
  if (reg == 2) return; // FNOP
  if (reg == 4) {
    if (i == 5) { fxam(); return; }
    if (isEmpty(st0)) {
      const masked = stackUnderflow();
      if (i == 4) setCompareCodes(F.CMP_UNORDERED);
      else if (masked) writeReg(st0, F.INDEFINITE_SE, F.INDEFINITE_SIG);
      return;
    }
    if (i == 4) { // FTST
      const r = F.compare80(regSe(st0), regSig(st0), 0, 0, false);
      orStatus(F.flags & 0x3f);
      compareCodes(r);
      return;
    }
    clearStatus(SW_C1);
    writeReg(st0, i == 0 ? regSe(st0) ^ 0x8000 : regSe(st0) & 0x7fff, regSig(st0)); // FCHS, FABS
    return;
  }
  if (reg == 5) { loadConstant(i); return; }
  if (reg == 6) {
    if (i == 6 || i == 7) { // FDECSTP, FINCSTP
      clearStatus(SW_C1);
      setTop(i == 6 ? fpuTop + 7 : fpuTop + 1);
      return;
    }
    if (i == 0) { unaryTranscendental(0); return; } // F2XM1
    if (i == 1 || i == 3) { binaryPop(i == 1 ? 1 : 3); return; } // FYL2X, FPATAN
    if (i == 2) { trigonometricPair(true); return; } // FPTAN
    if (i == 4) { fxtract(); return; }
    remainder(true); // i == 5: FPREM1
    return;
  }
  // reg == 7
  if (i == 0) { remainder(false); return; } // FPREM
  if (i == 1) { binaryPop(2); return; } // FYL2XP1
  if (i == 2) { unaryArith(0); return; } // FSQRT
  if (i == 3) { trigonometricPair(false); return; } // FSINCOS
  if (i == 4) { unaryArith(1); return; } // FRNDINT
  if (i == 5) { fscale(); return; }
  unaryTranscendental(i == 6 ? 1 : 2); // FSIN, FCOS
}

/** FXAM: C3 C2 C0 = the class of ST(0), C1 = its sign. */
function fxam(): void {
  const p = physical(0);
  const se = regSe(p), sig = regSig(p);
  clearStatus(SW_CC);
  let c: u32;
  if (isEmpty(p)) c = SW_C3 | SW_C0;
  else if (F.isUnsupported80(se, sig)) c = 0;
  else if (F.isNaN80(se, sig)) c = SW_C0;
  else if (F.isInf80(se, sig)) c = SW_C2 | SW_C0;
  else if (F.isZero80(se, sig)) c = SW_C3;
  else if (F.isDenormal80(se, sig)) c = SW_C3 | SW_C2;
  else c = SW_C2;
  if ((se & 0x8000) != 0) c |= SW_C1;
  orStatus(c);
}

// FLD1 FLDL2T FLDL2E FLDPI FLDLG2 FLDLN2 FLDZ: the irrational ones are
// held to 128 bits and rounded with the rounding control (no precision
// exception, SDM: FLD1/FLDL2T/...).
function loadConstant(i: u32): void {
  let se: u32 = 0, sig: u64 = 0, next: u64 = 0;
  if (i == 0) { se = 0x3fff; sig = F.J_BIT; }
  else if (i == 1) { se = 0x4000; sig = 0xd49a784bcd1b8afe; next = 0x492bf6ff4dafdb4c; } // log2(10)
  else if (i == 2) { se = 0x3fff; sig = 0xb8aa3b295c17f0bb; next = 0xbe87fed0691d3e88; } // log2(e)
  else if (i == 3) { se = 0x4000; sig = 0xc90fdaa22168c234; next = 0xc4c6628b80dc1cd1; } // pi
  else if (i == 4) { se = 0x3ffd; sig = 0x9a209a84fbcff798; next = 0x8f8959ac0b7c9178; } // log10(2)
  else if (i == 5) { se = 0x3ffe; sig = 0xb17217f7d1cf79ab; next = 0xc9e3b39803f2f6af; } // ln(2)
  if (next != 0) {
    const rc = (fpuControl >> 10) & 3;
    const up = rc == F.RC_NEAREST ? next >= F.J_BIT : rc == F.RC_UP;
    if (up) sig++;
  }
  clearStatus(SW_C1);
  pushChecked(se, sig);
}

/** FSQRT (0) and FRNDINT (1): ST(0) replaced. */
function unaryArith(kind: u32): void {
  const st0 = physical(0);
  if (isEmpty(st0)) {
    if (!stackUnderflow()) return;
    writeReg(st0, F.INDEFINITE_SE, F.INDEFINITE_SIG);
    return;
  }
  if (kind == 0) F.sqrt80(regSe(st0), regSig(st0)); else F.roundInt80(regSe(st0), regSig(st0));
  mergeFlags();
  if (F.hasResult) writeReg(st0, F.resultSe, F.resultSig);
}

/** F2XM1 (0), FSIN (1), FCOS (2): ST(0) replaced; FSIN/FCOS leave it and set C2 when |ST(0)| >= 2^63. */
function unaryTranscendental(kind: u32): void {
  prepareArithmetic(true, true);
  const st0 = physical(0);
  clearStatus(SW_C2);
  if (isEmpty(st0)) {
    if (!stackUnderflow()) return;
    writeReg(st0, F.INDEFINITE_SE, F.INDEFINITE_SIG);
    return;
  }
  const se = regSe(st0), sig = regSig(st0);
  if (kind == 0) T.f2xm1(se, sig);
  else {
    if (T.outOfRange(se, sig)) { orStatus(SW_C2); return; }
    if (kind == 1) T.sin80(se, sig); else T.cos80(se, sig);
  }
  mergeFlags();
  if (F.hasResult) writeReg(st0, F.resultSe, F.resultSig);
}

/** FYL2X (1), FYL2XP1 (2), FPATAN (3): ST(1) = f(ST(1), ST(0)), then pop. */
function binaryPop(kind: u32): void {
  prepareArithmetic(true, true);
  const st0 = physical(0), st1 = physical(1);
  if (isEmpty(st0) || isEmpty(st1)) {
    if (!stackUnderflow()) return;
    writeReg(st1, F.INDEFINITE_SE, F.INDEFINITE_SIG);
    pop();
    return;
  }
  const xSe = regSe(st0), xSig = regSig(st0), ySe = regSe(st1), ySig = regSig(st1);
  if (kind == 1) T.yl2x(ySe, ySig, xSe, xSig);
  else if (kind == 2) T.yl2xp1(ySe, ySig, xSe, xSig);
  else T.atan2(ySe, ySig, xSe, xSig);
  mergeFlags();
  if (!F.hasResult) return;
  writeReg(st1, F.resultSe, F.resultSig);
  pop();
}

/**
 * The stack checks of an instruction that replaces ST(0) and pushes a second
 * result (FPTAN, FSINCOS, FXTRACT): an empty ST(0) is an underflow and a full
 * stack an overflow, their masked response the indefinite in both places.
 * Returns false when the instruction has nothing more to do.
 */
function replaceAndPushAllowed(st0: u32): bool {
  const empty = isEmpty(st0);
  if (!empty && canPush()) return true;
  if (empty ? !stackUnderflow() : !stackOverflow()) return false;
  writeReg(st0, F.INDEFINITE_SE, F.INDEFINITE_SIG);
  if (empty) pushChecked(F.INDEFINITE_SE, F.INDEFINITE_SIG);
  else push(F.INDEFINITE_SE, F.INDEFINITE_SIG);
  return false;
}

/**
 * FPTAN (ST(0) = tan, then 1.0 pushed) and FSINCOS (ST(0) = sin, then cos
 * pushed); with |ST(0)| >= 2^63 they set C2 and change nothing else.
 */
function trigonometricPair(tangent: bool): void {
  prepareArithmetic(true, true);
  const st0 = physical(0);
  clearStatus(SW_C2);
  if (!replaceAndPushAllowed(st0)) return;
  const se = regSe(st0), sig = regSig(st0);
  if (T.outOfRange(se, sig)) { orStatus(SW_C2); return; }
  if (tangent) {
    T.tan80(se, sig);
    mergeFlags();
    if (!F.hasResult) return;
    writeReg(st0, F.resultSe, F.resultSig);
    if (F.isNaN80(F.resultSe, F.resultSig)) push(F.resultSe, F.resultSig);
    else push(0x3fff, F.J_BIT);
    return;
  }
  T.cos80(se, sig);
  const cosFlags = F.flags, cosUp = F.roundedUp, cosOk = F.hasResult;
  const cSe = F.resultSe, cSig = F.resultSig;
  F.clearFlags();
  T.sin80(se, sig);
  if (!cosOk || !F.hasResult) { orStatus((F.flags | cosFlags) & 0x3f); return; }
  const all = F.flags | cosFlags;
  clearStatus(SW_C1);
  orStatus((all & 0x3f) | ((cosUp || F.roundedUp) && (all & SW_PE) != 0 ? SW_C1 : 0));
  writeReg(st0, F.resultSe, F.resultSig);
  push(cSe, cSig);
}

/** FSCALE: ST(0) = ST(0) * 2^trunc(ST(1)). */
function fscale(): void {
  const st0 = physical(0), st1 = physical(1);
  if (isEmpty(st0) || isEmpty(st1)) {
    if (!stackUnderflow()) return;
    writeReg(st0, F.INDEFINITE_SE, F.INDEFINITE_SIG);
    return;
  }
  F.scale80(regSe(st0), regSig(st0), regSe(st1), regSig(st1));
  mergeFlags();
  if (F.hasResult) writeReg(st0, F.resultSe, F.resultSig);
}

/** FXTRACT: ST(0) = exponent, then push the significand. */
function fxtract(): void {
  const st0 = physical(0);
  if (!replaceAndPushAllowed(st0)) return;
  F.extract80(regSe(st0), regSig(st0));
  mergeFlags();
  if (!F.hasResult) return;
  writeReg(st0, F.extractExpSe, F.extractExpSig);
  push(F.resultSe, F.resultSig);
}

/** FPREM (nearest false) and FPREM1: C2 = incomplete, C0 C3 C1 = quotient bits 2 1 0. */
function remainder(nearest: bool): void {
  const st0 = physical(0), st1 = physical(1);
  if (isEmpty(st0) || isEmpty(st1)) {
    clearStatus(SW_C2);
    if (!stackUnderflow()) return;
    writeReg(st0, F.INDEFINITE_SE, F.INDEFINITE_SIG);
    return;
  }
  F.remainder80(regSe(st0), regSig(st0), regSe(st1), regSig(st1), nearest);
  orStatus(F.flags & 0x3f);
  if (!F.hasResult) return;
  // a NaN result (NaN or invalid operands): C1 = C2 = 0, C0 and C3 as they were
  if (!F.remainderValid) { clearStatus(SW_C1 | SW_C2); writeReg(st0, F.resultSe, F.resultSig); return; }
  clearStatus(SW_CC);
  const q = F.remainderQuotient;
  if (!F.remainderComplete) orStatus(SW_C2);
  else orStatus(((q & 4) != 0 ? SW_C0 : 0) | ((q & 2) != 0 ? SW_C3 : 0) | ((q & 1) != 0 ? SW_C1 : 0));
  writeReg(st0, F.resultSe, F.resultSig);
}

// ---- environment and state images ----------------------------------------------------------
// FNSTENV/FLDENV in 64-bit mode use the protected-mode layouts (SDM vol. 1,
// figures 8-9 and 8-10): 28 bytes with a 32-bit operand size, 14 with 16.

/** FNSTENV (then every exception masked, as the SDM says) or the first part of FNSAVE. Returns false on a fault. */
function storeEnvironment(a: u64, maskAfter: bool): bool {
  const small = (dPrefixes() & PFX_66) != 0;
  if (!probeWrite(a, small ? 14 : 28)) return false;
  const sw = statusWord(), tw = tagWord();
  if (small) {
    writeV(a, 2, fpuControl); writeV(a + 2, 2, sw); writeV(a + 4, 2, tw);
    writeV(a + 6, 2, fpuLastIp & 0xffff); writeV(a + 8, 2, csSel);
    writeV(a + 10, 2, fpuLastData & 0xffff); writeV(a + 12, 2, 0);
  } else {
    writeV(a, 4, 0xffff0000 | fpuControl); writeV(a + 4, 4, 0xffff0000 | sw); writeV(a + 8, 4, 0xffff0000 | tw);
    writeV(a + 12, 4, fpuLastIp & 0xffffffff); writeV(a + 16, 4, <u64>csSel | (<u64>fpuLastOpcode << 16));
    writeV(a + 20, 4, fpuLastData & 0xffffffff); writeV(a + 24, 4, 0xffff0000);
  }
  if (maskAfter) setControl(fpuControl | 0x3f);
  return true;
}
/** FLDENV or the first part of FRSTOR; returns the environment's size, 0 on a fault. */
function loadEnvironment(a: u64): i32 {
  const small = (dPrefixes() & PFX_66) != 0;
  const size = small ? 14 : 28;
  const step: u64 = small ? 2 : 4;
  const cw = readV(a, 2), sw = readV(a + step, 2), tw = readV(a + 2 * step, 2);
  const ip = small ? readV(a + 6, 2) : readV(a + 12, 4);
  const opcode = small ? 0 : readV(a + 18, 2);
  const dp = small ? readV(a + 10, 2) : readV(a + 20, 4);
  readV(a + <u64>size - 1, 1);
  if (faultVector >= 0) return 0;
  setControl(<u32>cw);
  setStatusBits(<u32>sw);
  setTagWord(<u32>tw);
  setLastInstruction(ip, <u32>opcode);
  setLastData(dp);
  return size;
}

/** FNSAVE: environment + ST(0)..ST(7), then the state FNINIT gives. */
function saveState(a: u64): void {
  const small = (dPrefixes() & PFX_66) != 0;
  const env: u64 = small ? 14 : 28;
  if (!probeWrite(a, <i32>env + 80)) return;
  storeEnvironment(a, false);
  for (let i: u32 = 0; i < 8; i++) {
    const p = physical(i);
    writeV(a + env + <u64>i * 10, 8, regSig(p));
    writeV(a + env + <u64>i * 10 + 8, 2, regSe(p));
  }
  fpuReset();
}
/** FRSTOR: environment + registers (their tags from the environment). */
function loadState(a: u64): void {
  const small = (dPrefixes() & PFX_66) != 0;
  const env: u64 = small ? 14 : 28;
  // every byte is readable before anything changes
  readV(a + env + 79, 1);
  if (faultVector >= 0) return;
  if (loadEnvironment(a) == 0) return;
  for (let i: u32 = 0; i < 8; i++) storeReg(physical(i), <u32>readV(a + env + <u64>i * 10 + 8, 2), readV(a + env + <u64>i * 10, 8));
}

// FXSAVE/FXRSTOR (0F AE /0 /1; SDM vol. 2, table 3-53): the 64-bit layout
// with REX.W, else the 32-bit one; bytes 416-511 are not touched.
export function exec_fxsave(): void {
  if ((cr0 & 0xc) != 0) { raise(VEC_NM, 0); return; }
  const a = effectiveAddress();
  if ((a & 15) != 0) { raise(VEC_GP, 0); return; }
  if (!probeWrite(a, 416)) return;
  const wide = (dRex() & 8) != 0;
  let tags: u32 = 0;
  for (let p: u32 = 0; p < 8; p++) if (!isEmpty(p)) tags |= <u32>1 << p;
  writeV(a, 2, fpuControl); writeV(a + 2, 2, statusWord()); writeV(a + 4, 2, tags);
  writeV(a + 6, 2, fpuLastOpcode);
  if (wide) { writeV(a + 8, 8, fpuLastIp); writeV(a + 16, 8, fpuLastData); }
  else {
    writeV(a + 8, 4, fpuLastIp & 0xffffffff); writeV(a + 12, 4, csSel);
    writeV(a + 16, 4, fpuLastData & 0xffffffff); writeV(a + 20, 4, 0);
  }
  writeV(a + 24, 4, mxcsr); writeV(a + 28, 4, MXCSR_MASK);
  for (let i: u32 = 0; i < 8; i++) {
    const p = physical(i);
    writeV(a + 32 + <u64>i * 16, 8, regSig(p));
    writeV(a + 40 + <u64>i * 16, 8, <u64>regSe(p));
  }
  for (let r: usize = 0; r < 16; r++) {
    writeV(a + 160 + <u64>r * 16, 8, load<u64>(XMM + (r << 4)));
    writeV(a + 168 + <u64>r * 16, 8, load<u64>(XMM + (r << 4), 8));
  }
}
/** MXCSR bits LDMXCSR and FXRSTOR accept (FXSAVE stores it as MXCSR_MASK). */
export const MXCSR_MASK: u32 = 0xffff;
export function exec_fxrstor(): void {
  if ((cr0 & 0xc) != 0) { raise(VEC_NM, 0); return; }
  const a = effectiveAddress();
  if ((a & 15) != 0) { raise(VEC_GP, 0); return; }
  const m = readV(a + 24, 4);
  readV(a + 415, 1);
  if (faultVector >= 0) return;
  if ((m & ~<u64>MXCSR_MASK) != 0) { raise(VEC_GP, 0); return; }
  const wide = (dRex() & 8) != 0;
  const cw = readV(a, 2), sw = readV(a + 2, 2), tags = <u32>readV(a + 4, 1);
  setControl(<u32>cw);
  setStatusBits(<u32>sw);
  setLastInstruction(wide ? readV(a + 8, 8) : readV(a + 8, 4), <u32>readV(a + 6, 2));
  setLastData(wide ? readV(a + 16, 8) : readV(a + 16, 4));
  setMxcsr(<u32>m);
  for (let i: u32 = 0; i < 8; i++) storeReg(physical(i), <u32>readV(a + 40 + <u64>i * 16, 2), readV(a + 32 + <u64>i * 16, 8));
  setEmptyMask(~tags & 0xff);
  for (let r: usize = 0; r < 16; r++) {
    store<u64>(XMM + (r << 4), readV(a + 160 + <u64>r * 16, 8));
    store<u64>(XMM + (r << 4), readV(a + 168 + <u64>r * 16, 8), 8);
  }
}
