// Every fbt probe of the kernel enabled from power-on of a booted two-CPU
// guest (ARM's early boot runs at the kernel's physical address, before the
// MMU maps it: those traps arrive at the text's alias): the guest boots and
// runs a shell exactly as untraced, and the probes fire on both CPUs.
import { ProbeRegistry, parseProbeDescription } from '@wdtrace/dtrace-core';
import { Machine, type Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { FbtProvider } from '../src/fbt/provider.js';
import { firingArgs } from './firing-args.js';

const SCRIPT = 'echo hi; ls /';

async function run(isa: Isa, traced: boolean) {
  let output = '';
  const machine = await Machine.create({ isa, cpus: 2, cmdline: 'quiet', args: ['/bin/sh', '-c', SCRIPT], consoleOutput: (b) => (output += new TextDecoder().decode(b)) });
  const registry = new ProbeRegistry();
  const counts = new Map<string, number>();
  const cpus = new Set<number>();
  const strcmpValues: bigint[] = [];
  const fbt = await FbtProvider.create(machine, {
    probe: (id, cpu, args, rest) => {
      const p = registry.probe(id)!;
      const key = `${p.function}:${p.name}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      cpus.add(cpu);
      if (key === 'strcmp:return') strcmpValues.push(firingArgs(args, rest)[1]!);
    },
  });
  registry.registerProvider(fbt.definition);
  const probes = traced ? registry.match(parseProbeDescription('fbt:kernel::')) : [];
  for (const p of probes) fbt.definition.ops.enable(p.id, p.providerArg);
  const start = performance.now();
  const result = await machine.runUntilPowerOff({ instructions: 400_000_000 });
  return { result, output, probes, counts, cpus, strcmpValues, ms: performance.now() - start };
}

describe.each(['x86_64', 'arm'] as const)('fbt from power-on of a two-CPU %s guest', (isa) => {
  it('traces every kernel function while the guest runs as untraced', async () => {
    const plain = await run(isa, false);
    expect(plain.result).toEqual({ kind: 'poweroff', status: 0 });
    const t = await run(isa, true);
    expect(t.result).toEqual({ kind: 'poweroff', status: 0 });
    expect(t.output).toBe(plain.output);
    expect(t.output).toMatch(/^hi\nbin\n/);
    expect(t.probes.length).toBeGreaterThan(600);
    const firings = [...t.counts.values()].reduce((a, b) => a + b, 0);
    expect(firings).toBeGreaterThan(5000);
    expect(t.cpus).toEqual(new Set([0, 1]));
    // Boot code: start_kernel's entry fired (ARM: at its physical alias, before the MMU is on, when it runs there).
    expect(t.counts.get('start_kernel:entry')).toBe(1);
    expect(t.counts.get('secondary_start_kernel:entry')).toBe(1);
    // A leaf function: as many returns as entries, and strcmp's results are comparisons.
    expect(t.counts.get('strcmp:return')).toBe(t.counts.get('strcmp:entry'));
    expect(t.strcmpValues).toContain(0n);
    console.log(`fbt ${isa}: ${t.probes.length} probes, ${firings} firings on CPUs ${[...t.cpus].join(',')}; run ${t.ms.toFixed(0)} ms traced, ${plain.ms.toFixed(0)} ms untraced`);
  });
});
