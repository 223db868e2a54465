// IEEE 754 double extended precision (the x87's 80-bit format) in software,
// exactly: add, subtract, multiply, divide, square root, round to integer,
// scale, partial remainder, compare, and the conversions to and from the
// 32/64-bit binary formats and 16/32/64-bit integers. Pure functions over
// the operands they are given; results, exception flags and the C1
// "rounded up" indication come back in the module globals below (no
// allocation). The x87 state itself lives in x87.ts.
//
// An 80-bit value is a pair (se, sig): se = sign << 15 | biased exponent
// (bias 16383), sig = the 64-bit significand with its explicit integer bit J
// (bit 63). SDM vol. 1, 4.2.2 and 8.2.2 classify them:
//
//   exponent   J  fraction      class
//   0          0  0             zero
//   0          x  non-zero      denormal (J = 1: pseudo-denormal, read as exponent 1)
//   1..7FFE    1  any           normal
//   1..7FFE    0  any           unnormal        } unsupported: invalid operands
//   7FFF       0  any           pseudo-NaN/inf  } of every arithmetic instruction
//   7FFF       1  0             infinity
//   7FFF       1  non-zero      NaN (quiet when fraction bit 62 is set)
//
// Rounding follows SDM vol. 1, 4.8.4: the exact result is rounded once, to
// the precision asked for (24, 53 or 64 bits; the x87 precision control or
// the destination format) within the destination's exponent range;
// tininess is detected after rounding (4.9.1.5), so a masked underflow is
// flagged only when a tiny result is also inexact.

import { mulHigh, divide128, divisionRemainder } from './u128';

// ---- exception flags (x87 status word and MXCSR bits 0-5) ------------------
export const EX_INVALID: u32 = 1;
export const EX_DENORMAL: u32 = 2;
export const EX_ZERODIVIDE: u32 = 4;
export const EX_OVERFLOW: u32 = 8;
export const EX_UNDERFLOW: u32 = 16;
export const EX_PRECISION: u32 = 32;

// ---- rounding control (x87 RC and MXCSR.RC encoding) ----------------------
export const RC_NEAREST: u32 = 0;
export const RC_DOWN: u32 = 1;
export const RC_UP: u32 = 2;
export const RC_ZERO: u32 = 3;

export const BIAS: i32 = 16383;
export const EXP_MAX: u32 = 0x7fff;
export const J_BIT: u64 = 0x8000000000000000;
export const QUIET_BIT: u64 = 0x4000000000000000;
/** The QNaN floating-point indefinite: the masked response to an invalid operation. */
export const INDEFINITE_SE: u32 = 0xffff;
export const INDEFINITE_SIG: u64 = 0xc000000000000000;
/** x87 exponent wrap for an unmasked overflow or underflow with a register destination (SDM vol. 1, 8.5.4/8.5.5). */
const WRAP_BIAS: i32 = 24576;

// ---- the operation context (set by the caller before an operation) ----------
/** Rounding control for the next operations. */
export let roundingControl: u32 = RC_NEAREST;
/** Precision in bits (24, 53, 64) of x87 arithmetic results. */
export let precisionBits: i32 = 64;
/** Exceptions that are unmasked: invalid, denormal and zero-divide ones stop an operation before it produces a result. */
export let unmasked: u32 = 0;
/** The destination is an x87 register: an unmasked overflow/underflow delivers the result with its exponent wrapped. */
export let registerDestination: bool = true;
export function setContext(rc: u32, precision: i32, unmaskedExceptions: u32, toRegister: bool): void {
  roundingControl = rc; precisionBits = precision; unmasked = unmaskedExceptions; registerDestination = toRegister;
}

// ---- results ------------------------------------------------------------------
/** Exceptions the last operations raised (accumulated until clearFlags). */
export let flags: u32 = 0;
/** The last rounding increased the magnitude of the result (x87 C1). */
export let roundedUp: bool = false;
/** False when an unmasked pre-computation exception (invalid, denormal, zero-divide) stopped the operation: no result. */
export let hasResult: bool = true;
export let resultSe: u32 = 0;
export let resultSig: u64 = 0;
/** A binary32/64 result (toFloat, and the operations when binaryFormat is set). */
export let resultBits: u64 = 0;
export function clearFlags(): void { flags = 0; roundedUp = false; hasResult = true; sourceDenormal = false; }
/**
 * The last fromBinary read a denormal: an operation on that
 * operand raises denormal (after its NaN and invalid checks, as the SDM's
 * exception priority has it), though the 80-bit value is normal.
 */
export let sourceDenormal: bool = false;

// @ts-ignore: decorator
@inline export function expOf(se: u32): u32 { return se & 0x7fff; }
// @ts-ignore: decorator
@inline export function signOf(se: u32): u32 { return (se >> 15) & 1; }
// @ts-ignore: decorator
@inline export function isNaN80(se: u32, sig: u64): bool { return (se & 0x7fff) == EXP_MAX && (sig >> 63) != 0 && (sig << 1) != 0; }
// @ts-ignore: decorator
@inline export function isSignaling80(se: u32, sig: u64): bool { return isNaN80(se, sig) && (sig & QUIET_BIT) == 0; }
// @ts-ignore: decorator
@inline export function isInf80(se: u32, sig: u64): bool { return (se & 0x7fff) == EXP_MAX && sig == J_BIT; }
// @ts-ignore: decorator
@inline export function isZero80(se: u32, sig: u64): bool { return (se & 0x7fff) == 0 && sig == 0; }
// @ts-ignore: decorator
@inline export function isDenormal80(se: u32, sig: u64): bool { return (se & 0x7fff) == 0 && sig != 0; }
/** Unnormals, pseudo-NaNs and pseudo-infinities: invalid operands since the 80387. */
// @ts-ignore: decorator
@inline export function isUnsupported80(se: u32, sig: u64): bool { return (se & 0x7fff) != 0 && (sig >> 63) == 0; }

