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
// The firing block (wasm.ts) is filled once per firing with the union of
// what the predicates read; a fault in a predicate unwinds through the
// trampoline to its JavaScript entry (state.ts), which reads B_ECB, fires
// ERROR and calls `fire` again from the next ECB. Anything the trampoline
// cannot take (no WebAssembly, a module over MODULE_LIMIT) leaves the probe
// to the JavaScript loop over its plan.

import { B_ECB, B_NUMBERS, B_PREDICATE, MODULE_LIMIT, compiledModule, sharedBlock, type WasmDifo } from './wasm.js';
import { Bytes, Code, F64, I32, I64, OP } from './wasm-encoding.js';

/** How `steps(i, mode)` finds ECB i's firing context. */
export const STEPS_FRESH = 0;
/** prepare(i) made it before the predicate ran. */
export const STEPS_PREPARED = 1;
/** Its predicate is the interpreter's: steps runs the whole ECB. */
export const STEPS_WHOLE = 2;

/** One ECB as the trampoline sees it. */
export interface TrampolineEcb {
  readonly epid: number;
  /** Its predicate translated, or none (no predicate, or one left to the interpreter: `interpreted`). */
  readonly predicate: WasmDifo | undefined;
  readonly interpreted: boolean;
}

export interface TrampolineHooks {
  /** Sets up ECB i's firing context before its predicate calls out. */
  prepare(i: number): void;
  /** Runs ECB i's actions (and with STEPS_WHOLE its predicate); returns 0 when the probe's later ECBs must not run. */
  steps(i: number, mode: number): number;
}

/** The generated function: runs the ECBs from index `from` on. */
export type Trampoline = (from: number) => void;

/**
 * The trampoline module's bytes. Its imports: d.m (the firing block's
 * memory), d.prepare, d.steps, then p.<i> for each ECB with a translated
 * predicate and, with `epids`, g.<i>, each ECB's epid as an f64 global, so
 * that the probes of one program share one compiled module.
 */
export function trampolineBytes(ecbs: readonly TrampolineEcb[], epids: boolean): Uint8Array<ArrayBuffer> {
  const m = new Bytes().u8(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  const types = new Bytes().uleb(3);
  types.u8(0x60).uleb(0).uleb(1).u8(I64); // predicate: () -> i64
  types.u8(0x60).uleb(1).u8(I32).uleb(0); // prepare, fire: (i32) -> ()
  types.u8(0x60).uleb(2).u8(I32, I32).uleb(1).u8(I32); // steps: (i, mode) -> i32
  m.section(1, types);
  const predicates = ecbs.filter((e) => e.predicate !== undefined).length;
  const imports = new Bytes().uleb(3 + predicates + (epids ? ecbs.length : 0));
  imports.name('d').name('m').u8(0x02, 0x00).uleb(1);
  imports.name('d').name('prepare').u8(0x00).uleb(1);
  imports.name('d').name('steps').u8(0x00).uleb(2);
  ecbs.forEach((e, i) => {
    if (e.predicate !== undefined) imports.name('p').name(String(i)).u8(0x00).uleb(0);
  });
  if (epids) ecbs.forEach((_e, i) => imports.name('g').name(String(i)).u8(0x03, F64, 0x00));
  m.section(2, imports);
  m.section(3, new Bytes().uleb(1).uleb(1));
  const F_PREPARE = 0, F_STEPS = 1;
  m.section(7, new Bytes().uleb(1).name('fire').u8(0x00).uleb(2 + predicates));
  const c = new Code();
  c.uleb(0);
  let fn = 2;
  ecbs.forEach((e, i) => {
    c.block('next');
    c.get(0).i32(i).u8(OP.i32_gt_u).brIf('next');
    c.i32(0).i32(i).mem(OP.i32_store, 2, B_ECB);
    if (epids) c.i32(0).u8(OP.global_get).uleb(i).mem(OP.f64_store, 3, B_NUMBERS);
    let mode = e.interpreted ? STEPS_WHOLE : STEPS_FRESH;
    const p = e.predicate;
    if (p !== undefined) {
      if (p.callsOut) {
        c.i32(i).u8(OP.call).uleb(F_PREPARE);
        mode = STEPS_PREPARED;
      }
      c.i32(0).i32(p.id).mem(OP.i32_store, 2, B_PREDICATE);
      c.u8(OP.call).uleb(fn++);
      c.i32(0).i32(0).mem(OP.i32_store, 2, B_PREDICATE);
      c.u8(OP.i64_eqz).brIf('next');
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
  const g: WebAssembly.ModuleImports = {};
  ecbs.forEach((e, i) => {
    if (e.predicate !== undefined) p[String(i)] = e.predicate.exported;
    if (epids) g[String(i)] = new WebAssembly.Global({ value: 'f64', mutable: false }, e.epid);
  });
  const imports: WebAssembly.Imports = {
    d: { m: sharedBlock().memory, prepare: (i: number) => hooks.prepare(i), steps: (i: number, mode: number) => hooks.steps(i, mode) },
    p,
  };
  if (epids) imports['g'] = g;
  const instance = new WebAssembly.Instance(compiledModule(bytes), imports);
  return instance.exports['fire'] as Trampoline;
}

/** The index of the ECB the running trampoline was at (read after a fault unwound out of it); clears the running predicate. */
export function trampolineEcb(): number {
  const b = sharedBlock().i32;
  b[B_PREDICATE >> 2] = 0;
  return b[B_ECB >> 2]!;
}
