// The x87 transcendental instructions' functions on 80-bit values: 2^x - 1,
// y log2 x, y log2(x + 1), atan2, sin, cos, tan (SDM vol. 1, 8.3.8-8.3.10,
// and the special-value tables of F2XM1, FYL2X, FYL2XP1, FPATAN, FSIN,
// FCOS, FSINCOS, FPTAN in vol. 2). Results come back as float80.ts's do.
//
// The functions are evaluated in double-double arithmetic (a pair of f64
// whose sum carries about 106 bits): a libm value is the first guess and one
// Newton step, or a series, gives the double-double result, which is then
// rounded once to 64 bits with the rounding control. That is below an ulp
// of the 64-bit result, the accuracy the SDM states for these instructions;
// the last bit can differ from a given processor's. Exponents the f64 range
// cannot hold stay apart (the 80-bit exponent is carried separately), so
// huge and tiny arguments keep their precision.
//
// FSIN, FCOS, FSINCOS and FPTAN reduce their argument by multiples of
// pi/2 with the 66-bit approximation of pi the SDM describes (8.3.10), and
// do it exactly, as the hardware does: sin(x) for x near a multiple of pi is
// the sine of x's distance to that approximation.
import * as F from './float80';

// ---- double-double arithmetic -----------------------------------------------------------
let ddHi: f64 = 0;
let ddLo: f64 = 0;

// @ts-ignore: decorator
@inline function twoSum(a: f64, b: f64): void { const s = a + b; const bb = s - a; ddHi = s; ddLo = (a - (s - bb)) + (b - bb); }
// @ts-ignore: decorator
@inline function quickTwoSum(a: f64, b: f64): void { const s = a + b; ddHi = s; ddLo = b - (s - a); }
function twoProd(a: f64, b: f64): void {
  const p = a * b;
  const ta = 134217729.0 * a, ah = ta - (ta - a), al = a - ah;
  const tb = 134217729.0 * b, bh = tb - (tb - b), bl = b - bh;
  ddHi = p;
  ddLo = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}
function ddAdd(aHi: f64, aLo: f64, bHi: f64, bLo: f64): void {
  twoSum(aHi, bHi);
  const s = ddHi, e = ddLo;
  twoSum(aLo, bLo);
  const t = ddHi, f = ddLo;
  quickTwoSum(s, e + t);
  quickTwoSum(ddHi, ddLo + f);
}
function ddMul(aHi: f64, aLo: f64, bHi: f64, bLo: f64): void {
  twoProd(aHi, bHi);
  const p = ddHi, e = ddLo + (aHi * bLo + aLo * bHi);
  quickTwoSum(p, e);
}
function ddDiv(aHi: f64, aLo: f64, bHi: f64, bLo: f64): void {
  // three quotient digits, each from the remainder of the previous
  const q1 = aHi / bHi;
  ddMul(bHi, bLo, q1, 0);
  ddAdd(aHi, aLo, -ddHi, -ddLo);
  const rHi = ddHi, rLo = ddLo;
  const q2 = rHi / bHi;
  ddMul(bHi, bLo, q2, 0);
  ddAdd(rHi, rLo, -ddHi, -ddLo);
  const q3 = ddHi / bHi;
  quickTwoSum(q1, q2);
  ddAdd(ddHi, ddLo, q3, 0);
}

/** 2^n as an f64 (n in the normal range). */
function pow2(n: i32): f64 { return reinterpret<f64>(<u64>(n + 1023) << 52); }

// ---- conversions between 80-bit values, double-double and 128-bit results --------------------
/** sig / 2^63 * 2^(e - scale) as double-double (exact: 53 + 11 bits). */
function ddFromSig(sign: u32, e: i32, sig: u64, scale: i32): void {
  const hi = <f64>(sig & 0xfffffffffffff800) * pow2(e - scale - 63);
  const lo = <f64>(sig & 0x7ff) * pow2(e - scale - 63);
  ddHi = sign != 0 ? -hi : hi;
  ddLo = sign != 0 ? -lo : lo;
}

