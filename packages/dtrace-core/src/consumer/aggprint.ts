// Aggregation and trace() output layouts after libdtrace's dt_consume.c:
// quantize/lquantize/llquantize histograms (dt_print_quantize & co, with
// dt_print_quantline's 40-column bars), avg/stddev values, key and value
// datums (dt_print_datum's width table) and the byte printer behind trace()
// of strings and tracemem() (dt_print_bytes). Every function returns text.

import {
  DTRACE_QUANTIZE_NBUCKETS,
  DTRACE_QUANTIZE_ZEROBUCKET,
  lquantizeParams,
  llquantizeParams,
} from '../program/actions.js';
import { quantizeBucketValue } from '../framework/buckets.js';

const BAR = 40;
const ATS = '@'.repeat(BAR);
const SPACES = ' '.repeat(BAR);

const rjust = (s: string, w: number): string => (s.length >= w ? s : ' '.repeat(w - s.length) + s);
const ljust = (s: string, w: number): string => (s.length >= w ? s : s + ' '.repeat(w - s.length));
const div = (v: bigint, normal: bigint): bigint => (normal === 1n ? v : v / normal);

/** dt_print_quantline: the bar and count of one bucket. */
function quantLine(val: bigint, normal: bigint, total: number, positives: boolean, negatives: boolean): string {
  const count = ljust(String(div(val, normal)), 9);
  const abs = Math.abs(Number(val));
  if (!negatives) {
    const depth = positives ? Math.floor((abs * BAR) / total + 0.5) : 0;
    return `|${ATS.slice(BAR - depth)}${SPACES.slice(depth)} ${count}\n`;
  }
  if (!positives) {
    const depth = Math.floor((abs * BAR) / total + 0.5);
    return `${SPACES.slice(depth)}${ATS.slice(BAR - depth)}| ${count}\n`;
  }
  const half = BAR / 2;
  const depth = Math.floor((abs * half) / total + 0.5);
  const ats = ATS.slice(half);
  const spaces = SPACES.slice(half);
  if (val <= 0n) return `${spaces.slice(depth)}${ats.slice(half - depth)}|${' '.repeat(half)} ${count}\n`;
  return `${' '.repeat(20)}|${ats.slice(half - depth)}${spaces.slice(depth)} ${count}\n`;
}

const HEADER = `\n${rjust('value', 16)} ${rjust('------------- Distribution -------------', 41)} ${ljust('count', 9)}\n`;

function binRange(data: readonly bigint[], lo: number, hi: number, empty: [number, number]): [number, number] {
  let first = lo;
  while (first < hi && data[first] === 0n) first++;
  if (first === hi && data[hi] === 0n) return empty;
  if (first > lo) first--;
  let last = hi;
  while (last > lo && data[last] === 0n) last--;
  if (last < hi) last++;
  return [first, last];
}

function totals(data: readonly bigint[], first: number, last: number): { total: number; positives: boolean; negatives: boolean } {
  let total = 0;
  let positives = false;
  let negatives = false;
  for (let i = first; i <= last; i++) {
    const v = data[i]!;
    if (v > 0n) positives = true;
    if (v < 0n) negatives = true;
    total += Math.abs(Number(v));
  }
  return { total, positives, negatives };
}

/** dt_print_quantize: `data` holds the 127 buckets. */
export function printQuantize(data: readonly bigint[], normal = 1n): string {
  if (data.length !== DTRACE_QUANTIZE_NBUCKETS) throw new Error(`quantize data has ${data.length} buckets, expected ${DTRACE_QUANTIZE_NBUCKETS}`);
  // The search for the first bin stops one short of the end, as in libdtrace.
  let first = 0;
  let last = DTRACE_QUANTIZE_NBUCKETS - 1;
  while (first < DTRACE_QUANTIZE_NBUCKETS - 1 && data[first] === 0n) first++;
  // No data at all (values only in the last bucket, 2^62 and up, are data).
  if (first === DTRACE_QUANTIZE_NBUCKETS - 1 && data[first] === 0n) {
    first = DTRACE_QUANTIZE_ZEROBUCKET - 1;
    last = DTRACE_QUANTIZE_ZEROBUCKET + 1;
  } else {
    if (first > 0) first--;
    while (last > 0 && data[last] === 0n) last--;
    if (last < DTRACE_QUANTIZE_NBUCKETS - 1) last++;
  }
  const t = totals(data, first, last);
  let out = HEADER;
  for (let i = first; i <= last; i++) {
    out += rjust(String(quantizeBucketValue(i)), 16) + ' ' + quantLine(data[i]!, normal, t.total, t.positives, t.negatives);
  }
  return out;
}

