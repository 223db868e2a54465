// VFPv3-D16: the floating-point extension Debian's armhf code is built for
// (-mfpu=vfpv3-d16, hard float). One function per instruction of the A7
// encoding groups, taking the instruction word: the fields sit at the same
// bits in A32 and T32 (bits 27:0; the condition or the T32 prefix above), so
// exec.ts and exec-t32.ts both call these. Pseudocode references are to the
// ARM ARM (DDI 0406C) A2.7 (floating-point data types and arithmetic) and the
// A8.8 pages of each instruction.
//
// Registers: d0..d15 as f64 in the CPU state block, s0..s31 overlaying them
// (s2n is the low word of dn); d16..d31 do not exist (D16), and an encoding
// naming one is UNDEFINED. FPSCR holds NZCV, DN, FZ, RMode and the
// cumulative exception flags; no trap is implemented (the trap-enable bits
// read as zero, as on cores without trapping).
//
// Arithmetic is IEEE 754 through WebAssembly's f32/f64 operations, which
// round to nearest; ARM's NaN rules (A2.7.3: the first signalling NaN
// operand quietened, else the first quiet NaN, or the default NaN when
// FPSCR.DN is set or the operation is invalid) and flush-to-zero (FPSCR.FZ)
// are applied around them. Conversions to integer follow the rounding mode
// of the instruction or FPSCR.RMode. Not modelled: directed rounding of
// arithmetic results, the inexact and underflow flags of arithmetic
// (conversions set inexact), short vectors (FPSCR.LEN/STRIDE read as zero).
import { reg, setRegRaw, st, setSt, S, privileged, FLAG_N, FLAG_Z, FLAG_C, FLAG_V, CP15_CPACR, VFP_D, VFP_FPSCR, VFP_FPEXC } from './state';
import { read, write, aborted, probeWrite } from './memory';
import { raise, EXC_UNDEF, alignmentFault } from './semantics';

// ---- System registers (B1.11, B4.1.52) ----
/** FPSID: an implementation by ARM of VFPv3 (subarchitecture 3) with a common VFP subarchitecture, as Cortex-A9's FPU. */
export const FPSID: u32 = 0x41033094;
/** MVFR0: 16 double registers, single and double precision, divide and square root, no traps, no short vectors, all rounding modes. */
export const MVFR0: u32 = 0x10110221;
/** MVFR1: flush-to-zero and default NaN modes, no Advanced SIMD, no half precision. */
export const MVFR1: u32 = 0x00000011;
const FPEXC_EN: u32 = 1 << 30;
/** FPSCR bits that can be written: NZCV, DN, FZ, RMode and the cumulative flags. */
const FPSCR_WRITABLE: u32 = 0xf3c0009f;
const FPSCR_DN: u32 = 1 << 25;
const FPSCR_FZ: u32 = 1 << 24;
const IOC: u32 = 1;
const DZC: u32 = 2;
const OFC: u32 = 4;
const UFC: u32 = 8;
const IXC: u32 = 16;
const IDC: u32 = 128;

@inline function fpscr(): u32 { return st(VFP_FPSCR); }
@inline function flagsRaise(bits: u32): void { setSt(VFP_FPSCR, st(VFP_FPSCR) | bits); }

/** Whether CPACR grants this privilege level access to CP10/CP11 (B4.1.40; cp11 follows cp10). */
function coprocessorAccess(): bool {
  const cp10 = (st(CP15_CPACR) >>> 20) & 3;
  return cp10 == 3 || (cp10 == 1 && privileged());
}

/** The check every VFP instruction makes first: access granted and FPEXC.EN set, else UNDEFINED. */
@inline function enabled(): bool {
  if (coprocessorAccess() && (st(VFP_FPEXC) & FPEXC_EN) != 0) return true;
  raise(EXC_UNDEF);
  return false;
}

