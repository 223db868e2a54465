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
// sum(), min(), max() or avg() of an aggregation with no key or keys the
// same at every firing of the probe (`@ = count()`, `@[probefunc] =
// sum(arg0)`), whose value DIF is translated and calls nothing out, is
// updated by the trampoline itself once the firing plan has found its
// entry: the module's global o<i> holds the address of the entry's cell
// in the shared memory (0: disarmed), k<i> the instructions the keys' DIF
// counted, as each firing counts them. The cell (see allocateCell) holds
// what the firings since added (count, sum, min or max; avg's count and
// sum): the entry's data still to be taken in, which the entry folds in
// when it is read and when the aggregation is snapshot (state.ts).
// Disarmed, the ECB's actions run in JavaScript, which arms it:
//
//     o<i> ? (count += k<i>; cell op= value()) : steps(i, mode)
//
// Keyed aggregations in the trampoline: an ECB whose one action is such
// an aggregation by integer keys whose DIF is translated and calls nothing
// out (`@[arg0] = count()`, `@[pid, arg1] = sum(arg2)`) evaluates its keys
// itself, hashes them and looks their entry up in the aggregation's table
// in the shared memory (aggtable.ts); found, it updates the entry's cell
// there. Not found, the count of the keys' instructions is taken back and
// the ECB's actions run in JavaScript, which make the entry as the
// interpreter does (aggsize, drops, the order of entries) and put it in
// the table:
//
//     keys = key_j(); slot = find(table, keys)
//     slot ? (cell(slot) op= value()) : (count = before keys; steps(i, mode))
//
// Records in the trampoline: an ECB whose actions only record integers
// (trace(arg0), printf's integer arguments, trace(timestamp) ...) from
// translated DIF that calls nothing out, or constants, has its records
// written by the trampoline, with i64 stores of the record's size at the
// offsets the program gives, into the record stage of the shared memory
// (B_STAGE); `append(i)` then copies them into the CPU's buffer with the
// header, as the firing plan's own records are appended:
//
//     stage[offset_j] = record_j(); append(i)
//
// The firing block (wasm.ts) is filled once per firing with the union of
// what the predicates read; a fault in a predicate unwinds through the
// trampoline to its JavaScript entry (state.ts), which reads B_ECB, fires
// ERROR and calls `fire` again from the next ECB. Anything the trampoline
// cannot take (no WebAssembly, a module over MODULE_LIMIT) leaves the probe
// to the JavaScript loop over its plan.

import { B_COUNT, B_ECB, B_NDX, B_NUMBERS, B_PREDICATE, B_STAGE, MODULE_LIMIT, compiledModule, sharedBlock, type WasmDifo } from './wasm.js';
import { Bytes, Code, F64, I32, I64, OP } from './wasm-encoding.js';

/** How `steps(i, mode)` finds ECB i's firing context. */
export const STEPS_FRESH = 0;
/** prepare(i) made it before the predicate ran. */
export const STEPS_PREPARED = 1;
/** Its predicate is the interpreter's: steps runs the whole ECB. */
export const STEPS_WHOLE = 2;

/** The aggregating functions a trampoline updates (see the top). */
export type CellFunction = 'count' | 'sum' | 'min' | 'max' | 'avg';

/** One ECB as the trampoline sees it. */
export interface TrampolineEcb {
  readonly epid: number;
  /** Its predicate translated, or none (no predicate, or one left to the interpreter: `interpreted`). */
  readonly predicate: WasmDifo | undefined;
  readonly interpreted: boolean;
  /** The aggregation it updates itself: its function, its value's DIF (none for count()), the action's index + 1. */
  readonly aggregation?: { readonly fn: CellFunction; readonly value: WasmDifo | undefined; readonly ndx: number; readonly keyed?: TrampolineKeys | undefined } | undefined;
  /** The records it writes itself (see the top), in the actions' order. */
  readonly records?: readonly TrampolineRecord[] | undefined;
}

/** KEY_HASH's multiplier (2^64 / the golden ratio): see aggtable.ts. */
export const KEY_HASH_MULTIPLIER = 0x9e3779b97f4a7c15n;
/** Bytes of a keyed table's slot before its keys: its tag and padding. */
export const SLOT_KEYS = 8;

/** The integer keys of an aggregation the trampoline finds in its table (see the top and aggtable.ts). */
export interface TrampolineKeys {
  /** Each key's DIF and its action's index + 1, which a fault in it is reported against. */
  readonly keys: readonly { readonly value: WasmDifo; readonly ndx: number }[];
  /** The table's descriptor address and its slots' size. */
  readonly descriptor: number;
  readonly slotSize: number;
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
  readonly fn: CellFunction;
  /** o<i>: the address of the cell the trampoline updates, 0 while disarmed. */
  readonly armed: WebAssembly.Global;
  readonly instructions: WebAssembly.Global;
}

/** What a cell's first word holds when nothing was added: min's and max's identities. */
export const cellStart = (fn: CellFunction): bigint => (fn === 'min' ? 0x7fffffffffffffffn : fn === 'max' ? -0x8000000000000000n : 0n);

