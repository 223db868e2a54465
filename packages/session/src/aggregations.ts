// Aggregations as data: what the consumer holds once tracing ends, each
// aggregation's rows in the order dtrace(1) prints them (the aggsort*
// options), with the value normalize() scales as the printout does.
import { DTRACEAGG, averageValue, stddevValue, type AggregationDescription, type Consumer } from '@wdtrace/dtrace-core';
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
  /** quantize, lquantize, llquantize: the bucket counts as the framework keeps them (normalized). */
  readonly buckets?: readonly bigint[];
}

export interface AggregationData {
  /** The name without "@" ("" for the anonymous aggregation). */
  readonly name: string;
  readonly function: AggregatingFunction;
  /** The D type name of each key (int, string, stack, func ...). */
  readonly keyTypes: readonly string[];
  readonly rows: readonly AggregationRow[];
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
      const buckets = data.map((c) => BigInt.asIntN(64, c) / normal);
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
    return {
      name: desc.name,
      function: FUNCTIONS.get(desc.function) ?? 'count',
      keyTypes: desc.keys.map((k) => k.typeName),
      rows: consumer.sortedEntries(desc.id).map((e) => ({ keys: e.keys.map((k, i) => key(desc, k, i)), ...value(desc, e.data, normal) })),
    };
  });
}
