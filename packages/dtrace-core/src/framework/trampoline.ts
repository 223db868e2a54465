// A probe's trampoline (DTrace on BPF's per-probe program): one WebAssembly
// module per probe whose ECBs run with the wasm backend, generated from the
// probe's firing plan, whose `fire` runs the probe's ECBs in order. The
// predicates it calls are the DIFO modules' own exported functions,
// imported into it: a predicate that fails costs no JavaScript. What an ECB
// whose predicate passed does (its actions, records, aggregations) is the
// firing plan's JavaScript (`steps`).
//
//   fire(from):                     for each ECB i >= from, in order:
//     block[B_ECB] = i                 the ECB a fault unwinding out is reported against
//     block.epid = epid[i]             (when a predicate reads epid, id or cpu)
//     prepare(i)                       when the predicate calls out: its firing context
//     block[B_PREDICATE] = id          the predicate runs: a nested run of it interprets
//     predicate() == 0 -> next ECB
//     steps(i, mode) == 0 -> return    the actions; 0 once the activity stops the probe
//
// Aggregations in the trampoline: an ECB whose one action is count(),
// sum(), min(), max(), avg(), quantize(), lquantize(), llquantize() or
// stddev() (with or without an increment) of an aggregation with no key or
// keys the same at every firing of the probe (`@ = count()`, `@[probefunc] =
// sum(arg0)`, `@[probefunc] = quantize(arg0)`), whose value DIF is
// translated and calls nothing out, is
// updated by the trampoline itself once the firing plan has found its
// entry: the module's global o<i> holds the address of the entry's cell
// in the shared memory (0: disarmed), k<i> the instructions the keys' DIF
// counted, as each firing counts them. The cell (see allocateCell; a
// histogram's and stddev()'s, as long as a keyed table's, in a region of
// its own) holds what the firings since added (count, sum, min or max;
// avg's count and sum; each bucket's count; stddev()'s count, sum and sum
// of squares): the entry's data still to be taken in, which the entry folds in
// when it is read and when the aggregation is snapshot (state.ts).
// Disarmed, the ECB's actions run in JavaScript, which arms it:
//
//     o<i> ? (count += k<i>; cell op= value()) : steps(i, mode)
//
// Keyed aggregations in the trampoline: an ECB whose one action is such
// an aggregation, quantize(), lquantize() or llquantize() (with or without
// an increment), or stddev(), by integer or string keys whose DIF is
// translated (`@[arg0] = count()`, `@[pid, arg1] = sum(arg2)`, `@[cpu] =
// quantize(arg0)`, `@[execname, probefunc] = count()`) evaluates its keys
// itself, hashes them and looks their entry up in the aggregation's table
// in the shared memory (aggtable.ts); found, it updates the entry's cell
// there. A string key is hashed and compared by its bytes where they lie,
// in the state's arena, which is in the shared memory too (arena.ts); one
// outside the arena (a guest string) is a miss. Not found, the count of
// the keys' instructions is taken back and the ECB's actions run in
// JavaScript, which make the entry as the interpreter does (aggsize,
// drops, the order of entries) and put it in the table. Keys that call
// out (execname, lltostr(), strjoin() ...) run in the ECB's firing
// context, which the trampoline has prepare(i) make first when the
// predicate has not (a predicate that calls out keeps such keys in
// JavaScript: its context holds what it left in scratch); a miss makes
// it again, so that the JavaScript's run of the keys takes the scratch
// the interpreter's would:
//
//     [prepare(i)]; keys = key_j(); slot = find(table, keys)
//     slot ? (cell(slot) op= value()) : (count = before keys; [prepare(i)]; steps(i, mode))
//
// Records in the trampoline: an ECB whose actions only record integers
// (trace(arg0), printf's integer arguments, trace(timestamp) ...) from
// translated DIF that calls nothing out, or constants, has its chunk
// written by the trampoline straight into the firing CPU's principal
// buffer (buffers.ts), whose descriptor block[B_BUFFER] points to: its
// epid (imported global e<i>), the header's timestamp (the block's, high
// word first), zeroes between the records, and each record with an i64
// store of its size at the offset the program gives. When the chunk does
// not fit below the descriptor's limit, it is written in the record stage
// (B_STAGE) instead, and `append(i)` has the buffer's policy place or drop
// it; otherwise the trampoline moves the buffer's tail itself, and the
// firing costs no JavaScript:
//
//     d = block[B_BUFFER]; at = d.tail + size <= d.limit ? d.base + d.tail : B_STAGE
//     at[0] = e<i>; at[4] = ts >> 32; at[8] = ts; at[offset_j] = record_j()
//     at == B_STAGE ? append(i) : d.tail += size
//
// The firing block (wasm.ts) is filled once per firing with the union of
// what the predicates read; a fault in a predicate unwinds through the
// trampoline to its JavaScript entry (state.ts), which reads B_ECB, fires
// ERROR and calls `fire` again from the next ECB. Anything the trampoline
// cannot take (no WebAssembly, a module over MODULE_LIMIT) leaves the probe
// to the JavaScript loop over its plan.

