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

/** The bucket a value falls in (dtrace_aggregate_quantize). */
export function quantizeBucket(value: bigint): number {
  const v = BigInt.asIntN(64, value);
  if (v === 0n) return DTRACE_QUANTIZE_ZEROBUCKET;
  if (v > 0n) {
    let i = 0;
    while (i < 63 && v >= 1n << BigInt(i + 1)) i++;
    return DTRACE_QUANTIZE_ZEROBUCKET + 1 + i;
  }
  const m = -v;
  let i = 0;
  while (i < 63 && m >= 1n << BigInt(i + 1)) i++;
  return DTRACE_QUANTIZE_ZEROBUCKET - 1 - i;
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