export interface TrampolineHooks {
  /** Sets up ECB i's firing context before its predicate calls out. */
  prepare(i: number): void;
  /** Runs ECB i's actions (and with STEPS_WHOLE its predicate); returns 0 when the probe's later ECBs must not run. */
  steps(i: number, mode: number): number;
  /** Appends the records ECB i wrote in the stage to the CPU's buffer, with its header. */
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
 * predicate, v.<i> for each aggregation's value DIF, k.<i>.<j> for each
 * key DIF of a keyed aggregation, r.<i>.<j> for each
 * record's DIF, and, with `epids`, g.<i>, each ECB's epid as an f64 global,
 * so that the probes of one program share one compiled module. It exports
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
  const keyFns = ecbs.reduce((n, e) => n + (e.aggregation?.keyed?.keys.length ?? 0), 0);
  const maxKeys = ecbs.reduce((n, e) => Math.max(n, e.aggregation?.keyed?.keys.length ?? 0), 0);
  const recordFns = ecbs.reduce((n, e) => n + (e.records?.filter((r) => r.value !== undefined).length ?? 0), 0);
  const imports = new Bytes().uleb(4 + predicates + values + keyFns + recordFns + (epids ? ecbs.length : 0));
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
  m.section(2, imports);
  m.section(3, new Bytes().uleb(1).uleb(1));
  // The aggregation globals, after the imported epids: o, k (i32) of each such ECB.
  const cellGlobal: number[] = [];
  const globals = new Bytes();
  let nglobals = 0;
  let g = epids ? ecbs.length : 0;
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
  // Locals: (from) TMP CELL CUR, and a keyed lookup's SAVED BASE MASK IDX, its hash H and keys K0 ...
  const TMP = 1, CELL = 2, CUR = 3, SAVED = 4, BASE = 5, MASK = 6, IDX = 7, H = 8, K0 = 9;
  c.uleb(5).uleb(1).u8(I64).uleb(1).u8(I32).uleb(1).u8(I64).uleb(4).u8(I32).uleb(1 + maxKeys).u8(I64);
  const anyValue = values > 0 || keyFns > 0 || recordFns > 0;
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
      /** cell[word] = (what `value` leaves on the stack, given cell[word] pushed). */
      const update = (word: number, value: (c: Code) => void): void => {
        c.get(CELL).get(CELL).mem(OP.i64_load, 3, 8 * word);
        value(c);
        c.mem(OP.i64_store, 3, 8 * word);
      };
      const keyed = agg.keyed;
      if (keyed !== undefined) {
        // The keys, their hash, and the table's slots from the one the hash names on, until theirs or a free one.
        c.i32(0).mem(OP.i32_load, 2, B_COUNT).set(SAVED);
        keyed.keys.forEach((key, j) => {
          c.i32(0).i32(key.ndx).mem(OP.i32_store, 2, B_NDX);
          c.u8(OP.call).uleb(keyFn[i]![j]!).set(K0 + j);
        });
        c.i64(0).set(H);
        keyed.keys.forEach((_key, j) => {
          c.get(H).get(K0 + j).u8(OP.i64_xor).i64(KEY_HASH_MULTIPLIER).u8(OP.i64_mul).u8(OP.local_tee).uleb(H);
          c.get(H).i64(32).u8(OP.i64_shr_u, OP.i64_xor).set(H);
        });
        c.i32(0).mem(OP.i32_load, 2, keyed.descriptor).set(BASE);
        c.i32(0).mem(OP.i32_load, 2, keyed.descriptor + 4).u8(OP.local_tee).uleb(MASK);
        c.get(H).u8(OP.i32_wrap_i64, OP.i32_and).set(IDX);
        c.block('miss').block('hit').loop('probe');
        c.get(BASE).get(IDX).i32(keyed.slotSize).u8(OP.i32_mul, OP.i32_add).u8(OP.local_tee).uleb(CELL);
        c.mem(OP.i32_load, 2, 0).u8(OP.i32_eqz).brIf('miss');
        c.block('differ');
        keyed.keys.forEach((_key, j) => {
          c.get(CELL).mem(OP.i64_load, 3, SLOT_KEYS + 8 * j).get(K0 + j).u8(OP.i64_ne).brIf('differ');
        });
        c.br('hit');
        c.end();
        c.get(IDX).i32(1).u8(OP.i32_add).get(MASK).u8(OP.i32_and).set(IDX);
        c.br('probe');
        c.end().end();
        // Found: its cell, after the keys.
        c.get(CELL).i32(SLOT_KEYS + 8 * keyed.keys.length).u8(OP.i32_add).set(CELL);
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
      }
      c.br('next');
      c.end();
      // Not found: the JavaScript evaluates the keys again, and counts their instructions.
      if (keyed !== undefined) c.i32(0).get(SAVED).mem(OP.i32_store, 2, B_COUNT);
    }
    if (e.records !== undefined) {
      e.records.forEach((r, j) => {
        c.i32(0);
        if (r.value !== undefined) {
          c.i32(0).i32(r.ndx).mem(OP.i32_store, 2, B_NDX);
          c.u8(OP.call).uleb(recordFn[i]![j]!);
        } else c.i64(r.constant);
        const store = r.size === 1 ? OP.i64_store8 : r.size === 2 ? OP.i64_store16 : r.size === 4 ? OP.i64_store32 : OP.i64_store;
        c.mem(store, 0, B_STAGE + r.offset);
      });
      c.i32(i).u8(OP.call).uleb(F_APPEND);
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
  const r: WebAssembly.ModuleImports = {};
  const g: WebAssembly.ModuleImports = {};
  ecbs.forEach((e, i) => {
    if (e.predicate !== undefined) p[String(i)] = e.predicate.exported;
    if (e.aggregation?.value !== undefined) v[String(i)] = e.aggregation.value.exported;
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
    k,
    r,
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