import { ARENA_BASE } from './arena.js';
import { D_BASE, D_LIMIT, D_TAIL } from './buffers.js';
import { B_BUFFER, B_COUNT, B_ECB, B_NDX, B_NUMBERS, B_PREDICATE, B_STAGE, B_TIMESTAMP, MODULE_LIMIT, compiledModule, sharedBlock, type WasmDifo } from './wasm.js';
import { Bytes, Code, F64, I32, I64, OP } from './wasm-encoding.js';

/** How `steps(i, mode)` finds ECB i's firing context. */
export const STEPS_FRESH = 0;
/** prepare(i) made it before the predicate ran. */
export const STEPS_PREPARED = 1;
/** Its predicate is the interpreter's: steps runs the whole ECB. */
export const STEPS_WHOLE = 2;

/** The aggregating functions a trampoline updates (see the top). */
export type CellFunction = 'count' | 'sum' | 'min' | 'max' | 'avg';
/** The histograms a trampoline updates in a keyed table's cells (aggtable.ts), whose cells are as long as their data. */
export type HistogramFunction = 'quantize' | 'lquantize' | 'llquantize';
/** What a trampoline updates only in a keyed table's cells: the histograms (as long as their data) and stddev() (count, sum, and the sum of squares in three words, low first). */
export type TableFunction = HistogramFunction | 'stddev';
/** lquantize()'s parameters as the trampoline's constants. */
export interface LinearParams {
  readonly base: bigint;
  readonly levels: number;
  readonly limit: bigint;
  readonly step: bigint;
}

/** One ECB as the trampoline sees it. */
export interface TrampolineEcb {
  readonly epid: number;
  /** Its predicate translated, or none (no predicate, or one left to the interpreter: `interpreted`). */
  readonly predicate: WasmDifo | undefined;
  readonly interpreted: boolean;
  /** The aggregation it updates itself: its function, its value's DIF (none for count()), the action's index + 1. */
  readonly aggregation?: TrampolineAggregation | undefined;
  /** The records it writes itself (see the top), in the actions' order. */
  readonly records?: readonly TrampolineRecord[] | undefined;
  /** With records: the chunk's size and header size (a header of 12 bytes or more holds the timestamp). */
  readonly size?: number;
  readonly headerSize?: number;
}

/** KEY_HASH's multiplier (2^64 / the golden ratio): see aggtable.ts. */
export const KEY_HASH_MULTIPLIER = 0x9e3779b97f4a7c15n;
/** Bytes of a keyed table's slot before its keys: its tag and padding. */
export const SLOT_KEYS = 8;

/**
 * An aggregation a trampoline updates: its function (a histogram only by
 * keys found in a table), its value's and increment's DIF (none for
 * count(), and for an increment of 1), the action's index + 1.
 */
export interface TrampolineAggregation {
  readonly fn: CellFunction | TableFunction;
  readonly value: WasmDifo | undefined;
  readonly ndx: number;
  readonly keyed?: TrampolineKeys | undefined;
  readonly increment?: { readonly value: WasmDifo; readonly ndx: number } | undefined;
  readonly linear?: LinearParams | undefined;
  /** llquantize()'s buckets' bounds (buckets.ts llquantizeBounds), each below 2^63. */
  readonly logLinear?: readonly bigint[] | undefined;
}

/** The keys of an aggregation the trampoline finds in its table (see the top and aggtable.ts). */
export interface TrampolineKeys {
  /**
   * Each key's DIF and its action's index + 1, which a fault in it is
   * reported against; a string key's `limit`, the most bytes it keys by
   * (its value must be an address in the arena, see `arena`).
   */
  readonly keys: readonly { readonly value: WasmDifo; readonly ndx: number; readonly limit?: number | undefined }[];
  /** The table's descriptor address and its slots' size. */
  readonly descriptor: number;
  readonly slotSize: number;
  /** Each key's offset in a slot's keys (after SLOT_KEYS), and the keys' bytes (aggtable.ts); none: 8 bytes a key. */
  readonly offsets?: readonly number[] | undefined;
  readonly keysSize?: number | undefined;
  /** With string keys: where the state's arena lies in the shared memory, and its size. */
  readonly arena?: { readonly start: number; readonly size: number } | undefined;
}

/** A record the trampoline writes: at `offset` of the stage, `size` (1, 2, 4, 8) bytes of its DIF's value, or of `constant`. */
export interface TrampolineRecord {
  readonly offset: number;
  readonly size: number;
  readonly value: WasmDifo | undefined;
  readonly constant: bigint;
  /** The action's index + 1, which a fault in its DIF is reported against. */
  readonly ndx: number;
}

/** The globals of an ECB's aggregation in a trampoline instance (see the top). */
export interface TrampolineCell {
  readonly fn: CellFunction | TableFunction;
  /** o<i>: the address of the cell the trampoline updates, 0 while disarmed. */
  readonly armed: WebAssembly.Global;
  readonly instructions: WebAssembly.Global;
  /**
   * While armed with a cell of a region of its own (a histogram's or
   * stddev()'s, longer than the 16 bytes of the cells' page): what hands
   * it back.
   */
  release?: ((address: number) => void) | undefined;
}

/** What a cell's first word holds when nothing was added: min's and max's identities. */
export const cellStart = (fn: CellFunction | TableFunction): bigint => (fn === 'min' ? 0x7fffffffffffffffn : fn === 'max' ? -0x8000000000000000n : 0n);

