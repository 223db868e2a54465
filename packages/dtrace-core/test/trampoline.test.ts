// A probe's trampoline (trampoline.ts): the modules it makes for every kind
// of ECB validate, and an aggregation it cannot give a cell of the shared
// memory stays with the firing plan's JavaScript, with the same results.
import { describe, expect, it } from 'vitest';
import { DIF_OP, DIF_VAR, difInstrFmt, difInstrRet, difInstrSetx } from '../src/dif/index.js';
import { DTRACEAGG } from '../src/program/actions.js';
import { Arena } from '../src/framework/arena.js';
import { loadDifo } from '../src/framework/vm.js';
import { allocateCell, freeCell, wasmTranslate } from '../src/framework/wasm.js';
import { trampolineBytes, type TrampolineEcb } from '../src/framework/trampoline.js';
import { ProbeRegistry } from '../src/framework/probes.js';
import { IdleMachine } from '../src/framework/machine.js';
import { defaultOptions, setOption } from '../src/framework/options.js';
import { DTraceState } from '../src/framework/state.js';
import { buildDifo, buildEcb, buildProgram, difoLoadGlobal, DIF_STRING256 } from '../src/builder.js';

const arena = new Arena(4096, 4096);
/** A translated DIFO: arg0 + 1 (calls nothing out), or probefunc (calls out). */
const pure = wasmTranslate(loadDifo(buildDifo([difInstrSetx(0, 1), difInstrFmt(DIF_OP.ADD, 1, 1, 1), difInstrRet(1)], { inttab: [1n] }), arena))!;
const callsOut = wasmTranslate(loadDifo(difoLoadGlobal(DIF_VAR.PROBEFUNC, DIF_STRING256), arena))!;

describe('trampoline modules', () => {
  it('validate for predicates that call out or not, interpreted ones, every aggregating function with and without keys found in a table, and record size, with and without epids', () => {
    expect(pure.callsOut).toBe(false);
    expect(callsOut.callsOut).toBe(true);
    const ecbs: TrampolineEcb[] = [
      { epid: 1, predicate: pure, interpreted: false },
      { epid: 2, predicate: callsOut, interpreted: false },
      { epid: 3, predicate: undefined, interpreted: true },
      { epid: 4, predicate: undefined, interpreted: false },
      ...(['count', 'sum', 'min', 'max', 'avg'] as const).flatMap((fn, i) => [
        { epid: 5 + 2 * i, predicate: pure, interpreted: false, aggregation: { fn, value: pure, ndx: 1 } },
        { epid: 6 + 2 * i, predicate: undefined, interpreted: false, aggregation: { fn, value: undefined, ndx: 1 } },
      ]),
      ...(['count', 'sum', 'min', 'max', 'avg'] as const).flatMap((fn, i) => [1, 2, 3].map((n) => ({
        epid: 30 + 3 * i + n,
        predicate: n === 2 ? pure : undefined,
        interpreted: false,
        aggregation: { fn, value: n === 1 ? undefined : pure, ndx: n + 1, keyed: { keys: Array.from({ length: n }, (_k, j) => ({ value: pure, ndx: j + 1 })), descriptor: 2048, slotSize: 8 + 8 * n + 16 } },
      }))),
      { epid: 20, predicate: callsOut, interpreted: false, records: [1, 2, 4, 8].map((size, j) => ({ offset: 16 + 8 * j, size, value: j % 2 === 0 ? pure : undefined, constant: -3n, ndx: j + 1 })) },
    ];
    for (const epids of [false, true]) expect(WebAssembly.validate(trampolineBytes(ecbs, epids))).toBe(true);
  });
});

describe('aggregation cells', () => {
  it('counts in the firing plan when every cell of the shared memory is taken, as the interpreter does', () => {
    const registry = () => {
      const r = new ProbeRegistry();
      r.registerProvider({
        name: 'test',
        attributes: { provider: '', module: '', function: '', name: '', args: '' },
        ops: { provide: (rg) => void rg.createProbe('test', '', 'f', 'fire'), enable() {}, disable() {} },
      });
      return r;
    };
    const program = buildProgram([buildEcb(0, ['test:::fire'], [{ kind: DTRACEAGG.SUM, uarg: 0n, ntuple: 0, difo: difoLoadGlobal(DIF_VAR.ARG0), noRecord: true }])], {
      aggregations: [{ id: 0, name: 'a', function: DTRACEAGG.SUM, arg: 0n, keys: [], dataSize: 8 }],
    });
    const sums = (backend: 'dif' | 'wasm'): string[] => {
      const reg = registry();
      const options = defaultOptions();
      setOption(options, 'backend', backend);
      const state = new DTraceState(program, reg, new IdleMachine(1), options);
      state.go(0);
      const id = reg.lookup('test', '', 'f', 'fire')!.id;
      const out: string[] = [];
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 5; i++) state.probe(id, 0, [BigInt(round * 10 + i)]);
        out.push([...state.takeAggregations().get(0)!.values()].map((e) => e.data.join(',')).join(';'));
      }
      return out;
    };
    const withCells = sums('wasm');
    const taken: number[] = [];
    for (let a = allocateCell(0n); a !== 0; a = allocateCell(0n)) taken.push(a);
    try {
      expect(taken.length).toBeGreaterThan(0);
      const withoutCells = sums('wasm');
      expect(withoutCells).toEqual(sums('dif'));
      expect(withCells).toEqual(withoutCells);
      expect(withCells).toEqual(['10', '60', '110']);
    } finally {
      for (const a of taken) freeCell(a);
    }
  });
});
