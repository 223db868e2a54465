// A probe's filter: the part of its firing that can run where the probe
// site is, inside another WebAssembly module (a CPU core), with no call into
// JavaScript. As DTrace on BPF attaches a probe's program to the probe site,
// a provider whose site is trapped in a core can hand the core this function,
// and the core calls it before it leaves for the host's trap path:
//
//   filter(cpu i32, a0 i64, a1 i64, a2 i64, a3 i64) -> i32
//     0: the firing is done: every ECB's predicate was false, or the filter
//        did what each ECB whose predicate passed does (below); the core
//        goes on by itself;
//     1: anything else (a predicate passed whose actions it cannot do, an
//        aggregation entry it does not find, the state is not active, the
//        probe's plan changed since the filter was made): the caller takes
//        the full path, which evaluates everything again.
//
// A filter exists only for a probe each of whose ECBs has a predicate that
// is translated (wasm.ts), pure (no call-out to JavaScript, no guest load,
// no variable, no division, so it can neither fault nor change anything)
// and reads of the firing block only args[0..3] and the identifiers (epid,
// id, cpu), or no predicate; and an ECB without a predicate must be one
// the filter runs whole: its one action an aggregation the probe's
// trampoline updates (trampoline.ts) in a cell (no key, or keys the same at
// every firing) or in a keyed table by integer keys, whose keys, value and
// increment are pure as a predicate is, and no data stored. The filter
// runs in two passes so that answering 1 comes before any side effect:
//
//   pass 1, for each ECB: its predicate (none: true); passed, a pure ECB
//     answers 1, an aggregating one finds its cell: the trampoline's o<i>
//     (0: disarmed, answer 1), or its keys' slot in the keyed table (a
//     miss: answer 1, the JavaScript makes the entry), kept in a local;
//   pass 2, for each ECB whose predicate passed: its value and increment,
//     and the cell's update, as the trampoline makes them.
//
// Running pure DIF twice is the same as running it once, and nothing is
// written before pass 2, so answering 1 and letting the full path run
// everything again is exact; and pass 2 updates exactly the cells the
// trampoline would (entries the JavaScript made and armed), so a firing
// the filter finishes leaves what the full path leaves.
//
// Instruction counts: the DIF counts its instructions into the block's
// counter as every run does, and a cell adds its keys' count k<i> as the
// trampoline does; on 0 the filter adds the count to the state's counter
// `n` (an f64 global the state reads with its own count), so that the
// count is the full path's. On 1 it counts nothing: the full path counts
// that firing.
//
// The filter reads two i32 globals: `a`, the state's gate (1 only while the
// state is active and nothing else can make a firing do more than its
// predicates and aggregations), and its own `v`, which the state clears
// when the probe's plan changes; either 0 makes it answer 1.

import type { LoadedDifo } from './vm.js';
import { DIF_OP } from '../dif/opcodes.js';
import { DIF_VAR } from '../dif/constants.js';
import { B_ARGC, B_ARGS, B_COUNT, B_NUMBERS, MODULE_LIMIT, NEED_ARGS, NEED_IDS, compiledModule, sharedBlock, type WasmDifo } from './wasm.js';
import { Bytes, Code, F64, I32, I64, OP } from './wasm-encoding.js';
import { aggregationUpdate, keyedLookup, type AggregationLocals, type CellFunction, type HistogramFunction, type LinearParams, type TrampolineCell, type TrampolineKeys } from './trampoline.js';

/** The function a filter is: see the top. */
export type ProbeFilterFunction = (cpu: number, a0: bigint, a1: bigint, a2: bigint, a3: bigint) => number;

/** The highest argument a filter passes (a0..a3). */
export const FILTER_ARGS = 4;

/** One ECB as a filter runs it: its predicate (pure, see filterablePredicate, or none) and what it does whole. */
export interface FilterEcb {
  readonly epid: number;
  readonly predicate: LoadedDifo | undefined;
  readonly translated: WasmDifo | undefined;
  /** The aggregation the filter does when the predicate passes; none: it answers 1 then (the ECB must have a predicate). */
  readonly aggregation?: FilterAggregation | undefined;
}

/**
 * An aggregation a filter updates (see the top): its function, its value's
 * and increment's DIF (none for count(), and for an increment of 1), and
 * where its entry is: the cell the trampoline's globals arm (no key, or
 * probe-constant keys) or the keyed table its integer keys find it in.
 */
export interface FilterAggregation {
  readonly fn: CellFunction | HistogramFunction;
  readonly value: WasmDifo | undefined;
  readonly increment: WasmDifo | undefined;
  readonly linear: LinearParams | undefined;
  readonly cell?: TrampolineCell | undefined;
  readonly keyed?: TrampolineKeys | undefined;
}