// The exact value of a double-double as sign, exponent and a normalized
// 128-bit significand (bit 127 set; lo's bits below 128 kept sticky):
// value = (expandedHi:expandedLo) / 2^127 * 2^expandedExp.
let expandedSign: u32 = 0;
let expandedExp: i32 = 0;
let expandedHi: u64 = 0;
let expandedLo: u64 = 0;
function expand(hi: f64, lo: f64): void {
  const hb = reinterpret<u64>(hi);
  expandedSign = <u32>(hb >> 63);
  let e = <i32>((hb >> 52) & 0x7ff) - 1023;
  let aHi = ((hb & 0xfffffffffffff) | 0x10000000000000) << 11; // implicit one at bit 63
  let aLo: u64 = 0;
  if (lo != 0) {
    const lb = reinterpret<u64>(lo);
    const ml = ((lb & 0xfffffffffffff) | 0x10000000000000) << 11;
    // lo's bits at hi's scale: shifted right by the exponent difference, the lost bits sticky
    const d = e - (<i32>((lb >> 52) & 0x7ff) - 1023);
    let bHi: u64 = 0, bLo: u64 = 0;
    if (d < 64) { bHi = ml >> <u64>d; bLo = d == 0 ? 0 : ml << <u64>(64 - d); }
    else if (d < 128) bLo = (ml >> <u64>(d - 64)) | <u64>((d > 64 && (ml << <u64>(128 - d)) != 0) ? 1 : 0);
    else bLo = 1;
    if ((lb >> 63) == (hb >> 63)) { const sum = aLo + bLo; aHi += bHi + (sum < aLo ? 1 : 0); aLo = sum; }
    else { const borrow: u64 = aLo < bLo ? 1 : 0; aLo -= bLo; aHi = aHi - bHi - borrow; }
    // hi a power of two, lo of the other sign: one bit to normalize
    if ((aHi >> 63) == 0) { aHi = (aHi << 1) | (aLo >> 63); aLo <<= 1; e--; }
  }
  expandedExp = e; expandedHi = aHi; expandedLo = aLo;
}

/** Rounds (hi + lo) * 2^scale to 64 bits with the rounding control into float80's result: one rounding of the exact sum. */
function roundDd(hi: f64, lo: f64, scale: i32): void {
  if (hi == 0) { F.roundToExtended(0, 0, 0, 0, 64); return; }
  expand(hi, lo);
  F.roundToExtended(expandedSign, expandedExp + scale, expandedHi, expandedLo, 64);
}

// ---- elementary functions in double-double ---------------------------------------------------
/** exp(a) for |a| <= 0.75: 1 + expm1(a). */
function ddExpSmall(aHi: f64, aLo: f64): void {
  ddExpm1Small(aHi, aLo);
  ddAdd(ddHi, ddLo, 1, 0);
}
/** expm1(a) for |a| <= 0.75: its Taylor series to a^28/28! (no cancellation). */
function ddExpm1Small(aHi: f64, aLo: f64): void {
  let tHi = aHi, tLo = aLo, sHi = aHi, sLo = aLo;
  for (let n = 2; n <= 28; n++) {
    ddMul(tHi, tLo, aHi, aLo);
    ddDiv(ddHi, ddLo, <f64>n, 0);
    tHi = ddHi; tLo = ddLo;
    ddAdd(sHi, sLo, tHi, tLo);
    sHi = ddHi; sLo = ddLo;
  }
}
const LN2_HI: f64 = 0.6931471805599453;
const LN2_LO: f64 = 2.3190468138462996e-17;
const PI_HI: f64 = 3.141592653589793;
const PI_LO: f64 = 1.2246467991473532e-16;

/** ln(m) for m (double-double) in [0.5, 2]: Newton on exp from libm's log. */
function ddLog(mHi: f64, mLo: f64): void {
  const a0 = Math.log(mHi);
  ddExpSmall(-a0, 0);
  ddMul(ddHi, ddLo, mHi, mLo);
  ddAdd(ddHi, ddLo, -1, 0);
  ddAdd(ddHi, ddLo, a0, 0);
}

