// sdt on both committed kernels and the hello module, run by the real cores:
// probes come from krtld's sites under the providers their symbols name,
// enabling writes the trapping pattern over the no-op, disabling restores
// the exact bytes, and a firing takes the site's argument registers and
// resumes after the site with the state native execution leaves.
import { ProbeRegistry, type Probe, type ProbeArgumentSource } from '@wdtrace/dtrace-core';
import { defaultImages, type Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { KernelCalls } from './kernel-calls.js';
import { SdtProvider } from '../src/sdt/provider.js';
import { firingArgs } from './firing-args.js';


class Recorder {
  readonly fired: { probe: string; args: readonly bigint[] }[] = [];
  registry: ProbeRegistry | undefined;
  probe(id: number, _cpu: number, args: readonly bigint[], rest?: ProbeArgumentSource): void {
    const p = this.registry!.probe(id)!;
    this.fired.push({ probe: `${p.provider}:${p.module}:${p.function}:${p.name}`, args: firingArgs(args, rest) });
  }
}

async function setUp(isa: Isa) {
  const target = await KernelCalls.create(isa);
  const rec = new Recorder();
  const sdt = await SdtProvider.create(target.machine, rec);
  const registry = new ProbeRegistry();
  rec.registry = registry;
  for (const d of sdt.definitions) registry.registerProvider(d);
  const ops = (p: Probe) => registry.provider(p.provider)!.ops;
  const enable = (p: Probe) => ops(p).enable(p.id, p.providerArg);
  const disable = (p: Probe) => ops(p).disable(p.id, p.providerArg);
  return { target, rec, sdt, registry, enable, disable };
}

const hexBytes = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');

describe.each(['x86_64', 'arm'] as const)('sdt on the %s kernel', (isa) => {
  it('names probes after the site symbols, one probe for sites sharing a name in a function', async () => {
    const t = await setUp(isa);
    const names = (provider: string) => t.registry.match({ provider, module: 'kernel', function: '', name: '' }).map((p) => `${p.function}:${p.name}`);
    expect(names('proc')).toEqual(expect.arrayContaining(['do_execve_common:exec', 'do_execve_common:exec-success', 'do_exit:exit', 'do_fork:create']));
    expect(names('sched')).toEqual(expect.arrayContaining(['schedule:on-cpu', 'schedule:off-cpu', 'wake_up_process:wakeup']));
    expect(names('io')).toEqual(expect.arrayContaining(['vfs_read:start', 'vfs_read:done']));
    expect(names('sdt')).toEqual(expect.arrayContaining(['do_syscall:syscall-entry', 'kmod_poll:kmod-init']));
    // do_iov has two io:::start sites: one probe covering both.
    const iov = t.registry.match({ provider: 'io', module: 'kernel', function: 'do_iov', name: 'start' });
    expect(iov).toHaveLength(1);
    expect((iov[0]!.providerArg as { sites: unknown[] }).sites).toHaveLength(2);
  });

  it('writes the trapping pattern on enable and restores the exact no-op on disable', async () => {
    const t = await setUp(isa);
    const all = SDT_ALL(t.registry);
    const sites = all.flatMap((p) => (p.providerArg as { sites: { address: bigint; patch: Uint8Array }[] }).sites);
    // 38 since send_signal is no longer inlined into force_sig_fault (one copy of proc:::signal-send).
    expect(sites.length).toBeGreaterThanOrEqual(38);
    const before = sites.map((s) => t.target.machine.readText(s.address, s.patch.length));
    for (const [i, s] of sites.entries()) expect(hexBytes(before[i]!)).toBe(hexBytes(s.patch));
    for (const p of all) t.enable(p);
    for (const s of sites) {
      const now = t.target.machine.readText(s.address, s.patch.length);
      if (isa === 'x86_64') expect(hexBytes(now)).toBe('f0 0f 1f 40 00');
      else expect(hexBytes(now)).toBe('fe 00 f0 e7');
    }
    for (const p of all) t.disable(p);
    sites.forEach((s, i) => expect(hexBytes(t.target.machine.readText(s.address, s.patch.length))).toBe(hexBytes(before[i]!)));
  });

  it('fires the hello module probe from hello_open with the site arguments and resumes after the site', async () => {
    const t = await setUp(isa);
    const hello = t.target.loadModule('hello', defaultImages(isa).modules['hello']!);
    expect(hello.sdtSites.map((s) => s.probe)).toEqual(expect.arrayContaining(['hello-open', 'hello-read-start', 'hello-read-done', 'hello-write']));
    const open = t.target.machine.symbols.byName('hello_open', 'hello')!;
    const native = t.target.call(open.address, [0x1111n, 0x2222n]);
    expect(native.value).toBe(0n);
    const [probe] = t.registry.match({ provider: 'sdt', module: 'hello', function: 'hello_open', name: 'hello-open' });
    expect(probe).toBeDefined();
    t.enable(probe!);
    const traced = t.target.call(open.address, [0x1111n, 0x2222n]);
    expect(traced.value).toBe(0n);
    expect(traced.traps).toHaveLength(1);
    const site = (probe!.providerArg as { sites: { address: bigint }[] }).sites[0]!;
    expect(traced.traps[0]!.trap.pc).toBe(site.address);
    expect(traced.traps[0]!.trap.kind).toBe('undefined'); // x86-64 #UD from the locked nop; ARM the DTrace breakpoint (a UDF)
    expect(t.rec.fired.map((f) => f.probe)).toEqual(['sdt:hello:hello_open:hello-open']);
    // DTRACE_PROBE2(hello__open, file, opens): the second open counts 2.
    expect(t.rec.fired[0]!.args.slice(0, 2)).toEqual([0x2222n, 2n]);
    expect(t.rec.fired[0]!.args).toHaveLength(10);
    t.disable(probe!);
    const third = t.target.call(open.address, [0x1111n, 0x2222n]);
    expect(third.traps).toHaveLength(0);
    expect(t.rec.fired).toHaveLength(1);
  });
});

function SDT_ALL(registry: ProbeRegistry): Probe[] {
  return ['sdt', 'proc', 'sched', 'io'].flatMap((provider) => registry.match({ provider, module: 'kernel', function: '', name: '' }));
}