// ---- Register file ----
@inline function sAddr(n: u32): usize { return S + VFP_D + (usize(n) << 2); }
@inline function dAddr(n: u32): usize { return S + VFP_D + (usize(n) << 3); }
@inline function getS(n: u32): u32 { return load<u32>(sAddr(n)); }
@inline function setS(n: u32, v: u32): void { store<u32>(sAddr(n), v); }
@inline function getD(n: u32): u64 { return load<u64>(dAddr(n)); }
@inline function setD(n: u32, v: u64): void { store<u64>(dAddr(n), v); }

// Register numbers: a single is Vx:X (4 bits, then the extra bit), a double X:Vx.
@inline function sD(w: u32): u32 { return (((w >>> 12) & 15) << 1) | ((w >>> 22) & 1); }
@inline function sN(w: u32): u32 { return (((w >>> 16) & 15) << 1) | ((w >>> 7) & 1); }
@inline function sM(w: u32): u32 { return ((w & 15) << 1) | ((w >>> 5) & 1); }
@inline function dD(w: u32): u32 { return (w >>> 12) & 15; }
@inline function dN(w: u32): u32 { return (w >>> 16) & 15; }
@inline function dM(w: u32): u32 { return w & 15; }
@inline function isDouble(w: u32): bool { return ((w >>> 8) & 1) != 0; }

/** Whether a double-precision form names one of d16..d31 through the D, N or M bits in `bits` (UNDEFINED on D16). */
@inline function highDouble(w: u32, bits: u32): bool {
  if ((w & bits) == 0) return false;
  raise(EXC_UNDEF);
  return true;
}
const BIT_D: u32 = 1 << 22;
const BIT_N: u32 = 1 << 7;
const BIT_M: u32 = 1 << 5;

// ---- Values: B is the bit pattern (u32 for single, u64 for double), T the float type ----
@inline function signBit<B>(): B { return sizeof<B>() == 8 ? <B>0x8000000000000000 : <B>0x80000000; }
@inline function quietBit<B>(): B { return sizeof<B>() == 8 ? <B>0x0008000000000000 : <B>0x00400000; }
@inline function defaultNaN<B>(): B { return sizeof<B>() == 8 ? <B>0x7ff8000000000000 : <B>0x7fc00000; }
@inline function infBits<B>(): B { return sizeof<B>() == 8 ? <B>0x7ff0000000000000 : <B>0x7f800000; }
@inline function fracMask<B>(): B { return sizeof<B>() == 8 ? <B>0x000fffffffffffff : <B>0x007fffff; }
@inline function isNaNBits<B>(x: B): bool { return (x & ~signBit<B>()) > infBits<B>(); }
@inline function isSNaNBits<B>(x: B): bool { return isNaNBits<B>(x) && (x & quietBit<B>()) == 0; }
@inline function isDenormal<B>(x: B): bool { return (x & infBits<B>()) == 0 && (x & fracMask<B>()) != 0; }

/** FPSCR.FZ on an input: a denormal becomes a zero of its sign (A2.7.4), with IDC. */
@inline function flushIn<B>(x: B): B {
  if ((fpscr() & FPSCR_FZ) == 0 || !isDenormal<B>(x)) return x;
  flagsRaise(IDC);
  return x & signBit<B>();
}
/** FPSCR.FZ on a result: a denormal becomes a zero of its sign, with UFC. */
@inline function flushOut<B>(x: B): B {
  if ((fpscr() & FPSCR_FZ) == 0 || !isDenormal<B>(x)) return x;
  flagsRaise(UFC);
  return x & signBit<B>();
}

/** Set by processNaNs: whether an operand was a NaN (its result then returned). */
let nanSeen: bool = false;
/** FPProcessNaNs (A2.7.3): the result when `a` or `b` is a NaN. */
function processNaNs<B>(a: B, b: B): B {
  const na = isNaNBits<B>(a);
  const nb = isNaNBits<B>(b);
  nanSeen = na || nb;
  if (!nanSeen) return 0;
  const sa = na && (a & quietBit<B>()) == 0;
  const sb = nb && (b & quietBit<B>()) == 0;
  if (sa || sb) flagsRaise(IOC);
  if ((fpscr() & FPSCR_DN) != 0) return defaultNaN<B>();
  if (sa) return a | quietBit<B>();
  if (sb) return b | quietBit<B>();
  return na ? a : b;
}
/** FPProcessNaN for one operand. */
function processNaN<B>(a: B): B {
  nanSeen = isNaNBits<B>(a);
  if (!nanSeen) return 0;
  if ((a & quietBit<B>()) == 0) flagsRaise(IOC);
  if ((fpscr() & FPSCR_DN) != 0) return defaultNaN<B>();
  return a | quietBit<B>();
}

