// fbt firing on real kernel code run by the real CPU cores (no booted
// machine): the committed kernel is loaded into a core at its link
// addresses and its functions are called directly. Enabling patches the
// sites, traps arrive at the probe addresses, the emulations leave the CPU
// exactly as native execution does, and disabling restores the bytes.
import { ProbeRegistry, type Probe, type ProbeArgumentSource } from '@wdtrace/dtrace-core';
import type { Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { KernelCalls } from './kernel-calls.js';
import { FbtProvider } from '../src/fbt/provider.js';
import { ArmEmulation } from '@wdtrace/isa-arm-as';
import { X86Emulation } from '@wdtrace/isa-x86-as';
import { firingArgs } from './firing-args.js';


interface Firing {
  readonly probe: string;
  readonly cpu: number;
  readonly args: readonly bigint[];
}

/** Records what fires, by probe name (the consumer side of dtrace_probe()). */
class Recorder {
  readonly fired: Firing[] = [];
  registry: ProbeRegistry | undefined;
  probe(id: number, cpu: number, args: readonly bigint[], rest?: ProbeArgumentSource): void {
    const p = this.registry!.probe(id)!;
    this.fired.push({ probe: `${p.function}:${p.name}`, cpu, args: firingArgs(args, rest) });
  }
}

async function setUp(isa: Isa, thumb = false) {
  const target = await KernelCalls.create(isa, { thumb });
  const rec = new Recorder();
  const fbt = await FbtProvider.create(target.machine, rec);
  const registry = new ProbeRegistry();
  rec.registry = registry;
  registry.registerProvider(fbt.definition);
  const enable = (p: Probe) => fbt.definition.ops.enable(p.id, p.providerArg);
  const disable = (p: Probe) => fbt.definition.ops.disable(p.id, p.providerArg);
  const fn = (name: string) => target.machine.symbols.byName(name)!;
  const text = target.machine.kernelModules()[0]!.functions;
  const textStart = text[0]!.address;
  const textEnd = text[text.length - 1]!.address + BigInt(text[text.length - 1]!.size);
  const wholeText = () => target.machine.readText(textStart, Number(textEnd - textStart));
  /** Every register in a fixed state, so two runs start identically. */
  const resetRegisters = () => {
    const regs = target.machine.registers(0);
    for (let n = 0; n < (isa === 'x86_64' ? 16 : 13); n++) regs.set(n, BigInt(0x1000 + n * 0x11));
  };
  const snapshot = () => {
    const regs = target.machine.registers(0);
    const n = isa === 'x86_64' ? 16 : 16;
    return { regs: Array.from({ length: n }, (_, i) => regs.get(i)), flags: regs.flags() };
  };
  const cstr = (addr: bigint, s: string) => target.machine.writeText(addr, new TextEncoder().encode(s + '\0'));
  return { target, rec, fbt, registry, enable, disable, fn, wholeText, resetRegisters, snapshot, cstr };
}

const KERNELS = [
  { name: 'x86_64', isa: 'x86_64', thumb: false },
  { name: 'arm', isa: 'arm', thumb: false },
  { name: 'arm-thumb', isa: 'arm', thumb: true },
] as const;

describe.each(KERNELS)('fbt firing on the $name kernel', ({ isa, thumb }) => {
  it('fires entry and return probes of snprintf and the functions it calls, with the state native execution leaves', async () => {
    const t = await setUp(isa, thumb);
    const buf = t.target.scratch;
    const fmt = buf + 0x100n;
    t.cstr(fmt, 'x=%d');
    const snprintf = t.fn('snprintf').address;
    const callSnprintf = () => {
      t.target.machine.writeText(buf, new Uint8Array(64));
      t.resetRegisters();
      const r = t.target.call(snprintf, [buf, 64n, fmt, 42n]);
      const out = new TextDecoder().decode(t.target.machine.readText(buf, 4));
      const stack = t.target.machine.readText(t.target.stackTop - 0x1000n, 0x1000); // the 4 KiB under the stack top
      return { r, out, state: t.snapshot(), stack };
    };
    const native = callSnprintf();
    expect(native.r.value).toBe(4n);
    expect(native.out).toBe('x=42');
    expect(native.r.traps).toHaveLength(0);

    const before = t.wholeText();
    // Every fbt probe of the kernel at once.
    const probes = t.registry.match({ provider: 'fbt', module: 'kernel', function: '', name: '' });
    expect(probes.length).toBeGreaterThan(600);
    for (const p of probes) t.enable(p);
    const entryAddr = snprintf;
    const patched = t.target.machine.readText(entryAddr, 4);
    if (isa === 'x86_64') expect(patched[0]).toBe(0xcc);
    else if (thumb) expect(new DataView(patched.buffer).getUint16(0, true)).toBe(0xdef0); // udf #0xf0 over the 16-bit push
    else expect(new DataView(patched.buffer).getUint32(0, true)).toBe(0xe7f000fe); // breakpoint, condition AL

    const traced = callSnprintf();
    for (const p of probes) t.disable(p);
    expect(t.wholeText()).toEqual(before);

    // Same result, same registers, flags and stack as the native run.
    expect(traced.r.value).toBe(native.r.value);
    expect(traced.out).toBe(native.out);
    expect(traced.state).toEqual(native.state);
    expect(traced.stack).toEqual(native.stack);

    // Traps arrived at probe sites only, all claimed; the first at snprintf's entry.
    expect(traced.r.traps.length).toBeGreaterThan(4);
    expect(traced.r.traps.every((x) => x.result !== undefined)).toBe(true);
    expect(traced.r.traps[0]!.trap.pc).toBe(snprintf);
    const seq = t.rec.fired.map((f) => f.probe);
    expect(seq[0]).toBe('snprintf:entry');
    expect(seq).toContain('format_to_buffer:entry');
    expect(seq[seq.length - 1]).toBe('snprintf:return');
    // Entries and returns nest like calls.
    const stack: string[] = [];
    for (const s of seq) {
      const [f, n] = s.split(':');
      if (n === 'entry') stack.push(f!);
      else expect(stack.pop()).toBe(f);
    }
    expect(stack).toHaveLength(0);
    // Entry args from the argument registers; return: offset of the site and the return value.
    const entry = t.rec.fired[0]!;
    expect(entry.args.slice(0, 4)).toEqual([buf, 64n, fmt, 42n]);
    expect(entry.args).toHaveLength(10);
    const ret = t.rec.fired[t.rec.fired.length - 1]!;
    expect(ret.args[1]).toBe(4n);
    const fnSize = BigInt(t.fn('snprintf').size);
    expect(ret.args[0] > 0n && ret.args[0] < fnSize).toBe(true);
    // The displaced instructions were performed by these emulations.
    const kinds = new Set(traced.r.traps.map((x) => (x.result!.kind === 'emulate' ? `emulate:${x.result!.code}` : x.result!.kind)));
    if (isa === 'x86_64') expect([...kinds]).toEqual(expect.arrayContaining([`emulate:${X86Emulation.pushRbp}`, `emulate:${X86Emulation.popRbp}`]));
    else if (thumb) expect([...kinds]).toEqual(expect.arrayContaining([`emulate:${ArmEmulation.T_PUSH}`, `emulate:${ArmEmulation.T_POP}`])); // the Thumb prologue and epilogue emulations
    else expect([...kinds]).toEqual(expect.arrayContaining([`emulate:${ArmEmulation.PUSHM}`, `emulate:${ArmEmulation.POPM}`]));
    // Disabled again: a call traps nowhere and fires nothing more.
    const n = t.rec.fired.length;
    expect(callSnprintf().r.traps).toHaveLength(0);
    expect(t.rec.fired).toHaveLength(n);
    expect(t.target.handlerCount).toBe(0);
  });

  it('gives typed arguments from DWARF prototypes', async () => {
    const t = await setUp(isa, thumb);
    const [entry] = t.registry.match({ provider: 'fbt', module: 'kernel', function: 'snprintf', name: 'entry' });
    const [ret] = t.registry.match({ provider: 'fbt', module: 'kernel', function: 'snprintf', name: 'return' });
    const desc = (p: Probe, i: number) => t.fbt.definition.ops.getArgDesc!(p.id, p.providerArg, i)?.native;
    expect([desc(entry!, 0), desc(entry!, 1), desc(entry!, 2), desc(entry!, 3)]).toEqual(['char *', 'size_t', 'const char *', undefined]);
    expect([desc(ret!, 0), desc(ret!, 1), desc(ret!, 2)]).toEqual(['int', 'int', undefined]);
  });

  it('reports the return site that was taken, by its offset', async () => {
    const t = await setUp(isa, thumb);
    const memcmp = t.fn('memcmp');
    const [ret] = t.registry.match({ provider: 'fbt', module: 'kernel', function: 'memcmp', name: 'return' });
    t.enable(ret!);
    const a = t.target.scratch;
    t.cstr(a, 'abc');
    t.cstr(a + 16n, 'abd');
    const offsets: bigint[] = [];
    for (const [n, want] of [[0n, 0n], [2n, 0n], [3n, 0xffffffffn]] as const) {
      t.rec.fired.length = 0;
      const r = t.target.call(memcmp.address, [a, a + 16n, n]);
      expect(BigInt.asUintN(32, r.value)).toBe(want);
      expect(t.rec.fired.map((f) => f.probe)).toEqual(['memcmp:return']);
      expect(BigInt.asUintN(32, t.rec.fired[0]!.args[1]!)).toBe(want);
      offsets.push(t.rec.fired[0]!.args[0]!);
    }
    // Equal bytes and differing bytes leave memcmp through different returns.
    expect(offsets[1]).not.toBe(offsets[2]);
    for (const o of offsets) expect(o > 0n && o < BigInt(memcmp.size)).toBe(true);
    t.disable(ret!);
  });
});

describe('fbt on ARM conditional returns', () => {
  it('fires a probe on popeq only when the condition passes', async () => {
    const t = await setUp('arm');
    const memcmp = t.fn('memcmp');
    const [ret] = t.registry.match({ provider: 'fbt', module: 'kernel', function: 'memcmp', name: 'return' });
    const sites = (ret!.providerArg as { points: { insn: { address: bigint; text: string; cond?: number } }[] }).points;
    const popeq = sites.find((s) => s.insn.text.startsWith('popeq'));
    expect(popeq, 'memcmp has a popeq return').toBeDefined();
    t.enable(ret!);
    const word = new DataView(t.target.machine.readText(popeq!.insn.address, 4).buffer).getUint32(0, true);
    expect(word).toBe(0xe7f000f0); // breakpoint carrying EQ (0000)
    const a = t.target.scratch;
    t.cstr(a, 'same');
    // n = 0: Z set at the popeq, the early return fires there.
    t.target.call(memcmp.address, [a, a, 0n]);
    expect(t.rec.fired.map((f) => f.args[0])).toEqual([popeq!.insn.address - memcmp.address]);
    // n = 4: the popeq's condition fails, no trap there; the final pop fires instead.
    t.rec.fired.length = 0;
    const r = t.target.call(memcmp.address, [a, a, 4n]);
    expect(r.value).toBe(0n);
    expect(r.traps.map((x) => x.trap.pc)).not.toContain(popeq!.insn.address);
    expect(t.rec.fired).toHaveLength(1);
    expect(t.rec.fired[0]!.args[0]).not.toBe(popeq!.insn.address - memcmp.address);
  });
});
