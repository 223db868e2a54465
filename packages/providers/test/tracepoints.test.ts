// The patching shared by fbt, sdt and kinst on one kernel: probes sharing an
// address all fire (entry probes first) and the bytes come back only when the
// last goes; overlapping patches are refused; the unpatched text stays
// readable; a module's tracepoints go with the module; sites whose addresses
// share their low 32 bits are told apart.
import { ProbeRegistry, parseProbeDescription, type Probe } from '@wdtrace/dtrace-core';
import { defaultImages, type Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { KernelCalls } from './kernel-calls.js';
import { FbtProvider } from '../src/fbt/provider.js';
import { KinstProvider } from '../src/kinst/provider.js';
import { SdtProvider } from '../src/sdt/provider.js';
import { TracepointTable, tracepointsOf, type PatchableText } from '../src/tracepoints.js';


async function setUp(isa: Isa) {
  const target = await KernelCalls.create(isa);
  const fired: string[] = [];
  const registry = new ProbeRegistry();
  const sink = { probe: (id: number) => void fired.push(`${registry.probe(id)!.provider}:${registry.probe(id)!.function}:${registry.probe(id)!.name}`) };
  const fbt = await FbtProvider.create(target.machine, sink);
  const kinst = await KinstProvider.create(target.machine, sink, { fbt });
  const sdt = await SdtProvider.create(target.machine, sink);
  registry.registerProvider(fbt.definition);
  registry.registerProvider(kinst.definition);
  for (const d of sdt.definitions) registry.registerProvider(d);
  const one = (d: string): Probe => {
    const m = registry.match(parseProbeDescription(d));
    expect(m, d).toHaveLength(1);
    return m[0]!;
  };
  const ops = (p: Probe) => registry.provider(p.provider)!.ops;
  return {
    target, fired, registry, one,
    enable: (p: Probe) => ops(p).enable(p.id, p.providerArg),
    disable: (p: Probe) => ops(p).disable(p.id, p.providerArg),
  };
}

describe.each(['x86_64', 'arm'] as const)('shared tracepoints on the %s kernel', (isa) => {
  it('fires fbt entry and kinst at the same address, entry first, and restores the bytes after the last', async () => {
    const t = await setUp(isa);
    const strlen = t.target.machine.symbols.byName('strlen')!.address;
    const original = t.target.machine.readText(strlen, 4);
    const kinst0 = t.one('kinst::strlen:0');
    const entry = t.one('fbt:kernel:strlen:entry');
    t.enable(kinst0); // kinst first: its patch is the one written
    t.enable(entry);
    expect(tracepointsOf(t.target.machine).size).toBe(1);
    expect(tracepointsOf(t.target.machine).readOriginal(strlen, 4)).toEqual(original);
    const s = t.target.scratch;
    t.target.machine.writeText(s, new TextEncoder().encode('four\0'));
    expect(t.target.call(strlen, [s]).value).toBe(4n);
    expect(t.fired).toEqual(['fbt:strlen:entry', 'kinst:strlen:0']);
    t.disable(kinst0);
    expect(t.target.machine.readText(strlen, 4)).not.toEqual(original);
    t.fired.length = 0;
    expect(t.target.call(strlen, [s]).value).toBe(4n);
    expect(t.fired).toEqual(['fbt:strlen:entry']);
    t.disable(entry);
    expect(t.target.machine.readText(strlen, 4)).toEqual(original);
    expect(t.target.handlerCount).toBe(0);
  });

  it('refuses a patch that would overlap another one, naming both', async () => {
    const t = await setUp(isa);
    // An sdt site is 5 bytes on x86-64: kinst on its first byte shares the address, on a later one it overlaps.
    const site = t.target.machine.kernelModules()[0]!.sdtSites.find((x) => x.probe === 'exec')!;
    const exec = t.one(`proc:kernel:${site.function}:exec`);
    t.enable(exec);
    const fn = t.target.machine.symbols.byName(site.function)!;
    const off = Number(site.address - fn.address);
    t.enable(t.one(`kinst::${site.function}:${off}`));
    if (isa === 'x86_64') {
      // The instruction after the site starts 5 bytes on; a forged 1-byte tracepoint inside the site overlaps.
      expect(() => tracepointsOf(t.target.machine).install({ address: site.address + 2n, patch: Uint8Array.of(0xcc), name: 'test:inside', fire: () => ({ kind: 'resume' }) })).toThrow(
        /test:inside: patch at 0x[0-9a-f]+ would overlap the one at 0x[0-9a-f]+ \(proc:kernel:do_execve_common:exec\)/,
      );
    }
    expect(tracepointsOf(t.target.machine).size).toBe(1);
  });

  it('types a module function’s arguments from the module’s DWARF', async () => {
    const t = await setUp(isa);
    t.target.loadModule('hello', defaultImages(isa).modules['hello']!);
    const entry = t.one('fbt:hello:hello_write:entry');
    const ret = t.one('fbt:hello:hello_write:return');
    const desc = (p: Probe, i: number) => t.registry.provider('fbt')!.ops.getArgDesc!(p.id, p.providerArg, i)?.native;
    expect([0, 1, 2, 3, 4].map((i) => desc(entry, i))).toEqual(['struct file *', 'const char *', 'size_t', 'off_t *', undefined]);
    expect([desc(ret, 0), desc(ret, 1)]).toEqual(['int', 'ssize_t']);
  });

  it('drops a module’s tracepoints when it is unloaded and refuses to enable its probes again', async () => {
    const t = await setUp(isa);
    t.target.loadModule('hello', defaultImages(isa).modules['hello']!);
    const entry = t.one('fbt:hello:hello_open:entry');
    const site = t.one('sdt:hello:hello_open:hello-open');
    const k = t.one('kinst:hello:hello_write:0');
    t.enable(entry);
    t.enable(site);
    t.enable(k);
    expect(tracepointsOf(t.target.machine).size).toBe(3);
    t.target.unloadModule('hello');
    expect(tracepointsOf(t.target.machine).size).toBe(0);
    expect(t.target.handlerCount).toBe(0);
    expect(() => t.enable(entry)).toThrow(/module hello of hello_open:entry was unloaded/);
    expect(() => t.enable(site)).toThrow(/module hello was unloaded/);
    expect(() => t.enable(k)).toThrow(/module hello of hello_write:0 was unloaded/);
    // Loaded again (elsewhere): the same probes work on the new code.
    t.target.loadModule('hello', defaultImages(isa).modules['hello']!);
    expect(t.one('fbt:hello:hello_open:entry')).toBe(entry);
    expect(t.one('sdt:hello:hello_open:hello-open')).toBe(site);
    expect(t.one('kinst:hello:hello_write:0')).toBe(k);
    t.enable(entry);
    t.enable(site);
    t.enable(k);
    const open = t.target.machine.symbols.byName('hello_open', 'hello')!;
    expect((entry.providerArg as { function: { address: bigint } }).function.address).toBe(open.address);
    expect(t.target.call(open.address, [0n, 0x10n]).value).toBe(0n);
    expect(t.fired).toEqual(['fbt:hello_open:entry', 'sdt:hello_open:hello-open']);
  });
});

describe('a tracepoint table', () => {
  it('tells apart sites whose addresses share their low 32 bits, as they come and go', () => {
    // A text of its own: bytes by address, anywhere in the 64-bit space.
    const bytes = new Map<bigint, number>();
    const text: PatchableText = {
      readText: (va, length) => Uint8Array.from({ length }, (_, i) => bytes.get(va + BigInt(i)) ?? 0x90),
      writeText: (va, b) => b.forEach((x, i) => bytes.set(va + BigInt(i), x)),
      addInvopHandler: () => () => {},
    };
    const table = new TracepointTable(text);
    const fired: string[] = [];
    const at = [0x1234_5678n, 0x1_1234_5678n, 0xffff_ffff_1234_5678n, 0x1234_5679n];
    const tps = at.map((address, i) => ({ address, patch: Uint8Array.of(0xcc), name: `tp${i}`, fire: () => (fired.push(`tp${i}`), { kind: 'resume' as const }) }));
    const trap = (pc: bigint) => table.handle({ cpu: 0, kind: 'breakpoint', pc, user: false });
    for (const tp of tps) table.install(tp);
    for (const pc of [...at].reverse()) trap(pc);
    expect(fired).toEqual(['tp3', 'tp2', 'tp1', 'tp0']);
    expect(trap(0x2_1234_5678n)).toBeUndefined();
    // The chain of 0x12345678 is tp2, tp1, tp0: its end goes, then its head, then the one left.
    for (const [gone, left] of [[0, ['tp1', 'tp2', 'tp3']], [2, ['tp1', 'tp3']], [1, ['tp3']]] as const) {
      table.remove(tps[gone]!);
      expect(bytes.get(at[gone]!)).toBe(0x90);
      fired.length = 0;
      for (const pc of at) trap(pc);
      expect(fired).toEqual(left);
    }
    expect(table.size).toBe(1);
    table.install(tps[1]!);
    fired.length = 0;
    for (const pc of at) trap(pc);
    expect(fired).toEqual(['tp1', 'tp3']);
  });
});
