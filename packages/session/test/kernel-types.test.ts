// The guest kernel's types for the D compiler: the DWARF of objects built
// from the kernel package's C fixtures (and of the committed kernel) as a D
// type dictionary, and no foreign error from it whatever the DWARF holds.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findMember, sizeOfType, typeName } from '@wdtrace/dtrace-core/types';
import { DwarfError, ElfError, ISAS, defaultImages, parseElf, readDwarf } from '@wdtrace/kernel';
import { dwarfTypeDictionary } from '../src/index.js';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../../kernel/test/fixtures/${name}`, import.meta.url)));

describe.each(ISAS)('DWARF -> D type dictionary (%s)', (isa) => {
  const ptr = isa === 'x86_64' ? 8 : 4;
  const dict = dwarfTypeDictionary(readDwarf(fixture(`sample-${isa}.o`)), { name: 'sample' });

  it('exposes structs, typedefs, enums and symbols under C names', () => {
    expect(dict.dataModel).toBe(isa === 'x86_64' ? 'LP64' : 'ILP32');
    const node = dict.lookupType('struct node')!;
    expect(node.kind).toBe('struct');
    expect(sizeOfType(node)).toBe(ptr === 8 ? 72 : 56);
    expect(findMember(node, 'name')?.offset).toBe(ptr);
    expect(typeName(findMember(node, 'name')!.type)).toMatch(/^const char ?\*$/);
    const next = findMember(node, 'next')!.type;
    expect(next.kind === 'pointer' && next.target).toBe(node); // self-reference
    const matrix = findMember(node, 'matrix')!.type;
    expect(matrix.kind === 'array' && matrix.count).toBe(2);
    expect(sizeOfType(matrix)).toBe(24);
    const flags = dict.lookupType('struct flags')!;
    expect(flags.kind === 'struct' && flags.members.map((m) => [m.name, m.offset, m.bitOffset, m.bitWidth])).toEqual([
      ['ready', 0, 0, 1],
      ['mode', 0, 1, 3],
      ['level', 0, 4, 12],
    ]);
    const size = dict.lookupType('size_t')!;
    expect(size.kind === 'typedef' && size.target.kind === 'integer' && size.target.size).toBe(ptr);
    expect(dict.lookupEnumConstant('GREEN')?.value).toBe(5);
    expect(dict.lookupEnumConstant('BLUE')?.value).toBe(-2);
    const g = dict.lookupSymbol('global_node')!;
    expect(g.module).toBe('sample');
    expect(g.type).toBe(node);
    expect(g.size).toBe(sizeOfType(node));
    const int = dict.lookupType('int')!;
    expect(int.kind === 'integer' && int.signed && int.size).toBe(4);
    const ch = dict.lookupType('char')!;
    expect(ch.kind === 'integer' && ch.isChar).toBe(true);
  });

  it('builds the guest kernel dictionary', () => {
    const info = readDwarf(defaultImages(isa).kernel);
    const kd = dwarfTypeDictionary(info);
    expect([...kd.typeNames()].length).toBeGreaterThan(50);
    const arena = kd.lookupSymbol('kmod_table');
    expect(arena?.type.kind).toBe('array');
    const slot = kd.lookupType('struct kmod_slot')!;
    expect(findMember(slot, 'ks_name')?.offset).toBe(6 * ptr);
  });
});

/** Whatever a mutated object's DWARF holds, a model that reads also converts. */
it('builds a dictionary from any DWARF that reads, throwing nothing foreign (fuzz)', () => {
  const sources = ['sample-x86_64.o', 'sample-arm.o', 'sample-x86_64-dwarf4.o'].map(fixture);
  const debugRanges = sources.map((b) => parseElf(b).sections.filter((s) => s.name.startsWith('.debug_')).map((s) => [s.offset, s.size] as const));
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 }), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), (which, edits) => {
      const b = sources[which]!.slice();
      const ranges = debugRanges[which]!;
      for (const [r, pos, v] of edits) {
        const [off, size] = ranges[r % ranges.length]!;
        if (size) b[off + (pos % size)] = v;
      }
      let info;
      try {
        info = readDwarf(b);
      } catch (e) {
        if (e instanceof DwarfError || e instanceof ElfError) return;
        throw e;
      }
      dwarfTypeDictionary(info);
    }),
    { numRuns: 300 },
  );
});
