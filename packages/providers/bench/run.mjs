#!/usr/bin/env node
// npm run bench [-- SET...]: the kernel providers on a booted guest, per ISA
// (and for ARM's Thumb-2 build of the guest, arm-thumb, whose prologues and
// epilogues are emulated by code and other instructions run out of line).
// - guest MIPS on the cpubound workload with the providers registered and no
//   probe enabled, against a plain machine on the unpatched image (the guest
//   text is the image's, so the instruction counts must be equal);
// - one fbt probe firing with `@[probefunc] = count()`: the extra wall time
//   of syscallheavy with `fbt:::entry` enabled over the firings, in ns and in
//   guest instructions of the untraced run's speed;
// - the slowdown of syscallheavy with `fbt:::entry { @[probefunc] = count(); }`;
//   (the untraced and traced runs in alternating rounds, each figure the median);
// - the time to enable and to disable every fbt probe;
// - the slowdown of syscallheavy under common clauses (string keys, stack
//   keys, thread-locals across entry and return, a string predicate,
//   quantize by probe), with each backend;
// - each firing figure with the DIF interpreter (-x backend=dif) and with
//   its WebAssembly translation (-x backend=wasm), side by side, and a
//   predicate-only clause that never passes; the time to translate and
//   instantiate the DIF of the d-lang corpus; and the framework alone
//   (state.probe() on an idle machine) with each backend, in alternating rounds.
// Wall times on a shared machine are noise; instruction counts are exact.
import { compile } from '@wdtrace/d-lang';
import { readFileSync, readdirSync } from 'node:fs';
import { Consumer, DTraceState, IdleMachine, ProbeRegistry, buildProgram, defaultOptions, loadDifo, setOption, wasmCompile, Arena } from '@wdtrace/dtrace-core';
import { Machine, defaultImages } from '@wdtrace/kernel';
import { GuestMachineView, KernelProviders, createDtraceProvider, createIsaSupport, fireBegin, fireEnd } from '../dist/index.js';

const decoder = new TextDecoder();
const LIMIT = 5_000_000_000;

/** The machine of an image set: an ISA's guest, or arm-thumb. */
const machineOf = (set) => (set === 'arm-thumb' ? { isa: 'arm', thumb: true } : { isa: set, thumb: false });

/** A machine of image set `set` running `args` with the boot modules a traced guest loads. */
function machineFor(set, args, consoleOutput) {
  const { isa, thumb } = machineOf(set);
  const modules = Object.entries(defaultImages(isa, { thumb }).modules).map(([name, bytes]) => ({ name, bytes }));
  return Machine.create({ isa, thumb, cmdline: 'quiet', args, modules, consoleOutput });
}

async function plain(isa, args) {
  let out = '';
  const m = await machineFor(isa, args, (b) => (out += decoder.decode(b)));
  const t0 = performance.now();
  const r = await m.runUntilPowerOff({ instructions: LIMIT });
  const ms = performance.now() - t0;
  if (r.kind !== 'poweroff' || r.status !== 0) throw new Error(`${isa} ${args.join(' ')}: ${JSON.stringify(r)}\n${out}`);
  return { insns: m.instructions, ms, out };
}

/** The kernel providers of a guest, registered after dtrace's as a session registers them. */
async function withProviders(isa, args, consoleOutput) {
  const machine = await machineFor(isa, args, consoleOutput);
  const support = await createIsaSupport(machineOf(isa).isa);
  const view = new GuestMachineView(machine, support);
  const providers = await KernelProviders.create(machine, view, support);
  const registry = new ProbeRegistry();
  registry.registerProvider(createDtraceProvider());
  for (const d of providers.definitions) registry.registerProvider(d);
  return { machine, view, providers, registry, support };
}