export function setResult(se: u32, sig: u64): void { resultSe = se; resultSig = sig; }

/** Raises invalid; the masked response is the indefinite (no result when invalid is unmasked). */
export function signalInvalid(): void {
  flags |= EX_INVALID;
  if ((unmasked & EX_INVALID) != 0) hasResult = false;
  setResult(INDEFINITE_SE, INDEFINITE_SIG);
}
/** Raises denormal; true when it is unmasked (the operation stops without a result). */
export function signalDenormal(): bool {
  flags |= EX_DENORMAL;
  if ((unmasked & EX_DENORMAL) != 0) { hasResult = false; return true; }
  return false;
}
/** Raises precision (an inexact result the caller produced itself). */
export function signalPrecision(): void { flags |= EX_PRECISION; }
/** Raises zero-divide; true when it is unmasked (no result). */
export function signalZeroDivide(): bool {
  flags |= EX_ZERODIVIDE;
  if ((unmasked & EX_ZERODIVIDE) != 0) { hasResult = false; return true; }
  return false;
}

/**
 * NaN operands of a two-operand operation (SDM vol. 1, table 4-7): a QNaN
 * wins over an SNaN; of two NaNs of the same kind the larger significand,
 * and of equal significands the positive one; SNaNs raise invalid and are
 * delivered quieted.
 */
export function propagateNaN(aSe: u32, aSig: u64, bSe: u32, bSig: u64): void {
  const aNaN = isNaN80(aSe, aSig), bNaN = isNaN80(bSe, bSig);
  if (isSignaling80(aSe, aSig) || isSignaling80(bSe, bSig)) {
    flags |= EX_INVALID;
    if ((unmasked & EX_INVALID) != 0) hasResult = false;
  }
  let se: u32, sig: u64;
  if (aNaN && bNaN) {
    const aq = (aSig & QUIET_BIT) != 0, bq = (bSig & QUIET_BIT) != 0;
    if (aq != bq) { se = aq ? aSe : bSe; sig = aq ? aSig : bSig; }
    else if (aSig != bSig) { se = aSig > bSig ? aSe : bSe; sig = aSig > bSig ? aSig : bSig; }
    else { se = aSe < bSe ? aSe : bSe; sig = aSig; }
  } else if (aNaN) { se = aSe; sig = aSig; } else { se = bSe; sig = bSig; }
  setResult(se, sig | QUIET_BIT);
}

// ---- unpacking -------------------------------------------------------------------
// A finite non-zero operand as (exponent, significand with J set): value =
// sig / 2^63 * 2^unpackedExp (unbiased). Denormals are normalized, so the
// exponent may lie below the format's minimum.
let unpackedExp: i32 = 0;
let unpackedSig: u64 = 0;
function unpack(se: u32, sig: u64): void {
  let e = <i32>(se & 0x7fff);
  if (e == 0) e = 1; // denormals and pseudo-denormals have the exponent of the smallest normal
  const shift = <i32>clz<u64>(sig);
  unpackedSig = sig << <u64>shift;
  unpackedExp = e - shift - BIAS;
}

// ---- 128-bit helpers ------------------------------------------------------------------
let wideHi: u64 = 0;
let wideLo: u64 = 0;
/** (hi:lo) >> n, the bits shifted out ORed into bit 0 (sticky). */
function shiftRightJam(hi: u64, lo: u64, n: i32): void {
  if (n <= 0) { wideHi = hi; wideLo = lo; return; }
  if (n < 64) {
    const lost = (lo << <u64>(64 - n)) != 0 ? 1 : 0;
    wideLo = (lo >> <u64>n) | (hi << <u64>(64 - n)) | <u64>lost;
    wideHi = hi >> <u64>n;
  } else if (n == 64) {
    wideLo = hi | <u64>(lo != 0 ? 1 : 0);
    wideHi = 0;
  } else if (n < 128) {
    const lost = ((hi << <u64>(128 - n)) | lo) != 0 ? 1 : 0;
    wideLo = (hi >> <u64>(n - 64)) | <u64>lost;
    wideHi = 0;
  } else {
    wideLo = (hi | lo) != 0 ? 1 : 0;
    wideHi = 0;
  }
}
export function wideHigh(): u64 { return wideHi; }
export function wideLow(): u64 { return wideLo; }
/** 64 x 64 -> 128-bit product into wideHi:wideLo (wideHigh(), wideLow()). */
export function mul64(a: u64, b: u64): void {
  wideLo = a * b;
  wideHi = mulHigh(a, b);
}

// ---- rounding ---------------------------------------------------------------------------
// Rounds sign * (sig:extra) / 2^63 * 2^e (sig normalized, J set) to `precision`
// bits within the exponent range [emin, emax] (unbiased). The result is left
// in roundedSig (J clear for a denormal at emin), roundedExp and roundedInf.
let roundedSig: u64 = 0;
let roundedExp: i32 = 0;
let roundedInf: bool = false;