/** sin (kind 0) or cos (1) of |r| <= pi/4 + a little, Taylor series. */
function ddSinCos(rHi: f64, rLo: f64, cosine: bool): void {
  ddMul(rHi, rLo, rHi, rLo);
  const r2Hi = ddHi, r2Lo = ddLo;
  let tHi: f64 = cosine ? 1 : rHi, tLo: f64 = cosine ? 0 : rLo;
  let sHi = tHi, sLo = tLo;
  for (let n = cosine ? 2 : 3; n <= 32; n += 2) {
    ddMul(tHi, tLo, r2Hi, r2Lo);
    ddDiv(ddHi, ddLo, -<f64>(n * (n - 1)), 0);
    tHi = ddHi; tLo = ddLo;
    ddAdd(sHi, sLo, tHi, tLo);
    sHi = ddHi; sLo = ddLo;
  }
}

/** atan(z) for a double-double z: libm's atan, then one Newton step on tan. */
function ddAtan(zHi: f64, zLo: f64): void {
  const a0 = Math.atan(zHi);
  ddSinCos(a0, 0, false);
  const sHi = ddHi, sLo = ddLo;
  ddSinCos(a0, 0, true);
  const cHi = ddHi, cLo = ddLo;
  // a1 = a0 + (z cos a0 - sin a0) / (cos a0 + z sin a0)  (= a0 + atan-correction to second order)
  ddMul(zHi, zLo, cHi, cLo);
  ddAdd(ddHi, ddLo, -sHi, -sLo);
  const nHi = ddHi, nLo = ddLo;
  ddMul(zHi, zLo, sHi, sLo);
  ddAdd(ddHi, ddLo, cHi, cLo);
  ddDiv(nHi, nLo, ddHi, ddLo);
  ddAdd(ddHi, ddLo, a0, 0);
}

// ---- special operands -----------------------------------------------------------------------
/** NaNs and unsupported formats of a one-operand function; true when handled. */
function specialOne(se: u32, sig: u64): bool {
  if (F.isUnsupported80(se, sig)) { F.signalInvalid(); return true; }
  if (F.isNaN80(se, sig)) { F.propagateNaN(se, sig, se, sig); return true; }
  return false;
}
/** NaNs and unsupported formats of a two-operand function; true when handled. */
function specialTwo(ySe: u32, ySig: u64, xSe: u32, xSig: u64): bool {
  if (F.isUnsupported80(ySe, ySig) || F.isUnsupported80(xSe, xSig)) { F.signalInvalid(); return true; }
  if (F.isNaN80(ySe, ySig) || F.isNaN80(xSe, xSig)) { F.propagateNaN(xSe, xSig, ySe, ySig); return true; }
  return false;
}
/** Raises denormal for a denormal operand; true when it is unmasked (no result). */
function denormal(se: u32, sig: u64): bool { return F.isDenormal80(se, sig) && F.signalDenormal(); }
/** A value just below (1 - tiny) or above (1 + tiny) sign * sig/2^63 * 2^e, rounded. */
function nearly(sign: u32, e: i32, sig: u64, below: bool): void {
  if (below) F.roundToExtended(sign, e, sig - 1, <u64>-1, 64);
  else F.roundToExtended(sign, e, sig, 1, 64);
}
/** +-infinity or +-0 as the exact result. */
function infinity(sign: u32): void { F.setResult((sign << 15) | 0x7fff, F.J_BIT); }
function zero(sign: u32): void { F.setResult(sign << 15, 0); }

let argExp: i32 = 0;
let argSig: u64 = 0;
function unpackArg(se: u32, sig: u64): void {
  let e = <i32>(se & 0x7fff);
  if (e == 0) e = 1;
  const n = <i32>clz<u64>(sig);
  argSig = sig << <u64>n;
  argExp = e - n - F.BIAS;
}

// ---- trigonometric: reduction with the 66-bit pi ---------------------------------------------
// pi/2 as the 66-bit approximation of pi, halved: P * 2^-65.
const HALF_PI_66_HI: u64 = 0x3; // top 2 bits of the 66-bit P
const HALF_PI_66_LO: u64 = 0x243f6a8885a308d3;

/** True for a finite argument with |x| >= 2^63: FSIN/FCOS/FSINCOS/FPTAN leave it and set C2. */
export function outOfRange(se: u32, sig: u64): bool {
  const e = <i32>(se & 0x7fff);
  return e != 0x7fff && e - F.BIAS >= 63 && (sig >> 63) != 0;
}

