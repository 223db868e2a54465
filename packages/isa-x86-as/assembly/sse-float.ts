// Lane arithmetic of the SSE floating-point instructions and MXCSR (SDM vol.
// 1, 10.2.3, 11.5 and table 4-7 for NaNs): a NaN operand propagates (the
// first source's if both are NaNs), quieted; an invalid operation gives the
// default NaN (the negative quiet NaN). Each lane's exceptions collect in
// laneFlags; an instruction calls sseBegin before its lanes and sseCommit
// after them, which merges the exceptions into MXCSR's flags, or, when one
// is unmasked, raises #XM (#UD without CR4.OSXMMEXCPT) and the instruction
// writes nothing.
//
// Under the default MXCSR (exceptions masked, round to nearest, no FTZ or
// DAZ) a lane is the host's f64/f32 operation; its exceptions come from
// cheap tests (error-free transformations tell an inexact result) while the
// operands and the result stay clear of the format's limits, and from
// float80.ts otherwise. Any other MXCSR (directed rounding, FTZ, DAZ,
// unmasked exceptions) runs every lane through float80.ts, rounding to the
// binary format with MXCSR.RC.
import { mxcsr, setMxcsr, raise, cr4, VEC_UD } from './cpu';
import * as F from './float80';

export const DEFAULT_NAN64: u64 = 0xfff8000000000000;
export const DEFAULT_NAN32: u32 = 0xffc00000;
const QUIET64: u64 = 0x0008000000000000;
const QUIET32: u32 = 0x400000;
const VEC_XM: i32 = 19;

const IE: u32 = 1, DE: u32 = 2, ZE: u32 = 4, OE: u32 = 8, UE: u32 = 16, PE: u32 = 32;

// @ts-ignore: decorator
@inline export function isNaN64(b: u64): bool { return (b & 0x7fffffffffffffff) > 0x7ff0000000000000; }
// @ts-ignore: decorator
@inline export function isNaN32(b: u32): bool { return (b & 0x7fffffff) > 0x7f800000; }
// @ts-ignore: decorator
@inline function isSignaling64(b: u64): bool { return isNaN64(b) && (b & QUIET64) == 0; }
// @ts-ignore: decorator
@inline function isSignaling32(b: u32): bool { return isNaN32(b) && (b & QUIET32) == 0; }
// @ts-ignore: decorator
@inline function isDenormal64(b: u64): bool { return (b & 0x7ff0000000000000) == 0 && (b << 1) != 0; }
// @ts-ignore: decorator
@inline function isDenormal32(b: u32): bool { return (b & 0x7f800000) == 0 && (b << 1) != 0; }

// ---- MXCSR -------------------------------------------------------------------------------------
let laneFlags: u32 = 0;
/** Starts an instruction's lanes: no exceptions yet. */
export function sseBegin(): void { laneFlags = 0; }
/** Raises exceptions for the current instruction (for the handlers' own checks). */
export function sseRaise(flags: u32): void { laneFlags |= flags; }
/**
 * Ends an instruction's lanes: merges their exceptions into MXCSR. Returns
 * false, having raised #XM (or #UD), when one of them is unmasked: then only
 * the invalid, denormal and zero-divide ones are recorded if one of those is
 * unmasked (they stop the operation before its results), and the
 * instruction must write nothing.
 */
