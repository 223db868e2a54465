import { describe, expect, it } from 'vitest';
import {
  DTRACEACT,
  DTRACEAGG,
  DT_ACT,
  buildDifo,
  buildEcb,
  buildProgram,
  defaultOptions,
  difoGlobalEquals,
  difoIncrementGlobal,
  difoInt,
  difoLoadGlobal,
  difoString,
  setOption,
  DIF_STRING256,
  type CompiledProgram,
} from '@wdtrace/dtrace-core';
import { DIF_VAR, DIF_OP, DIF_VAR_OTHER_UBASE, difInstrFmt, difInstrSetx, difInstrRet as difInstrRetX } from '@wdtrace/dtrace-core/dif';
import { Session } from '../src/index.js';

async function run(p: CompiledProgram, opts: Record<string, string | null> = {}, timeLimit?: bigint) {
  const o = defaultOptions();
  for (const [k, v] of Object.entries(opts)) setOption(o, k, v);
  let out = '';
  let err = '';
  const session = await Session.create({
    onEvent: (e) => {
      if (e.kind === 'output') out += e.text;
      else if (e.kind === 'aggregations') out += e.printout;
      else if ('stream' in e && e.stream === 'stderr') err += e.text;
    },
  });
  const r = await session.run(p, { options: o, timeLimit });
  return { out, err, status: r.status, stoppedAt: r.stoppedAt, result: r };
}

const I = DIF_VAR_OTHER_UBASE;

describe('tst.begin: default probe line and trace()', () => {
  it('prints the heading, the probe line and a traced integer like dtrace(1)', async () => {
    const p = buildProgram([buildEcb(0, ['BEGIN'], [{ kind: DTRACEACT.DIFEXPR, difo: difoInt(42) }, { kind: DTRACEACT.EXIT, difo: difoInt(0), size: 4 }])]);
    const r = await run(p);
    expect(r.out).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN                42\n');
    expect(r.status).toBe(0);
  });
  it('prints an ECB with no actions as the bare probe line, and traces strings', async () => {
    const p = buildProgram([
      buildEcb(0, ['dtrace:::BEGIN'], [{ kind: DTRACEACT.DIFEXPR, difo: difoString('hello') }]),
      buildEcb(1, ['BEGIN'], [{ kind: DTRACEACT.EXIT, difo: difoInt(3), size: 4 }]),
      buildEcb(2, ['END'], []),
    ]);
    const r = await run(p);
    expect(r.out).toBe(
      'CPU     ID                    FUNCTION:NAME\n' +
        '  0      1                           :BEGIN   hello                            \n' +
        '  0      1                           :BEGIN \n' +
        '  0      2                             :END \n',
    );
    expect(r.status).toBe(3);
  });
});

describe('tst.printf: quiet printf and probe built-ins', () => {
  it('formats printf records under -q', async () => {
    const p = buildProgram(
      [
        buildEcb(0, ['BEGIN'], [
          { kind: DTRACEACT.PRINTF, difo: difoString('BEGIN'), format: 0, ntuple: 3 },
          { kind: DTRACEACT.DIFEXPR, difo: difoLoadGlobal(DIF_VAR.ID) },
          { kind: DTRACEACT.DIFEXPR, difo: difoLoadGlobal(DIF_VAR.PROBEPROV, DIF_STRING256) },
          { kind: DTRACEACT.EXIT, difo: difoInt(0), size: 4 },
        ]),
      ],
      { formats: [{ id: 0, kind: 'printf', format: '%-8s|%5d|%s\n' }] },
    );
    const r = await run(p, { quiet: null });
    expect(r.out).toBe('BEGIN   |    1|dtrace\n');
    expect(r.err).toBe('');
  });
});

describe('tst.tick: profile timers on the virtual clock', () => {
  it('fires tick-1s once per virtual second until exit()', async () => {
    const p = buildProgram(
      [
        buildEcb(0, ['profile:::tick-1s'], [{ kind: DTRACEACT.PRINTF, difo: difoIncrementGlobal(I), format: 0 }]),
        buildEcb(1, ['tick-1s'], [{ kind: DTRACEACT.EXIT, difo: difoInt(0), size: 4 }], difoGlobalEquals(I, 3n)),
      ],
      { formats: [{ id: 0, kind: 'printf', format: 'tick %d\n' }] },
    );
    const r = await run(p, { quiet: null });
    expect(r.out).toBe('tick 1\ntick 2\ntick 3\n');
    expect(r.stoppedAt).toBe(3_000_000_000n);
  });
});