let reducedHi: f64 = 0;
let reducedLo: f64 = 0;
let quadrant: u32 = 0;
/** Reduces |x| (argExp/argSig) to r = |x| - k (pi66 / 2) exactly; quadrant = k mod 4. */
function reduce(): void {
  const e = argExp;
  if (e < -1) { ddFromSig(0, e, argSig, 0); reducedHi = ddHi; reducedLo = ddLo; quadrant = 0; return; }
  // k = nearest integer to |x| / (pi66/2), from a double-double quotient
  ddFromSig(0, e, argSig, 0);
  const xHi = ddHi, xLo = ddLo;
  // pi66/2 exactly as a double-double: its 66 bits split 53 + 13
  const top = (HALF_PI_66_HI << 62) | (HALF_PI_66_LO >> 2); // P >> 2, 64 bits
  const pd = <f64>(top & 0xfffffffffffff800) * pow2(-63);
  const pl = <f64>(((top & 0x7ff) << 2) | (HALF_PI_66_LO & 3)) * pow2(-65);
  ddDiv(xHi, xLo, pd, pl);
  const kHi = Math.round(ddHi);
  const frac = (ddHi - kHi) + ddLo;
  const adjust = Math.round(frac);
  const k: u64 = <u64>kHi + <u64><i64>adjust;
  // r * 2^65 = X * 2^(e - 63 + 65) - k * P, modulo 2^128 (the true value is small)
  let aHi: u64, aLo: u64;
  const s = e + 2; // X * 2^s with X = argSig, s in 1..65
  if (s >= 64) { aHi = argSig << <u64>(s - 64); aLo = 0; } else { aHi = argSig >> <u64>(64 - s); aLo = argSig << <u64>s; }
  F.mul64(k, HALF_PI_66_LO);
  let bHi = F.wideHigh(), bLo = F.wideLow();
  bHi += k * HALF_PI_66_HI;
  const borrow: u64 = aLo < bLo ? 1 : 0;
  let rLo = aLo - bLo, rHi = aHi - bHi - borrow;
  let neg = false;
  if (<i64>rHi < 0) { neg = true; rLo = 0 - rLo; rHi = ~rHi + (rLo == 0 ? 1 : 0); }
  // r = (rHi:rLo) * 2^-65 as double-double
  if (rHi == 0 && rLo == 0) { reducedHi = 0; reducedLo = 0; }
  else {
    let sh = rHi != 0 ? <i32>clz<u64>(rHi) : 64 + <i32>clz<u64>(rLo);
    let nHi: u64, nLo: u64;
    if (sh >= 64) { nHi = rLo << <u64>(sh - 64); nLo = 0; }
    else if (sh == 0) { nHi = rHi; nLo = rLo; }
    else { nHi = (rHi << <u64>sh) | (rLo >> <u64>(64 - sh)); nLo = rLo << <u64>sh; }
    // r = N * 2^(-65 - sh) for N = nHi:nLo: in three pieces of at most 53 bits
    const h = <f64>(nHi & 0xfffffffffffff800) * pow2(-1 - sh);
    const m = <f64>(((nHi & 0x7ff) << 42) | (nLo >> 22)) * pow2(-43 - sh);
    const l = <f64>(nLo & 0x3fffff) * pow2(-65 - sh);
    twoSum(h, m);
    ddAdd(ddHi, ddLo, l, 0);
    reducedHi = neg ? -ddHi : ddHi;
    reducedLo = neg ? -ddLo : ddLo;
  }
  quadrant = <u32>(k & 3);
}

