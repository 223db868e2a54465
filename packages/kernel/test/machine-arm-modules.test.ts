// Modules on the ARM machine: hello.ko handed over at boot and while the
// guest runs (krtld into kmod_arena / kmod_table), /dev/hello served by it,
// the module's SDT sites firing through trap interposition, and the SDT
// site tables of the kernel and the module.
import { ArmEmulation, DTRACE_BREAKPOINT, describeA32 } from '@wdtrace/isa-arm-as';
import { describe, expect, it } from 'vitest';
import { ARM_SDT_NOP, defaultImages, KMOD_STATE } from '../src/index.js';
import { armMachine, sh } from './machine-arm-support.js';

const hello = (): Uint8Array => defaultImages('arm').modules['hello']!;
const word = (bytes: Uint8Array): number => new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
const bytesOf = (w: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, w >>> 0, true);
  return b;
};

describe('ARM machine: modules', () => {
  it('hello.ko loaded at boot: _init runs, /dev/hello reads and writes', async () => {
    const r = await sh('cat /dev/hello; echo dtrace > /dev/hello; cat /dev/hello', { modules: [{ name: 'hello', bytes: hello() }] });
    expect(r.status).toBe(0);
    expect(r.output).toMatch(/^Hello, world! \(read 1, pid \d+\)\nHello, dtrace! \(read 2, pid \d+\)\n$/);
    // kmod_table slot 0 (32-bit fields on ARM): running, _init returned 0, the name.
    const table = r.machine.symbols.byName('kmod_table', 'kernel')!;
    const slot = r.machine.readKernel(table.address, 56);
    if (!('bytes' in slot)) throw new Error('kmod_table unreadable');
    const dv = new DataView(slot.bytes.buffer);
    const mod = r.machine.modules.module('hello')!;
    expect(dv.getUint32(0, true)).toBe(KMOD_STATE.running);
    expect(BigInt(dv.getUint32(4, true))).toBe(mod.base);
    expect(BigInt(dv.getUint32(12, true))).toBe(mod.init);
    expect(dv.getInt32(20, true)).toBe(0);
    expect(new TextDecoder().decode(slot.bytes.subarray(24, 29))).toBe('hello');
    expect(r.machine.symbols.format(mod.init!)).toBe('hello`_init');
  });

  it('a module loaded while the guest runs is initialised at the next timer tick', async () => {
    const { machine: m, output } = await armMachine({ cmdline: 'quiet', args: ['/bin/sh', '-c', 'sleep 1; cat /dev/hello'] });
    expect(m.run({ untilNs: 100_000_000 })).toEqual({ kind: 'limit' });
    const mod = m.loadModule(hello(), 'hello');
    expect(mod.base).toBe(m.symbols.byName('kmod_arena', 'kernel')!.address);
    expect(await m.runUntilPowerOff({ instructions: 200_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toMatch(/^Hello, world! \(read 1, pid \d+\)\n$/);
    expect(() => m.loadModule(hello(), 'hello')).toThrow('module hello is already loaded');
  });

  it('SDT site tables: the kernel image is loaded patched, the module sites are nops too', async () => {
    const { machine: m } = await armMachine({ modules: [{ name: 'hello', bytes: hello() }] });
    const sites = m.sdtSites();
    const kernelProbes = new Set(sites.filter((s) => s.module === 'kernel').map((s) => `${s.provider}:${s.probe}`));
    for (const p of ['proc:exec', 'proc:exit', 'proc:create', 'sched:on-cpu', 'sched:off-cpu', 'io:start', 'sdt:syscall-entry', 'sdt:kmod-init']) expect(kernelProbes).toContain(p);
    const helloSites = sites.filter((s) => s.module === 'hello');
    expect(new Set(helloSites.map((s) => s.probe))).toEqual(new Set(['hello-open', 'hello-read-start', 'hello-read-done', 'hello-write', 'hello-release']));
    expect(helloSites.find((s) => s.probe === 'hello-open')!.function).toBe('hello_open');
    for (const s of sites) {
      expect(s.address % 4n).toBe(0n);
      expect(word(m.readText(s.address, 4)), `${s.module}:${s.probe} at 0x${s.address.toString(16)}`).toBe(s.tailCall ? word(s.patch) : ARM_SDT_NOP);
    }
  });

  it('an enabled module SDT site traps with its arguments in r0-r4 and the guest runs on', async () => {
    const { machine: m, output } = await armMachine({ cmdline: 'quiet', args: ['/bin/sh', '-c', 'echo probe me > /dev/hello; cat /dev/hello'], modules: [{ name: 'hello', bytes: hello() }] });
    const site = m.sdtSites().find((s) => s.module === 'hello' && s.probe === 'hello-write')!;
    expect(describeA32(word(m.readText(site.address, 4))).text).toBe('nop');
    // Enabling an ARM SDT site writes the breakpoint (always condition) over the nop.
    m.writeText(site.address, bytesOf(DTRACE_BREAKPOINT | 0xe));
    const fired: { args: bigint[]; pc: bigint; name: string }[] = [];
    m.addInvopHandler((trap) => {
      if (trap.pc !== site.address) return undefined;
      const regs = m.registers(trap.cpu);
      const name = m.readString(regs.get(0), 64);
      fired.push({ args: [0, 1, 2].map((n) => regs.get(n)), pc: trap.pc, name: 'text' in name ? name.text : '' });
      return { kind: 'emulate', code: ArmEmulation.ANY, word: ARM_SDT_NOP };
    });
    expect(await m.runUntilPowerOff({ instructions: 200_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toMatch(/^Hello, probe me! \(read 1, pid \d+\)\n$/);
    expect(fired.length).toBe(1);
    // DTRACE_PROBE2(hello__write, const char *, hello_state.name, size_t, n): the module's name buffer, and the bytes written.
    expect(fired[0]!.name).toBe('probe me');
    expect(fired[0]!.args[1]).toBe(9n);
    expect(m.symbols.format(fired[0]!.pc)).toMatch(/^hello`hello_write\+0x[0-9a-f]+$/);
  });
});
