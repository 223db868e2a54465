// kinst on both committed kernels, run by the real cores: probes on every
// instruction of the functions a call runs leave the CPU exactly as native
// execution does (each displaced instruction runs out of line as if in
// place); offsets must be instruction boundaries; inline functions expand
// from DWARF into probes at every inlined copy, and those fire.
import { ProbeRegistry, parseProbeDescription, type Probe, type ProbeArgumentSource } from '@wdtrace/dtrace-core';
import type { Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { KernelCalls } from './kernel-calls.js';
import { FbtProvider } from '../src/fbt/provider.js';
import { formatInlineExpansion } from '../src/kinst/inline.js';
import { KinstProvider } from '../src/kinst/provider.js';
import { firingArgs } from './firing-args.js';


class Recorder {
  readonly fired: { probe: Probe; args: readonly bigint[] }[] = [];
  registry: ProbeRegistry | undefined;
  probe(id: number, _cpu: number, args: readonly bigint[], rest?: ProbeArgumentSource): void {
    this.fired.push({ probe: this.registry!.probe(id)!, args: firingArgs(args, rest) });
  }
}

async function setUp(isa: Isa, thumb = false) {
  const target = await KernelCalls.create(isa, { thumb });
  const rec = new Recorder();
  const registry = new ProbeRegistry();
  rec.registry = registry;
  const fbt = await FbtProvider.create(target.machine, rec);
  const kinst = await KinstProvider.create(target.machine, rec, { fbt });
  registry.registerProvider(fbt.definition);
  registry.registerProvider(kinst.definition);
  const ops = (p: Probe) => registry.provider(p.provider)!.ops;
  const enable = (p: Probe) => ops(p).enable(p.id, p.providerArg);
  const disable = (p: Probe) => ops(p).disable(p.id, p.providerArg);
  return { target, rec, registry, fbt, kinst, enable, disable };
}

const KERNELS = [
  { name: 'x86_64', isa: 'x86_64', thumb: false },
  { name: 'arm', isa: 'arm', thumb: false },
  { name: 'arm-thumb', isa: 'arm', thumb: true },
] as const;

describe.each(KERNELS)('kinst on the $name kernel', ({ isa, thumb }) => {
  it('traces every instruction of the functions snprintf runs, leaving the state native execution leaves', async () => {
    const t = await setUp(isa, thumb);
    const buf = t.target.scratch;
    const fmt = buf + 0x100n;
    t.target.machine.writeText(fmt, new TextEncoder().encode('%s:%d|%x\0'));
    t.target.machine.writeText(fmt + 0x40n, new TextEncoder().encode('kinst\0'));
    const snprintf = t.target.machine.symbols.byName('snprintf')!.address;
    const run = () => {
      t.target.machine.writeText(buf, new Uint8Array(64));
      const regs = t.target.machine.registers(0);
      for (let n = 0; n < 13; n++) regs.set(n, BigInt(0x2000 + n));
      const r = t.target.call(snprintf, [buf, 64n, fmt, fmt + 0x40n]);
      return {
        r,
        out: new TextDecoder().decode(t.target.machine.readText(buf, Number(r.value))),
        regs: Array.from({ length: 16 }, (_, i) => regs.get(i)),
        flags: regs.flags(),
        stack: t.target.machine.readText(t.target.stackTop - 0x1000n, 0x1000),
      };
    };
    // Which functions run: a first pass with fbt entry probes on everything.
    const entries = t.registry.match(parseProbeDescription('fbt:kernel::entry'));
    for (const p of entries) t.enable(p);
    run();
    for (const p of entries) t.disable(p);
    const ran = [...new Set(t.rec.fired.map((f) => f.probe.function))];
    expect(ran).toContain('snprintf');
    t.rec.fired.length = 0;

    const native = run();
    expect(native.out.startsWith('kinst:')).toBe(true);
    const probes = ran.flatMap((fn) => t.registry.match(parseProbeDescription(`kinst::${fn}:`)));
    const insns = ran.flatMap((fn) => t.kinst.instructions(t.target.machine.kernelModules()[0]!, t.target.machine.symbols.byName(fn)! as never));
    // Every instruction is probeable in these functions, but Thumb's `it`, which sets the condition of the next ones.
    const refused = insns.filter((i) => i.refused !== undefined);
    if (thumb) for (const i of refused) expect(i.insn.classes.has('it'), i.insn.text).toBe(true);
    else expect(refused).toEqual([]);
    expect(probes.length).toBe(insns.length - refused.length);
    const before = t.target.machine.readText(snprintf, 64);
    for (const p of probes) t.enable(p);
    const traced = run();
    for (const p of probes) t.disable(p);
    expect(t.target.machine.readText(snprintf, 64)).toEqual(before);

    expect(traced.out).toBe(native.out);
    expect(traced.r.value).toBe(native.r.value);
    expect(traced.regs).toEqual(native.regs);
    expect(traced.flags).toBe(native.flags);
    expect(traced.stack).toEqual(native.stack);
    expect(t.rec.fired[0]!.probe.function).toBe('snprintf');
    expect(t.rec.fired[0]!.probe.name).toBe('0');
    expect(t.rec.fired[0]!.args).toEqual([]);
    if (isa === 'x86_64') {
      // One firing per instruction executed natively.
      expect(t.rec.fired.length).toBe(native.r.instructions);
    } else {
      // ARM: conditional instructions whose condition fails are skipped by the breakpoint without firing.
      expect(t.rec.fired.length).toBeLessThanOrEqual(native.r.instructions);
      expect(t.rec.fired.length).toBeGreaterThan(native.r.instructions / 2);
    }
    console.log(`kinst ${isa}: ${probes.length} instruction probes in ${ran.length} functions, ${t.rec.fired.length} firings for ${native.r.instructions} native instructions`);
  });

  it('refuses offsets that are not instruction boundaries or lie beyond the function, naming them', async () => {
    const t = await setUp(isa, thumb);
    const size = t.target.machine.symbols.byName('memcpy')!.size;
    expect(t.registry.match(parseProbeDescription('kinst::memcpy:0'))).toHaveLength(1);
    // Inside the first instruction (Thumb: the first 32-bit one).
    const kernel = t.target.machine.kernelModules()[0]!;
    const wide = t.kinst.instructions(kernel, kernel.functions.find((f) => f.name === 'memcpy')!).find((i) => i.insn.length === 4)!;
    const inside = wide.offset + 2;
    expect(() => t.registry.match(parseProbeDescription(`kinst::memcpy:${inside}`))).toThrow(new RegExp(`offset ${inside} of memcpy is not an instruction boundary`));
    expect(() => t.registry.match(parseProbeDescription(`kinst::memcpy:${size + 4}`))).toThrow(/beyond memcpy/);
    // Listing all of kinst creates nothing: a function must be named.
    expect(t.registry.match(parseProbeDescription('kinst:::')).length).toBe(1);
  });

  it('expands an inlined function into probes at every inlined copy, and they fire', async () => {
    const t = await setUp(isa, thumb);
    const inlined = isa === 'x86_64' ? 'pte_slot' : 'l2_slot';
    const dwarf = t.target.machine.kernelModules()[0]!.dwarf()!;
    const copies = dwarf.inlinesOf(inlined);
    expect(copies.length).toBeGreaterThan(1);
    const entry = t.kinst.expandInline(inlined, 'entry');
    const ret = t.kinst.expandInline(inlined, 'return');
    // One entry site per copy, at its entry pc (else its lowest address), each at an instruction of its caller:
    // a copy split into several ranges is still entered once.
    const entryOf = (c: (typeof copies)[number]) => c.entryPc ?? c.ranges.reduce((lo, r) => (r.start < lo ? r.start : lo), c.ranges[0]!.start);
    expect(entry.sites.map((s) => s.address).sort()).toEqual([...new Set(copies.map(entryOf))].sort());
    for (const s of entry.sites) expect(copies.some((c) => c.caller === s.caller)).toBe(true);
    expect(ret.sites.length).toBeGreaterThan(0);
    // The fbt fallback exactly when the function also has an out-of-line copy.
    expect(entry.fbt).toBe(t.target.machine.symbols.byName(inlined) ? `fbt:kernel:${inlined}:entry` : undefined);
    console.log(`kinst ${isa}: kinst::${inlined}:entry ->\n${formatInlineExpansion(entry)}\nkinst::${inlined}:return ->\n${formatInlineExpansion(ret)}`);
    expect(formatInlineExpansion(entry)).toBe(entry.descriptions.join(',\n'));
    expect(entry.descriptions.slice(0, entry.sites.length)).toEqual(entry.sites.map((s) => `kinst::${s.caller}:${s.offset}`));

    // arch_translate(mm, va, NULL, NULL) on an empty root table runs its inlined copy and returns false.
    const mmType = dwarf.types.get(dwarf.namedTypes.get('struct mm_struct')!)!;
    if (mmType.kind !== 'struct') throw new Error('struct mm_struct is not a struct in DWARF');
    const pgdOffset = mmType.members.find((m) => m.name === 'pgd')!.offset;
    const mm = t.target.scratch;
    const root = mm + 0x4000n; // 16 KiB aligned, zeroed
    const rootPhys = root - t.target.virtualBase;
    const pgd = new Uint8Array(8);
    new DataView(pgd.buffer).setBigUint64(0, rootPhys, true);
    t.target.machine.writeText(mm + BigInt(pgdOffset), pgd.subarray(0, isa === 'x86_64' ? 8 : 4));
    const kinstOnly = (e: typeof entry) => e.descriptions.filter((d) => d.startsWith('kinst'));
    const probes = [...kinstOnly(entry), ...kinstOnly(ret)].flatMap((d) => t.registry.match(parseProbeDescription(d)));
    expect(probes).toHaveLength(entry.sites.length + ret.sites.length);
    for (const p of probes) t.enable(p);
    const r = t.target.call(t.target.machine.symbols.byName('arch_translate')!.address, [mm, 0x400000n, 0n, 0n]);
    for (const p of probes) t.disable(p);
    expect(r.value & 0xffn).toBe(0n);
    const fired = t.rec.fired.map((f) => `${f.probe.function}:${f.probe.name}`);
    const inTranslate = (sites: typeof entry.sites) => sites.filter((s) => s.caller === 'arch_translate').map((s) => `arch_translate:${s.offset}`);
    expect(fired[0]).toBe(inTranslate(entry.sites)[0]);
    expect(fired.some((f) => inTranslate(ret.sites).includes(f))).toBe(true);
  });

  it('falls back to fbt for a function that also exists out of line', async () => {
    const t = await setUp(isa, thumb);
    const e = t.kinst.expandInline('phys_to_virt', 'entry');
    expect(e.fbt).toBe('fbt:kernel:phys_to_virt:entry');
    expect(e.descriptions[e.descriptions.length - 1]).toBe('fbt::phys_to_virt:entry');
    expect(e.sites.length).toBeGreaterThan(0);
    expect(() => t.kinst.expandInline('no_such_function', 'entry')).toThrow(/no_such_function has no inlined copy/);
  });
});

describe('kinst on ARM literal pools', () => {
  it('makes no probe on a literal-pool word and names it as no instruction boundary', async () => {
    const t = await setUp('arm');
    const kernel = t.target.machine.kernelModules()[0]!;
    // A function with a literal pool inside its extent.
    const fn = kernel.functions.find((f) => kernel.dataRanges.some((r) => r.start >= f.address && r.start < f.address + BigInt(f.size)))!;
    expect(fn).toBeDefined();
    const pool = kernel.dataRanges.find((r) => r.start >= fn.address && r.start < fn.address + BigInt(fn.size))!;
    const offset = Number(pool.start - fn.address);
    const all = t.registry.match(parseProbeDescription(`kinst::${fn.name}:`));
    expect(all.length).toBe(t.kinst.instructions(kernel, fn).length);
    expect(all.map((p) => Number(p.name))).not.toContain(offset);
    expect(all.length).toBeLessThan(fn.size / 4);
    expect(() => t.registry.match(parseProbeDescription(`kinst::${fn.name}:${offset}`))).toThrow(new RegExp(`offset ${offset} of ${fn.name} is not an instruction boundary`));
  });
});

describe('fbt and kinst in a Thumb IT block', () => {
  // memcmp in the Thumb-2 kernel: `cmp r3, r12; itt ne; subne.w r0, r3, r12;
  // bxne lr` returns early at the first differing byte.
  it('fire on a conditional instruction only when it executes, and run it displaced in the block', async () => {
    const t = await setUp('arm', true);
    const memcmp = t.target.machine.symbols.byName('memcmp')!;
    const kernel = t.target.machine.kernelModules()[0]!;
    const insns = t.kinst.instructions(kernel, kernel.functions.find((f) => f.name === 'memcmp')!);
    const subne = insns.find((i) => i.insn.text.startsWith('subne.w'));
    const bxne = insns.find((i) => i.insn.text.startsWith('bxne'));
    expect(subne && bxne, 'memcmp has subne.w and bxne in an IT block').toBeTruthy();
    const probes = [
      ...t.registry.match(parseProbeDescription(`kinst:kernel:memcmp:${subne!.offset}`)),
      ...t.registry.match(parseProbeDescription('fbt:kernel:memcmp:return')),
    ];
    expect(probes).toHaveLength(2);
    for (const p of probes) t.enable(p);
    // The breakpoints: udf.w over the 32-bit subne.w, udf over the 16-bit bxne.
    const at = (a: bigint, n: number) => [...t.target.machine.readText(a, n)];
    expect(at(subne!.insn.address, 4)).toEqual([0xf0, 0xf7, 0xf0, 0xa0]);
    expect(at(bxne!.insn.address, 2)).toEqual([0xf0, 0xde]);
    const a = t.target.scratch;
    t.target.machine.writeText(a, new TextEncoder().encode('abc\0abd\0'));
    // Equal: the block's condition fails at every byte; neither fires there.
    let r = t.target.call(memcmp.address, [a, a, 3n]);
    expect(r.value).toBe(0n);
    expect(r.traps.map((x) => x.trap.pc)).not.toContain(subne!.insn.address);
    expect(r.traps.map((x) => x.trap.pc)).not.toContain(bxne!.insn.address);
    expect(t.rec.fired.map((f) => f.probe.name)).toEqual(['return']);
    // Differing at the third byte: both fire once, and memcmp returns 'c' - 'd'.
    t.rec.fired.length = 0;
    r = t.target.call(memcmp.address, [a, a + 4n, 3n]);
    expect(BigInt.asIntN(32, r.value)).toBe(-1n);
    expect(t.rec.fired.map((f) => f.probe.name)).toEqual([String(subne!.offset), 'return']);
    expect(t.rec.fired[1]!.args[0]).toBe(bxne!.insn.address - memcmp.address);
    expect(BigInt.asIntN(32, t.rec.fired[1]!.args[1]!)).toBe(-1n);
    for (const p of probes) t.disable(p);
  });
});
