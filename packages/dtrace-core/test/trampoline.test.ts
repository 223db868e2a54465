// A probe's trampoline (trampoline.ts): the modules it makes for every kind
// of ECB validate, and an aggregation it cannot give a cell of the shared
// memory stays with the firing plan's JavaScript, with the same results.
import { describe, expect, it } from 'vitest';
import { DIF_OP, DIF_VAR, difInstrFmt, difInstrRet, difInstrSetx } from '../src/dif/index.js';
import { DTRACEAGG } from '../src/program/actions.js';
import { Arena } from '../src/framework/arena.js';
import { loadDifo } from '../src/framework/vm.js';
import { B_BUFFER, B_STAGE, B_TIMESTAMP, allocateCell, freeCell, sharedBlock, wasmTranslate } from '../src/framework/wasm.js';
import { trampoline, trampolineBytes, type TrampolineEcb } from '../src/framework/trampoline.js';
import { PrincipalBuffers } from '../src/framework/buffers.js';
import { regionBytesInUse } from '../src/framework/wmem.js';
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
      ...(['quantize', 'lquantize'] as const).flatMap((fn, i) => [1, 2].map((n) => ({
        epid: 50 + 2 * i + n,
        predicate: undefined,
        interpreted: false,
        aggregation: {
          fn, value: pure, ndx: n + 1, increment: n === 2 ? { value: pure, ndx: n + 2 } : undefined, linear: { base: -10n, levels: 5, limit: 15n, step: 5n },
          keyed: { keys: Array.from({ length: n }, (_k, j) => ({ value: pure, ndx: j + 1 })), descriptor: 2048, slotSize: 8 + 8 * n + 8 * 127 },
        },
      }))),
      { epid: 20, predicate: callsOut, interpreted: false, records: [1, 2, 4, 8].map((size, j) => ({ offset: 16 + 8 * j, size, value: j % 2 === 0 ? pure : undefined, constant: -3n, ndx: j + 1 })), size: 48, headerSize: 12 },
    ];
    for (const epids of [false, true]) expect(WebAssembly.validate(trampolineBytes(ecbs, epids))).toBe(true);
  });
});

describe('records in the trampoline', () => {
  it('are written in place at the tail of the CPU buffer, header and zeroed gaps included, with a call out only for a chunk past the limit', () => {
    const before = regionBytesInUse();
    const bufs = new PrincipalBuffers(1, 'switch', 64, 0, 48);
    bufs.sizeOf = () => 24;
    expect(bufs.layout()).toBe(true);
    let appended = 0;
    const t = trampoline(
      [{ epid: 7, predicate: undefined, interpreted: false, records: [{ offset: 16, size: 8, value: pure, constant: 0n, ndx: 1 }, { offset: 13, size: 2, value: undefined, constant: -2n, ndx: 2 }], size: 24, headerSize: 12 }],
      false,
      {
        prepare() {},
        steps: () => 1,
        append: () => {
          appended++;
          const at = bufs.reserve(0, 24);
          if (at >= 0) sharedBlock().u8.copyWithin(at, B_STAGE, B_STAGE + 24);
        },
      },
    )!;
    // Whatever the region held before is overwritten: the gaps are zero.
    const tailAt = sharedBlock().i32[bufs.descriptor(0) >> 2]!;
    sharedBlock().u8.fill(0xee, tailAt, tailAt + 64);
    sharedBlock().i32[B_BUFFER >> 2] = bufs.descriptor(0);
    sharedBlock().u64[B_TIMESTAMP >> 3] = 0x1122334455667788n;
    for (let i = 0; i < 3; i++) t.fire(0);
    // Two chunks fit in 64 bytes; the third goes through append and is dropped.
    expect(appended).toBe(1);
    const taken = bufs.take(0);
    expect(taken.drops).toBe(1);
    const hex = Array.from(taken.bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    const chunk = '07000000' + '44332211' + '88776655' + '00' + 'feff' + '00' + '0200000000000000';
    expect(hex).toBe(chunk + chunk);
    bufs.free();
    expect(regionBytesInUse()).toBe(before);
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