const OP_ADD: u32 = 0;
const OP_SUB: u32 = 1;
const OP_MUL: u32 = 2;
const OP_DIV: u32 = 3;

/** FPAdd/FPSub/FPMul/FPDiv on bit patterns. */
function arith<T, B>(op: u32, ab: B, bb: B): B {
  ab = flushIn<B>(ab);
  bb = flushIn<B>(bb);
  const p = processNaNs<B>(ab, bb);
  if (nanSeen) return p;
  const a = reinterpret<T>(ab);
  const b = reinterpret<T>(bb);
  let r: T;
  if (op == OP_ADD) r = a + b;
  else if (op == OP_SUB) r = a - b;
  else if (op == OP_MUL) r = a * b;
  else {
    if (b == 0 && a != 0 && isFinite<T>(a)) flagsRaise(DZC);
    r = a / b;
  }
  if (isNaN<T>(r)) {
    // inf - inf, 0 * inf, 0 / 0, inf / inf: invalid operation
    flagsRaise(IOC);
    return defaultNaN<B>();
  }
  if (!isFinite<T>(r) && isFinite<T>(a) && isFinite<T>(b) && !(op == OP_DIV && b == 0)) flagsRaise(OFC | IXC);
  return flushOut<B>(reinterpret<B>(r));
}

function sqrtOf<T, B>(ab: B): B {
  ab = flushIn<B>(ab);
  const p = processNaN<B>(ab);
  if (nanSeen) return p;
  const a = reinterpret<T>(ab);
  if (a < 0) {
    flagsRaise(IOC);
    return defaultNaN<B>();
  }
  return reinterpret<B>(sqrt<T>(a));
}

/** FPCompare (A2.7.8) into FPSCR.NZCV; `e` (VCMPE) makes a quiet NaN invalid too. */
function compare<T, B>(ab: B, bb: B, e: bool): void {
  ab = flushIn<B>(ab);
  bb = flushIn<B>(bb);
  let nzcv: u32;
  if (isNaNBits<B>(ab) || isNaNBits<B>(bb)) {
    nzcv = 0x3;
    if (e || isSNaNBits<B>(ab) || isSNaNBits<B>(bb)) flagsRaise(IOC);
  } else {
    const a = reinterpret<T>(ab);
    const b = reinterpret<T>(bb);
    nzcv = a == b ? 0x6 : a < b ? 0x8 : 0x2;
  }
  setSt(VFP_FPSCR, (fpscr() & 0x0fffffff) | (nzcv << 28));
}

// ---- Three-register data processing (A7.5) ----
const K_MLA: u32 = 0;
const K_MLS: u32 = 1;
const K_NMLS: u32 = 2;
const K_NMLA: u32 = 3;
const K_MUL: u32 = 4;
const K_NMUL: u32 = 5;
const K_ADD: u32 = 6;
const K_SUB: u32 = 7;
const K_DIV: u32 = 8;

/** The operation of VMLA..VDIV on bit patterns: the multiply-accumulates round the product, then the sum (they are not fused). */
@inline function threeReg<T, B>(kind: u32, d: B, n: B, m: B): B {
  if (kind == K_ADD) return arith<T, B>(OP_ADD, n, m);
  if (kind == K_SUB) return arith<T, B>(OP_SUB, n, m);
  if (kind == K_DIV) return arith<T, B>(OP_DIV, n, m);
  const product = arith<T, B>(OP_MUL, n, m);
  if (kind == K_MUL) return product;
  if (kind == K_NMUL) return product ^ signBit<B>();
  if (kind == K_MLA) return arith<T, B>(OP_ADD, d, product);
  if (kind == K_MLS) return arith<T, B>(OP_ADD, d, product ^ signBit<B>());
  if (kind == K_NMLA) return arith<T, B>(OP_ADD, d ^ signBit<B>(), product ^ signBit<B>());
  return arith<T, B>(OP_ADD, d ^ signBit<B>(), product); // K_NMLS
}