/** sin (which 0), cos (1) or tan (2) of x: specials, tiny arguments, then the reduction. */
function trig(se: u32, sig: u64, which: u32): void {
  if (specialOne(se, sig)) return;
  if (F.isInf80(se, sig)) { F.signalInvalid(); return; }
  if (denormal(se, sig)) return;
  const sign = F.signOf(se);
  if (F.isZero80(se, sig)) {
    if (which == 1) F.setResult(0x3fff, F.J_BIT); else zero(sign);
    return;
  }
  unpackArg(se, sig);
  if (argExp < -40) {
    // sin x = x (1 - x^2/6), tan x = x (1 + x^2/3), cos x = 1 - x^2/2: within an ulp's fraction
    if (which == 1) F.roundToExtended(0, -1, <u64>-1, <u64>-1, 64);
    else nearly(sign, argExp, argSig, which == 0);
    return;
  }
  reduce();
  const q = quadrant;
  let rHi = reducedHi, rLo = reducedLo;
  if (which == 2) {
    ddSinCos(rHi, rLo, false);
    const sHi = ddHi, sLo = ddLo;
    ddSinCos(rHi, rLo, true);
    // tan(r + k pi/2) = tan r (k even) or -1/tan r (k odd)
    if ((q & 1) == 0) ddDiv(sHi, sLo, ddHi, ddLo); else ddDiv(-ddHi, -ddLo, sHi, sLo);
  } else {
    // sin(r + k pi/2): k = 0 sin r, 1 cos r, 2 -sin r, 3 -cos r; cos is sin shifted by one
    const k = (q + which) & 3;
    ddSinCos(rHi, rLo, (k & 1) != 0);
    if ((k & 2) != 0) { ddHi = -ddHi; ddLo = -ddLo; }
  }
  let hi = ddHi, lo = ddLo;
  if (sign != 0 && which != 1) { hi = -hi; lo = -lo; }
  roundDd(hi, lo, 0);
}
export function sin80(se: u32, sig: u64): void { trig(se, sig, 0); }
export function cos80(se: u32, sig: u64): void { trig(se, sig, 1); }
export function tan80(se: u32, sig: u64): void { trig(se, sig, 2); }

// ---- F2XM1 --------------------------------------------------------------------------------------
/**
 * 2^x - 1 for -1 <= x <= 1. Outside that domain the SDM leaves the result
 * undefined; it is x itself, as processors give it. The processor's
 * evaluation is never exact: 2^x - 1 for x = 1 and x = -1 comes out with the
 * precision exception, 1 rounded up and -1/2 rounded down, and so here.
 */
export function f2xm1(se: u32, sig: u64): void {
  if (specialOne(se, sig)) return;
  const sign = F.signOf(se);
  if (F.isInf80(se, sig)) { if (sign != 0) F.setResult(0xbfff, F.J_BIT); else infinity(0); return; }
  if (F.isZero80(se, sig)) { zero(sign); return; }
  if (denormal(se, sig)) return;
  unpackArg(se, sig);
  if (argExp > 0 || (argExp == 0 && argSig != F.J_BIT)) { F.signalPrecision(); F.setResult(se, sig); return; }
  if (argExp == 0) { if (sign == 0) nearly(0, 0, F.J_BIT, true); else nearly(1, -1, F.J_BIT, false); return; }
  if (argExp < -900) {
    // 2^x - 1 = x ln 2 (1 + x ln2 / 2 ...): x times ln 2 held to 128 bits (the correction far below an ulp)
    mulConstant(sign, argExp, argSig, 0xb17217f7d1cf79ab, 0xc9e3b39803f2f6af, -1);
    return;
  }
  // expm1(x ln 2) by its series: no cancellation near 0
  ddFromSig(sign, argExp, argSig, 0);
  ddMul(ddHi, ddLo, LN2_HI, LN2_LO);
  ddExpm1Small(ddHi, ddLo);
  roundDd(ddHi, ddLo, 0);
}

/** x * c with c = (cHi:cLo) / 2^127 * 2^cExp held to 128 bits, rounded once. */
function mulConstant(sign: u32, e: i32, sig: u64, cHi: u64, cLo: u64, cExp: i32): void {
  F.mul64(sig, cHi);
  let hi = F.wideHigh(), lo = F.wideLow();
  F.mul64(sig, cLo);
  const carryIn = F.wideHigh();
  const sticky = F.wideLow() != 0 ? 1 : 0;
  const lo2 = lo + carryIn;
  if (lo2 < lo) hi++;
  lo = lo2 | <u64>sticky;
  // (sig/2^63)(c/2^127) in [1, 4)
  F.roundToExtended(sign, e + cExp + 1, hi, lo, 64);
}

// ---- logarithms ---------------------------------------------------------------------------
/**
 * y * L for L = log2 of something, given as double-double times 2^lScale:
 * y's 64-bit significand times L's exact 128-bit expansion, rounded once.
 */