/** Whether rounding (sig:extra) at `precision` bits increments it. */
function roundsUp(sign: u32, sig: u64, extra: u64, precision: i32): bool {
  const rc = roundingControl;
  if (precision == 64) {
    if (extra == 0) return false;
    if (rc == RC_NEAREST) return extra > J_BIT || (extra == J_BIT && (sig & 1) != 0);
    if (rc == RC_ZERO) return false;
    return (rc == RC_UP) == (sign == 0);
  }
  const unit = <u64>1 << <u64>(64 - precision);
  const low = sig & (unit - 1);
  if (low == 0 && extra == 0) return false;
  if (rc == RC_NEAREST) {
    const half = unit >> 1;
    return low > half || (low == half && (extra != 0 || (sig & unit) != 0));
  }
  if (rc == RC_ZERO) return false;
  return (rc == RC_UP) == (sign == 0);
}

/** Rounds (sig:extra) at `precision` bits into roundedSig/roundedExp (exponent e); returns whether it was inexact. */
function roundAt(sign: u32, e: i32, sig: u64, extra: u64, precision: i32): bool {
  const inexact = precision == 64 ? extra != 0 : ((sig & ((<u64>1 << <u64>(64 - precision)) - 1)) | extra) != 0;
  const up = roundsUp(sign, sig, extra, precision);
  let s = precision == 64 ? sig : sig & ~((<u64>1 << <u64>(64 - precision)) - 1);
  if (up) {
    const unit: u64 = precision == 64 ? 1 : <u64>1 << <u64>(64 - precision);
    const before = s;
    s += unit;
    if (s < before) { s = J_BIT; e++; } // carried out of bit 63
    roundedUp = true;
  }
  roundedSig = s;
  roundedExp = e;
  return inexact;
}

/**
 * The rounding of SDM vol. 1, 4.8.4 with the x87 and IEEE exception rules.
 * `wrap`: an x87 register destination, whose unmasked overflow or
 * underflow delivers the significand with the exponent wrapped by 24576
 * (the caller wants a result anyway); a memory destination's is left to
 * the caller (nothing stored).
 */
function roundPack(sign: u32, e: i32, sig: u64, extra: u64, precision: i32, emin: i32, emax: i32, wrap: bool): void {
  roundedInf = false;
  if (sig == 0 && extra == 0) { roundedSig = 0; roundedExp = emin; return; }
  if ((sig >> 63) == 0) {
    // normalize (sig:extra)
    if (sig == 0) { sig = extra; extra = 0; e -= 64; }
    const n = <i32>clz<u64>(sig);
    if (n != 0) { sig = (sig << <u64>n) | (extra >> <u64>(64 - n)); extra <<= <u64>n; e -= n; }
  }
  if (e < emin) {
    // tiny if even rounding with an unbounded exponent stays below 2^emin
    let tiny = true;
    if (e == emin - 1 && roundsUp(sign, sig, extra, precision)) {
      const unit: u64 = precision == 64 ? 1 : <u64>1 << <u64>(64 - precision);
      const kept = precision == 64 ? sig : sig & ~(unit - 1);
      if (kept + unit < kept) tiny = false;
    }
    if (tiny) {
      if ((unmasked & EX_UNDERFLOW) != 0) {
        flags |= EX_UNDERFLOW;
        if (wrap) {
          if (roundAt(sign, e, sig, extra, precision)) flags |= EX_PRECISION;
          roundedExp += WRAP_BIAS;
          return;
        }
      }
      shiftRightJam(sig, extra, emin - e);
      sig = wideHi; extra = wideLo; e = emin;
      if (roundAt(sign, e, sig, extra, precision)) {
        flags |= EX_PRECISION | EX_UNDERFLOW;
      }
      return;
    }
  }
  const inexact = roundAt(sign, e, sig, extra, precision);
  if (inexact) flags |= EX_PRECISION;
  if (roundedExp > emax) {
    flags |= EX_OVERFLOW;
    if ((unmasked & EX_OVERFLOW) != 0 && wrap) { roundedExp -= WRAP_BIAS; return; }
    if ((unmasked & EX_OVERFLOW) != 0) return;
    flags |= EX_PRECISION;
    const rc = roundingControl;
    if (rc == RC_NEAREST || (rc == RC_UP && sign == 0) || (rc == RC_DOWN && sign != 0)) {
      roundedInf = true;
      roundedUp = true;
    } else {
      roundedExp = emax;
      roundedSig = precision == 64 ? <u64>-1 : ~((<u64>1 << <u64>(64 - precision)) - 1);
      roundedUp = false;
    }
  }
}

/** Packs the rounded value as an 80-bit result. */
function packExtended(sign: u32): void {
  if (roundedInf) { setResult((sign << 15) | EXP_MAX, J_BIT); return; }
  if (roundedSig == 0) { setResult(sign << 15, 0); return; }
  const biased = (roundedSig >> 63) != 0 ? roundedExp + BIAS : 0;
  setResult((sign << 15) | (<u32>biased & 0x7fff), roundedSig);
}

/** Rounds an exact result to the x87 precision and range into resultSe/resultSig. */
export function roundToExtended(sign: u32, e: i32, sig: u64, extra: u64, precision: i32): void {
  if (binaryFormat != 0) { roundToBinary(sign, e, sig, extra, binaryFormat == 32); return; }
  roundPack(sign, e, sig, extra, precision, 1 - BIAS, BIAS, registerDestination);
  packExtended(sign);
}

