// Bucket arithmetic of the histogram aggregations (quantize, lquantize's
// parameters live in program/actions.ts, llquantize): which bucket a value
// falls in, as the framework's dtrace_aggregate_* functions compute it, and
// what value a bucket stands for, as the consumer prints it. Both the
// framework (state.ts) and the consumer's printers use these.

import { DTRACE_QUANTIZE_ZEROBUCKET, llquantizeParams } from '../program/actions.js';

/** DTRACE_QUANTIZE_BUCKETVAL */
export function quantizeBucketValue(bucket: number): bigint {
  if (bucket < DTRACE_QUANTIZE_ZEROBUCKET) return -(1n << BigInt(DTRACE_QUANTIZE_ZEROBUCKET - bucket - 1));
  if (bucket === DTRACE_QUANTIZE_ZEROBUCKET) return 0n;
  return 1n << BigInt(bucket - DTRACE_QUANTIZE_ZEROBUCKET - 1);
}

/** A 64-bit word the bucket of a value is read from. */
const WORD = new DataView(new ArrayBuffer(8));

/**
 * The bucket a value falls in (dtrace_aggregate_quantize): the zero bucket,
 * or one per power of two of the int64_t's magnitude, above it for positive
 * values, below for negative ones. Worked out on the value's two 32-bit
 * halves (no BigInt arithmetic: this runs at every quantize() firing).
 */
export function quantizeBucket(value: bigint): number {
  // The int64_t's bits (setBigUint64 takes the value modulo 2^64, as BigInt.asIntN(64) does).
  WORD.setBigUint64(0, value, true);
  let lo = WORD.getUint32(0, true);
  let hi = WORD.getUint32(4, true);
  if (lo === 0 && hi === 0) return DTRACE_QUANTIZE_ZEROBUCKET;
  const negative = hi >= 0x80000000;
  if (negative) {
    // The magnitude, -v: not the bits, plus one (carried into the high half when the low half is 0).
    const carry = lo === 0 ? 1 : 0;
    lo = (~lo + 1) >>> 0;
    hi = (~hi + carry) >>> 0;
  }
  // The highest power of two not above the magnitude (2^63 for INT64_MIN's).
  const log2 = hi !== 0 ? 63 - Math.clz32(hi) : 31 - Math.clz32(lo);
  if (!negative) return DTRACE_QUANTIZE_ZEROBUCKET + 1 + log2;
  // The lowest bucket, -2^62, also holds every value below it (INT64_MIN too), as in dtrace_aggregate_quantize.
  return DTRACE_QUANTIZE_ZEROBUCKET - 1 - Math.min(log2, 62);
}

/** Number of buckets llquantize(factor, low, high, nsteps) needs (dtrace_aggregate_llquantize_bucket layout). */
export function llquantizeBucketCount(factor: number, low: number, high: number, nsteps: number): number {
  let n = 2; // underflow and overflow
  let value = 1n;
  for (let o = 0; o < low; o++) value *= BigInt(factor);
  for (let order = low; order <= high; order++) {
    const next = value * BigInt(factor);
    const step = next > BigInt(nsteps) ? next / BigInt(nsteps) : 1n;
    for (let v = value; v < next; v += step) n++;
    value = next;
  }
  return n;
}

/**
 * The buckets' bounds of llquantize(factor, low, high, nsteps) as
 * llquantizeBucket walks them: `v` falls in the first bucket j whose bound
 * it is below, or, above them all, in the last (bounds.length).
 */
export function llquantizeBounds(arg: bigint): bigint[] {
  const { factor, low, high, nsteps } = llquantizeParams(arg);
  const f = BigInt(factor);
  let value = 1n;
  for (let o = 0; o < low; o++) value *= f;
  const bounds = [value];
  for (let order = low; order <= high; order++) {
    const next = value * f;
    const step = next > BigInt(nsteps) ? next / BigInt(nsteps) : 1n;
    for (let x = value; x < next; x += step) bounds.push(x + step);
    value = next;
  }
  return bounds;
}

/** dtrace_aggregate_llquantize_bucket: the bucket index of `v`. */
export function llquantizeBucket(arg: bigint, v: bigint): number {
  const { factor, low, high, nsteps } = llquantizeParams(arg);
  const f = BigInt(factor);
  let value = 1n;
  for (let o = 0; o < low; o++) value *= f;
  if (v < value) return 0;
  let bin = 1;
  for (let order = low; order <= high; order++) {
    const next = value * f;
    const step = next > BigInt(nsteps) ? next / BigInt(nsteps) : 1n;
    for (let x = value; x < next; x += step) {
      if (v < x + step) return bin;
      bin++;
    }
    value = next;
  }
  return bin;
}