export interface TrampolineHooks {
  /** Sets up ECB i's firing context before its predicate calls out. */
  prepare(i: number): void;
  /** Runs ECB i's actions (and with STEPS_WHOLE its predicate); returns 0 when the probe's later ECBs must not run. */
  steps(i: number, mode: number): number;
  /** Has the CPU's buffer place (or drop) the chunk ECB i wrote in the stage. */
  append(i: number): void;
}

/** The generated function: runs the ECBs from index `from` on. */
export type TrampolineFire = (from: number) => void;

export interface Trampoline {
  readonly fire: TrampolineFire;
  /** By ECB index, the aggregation globals (o<i>, k<i>) of those that have them. */
  readonly cells: ReadonlyMap<number, TrampolineCell>;
}

/**
 * The trampoline module's bytes. Its imports: d.m (the shared memory),
 * d.prepare, d.steps, d.append, then p.<i> for each ECB with a translated
 * predicate, v.<i> for each aggregation's value DIF, n.<i> for each
 * histogram's increment DIF, k.<i>.<j> for each key DIF of a keyed
 * aggregation, r.<i>.<j> for each record's DIF, with `epids` g.<i>, each
 * ECB's epid as an f64 global, and e.<i>, the epid of each ECB with
 * records as an i32 global, so that the probes of one program share one
 * compiled module. It exports
 * fire and each aggregating ECB's globals o<i> and k<i>.
 */