// ---- binary32/64 destinations (SSE) ---------------------------------------------------------
/**
 * 0: operations deliver 80-bit results (resultSe/resultSig); 32 or 64: they
 * round to binary32/64 (precision and exponent range, denormals) and deliver
 * the bits: resultBinary() reads them.
 */
export let binaryFormat: i32 = 0;
export function setBinaryFormat(bits: i32): void { binaryFormat = bits; resultIsBits = false; }
let resultIsBits: bool = false;
/** Rounds to binary32 or binary64 into resultBits. */
function roundToBinary(sign: u32, e: i32, sig: u64, extra: u64, single: bool): void {
  const emax: i32 = single ? 127 : 1023;
  roundPack(sign, e, sig, extra, single ? 24 : 53, 1 - emax, emax, false);
  resultBits = packBinary(sign, single);
  resultIsBits = true;
}
/** The rounded value (roundedSig/roundedExp/roundedInf) as binary32/64 bits. */
function packBinary(sign: u32, single: bool): u64 {
  const fracBits: u64 = single ? 23 : 52;
  const expAll: u64 = single ? 0xff : 0x7ff;
  const emax: i32 = single ? 127 : 1023;
  let bits: u64;
  if (roundedInf) bits = expAll << fracBits;
  else if (roundedSig == 0) bits = 0;
  else {
    const biased: u64 = (roundedSig >> 63) != 0 ? <u64>(roundedExp + emax) : 0;
    bits = (biased << fracBits) | ((roundedSig << 1) >> <u64>(64 - fracBits));
  }
  return bits | (<u64>sign << (single ? 31 : 63));
}
/** An operation's result in the binary format: the rounded bits, or its exact special value (zero, infinity, the default NaN) converted. */
export function resultBinary(): u64 {
  const single = binaryFormat == 32;
  if (resultIsBits) { resultIsBits = false; return resultBits; }
  const sign = <u64>signOf(resultSe);
  const fracBits: u64 = single ? 23 : 52;
  const expAll: u64 = single ? 0xff : 0x7ff;
  let bits: u64 = 0;
  if ((resultSe & 0x7fff) == EXP_MAX) bits = (expAll << fracBits) | ((resultSig << 1) >> <u64>(64 - fracBits));
  return bits | (sign << (single ? 31 : 63));
}

// ---- arithmetic ----------------------------------------------------------------------------
/**
 * Checks the operands of a two-operand operation: unsupported formats and
 * SNaNs/NaNs produce their result here. Returns true when the operation
 * has nothing more to do; raises denormal otherwise when an operand is
 * denormal (and stops if it is unmasked).
 */
function specialOperands(aSe: u32, aSig: u64, bSe: u32, bSig: u64): bool {
  if (isUnsupported80(aSe, aSig) || isUnsupported80(bSe, bSig)) { signalInvalid(); return true; }
  if (isNaN80(aSe, aSig) || isNaN80(bSe, bSig)) { propagateNaN(aSe, aSig, bSe, bSig); return true; }
  return false;
}
/** Raises denormal for denormal operands; true when it is unmasked (the operation stops). */
function denormalOperands(aSe: u32, aSig: u64, bSe: u32, bSig: u64): bool {
  return (isDenormal80(aSe, aSig) || isDenormal80(bSe, bSig) || sourceDenormal) && signalDenormal();
}

/** a + b (negateB: a - b), rounded to precisionBits. */
export function add80(aSe: u32, aSig: u64, bSe: u32, bSig: u64, negateB: bool): void {
  if (specialOperands(aSe, aSig, bSe, bSig)) return;
  if (negateB) bSe ^= 0x8000;
  const aInf = isInf80(aSe, aSig), bInf = isInf80(bSe, bSig);
  if (aInf || bInf) {
    if (aInf && bInf && signOf(aSe) != signOf(bSe)) { signalInvalid(); return; }
    if (denormalOperands(aSe, aSig, bSe, bSig)) return;
    setResult(aInf ? aSe : bSe, J_BIT);
    return;
  }
  if (denormalOperands(aSe, aSig, bSe, bSig)) return;
  const aZero = isZero80(aSe, aSig), bZero = isZero80(bSe, bSig);
  const aSign = signOf(aSe), bSign = signOf(bSe);
  if (aZero && bZero) {
    // exact zero sum: -0 only for -0 + -0, or x - x when rounding down
    const sign: u32 = aSign == bSign ? aSign : roundingControl == RC_DOWN ? 1 : 0;
    setResult(sign << 15, 0);
    return;
  }
  if (aZero || bZero) {
    const se = aZero ? bSe : aSe, sig = aZero ? bSig : aSig;
    unpack(se, sig);
    roundToExtended(signOf(se), unpackedExp, unpackedSig, 0, precisionBits);
    return;
  }
  unpack(aSe, aSig);
  let ea = unpackedExp, sa = unpackedSig;
  unpack(bSe, bSig);
  let eb = unpackedExp, sb = unpackedSig;
  let signA = aSign, signB = bSign;
  // make a the operand of larger magnitude
  if (eb > ea || (eb == ea && sb > sa)) {
    const te = ea; ea = eb; eb = te;
    const ts = sa; sa = sb; sb = ts;
    const tg = signA; signA = signB; signB = tg;
  }
  shiftRightJam(sb, 0, ea - eb);
  const bHi = wideHi, bLo = wideLo;
  if (signA == signB) {
    let hi = sa + bHi;
    let lo = bLo;
    let e = ea;
    if (hi < sa) {
      // carry: shift right one with the carry as the new top bit
      lo = (lo >> 1) | (hi << 63) | (lo & 1);
      hi = (hi >> 1) | J_BIT;
      e++;
    }
    roundToExtended(signA, e, hi, lo, precisionBits);
  } else {
    const lo = 0 - bLo;
    const hi = sa - bHi - (bLo != 0 ? 1 : 0);
    if (hi == 0 && lo == 0) {
      setResult((roundingControl == RC_DOWN ? <u32>1 : 0) << 15, 0);
      return;
    }
    roundToExtended(signA, ea, hi, lo, precisionBits);
  }
}