/** Runs the guest to power-off with `script` (none: an empty program) enabled from BEGIN to END. */
async function traced(isa, args, script, backend = 'dif') {
  let out = '';
  const t = await withProviders(isa, args, (b) => (out += decoder.decode(b)));
  const catalogue = { match: (d) => t.registry.match(d).map((p) => ({ id: p.id, provider: p.provider, module: p.module, function: p.function, name: p.name })) };
  const program = script ? compile(script, { origin: { kind: 'probe', text: script }, dataModel: t.support.dataModel, probes: catalogue }).program : buildProgram([]);
  if (!program) throw new Error(`cannot compile ${script}`);
  let trace = '';
  const t0 = performance.now();
  const options = defaultOptions();
  setOption(options, 'backend', backend);
  const state = new DTraceState(program, t.registry, t.view, options);
  const consumer = new Consumer(state, { out: (s) => (trace += s), err: (s) => (trace += s) });
  t.providers.fireInto(state);
  state.go(0, (cpu) => fireBegin(state, cpu));
  const r = t.machine.run({ instructions: LIMIT });
  consumer.consume(false);
  state.stop(0, (cpu) => fireEnd(state, cpu));
  consumer.consume(true);
  const ms = performance.now() - t0;
  if (r.kind !== 'poweroff' || r.status !== 0) throw new Error(`${isa} traced ${args.join(' ')}: ${JSON.stringify(r)}\n${out}`);
  const aggs = consumer.printAggregations();
  const firings = [...aggs.matchAll(/\s(\d+)\n/g)].reduce((n, m) => n + Number(m[1]), 0);
  return { insns: t.machine.instructions, ms, out, firings, difInstructions: state.instructions };
}

async function enableDisableAll(isa) {
  const t = await withProviders(isa, ['/bin/true']);
  const probes = t.registry.match({ provider: 'fbt', module: '', function: '', name: '' });
  const ops = t.registry.provider('fbt').ops;
  const t0 = performance.now();
  for (const p of probes) ops.enable(p.id, p.providerArg);
  const t1 = performance.now();
  for (const p of probes) ops.disable(p.id, p.providerArg);
  const t2 = performance.now();
  return { probes: probes.length, enableMs: t1 - t0, disableMs: t2 - t1 };
}