function dataProcessing3(w: u32, kind: u32): void {
  if (!enabled()) return;
  if (isDouble(w)) {
    if (highDouble(w, BIT_D | BIT_N | BIT_M)) return;
    const d = dD(w);
    setD(d, threeReg<f64, u64>(kind, getD(d), getD(dN(w)), getD(dM(w))));
  } else {
    const d = sD(w);
    setS(d, threeReg<f32, u32>(kind, getS(d), getS(sN(w)), getS(sM(w))));
  }
}
export function VMLA(w: u32): void { dataProcessing3(w, K_MLA); }
export function VMLS(w: u32): void { dataProcessing3(w, K_MLS); }
export function VNMLS(w: u32): void { dataProcessing3(w, K_NMLS); }
export function VNMLA(w: u32): void { dataProcessing3(w, K_NMLA); }
export function VMUL(w: u32): void { dataProcessing3(w, K_MUL); }
export function VNMUL(w: u32): void { dataProcessing3(w, K_NMUL); }
export function VADD(w: u32): void { dataProcessing3(w, K_ADD); }
export function VSUB(w: u32): void { dataProcessing3(w, K_SUB); }
export function VDIV(w: u32): void { dataProcessing3(w, K_DIV); }

// ---- Two-register and immediate data processing (A7.5 "other") ----
/** VFPExpandImm (A7.5.1): imm8 = abcdefgh -> a:NOT(b):b..b:cd:efgh:0..0. */
export function VMOV_imm(w: u32): void {
  if (!enabled()) return;
  const imm8 = (((w >>> 16) & 15) << 4) | (w & 15);
  const sign = imm8 >>> 7;
  const b = (imm8 >>> 6) & 1;
  const cdefgh = imm8 & 0x3f;
  if (isDouble(w)) {
    if (highDouble(w, BIT_D)) return;
    // exponent: NOT(b), b x 8, cd (11 bits); fraction: efgh then 48 zeros
    const exp = (u64(b ^ 1) << 10) | (b ? u64(0xff) << 2 : 0) | u64(cdefgh >>> 4);
    setD(dD(w), (u64(sign) << 63) | (exp << 52) | (u64(cdefgh & 15) << 48));
  } else {
    const exp = ((b ^ 1) << 7) | (b ? 0x1f << 2 : 0) | (cdefgh >>> 4);
    setS(sD(w), (sign << 31) | (exp << 23) | ((cdefgh & 15) << 19));
  }
}

const U_MOV: u32 = 0;
const U_ABS: u32 = 1;
const U_NEG: u32 = 2;
const U_SQRT: u32 = 3;
function unary(w: u32, kind: u32): void {
  if (!enabled()) return;
  if (isDouble(w)) {
    if (highDouble(w, BIT_D | BIT_M)) return;
    const m = getD(dM(w));
    let r: u64;
    if (kind == U_MOV) r = m;
    else if (kind == U_ABS) r = m & ~signBit<u64>();
    else if (kind == U_NEG) r = m ^ signBit<u64>();
    else r = sqrtOf<f64, u64>(m);
    setD(dD(w), r);
  } else {
    const m = getS(sM(w));
    let r: u32;
    if (kind == U_MOV) r = m;
    else if (kind == U_ABS) r = m & ~signBit<u32>();
    else if (kind == U_NEG) r = m ^ signBit<u32>();
    else r = sqrtOf<f32, u32>(m);
    setS(sD(w), r);
  }
}
export function VMOV_reg(w: u32): void { unary(w, U_MOV); }
export function VABS(w: u32): void { unary(w, U_ABS); }
export function VNEG(w: u32): void { unary(w, U_NEG); }
export function VSQRT(w: u32): void { unary(w, U_SQRT); }

