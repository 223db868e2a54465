import { describe, expect, it } from 'vitest';
import { Consumer } from '../src/consumer/consume.js';
import { DTraceState } from '../src/framework/state.js';
import { IdleMachine } from '../src/framework/machine.js';
import { ProbeRegistry } from '../src/framework/probes.js';
import { defaultOptions, setOption } from '../src/framework/options.js';
import { DTRACEACT, DTRACEAGG, DT_ACT, type CompiledProgram } from '../src/program/index.js';
import { buildEcb, buildProgram, difoInt, difoLoadGlobal, difoString, DIF_STRING256, DIF_INT64 } from '../src/builder.js';
import { DIF_VAR } from '../src/dif/index.js';

/** A provider with entry/return probes for two functions, fired by hand like a trap handler would. */
function setup(program: CompiledProgram, opts: Record<string, string | null> = {}) {
  const registry = new ProbeRegistry();
  registry.registerProvider({
    name: 'fbt',
    attributes: { provider: '', module: '', function: '', name: '', args: '' },
    ops: {
      provide: (r) => {
        for (const fn of ['main', 'helper']) for (const n of ['entry', 'return']) r.createProbe('fbt', 'kernel', fn, n);
      },
      enable() {},
      disable() {},
    },
  });
  const o = defaultOptions();
  for (const [k, v] of Object.entries(opts)) setOption(o, k, v);
  const state = new DTraceState(program, registry, new IdleMachine(1), o);
  let out = '';
  let err = '';
  const consumer = new Consumer(state, { out: (s) => (out += s), err: (s) => (err += s) });
  state.go(0);
  const fire = (fn: string, name: string, ...args: bigint[]) => state.probe(registry.lookup('fbt', 'kernel', fn, name)!.id, 0, args);
  return { state, consumer, fire, text: () => out, errors: () => err };
}

describe('tst.flowindent: -F layout', () => {
  it('indents entries and returns like dt_flowindent', () => {
    const t = setup(buildProgram([buildEcb(0, ['fbt:::'], [])]), { flowindent: null });
    t.fire('main', 'entry');
    t.fire('helper', 'entry');
    t.fire('helper', 'return');
    t.fire('main', 'return');
    t.consumer.consume(true);
    expect(t.text()).toBe(
      'CPU FUNCTION                                 \n' +
        '  0  -> main                                  \n' +
        '  0    -> helper                              \n' +
        '  0    <- helper                              \n' +
        '  0  <- main                                  \n',
    );
  });
});

const COUNT_BY_FUNC = (fn: number) => [
  { kind: DTRACEACT.DIFEXPR, difo: difoLoadGlobal(DIF_VAR.PROBEFUNC, DIF_STRING256), noRecord: true, uarg: 0n },
  { kind: fn, uarg: 0n, ntuple: 1, difo: difoLoadGlobal(DIF_VAR.ARG0), noRecord: true },
];
const AGG = (fn: number) => ({ id: 0, name: 'a', function: fn, arg: 0n, keys: [{ type: DIF_STRING256, typeName: 'string' }], dataSize: 8 });

describe('tst.aggsort: sorting options', () => {
  const prog = () => buildProgram([buildEcb(0, ['fbt:::entry'], COUNT_BY_FUNC(DTRACEAGG.SUM))], { aggregations: [AGG(DTRACEAGG.SUM)] });
  const fireAll = (t: ReturnType<typeof setup>) => {
    t.fire('main', 'entry', 5n);
    t.fire('helper', 'entry', 10n);
  };
  it('sorts by value by default', () => {
    const t = setup(prog());
    fireAll(t);
    expect(t.consumer.printAggregations()).toBe(
      '  main                                                              5\n  helper                                                           10\n',
    );
  });
  it('sorts by key with aggsortkey and reverses with aggsortrev', () => {
    const t = setup(prog(), { aggsortkey: null });
    fireAll(t);
    expect(t.consumer.printAggregations().split('\n')[0]).toContain('helper');
    const r = setup(prog(), { aggsortrev: null });
    fireAll(r);
    expect(r.consumer.printAggregations().split('\n')[0]).toContain('helper');
  });
});