// Image sets to measure: the arguments (x86_64, arm, arm-thumb), else all three.
const SETS = process.argv.slice(2).length ? process.argv.slice(2) : ['x86_64', 'arm', 'arm-thumb'];
/** Rounds of the syscallheavy runs (untraced, and traced with each backend). */
const ROUNDS = 3;
/** Common clauses whose slowdown of syscallheavy is measured with each backend. */
const IDIOMS = {
  '@[execname] = count()': 'fbt:::entry { @[execname] = count(); }',
  '@[probefunc] = quantize(arg0)': 'fbt:::entry { @[probefunc] = quantize(arg0); }',
  '@[stack(2)] = count()': 'fbt:::entry { @[stack(2)] = count(); }',
  '/execname == "syscallheavy"/ { @[probefunc] = count() }': 'fbt:::entry /execname == "syscallheavy"/ { @[probefunc] = count(); }',
  'self->ts = timestamp at entry, @[probefunc] = sum(timestamp - self->ts) at return': 'fbt:::entry { self->ts = timestamp; } fbt:::return /self->ts/ { @[probefunc] = sum(timestamp - self->ts); self->ts = 0; }',
};
const rows = [];
for (const isa of SETS) {
  const cpuArgs = ['/bin/cpubound', '20'];
  const unpatched = await plain(isa, cpuArgs);
  const idle = await traced(isa, cpuArgs, undefined);
  if (idle.insns !== unpatched.insns || idle.out !== unpatched.out) {
    throw new Error(`${isa}: the guest ran differently with the providers registered and no probe enabled (${idle.insns} vs ${unpatched.insns} instructions)`);
  }
  const sysArgs = ['/bin/syscallheavy', '2000'];
  // The untraced run and each traced one, in alternating rounds: a shared
  // machine's load falls on all alike, and each figure is its rounds' median.
  const FBT = 'fbt:::entry { @[probefunc] = count(); }';
  const NEVER = 'fbt:::entry /arg0 == 0x123456789abcdef/ { @ = count(); }';
  const runs = { base: [], dif: [], 'dif-never': [], wasm: [], 'wasm-never': [] };
  for (const idiom of Object.keys(IDIOMS)) for (const backend of ['dif', 'wasm']) runs[`${backend}|${idiom}`] = [];
  for (let round = 0; round < ROUNDS; round++) {
    runs.base.push(await traced(isa, sysArgs, undefined));
    for (const backend of ['dif', 'wasm']) {
      runs[backend].push(await traced(isa, sysArgs, FBT, backend));
      runs[`${backend}-never`].push(await traced(isa, sysArgs, NEVER, backend));
      for (const [idiom, script] of Object.entries(IDIOMS)) runs[`${backend}|${idiom}`].push(await traced(isa, sysArgs, script, backend));
    }
  }
  const median = (list) => [...list].sort((a, b) => a.ms - b.ms)[list.length >> 1];
  const base = median(runs.base);
  const nsPerInsn = (base.ms * 1e6) / base.insns;
  const per = {};
  for (const backend of ['dif', 'wasm']) {
    for (const r of runs[backend]) if (r.out !== base.out) throw new Error(`${isa}: syscallheavy printed differently under fbt:::entry`);
    const fbt = median(runs[backend]);
    const never = median(runs[`${backend}-never`]);
    const perFiring = ((fbt.ms - base.ms) * 1e6) / fbt.firings;
    const neverPerFiring = ((never.ms - base.ms) * 1e6) / fbt.firings;
    per[backend] = {
      firings: fbt.firings,
      perFiring,
      perFiringInsns: perFiring / nsPerInsn,
      difPerFiring: fbt.difInstructions / fbt.firings,
      slowdown: fbt.ms / base.ms,
      neverPerFiring,
      neverInsns: neverPerFiring / nsPerInsn,
      idioms: Object.fromEntries(Object.keys(IDIOMS).map((idiom) => [idiom, median(runs[`${backend}|${idiom}`]).ms / base.ms])),
    };
  }
  const all = await enableDisableAll(isa);
  rows.push({
    isa,
    unpatchedMips: unpatched.insns / unpatched.ms / 1000,
    idleMips: idle.insns / idle.ms / 1000,
    insns: idle.insns,
    per,
    all,
  });
}

/** Translating and instantiating the DIF of every program of the d-lang corpus (wasm's enable-time cost). */
function corpusTranslation() {
  const dir = new URL('../../d-lang/test/corpus/', import.meta.url);
  const difos = [];
  for (const f of readdirSync(dir).filter((n) => n.startsWith('tst.') && n.endsWith('.d'))) {
    const text = readFileSync(new URL(f, dir), 'utf8');
    const program = compile(text, { origin: { kind: 'script', name: f }, macroArgs: /\$\$?\d/.test(text) ? ['1', 'read'] : [] }).program;
    if (!program) continue;
    for (const e of program.ecbs) for (const d of [e.predicate, ...e.actions.map((a) => a.difo)]) if (d) difos.push(d);
  }
  const arena = new Arena(16 * 1024 * 1024, 64 * 1024);
  const loaded = difos.map((d) => loadDifo(d, arena));
  const t0 = performance.now();
  let translated = 0;
  for (const ld of loaded) if (wasmCompile(ld)) translated++;
  const ms = performance.now() - t0;
  return { difos: difos.length, translated, ms };
}
const corpus = corpusTranslation();

/**
 * The framework alone (no guest, no provider): ns per state.probe() of a
 * clause on an idle machine, dif and wasm in alternating rounds so that a
 * loaded machine's noise falls on both alike.
 */