export function sseCommit(): bool {
  const f = laneFlags;
  if (f == 0) return true;
  const masks = (mxcsr >> 7) & 0x3f;
  if ((f & ~masks) != 0) {
    const pre = f & (IE | DE | ZE);
    setMxcsr(mxcsr | ((pre & ~masks) != 0 ? pre : f));
    raise((cr4 & 0x400) != 0 ? VEC_XM : VEC_UD, 0);
    return false;
  }
  setMxcsr(mxcsr | f);
  return true;
}
/** Exceptions masked, round to nearest, no FTZ or DAZ. */
// @ts-ignore: decorator
@inline function defaultControl(): bool { return (mxcsr & 0xffc0) == 0x1f80; }
// @ts-ignore: decorator
@inline function allFlagsSet(): bool { return (mxcsr & 0x3f) == 0x3f; }
/** MXCSR.RC (the x87 encoding: nearest, down, up, toward zero). */
// @ts-ignore: decorator
@inline export function roundingMode(): u32 { return (mxcsr >> 13) & 3; }
// @ts-ignore: decorator
@inline function daz(): bool { return (mxcsr & 0x40) != 0; }
// @ts-ignore: decorator
@inline function ftz(): bool { return (mxcsr & 0x8000) != 0; }

/** float80's context for a binary result: MXCSR's rounding and masks. */
function softBegin(bits: i32): void {
  F.setContext(roundingMode(), bits == 32 ? 24 : 53, ~(mxcsr >> 7) & 0x3f, false);
  F.clearFlags();
  F.setBinaryFormat(bits);
}
/** float80's result as binary bits, with FTZ applied and its exceptions collected. */
function softEnd(single: bool): u64 {
  let r = F.resultBinary();
  F.setBinaryFormat(0);
  let flags = F.flags & 0x3f;
  const tiny = single ? isDenormal32(<u32>r) : isDenormal64(r);
  // FTZ: a tiny result (underflow masked) becomes a zero of its sign, with underflow and precision
  if (ftz() && (mxcsr & (UE << 7)) != 0 && (tiny || (flags & UE) != 0)) {
    r &= single ? 0x80000000 : 0x8000000000000000;
    flags |= UE | PE;
  }
  laneFlags |= flags;
  return r;
}

// ---- lanes of either format ------------------------------------------------------------------------
// @ts-ignore: decorator
@inline function isDenormal(b: u64, single: bool): bool { return single ? isDenormal32(<u32>b) : isDenormal64(b); }
/** DAZ: a denormal operand reads as the zero of its sign. */
function dazOperand(b: u64, single: bool): u64 {
  return daz() && isDenormal(b, single) ? b & (single ? 0x80000000 : 0x8000000000000000) : b;
}
/** A lane through float80: MXCSR's rounding, FTZ and DAZ, exact exceptions. */
function softLane(op: i32, a: u64, b: u64, single: bool): u64 {
  const x = dazOperand(a, single), y = dazOperand(b, single);
  softBegin(single ? 32 : 64);
  F.fromBinary(y, single);
  const bSe = F.resultSe, bSig = F.resultSig;
  if (op == 6) F.sqrt80(bSe, bSig);
  else {
    F.fromBinary(x, single);
    const aSe = F.resultSe, aSig = F.resultSig;
    if (op == 0) F.add80(aSe, aSig, bSe, bSig, false);
    else if (op == 1) F.add80(aSe, aSig, bSe, bSig, true);
    else if (op == 2) F.mul80(aSe, aSig, bSe, bSig);
    else F.div80(aSe, aSig, bSe, bSig);
  }
  return softEnd(single);
}
/** min (4) / max (5): the second source for NaNs and equal values; invalid for any NaN, denormal for a denormal operand. */
function minMax(op: i32, a: u64, b: u64, single: bool): u64 {
  const x = dazOperand(a, single), y = dazOperand(b, single);
  compareLanes(x, y, true, single);
  const p = comparedA, q = comparedB;
  return (op == 4 ? p < q : p > q) ? x : y;
}