/** dt_print_lquantize: `data[0]` is the packed parameter word, then levels + 2 buckets. */
export function printLquantize(data: readonly bigint[], normal = 1n): string {
  const { base, levels, step } = lquantizeParams(data[0]!);
  const buckets = data.slice(1);
  if (buckets.length !== levels + 2) throw new Error(`lquantize data has ${buckets.length} buckets, expected ${levels + 2}`);
  const [first, last] = binRange(buckets, 0, levels + 1, [0, 2]);
  const t = totals(buckets, first, last);
  let out = HEADER;
  for (let i = first; i <= last; i++) {
    let label: string;
    if (i === 0) label = `< ${base}`;
    else if (i === levels + 1) label = `>= ${base + levels * step}`;
    else label = String(base + (i - 1) * step);
    out += rjust(label, 16) + ' ' + quantLine(buckets[i] ?? 0n, normal, t.total, t.positives, t.negatives);
  }
  return out;
}

/** dt_print_llquantize: `data[0]` is the packed parameter word, then the buckets. */
export function printLlquantize(data: readonly bigint[], normal = 1n): string {
  const { factor, low, high, nsteps } = llquantizeParams(data[0]!);
  const buckets = data.slice(1);
  const levels = buckets.length;
  const [first, last] = binRange(buckets, 0, levels - 1, [0, 1]);
  const t = totals(buckets, first, last);
  let out = HEADER;
  let value = 1n;
  let order = 0;
  for (; order < low; order++) value *= BigInt(factor);
  let next = value * BigInt(factor);
  let step = next > BigInt(nsteps) ? next / BigInt(nsteps) : 1n;
  if (first === 0) out += rjust(`< ${value}`, 16) + ' ' + quantLine(buckets[0]!, normal, t.total, t.positives, t.negatives);
  let bin = 1;
  while (order <= high) {
    if (bin >= first && bin <= last) {
      out += rjust(String(value), 16) + ' ' + quantLine(buckets[bin] ?? 0n, normal, t.total, t.positives, t.negatives);
    }
    bin++;
    value += step;
    if (value !== next) continue;
    next = value * BigInt(factor);
    step = next > BigInt(nsteps) ? next / BigInt(nsteps) : 1n;
    order++;
  }
  if (last < bin) return out;
  return out + rjust(`>= ${value}`, 16) + ' ' + quantLine(buckets[bin] ?? 0n, normal, t.total, t.positives, t.negatives);
}

/** avg(): data = [count, sum]; prints " %16lld". */
export function averageValue(data: readonly bigint[], normal = 1n): bigint {
  const count = BigInt.asIntN(64, data[0]!);
  return count === 0n ? 0n : BigInt.asIntN(64, data[1]!) / normal / count;
}