function frameworkFirings() {
  const clauses = {
    '@[probefunc] = count()': 'test:kernel:f:fire { @[probefunc] = count(); }',
    'predicate that never passes': 'test:kernel:f:fire /arg0 == 0x123456789abcdef/ { @ = count(); }',
    'arithmetic and branches': 'test:kernel:f:fire { x = arg0 * 3 + (arg1 >> 2); @s = sum(x > 100 ? x / 7 : x % 5 + (x ^ arg1)); }',
  };
  const states = {};
  for (const [name, text] of Object.entries(clauses)) {
    for (const backend of ['dif', 'wasm']) {
      const registry = new ProbeRegistry();
      registry.registerProvider({
        name: 'test',
        attributes: { provider: '', module: '', function: '', name: '', args: '' },
        ops: { provide: (rg) => void rg.createProbe('test', 'kernel', 'f', 'fire'), enable() {}, disable() {} },
      });
      const program = compile(text, { origin: { kind: 'probe', text } }).program;
      const options = defaultOptions();
      setOption(options, 'backend', backend);
      const state = new DTraceState(program, registry, new IdleMachine(1), options);
      state.go(0);
      states[`${name}|${backend}`] = { state, id: registry.lookup('test', 'kernel', 'f', 'fire').id, ns: 0, n: 0 };
    }
  }
  const args = [5n, 1000n, 0n, 0n, 0n];
  for (let round = 0; round < 12; round++) {
    for (const s of Object.values(states)) {
      const t0 = performance.now();
      for (let i = 0; i < 20000; i++) s.state.probe(s.id, 0, args);
      if (round >= 2) {
        s.ns += (performance.now() - t0) * 1e6;
        s.n += 20000;
      }
    }
  }
  return Object.keys(clauses).map((name) => ({ name, dif: states[`${name}|dif`].ns / states[`${name}|dif`].n, wasm: states[`${name}|wasm`].ns / states[`${name}|wasm`].n }));
}
const framework = frameworkFirings();

const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const both = (f) => rows.map((r) => `${f(r.per.dif)} / ${f(r.per.wasm)}`);
const table = [
  ['', ...rows.map((r) => r.isa)],
  ['cpubound, unpatched image: guest MIPS', ...rows.map((r) => fmt(r.unpatchedMips, 1))],
  ['cpubound, providers registered, no probe enabled: guest MIPS', ...rows.map((r) => fmt(r.idleMips, 1))],
  ['cpubound: guest instructions (equal in both runs)', ...rows.map((r) => fmt(r.insns))],
  ['syscallheavy 2000 under fbt:::entry: firings', ...rows.map((r) => fmt(r.per.dif.firings))],
  ['backend dif / wasm:', ...rows.map(() => '')],
  ['one fbt firing with @[probefunc] = count(): ns', ...both((p) => fmt(p.perFiring))],
  ['one fbt firing: guest-instruction equivalents', ...both((p) => fmt(p.perFiringInsns))],
  ['one fbt firing: DIF instructions executed', ...both((p) => fmt(p.difPerFiring, 1))],
  ['syscallheavy slowdown under fbt:::entry count()', ...both((p) => `${fmt(p.slowdown, 1)}x`)],
  ['a predicate-only clause that never passes: ns', ...both((p) => fmt(p.neverPerFiring))],
  ['a predicate-only clause: guest-instruction equivalents', ...both((p) => fmt(p.neverInsns))],
  ...Object.keys(IDIOMS).map((idiom) => [`syscallheavy slowdown under fbt ${idiom}`, ...both((p) => `${fmt(p.idioms[idiom], 1)}x`)]),
  ['fbt probes', ...rows.map((r) => fmt(r.all.probes))],
  ['enable every fbt probe: ms', ...rows.map((r) => fmt(r.all.enableMs, 1))],
  ['disable every fbt probe: ms', ...rows.map((r) => fmt(r.all.disableMs, 1))],
];
const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
console.log(`kernel providers bench (committed guest images, 1 CPU, release cores; syscallheavy figures: medians of ${ROUNDS} alternating rounds)`);
for (const row of table) console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   '));
console.log(`translate and instantiate the d-lang corpus's DIF (wasm): ${corpus.translated} of ${corpus.difos} DIFOs in ${fmt(corpus.ms, 1)} ms (${fmt((corpus.ms * 1000) / Math.max(1, corpus.translated), 1)} us each)`);
for (const r of framework) console.log(`framework only, state.probe() with ${r.name}: ${fmt(r.dif)} ns (dif) / ${fmt(r.wasm)} ns (wasm), ${fmt(r.dif / r.wasm, 2)}x`);