/** VCMP/VCMPE (bit 7 = E), against a register or (`zero`) against +0. */
function vcmp(w: u32, zero: bool): void {
  if (!enabled()) return;
  const e = ((w >>> 7) & 1) != 0;
  if (isDouble(w)) {
    if (highDouble(w, zero ? BIT_D : BIT_D | BIT_M)) return;
    compare<f64, u64>(getD(dD(w)), zero ? 0 : getD(dM(w)), e);
  } else {
    compare<f32, u32>(getS(sD(w)), zero ? 0 : getS(sM(w)), e);
  }
}
export function VCMP(w: u32): void { vcmp(w, false); }
export function VCMP_zero(w: u32): void { vcmp(w, true); }

/** VCVT between double and single (sz = the source's precision). */
export function VCVT_ds(w: u32): void {
  if (!enabled()) return;
  const dn = (fpscr() & FPSCR_DN) != 0;
  if (isDouble(w)) {
    // double -> single: Sd = Dm
    if (highDouble(w, BIT_M)) return;
    const m = flushIn<u64>(getD(dM(w)));
    let r: u32;
    if (isNaNBits<u64>(m)) {
      if ((m & quietBit<u64>()) == 0) flagsRaise(IOC);
      r = dn ? defaultNaN<u32>() : u32(m >>> 32) & 0x80000000 | 0x7fc00000 | u32((m >>> 29) & 0x3fffff);
    } else {
      const x = reinterpret<f64>(m);
      const f = f32(x);
      if (!isFinite<f32>(f) && isFinite<f64>(x)) flagsRaise(OFC | IXC);
      else if (f64(f) != x) flagsRaise(IXC);
      r = flushOut<u32>(reinterpret<u32>(f));
    }
    setS(sD(w), r);
  } else {
    // single -> double: Dd = Sm
    if (highDouble(w, BIT_D)) return;
    const m = flushIn<u32>(getS(sM(w)));
    let r: u64;
    if (isNaNBits<u32>(m)) {
      if ((m & quietBit<u32>()) == 0) flagsRaise(IOC);
      r = dn ? defaultNaN<u64>() : (u64(m & 0x80000000) << 32) | 0x7ff8000000000000 | (u64(m & 0x3fffff) << 29);
    } else r = reinterpret<u64>(f64(reinterpret<f32>(m)));
    setD(dD(w), r);
  }
}

/** VCVT from a 32-bit integer in Sm (bit 7: signed) to Dd or Sd. */
export function VCVT_from_int(w: u32): void {
  if (!enabled()) return;
  const v = getS(sM(w));
  const x: f64 = ((w >>> 7) & 1) != 0 ? f64(i32(v)) : f64(v);
  if (isDouble(w)) {
    if (highDouble(w, BIT_D)) return;
    setD(dD(w), reinterpret<u64>(x));
  } else {
    const f = f32(x);
    if (f64(f) != x) flagsRaise(IXC);
    setS(sD(w), reinterpret<u32>(f));
  }
}

/** Rounds to an integral value: mode 0 nearest (ties to even), 1 towards +inf, 2 towards -inf, 3 towards zero (FPSCR.RMode order). */
@inline function roundIntegral(x: f64, mode: u32): f64 {
  if (mode == 0) return nearest<f64>(x);
  if (mode == 1) return ceil<f64>(x);
  if (mode == 2) return floor<f64>(x);
  return trunc<f64>(x);
}

/** FPToFixed with `fbits` fraction bits into a `bits`-wide signed or unsigned integer, saturating (IOC) and flagging IXC. */
function toFixed(x: f64, isNan: bool, fbits: i32, bits: u32, unsigned: bool, mode: u32): u64 {
  if (isNan) {
    flagsRaise(IOC);
    return 0;
  }
  const scaled = x * Math.pow(2, f64(fbits));
  const r = roundIntegral(scaled, mode);
  const max: f64 = unsigned ? Math.pow(2, f64(bits)) - 1 : Math.pow(2, f64(bits - 1)) - 1;
  const min: f64 = unsigned ? 0 : -Math.pow(2, f64(bits - 1));
  if (r > max) {
    flagsRaise(IOC);
    return u64(i64(max));
  }
  if (r < min) {
    flagsRaise(IOC);
    return u64(i64(min));
  }
  if (r != scaled) flagsRaise(IXC);
  return u64(i64(r));
}

