// 128-bit unsigned integer helpers over u64 halves: the high half of a 64 x 64
// product and the long division of a 128-bit dividend, for the integer
// MUL/IMUL/DIV/IDIV instructions (exec.ts) and the software floating point
// (float80.ts).

/** The high 64 bits of the unsigned 128-bit product a * b. */
export function mulHigh(a: u64, b: u64): u64 {
  const a0 = a & 0xffffffff, a1 = a >> 32, b0 = b & 0xffffffff, b1 = b >> 32;
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const mid = (p00 >> 32) + (p01 & 0xffffffff) + (p10 & 0xffffffff);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
/** The high 64 bits of the signed 128-bit product a * b. */
export function mulHighSigned(a: u64, b: u64): u64 {
  let h = mulHigh(a, b);
  if (<i64>a < 0) h -= b;
  if (<i64>b < 0) h -= a;
  return h;
}

/** The remainder of the last divide128. */
export let divisionRemainder: u64 = 0;
/** (hi:lo) / d for hi < d, by shift and subtract: the 64-bit quotient; the remainder in divisionRemainder. */
export function divide128(hi: u64, lo: u64, d: u64): u64 {
  let q: u64 = 0;
  let r = hi;
  for (let i = 63; i >= 0; i--) {
    const top = r >> 63;
    r = (r << 1) | ((lo >> <u64>i) & 1);
    q <<= 1;
    if (top != 0 || r >= d) { r -= d; q |= 1; }
  }
  divisionRemainder = r;
  return q;
}
