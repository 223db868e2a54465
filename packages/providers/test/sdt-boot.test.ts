// Every sdt, proc, sched and io probe enabled from power-on of a booted
// two-CPU guest: the guest runs a shell exactly as untraced, and the probes
// fire with the arguments the kernel passes at each site (read during the
// firing, as D would).
import { ProbeRegistry, parseProbeDescription } from '@wdtrace/dtrace-core';
import { Machine, type Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { SdtProvider } from '../src/sdt/provider.js';
import { firingArgs } from './firing-args.js';

const SCRIPT = 'echo hi; ls /';

async function run(isa: Isa, traced: boolean) {
  let output = '';
  const machine = await Machine.create({ isa, cpus: 2, cmdline: 'quiet', args: ['/bin/sh', '-c', SCRIPT], consoleOutput: (b) => (output += new TextDecoder().decode(b)) });
  const registry = new ProbeRegistry();
  const seen: { name: string; cpu: number; args: readonly bigint[]; text?: string }[] = [];
  const str = (a: bigint) => {
    const r = machine.readString(a, 64);
    return 'text' in r ? r.text : `<fault 0x${r.fault.toString(16)}>`;
  };
  const sdt = await SdtProvider.create(machine, {
    probe: (id, cpu, values, rest) => {
      const args = firingArgs(values, rest);
      const p = registry.probe(id)!;
      const name = `${p.provider}:::${p.name}`;
      // Strings the sites pass: exec's path, the syscall name.
      const text = name === 'proc:::exec' ? str(args[0]!) : name === 'sdt:::syscall-entry' ? str(args[1]!) : undefined;
      seen.push({ name, cpu, args, text });
    },
  });
  for (const d of sdt.definitions) registry.registerProvider(d);
  const probes = traced ? ['sdt', 'proc', 'sched', 'io'].flatMap((p) => registry.match(parseProbeDescription(`${p}:::`))) : [];
  for (const p of probes) registry.provider(p.provider)!.ops.enable(p.id, p.providerArg);
  const result = await machine.runUntilPowerOff({ instructions: 400_000_000 });
  return { result, output, probes, seen };
}

describe.each(['x86_64', 'arm'] as const)('sdt from power-on of a two-CPU %s guest', (isa) => {
  it('fires the kernel static probes with their arguments while the guest runs as untraced', async () => {
    const plain = await run(isa, false);
    const t = await run(isa, true);
    expect(plain.result).toEqual({ kind: 'poweroff', status: 0 });
    expect(t.result).toEqual({ kind: 'poweroff', status: 0 });
    expect(t.output).toBe(plain.output);
    expect(t.probes.length).toBeGreaterThanOrEqual(30);
    const named = (n: string) => t.seen.filter((s) => s.name === n);
    // exec of the shell and of ls, by path.
    expect(named('proc:::exec').map((s) => s.text)).toEqual(expect.arrayContaining(['/bin/sh', '/bin/ls']));
    expect(named('proc:::exec-success').length).toBe(named('proc:::exec').length);
    // Every process that exits does so normally (CLD_EXITED = 1).
    expect(named('proc:::exit').length).toBeGreaterThan(0);
    for (const e of named('proc:::exit')) expect(e.args[0]).toBe(1n);
    // System calls by name; entry and return pair up by number.
    const calls = named('sdt:::syscall-entry').map((s) => s.text);
    expect(calls).toEqual(expect.arrayContaining(['execve', 'write']));
    expect(named('sdt:::syscall-return').length).toBeLessThanOrEqual(named('sdt:::syscall-entry').length);
    // Context switches: off-cpu names the next task, a kernel pointer.
    expect(named('sched:::on-cpu').length).toBeGreaterThan(0);
    for (const s of named('sched:::off-cpu')) expect(s.args[0]).not.toBe(0n);
    // write(1, "hi\n", 3): the file-write-start site passes fd and count.
    expect(named('sdt:::file-write-start').some((s) => s.args[0] === 1n && s.args[2] === 3n)).toBe(true);
    console.log(`sdt ${isa}: ${t.probes.length} probes, ${t.seen.length} firings on CPUs ${[...new Set(t.seen.map((s) => s.cpu))].join(',')}; syscalls: ${[...new Set(calls)].join(' ')}`);
  });
});
