// Fast probe sites on the booted guest (2 CPUs; A32 and Thumb-2 kernels,
// and x86-64, whose core passes rdi, rsi, rdx, rcx as arg0..arg3 and
// emulates push %rbp or runs the first instruction out of line):
// an fbt entry probe whose clauses all have pure predicates, or aggregate
// whole in the trampoline's cells and keyed tables, becomes a fast site,
// where the CPU core runs the probe's filter itself and goes on without a
// trap when it finished the firing (every predicate false, or the passing
// clauses' aggregations done). Everything must come out as on the trap
// path: the same aggregations, records and ERRORs as with the DIF
// interpreter (which has no fast sites) and as with the wasm backend on the
// trap path (a trap listener keeps the cores off the fast path), the same
// DIF instruction count, the same firing count, the same guest
// instructions and console output. Enabling a clause the filter can
// neither filter nor run, exit(), stopping and disabling leave the fast path.
import { compile } from '@wdtrace/d-lang';
import { Consumer, DTraceState, ProbeRegistry, defaultOptions, setOption } from '@wdtrace/dtrace-core';
import { Machine, defaultImages } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { GuestMachineView, KernelProviders, createDtraceProvider, createIsaSupport, fireBegin, fireEnd, tracepointsOf } from '../src/index.js';

const decoder = new TextDecoder();

interface Run {
  readonly trace: string;
  readonly aggregations: string;
  readonly out: string;
  readonly guestInstructions: number;
  readonly difInstructions: number;
  readonly firings: number;
  readonly fastFirings: number;
  readonly fastSitesAfterStop: number;
}

/** The guests: A32 and Thumb-2 kernels on ARM, and x86-64. */
type Guest = 'arm' | 'arm-thumb' | 'x86_64';

/** Runs `/bin/syscallheavy 60` on a 2-CPU guest with `script` enabled from BEGIN to END. */
async function traced(guest: Guest, script: string, backend: 'dif' | 'wasm', during?: (m: Machine, state: DTraceState) => void, trapPath = false): Promise<Run> {
  let out = '';
  const isa = guest === 'x86_64' ? 'x86_64' : 'arm';
  const thumb = guest === 'arm-thumb';
  const modules = Object.entries(defaultImages(isa, { thumb }).modules).map(([name, bytes]) => ({ name, bytes }));
  const machine = await Machine.create({ isa, thumb, cpus: 2, cmdline: 'quiet', args: ['/bin/syscallheavy', '60'], modules, consoleOutput: (b) => (out += decoder.decode(b)) });
  const support = await createIsaSupport(isa);
  const view = new GuestMachineView(machine, support);
  const providers = await KernelProviders.create(machine, view, support);
  const registry = new ProbeRegistry();
  registry.registerProvider(createDtraceProvider());
  for (const d of providers.definitions) registry.registerProvider(d);
  const catalogue = { match: (d: Parameters<ProbeRegistry['match']>[0]) => registry.match(d).map((p) => ({ id: p.id, provider: p.provider, module: p.module, function: p.function, name: p.name })) };
  const program = compile(script, { origin: { kind: 'probe', text: script }, dataModel: support.dataModel, probes: catalogue }).program!;
  expect(program).toBeDefined();
  const options = defaultOptions();
  setOption(options, 'backend', backend);
  const state = new DTraceState(program, registry, view, options);
  let trace = '';
  const consumer = new Consumer(state, { out: (s) => (trace += s), err: (s) => (trace += s) });
  providers.fireInto(state);
  state.go(0, (cpu) => fireBegin(state, cpu));
  const table = tracepointsOf(machine);
  // A trap listener: the cores take no fast path.
  if (trapPath) machine.onTrap(() => {});
  if (during) during(machine, state);
  const r = machine.run({ instructions: 2_000_000_000 });
  expect(r).toMatchObject({ kind: 'poweroff', status: 0 });
  consumer.consume(false);
  const firings = table.firings;
  const fastFirings = table.fastFirings;
  state.stop(0, (cpu) => fireEnd(state, cpu));
  consumer.consume(true);
  providers.fireInto(undefined);
  return {
    trace, aggregations: consumer.printAggregations(), out, guestInstructions: machine.instructions, difInstructions: state.instructions,
    firings, fastFirings, fastSitesAfterStop: machine.fastSiteCount + table.fastSiteCount,
  };
}

/** The run with each backend (and with the wasm one on the trap path only): everything equal, and whether the fast run took fast firings. */
async function sameBothWays(guest: Guest, script: string): Promise<Run> {
  const dif = await traced(guest, script, 'dif');
  const trap = await traced(guest, script, 'wasm', undefined, true);
  const wasm = await traced(guest, script, 'wasm');
  expect(dif.fastFirings).toBe(0);
  expect(trap.fastFirings).toBe(0);
  for (const run of [trap, wasm]) {
    expect(run.aggregations).toBe(dif.aggregations);
    expect(run.trace).toBe(dif.trace);
    expect(run.out).toBe(dif.out);
    expect(run.guestInstructions).toBe(dif.guestInstructions);
    expect(run.difInstructions).toBe(dif.difInstructions);
    expect(run.firings).toBe(dif.firings);
    expect(run.fastSitesAfterStop).toBe(0);
  }
  return wasm;
}