function multiplyByDd(ySign: u32, yExp: i32, ySig: u64, lHi: f64, lLo: f64, lScale: i32): void {
  if (lHi == 0) { F.roundToExtended(ySign, 0, 0, 0, 64); return; }
  expand(lHi, lLo);
  mulConstant(ySign ^ expandedSign, yExp, ySig, expandedHi, expandedLo, expandedExp + lScale);
}

/** log2 of a positive double-double m into ddHi/ddLo: m = f 2^e with f in [sqrt(1/2), sqrt(2)), log2 m = e + ln(f) / ln 2. */
function log2Dd(mHi: f64, mLo: f64, extraExp: i32): void {
  let e = <i32>((reinterpret<u64>(mHi) >> 52) & 0x7ff) - 1023;
  let fHi = mHi * pow2(-e), fLo = mLo * pow2(-e);
  if (fHi > 1.4142135623730951) { fHi *= 0.5; fLo *= 0.5; e++; }
  ddLog(fHi, fLo);
  ddDiv(ddHi, ddLo, LN2_HI, LN2_LO);
  ddAdd(ddHi, ddLo, <f64>(e + extraExp), 0);
}

/**
 * log2(1 + t) for a double-double t > -1 into ddHi/ddLo: for |t| < 2^-30 by
 * one Newton step from log1p (a0 + t e^-a0 + expm1(-a0), accurate relative
 * to t), else from 1 + t formed in double-double.
 */
function log2OnePlus(tHi: f64, tLo: f64): void {
  if (Math.abs(tHi) >= 9.313225746154785e-10) {
    ddAdd(tHi, tLo, 1, 0);
    log2Dd(ddHi, ddLo, 0);
    return;
  }
  const a0 = Math.log1p(tHi);
  ddExpSmall(-a0, 0);
  ddMul(ddHi, ddLo, tHi, tLo);
  const pHi = ddHi, pLo = ddLo;
  ddExpm1Small(-a0, 0);
  ddAdd(ddHi, ddLo, pHi, pLo);
  ddAdd(ddHi, ddLo, a0, 0);
  ddDiv(ddHi, ddLo, LN2_HI, LN2_LO);
}

/** (aHi:aLo) * (bHi:bLo), both normalized 128-bit significands: the top 128 bits (sticky in bit 0) in prodHi/prodLo, prodShift 1 when normalized by one. */
let prodHi: u64 = 0;
let prodLo: u64 = 0;
let prodShift: i32 = 0;
function mul128(aHi: u64, aLo: u64, bHi: u64, bLo: u64): void {
  F.mul64(aHi, bHi); const h1 = F.wideHigh(), l1 = F.wideLow();
  F.mul64(aHi, bLo); const h2 = F.wideHigh(), l2 = F.wideLow();
  F.mul64(aLo, bHi); const h3 = F.wideHigh(), l3 = F.wideLow();
  F.mul64(aLo, bLo); const h4 = F.wideHigh(), l4 = F.wideLow();
  // w1 = l2 + l3 + h4, w2 = l1 + h2 + h3 + carries, w3 = h1 + carries
  let w1 = l2 + l3; let c1: u64 = w1 < l2 ? 1 : 0;
  const w1b = w1 + h4; c1 += w1b < w1 ? 1 : 0; w1 = w1b;
  let w2 = l1 + h2; let c2: u64 = w2 < l1 ? 1 : 0;
  const w2b = w2 + h3; c2 += w2b < w2 ? 1 : 0; w2 = w2b;
  const w2c = w2 + c1; c2 += w2c < w2 ? 1 : 0; w2 = w2c;
  let w3 = h1 + c2;
  const sticky: u64 = (w1 | l4) != 0 ? 1 : 0;
  prodShift = 0;
  if ((w3 >> 63) == 0) { w3 = (w3 << 1) | (w2 >> 63); w2 = (w2 << 1) | (w1 >> 63); prodShift = 1; }
  prodHi = w3; prodLo = w2 | sticky;
}

