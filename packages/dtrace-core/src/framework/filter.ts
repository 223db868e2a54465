// A probe's filter: the part of its firing that can run where the probe
// site is, inside another WebAssembly module (a CPU core), with no call into
// JavaScript. As DTrace on BPF attaches a probe's program to the probe site,
// a provider whose site is trapped in a core can hand the core this function,
// and the core calls it before it leaves for the host's trap path:
//
//   filter(cpu i32, a0 i64, a1 i64, a2 i64, a3 i64) -> i32
//     0: every ECB's predicate is false: the firing does nothing (DTrace does
//        nothing for a failed predicate), and the core goes on by itself;
//     1: anything else (a predicate passed, the state is not active, the
//        probe's plan changed since the filter was made): the caller takes
//        the full path, which evaluates everything again.
//
// A filter exists only for a probe whose ECBs ALL have a predicate that is
// translated (wasm.ts), pure (no call-out to JavaScript, no guest load, no
// variable, no division, so it can neither fault nor change anything) and
// reads of the firing block only args[0..3] and the identifiers (epid, id,
// cpu). Running such predicates twice is the same as running them once, so
// answering 1 and letting the full path run them again is exact.
//
// Instruction counts: the predicates count their DIF instructions into the
// block's counter as every run does; on 0 the filter adds them to the
// state's counter `n` (an f64 global the state reads with its own count),
// so that the count is the full path's. On 1 it counts nothing: the full
// path counts that firing.
//
// The filter reads two i32 globals: `a`, the state's gate (1 only while the
// state is active and nothing else can make a firing do more than its
// predicates), and its own `v`, which the state clears when the probe's plan
// changes; either 0 makes it answer 1.

import type { LoadedDifo } from './vm.js';
import { DIF_OP } from '../dif/opcodes.js';
import { DIF_VAR } from '../dif/constants.js';
import { B_ARGC, B_ARGS, B_COUNT, B_NUMBERS, MODULE_LIMIT, NEED_ARGS, NEED_IDS, compiledModule, sharedBlock, type WasmDifo } from './wasm.js';
import { Bytes, Code, F64, I32, I64, OP } from './wasm-encoding.js';

/** The function a filter is: see the top. */
export type ProbeFilterFunction = (cpu: number, a0: bigint, a1: bigint, a2: bigint, a3: bigint) => number;

/** The highest argument a filter passes (a0..a3). */
export const FILTER_ARGS = 4;

/** One ECB's predicate as a filter calls it. */
export interface FilterEcb {
  readonly epid: number;
  readonly predicate: LoadedDifo;
  readonly translated: WasmDifo;
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

/** Whether a translated predicate may run in a filter (see the top): checked on its DIF, instruction by instruction. */
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

/**
 * The filter module's bytes for `ecbs` of probe `probeId`. Imports: d.m
 * (the shared memory), d.a (the gate), d.n (the counter), d.v (its valid
 * word), then p.<i>, each ECB's predicate; exports `filter`.
 */
export function filterBytes(probeId: number, ecbs: readonly FilterEcb[]): Uint8Array<ArrayBuffer> {
  let named = 0;
  let ids = false;
  for (const e of ecbs) {
    named = Math.max(named, e.translated.needs >>> 8);
    if (e.translated.needs & NEED_IDS) ids = true;
  }
  const m = new Bytes().u8(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  const types = new Bytes().uleb(2);
  types.u8(0x60).uleb(0).uleb(1).u8(I64); // predicate: () -> i64
  types.u8(0x60).uleb(5).u8(I32, I64, I64, I64, I64).uleb(1).u8(I32); // filter
  m.section(1, types);
  const imports = new Bytes().uleb(4 + ecbs.length);
  imports.name('d').name('m').u8(0x02, 0x00).uleb(1);
  imports.name('d').name('a').u8(0x03, I32, 0x01);
  imports.name('d').name('n').u8(0x03, F64, 0x01);
  imports.name('d').name('v').u8(0x03, I32, 0x01);
  ecbs.forEach((_e, i) => imports.name('p').name(String(i)).u8(0x00).uleb(0));
  m.section(2, imports);
  m.section(3, new Bytes().uleb(1).uleb(1));
  m.section(7, new Bytes().uleb(1).name('filter').u8(0x00).uleb(ecbs.length));
  const G_GATE = 0, G_COUNT = 1, G_VALID = 2;
  const CPU = 0, OUTER = 5;
  const c = new Code();
  c.uleb(1).uleb(1).u8(I32);
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
  ecbs.forEach((e, i) => {
    if (ids) {
      c.i32(0);
      f64(c, e.epid);
      c.mem(OP.f64_store, 3, B_NUMBERS);
    }
    c.u8(OP.call).uleb(i).u8(OP.i64_eqz, OP.i32_eqz).if_();
    c.i32(0).get(OUTER).mem(OP.i32_store, 2, B_COUNT).i32(1).u8(OP.return);
    c.end();
  });
  // Every predicate was false: their instructions into the state's count.
  c.u8(OP.global_get).uleb(G_COUNT).i32(0).mem(OP.i32_load, 2, B_COUNT).u8(F64_CONVERT_I32_U, F64_ADD, OP.global_set).uleb(G_COUNT);
  c.i32(0).get(OUTER).mem(OP.i32_store, 2, B_COUNT);
  c.i32(0).u8(OP.end);
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
  ecbs.forEach((e, i) => (p[String(i)] = e.translated.exported));
  const instance = new WebAssembly.Instance(compiledModule(bytes), {
    d: { m: sharedBlock().memory, a: globals.gate, n: globals.instructions, v: valid },
    p,
  });
  return { fn: instance.exports['filter'] as ProbeFilterFunction, valid };
}