function isqrt(n: bigint): bigint {
  if (n <= 0n) return 0n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

/** stddev(): data = [count, sum, sum of squares (low), sum of squares (high)] — dt_stddev. */
export function stddevValue(data: readonly bigint[], normal = 1n): bigint {
  const count = BigInt.asUintN(64, data[0]!);
  if (count === 0n) return 0n;
  const sumsq = (BigInt.asUintN(64, data[3]!) << 64n) | BigInt.asUintN(64, data[2]!);
  const avgOfSquares = sumsq / normal / count;
  let normAvg = BigInt.asIntN(64, data[1]!) / normal / BigInt.asIntN(64, count);
  if (normAvg < 0n) normAvg = -normAvg;
  return isqrt(avgOfSquares - normAvg * normAvg);
}

/**
 * dt_print_bytes: a string when the bytes are printable up to a NUL (or all
 * printable), otherwise a hex dump with an offset column and ASCII.
 */
export function printBytes(bytes: Uint8Array, width: number, quiet: boolean, forceRaw: boolean): string {
  const n = bytes.length;
  if (n === 0) return '';
  if (!forceRaw) {
    let i = 0;
    for (; i < n; i++) {
      const c = bytes[i]!;
      if ((c >= 0x20 && c <= 0x7e) || (c >= 9 && c <= 13) || c === 8 || c === 7) continue;
      if (c === 0 && i > 0) {
        let j = i + 1;
        while (j < n && bytes[j] === 0) j++;
        if (j !== n) break;
        const s = latin1(bytes.subarray(0, i));
        if (quiet) return s;
        return ' ' + (width < 0 ? ' ' : '') + (width < 0 ? ljust(s, -width) : rjust(s, width));
      }
      break;
    }
    // "  %-*s" with a negative width: left-justified in its magnitude, quiet or not.
    if (i === n) return '  ' + ljust(latin1(bytes), Math.abs(width));
  }
  const margin = 5;
  let out = '\n' + ' '.repeat(margin) + '      ';
  for (let i = 0; i < 16; i++) out += '  ' + '0123456789abcdef'[i];
  out += '  0123456789abcdef\n';
  for (let i = 0; i < n; i += 16) {
    out += ' '.repeat(margin) + rjust(i.toString(16), 5) + ':';
    let j = i;
    for (; j < i + 16 && j < n; j++) out += ' ' + bytes[j]!.toString(16).padStart(2, '0');
    while (j++ % 16) out += '   ';
    out += '  ';
    for (j = i; j < i + 16 && j < n; j++) {
      const c = bytes[j]!;
      out += c < 0x20 || c > 0x7e ? '.' : String.fromCharCode(c);
    }
    out += '\n';
  }
  return out;
}

function latin1(b: Uint8Array): string {
  let s = '';
  for (const c of b) s += String.fromCharCode(c);
  return s;
}

/** trace() of an integer record: " %16lld" / " %8d" / " %5d" / " %3d", or "%d" under quiet (dt_consume_cpu). */
export function traceInteger(raw: bigint, size: number, quiet: boolean): string {
  switch (size) {
    case 8:
      return quiet ? String(BigInt.asIntN(64, raw)) : ' ' + rjust(String(BigInt.asIntN(64, raw)), 16);
    case 4:
      return quiet ? String(BigInt.asIntN(32, raw)) : ' ' + rjust(String(BigInt.asIntN(32, raw)), 8);
    case 2:
      return quiet ? String(BigInt.asUintN(16, raw)) : ' ' + rjust(String(BigInt.asUintN(16, raw)), 5);
    default:
      return quiet ? String(BigInt.asUintN(8, raw)) : ' ' + rjust(String(BigInt.asUintN(8, raw)), 3);
  }
}

/** dt_print_datum's width table for aggregation keys and values. */
export function printDatumInteger(raw: bigint, size: number, normal = 1n): string {
  switch (size) {
    case 8:
      // (long long)value / normal divides as unsigned long long (normal is a uint64_t), then prints signed.
      return ' ' + rjust(String(normal === 1n ? BigInt.asIntN(64, raw) : BigInt.asIntN(64, BigInt.asUintN(64, raw) / BigInt.asUintN(64, normal))), 16);
    case 4:
      // *(uint32_t *)addr / (uint32_t)normal, printed with %d.
      return ' ' + rjust(String(BigInt.asIntN(32, BigInt.asUintN(32, raw) / (BigInt.asUintN(32, normal) || 1n))), 8);
    case 2:
      return ' ' + rjust(String(BigInt.asUintN(16, raw) / normal), 5);
    default:
      return ' ' + rjust(String(BigInt.asUintN(8, raw) / normal), 3);
  }
}

export { rjust, ljust };