describe('tst.aggregations: count, sum, avg, quantize printed at the end', () => {
  it('prints keyed counts sorted by value, then a quantize histogram', async () => {
    const p = buildProgram(
      [
        buildEcb(0, ['tick-1s'], [
          { kind: DTRACEACT.DIFEXPR, difo: difoString('ticks'), noRecord: true, uarg: 0n },
          { kind: DTRACEAGG.COUNT, uarg: 0n, ntuple: 1, noRecord: true },
          { kind: DTRACEAGG.QUANTIZE, uarg: 1n, difo: difoLoadGlobal(I), noRecord: true },
        ]),
        buildEcb(1, ['tick-1s'], [{ kind: DTRACEACT.DIFEXPR, difo: difoIncrementGlobal(I), size: 8, noRecord: true }]),
        buildEcb(2, ['BEGIN'], [
          { kind: DTRACEACT.DIFEXPR, difo: difoString('begin'), noRecord: true, uarg: 0n },
          { kind: DTRACEAGG.COUNT, uarg: 0n, ntuple: 1, noRecord: true },
        ]),
      ],
      {
        aggregations: [
          { id: 0, name: '', function: DTRACEAGG.COUNT, arg: 0n, keys: [{ type: DIF_STRING256, typeName: 'string' }], dataSize: 8 },
          { id: 1, name: 'q', function: DTRACEAGG.QUANTIZE, arg: 0n, keys: [], dataSize: 127 * 8 },
        ],
      },
    );
    const r = await run(p, { quiet: null }, 4_500_000_000n);
    expect(r.out).toBe(
      '  begin                                                             1\n' +
        '  ticks                                                             4\n' +
        '\n           value  ------------- Distribution ------------- count    \n' +
        '              -1 |                                         0        \n' +
        '               0 |@@@@@@@@@@                               1        \n' +
        '               1 |@@@@@@@@@@                               1        \n' +
        '               2 |@@@@@@@@@@@@@@@@@@@@                     2        \n' +
        '               4 |                                         0        \n' +
        '\n',
    );
  });
});

describe('err.fault: faults stop the clause and report like dtrace(1)', () => {
  it('reports a bad address with the DIF offset and fires ERROR', async () => {
    const load0 = buildDifo([difInstrSetx(0, 1), difInstrFmt(DIF_OP.LDSW, 1, 0, 2), difInstrRetX(2)], { inttab: [0n] });
    const p = buildProgram(
      [
        buildEcb(0, ['BEGIN'], [{ kind: DTRACEACT.DIFEXPR, difo: load0 }]),
        buildEcb(1, ['ERROR'], [{ kind: DTRACEACT.PRINTF, difo: difoLoadGlobal(DIF_VAR.ARG3), format: 0, ntuple: 2 }, { kind: DTRACEACT.DIFEXPR, difo: difoLoadGlobal(DIF_VAR.ARG4) }]),
        buildEcb(2, ['BEGIN'], [{ kind: DTRACEACT.EXIT, difo: difoInt(0), size: 4 }]),
      ],
      { formats: [{ id: 0, kind: 'printf', format: 'offset %d fault %d\n' }] },
    );
    const r = await run(p, { quiet: null });
    expect(r.err).toBe('dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x0) in action #1 at DIF offset 4\n');
    expect(r.out).toBe('offset 4 fault 1\n');
  });
  it('reports divide-by-zero in a predicate', async () => {
    const div0 = buildDifo([difInstrSetx(0, 1), difInstrSetx(1, 2), difInstrFmt(DIF_OP.SDIV, 1, 2, 3), difInstrRetX(3)], { inttab: [1n, 0n] });
    const p = buildProgram([buildEcb(0, ['BEGIN'], [{ kind: DTRACEACT.EXIT, difo: difoInt(0), size: 4 }], div0), buildEcb(1, ['BEGIN'], [{ kind: DTRACEACT.EXIT, difo: difoInt(0), size: 4 }])]);
    const r = await run(p, { quiet: null });
    expect(r.err).toBe('dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): divide-by-zero in predicate at DIF offset 8\n');
  });
});

