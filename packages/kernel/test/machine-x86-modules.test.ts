// Modules on the x86-64 machine: hello.ko handed over at boot and while the
// guest runs (krtld into kmod_arena / kmod_table), /dev/hello served by it,
// and the SDT site tables of the kernel and the module.
import { describe, expect, it } from 'vitest';
import { defaultImages, KMOD_STATE, Machine, X86_SDT_NOP } from '../src/index.js';
import { sh } from './machine-x86-support.js';

const hello = (): Uint8Array => defaultImages('x86_64').modules['hello']!;

describe('x86-64 machine: modules', () => {
  it('hello.ko loaded at boot: _init runs, /dev/hello reads and writes', async () => {
    const r = await sh('cat /dev/hello; echo dtrace > /dev/hello; cat /dev/hello', { modules: [{ name: 'hello', bytes: hello() }] });
    expect(r.status).toBe(0);
    expect(r.output).toMatch(/^Hello, world! \(read 1, pid \d+\)\nHello, dtrace! \(read 2, pid \d+\)\n$/);
    // kmod_table slot 0: running, _init returned 0
    const table = r.machine.symbols.byName('kmod_table', 'kernel')!;
    const slot = r.machine.readKernel(table.address, 48);
    if (!('bytes' in slot)) throw new Error('kmod_table unreadable');
    const dv = new DataView(slot.bytes.buffer);
    expect(dv.getBigUint64(0, true)).toBe(BigInt(KMOD_STATE.running));
    expect(dv.getBigUint64(40, true)).toBe(0n);
    expect(r.machine.symbols.format(r.machine.modules.module('hello')!.init!)).toBe('hello`_init');
  });

  it('a module loaded while the guest runs is initialised at the next timer tick', async () => {
    let output = '';
    const m = await Machine.create({
      isa: 'x86_64',
      cmdline: 'quiet',
      args: ['/bin/sh', '-c', 'sleep 1; cat /dev/hello'],
      consoleOutput: (b) => (output += new TextDecoder().decode(b)),
    });
    expect(m.run({ untilNs: 100_000_000 })).toEqual({ kind: 'limit' });
    const mod = m.loadModule(hello(), 'hello');
    expect(mod.base).toBe(m.symbols.byName('kmod_arena', 'kernel')!.address);
    expect(await m.runUntilPowerOff({ instructions: 100_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    expect(output).toMatch(/^Hello, world! \(read 1, pid \d+\)\n$/);
    expect(() => m.loadModule(hello(), 'hello')).toThrow('module hello is already loaded');
  });

  it('bad module input and bad kernel addresses get clear errors, and nothing is loaded', async () => {
    const m = await Machine.create({ isa: 'x86_64' });
    expect(() => m.loadModule(new Uint8Array([0x7f, 0x45, 0x4c]), 'broken')).toThrow(/ELF|too small|truncated/i);
    expect(m.modules.loaded).toEqual([]);
    expect(() => m.writeText(0x4000_0000_0000n, Uint8Array.of(0x90))).toThrow('kernel address 0x400000000000 is not mapped to RAM');
    expect(() => m.readText(0xffff_ffff_c000_0000n, 4)).toThrow('kernel address 0xffffffffc0000000 is not mapped to RAM');
  });

  it('SDT site tables: the kernel image is loaded patched, the module sites are nops too', async () => {
    const m = await Machine.create({ isa: 'x86_64', modules: [{ name: 'hello', bytes: hello() }] });
    const sites = m.sdtSites();
    const kernelProbes = new Set(sites.filter((s) => s.module === 'kernel').map((s) => `${s.provider}:${s.probe}`));
    for (const p of ['proc:exec', 'proc:exit', 'proc:create', 'sched:on-cpu', 'sched:off-cpu', 'io:start', 'sdt:syscall-entry', 'sdt:kmod-init']) expect(kernelProbes).toContain(p);
    const helloSites = sites.filter((s) => s.module === 'hello');
    expect(new Set(helloSites.map((s) => s.probe))).toEqual(new Set(['hello-open', 'hello-read-start', 'hello-read-done', 'hello-write', 'hello-release']));
    expect(helloSites.find((s) => s.probe === 'hello-open')!.function).toBe('hello_open');
    for (const s of sites) expect(m.readText(s.address, 5), `${s.module}:${s.probe} at 0x${s.address.toString(16)}`).toEqual(s.tailCall ? s.patch : X86_SDT_NOP);
  });
});