/** VCVT/VCVTR to a 32-bit integer in Sd (bit 16: signed; bit 7 set: round towards zero, else FPSCR.RMode). */
export function VCVT_to_int(w: u32): void {
  if (!enabled()) return;
  const mode = ((w >>> 7) & 1) != 0 ? 3 : (fpscr() >>> 22) & 3;
  const unsigned = ((w >>> 16) & 1) == 0;
  let x: f64;
  let nan: bool;
  if (isDouble(w)) {
    if (highDouble(w, BIT_M)) return;
    const m = flushIn<u64>(getD(dM(w)));
    nan = isNaNBits<u64>(m);
    x = reinterpret<f64>(m);
  } else {
    const m = flushIn<u32>(getS(sM(w)));
    nan = isNaNBits<u32>(m);
    x = f64(reinterpret<f32>(m));
  }
  setS(sD(w), u32(toFixed(x, nan, 0, 32, unsigned, mode)));
}

/**
 * VCVT between floating point and fixed point in the same register (A8.8.307):
 * bit 18 op (1: to fixed, rounding towards zero), bit 16 U (unsigned), bit 7
 * sx (32-bit, else 16-bit), imm4:i the size minus the fraction bits.
 */
export function VCVT_fixed(w: u32): void {
  if (!enabled()) return;
  const toFixedForm = ((w >>> 18) & 1) != 0;
  const unsigned = ((w >>> 16) & 1) != 0;
  const size: u32 = ((w >>> 7) & 1) != 0 ? 32 : 16;
  const fbits = i32(size) - i32(((w & 15) << 1) | ((w >>> 5) & 1));
  if (fbits < 0) { raise(EXC_UNDEF); return; } // UNPREDICTABLE
  const dp = isDouble(w);
  if (dp && highDouble(w, BIT_D)) return;
  if (toFixedForm) {
    let x: f64;
    let nan: bool;
    if (dp) {
      const v = flushIn<u64>(getD(dD(w)));
      nan = isNaNBits<u64>(v);
      x = reinterpret<f64>(v);
    } else {
      const v = flushIn<u32>(getS(sD(w)));
      nan = isNaNBits<u32>(v);
      x = f64(reinterpret<f32>(v));
    }
    let r = toFixed(x, nan, fbits, size, unsigned, 3);
    // the result is extended to the register's width
    if (size == 16) r = unsigned ? r & 0xffff : u64(i64(i16(r)));
    if (dp) setD(dD(w), unsigned ? r & 0xffffffff : u64(i64(i32(u32(r))))) ;
    else setS(sD(w), u32(r));
  } else {
    const raw: u32 = dp ? u32(getD(dD(w))) : getS(sD(w));
    let n: f64;
    if (size == 16) n = unsigned ? f64(raw & 0xffff) : f64(i16(raw));
    else n = unsigned ? f64(raw) : f64(i32(raw));
    const x = n / Math.pow(2, f64(fbits));
    if (dp) setD(dD(w), reinterpret<u64>(x));
    else {
      const f = f32(x);
      if (f64(f) != x) flagsRaise(IXC);
      setS(sD(w), reinterpret<u32>(f));
    }
  }
}

// ---- Transfers between core and extension registers (A7.8, A7.9) ----
/** VMOV between Rt and Sn (bit 20: to Rt). */
export function VMOV_s(w: u32): void {
  if (!enabled()) return;
  const t = (w >>> 12) & 15;
  if (t == 15) { raise(EXC_UNDEF); return; } // UNPREDICTABLE
  if (((w >>> 20) & 1) != 0) setRegRaw(t, getS(sN(w)));
  else setS(sN(w), reg(t));
}

