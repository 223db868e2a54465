import { describe, expect, it } from 'vitest';
import { parseElf } from '../src/elf/index.js';
import { linkModule } from '../src/krtld/index.js';
import { SymbolTable } from '../src/symbols/index.js';
import { ISAS, fixture, hasReadelf, imagePath, read, tool, type Isa } from './fixtures/toolchain.js';

const BASE: Record<Isa, bigint> = { x86_64: 0xffffffff80240000n, arm: 0xc0240000n };

describe.each(ISAS)('symbol table (%s)', (isa) => {
  const kernelPath = imagePath(isa, 'kernel.elf');
  const modPath = imagePath(isa, 'modules/hello.ko');

  it('merges a linked module with a kernel and looks addresses up', () => {
    const table = new SymbolTable();
    table.add('kernel', [
      { name: 'printk', address: BASE[isa] - 0x1000n, size: 0x40, module: 'kernel', isFunction: true, isGlobal: true },
      { name: 'tail', address: BASE[isa] - 0x800n, size: 0, module: 'kernel', isFunction: true, isGlobal: true },
    ], BASE[isa] - 0x10000n, BASE[isa] - 0x100n);
    const m = linkModule(fixture(`sample-${isa}.o`), { name: 'sample', base: BASE[isa], resolve: table.resolver() });
    table.addModule(m);
    expect(table.modules).toEqual(['kernel', 'sample']);
    const walk = table.byName('node_walk')!;
    expect(walk.module).toBe('sample');
    expect(table.lookup(walk.address + 4n)).toMatchObject({ module: 'sample', offset: 4n, symbol: { name: 'node_walk' } });
    expect(table.format(walk.address)).toBe('sample`node_walk');
    expect(table.format(walk.address + 0x10n)).toBe('sample`node_walk+0x10');
    expect(table.format(BASE[isa] - 0x1000n + 8n)).toBe('kernel`printk+0x8');
    // zero-size symbol: nearest below within the module
    expect(table.format(BASE[isa] - 0x800n + 0x20n)).toBe('kernel`tail+0x20');
    expect(table.lookup(BASE[isa] - 0x10n)).toBeUndefined(); // between modules
    expect(table.functionAt(walk.address + BigInt(walk.size) - 1n)?.name).toBe('node_walk');
    expect(table.functions('sample').map((f) => f.name).sort()).toEqual(['_init', 'hello_read', 'node_walk']);
    for (const site of m.sites) expect(table.functionAt(site.address)?.name).toBe(site.function);
    expect(table.removeModule('sample')).toBe(true);
    expect(table.byName('node_walk')).toBeUndefined();
    expect(table.lookup(walk.address)).toBeUndefined();
    expect(() => table.add('x', [], BASE[isa] - 0x200n, BASE[isa])).toThrow(/overlaps kernel/);
  });

  it.skipIf(!kernelPath || !hasReadelf)('agrees with llvm-nm on the guest kernel and is fast', () => {
    const elf = parseElf(read(kernelPath!));
    const table = SymbolTable.fromKernel(elf);
    const nm = tool('llvm-nm', ['--defined-only', '-S', kernelPath!])
      .split('\n')
      .map((l) => /^([0-9a-f]+) ([0-9a-f]+) [tT] (\S+)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ address: BigInt('0x' + m[1]), size: Number('0x' + m[2]), name: m[3]! }))
      .filter((f) => f.size > 0);
    expect(nm.length).toBeGreaterThan(100);
    expect(table.functions().filter((f) => f.size > 0).length).toBe(nm.length);
    for (const f of nm) {
      expect(table.functionAt(f.address + BigInt(f.size - 1))?.address).toBe(f.address);
      expect(table.lookup(f.address)?.symbol.address).toBe(f.address);
    }
    if (modPath) {
      // modules live inside the kernel's extent (kmod_arena in .bss)
      const arena = table.byName('kmod_arena')!.address;
      const m = linkModule(read(modPath), { name: 'hello', base: arena, resolve: table.resolver() });
      table.addModule(m);
      expect(table.moduleAt(m.init!)).toBe('hello');
      expect(table.lookup(m.init!)?.symbol.name).toBe('_init');
      expect(table.format(m.init! + 2n)).toBe('hello`_init+0x2');
      expect(table.lookup(m.base + BigInt(m.size) + 16n)?.symbol.name).toBe('kmod_arena');
      expect(table.byName('printk')?.module).toBe('kernel');
      table.removeModule('hello');
    }
    const addrs = nm.map((f) => f.address + 3n);
    const t0 = performance.now();
    let hits = 0;
    for (let r = 0; r < 200; r++) for (const a of addrs) if (table.lookup(a)) hits++;
    const perLookupUs = ((performance.now() - t0) * 1000) / (200 * addrs.length);
    expect(hits).toBe(200 * addrs.length);
    console.log(`symbol lookup: ${perLookupUs.toFixed(3)} us per address over ${table.size} symbols`);
    expect(perLookupUs).toBeLessThan(20);
  });
});