// ---- binary64 lanes ----------------------------------------------------------------------------
/** Clear of binary64's limits: zero, or a normal value within 2^-900 .. 2^900 (error terms stay exact). */
// @ts-ignore: decorator
@inline function ordinary64(b: u64): bool {
  const e = (b >> 52) & 0x7ff;
  return (b << 1) == 0 || (e >= 1023 - 900 && e <= 1023 + 900);
}
// Veltkamp split and Dekker product error: exact for ordinary operands
function productError(x: f64, y: f64, p: f64): f64 {
  const tx = 134217729.0 * x, xh = tx - (tx - x), xl = x - xh;
  const ty = 134217729.0 * y, yh = ty - (ty - y), yl = y - yh;
  return ((xh * yh - p) + xh * yl + xl * yh) + xl * yl;
}
/**
 * Whether a zero result of op (0 add 1 sub 2 mul 3 div 6 sqrt) on ordinary
 * operands is exact: a sum or difference, or an operand zero that makes it.
 * Any other zero underflowed (tiny and inexact: UE with PE), which the soft
 * path raises.
 */
// @ts-ignore: decorator
@inline function exactZero(op: i32, aZero: bool, bZero: bool): bool {
  return op <= 1 || (op == 2 && (aZero || bZero)) || (op == 3 && aZero) || (op == 6 && bZero);
}
/** Whether the host's rounded result r of op on ordinary x, y was inexact. */
function inexact64(op: i32, x: f64, y: f64, r: f64): bool {
  if (op == 0 || op == 1) {
    const z = op == 0 ? y : -y;
    const bb = r - x;
    return (x - (r - bb)) + (z - bb) != 0;
  }
  if (op == 2) return productError(x, y, r) != 0;
  if (op == 3) { const p = r * y; return p != x || productError(r, y, p) != 0; }
  const p = r * r; // sqrt
  return p != y || productError(r, r, p) != 0;
}
/** One double lane; op: 0 add 1 sub 2 mul 3 div 4 min 5 max 6 sqrt (of b). */
export function laneF64(op: i32, a: u64, b: u64): u64 {
  if (op == 4 || op == 5) return minMax(op, a, b, false);
  const aNaN = op != 6 && isNaN64(a), bNaN = isNaN64(b);
  if (aNaN || bNaN) {
    if ((op != 6 && isSignaling64(a)) || isSignaling64(b)) laneFlags |= IE;
    return aNaN ? a | QUIET64 : b | QUIET64;
  }
  if (defaultControl()) {
    const x = reinterpret<f64>(a), y = reinterpret<f64>(b);
    const v = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : op == 3 ? x / y : Math.sqrt(y);
    const r = reinterpret<u64>(v);
    if (allFlagsSet() && !isNaN64(r)) return r;
    if ((op == 6 || ordinary64(a)) && ordinary64(b) && ordinary64(r) && ((r << 1) != 0 || exactZero(op, (a << 1) == 0, (b << 1) == 0))) {
      if ((mxcsr & PE) == 0 && inexact64(op, x, y, v)) laneFlags |= PE;
      return r;
    }
  }
  return softLane(op, a, b, false);
}

// ---- binary32 lanes (the host's f64 holds every operand, product and quotient check exactly) ----------------
// @ts-ignore: decorator
@inline function ordinary32(b: u32): bool {
  const e = (b >> 23) & 0xff;
  return (b << 1) == 0 || (e >= 127 - 100 && e <= 127 + 100);
}
function inexact32(op: i32, x: f64, y: f64, r: f64): bool {
  if (op == 0 || op == 1) {
    const z = op == 0 ? y : -y;
    const s = x + z;
    const bb = s - x;
    return s != r || (x - (s - bb)) + (z - bb) != 0;
  }
  if (op == 2) return x * y != r;
  if (op == 3) return r * y != x;
  return r * r != y;
}
/** One float lane, as laneF64. */
export function laneF32(op: i32, a: u32, b: u32): u32 {
  if (op == 4 || op == 5) return <u32>minMax(op, <u64>a, <u64>b, true);
  const aNaN = op != 6 && isNaN32(a), bNaN = isNaN32(b);
  if (aNaN || bNaN) {
    if ((op != 6 && isSignaling32(a)) || isSignaling32(b)) laneFlags |= IE;
    return aNaN ? a | QUIET32 : b | QUIET32;
  }
  if (defaultControl()) {
    const x = reinterpret<f32>(a), y = reinterpret<f32>(b);
    const v: f32 = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : op == 3 ? x / y : Mathf.sqrt(y);
    const r = reinterpret<u32>(v);
    if (allFlagsSet() && !isNaN32(r)) return r;
    if ((op == 6 || ordinary32(a)) && ordinary32(b) && ordinary32(r) && ((r << 1) != 0 || exactZero(op, (a << 1) == 0, (b << 1) == 0))) {
      if ((mxcsr & PE) == 0 && inexact32(op, <f64>x, <f64>y, <f64>v)) laneFlags |= PE;
      return r;
    }
  }
  return <u32>softLane(op, <u64>a, <u64>b, true);
}