/** A filter and what its state changes in it. */
export interface ProbeFilter {
  /** The exported WebAssembly function (what a core's table holds). */
  readonly fn: ProbeFilterFunction;
  /** Its `v` global: the state sets it to 0 when the probe's plan changes. */
  readonly valid: WebAssembly.Global;
}

/** What every filter of one state shares: the gate `a` and the instruction counter `n`. */
export interface FilterGlobals {
  readonly gate: WebAssembly.Global;
  readonly instructions: WebAssembly.Global;
}

export function filterGlobals(): FilterGlobals | undefined {
  if (typeof WebAssembly === 'undefined') return undefined;
  return {
    gate: new WebAssembly.Global({ value: 'i32', mutable: true }, 0),
    instructions: new WebAssembly.Global({ value: 'f64', mutable: true }, 0),
  };
}

/** The DIF a filter's predicate may hold: arithmetic without division, compares, branches, constants, and the builtins below. */
const PURE_OPS = new Set<number>([
  DIF_OP.OR, DIF_OP.XOR, DIF_OP.AND, DIF_OP.SLL, DIF_OP.SRL, DIF_OP.SRA, DIF_OP.SUB, DIF_OP.ADD, DIF_OP.MUL, DIF_OP.NOT, DIF_OP.MOV,
  DIF_OP.CMP, DIF_OP.TST, DIF_OP.BA, DIF_OP.BE, DIF_OP.BNE, DIF_OP.BG, DIF_OP.BGU, DIF_OP.BGE, DIF_OP.BGEU, DIF_OP.BL, DIF_OP.BLU,
  DIF_OP.BLE, DIF_OP.BLEU, DIF_OP.RET, DIF_OP.NOP, DIF_OP.SETX, DIF_OP.SETS,
]);
/** The builtins (ldgs) it may read: what the filter writes into the firing block. */
const FILTER_BUILTINS = new Set<number>([DIF_VAR.ARG0, DIF_VAR.ARG0 + 1, DIF_VAR.ARG0 + 2, DIF_VAR.ARG0 + 3, DIF_VAR.EPID, DIF_VAR.ID, DIF_VAR.CPU]);

/** Whether a translated predicate (or a key, value or increment) may run in a filter (see the top): checked on its DIF, instruction by instruction. */
export function filterablePredicate(ld: LoadedDifo, w: WasmDifo): boolean {
  if (w.callsOut) return false;
  const needs = w.needs;
  if ((needs & 0xff & ~(NEED_ARGS | NEED_IDS)) !== 0 || needs >>> 8 > FILTER_ARGS) return false;
  const text = ld.difo.buf;
  for (let pc = 0; pc < text.length; pc++) {
    const instr = text[pc]!;
    const op = instr >>> 24;
    if (op === DIF_OP.LDGS ? !FILTER_BUILTINS.has((instr >>> 8) & 0xffff) : !PURE_OPS.has(op)) return false;
  }
  return true;
}

const F64_CONVERT_I32_U = 0xb8, F64_ADD = 0xa0;

/** The DIF a filter's ECB runs: its predicate's, its aggregation's keys', value's and increment's. */
function difosOf(e: FilterEcb): WasmDifo[] {
  const out: WasmDifo[] = [];
  if (e.translated !== undefined) out.push(e.translated);
  const agg = e.aggregation;
  if (agg !== undefined) {
    for (const k of agg.keyed?.keys ?? []) out.push(k.value);
    if (agg.value !== undefined) out.push(agg.value);
    if (agg.increment !== undefined) out.push(agg.increment);
  }
  return out;
}

/**
 * The filter module's bytes for `ecbs` of probe `probeId`. Imports: d.m
 * (the shared memory), d.a (the gate), d.n (the counter), d.v (its valid
 * word), then p.<i>, each ECB's predicate, k.<i>.<j>, each key of a keyed
 * aggregation, v.<i>, each aggregation's value, n.<i>, each histogram's
 * increment, then the globals o.<i>, c.<i> of each cell (its address and
 * its keys' instructions); exports `filter`.
 */
