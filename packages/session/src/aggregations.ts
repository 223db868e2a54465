// Aggregations as data: what the consumer holds once tracing ends, each
// aggregation's rows in the order dtrace(1) prints them (the aggsort*
// options), with the value normalize() scales as the printout does, and for
// the quantizations each bucket's count beside the label dtrace(1) gives it.
import {
  DTRACEAGG,
  DTRACE_QUANTIZE_NBUCKETS,
  averageValue,
  llquantizeParams,
  lquantizeParams,
  quantizeBucketValue,
  stddevValue,
  type AggregationDescription,
  type Consumer,
} from '@wdtrace/dtrace-core';
import { DIF_TYPE_STRING, bytesString } from '@wdtrace/dtrace-core/dif';

export type AggregatingFunction = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'stddev' | 'quantize' | 'lquantize' | 'llquantize';

const FUNCTIONS: ReadonlyMap<number, AggregatingFunction> = new Map([
  [DTRACEAGG.COUNT, 'count'],
  [DTRACEAGG.SUM, 'sum'],
  [DTRACEAGG.AVG, 'avg'],
  [DTRACEAGG.MIN, 'min'],
  [DTRACEAGG.MAX, 'max'],
  [DTRACEAGG.STDDEV, 'stddev'],
  [DTRACEAGG.QUANTIZE, 'quantize'],
  [DTRACEAGG.LQUANTIZE, 'lquantize'],
  [DTRACEAGG.LLQUANTIZE, 'llquantize'],
]);

/** One key of a row: an integer key as its 64-bit value, a string key as its byte string, other keys (stack(), ...) as their bytes. */
export type AggregationKey = bigint | string | Uint8Array;

export interface AggregationRow {
  readonly keys: readonly AggregationKey[];
  /**
   * count, sum, min, max: the value (count unsigned, the others signed);
   * avg, stddev: as printed; quantize, lquantize, llquantize: the sum of the
   * buckets. Divided by normalize()'s factor as the printout is.
   */
  readonly value: bigint;
  /** quantize, lquantize, llquantize: the count of each bucket (normalized), as `bucketLabels` names them. */
  readonly buckets?: readonly bigint[];
}

export interface AggregationData {
  /** The name without "@" ("" for the anonymous aggregation). */
  readonly name: string;
  readonly function: AggregatingFunction;
  /** The D type name of each key (int, string, stack, func ...). */
  readonly keyTypes: readonly string[];
  readonly rows: readonly AggregationRow[];
  /**
   * quantize, lquantize, llquantize: each bucket's value as dtrace(1) labels
   * its line — the least value it counts, `< base` and `>= limit` for the
   * outer buckets of lquantize and llquantize.
   */
  readonly bucketLabels?: readonly string[];
}

/** The buckets of a quantization, labelled as dt_print_quantize, dt_print_lquantize and dt_print_llquantize label them. */
function bucketLabels(desc: AggregationDescription): string[] | undefined {
  switch (desc.function) {
    case DTRACEAGG.QUANTIZE:
      return Array.from({ length: DTRACE_QUANTIZE_NBUCKETS }, (_, i) => String(quantizeBucketValue(i)));
    case DTRACEAGG.LQUANTIZE: {
      const { base, levels, step } = lquantizeParams(desc.arg);
      return [`< ${base}`, ...Array.from({ length: levels }, (_, i) => String(base + i * step)), `>= ${base + levels * step}`];
    }
    case DTRACEAGG.LLQUANTIZE: {
      // Each order of magnitude from factor^low to factor^high in nsteps steps (one step a unit where nsteps exceeds it).
      const { factor, low, high, nsteps } = llquantizeParams(desc.arg);
      let value = BigInt(factor) ** BigInt(low);
      const labels = [`< ${value}`];
      for (let order = low; order <= high; order++) {
        const next = value * BigInt(factor);
        const step = next > BigInt(nsteps) ? next / BigInt(nsteps) : 1n;
        for (; value < next; value += step) labels.push(String(value));
      }
      return [...labels, `>= ${value}`];
    }
    default:
      return undefined;
  }
}

function key(desc: AggregationDescription, k: bigint | Uint8Array, i: number): AggregationKey {
  if (typeof k === 'bigint' || desc.keys[i]?.type.kind !== DIF_TYPE_STRING) return k;
  const end = k.indexOf(0);
  return bytesString(end < 0 ? k : k.subarray(0, end));
}

function value(desc: AggregationDescription, data: readonly bigint[], normal: bigint): Pick<AggregationRow, 'value' | 'buckets'> {
  switch (desc.function) {
    case DTRACEAGG.AVG:
      return { value: averageValue(data, normal) };
    case DTRACEAGG.STDDEV:
      return { value: stddevValue(data, normal) };
    case DTRACEAGG.QUANTIZE:
    case DTRACEAGG.LQUANTIZE:
    case DTRACEAGG.LLQUANTIZE: {
      // lquantize and llquantize keep their packed parameters ahead of the buckets.
      const counts = desc.function === DTRACEAGG.QUANTIZE ? data : data.slice(1);
      const buckets = counts.map((c) => BigInt.asIntN(64, c) / normal);
      return { value: buckets.reduce((a, b) => a + b, 0n), buckets };
    }
    case DTRACEAGG.COUNT:
      return { value: BigInt.asUintN(64, data[0]!) / normal };
    default:
      return { value: BigInt.asIntN(64, data[0]!) / normal };
  }
}

/** Every aggregation of the program, in id order, from the consumer's last snapshot. */
export function aggregationData(consumer: Consumer): AggregationData[] {
  const descs = [...consumer.state.aggregationDescs.values()].sort((a, b) => a.id - b.id);
  return descs.map((desc) => {
    const normal = consumer.normalization(desc.id) || 1n;
    const labels = bucketLabels(desc);
    return {
      name: desc.name,
      function: FUNCTIONS.get(desc.function) ?? 'count',
      keyTypes: desc.keys.map((k) => k.typeName),
      rows: consumer.sortedEntries(desc.id).map((e) => ({ keys: e.keys.map((k, i) => key(desc, k, i)), ...value(desc, e.data, normal) })),
      ...(labels ? { bucketLabels: labels } : {}),
    };
  });
}