// ---- compares -----------------------------------------------------------------------------------------
export let comparedA: f64 = 0;
export let comparedB: f64 = 0;
/**
 * The exceptions of a compare: invalid for an SNaN, or for a QNaN when
 * `signaling` (COMISx, MINxx/MAXxx, and CMPxx's LT, LE, NLT, NLE); else
 * denormal for a denormal operand. The operands as compared (DAZ: denormals
 * as zeros) are left in comparedA/comparedB, as doubles.
 */
export function compareLanes(a: u64, b: u64, signaling: bool, single: bool): void {
  const x = dazOperand(a, single), y = dazOperand(b, single);
  const xNaN = single ? isNaN32(<u32>x) : isNaN64(x), yNaN = single ? isNaN32(<u32>y) : isNaN64(y);
  const snan = single ? isSignaling32(<u32>x) || isSignaling32(<u32>y) : isSignaling64(x) || isSignaling64(y);
  if (snan || (signaling && (xNaN || yNaN))) laneFlags |= IE;
  else if (!xNaN && !yNaN && (isDenormal(x, single) || isDenormal(y, single))) laneFlags |= DE;
  comparedA = single ? <f64>reinterpret<f32>(<u32>x) : reinterpret<f64>(x);
  comparedB = single ? <f64>reinterpret<f32>(<u32>y) : reinterpret<f64>(y);
}

// ---- conversions ---------------------------------------------------------------------------------------
/** binary32 to binary64 (exact): an SNaN quieted with invalid, a denormal raises denormal (DAZ: zero). */
export function f32ToF64(b: u32): u64 {
  if (isNaN32(b)) {
    if (isSignaling32(b)) laneFlags |= IE;
    return (<u64>(b >> 31) << 63) | 0x7ff8000000000000 | (<u64>(b & 0x3fffff) << 29);
  }
  if (isDenormal32(b)) {
    if (daz()) return <u64>(b >> 31) << 63;
    laneFlags |= DE;
  }
  return reinterpret<u64>(<f64>reinterpret<f32>(b));
}
/** binary64 to binary32, rounded with MXCSR.RC (overflow, underflow, precision, FTZ). */
export function f64ToF32(b: u64): u32 {
  if (isNaN64(b)) {
    if (isSignaling64(b)) laneFlags |= IE;
    return (<u32>(b >> 63) << 31) | 0x7fc00000 | <u32>((b >> 29) & 0x3fffff);
  }
  let x = b;
  if (isDenormal64(x)) { if (daz()) x &= 0x8000000000000000; else laneFlags |= DE; }
  if (defaultControl()) {
    const v = <f32>reinterpret<f64>(x);
    const r = reinterpret<u32>(v);
    // A zero from a nonzero double underflowed: the soft path raises UE with PE.
    if (ordinary32(r) && ordinary64(x) && ((r << 1) != 0 || (x << 1) == 0)) {
      if ((mxcsr & PE) == 0 && <f64>v != reinterpret<f64>(x)) laneFlags |= PE;
      return r;
    }
  }
  softBegin(32);
  F.fromBinary(x, false);
  F.toFloat(F.resultSe, F.resultSig, true);
  F.setBinaryFormat(0);
  const r = <u32>F.resultBits;
  let flags = F.flags & 0x3f & ~DE;
  if (ftz() && (mxcsr & (UE << 7)) != 0 && (isDenormal32(r) || (flags & UE) != 0)) { laneFlags |= flags | UE | PE; return r & 0x80000000; }
  laneFlags |= flags;
  return r;
}
/** A signed integer to binary64 or binary32, rounded with MXCSR.RC (precision when inexact). */
export function intToFloat(v: i64, single: bool): u64 {
  if (defaultControl()) {
    if (single) {
      const f = <f32>v;
      // f may round up to 2^63, which no i64 holds
      if ((mxcsr & PE) == 0 && (<f64>f >= 9223372036854775808.0 || <i64>f != v)) laneFlags |= PE;
      return <u64>reinterpret<u32>(f);
    }
    const d = <f64>v;
    if ((mxcsr & PE) == 0 && (d >= 9223372036854775808.0 || <i64>d != v)) laneFlags |= PE;
    return reinterpret<u64>(d);
  }
  softBegin(single ? 32 : 64);
  F.fromInt64(v);
  F.toFloat(F.resultSe, F.resultSig, single);
  F.setBinaryFormat(0);
  laneFlags |= F.flags & PE;
  return F.resultBits;
}
/**
 * A binary64 value (a binary32 one widened) to a signed integer of `size`
 * bytes: truncated, or rounded with MXCSR.RC. NaNs and values out of range
 * give the integer indefinite with invalid; a fraction raises precision
 * (these conversions raise no denormal exception; DAZ reads a denormal as 0).
 */