/** a * b, rounded to precisionBits. */
export function mul80(aSe: u32, aSig: u64, bSe: u32, bSig: u64): void {
  if (specialOperands(aSe, aSig, bSe, bSig)) return;
  const sign = signOf(aSe) ^ signOf(bSe);
  const aInf = isInf80(aSe, aSig), bInf = isInf80(bSe, bSig);
  const aZero = isZero80(aSe, aSig), bZero = isZero80(bSe, bSig);
  if ((aInf && bZero) || (bInf && aZero)) { signalInvalid(); return; }
  if (denormalOperands(aSe, aSig, bSe, bSig)) return;
  if (aInf || bInf) { setResult((sign << 15) | EXP_MAX, J_BIT); return; }
  if (aZero || bZero) { setResult(sign << 15, 0); return; }
  unpack(aSe, aSig);
  const ea = unpackedExp, sa = unpackedSig;
  unpack(bSe, bSig);
  mul64(sa, unpackedSig);
  // the product of two significands in [1, 2) is in [1, 4)
  roundToExtended(sign, ea + unpackedExp + 1, wideHi, wideLo, precisionBits);
}

/** a / b, rounded to precisionBits. */
export function div80(aSe: u32, aSig: u64, bSe: u32, bSig: u64): void {
  if (specialOperands(aSe, aSig, bSe, bSig)) return;
  const sign = signOf(aSe) ^ signOf(bSe);
  const aInf = isInf80(aSe, aSig), bInf = isInf80(bSe, bSig);
  const aZero = isZero80(aSe, aSig), bZero = isZero80(bSe, bSig);
  if ((aInf && bInf) || (aZero && bZero)) { signalInvalid(); return; }
  // zero-divide ranks above denormal (SDM vol. 1, 4.9.2)
  if (bZero && !aInf) {
    if (signalZeroDivide()) return;
    setResult((sign << 15) | EXP_MAX, J_BIT);
    return;
  }
  if (denormalOperands(aSe, aSig, bSe, bSig)) return;
  if (aInf) { setResult((sign << 15) | EXP_MAX, J_BIT); return; }
  if (bInf || aZero) { setResult(sign << 15, 0); return; }
  unpack(aSe, aSig);
  const ea = unpackedExp, sa = unpackedSig;
  unpack(bSe, bSig);
  const eb = unpackedExp, sb = unpackedSig;
  let q: u64, e: i32;
  if (sa >= sb) { q = divide128(sa >> 1, sa << 63, sb); e = ea - eb; }
  else { q = divide128(sa, 0, sb); e = ea - eb - 1; }
  const q2 = divide128(divisionRemainder, 0, sb);
  roundToExtended(sign, e, q, q2 | <u64>(divisionRemainder != 0 ? 1 : 0), precisionBits);
}

/** Square root of a, rounded to precisionBits. */
export function sqrt80(aSe: u32, aSig: u64): void {
  if (isUnsupported80(aSe, aSig)) { signalInvalid(); return; }
  if (isNaN80(aSe, aSig)) { propagateNaN(aSe, aSig, aSe, aSig); return; }
  if (isZero80(aSe, aSig)) { setResult(aSe, 0); return; }
  if (signOf(aSe) != 0) { signalInvalid(); return; }
  if (isInf80(aSe, aSig)) { setResult(aSe, aSig); return; }
  if (denormalOperands(aSe, aSig, 0, 0)) return;
  unpack(aSe, aSig);
  const e = unpackedExp;
  // radicand N = sig * 2^63 (even exponent) or sig * 2^64 (odd): root in [2^63, 2^64)
  const odd = (e & 1) != 0;
  let nHi = odd ? unpackedSig : unpackedSig >> 1;
  let nLo = odd ? 0 : unpackedSig << 63;
  // digit-by-digit square root, two radicand bits per step; the remainder
  // stays below 2^66 (remHi holds its top bits)
  let root: u64 = 0, remHi: u64 = 0, remLo: u64 = 0;
  for (let i = 0; i < 64; i++) {
    const two = nHi >> 62;
    nHi = (nHi << 2) | (nLo >> 62);
    nLo <<= 2;
    remHi = (remHi << 2) | (remLo >> 62);
    remLo = (remLo << 2) | two;
    // trial = 4 * root + 1, at most 66 bits
    const tLo = (root << 2) | 1, tHi = root >> 62;
    if (remHi > tHi || (remHi == tHi && remLo >= tLo)) {
      const borrow: u64 = remLo < tLo ? 1 : 0;
      remLo -= tLo; remHi = remHi - tHi - borrow;
      root = (root << 1) | 1;
    } else root <<= 1;
  }
  // never exactly half way: (root + 1/2)^2 is not an integer
  let extra: u64 = 0;
  if (remHi != 0 || remLo != 0) extra = (remHi != 0 || remLo > root) ? 0xc000000000000000 : 0x4000000000000000;
  roundToExtended(0, odd ? (e - 1) >> 1 : e >> 1, root, extra, precisionBits);
}