/** FYL2X: y * log2(x) (the special cases of the SDM's FYL2X table). */
export function yl2x(ySe: u32, ySig: u64, xSe: u32, xSig: u64): void {
  if (specialTwo(ySe, ySig, xSe, xSig)) return;
  const xSign = F.signOf(xSe), ySign = F.signOf(ySe);
  const xZero = F.isZero80(xSe, xSig), yZero = F.isZero80(ySe, ySig);
  const xInf = F.isInf80(xSe, xSig), yInf = F.isInf80(ySe, ySig);
  if (xSign != 0 && !xZero) { F.signalInvalid(); return; }
  // log2 x is -inf for 0, +inf for +inf, +0 for 1: y times it
  const xOne = xSe == 0x3fff && xSig == F.J_BIT;
  if ((xZero && yZero) || (xInf && yZero) || (xOne && yInf)) { F.signalInvalid(); return; }
  if (denormal(xSe, xSig) || denormal(ySe, ySig)) return;
  if (xZero) {
    if (!yInf && F.signalZeroDivide()) return;
    infinity(ySign ^ 1);
    return;
  }
  if (xInf) { infinity(ySign); return; }
  if (xOne) { zero(ySign); return; }
  // log2 x is finite and not zero; negative for x < 1
  const lNeg: u32 = F.compare80(xSe, xSig, 0x3fff, F.J_BIT, true) == F.CMP_LESS ? 1 : 0;
  if (yInf) { infinity(ySign ^ lNeg); return; }
  if (yZero) { zero(ySign ^ lNeg); return; }
  unpackArg(xSe, xSig);
  ddFromSig(0, argExp, argSig, argExp == -1 || argExp == 0 ? 0 : argExp);
  if (argExp == -1 || argExp == 0) {
    // x in [1/2, 2): log2(1 + (x - 1)), x - 1 exact, so that x near 1 keeps its precision
    ddAdd(ddHi, ddLo, -1, 0);
    log2OnePlus(ddHi, ddLo);
  } else log2Dd(ddHi, ddLo, argExp);
  const lHi = ddHi, lLo = ddLo;
  unpackArg(ySe, ySig);
  multiplyByDd(ySign, argExp, argSig, lHi, lLo, 0);
  // the processor never reports an exact product here (log2 4 * 3 is "inexact" 6)
  F.signalPrecision();
}

/**
 * FYL2XP1: y * log2(x + 1). The SDM defines it for |x| < 1 - sqrt(2)/2;
 * processors compute it for any x > -1, and for x <= -1 give x itself (a
 * zero or infinite y gives the zero or infinity of the product's sign).
 */
export function yl2xp1(ySe: u32, ySig: u64, xSe: u32, xSig: u64): void {
  if (specialTwo(ySe, ySig, xSe, xSig)) return;
  const xSign = F.signOf(xSe), ySign = F.signOf(ySe);
  const xZero = F.isZero80(xSe, xSig), yZero = F.isZero80(ySe, ySig);
  const xInf = F.isInf80(xSe, xSig), yInf = F.isInf80(ySe, ySig);
  if ((xZero && yInf) || (xInf && yZero) || (xInf && xSign != 0)) { F.signalInvalid(); return; }
  if (denormal(xSe, xSig) || denormal(ySe, ySig)) return;
  if (xInf) { infinity(ySign); return; }
  if (xZero || yZero) { zero(xSign ^ ySign); return; }
  if (yInf) { infinity(ySign ^ xSign); return; }
  if (F.compare80(xSe, xSig, 0xbfff, F.J_BIT, true) != F.CMP_GREATER) { F.signalPrecision(); F.setResult(xSe, xSig); return; }
  unpackArg(xSe, xSig);
  const xe = argExp, xs = argSig;
  unpackArg(ySe, ySig);
  const ye = argExp, ys = argSig;
  F.signalPrecision();
  if (xe < -900) {
    // log2(1 + x) = x log2(e) (1 - x/2 ...), the correction far below an ulp:
    // y x (exact, 128 bits) times log2(e) held to 128 bits, rounded once
    F.mul64(xs, ys);
    let pHi = F.wideHigh(), pLo = F.wideLow();
    let e = xe + ye + 1;
    if ((pHi >> 63) == 0) { pHi = (pHi << 1) | (pLo >> 63); pLo <<= 1; e--; }
    mul128(pHi, pLo, 0xb8aa3b295c17f0bb, 0xbe87fed0691d3e88);
    F.roundToExtended(xSign ^ ySign, e + 1 - prodShift, prodHi, prodLo, 64);
    return;
  }
  if (xe > 100) {
    // log2(1 + x) = log2(x) + log2(1 + 1/x): the second term far below an ulp of the first
    ddFromSig(0, 0, xs, 0);
    log2Dd(ddHi, ddLo, xe);
  } else {
    ddFromSig(xSign, xe, xs, 0);
    log2OnePlus(ddHi, ddLo);
  }
  multiplyByDd(ySign, ye, ys, ddHi, ddLo, 0);
}