export function floatToInt(x: f64, size: i32, truncate: bool, denormal: bool): u64 {
  if (denormal && daz()) x = 0;
  const mode = truncate ? 3 : roundingMode();
  const y = mode == 0 ? nearest<f64>(x) : mode == 1 ? Math.floor(x) : mode == 2 ? Math.ceil(x) : Math.trunc(x);
  const limit: f64 = size == 8 ? 9223372036854775808.0 : 2147483648.0;
  if (y != y || y >= limit || y < -limit) { laneFlags |= IE; return size == 8 ? 0x8000000000000000 : 0x80000000; }
  if (y != x) laneFlags |= PE;
  return size == 8 ? <u64><i64>y : <u64><u32><i32>y;
}
/** ROUNDxx: round to an integral value (imm8 bits 1:0 or MXCSR.RC with bit 2), precision unless imm8 bit 3. */
export function roundF64(b: u64, imm: u32): u64 {
  if (isNaN64(b)) { if (isSignaling64(b)) laneFlags |= IE; return b | QUIET64; }
  let v = b;
  if (daz() && isDenormal64(v)) v &= 0x8000000000000000;
  const mode = (imm & 4) != 0 ? roundingMode() : imm & 3;
  const x = reinterpret<f64>(v);
  const r = mode == 0 ? nearest<f64>(x) : mode == 1 ? Math.floor(x) : mode == 2 ? Math.ceil(x) : Math.trunc(x);
  if ((imm & 8) == 0 && r != x) laneFlags |= PE;
  return reinterpret<u64>(r);
}
export function roundF32(b: u32, imm: u32): u32 {
  if (isNaN32(b)) { if (isSignaling32(b)) laneFlags |= IE; return b | QUIET32; }
  let v = b;
  if (daz() && isDenormal32(v)) v &= 0x80000000;
  const mode = (imm & 4) != 0 ? roundingMode() : imm & 3;
  const x = reinterpret<f32>(v);
  const r: f32 = mode == 0 ? nearest<f32>(x) : mode == 1 ? Mathf.floor(x) : mode == 2 ? Mathf.ceil(x) : Mathf.trunc(x);
  if ((imm & 8) == 0 && r != x) laneFlags |= PE;
  return reinterpret<u32>(r);
}