describe('tst.libact: normalize, trunc and clear records', () => {
  it('divides printed values by the normalization and truncates to the top entries', () => {
    const p = buildProgram(
      [
        buildEcb(0, ['fbt:::entry'], COUNT_BY_FUNC(DTRACEAGG.SUM)),
        buildEcb(1, ['fbt::main:return'], [
          { kind: DTRACEACT.LIBACT, difo: difoInt(0), size: 8, arg: BigInt(DT_ACT.NORMALIZE) },
          { kind: DTRACEACT.LIBACT, difo: difoInt(5), size: 8, arg: BigInt(DT_ACT.NORMALIZE) },
        ]),
        buildEcb(2, ['fbt::helper:return'], [
          { kind: DTRACEACT.LIBACT, difo: difoInt(0), size: 8, arg: BigInt(DT_ACT.TRUNC) },
          { kind: DTRACEACT.LIBACT, difo: difoInt(1), size: 8, arg: BigInt(DT_ACT.TRUNC) },
        ]),
      ],
      { aggregations: [AGG(DTRACEAGG.SUM)] },
    );
    const t = setup(p, { quiet: null });
    t.fire('main', 'entry', 50n);
    t.fire('helper', 'entry', 100n);
    t.fire('main', 'return');
    t.consumer.consume(false);
    expect(t.consumer.printAggregations()).toBe(
      '  main                                                             10\n  helper                                                           20\n',
    );
    t.fire('helper', 'return');
    t.consumer.consume(false);
    expect(t.consumer.printAggregations()).toBe('  helper                                                           20\n');
  });
  it('prints min, max, avg and stddev values', () => {
    for (const [fn, want] of [
      [DTRACEAGG.MIN, 2n],
      [DTRACEAGG.MAX, 9n],
      [DTRACEAGG.AVG, 5n],
      [DTRACEAGG.STDDEV, 2n],
    ] as const) {
      const dataSize = fn === DTRACEAGG.AVG ? 16 : fn === DTRACEAGG.STDDEV ? 32 : 8;
      const t = setup(buildProgram([buildEcb(0, ['fbt::main:entry'], COUNT_BY_FUNC(fn))], { aggregations: [{ ...AGG(fn), dataSize }] }));
      for (const v of [2n, 4n, 4n, 4n, 5n, 5n, 7n, 9n]) t.fire('main', 'entry', v);
      expect(t.consumer.printAggregations()).toBe(`  main${' '.repeat(46)} ${String(want).padStart(16)}\n`);
    }
  });
});

describe('tst.tracemem and trace of strings', () => {
  it('dumps bytes for tracemem() and prints strings for trace()', () => {
    const p = buildProgram([
      buildEcb(0, ['fbt::main:entry'], [
        { kind: DTRACEACT.TRACEMEM, difo: difoString('AB'), size: 3 },
        { kind: DTRACEACT.DIFEXPR, difo: difoString('str') },
      ]),
    ]);
    const t = setup(p, { quiet: null });
    t.fire('main', 'entry');
    t.consumer.consume(true);
    expect(t.text()).toBe(
      '\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n' +
        '         0: 41 42 00                                         AB.\n' +
        'str',
    );
  });
});

describe('err.dynvar: dynamic variable drops', () => {
  it('counts drops when dynvarsize is exhausted', () => {
    const t = setup(buildProgram([buildEcb(0, ['fbt::main:entry'], [])]), { dynvarsize: '64' });
    t.state.variables.storeAssoc(1, [{ value: 1n }], undefined, 1n);
    t.state.variables.storeAssoc(1, [{ value: 2n }], undefined, 2n);
    t.state.variables.storeAssoc(1, [{ value: 3n }], undefined, 3n);
    t.consumer.consume(false);
    expect(t.errors()).toBe('dtrace: 1 dynamic variable drop\n');
    expect(t.state.variables.loadAssoc(1, [{ value: 1n }], undefined)).toBe(1n);
    expect(t.state.variables.loadAssoc(1, [{ value: 3n }], undefined)).toBe(0n);
  });
  it('counts aggregation drops when aggsize is exhausted', () => {
    const t = setup(buildProgram([buildEcb(0, ['fbt:::entry'], COUNT_BY_FUNC(DTRACEAGG.COUNT))], { aggregations: [AGG(DTRACEAGG.COUNT)] }), { aggsize: '300' });
    t.fire('main', 'entry');
    t.fire('helper', 'entry');
    t.consumer.consume(false);
    expect(t.errors()).toBe('dtrace: 1 aggregation drop on CPU 0\n');
    void DIF_INT64;
  });
});

describe('err.destructive: destructive actions need -w', () => {
  it('refuses to load a program with destructive actions', () => {
    const p = buildProgram([buildEcb(0, ['fbt:::'], [{ kind: DTRACEACT.RAISE, difo: difoInt(9), size: 4 }])]);
    expect(() => setup(p)).toThrow('could not enable tracing: Destructive actions not allowed');
    expect(() => setup(p, { destructive: null })).not.toThrow();
  });
});