describe('tst.drops: small buffers', () => {
  it('counts principal-buffer drops under the switch policy', async () => {
    const p = buildProgram([
      buildEcb(0, ['profile:::tick-1000'], [{ kind: DTRACEACT.DIFEXPR, difo: difoInt(1) }]),
    ]);
    // Each firing is 24 bytes; 100 bytes hold 4 per switch interval of 1s at 1000 firings/s.
    const r = await run(p, { quiet: null, bufsize: '100' }, 1_500_000_000n);
    expect(r.out).toBe('1111'.repeat(2));
    expect(r.err).toBe('dtrace: 996 drops on CPU 0\ndtrace: 496 drops on CPU 0\n');
  });
  it('keeps the newest records under the ring policy', async () => {
    const p = buildProgram([buildEcb(0, ['tick-1s'], [{ kind: DTRACEACT.PRINTF, difo: difoIncrementGlobal(I), format: 0 }])], {
      formats: [{ id: 0, kind: 'printf', format: '%d ' }],
    });
    const r = await run(p, { quiet: null, bufsize: '48', bufpolicy: 'ring' }, 5_500_000_000n);
    expect(r.out).toBe('4 5 ');
  });
});

describe('tst.speculation', () => {
  it('commits speculative data and counts unavailable speculations', async () => {
    const SPEC = I + 1;
    // speculation() -> r1, stored to a global by the next clause's DIFO.
    const callSpec = (into: number) =>
      buildDifo([((DIF_OP.CALL << 24) | (10 << 8) | 1) >>> 0, ((DIF_OP.STGS << 24) | (into << 8) | 1) >>> 0, difInstrRetX(1)], {
        vartab: [{ name: 0, id: into, kind: 1, scope: 0, flags: 0, type: { kind: 0, ckind: 1, flags: 0, size: 8 } }],
      });
    const p = buildProgram(
      [
        buildEcb(0, ['BEGIN'], [{ kind: DTRACEACT.DIFEXPR, difo: callSpec(SPEC), noRecord: true }]),
        buildEcb(1, ['BEGIN'], [{ kind: DTRACEACT.DIFEXPR, difo: callSpec(SPEC + 1), noRecord: true }]),
        buildEcb(2, ['BEGIN'], [{ kind: DTRACEACT.SPECULATE, difo: difoLoadGlobal(SPEC), size: 0 }, { kind: DTRACEACT.PRINTF, difo: difoString('speculated'), format: 0 }]),
        buildEcb(3, ['BEGIN'], [{ kind: DTRACEACT.PRINTF, difo: difoString('direct'), format: 0 }]),
        buildEcb(4, ['BEGIN'], [{ kind: DTRACEACT.COMMIT, difo: difoInt(1), size: 0 }, { kind: DTRACEACT.EXIT, difo: difoInt(0), size: 4 }]),
      ],
      { formats: [{ id: 0, kind: 'printf', format: '%s\n' }] },
    );
    const r = await run(p, { quiet: null });
    expect(r.out).toBe('direct\nspeculated\n');
    expect(r.err).toBe('dtrace: 1 failed speculation (no speculative buffer available)\n');
  });
});

describe('tst.libact: clear and printa', () => {
  it('prints an aggregation with printa() and a format', async () => {
    const p = buildProgram(
      [
        buildEcb(0, ['BEGIN'], [
          { kind: DTRACEACT.DIFEXPR, difo: difoString('seven'), noRecord: true },
          { kind: DTRACEAGG.SUM, uarg: 0n, ntuple: 1, difo: difoInt(7), noRecord: true },
          { kind: DTRACEACT.DIFEXPR, difo: difoString('five'), noRecord: true },
          { kind: DTRACEAGG.SUM, uarg: 0n, ntuple: 1, difo: difoInt(-2), noRecord: true },
          { kind: DTRACEACT.DIFEXPR, difo: difoString('five'), noRecord: true },
          { kind: DTRACEAGG.SUM, uarg: 0n, ntuple: 1, difo: difoInt(5), noRecord: true },
        ]),
        buildEcb(1, ['BEGIN'], [{ kind: DTRACEACT.PRINTA, difo: difoInt(0), size: 8, format: 0, ntuple: 1 }, { kind: DTRACEACT.EXIT, difo: difoInt(0), size: 4 }]),
        buildEcb(2, ['END'], [{ kind: DTRACEACT.LIBACT, difo: difoInt(0), size: 8, arg: BigInt(DT_ACT.CLEAR) }]),
      ],
      {
        formats: [{ id: 0, kind: 'printa', format: '%-6s %@3d\n' }],
        aggregations: [{ id: 0, name: 's', function: DTRACEAGG.SUM, arg: 0n, keys: [{ type: DIF_STRING256, typeName: 'string' }], dataSize: 8 }],
      },
    );
    const r = await run(p, { quiet: null });
    expect(r.out).toBe('five     3\nseven    7\n');
  });
});

