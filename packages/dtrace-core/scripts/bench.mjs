// npm run bench: DIF VM instructions per second, aggregation updates per
// second and records per second through the consumer, measured on the idle
// machine with hand-assembled programs (the built dist/ is required).
import {
  Arena, DTraceState, Consumer, IdleMachine, ProbeRegistry, defaultOptions, difEmulate, loadDifo,
  buildDifo, buildEcb, buildProgram, difoInt, DTRACEACT, DTRACEAGG, difoString, difoLoadGlobal, setOption, DIF_INT64,
} from '../dist/index.js';
import {
  DIF_OP, DIF_VAR, DIFV_F_MOD, DIFV_F_REF, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, difInstrFmt, difInstrLdv, difInstrRet, difInstrSetx, difInstrBranch,
} from '../dist/dif/index.js';

function seconds(start) {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

// 1. VM: a straight-line DIFO of 64 ALU instructions.
{
  const buf = [difInstrSetx(0, 1), difInstrSetx(1, 2)];
  for (let i = 0; i < 60; i++) buf.push(difInstrFmt([DIF_OP.ADD, DIF_OP.XOR, DIF_OP.MUL, DIF_OP.SUB][i % 4], 1, 2, 1));
  buf.push(difInstrFmt(DIF_OP.CMP, 1, 2, 0), difInstrBranch(DIF_OP.BE, buf.length + 2), difInstrRet(1), difInstrRet(2));
  const arena = new Arena(4096, 65536);
  const ld = loadDifo(buildDifo(buf, { inttab: [3n, 5n] }), arena);
  const f = {
    machine: new IdleMachine(1), arena, locals: new Map(), cpu: 0, probeId: 1, epid: 1, args: [], timestamp: 0n, strsize: 256,
    probe: { provider: 'bench', module: '', function: '', name: 'vm' }, speculation: () => 0, instructions: 0,
    variables: { loadGlobal: () => 0n, storeGlobal() {}, loadThread: () => 0n, storeThread() {}, loadAssoc: () => 0n, storeAssoc() {} },
  };
  const start = process.hrtime.bigint();
  let runs = 0;
  while (seconds(start) < 1) {
    for (let i = 0; i < 1000; i++) difEmulate(ld, f);
    runs += 1000;
  }
  console.log(`DIF VM: ${(f.instructions / seconds(start) / 1e6).toFixed(2)} M instructions/s (${runs} runs of ${buf.length - 1} instructions)`);
}

function benchState(program, backend = 'wasm') {
  const registry = new ProbeRegistry();
  registry.registerProvider({
    name: 'bench',
    attributes: { provider: '', module: '', function: '', name: '', args: '' },
    ops: { provide: (r) => { r.createProbe('bench', '', '', 'fire'); r.createProbe('bench', '', '', 'return'); }, enable() {}, disable() {} },
  });
  const machine = new IdleMachine(1);
  const options = defaultOptions();
  setOption(options, 'backend', backend);
  const state = new DTraceState(program, registry, machine, options);
  state.go(0);
  return { state, id: registry.lookup('bench', '', '', 'fire').id, ret: registry.lookup('bench', '', '', 'return').id };
}

// 2. Aggregation updates: @[key] = count() with 16 distinct integer keys.
{
  const p = buildProgram([buildEcb(0, ['bench:::fire'], [
    { kind: DTRACEACT.DIFEXPR, difo: difoInt(7), noRecord: true, uarg: 0n },
    { kind: DTRACEAGG.COUNT, uarg: 0n, ntuple: 1, noRecord: true },
  ])], { aggregations: [{ id: 0, name: '', function: DTRACEAGG.COUNT, arg: 0n, keys: [{ type: { kind: 0, ckind: 1, flags: 0, size: 8 }, typeName: 'int' }], dataSize: 8 }] });
  const { state, id } = benchState(p);
  const start = process.hrtime.bigint();
  let n = 0;
  while (seconds(start) < 1) {
    for (let i = 0; i < 1000; i++) state.probe(id, 0, [BigInt(i & 15)]);
    n += 1000;
  }
  console.log(`aggregations: ${(n / seconds(start) / 1e3).toFixed(1)} k updates/s (probe firing + count())`);
}

// 3. Records through the consumer: trace(int) + printf("%s %d\n").
{
  const p = buildProgram([buildEcb(0, ['bench:::fire'], [
    { kind: DTRACEACT.PRINTF, difo: difoString('firing'), format: 0, ntuple: 2 },
    { kind: DTRACEACT.DIFEXPR, difo: difoInt(42) },
  ])], { formats: [{ id: 0, kind: 'printf', format: '%s %d\n' }] });
  const { state, id } = benchState(p);
  let bytes = 0;
  const consumer = new Consumer(state, { out: (s) => (bytes += s.length), err: () => {} });
  const start = process.hrtime.bigint();
  let n = 0;
  while (seconds(start) < 1) {
    for (let i = 0; i < 1000; i++) state.probe(id, 0, []);
    consumer.consume(false);
    n += 1000;
  }
  console.log(`consumer: ${(n / seconds(start) / 1e3).toFixed(1)} k records/s (probe firing + printf formatting, ${bytes} bytes out)`);
}

// 4. Keyed aggregations: @[arg0] = count() and @[arg0, arg1] = sum(arg2) over 1024 keys, both backends.
{
  const int64 = { kind: 0, ckind: 1, flags: 0, size: 8 };
  const key = (v) => ({ kind: DTRACEACT.DIFEXPR, difo: difoLoadGlobal(v), noRecord: true });
  const programs = {
    '@[arg0] = count()': buildProgram([buildEcb(0, ['bench:::fire'], [key(DIF_VAR.ARG0), { kind: DTRACEAGG.COUNT, uarg: 0n, ntuple: 1, noRecord: true }])], {
      aggregations: [{ id: 0, name: '', function: DTRACEAGG.COUNT, arg: 0n, keys: [{ type: int64, typeName: 'int64_t' }], dataSize: 8 }],
    }),
    '@[arg0, arg1] = sum(arg2)': buildProgram([buildEcb(0, ['bench:::fire'], [key(DIF_VAR.ARG0), key(DIF_VAR.ARG1), { kind: DTRACEAGG.SUM, uarg: 0n, ntuple: 2, difo: difoLoadGlobal(DIF_VAR.ARG2), noRecord: true }])], {
      aggregations: [{ id: 0, name: '', function: DTRACEAGG.SUM, arg: 0n, keys: [{ type: int64, typeName: 'int64_t' }, { type: int64, typeName: 'int64_t' }], dataSize: 8 }],
    }),
  };
  const args = Array.from({ length: 4096 }, (_, i) => [BigInt((i * 7919) & 1023), BigInt(i & 3), BigInt(i)]);
  for (const [name, p] of Object.entries(programs)) {
    for (const backend of ['dif', 'wasm']) {
      const { state, id } = benchState(p, backend);
      const start = process.hrtime.bigint();
      let n = 0;
      while (seconds(start) < 1) {
        for (let i = 0; i < 4096; i++) state.probe(id, 0, args[i]);
        n += 4096;
      }
      const ns = (seconds(start) * 1e9) / n;
      state.stop(0);
      console.log(`keyed aggregation ${name}, backend=${backend}: ${ns.toFixed(0)} ns/firing (${(n / (ns * n / 1e9) / 1e3).toFixed(0)} k firings/s)`);
    }
  }
}

// 5. Thread-locals: bench:::fire { self->ts = timestamp; } bench:::return /self->ts/ { self->ts = 0; },
// with each backend (the translated DIF reads and writes the dynamic-variable table inline).
{
  const ID = 0x500;
  const vartab = [{ name: 0, id: ID, kind: DIFV_KIND_SCALAR, scope: DIFV_SCOPE_THREAD, flags: DIFV_F_REF | DIFV_F_MOD, type: DIF_INT64 }];
  const difo = (buf) => buildDifo(buf, { strings: ['ts'], vartab });
  const set = difo([difInstrLdv(DIF_OP.LDGS, DIF_VAR.TIMESTAMP, 1), difInstrLdv(DIF_OP.STTS, ID, 1), difInstrRet(1)]);
  const test = difo([difInstrLdv(DIF_OP.LDTS, ID, 1), difInstrRet(1)]);
  const clear = difo([difInstrLdv(DIF_OP.STTS, ID, 0), difInstrRet(0)]);
  const p = buildProgram([
    buildEcb(0, ['bench:::fire'], [{ kind: DTRACEACT.DIFEXPR, difo: set, noRecord: true }]),
    buildEcb(1, ['bench:::return'], [{ kind: DTRACEACT.DIFEXPR, difo: clear, noRecord: true }], test),
  ]);
  for (const backend of ['dif', 'wasm']) {
    const { state, id, ret } = benchState(p, backend);
    const start = process.hrtime.bigint();
    let n = 0;
    while (seconds(start) < 1) {
      for (let i = 0; i < 1000; i++) {
        state.probe(id, 0, []);
        state.probe(ret, 0, []);
      }
      n += 2000;
    }
    console.log(`thread-locals (${backend}): ${(n / seconds(start) / 1e3).toFixed(1)} k firings/s (self->ts = timestamp; /self->ts/ { self->ts = 0; })`);
    state.stop(0);
  }
}
