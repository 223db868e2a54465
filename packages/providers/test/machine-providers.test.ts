// fbt, sdt and kinst on a booted guest: the providers drive the real
// Machine of @wdtrace/kernel while its kernel
// runs a shell, and the guest's output is the same as without tracing.
import { ProbeRegistry, parseProbeDescription, type Probe, type ProbeArgumentSource } from '@wdtrace/dtrace-core';
import { Machine, defaultImages, type Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { FbtProvider } from '../src/fbt/provider.js';
import { KinstProvider } from '../src/kinst/provider.js';
import { SdtProvider } from '../src/sdt/provider.js';
import { firingArgs } from './firing-args.js';

class Recorder {
  readonly fired: { name: string; cpu: number; args: readonly bigint[] }[] = [];
  registry: ProbeRegistry | undefined;
  probe(id: number, cpu: number, args: readonly bigint[], rest?: ProbeArgumentSource): void {
    const p = this.registry!.probe(id)!;
    this.fired.push({ name: `${p.provider}:${p.module}:${p.function}:${p.name}`, cpu, args: firingArgs(args, rest) });
  }
}

const SCRIPT = 'echo hi; cat /dev/hello';

async function boot(isa: Isa, traced: boolean) {
  const images = defaultImages(isa);
  let output = '';
  const machine = await Machine.create({
    isa,
    cmdline: 'quiet',
    args: ['/bin/sh', '-c', SCRIPT],
    modules: [{ name: 'hello', bytes: images.modules['hello']! }],
    consoleOutput: (b) => (output += new TextDecoder().decode(b)),
  });
  const rec = new Recorder();
  const registry = new ProbeRegistry();
  rec.registry = registry;
  const fbt = await FbtProvider.create(machine, rec);
  const sdt = await SdtProvider.create(machine, rec);
  const kinst = await KinstProvider.create(machine, rec, { fbt });
  registry.registerProvider(fbt.definition);
  for (const d of sdt.definitions) registry.registerProvider(d);
  registry.registerProvider(kinst.definition);
  const enabled: Probe[] = [];
  const fns = machine.kernelModules()[0]!.functions;
  const textStart = fns[0]!.address;
  const textLength = Number(fns[fns.length - 1]!.address + BigInt(fns[fns.length - 1]!.size) - textStart);
  const text = () => machine.readText(textStart, textLength);
  const textBefore = text();
  if (traced) {
    const enable = (p: Probe) => {
      if (enabled.includes(p)) return;
      registry.provider(p.provider)!.ops.enable(p.id, p.providerArg);
      enabled.push(p);
    };
    for (const d of ['fbt:kernel:sys_write:', 'fbt:kernel:do_execve_common:entry', 'proc:kernel::exec', 'io:kernel:sys_write:start', 'kinst::sys_write:0']) {
      for (const p of registry.match(parseProbeDescription(d))) enable(p);
    }
    // kinst on every other instruction of sys_write, never next to another
    // probed instruction: Machine.run counts a slice that traps before
    // retiring anything as no progress, and two such slices in a row end the
    // run as 'idle' although the CPU runs on (a limitation of the machine's
    // run loop when this was written, not of the probes).
    const fn = machine.kernelModules()[0]!.functions.find((f) => f.name === 'sys_write')!;
    const returns = new Set(
      registry.match(parseProbeDescription('fbt:kernel:sys_write:return')).flatMap((p) => (p.providerArg as { points: { insn: { address: bigint } }[] }).points.map((x) => x.insn.address)),
    );
    const insns = kinst.instructions(machine.kernelModules()[0]!, fn);
    insns.forEach((i, k) => {
      if (k % 2 !== 0 || k === 0 || returns.has(insns[k - 1]!.insn.address) || (insns[k + 1] && returns.has(insns[k + 1]!.insn.address))) return;
      for (const p of registry.match(parseProbeDescription(`kinst::sys_write:${i.offset}`))) enable(p);
    });
  }
  return { machine, rec, registry, enabled, text, textBefore, output: () => output };
}

describe.each(['x86_64', 'arm'] as const)('kernel providers on a booted %s guest', (isa) => {
  it('fire in the running kernel while the guest behaves as untraced', async () => {
    const plain = await boot(isa, false);
    expect(await plain.machine.runUntilPowerOff({ instructions: 200_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    const expected = plain.output();
    expect(expected).toMatch(/^hi\nHello, world! \(read 1, pid \d+\)\n$/);

    const t = await boot(isa, true);
    expect(t.enabled.length).toBeGreaterThan(10);
    expect(await t.machine.runUntilPowerOff({ instructions: 200_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    expect(t.output()).toBe(expected);

    const names = t.rec.fired.map((f) => f.name);
    expect(names).toContain('proc:kernel:do_execve_common:exec');
    expect(names).toContain('fbt:kernel:do_execve_common:entry');
    // echo's write of "hi\n": sys_write(1, buf, 3) and its return of 3 (vfs_write is inlined there).
    const writes = t.rec.fired.filter((f) => f.name === 'fbt:kernel:sys_write:entry');
    const rets = t.rec.fired.filter((f) => f.name === 'fbt:kernel:sys_write:return');
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.length).toBe(rets.length);
    expect(writes.some((w) => w.args[0] === 1n && w.args[2] === 3n)).toBe(true);
    expect(rets.some((r) => r.args[1] === 3n)).toBe(true);
    // io:::start inside sys_write fires between its entry and return; kinst at offset 0 fires with the entry.
    const ioStarts = t.rec.fired.filter((f) => f.name === 'io:kernel:sys_write:start');
    expect(ioStarts.length).toBeGreaterThan(0);
    expect(ioStarts.length).toBeLessThanOrEqual(writes.length);
    expect(t.rec.fired.filter((f) => f.name === 'kinst:kernel:sys_write:0').length).toBe(writes.length);
    const firstEntry = names.indexOf('fbt:kernel:sys_write:entry');
    expect(names[firstEntry + 1]).toBe('kinst:kernel:sys_write:0');
    const firstStart = names.indexOf('io:kernel:sys_write:start');
    expect(firstStart).toBeGreaterThan(firstEntry);
    expect(t.rec.fired.filter((f) => f.name.startsWith('kinst:')).length).toBeGreaterThan(writes.length * 5);
    // Disabled, the kernel text is byte for byte what it was.
    expect(t.text()).not.toEqual(t.textBefore);
    for (const p of t.enabled) t.registry.provider(p.provider)!.ops.disable(p.id, p.providerArg);
    expect(t.text()).toEqual(t.textBefore);
    console.log(`${isa}: ${t.enabled.length} probes enabled, ${t.rec.fired.length} firings on the booted guest`);
  });
});