// ---- comparison ---------------------------------------------------------------------------
export const CMP_EQUAL: i32 = 0;
export const CMP_LESS: i32 = 1;
export const CMP_GREATER: i32 = 2;
export const CMP_UNORDERED: i32 = 3;

/**
 * Compares a with b. `quiet` (FUCOM, UCOMISx): only SNaNs and unsupported
 * formats raise invalid; otherwise (FCOM, COMISx) any NaN does.
 */
export function compare80(aSe: u32, aSig: u64, bSe: u32, bSig: u64, quiet: bool): i32 {
  if (isUnsupported80(aSe, aSig) || isUnsupported80(bSe, bSig)) { flags |= EX_INVALID; return CMP_UNORDERED; }
  if (isNaN80(aSe, aSig) || isNaN80(bSe, bSig)) {
    if (!quiet || isSignaling80(aSe, aSig) || isSignaling80(bSe, bSig)) flags |= EX_INVALID;
    return CMP_UNORDERED;
  }
  if (isDenormal80(aSe, aSig) || isDenormal80(bSe, bSig) || sourceDenormal) flags |= EX_DENORMAL;
  const aZero = isZero80(aSe, aSig), bZero = isZero80(bSe, bSig);
  if (aZero && bZero) return CMP_EQUAL;
  const aSign = signOf(aSe), bSign = signOf(bSe);
  if (aSign != bSign) return aZero && bZero ? CMP_EQUAL : aSign != 0 ? CMP_LESS : CMP_GREATER;
  // same sign: compare magnitudes (denormals normalized; zero is smallest)
  let mag: i32;
  if (aZero) mag = -1;
  else if (bZero) mag = 1;
  else {
    const aInf = isInf80(aSe, aSig), bInf = isInf80(bSe, bSig);
    if (aInf || bInf) mag = aInf && bInf ? 0 : aInf ? 1 : -1;
    else {
      unpack(aSe, aSig);
      const ea = unpackedExp, sa = unpackedSig;
      unpack(bSe, bSig);
      mag = ea != unpackedExp ? (ea > unpackedExp ? 1 : -1) : sa != unpackedSig ? (sa > unpackedSig ? 1 : -1) : 0;
    }
  }
  if (mag == 0) return CMP_EQUAL;
  return (mag > 0) != (aSign != 0) ? CMP_GREATER : CMP_LESS;
}

// ---- round to integer, scale, extract, remainder --------------------------------------------------

/** Rounds to an integral value with the rounding control (FRNDINT): no precision control. */
export function roundInt80(aSe: u32, aSig: u64): void {
  if (isUnsupported80(aSe, aSig)) { signalInvalid(); return; }
  if (isNaN80(aSe, aSig)) { propagateNaN(aSe, aSig, aSe, aSig); return; }
  if (isInf80(aSe, aSig) || isZero80(aSe, aSig)) { setResult(aSe, aSig); return; }
  if (denormalOperands(aSe, aSig, 0, 0)) return;
  unpack(aSe, aSig);
  const e = unpackedExp;
  if (e >= 63) { setResult(aSe, aSig); return; }
  const sign = signOf(aSe);
  const integer = roundToInteger(sign, e, unpackedSig);
  if (integer == 0) { setResult(sign << 15, 0); return; }
  const n = <i32>clz<u64>(integer);
  setResult((sign << 15) | <u32>(63 - n + BIAS), integer << <u64>n);
}

/**
 * sig / 2^63 * 2^e (e < 64) rounded to an integer magnitude with the
 * rounding control (truncating when `truncate`); raises precision and sets
 * roundedUp. Returns 0 .. 2^64-1 (a carry out of 2^64 is reported in integerCarry).
 */
export let integerCarry: bool = false;
export function roundToInteger(sign: u32, e: i32, sig: u64, truncate: bool = false): u64 {
  integerCarry = false;
  let whole: u64, frac: u64;
  if (e >= 63) { whole = sig << <u64>(e - 63); frac = 0; }
  else if (e >= 0) { whole = sig >> <u64>(63 - e); frac = sig << <u64>(e + 1); }
  else { whole = 0; frac = e == -1 ? sig : (e > -65 ? (sig >> <u64>(-1 - e)) | <u64>((sig << <u64>(65 + e)) != 0 ? 1 : 0) : 1); }
  if (frac == 0) return whole;
  flags |= EX_PRECISION;
  const rc = truncate ? RC_ZERO : roundingControl;
  let up: bool;
  if (rc == RC_NEAREST) up = frac > J_BIT || (frac == J_BIT && (whole & 1) != 0);
  else if (rc == RC_ZERO) up = false;
  else up = (rc == RC_UP) == (sign == 0);
  if (up) {
    roundedUp = true;
    whole++;
    if (whole == 0) integerCarry = true;
  }
  return whole;
}