export function filterBytes(probeId: number, ecbs: readonly FilterEcb[]): Uint8Array<ArrayBuffer> {
  let named = 0;
  let ids = false;
  let maxKeys = 0;
  for (const e of ecbs) {
    for (const w of difosOf(e)) {
      named = Math.max(named, w.needs >>> 8);
      if (w.needs & NEED_IDS) ids = true;
    }
    maxKeys = Math.max(maxKeys, e.aggregation?.keyed?.keys.length ?? 0);
  }
  const m = new Bytes().u8(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  const types = new Bytes().uleb(2);
  types.u8(0x60).uleb(0).uleb(1).u8(I64); // predicate, key, value: () -> i64
  types.u8(0x60).uleb(5).u8(I32, I64, I64, I64, I64).uleb(1).u8(I32); // filter
  m.section(1, types);
  const imports = new Bytes();
  let nimports = 4;
  imports.name('d').name('m').u8(0x02, 0x00).uleb(1);
  imports.name('d').name('a').u8(0x03, I32, 0x01);
  imports.name('d').name('n').u8(0x03, F64, 0x01);
  imports.name('d').name('v').u8(0x03, I32, 0x01);
  let fn = 0;
  const fnImport = (module: string, name: string): number => {
    imports.name(module).name(name).u8(0x00).uleb(0);
    nimports++;
    return fn++;
  };
  const predicateFn: number[] = [];
  const keyFn: number[][] = [];
  const valueFn: number[] = [];
  const incrementFn: number[] = [];
  ecbs.forEach((e, i) => {
    if (e.translated !== undefined) predicateFn[i] = fnImport('p', String(i));
  });
  ecbs.forEach((e, i) => {
    const agg = e.aggregation;
    keyFn[i] = (agg?.keyed?.keys ?? []).map((_k, j) => fnImport('k', `${i}.${j}`));
    if (agg?.value !== undefined) valueFn[i] = fnImport('v', String(i));
    if (agg?.increment !== undefined) incrementFn[i] = fnImport('n', String(i));
  });
  // The cells' globals, after d.a, d.n, d.v.
  const cellGlobal: number[] = [];
  let g = 3;
  ecbs.forEach((e, i) => {
    if (e.aggregation?.cell === undefined) return;
    imports.name('o').name(String(i)).u8(0x03, I32, 0x01);
    imports.name('c').name(String(i)).u8(0x03, I32, 0x01);
    nimports += 2;
    cellGlobal[i] = g;
    g += 2;
  });
  m.section(2, new Bytes().uleb(nimports).u8(...imports.b));
  m.section(3, new Bytes().uleb(1).uleb(1));
  m.section(7, new Bytes().uleb(1).name('filter').u8(0x00).uleb(fn));
  const G_GATE = 0, G_COUNT = 1, G_VALID = 2;
  // Locals: (cpu a0 a1 a2 a3) OUTER, the update's TMP CELL CUR BASE MASK IDX, H K0 ..., then each aggregating ECB's cell address.
  const CPU = 0, OUTER = 5, TMP = 6, CELL = 7, CUR = 8, BASE = 9, MASK = 10, IDX = 11, H = 12, K0 = 13;
  const L: AggregationLocals = { TMP, CELL, CUR, BASE, MASK, IDX, H, K0 };
  const target: number[] = [];
  let nt = 0;
  ecbs.forEach((e, i) => {
    if (e.aggregation !== undefined) target[i] = K0 + maxKeys + nt++;
  });
  const c = new Code();
  c.uleb(7).uleb(1).u8(I32).uleb(1).u8(I64).uleb(1).u8(I32).uleb(1).u8(I64).uleb(3).u8(I32).uleb(1 + maxKeys).u8(I64).uleb(nt).u8(I32);
  c.u8(OP.global_get).uleb(G_GATE).u8(OP.global_get).uleb(G_VALID).u8(OP.i32_and, OP.i32_eqz).if_().i32(1).u8(OP.return).end();
  c.i32(0).mem(OP.i32_load, 2, B_COUNT).set(OUTER);
  c.i32(0).i32(0).mem(OP.i32_store, 2, B_COUNT);
  if (named > 0) {
    // What fillFiringBlock writes for a provider that passes its arguments lazily: argc = the highest argN named.
    c.i32(0).i32(named).mem(OP.i32_store, 2, B_ARGC);
    for (let i = 0; i < named; i++) c.i32(0).get(1 + i).mem(OP.i64_store, 3, B_ARGS + 8 * i);
  }
  if (ids) {
    c.i32(0);
    f64(c, probeId);
    c.mem(OP.f64_store, 3, B_NUMBERS + 8);
    c.i32(0).get(CPU).u8(F64_CONVERT_I32_U).mem(OP.f64_store, 3, B_NUMBERS + 16);
  }
  const epid = (e: FilterEcb): void => {
    if (!ids) return;
    c.i32(0);
    f64(c, e.epid);
    c.mem(OP.f64_store, 3, B_NUMBERS);
  };
  c.block('decline');
  // Pass 1: the predicates, and the cell of each aggregation whose predicate passed.
  ecbs.forEach((e, i) => {
    c.block('next');
    epid(e);
    if (e.translated !== undefined) c.u8(OP.call).uleb(predicateFn[i]!).u8(OP.i64_eqz).brIf('next');
    const agg = e.aggregation;
    if (agg === undefined) c.br('decline');
    else if (agg.keyed !== undefined) {
      keyedLookup(c, agg.keyed, L, (j) => c.u8(OP.call).uleb(keyFn[i]![j]!));
      c.get(CELL).set(target[i]!).br('next');
      c.end();
      c.br('decline');
    } else {
      c.u8(OP.global_get).uleb(cellGlobal[i]!).u8(OP.local_tee).uleb(target[i]!).u8(OP.i32_eqz).brIf('decline');
    }
    c.end();
  });
  // Pass 2: each found cell's update.
  ecbs.forEach((e, i) => {
    const agg = e.aggregation;
    if (agg === undefined) return;
    c.block('skip');
    c.get(target[i]!).u8(OP.i32_eqz).brIf('skip');
    epid(e);
    if (agg.cell !== undefined) {
      // The instructions the keys' DIF counts at each firing.
      c.i32(0).i32(0).mem(OP.i32_load, 2, B_COUNT).u8(OP.global_get).uleb(cellGlobal[i]! + 1).u8(OP.i32_add).mem(OP.i32_store, 2, B_COUNT);
    }
    c.get(target[i]!).set(CELL);
    if (agg.value !== undefined) c.u8(OP.call).uleb(valueFn[i]!).set(TMP);
    aggregationUpdate(c, agg, L, agg.increment === undefined ? undefined : () => c.u8(OP.call).uleb(incrementFn[i]!));
    c.end();
  });
  // Done: the instructions into the state's count.
  c.u8(OP.global_get).uleb(G_COUNT).i32(0).mem(OP.i32_load, 2, B_COUNT).u8(F64_CONVERT_I32_U, F64_ADD, OP.global_set).uleb(G_COUNT);
  c.i32(0).get(OUTER).mem(OP.i32_store, 2, B_COUNT);
  c.i32(0).u8(OP.return);
  c.end();
  // Answering 1: nothing counted, nothing written.
  c.i32(0).get(OUTER).mem(OP.i32_store, 2, B_COUNT);
  c.i32(1).u8(OP.end);
  m.section(10, new Bytes().uleb(1).bytes(c));
  return Uint8Array.from(m.b);
}

/** f64.const of an exact integer. */
function f64(c: Code, v: number): void {
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, v, true);
  c.u8(0x44);
  for (let i = 0; i < 8; i++) c.u8(b.getUint8(i));
}