// ---- FPATAN ------------------------------------------------------------------------------
/** pi / den (den 1, 2, 4) or 3 pi / 4, held to 128 bits, with the given sign, rounded. */
function piFraction(sign: u32, num: u32, den: u32): void {
  // pi = 0xc90fdaa22168c234c4c6628b80dc1cd1 / 2^127 * 2
  if (num == 3) { mulConstant(sign, -1, 0xc000000000000000, 0xc90fdaa22168c234, 0xc4c6628b80dc1cd1, 1); return; }
  F.roundToExtended(sign, den == 4 ? -1 : den == 2 ? 0 : 1, 0xc90fdaa22168c234, 0xc4c6628b80dc1cd1, 64);
}

/** FPATAN: atan(y / x) in the quadrant of (x, y) (the SDM's FPATAN table for zeros and infinities). */
export function atan2(ySe: u32, ySig: u64, xSe: u32, xSig: u64): void {
  if (specialTwo(ySe, ySig, xSe, xSig)) return;
  const ySign = F.signOf(ySe), xSign = F.signOf(xSe);
  const yZero = F.isZero80(ySe, ySig), xZero = F.isZero80(xSe, xSig);
  const yInf = F.isInf80(ySe, ySig), xInf = F.isInf80(xSe, xSig);
  if (denormal(ySe, ySig) || denormal(xSe, xSig)) return;
  if (yZero) { if (xSign == 0) zero(ySign); else piFraction(ySign, 1, 1); return; }
  if (yInf) { if (xInf) piFraction(ySign, xSign == 0 ? 1 : 3, 4); else piFraction(ySign, 1, 2); return; }
  if (xInf) { if (xSign == 0) zero(ySign); else piFraction(ySign, 1, 1); return; }
  if (xZero) { piFraction(ySign, 1, 2); return; }
  unpackArg(ySe, ySig);
  const ye = argExp, ys = argSig;
  unpackArg(xSe, xSig);
  const xe = argExp, xs = argSig;
  const d = ye - xe;
  if (d > 900) { piFraction(ySign, 1, 2); return; } // pi/2 - |x/y|: the difference is far below an ulp
  if (d < -900) {
    // x < 0: pi - |y/x|, far below an ulp of pi. x > 0: y/x (1 - (y/x)^2/3):
    // the quotient rounded once, or just below it when it is exact
    if (xSign != 0) { piFraction(ySign, 1, 1); return; }
    F.div80(ySe, ySig, xSe, xSig);
    if ((F.flags & F.EX_PRECISION) == 0 && !F.isZero80(F.resultSe, F.resultSig)) {
      unpackArg(F.resultSe, F.resultSig);
      nearly(ySign, argExp, argSig, true);
    }
    return;
  }
  // the angle of (|x|, |y|) in [0, pi/2] from the smaller ratio, scaled to a common exponent
  const common = xe > ye ? xe : ye;
  ddFromSig(0, ye, ys, common);
  const yHi = ddHi, yLo = ddLo;
  ddFromSig(0, xe, xs, common);
  const xHi = ddHi, xLo = ddLo;
  const steep = yHi > xHi || (yHi == xHi && yLo > xLo);
  if (steep) ddDiv(xHi, xLo, yHi, yLo); else ddDiv(yHi, yLo, xHi, xLo);
  ddAtan(ddHi, ddLo);
  let aHi = ddHi, aLo = ddLo;
  if (steep) { ddAdd(PI_HI / 2, PI_LO / 2, -aHi, -aLo); aHi = ddHi; aLo = ddLo; }
  if (xSign != 0) { ddAdd(PI_HI, PI_LO, -aHi, -aLo); aHi = ddHi; aLo = ddLo; }
  if (ySign != 0) { aHi = -aHi; aLo = -aLo; }
  roundDd(aHi, aLo, 0);
}
