// Fast probe sites on the booted x86-64 guest (2 CPUs): an fbt entry probe
// whose clauses all have pure predicates becomes a fast site, where the
// x86-64 core runs the predicates itself on rdi, rsi, rdx, rcx (arg0..arg3)
// and goes on without a trap when none passes (push %rbp emulated, other
// first instructions run out of line). Everything must come out as on the
// trap path: the same aggregations, records and ERRORs as with the DIF
// interpreter (which has no fast sites), the same DIF instruction count, the
// same firing count, the same guest instructions and console output.
// Enabling a clause without a predicate, exit(), stopping and disabling
// leave the fast path.
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

/** Runs `/bin/syscallheavy 60` on a 2-CPU guest with `script` enabled from BEGIN to END. */
async function traced(script: string, backend: 'dif' | 'wasm', during?: (m: Machine, state: DTraceState) => void): Promise<Run> {
  let out = '';
  const modules = Object.entries(defaultImages('x86_64').modules).map(([name, bytes]) => ({ name, bytes }));
  const machine = await Machine.create({ isa: 'x86_64', cpus: 2, cmdline: 'quiet', args: ['/bin/syscallheavy', '60'], modules, consoleOutput: (b) => (out += decoder.decode(b)) });
  const support = await createIsaSupport('x86_64');
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

/** The run with each backend: everything equal, and whether the wasm run took fast firings. */
async function sameBothWays(script: string): Promise<Run> {
  const dif = await traced(script, 'dif');
  const wasm = await traced(script, 'wasm');
  expect(dif.fastFirings).toBe(0);
  expect(wasm.aggregations).toBe(dif.aggregations);
  expect(wasm.trace).toBe(dif.trace);
  expect(wasm.out).toBe(dif.out);
  expect(wasm.guestInstructions).toBe(dif.guestInstructions);
  expect(wasm.difInstructions).toBe(dif.difInstructions);
  expect(wasm.firings).toBe(dif.firings);
  expect(wasm.fastSitesAfterStop).toBe(0);
  return wasm;
}

describe('fast probe sites on the x86-64 guest, 2 CPUs', () => {
  it('fires exactly as the trap path for predicates true at some firings', async () => {
    const wasm = await sameBothWays(
      'fbt:::entry /arg0 == 1/ { @[probefunc] = count(); } fbt:::entry /arg1 > 3 && arg1 < 9/ { @s[probefunc] = sum(arg1); } fbt:::entry /arg2 == 1 || arg3 == 2/ { @t[probefunc] = count(); }',
    );
    expect(wasm.fastFirings).toBeGreaterThan(wasm.firings / 2);
    expect(wasm.aggregations).toMatch(/\S+\s+\d+\n/);
  }, 600_000);

  it('leaves the sites of a probe with a clause without predicate, and stops at exit()', async () => {
    const wasm = await sameBothWays('fbt:::entry /arg0 == 2/ { @[probefunc] = count(); } fbt::memcpy:entry { @r = count(); } fbt::do_syscall:entry { n++; } fbt::do_syscall:entry /n == 100/ { trace(n); exit(0); }');
    expect(wasm.fastFirings).toBeGreaterThan(0);
    expect(wasm.trace).toMatch(/do_syscall:entry\s+100\s*\n/);
  }, 600_000);

  it('gives the ERROR of a predicate that divides by zero as before', async () => {
    // ERROR's arg4 is the fault (DTRACEFLT_DIVZERO, 4), arg3 its DIF offset.
    const wasm = await sameBothWays(
      'fbt::do_syscall:entry /arg0 / (arg1 - arg1) == 1/ { @ = count(); } fbt:::entry /arg0 == 3/ { @c = count(); } dtrace:::ERROR { printf("fault %d at %d\\n", arg4, arg3); }',
    );
    expect(wasm.trace).toContain('divide-by-zero in predicate');
    expect(wasm.trace).toMatch(/:ERROR fault 4 at \d+\n/);
  }, 600_000);

  it('takes the fast sites out when a probe is disabled or tracing stops', async () => {
    let disabled = 0;
    const run = await traced('fbt:::entry /arg0 == 0x123456789abcdef/ { @ = count(); }', 'wasm', (machine, state) => {
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