export function trampolineBytes(ecbs: readonly TrampolineEcb[], epids: boolean): Uint8Array<ArrayBuffer> {
  const m = new Bytes().u8(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  const types = new Bytes().uleb(3);
  types.u8(0x60).uleb(0).uleb(1).u8(I64); // predicate: () -> i64
  types.u8(0x60).uleb(1).u8(I32).uleb(0); // prepare, fire: (i32) -> ()
  types.u8(0x60).uleb(2).u8(I32, I32).uleb(1).u8(I32); // steps: (i, mode) -> i32
  m.section(1, types);
  const predicates = ecbs.filter((e) => e.predicate !== undefined).length;
  const values = ecbs.filter((e) => e.aggregation?.value !== undefined).length;
  const incrementFns = ecbs.filter((e) => e.aggregation?.increment !== undefined).length;
  const keyFns = ecbs.reduce((n, e) => n + (e.aggregation?.keyed?.keys.length ?? 0), 0);
  const maxKeys = ecbs.reduce((n, e) => Math.max(n, e.aggregation?.keyed?.keys.length ?? 0), 0);
  const recordFns = ecbs.reduce((n, e) => n + (e.records?.filter((r) => r.value !== undefined).length ?? 0), 0);
  const recordEcbs = ecbs.filter((e) => e.records !== undefined).length;
  const imports = new Bytes().uleb(4 + predicates + values + incrementFns + keyFns + recordFns + (epids ? ecbs.length : 0) + recordEcbs);
  imports.name('d').name('m').u8(0x02, 0x00).uleb(1);
  imports.name('d').name('prepare').u8(0x00).uleb(1);
  imports.name('d').name('steps').u8(0x00).uleb(2);
  imports.name('d').name('append').u8(0x00).uleb(1);
  const predicateFn: number[] = [];
  const valueFn: number[] = [];
  const keyFn: number[][] = [];
  const recordFn: number[][] = [];
  let fn = 3;
  ecbs.forEach((e, i) => {
    if (e.predicate === undefined) return;
    imports.name('p').name(String(i)).u8(0x00).uleb(0);
    predicateFn[i] = fn++;
  });
  ecbs.forEach((e, i) => {
    if (e.aggregation?.value === undefined) return;
    imports.name('v').name(String(i)).u8(0x00).uleb(0);
    valueFn[i] = fn++;
  });
  const incrementFn: number[] = [];
  ecbs.forEach((e, i) => {
    if (e.aggregation?.increment === undefined) return;
    imports.name('n').name(String(i)).u8(0x00).uleb(0);
    incrementFn[i] = fn++;
  });
  ecbs.forEach((e, i) => {
    keyFn[i] = [];
    e.aggregation?.keyed?.keys.forEach((_k, j) => {
      imports.name('k').name(`${i}.${j}`).u8(0x00).uleb(0);
      keyFn[i]![j] = fn++;
    });
  });
  ecbs.forEach((e, i) => {
    recordFn[i] = [];
    e.records?.forEach((r, j) => {
      if (r.value === undefined) return;
      imports.name('r').name(`${i}.${j}`).u8(0x00).uleb(0);
      recordFn[i]![j] = fn++;
    });
  });
  if (epids) ecbs.forEach((_e, i) => imports.name('g').name(String(i)).u8(0x03, F64, 0x00));
  // The epid global of each ECB with records, after the f64 ones.
  const epidGlobal: number[] = [];
  let g = epids ? ecbs.length : 0;
  ecbs.forEach((e, i) => {
    if (e.records === undefined) return;
    imports.name('e').name(String(i)).u8(0x03, I32, 0x00);
    epidGlobal[i] = g++;
  });
  m.section(2, imports);
  m.section(3, new Bytes().uleb(1).uleb(1));
  // The aggregation globals, after the imported epids: o, k (i32) of each such ECB.
  const cellGlobal: number[] = [];
  const globals = new Bytes();
  let nglobals = 0;
  ecbs.forEach((e, i) => {
    if (e.aggregation === undefined || e.aggregation.keyed !== undefined) return;
    cellGlobal[i] = g;
    g += 2;
    nglobals += 2;
    globals.u8(I32, 0x01, OP.i32_const, 0x00, OP.end);
    globals.u8(I32, 0x01, OP.i32_const, 0x00, OP.end);
  });
  if (nglobals > 0) m.section(6, new Bytes().uleb(nglobals).u8(...globals.b));
  const F_PREPARE = 0, F_STEPS = 1, F_APPEND = 2;
  const exports = new Bytes().uleb(1 + nglobals).name('fire').u8(0x00).uleb(fn);
  ecbs.forEach((e, i) => {
    if (e.aggregation === undefined || e.aggregation.keyed !== undefined) return;
    ['o', 'k'].forEach((x, j) => exports.name(x + String(i)).u8(0x03).uleb(cellGlobal[i]! + j));
  });
  m.section(7, exports);
  const c = new Code();
  // Locals: (from) TMP CELL CUR, a keyed lookup's SAVED BASE MASK IDX, its hash H and keys K0 ..., then a record chunk's DESC TAIL AT.
  const TMP = 1, CELL = 2, CUR = 3, SAVED = 4, BASE = 5, MASK = 6, IDX = 7, H = 8, K0 = 9;
  const DESC = K0 + maxKeys, TAIL = DESC + 1, AT = DESC + 2;
  // Then stddev's square's four i64 locals (AggregationLocals.SQ), and a lookup by string keys' two i32 ones.
  const L: AggregationLocals = { TMP, CELL, CUR, BASE, MASK, IDX, H, K0, SQ: DESC + 3, I: DESC + 7, P: DESC + 8 };
  c.uleb(8).uleb(1).u8(I64).uleb(1).u8(I32).uleb(1).u8(I64).uleb(4).u8(I32).uleb(1 + maxKeys).u8(I64).uleb(3).u8(I32).uleb(4).u8(I64).uleb(2).u8(I32);
  const anyValue = values > 0 || incrementFns > 0 || keyFns > 0 || recordFns > 0;
  ecbs.forEach((e, i) => {
    c.block('next');
    c.get(0).i32(i).u8(OP.i32_gt_u).brIf('next');
    c.i32(0).i32(i).mem(OP.i32_store, 2, B_ECB);
    if (anyValue) c.i32(0).i32(0).mem(OP.i32_store, 2, B_NDX);
    if (epids) c.i32(0).u8(OP.global_get).uleb(i).mem(OP.f64_store, 3, B_NUMBERS);
    let mode = e.interpreted ? STEPS_WHOLE : STEPS_FRESH;
    const p = e.predicate;
    if (p !== undefined) {
      if (p.callsOut) {
        c.i32(i).u8(OP.call).uleb(F_PREPARE);
        mode = STEPS_PREPARED;
      }
      c.i32(0).i32(p.id).mem(OP.i32_store, 2, B_PREDICATE);
      c.u8(OP.call).uleb(predicateFn[i]!);
      c.i32(0).i32(0).mem(OP.i32_store, 2, B_PREDICATE);
      c.u8(OP.i64_eqz).brIf('next');
    }
    const agg = e.aggregation;
    if (agg !== undefined) {
      const o = cellGlobal[i]!, k = o + 1;
      const gget = (x: number): Code => c.u8(OP.global_get).uleb(x);
      const keyed = agg.keyed;
      // Keys that call out (execname, a string a subroutine makes) run in the ECB's firing context, made here
      // unless the predicate's made it (see the top).
      const prepareKeys = keyed !== undefined && mode === STEPS_FRESH && keyed.keys.some((key) => key.value.callsOut);
      if (prepareKeys) c.i32(i).u8(OP.call).uleb(F_PREPARE);
      if (keyed !== undefined) {
        c.i32(0).mem(OP.i32_load, 2, B_COUNT).set(SAVED);
        keyedLookup(c, keyed, L, (j) => {
          c.i32(0).i32(keyed.keys[j]!.ndx).mem(OP.i32_store, 2, B_NDX);
          c.u8(OP.call).uleb(keyFn[i]![j]!);
        });
      } else {
        gget(o).u8(OP.local_tee).uleb(CELL).if_();
        // The instructions the keys' DIF counts at each firing, then the value's own.
        c.i32(0).i32(0).mem(OP.i32_load, 2, B_COUNT);
        gget(k).u8(OP.i32_add).mem(OP.i32_store, 2, B_COUNT);
      }
      if (agg.value !== undefined) {
        c.i32(0).i32(agg.ndx).mem(OP.i32_store, 2, B_NDX);
        c.u8(OP.call).uleb(valueFn[i]!).set(TMP);
      }
      // The increment (after the value, as the interpreter evaluates them).
      const increment = agg.increment;
      aggregationUpdate(c, agg, L, increment === undefined ? undefined : () => {
        c.i32(0).i32(increment.ndx).mem(OP.i32_store, 2, B_NDX);
        c.u8(OP.call).uleb(incrementFn[i]!);
      });
      c.br('next');
      c.end();
      // Not found: the JavaScript evaluates the keys again, and counts their instructions; in a firing
      // context made again, so that the keys' scratch is not taken twice.
      if (keyed !== undefined) c.i32(0).get(SAVED).mem(OP.i32_store, 2, B_COUNT);
      if (prepareKeys) {
        c.i32(i).u8(OP.call).uleb(F_PREPARE);
        mode = STEPS_PREPARED;
      }
    }
    if (e.records !== undefined) {
      const size = e.size!;
      const stamped = e.headerSize! >= 12;
      // at = tail + size <= limit ? base + tail : B_STAGE
      c.i32(0).mem(OP.i32_load, 2, B_BUFFER).u8(OP.local_tee).uleb(DESC);
      c.mem(OP.i32_load, 2, D_TAIL).u8(OP.local_tee).uleb(TAIL).i32(size).u8(OP.i32_add);
      c.get(DESC).mem(OP.i32_load, 2, D_LIMIT).u8(OP.i32_gt_u);
      c.if_(I32).i32(B_STAGE).else_().get(DESC).mem(OP.i32_load, 2, D_BASE).get(TAIL).u8(OP.i32_add).end().set(AT);
      // The header: the epid, then the timestamp's high word and its low word.
      c.get(AT).u8(OP.global_get).uleb(epidGlobal[i]!).mem(OP.i32_store, 0, 0);
      const covered: [number, number][] = [[0, 4]];
      if (stamped) {
        c.get(AT).i32(0).mem(OP.i64_load, 3, B_TIMESTAMP).i64(32).u8(OP.i64_shr_u).mem(OP.i64_store32, 0, 4);
        c.get(AT).i32(0).mem(OP.i64_load, 3, B_TIMESTAMP).mem(OP.i64_store32, 0, 8);
        covered.push([4, 12]);
      }
      for (const r of e.records) covered.push([r.offset, r.offset + r.size]);
      // The bytes no record covers are zero, as in a chunk the firing plan fills.
      for (const [from, to] of gaps(covered, size)) {
        for (let at = from; at < to; ) {
          const n = to - at >= 8 ? 8 : to - at >= 4 ? 4 : to - at >= 2 ? 2 : 1;
          c.get(AT).i64(0).mem(n === 8 ? OP.i64_store : n === 4 ? OP.i64_store32 : n === 2 ? OP.i64_store16 : OP.i64_store8, 0, at);
          at += n;
        }
      }
      e.records.forEach((r, j) => {
        c.get(AT);
        if (r.value !== undefined) {
          c.i32(0).i32(r.ndx).mem(OP.i32_store, 2, B_NDX);
          c.u8(OP.call).uleb(recordFn[i]![j]!);
        } else c.i64(r.constant);
        const store = r.size === 1 ? OP.i64_store8 : r.size === 2 ? OP.i64_store16 : r.size === 4 ? OP.i64_store32 : OP.i64_store;
        c.mem(store, 0, r.offset);
      });
      c.get(AT).i32(B_STAGE).u8(OP.i32_eq);
      c.if_().i32(i).u8(OP.call).uleb(F_APPEND);
      c.else_().get(DESC).get(TAIL).i32(size).u8(OP.i32_add).mem(OP.i32_store, 2, D_TAIL).end();
      c.end();
      return;
    }
    c.i32(i).i32(mode).u8(OP.call).uleb(F_STEPS).u8(OP.i32_eqz).if_().u8(OP.return).end();
    c.end();
  });
  c.u8(OP.end);
  m.section(10, new Bytes().uleb(1).bytes(c));
  return Uint8Array.from(m.b);
}

/** The locals an aggregation's update uses (i64: TMP CUR H K0...; i32: CELL BASE MASK IDX), in a trampoline or a filter (filter.ts). */
export interface AggregationLocals {
  /** Two i32 locals a lookup by string keys uses (a caller that takes none may leave them out). */
  readonly I?: number;
  readonly P?: number;
  readonly TMP: number;
  readonly CELL: number;
  readonly CUR: number;
  readonly BASE: number;
  readonly MASK: number;
  readonly IDX: number;
  readonly H: number;
  readonly K0: number;
  /** stddev()'s square: the first of four i64 locals (a caller that takes no stddev() may leave it out). */
  readonly SQ?: number;
}

/**
 * A keyed aggregation's lookup (see the top): evaluates the keys (`key(j)`
 * pushes key j's value) into K0..., hashes them and probes the table's
 * slots from the one the hash names on. Leaves a block `miss` open, which
 * a free slot branches out of, and so does a string key whose value is
 * not in the arena (a guest string: the JavaScript keys by it); inside it,
 * CELL holds the found entry's cell. The caller closes the block.
 *
 * A string key's K holds where its bytes are in the shared memory (low 32
 * bits) and how many it keys by (high 32): up to the NUL, at most its
 * limit and the arena's end. Its hash takes each byte as KEY_HASH does
 * (aggtable.ts); it matches a slot whose field holds those bytes and a
 * zero after them.
 */
export function keyedLookup(c: Code, keyed: TrampolineKeys, L: AggregationLocals, key: (j: number) => void): void {
  const { CELL, BASE, MASK, IDX, H, K0, I, P } = L;
  const offset = (j: number): number => keyed.offsets?.[j] ?? 8 * j;
  const strings = keyed.keys.some((k) => k.limit !== undefined);
  if (strings && (keyed.arena === undefined || I === undefined || P === undefined)) throw new Error('a lookup by string keys needs the arena and two i32 locals');
  c.block('miss');
  keyed.keys.forEach((k, j) => {
    key(j);
    if (k.limit === undefined) {
      c.set(K0 + j);
      return;
    }
    const arena = keyed.arena!;
    // The offset in the arena (an address outside it: the JavaScript's), then where that is in the memory.
    c.i64(ARENA_BASE).u8(OP.i64_sub).u8(OP.local_tee).uleb(K0 + j).i64(arena.size).u8(OP.i64_ge_u).brIf('miss');
    c.get(K0 + j).u8(OP.i32_wrap_i64).i32(arena.start).u8(OP.i32_add).set(P!);
    // Its length: up to the NUL, at most the limit and what is left of the arena.
    c.i32(arena.size).get(K0 + j).u8(OP.i32_wrap_i64).u8(OP.i32_sub).u8(OP.local_tee).uleb(I!);
    c.get(I!).i32(k.limit).get(I!).i32(k.limit).u8(OP.i32_lt_u).u8(OP.select).set(IDX);
    c.i32(0).set(I!);
    c.block('counted').loop('count');
    c.get(I!).get(IDX).u8(OP.i32_ge_u).brIf('counted');
    c.get(P!).get(I!).u8(OP.i32_add).mem(OP.i32_load8_u, 0, 0).u8(OP.i32_eqz).brIf('counted');
    c.get(I!).i32(1).u8(OP.i32_add).set(I!);
    c.br('count');
    c.end().end();
    c.get(I!).u8(OP.i64_extend_i32_u).i64(32).u8(OP.i64_shl).get(P!).u8(OP.i64_extend_i32_u).u8(OP.i64_or).set(K0 + j);
  });
  c.i64(0).set(H);
  keyed.keys.forEach((k, j) => {
    if (k.limit === undefined) {
      c.get(H).get(K0 + j).u8(OP.i64_xor).i64(KEY_HASH_MULTIPLIER).u8(OP.i64_mul).set(H);
    } else {
      // h = (h ^ byte) * KEY_HASH_MULTIPLIER for each byte.
      c.get(K0 + j).u8(OP.i32_wrap_i64).set(P!);
      c.get(K0 + j).i64(32).u8(OP.i64_shr_u, OP.i32_wrap_i64).set(IDX);
      c.i32(0).set(I!);
      c.block('hashed').loop('hash');
      c.get(I!).get(IDX).u8(OP.i32_ge_u).brIf('hashed');
      c.get(H).get(P!).get(I!).u8(OP.i32_add).mem(OP.i32_load8_u, 0, 0).u8(OP.i64_extend_i32_u, OP.i64_xor).i64(KEY_HASH_MULTIPLIER).u8(OP.i64_mul).set(H);
      c.get(I!).i32(1).u8(OP.i32_add).set(I!);
      c.br('hash');
      c.end().end();
    }
    c.get(H).get(H).i64(32).u8(OP.i64_shr_u, OP.i64_xor).set(H);
  });
  c.i32(0).mem(OP.i32_load, 2, keyed.descriptor).set(BASE);
  c.i32(0).mem(OP.i32_load, 2, keyed.descriptor + 4).u8(OP.local_tee).uleb(MASK);
  c.get(H).u8(OP.i32_wrap_i64, OP.i32_and).set(IDX);
  c.block('hit').loop('probe');
  c.get(BASE).get(IDX).i32(keyed.slotSize).u8(OP.i32_mul, OP.i32_add).u8(OP.local_tee).uleb(CELL);
  c.mem(OP.i32_load, 2, 0).u8(OP.i32_eqz).brIf('miss');
  c.block('differ');
  keyed.keys.forEach((k, j) => {
    const field = SLOT_KEYS + offset(j);
    if (k.limit === undefined) {
      c.get(CELL).mem(OP.i64_load, 3, field).get(K0 + j).u8(OP.i64_ne).brIf('differ');
      return;
    }
    // Its bytes, then the zero after them (the field is longer than the limit).
    c.get(K0 + j).u8(OP.i32_wrap_i64).set(P!);
    c.i32(0).set(I!);
    c.block('same').loop('bytes');
    c.get(I!).get(K0 + j).i64(32).u8(OP.i64_shr_u, OP.i32_wrap_i64).u8(OP.i32_ge_u).brIf('same');
    c.get(P!).get(I!).u8(OP.i32_add).mem(OP.i32_load8_u, 0, 0);
    c.get(CELL).get(I!).u8(OP.i32_add).mem(OP.i32_load8_u, 0, field).u8(OP.i32_ne).brIf('differ');
    c.get(I!).i32(1).u8(OP.i32_add).set(I!);
    c.br('bytes');
    c.end().end();
    c.get(CELL).get(I!).u8(OP.i32_add).mem(OP.i32_load8_u, 0, field).brIf('differ');
  });
  c.br('hit');
  c.end();
  c.get(IDX).i32(1).u8(OP.i32_add).get(MASK).u8(OP.i32_and).set(IDX);
  c.br('probe');
  c.end().end();
  // Found: its cell, after the keys.
  c.get(CELL).i32(SLOT_KEYS + (keyed.keysSize ?? 8 * keyed.keys.length)).u8(OP.i32_add).set(CELL);
}

/**
 * An aggregation's update of the cell at CELL by the value in TMP (see the
 * top); `increment` pushes a histogram's increment (none: 1).
 */
export function aggregationUpdate(c: Code, agg: Pick<TrampolineAggregation, 'fn' | 'linear' | 'logLinear'>, L: AggregationLocals, increment: (() => void) | undefined): void {
  const { TMP, CELL, CUR, IDX } = L;
  /** cell[word] = (what `value` leaves on the stack, given cell[word] pushed). */
  const update = (word: number, value: (c: Code) => void): void => {
    c.get(CELL).get(CELL).mem(OP.i64_load, 3, 8 * word);
    value(c);
    c.mem(OP.i64_store, 3, 8 * word);
  };
  switch (agg.fn) {
    case 'count':
      update(0, (c) => c.i64(1).u8(OP.i64_add));
      break;
    case 'sum':
      update(0, (c) => c.get(TMP).u8(OP.i64_add));
      break;
    case 'min':
    case 'max':
      // cell = value < cell ? value : cell (max: >), the current word kept in TMP's place on the stack.
      update(0, (c) => c.set(CUR).get(TMP).get(CUR).get(TMP).get(CUR).u8(agg.fn === 'min' ? OP.i64_lt_s : OP.i64_gt_s, OP.select));
      break;
    case 'avg':
      update(0, (c) => c.i64(1).u8(OP.i64_add));
      update(1, (c) => c.get(TMP).u8(OP.i64_add));
      break;
    case 'stddev': {
      // dtrace_aggregate_stddev: the count, the sum, and the 128-bit sum of squares (low word, high word).
      const AH = L.SQ!, AL = AH + 1, LOW = AH + 2, HIGH = AH + 3;
      update(0, (c) => c.i64(1).u8(OP.i64_add));
      update(1, (c) => c.get(TMP).u8(OP.i64_add));
      // |v| as a uint64_t (INT64_MIN's is 2^63), in 32-bit halves: v*v = AH*AH << 64 + AH*AL << 33 + AL*AL.
      c.i64(0).get(TMP).u8(OP.i64_sub).get(TMP).get(TMP).i64(0).u8(OP.i64_lt_s, OP.select).set(CUR);
      c.get(CUR).i64(32).u8(OP.i64_shr_u).set(AH);
      c.get(CUR).i64(0xffffffffn).u8(OP.i64_and).set(AL);
      c.get(AH).get(AL).u8(OP.i64_mul).set(CUR);
      c.get(AH).get(AH).u8(OP.i64_mul).get(CUR).i64(31).u8(OP.i64_shr_u, OP.i64_add).set(HIGH);
      c.get(AL).get(AL).u8(OP.i64_mul).set(AL);
      c.get(AL).get(CUR).i64(33).u8(OP.i64_shl, OP.i64_add).set(LOW);
      // The carry out of the low word's addition, into the high word.
      c.get(HIGH).get(LOW).get(AL).u8(OP.i64_lt_u, OP.i64_extend_i32_u, OP.i64_add).set(HIGH);
      // Into the cell's words 2 and 3, with the carry out of word 2, and word 3's carry into word 4 (the
      // data's high word is not bounded to 64 bits: many squares since the last snapshot may pass 2^128).
      update(2, (c) => c.get(LOW).u8(OP.i64_add));
      c.get(HIGH).get(CELL).mem(OP.i64_load, 3, 16).get(LOW).u8(OP.i64_lt_u, OP.i64_extend_i32_u, OP.i64_add).set(HIGH);
      update(3, (c) => c.get(HIGH).u8(OP.i64_add));
      update(4, (c) => c.get(CELL).mem(OP.i64_load, 3, 24).get(HIGH).u8(OP.i64_lt_u, OP.i64_extend_i32_u, OP.i64_add));
      break;
    }
    case 'quantize':
    case 'lquantize':
    case 'llquantize': {
      // The increment, then the bucket's word of the cell, as the data's.
      if (increment !== undefined) increment();
      else c.i64(1);
      c.set(CUR);
      c.block('bucket');
      if (agg.fn === 'quantize') {
        // dtrace_aggregate_quantize: 0 in the zero bucket (63); v > 0 in 64 + log2(v) = 127 - clz(v);
        // v < 0 in 62 - min(log2(-v), 62) = max(clz(-v) - 1, 0) (-INT64_MIN's clz is 0).
        c.i32(63).set(IDX).get(TMP).u8(OP.i64_eqz).brIf('bucket');
        c.get(TMP).i64(0).u8(OP.i64_gt_s).if_();
        c.i32(127).get(TMP).u8(OP.i64_clz, OP.i32_wrap_i64, OP.i32_sub).set(IDX);
        c.else_();
        c.i64(0).get(TMP).u8(OP.i64_sub, OP.i64_clz, OP.i32_wrap_i64).set(IDX);
        c.i32(0).get(IDX).i32(1).u8(OP.i32_sub).get(IDX).u8(OP.i32_eqz, OP.select).set(IDX);
        c.end();
      } else if (agg.fn === 'lquantize') {
        // dtrace_aggregate_lquantize: word 1 below base, word levels + 2 at or above the limit, else 2 + (v - base) / step.
        const l = agg.linear!;
        c.i32(1).set(IDX).get(TMP).i64(l.base).u8(OP.i64_lt_s).brIf('bucket');
        c.i32(l.levels + 2).set(IDX).get(TMP).i64(l.limit).u8(OP.i64_ge_s).brIf('bucket');
        c.get(TMP).i64(l.base).u8(OP.i64_sub).i64(l.step).u8(OP.i64_div_s, OP.i32_wrap_i64).i32(2).u8(OP.i32_add).set(IDX);
      } else {
        // dtrace_aggregate_llquantize: word 1 + the first bucket whose bound the value is below (or 1 + the
        // bounds' count), found by a binary search over the bounds, constants of the code.
        const bounds = agg.logLinear!;
        const search = (lo: number, hi: number): void => {
          if (lo === hi) {
            c.i32(1 + lo).set(IDX);
            return;
          }
          const mid = (lo + hi) >> 1;
          c.get(TMP).i64(bounds[mid]!).u8(OP.i64_lt_s).if_();
          search(lo, mid);
          c.else_();
          search(mid + 1, hi);
          c.end();
        };
        search(0, bounds.length);
      }
      c.end();
      c.get(CELL).get(IDX).i32(3).u8(OP.i32_shl, OP.i32_add).set(CELL);
      update(0, (c) => c.get(CUR).u8(OP.i64_add));
      break;
    }
  }
}

/** The extents of [0, size) that none of `covered` ([from, to) each) covers. */
function gaps(covered: readonly [number, number][], size: number): [number, number][] {
  const sorted = [...covered].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let at = 0;
  for (const [from, to] of sorted) {
    if (from > at) out.push([at, from]);
    if (to > at) at = to;
  }
  if (at < size) out.push([at, size]);
  return out;
}

/**
 * The trampoline of a probe's ECBs, or undefined when there is no
 * WebAssembly or its module would exceed MODULE_LIMIT. `epids`: whether a
 * predicate reads the block's epid (or id or cpu), which it then writes per ECB.
 */
export function trampoline(ecbs: readonly TrampolineEcb[], epids: boolean, hooks: TrampolineHooks): Trampoline | undefined {
  if (typeof WebAssembly === 'undefined') return undefined;
  const bytes = trampolineBytes(ecbs, epids);
  if (bytes.length > MODULE_LIMIT) return undefined;
  const p: WebAssembly.ModuleImports = {};
  const v: WebAssembly.ModuleImports = {};
  const k: WebAssembly.ModuleImports = {};
  const n: WebAssembly.ModuleImports = {};
  const r: WebAssembly.ModuleImports = {};
  const g: WebAssembly.ModuleImports = {};
  const ep: WebAssembly.ModuleImports = {};
  ecbs.forEach((e, i) => {
    if (e.records !== undefined) ep[String(i)] = new WebAssembly.Global({ value: 'i32', mutable: false }, e.epid);
    if (e.predicate !== undefined) p[String(i)] = e.predicate.exported;
    if (e.aggregation?.value !== undefined) v[String(i)] = e.aggregation.value.exported;
    if (e.aggregation?.increment !== undefined) n[String(i)] = e.aggregation.increment.value.exported;
    e.aggregation?.keyed?.keys.forEach((key, j) => (k[`${i}.${j}`] = key.value.exported));
    e.records?.forEach((rec, j) => {
      if (rec.value !== undefined) r[`${i}.${j}`] = rec.value.exported;
    });
    if (epids) g[String(i)] = new WebAssembly.Global({ value: 'f64', mutable: false }, e.epid);
  });
  const imports: WebAssembly.Imports = {
    d: { m: sharedBlock().memory, prepare: hooks.prepare, steps: hooks.steps, append: hooks.append },
    p,
    v,
    n,
    k,
    r,
    e: ep,
  };
  if (epids) imports['g'] = g;
  const instance = new WebAssembly.Instance(compiledModule(bytes), imports);
  const x = instance.exports;
  const cells = new Map<number, TrampolineCell>();
  ecbs.forEach((e, i) => {
    if (e.aggregation === undefined || e.aggregation.keyed !== undefined) return;
    const global = (name: string): WebAssembly.Global => x[name + String(i)] as WebAssembly.Global;
    cells.set(i, { fn: e.aggregation.fn, armed: global('o'), instructions: global('k') });
  });
  return { fire: x['fire'] as TrampolineFire, cells };
}

/**
 * Where the running trampoline was when a fault unwound out of it: the ECB's
 * index and the action's index + 1 (0: its predicate). Clears the running
 * predicate.
 */
export function trampolineFault(): { ecb: number; ndx: number } {
  const b = sharedBlock().i32;
  b[B_PREDICATE >> 2] = 0;
  const ndx = b[B_NDX >> 2]!;
  b[B_NDX >> 2] = 0;
  return { ecb: b[B_ECB >> 2]!, ndx };
}