/** VMOV between Rt, Rt2 and Sm, Sm+1 (bit 20: to the core registers). */
export function VMOV_2s(w: u32): void {
  if (!enabled()) return;
  const t = (w >>> 12) & 15;
  const t2 = (w >>> 16) & 15;
  const m = sM(w);
  const toCore = ((w >>> 20) & 1) != 0;
  if (t == 15 || t2 == 15 || m == 31 || (toCore && t == t2)) { raise(EXC_UNDEF); return; } // UNPREDICTABLE
  if (toCore) {
    setRegRaw(t, getS(m));
    setRegRaw(t2, getS(m + 1));
  } else {
    setS(m, reg(t));
    setS(m + 1, reg(t2));
  }
}

/** VMOV between Rt, Rt2 and Dm (bit 20: to the core registers). */
export function VMOV_d(w: u32): void {
  if (!enabled()) return;
  if (highDouble(w, BIT_M)) return;
  const t = (w >>> 12) & 15;
  const t2 = (w >>> 16) & 15;
  const toCore = ((w >>> 20) & 1) != 0;
  if (t == 15 || t2 == 15 || (toCore && t == t2)) { raise(EXC_UNDEF); return; } // UNPREDICTABLE
  const m = dM(w);
  if (toCore) {
    const v = getD(m);
    setRegRaw(t, u32(v));
    setRegRaw(t2, u32(v >>> 32));
  } else setD(m, (u64(reg(t2)) << 32) | u64(reg(t)));
}

/** VMOV Dd[x], Rt: only the 32-bit form is VFP (the others need Advanced SIMD). */
export function VMOV_to_scalar(w: u32): void {
  if (!enabled()) return;
  const t = (w >>> 12) & 15;
  // opc1<1> (bit 22) and opc2 (bits 6:5) must be zero; d16..d31 (bit 7) do not exist
  if ((w & 0x00400060) != 0 || (w & BIT_N) != 0 || t == 15) { raise(EXC_UNDEF); return; }
  setS((((w >>> 16) & 15) << 1) | ((w >>> 21) & 1), reg(t));
}

/** VMOV Rt, Dn[x]: only the 32-bit form is VFP. */
export function VMOV_from_scalar(w: u32): void {
  if (!enabled()) return;
  const t = (w >>> 12) & 15;
  // U (bit 23), opc1<1> (bit 22) and opc2 (bits 6:5) must be zero
  if ((w & 0x00c00060) != 0 || (w & BIT_N) != 0 || t == 15) { raise(EXC_UNDEF); return; }
  setRegRaw(t, getS((((w >>> 16) & 15) << 1) | ((w >>> 21) & 1)));
}

/** VMSR: FPSCR from any privilege level; FPEXC (and the read-only FPSID) from PL1, also while FPEXC.EN is clear. */
export function VMSR(w: u32): void {
  const r = (w >>> 16) & 15;
  const v = reg((w >>> 12) & 15);
  if (r == 1) {
    if (!enabled()) return;
    setSt(VFP_FPSCR, v & FPSCR_WRITABLE);
    return;
  }
  if (!coprocessorAccess() || !privileged()) { raise(EXC_UNDEF); return; }
  if (r == 8) setSt(VFP_FPEXC, v & FPEXC_EN);
  else if (r != 0) raise(EXC_UNDEF);
}

/** VMRS: as VMSR; VMRS APSR_nzcv, FPSCR (Rt = 15) copies the comparison flags. */
export function VMRS(w: u32): void {
  const r = (w >>> 16) & 15;
  const t = (w >>> 12) & 15;
  let v: u32;
  if (r == 1) {
    if (!enabled()) return;
    v = fpscr();
    if (t == 15) {
      setSt(FLAG_N, v >>> 31);
      setSt(FLAG_Z, (v >>> 30) & 1);
      setSt(FLAG_C, (v >>> 29) & 1);
      setSt(FLAG_V, (v >>> 28) & 1);
      return;
    }
  } else {
    if (!coprocessorAccess() || !privileged()) { raise(EXC_UNDEF); return; }
    if (r == 0) v = FPSID;
    else if (r == 6) v = MVFR1;
    else if (r == 7) v = MVFR0;
    else if (r == 8) v = st(VFP_FPEXC);
    else { raise(EXC_UNDEF); return; }
  }
  if (t == 15) { raise(EXC_UNDEF); return; } // UNPREDICTABLE
  setRegRaw(t, v);
}

