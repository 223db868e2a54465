// Modules on the machine of each ISA: hello.ko handed over at boot and while
// the guest runs (krtld into kmod_arena / kmod_table), /dev/hello served by
// it, the SDT site tables of the kernel and the module, and a module's SDT
// site enabled by hand firing through trap interposition.
import { ArmEmulation, DTRACE_BREAKPOINT } from '@wdtrace/isa-arm-as';
import { describe, expect, it } from 'vitest';
import { ARM_SDT_NOP, ISAS, KMOD_STATE, X86_SDT_NOP, defaultImages, encodeKmodSlot, kmodSlotSize, type InvopResult, type Isa, type SdtSite } from '../src/index.js';
import { guestMachine, shell } from './machine-support.js';

const le32 = (w: number): Uint8Array => Uint8Array.of(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);

/** What differs between the ISAs here: the no-op krtld writes at a site, and enabling a site by hand. */
const SITES: Readonly<Record<Isa, { nop(site: SdtSite): Uint8Array; enable(site: SdtSite): { patch: Uint8Array; result: InvopResult }; args: readonly number[] }>> = {
  x86_64: {
    nop: (s) => (s.tailCall ? s.patch : X86_SDT_NOP),
    // lock nopl 0x0(%rax): #UD; resume after the site.
    enable: (s) => ({ patch: Uint8Array.of(0xf0, 0x0f, 0x1f, 0x40, 0x00), result: { kind: 'resume', pc: s.address + 5n } }),
    args: [7, 6, 2], // rdi rsi rdx
  },
  arm: {
    nop: (s) => (s.tailCall ? s.patch : le32(ARM_SDT_NOP)),
    // The DTrace breakpoint, condition AL, over the nop; the nop then runs displaced.
    enable: () => ({ patch: le32((DTRACE_BREAKPOINT | 0xe) >>> 0), result: { kind: 'emulate', code: ArmEmulation.ANY, word: ARM_SDT_NOP } }),
    args: [0, 1, 2],
  },
};

describe.each(ISAS)('%s machine: modules', (isa) => {
  const hello = (): Uint8Array => defaultImages(isa).modules['hello']!;

  it('hello.ko loaded at boot: _init runs, /dev/hello reads and writes', async () => {
    const r = await shell(isa, 'cat /dev/hello; echo dtrace > /dev/hello; cat /dev/hello', { modules: [{ name: 'hello', bytes: hello() }] });
    expect(r.status).toBe(0);
    expect(r.output).toMatch(/^Hello, world! \(read 1, pid \d+\)\nHello, dtrace! \(read 2, pid \d+\)\n$/);
    // kmod_table slot 0: running, _init returned 0, as krtld handed it over.
    const mod = r.machine.modules.module('hello')!;
    const table = r.machine.symbols.byName('kmod_table', 'kernel')!;
    const slot = r.machine.readKernel(table.address, kmodSlotSize(isa));
    expect(slot).toEqual({ bytes: encodeKmodSlot(isa, { state: KMOD_STATE.running, base: mod.base, size: mod.size, init: mod.init ?? 0n, fini: mod.fini ?? 0n, status: 0n, name: 'hello' }) });
    expect(r.machine.symbols.format(mod.init!)).toBe('hello`_init');
  });

  it('a module loaded while the guest runs is initialised at the next timer tick', async () => {
    const { machine: m, output } = await guestMachine(isa, { cmdline: 'quiet', args: ['/bin/sh', '-c', 'sleep 1; cat /dev/hello'] });
    expect(m.run({ untilNs: 100_000_000 })).toEqual({ kind: 'limit' });
    const mod = m.loadModule(hello(), 'hello');
    expect(mod.base).toBe(m.symbols.byName('kmod_arena', 'kernel')!.address);
    expect(await m.runUntilPowerOff({ instructions: 200_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toMatch(/^Hello, world! \(read 1, pid \d+\)\n$/);
    expect(() => m.loadModule(hello(), 'hello')).toThrow('module hello is already loaded');
    // The machine's module list has the module's code as tracing sees it.
    const image = m.kernelModules().find((x) => x.name === 'hello')!;
    expect(image.functions.map((f) => f.name)).toContain('hello_open');
    expect(image.sdtSites.map((s) => s.probe)).toContain('hello-open');
    expect(image.dwarf()?.functions.some((f) => f.name === 'hello_open')).toBe(true);
  });

  it('bad module input gets a clear error, and nothing is loaded', async () => {
    const { machine: m } = await guestMachine(isa);
    expect(() => m.loadModule(new Uint8Array([0x7f, 0x45, 0x4c]), 'broken')).toThrow(/ELF|too small|truncated/i);
    expect(m.modules.loaded).toEqual([]);
    expect(m.kernelModules().map((x) => x.name)).toEqual(['kernel']);
  });

  it('SDT site tables: the kernel image is loaded patched, the module sites are no-ops too', async () => {
    const { machine: m } = await guestMachine(isa, { modules: [{ name: 'hello', bytes: hello() }] });
    const sites = m.sdtSites();
    const kernelProbes = new Set(sites.filter((s) => s.module === 'kernel').map((s) => `${s.provider}:${s.probe}`));
    for (const p of ['proc:exec', 'proc:exit', 'proc:create', 'sched:on-cpu', 'sched:off-cpu', 'io:start', 'sdt:syscall-entry', 'sdt:kmod-init']) expect(kernelProbes).toContain(p);
    const helloSites = sites.filter((s) => s.module === 'hello');
    expect(new Set(helloSites.map((s) => s.probe))).toEqual(new Set(['hello-open', 'hello-read-start', 'hello-read-done', 'hello-write', 'hello-release']));
    expect(helloSites.find((s) => s.probe === 'hello-open')!.function).toBe('hello_open');
    for (const s of sites) {
      const nop = SITES[isa].nop(s);
      expect(m.readText(s.address, nop.length), `${s.module}:${s.probe} at 0x${s.address.toString(16)}`).toEqual(nop);
    }
  });

  it('an enabled module SDT site traps with its arguments in the argument registers and the guest runs on', async () => {
    const { machine: m, output } = await guestMachine(isa, { cmdline: 'quiet', args: ['/bin/sh', '-c', 'echo probe me > /dev/hello; cat /dev/hello'], modules: [{ name: 'hello', bytes: hello() }] });
    const site = m.sdtSites().find((s) => s.module === 'hello' && s.probe === 'hello-write')!;
    const { patch, result } = SITES[isa].enable(site);
    m.writeText(site.address, patch);
    const fired: { args: bigint[]; pc: bigint; name: string }[] = [];
    m.addInvopHandler((trap) => {
      if (trap.pc !== site.address) return undefined;
      const regs = m.registers(trap.cpu);
      const args = SITES[isa].args.map((n) => regs.get(n));
      const name = m.readString(args[0]!, 64);
      fired.push({ args, pc: trap.pc, name: 'text' in name ? name.text : '' });
      return result;
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