/**
 * The filter of probe `probeId` over `ecbs` (see the top), or undefined
 * when there is no WebAssembly or the module would exceed MODULE_LIMIT.
 */
export function probeFilter(probeId: number, ecbs: readonly FilterEcb[], globals: FilterGlobals): ProbeFilter | undefined {
  if (typeof WebAssembly === 'undefined' || ecbs.length === 0) return undefined;
  const bytes = filterBytes(probeId, ecbs);
  if (bytes.length > MODULE_LIMIT) return undefined;
  const valid = new WebAssembly.Global({ value: 'i32', mutable: true }, 1);
  const p: WebAssembly.ModuleImports = {};
  const k: WebAssembly.ModuleImports = {};
  const v: WebAssembly.ModuleImports = {};
  const n: WebAssembly.ModuleImports = {};
  const o: WebAssembly.ModuleImports = {};
  const cc: WebAssembly.ModuleImports = {};
  ecbs.forEach((e, i) => {
    if (e.translated !== undefined) p[String(i)] = e.translated.exported;
    const agg = e.aggregation;
    if (agg === undefined) return;
    agg.keyed?.keys.forEach((key, j) => (k[`${i}.${j}`] = key.value.exported));
    if (agg.value !== undefined) v[String(i)] = agg.value.exported;
    if (agg.increment !== undefined) n[String(i)] = agg.increment.exported;
    if (agg.cell !== undefined) {
      o[String(i)] = agg.cell.armed;
      cc[String(i)] = agg.cell.instructions;
    }
  });
  const instance = new WebAssembly.Instance(compiledModule(bytes), {
    d: { m: sharedBlock().memory, a: globals.gate, n: globals.instructions, v: valid },
    p,
    k,
    v,
    n,
    o,
    c: cc,
  });
  return { fn: instance.exports['filter'] as ProbeFilterFunction, valid };
}