// ---- Extension register load/store (A7.6) ----
/** The base of a load/store: Rn, or the word-aligned pc for a literal (r15 reads as the instruction's pc + 8 or + 4). */
@inline function baseOf(n: u32): u32 {
  const v = reg(n);
  return n == 15 ? v & ~3 : v;
}

/** VLDR/VSTR: one register at Rn +/- imm8 * 4. */
function single(w: u32, load: bool): void {
  if (!enabled()) return;
  const dp = isDouble(w);
  if (dp && highDouble(w, BIT_D)) return;
  const offset = (w & 0xff) << 2;
  const base = baseOf((w >>> 16) & 15);
  const addr = ((w >>> 23) & 1) != 0 ? base + offset : base - offset;
  if (addr & 3) { alignmentFault(addr); return; }
  if (load) {
    const lo = read(addr, 4);
    if (aborted) return;
    if (dp) {
      const hi = read(addr + 4, 4);
      if (aborted) return;
      setD(dD(w), (u64(hi) << 32) | u64(lo));
    } else setS(sD(w), lo);
  } else if (dp) {
    if (!probeWrite(addr + 4)) return;
    const v = getD(dD(w));
    write(addr, 4, u32(v));
    if (aborted) return;
    write(addr + 4, 4, u32(v >>> 32));
  } else write(addr, 4, getS(sD(w)));
}
export function VLDR(w: u32): void { single(w, true); }
export function VSTR(w: u32): void { single(w, false); }

/**
 * VLDM/VSTM (VPUSH and VPOP are VSTMDB and VLDMIA on sp!): imm8 words from
 * Rn upwards (IA) or below it (DB), Rn written back when W. A double form
 * with an odd imm8 is FLDMX/FSTMX, moving imm8 / 2 registers and writing
 * back imm8 words.
 */
function multiple(w: u32, load: bool, decrement: bool): void {
  if (!enabled()) return;
  const dp = isDouble(w);
  const n = (w >>> 16) & 15;
  const words = w & 0xff;
  const wback = ((w >>> 21) & 1) != 0;
  const first = dp ? (((w >>> 22) & 1) << 4) | dD(w) : sD(w);
  const regs = dp ? words >>> 1 : words;
  if (regs == 0 || first + regs > (dp ? 16 : 32) || (dp && regs > 16) || (wback && n == 15)) { raise(EXC_UNDEF); return; } // UNPREDICTABLE or d16+
  const base = baseOf(n);
  const start = decrement ? base - (words << 2) : base;
  if (start & 3) { alignmentFault(start); return; }
  if (!load && !probeWrite(start + (words << 2) - 4)) return;
  let addr = start;
  for (let i: u32 = 0; i < regs; i++) {
    if (dp) {
      if (load) {
        const lo = read(addr, 4);
        if (aborted) return;
        const hi = read(addr + 4, 4);
        if (aborted) return;
        setD(first + i, (u64(hi) << 32) | u64(lo));
      } else {
        const v = getD(first + i);
        write(addr, 4, u32(v));
        if (aborted) return;
        write(addr + 4, 4, u32(v >>> 32));
        if (aborted) return;
      }
      addr += 8;
    } else {
      if (load) {
        const v = read(addr, 4);
        if (aborted) return;
        setS(first + i, v);
      } else {
        write(addr, 4, getS(first + i));
        if (aborted) return;
      }
      addr += 4;
    }
  }
  if (wback) setRegRaw(n, decrement ? base - (words << 2) : base + (words << 2));
}
export function VLDMIA(w: u32): void { multiple(w, true, false); }
export function VLDMDB(w: u32): void { multiple(w, true, true); }
export function VSTMIA(w: u32): void { multiple(w, false, false); }
export function VSTMDB(w: u32): void { multiple(w, false, true); }