/** a * 2^trunc(b) (FSCALE). */
export function scale80(aSe: u32, aSig: u64, bSe: u32, bSig: u64): void {
  if (specialOperands(aSe, aSig, bSe, bSig)) return;
  const aInf = isInf80(aSe, aSig), bInf = isInf80(bSe, bSig);
  const aZero = isZero80(aSe, aSig);
  if (bInf) {
    const bNeg = signOf(bSe) != 0;
    if ((aZero && !bNeg) || (aInf && bNeg)) { signalInvalid(); return; }
    if (denormalOperands(aSe, aSig, bSe, bSig)) return;
    if (aZero || aInf) { setResult(aSe, aSig); return; }
    setResult(bNeg ? aSe & 0x8000 : (aSe & 0x8000) | EXP_MAX, bNeg ? 0 : J_BIT);
    return;
  }
  if (denormalOperands(aSe, aSig, bSe, bSig)) return;
  if (aZero || aInf) { setResult(aSe, aSig); return; }
  // trunc(b), clamped far beyond any exponent the result can have (2^21)
  let n: i32 = 0;
  if (!isZero80(bSe, bSig)) {
    unpack(bSe, bSig);
    const be = unpackedExp;
    if (be >= 0) n = be > 20 ? 0x200000 : <i32>(unpackedSig >> <u64>(63 - be));
    if (signOf(bSe) != 0) n = -n;
  }
  unpack(aSe, aSig);
  roundToExtended(signOf(aSe), unpackedExp + n, unpackedSig, 0, 64);
}

/** FXTRACT: exponent of a (as a value) and its significand (exponent 0): extractExpSe/Sig and resultSe/Sig. */
export let extractExpSe: u32 = 0;
export let extractExpSig: u64 = 0;
export function extract80(aSe: u32, aSig: u64): void {
  if (isUnsupported80(aSe, aSig)) { signalInvalid(); extractExpSe = INDEFINITE_SE; extractExpSig = INDEFINITE_SIG; return; }
  if (isNaN80(aSe, aSig)) { propagateNaN(aSe, aSig, aSe, aSig); extractExpSe = resultSe; extractExpSig = resultSig; return; }
  if (isInf80(aSe, aSig)) { extractExpSe = EXP_MAX; extractExpSig = J_BIT; setResult(aSe, aSig); return; }
  if (isZero80(aSe, aSig)) {
    if (signalZeroDivide()) return;
    extractExpSe = 0x8000 | EXP_MAX; extractExpSig = J_BIT; setResult(aSe, 0);
    return;
  }
  if (denormalOperands(aSe, aSig, 0, 0)) return;
  unpack(aSe, aSig);
  fromInt64(<i64>unpackedExp);
  extractExpSe = resultSe; extractExpSig = resultSig;
  setResult((aSe & 0x8000) | <u32>BIAS, unpackedSig);
}

/**
 * Partial remainder (FPREM: truncated quotient; FPREM1: quotient rounded to
 * nearest). When the exponents differ by 64 or more, only a partial
 * reduction is done (SDM: by 32 + (difference mod 32) bits; remainderComplete
 * false). remainderQuotient holds the quotient's low three bits.
 */
export let remainderComplete: bool = true;
export let remainderQuotient: u32 = 0;
/** False when the result is a NaN (NaN or invalid operands): the quotient bits mean nothing. */
export let remainderValid: bool = true;
export function remainder80(aSe: u32, aSig: u64, bSe: u32, bSig: u64, nearest: bool): void {
  remainderComplete = true;
  remainderQuotient = 0;
  remainderValid = false;
  if (specialOperands(aSe, aSig, bSe, bSig)) return;
  if (isInf80(aSe, aSig) || isZero80(bSe, bSig)) { signalInvalid(); return; }
  remainderValid = true;
  if (denormalOperands(aSe, aSig, bSe, bSig)) return;
  if (isZero80(aSe, aSig) || isInf80(bSe, bSig)) { setResult(aSe, aSig); return; }
  unpack(aSe, aSig);
  const ea = unpackedExp, sa = unpackedSig;
  unpack(bSe, bSig);
  const eb = unpackedExp, sb = unpackedSig;
  const d = ea - eb;
  const sign = signOf(aSe);
  if (d < 0) {
    // |a| < |b|: the quotient is 0, except for FPREM1 when |a| > |b| / 2
    // (d = -1 and sa > sb): then it is 1 and the remainder |a| - |b| is
    // (2 sb - sa) * 2^(eb-64), of the other sign
    if (nearest && d == -1 && sa > sb) {
      remainderQuotient = 1;
      roundToExtended(sign ^ 1, eb - 1, (sb << 1) - sa, 0, 64);
      return;
    }
    roundToExtended(sign, ea, sa, 0, 64);
    return;
  }
  // Long division of a's significand by b's, one quotient bit per exponent
  // step; the remainder r stays below sb. From a difference of 64 on, only
  // 32 + (d mod 32) steps are taken and the remainder keeps the exponent
  // of the bits not yet reduced (a partial remainder).
  let steps = d;
  let shiftBack = 0;
  if (d >= 64) {
    remainderComplete = false;
    steps = 32 + (d & 31);
    shiftBack = d - steps;
  }
  let r = sa, q: u64 = 0;
  if (r >= sb) { r -= sb; q = 1; }
  for (let i = 0; i < steps; i++) {
    const carry = r >> 63;
    r <<= 1;
    q <<= 1;
    if (carry != 0 || r >= sb) { r -= sb; q |= 1; }
  }
  let rSign = sign;
  if (nearest && remainderComplete && r != 0) {
    // round the quotient to nearest, ties to even
    if ((r >> 63) != 0 || (r << 1) > sb || ((r << 1) == sb && (q & 1) != 0)) { r = sb - r; rSign ^= 1; q++; }
  }
  remainderQuotient = <u32>(q & 7);
  if (r == 0) { setResult(sign << 15, 0); return; }
  roundToExtended(rSign, eb + shiftBack, r, 0, 64);
}

