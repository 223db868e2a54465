// Aggregations drawn: each count/sum/min/max/avg/stddev aggregation as one
// bar chart of its rows (in dtrace(1)'s order), each row of a quantize,
// lquantize or llquantize aggregation as a histogram of its buckets over the
// range dtrace(1) prints (one empty bucket either side of those with
// counts). Keys are labelled as dtrace(1) prints them, kernel addresses by
// the symbolizer the worker gives. Pure: the page renders the charts.
import { decodeText, type AggregationData, type AggregationKey } from '@wdtrace/session';

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** The value as dtrace(1) prints it (exact, where `value` may be rounded). */
  readonly text: string;
}

export interface Chart {
  /** `@name = function()`, and the row's keys for a histogram. */
  readonly title: string;
  readonly histogram: boolean;
  readonly bars: readonly Bar[];
}

/** Names kernel addresses: `module`function` for func(), with `+0x..` for sym(), the module for mod(). */
export interface KeySymbolizer {
  kernel(address: bigint, form: 'func' | 'sym' | 'mod'): string;
  /** Bytes of a pointer (stack frames). */
  readonly pointerSize: number;
}

/** A key as dtrace(1) names it, on one line. */
function keyLabel(key: AggregationKey, type: string, symbols: KeySymbolizer): string {
  if (typeof key === 'string') return decodeText(key);
  if (typeof key === 'bigint') {
    if (type === 'func' || type === 'sym' || type === 'mod') return symbols.kernel(key, type);
    return key.toString();
  }
  if (type === 'stack') {
    // The innermost frames, as the first lines of the printed stack.
    const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
    const frames: string[] = [];
    for (let off = 0; off + symbols.pointerSize <= key.length && frames.length < 3; off += symbols.pointerSize) {
      const pc = symbols.pointerSize === 8 ? view.getBigUint64(off, true) : BigInt(view.getUint32(off, true));
      if (pc === 0n) break;
      frames.push(symbols.kernel(pc, 'sym'));
    }
    return frames.join(' ← ') || '(empty stack)';
  }
  return `${type} (${key.length} bytes)`;
}

function rowLabel(keys: readonly AggregationKey[], agg: AggregationData, symbols: KeySymbolizer): string {
  return keys.map((k, i) => keyLabel(k, agg.keyTypes[i] ?? '', symbols)).join(', ');
}

/** The bucket range dtrace(1) prints: one empty bucket either side of the non-empty ones (the middle three when all are empty). */
function printedRange(buckets: readonly bigint[]): [number, number] {
  const first = buckets.findIndex((b) => b !== 0n);
  if (first < 0) {
    const mid = Math.floor(buckets.length / 2);
    return [Math.max(0, mid - 1), Math.min(buckets.length - 1, mid + 1)];
  }
  let last = buckets.length - 1;
  while (buckets[last] === 0n) last--;
  return [Math.max(0, first - 1), Math.min(buckets.length - 1, last + 1)];
}

export function aggregationCharts(aggregations: readonly AggregationData[], symbols: KeySymbolizer): Chart[] {
  const charts: Chart[] = [];
  for (const agg of aggregations) {
    const name = `@${agg.name} = ${agg.function}()`;
    if (agg.bucketLabels) {
      for (const row of agg.rows) {
        const buckets = row.buckets ?? [];
        const [first, last] = printedRange(buckets);
        const bars = buckets.slice(first, last + 1).map((count, i) => ({ label: agg.bucketLabels![first + i] ?? '', value: Number(count), text: count.toString() }));
        const keys = rowLabel(row.keys, agg, symbols);
        charts.push({ title: keys === '' ? name : `${name}  [${keys}]`, histogram: true, bars });
      }
    } else if (agg.rows.length > 0) {
      charts.push({ title: name, histogram: false, bars: agg.rows.map((row) => ({ label: rowLabel(row.keys, agg, symbols) || agg.name || '@', value: Number(row.value), text: row.value.toString() })) });
    }
  }
  return charts;
}