/** The firings a filter runs whole (filter.ts): each equal to the interpreter's and the trap path's. */
function wholeFirings(guest: Guest): void {
  it('runs whole firings of @[probefunc] = count() at the fast sites', async () => {
    const wasm = await sameBothWays(guest, 'fbt:::entry { @[probefunc] = count(); }');
    expect(wasm.fastFirings).toBeGreaterThan(wasm.firings * 0.9);
    expect(wasm.aggregations).toMatch(/do_syscall\s+\d+\n/);
  }, 600_000);

  it('runs whole firings of integer-keyed sums and histograms, some keys missing at first', async () => {
    const wasm = await sameBothWays(
      guest,
      'fbt:::entry { @s[arg0] = sum(arg1); } fbt:::entry /arg1 < 4096/ { @q[cpu] = quantize(arg1); } fbt:::entry { @l[arg0 & 3] = lquantize(arg1, 0, 64, 8); } fbt:::entry { @m[arg2 & 7] = max(arg3); }',
    );
    expect(wasm.fastFirings).toBeGreaterThan(wasm.firings / 2);
    expect(wasm.aggregations).toContain('value  ------------- Distribution ------------- count');
  }, 600_000);

  it('runs whole firings of histograms by no key and by the probe\'s own keys, in cells as long as their data', async () => {
    const wasm = await sameBothWays(guest, 'fbt:::entry { @q[probefunc] = quantize(arg1); } fbt:::entry /arg1 < 4096/ { @l = lquantize(arg0 & 0xff, 0, 256, 16, arg2 & 3); }');
    expect(wasm.fastFirings).toBeGreaterThan(wasm.firings * 0.9);
    expect(wasm.aggregations).toContain('value  ------------- Distribution ------------- count');
  }, 600_000);

  it('runs predicates with aggregations whole, next to a probe with a record and one that exits', async () => {
    const wasm = await sameBothWays(
      guest,
      'fbt:::entry /arg0 != 1/ { @[probefunc] = count(); } fbt::memcpy:entry /arg2 < 64/ { trace(arg2); } fbt::do_syscall:entry { n++; } fbt::do_syscall:entry /n == 150/ { trace(n); exit(0); }',
    );
    expect(wasm.fastFirings).toBeGreaterThan(wasm.firings / 2);
    expect(wasm.trace).toMatch(/memcpy:entry\s+\d+\s*\n/);
    expect(wasm.trace).toMatch(/do_syscall:entry\s+150\s*\n/);
  }, 600_000);
}

describe.each([
  { name: 'A32', guest: 'arm' as const },
  { name: 'Thumb-2', guest: 'arm-thumb' as const },
  { name: 'x86-64', guest: 'x86_64' as const },
])('fast probe sites on the $name guest, 2 CPUs', ({ guest }) => {
  it('fires exactly as the trap path for predicates true at some firings', async () => {
    const wasm = await sameBothWays(
      guest,
      'fbt:::entry /arg0 == 1/ { @[probefunc] = count(); } fbt:::entry /arg1 > 3 && arg1 < 9/ { @s[probefunc] = sum(arg1); } fbt:::entry /arg2 == 1 || arg3 == 2/ { @t[probefunc] = count(); }',
    );
    expect(wasm.fastFirings).toBeGreaterThan(wasm.firings / 2);
    expect(wasm.aggregations).toMatch(/\S+\s+\d+\n/);
  }, 600_000);

  it('leaves the sites of a probe with a clause it cannot run, and stops at exit()', async () => {
    const wasm = await sameBothWays(guest, 'fbt:::entry /arg0 == 2/ { @[probefunc] = count(); } fbt::memcpy:entry { @r = count(); } fbt::do_syscall:entry { n++; } fbt::do_syscall:entry /n == 100/ { trace(n); exit(0); }');
    expect(wasm.fastFirings).toBeGreaterThan(0);
    expect(wasm.trace).toMatch(/do_syscall:entry\s+100\s*\n/);
  }, 600_000);

  wholeFirings(guest);

  it('gives the ERROR of a predicate that divides by zero as before', async () => {
    // ERROR's arg4 is the fault (DTRACEFLT_DIVZERO, 4), arg3 its DIF offset.
    const wasm = await sameBothWays(
      guest,
      'fbt::do_syscall:entry /arg0 / (arg1 - arg1) == 1/ { @ = count(); } fbt:::entry /arg0 == 3/ { @c = count(); } dtrace:::ERROR { printf("fault %d at %d\\n", arg4, arg3); }',
    );
    expect(wasm.trace).toContain('divide-by-zero in predicate');
    expect(wasm.trace).toMatch(/:ERROR fault 4 at \d+\n/);
  }, 600_000);

  it('takes the fast sites out when a probe is disabled or tracing stops', async () => {
    let disabled = 0;
    const run = await traced(guest, 'fbt:::entry /arg0 == 0x123456789abcdef/ { @ = count(); }', 'wasm', (machine, state) => {
      // Part of the way in: every fast site is some probe's; disabling one fbt probe takes its site out.
      machine.run({ instructions: 3_000_000 });
      const table = tracepointsOf(machine);
      expect(table.fastSiteCount).toBeGreaterThan(0);
      expect(machine.fastSiteCount).toBe(table.fastSiteCount);
      const fbt = state.registry.match({ provider: 'fbt', module: '', function: '', name: 'entry' });
      for (const p of fbt) {
        const before = table.fastSiteCount;
        state.registry.provider('fbt')!.ops.disable(p.id, p.providerArg);
        if (table.fastSiteCount < before) {
          disabled++;
          break;
        }
      }
    });
    expect(disabled).toBe(1);
    expect(run.fastFirings).toBeGreaterThan(0);
    expect(run.fastSitesAfterStop).toBe(0);
  }, 600_000);
});
