import { describe, expect, it } from 'vitest';
import { readDwarf } from '../src/dwarf/index.js';
import { KMOD_STATE, KmodArena, KrtldError, encodeKmodSlot, kmodSlotSize } from '../src/krtld/index.js';
import { SymbolTable } from '../src/symbols/index.js';
import { ISAS, fixture, imagePath, read } from './fixtures/toolchain.js';

describe.each(ISAS)('kmod_arena handoff (%s)', (isa) => {
  const kernelPath = imagePath(isa, 'kernel.elf');
  const modPath = imagePath(isa, 'modules/hello.ko');
  const w = isa === 'x86_64' ? 8 : 4;

  it('encodes struct kmod_slot as the kernel DWARF lays it out', () => {
    expect(kmodSlotSize(isa)).toBe(6 * w + 32);
    const b = encodeKmodSlot(isa, { state: 1, base: 0x1234n, size: 0x40, init: 0x1240n, fini: 0n, status: -1n, name: 'hello' });
    const dv = new DataView(b.buffer);
    const word = (i: number): bigint => (w === 8 ? dv.getBigInt64(i * w, true) : BigInt(dv.getInt32(i * w, true)));
    expect([word(0), word(1), word(2), word(3), word(4), word(5)]).toEqual([1n, 0x1234n, 0x40n, 0x1240n, 0n, -1n]);
    expect(new TextDecoder().decode(b.subarray(6 * w, 6 * w + 5))).toBe('hello');
    expect(() => encodeKmodSlot(isa, { state: 1, base: 0n, size: 0, init: 0n, fini: 0n, status: 0n, name: 'x'.repeat(32) })).toThrow(KrtldError);
    if (kernelPath) {
      const info = readDwarf(read(kernelPath));
      const slot = info.types.get(info.namedTypes.get('struct kmod_slot')!)!;
      expect(slot.kind === 'struct' && slot.members.map((m) => [m.name, m.offset])).toEqual([
        ['ks_state', 0], ['ks_base', w], ['ks_size', 2 * w], ['ks_init', 3 * w], ['ks_fini', 4 * w], ['ks_status', 5 * w], ['ks_name', 6 * w],
      ]);
      expect(slot.kind === 'struct' && slot.size).toBe(kmodSlotSize(isa));
    }
  });

  it.skipIf(!kernelPath || !modPath)('places modules in the arena, fills slots and writes ks_state last', () => {
    const symbols = SymbolTable.fromKernel(read(kernelPath!));
    const layout = KmodArena.layoutFrom(isa, (n) => symbols.byName(n));
    expect(layout.slots).toBe(16);
    expect(layout.arenaSize).toBe(1 << 20);
    const arena = new KmodArena(layout, symbols.resolver());
    const events: string[] = [];
    arena.addListener({
      loaded: (m) => events.push(`+${m.name}:${m.sites.length}`),
      unloaded: (m) => events.push(`-${m.name}`),
    });
    const a = arena.load('hello', read(modPath!));
    expect(events).toEqual([`+hello:${a.module.sites.length}`]);
    expect(a.module.sites.length).toBeGreaterThan(0);
    expect(arena.module('hello')).toBe(a.module);
    const b = arena.load('sample', fixture(`sample-${isa}.o`));
    expect(a.slot).toBe(0);
    expect(b.slot).toBe(1);
    expect(a.module.base).toBe(layout.arena);
    expect(b.module.base >= a.module.base + BigInt(a.module.size)).toBe(true);
    expect(b.module.base % 4096n).toBe(0n);
    const last = a.writes[a.writes.length - 1]!;
    expect(last.address).toBe(layout.table);
    expect(last.bytes.length).toBe(w);
    expect(last.bytes[0]).toBe(KMOD_STATE.loaded);
    const fields = a.writes[a.writes.length - 2]!;
    expect(fields.address).toBe(layout.table + BigInt(w));
    expect(b.writes[b.writes.length - 1]!.address).toBe(layout.table + BigInt(kmodSlotSize(isa)));
    for (const wr of a.writes.slice(0, -2)) expect(wr.address >= layout.arena && wr.address + BigInt(wr.bytes.length) <= layout.arena + BigInt(layout.arenaSize)).toBe(true);
    symbols.addModule(a.module);
    expect(symbols.format(a.module.init!)).toBe('hello`_init');
    expect(() => arena.load('hello', read(modPath!))).toThrow(/already loaded/);
    arena.release('hello');
    expect(events[events.length - 1]).toBe('-hello');
    const late: string[] = [];
    arena.addListener({ loaded: (m) => late.push(m.name) })();
    expect(late).toEqual(['sample']); // told of modules already loaded
    const again = arena.load('hello', read(modPath!));
    expect(again.module.base).toBe(layout.arena); // the freed gap is reused
    expect(again.slot).toBe(0);
  });

  it('refuses a module too large for the arena', () => {
    const layout = { isa, arena: isa === 'x86_64' ? 0xffffffff80200000n : 0xc0200000n, arenaSize: 64, table: 0n, slots: 2 } as const;
    const resolve = (n: string): bigint | undefined => (n === 'printk' ? layout.arena - 0x100n : undefined);
    expect(() => new KmodArena(layout, resolve).load('sample', fixture(`sample-${isa}.o`))).toThrow(/does not fit in kmod_arena/);
  });
});