// ---- conversions ------------------------------------------------------------------------------

/** An integer (exact). */
export function fromInt64(v: i64): void {
  if (v == 0) { setResult(0, 0); return; }
  const sign: u32 = v < 0 ? 1 : 0;
  const m: u64 = v < 0 ? <u64>(0 - v) : <u64>v;
  const n = <i32>clz<u64>(m);
  setResult((sign << 15) | <u32>(63 - n + BIAS), m << <u64>n);
}

/**
 * A binary32 (`single`) or binary64 value, exactly: an SNaN stays signaling
 * and a denormal sets sourceDenormal (the instruction decides what they raise).
 */
export function fromBinary(bits: u64, single: bool): void {
  const fracBits: u64 = single ? 23 : 52;
  const emax: i32 = single ? 127 : 1023;
  const sign = <u32>(bits >> (single ? 31 : 63)) & 1;
  const e = <i32>((bits >> fracBits) & (single ? 0xff : 0x7ff));
  const frac = bits & ((<u64>1 << fracBits) - 1);
  if (e == (single ? 0xff : 0x7ff)) {
    setResult((sign << 15) | EXP_MAX, J_BIT | (frac << (63 - fracBits)));
    return;
  }
  if (e == 0) {
    if (frac == 0) { setResult(sign << 15, 0); return; }
    sourceDenormal = true;
    const n = <i32>clz<u64>(frac);
    setResult((sign << 15) | <u32>(1 - emax - (n - (63 - <i32>fracBits)) + BIAS), frac << <u64>n);
    return;
  }
  setResult((sign << 15) | <u32>(e - emax + BIAS), J_BIT | (frac << (63 - fracBits)));
}

/**
 * Rounds an 80-bit value to binary64 (or binary32 when `single`), into
 * resultBits. Unsupported formats and SNaNs raise invalid (indefinite or
 * the quieted NaN). An unmasked overflow or underflow leaves hasResult false
 * (a memory destination is not written).
 */
export function toFloat(aSe: u32, aSig: u64, single: bool): void {
  const sign = signOf(aSe);
  const fracBits: u64 = single ? 23 : 52;
  const expAll: u64 = single ? 0xff : 0x7ff;
  if (isUnsupported80(aSe, aSig)) {
    signalInvalid();
    resultBits = single ? 0xffc00000 : 0xfff8000000000000;
    return;
  }
  if (isNaN80(aSe, aSig)) {
    if ((aSig & QUIET_BIT) == 0) { flags |= EX_INVALID; if ((unmasked & EX_INVALID) != 0) { hasResult = false; return; } }
    const frac = ((aSig | QUIET_BIT) << 1) >> <u64>(64 - fracBits);
    resultBits = (<u64>sign << (fracBits + (single ? 8 : 11))) | (expAll << fracBits) | frac;
    return;
  }
  if (isInf80(aSe, aSig)) { resultBits = (<u64>sign << (single ? 31 : 63)) | (expAll << fracBits); return; }
  if (isZero80(aSe, aSig)) { resultBits = <u64>sign << (single ? 31 : 63); return; }
  unpack(aSe, aSig);
  const emax: i32 = single ? 127 : 1023;
  roundPack(sign, unpackedExp, unpackedSig, 0, single ? 24 : 53, 1 - emax, emax, false);
  if ((flags & unmasked & (EX_OVERFLOW | EX_UNDERFLOW)) != 0) { hasResult = false; return; }
  resultBits = packBinary(sign, single);
}

/**
 * Rounds an 80-bit value to a signed integer of `bytes` (2, 4, 8) with the
 * rounding control, or truncating (FISTTP, CVTT*). NaNs, infinities,
 * unsupported formats and values out of range raise invalid and give the
 * integer indefinite (the most negative value).
 */
export function toInt(aSe: u32, aSig: u64, bytes: i32, truncate: bool): i64 {
  const indefinite: i64 = bytes == 8 ? <i64>0x8000000000000000 : bytes == 4 ? <i64>-0x80000000 : <i64>-0x8000;
  if (isUnsupported80(aSe, aSig) || isNaN80(aSe, aSig) || isInf80(aSe, aSig)) { signalInvalid(); return indefinite; }
  if (isZero80(aSe, aSig)) return 0;
  unpack(aSe, aSig);
  const sign = signOf(aSe);
  const savedFlags = flags, savedUp = roundedUp;
  const mag = unpackedExp >= 64 ? <u64>-1 : roundToInteger(sign, unpackedExp, unpackedSig, truncate);
  const limit: u64 = <u64>1 << <u64>(bytes * 8 - 1);
  if (unpackedExp >= 64 || integerCarry || mag > limit || (mag == limit && sign == 0)) {
    flags = savedFlags; roundedUp = savedUp;
    signalInvalid();
    return indefinite;
  }
  return sign != 0 ? <i64>(0 - mag) : <i64>mag;
}
