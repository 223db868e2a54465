import { describe, expect, it } from 'vitest';
import { SHN_UNDEF, STB_LOCAL, STT_FUNC, STT_OBJECT, parseElf } from '../src/elf/index.js';
import { DwarfError, readDwarf, type DwarfInfo } from '../src/dwarf/index.js';
import { linkModule } from '../src/krtld/index.js';
import { ISAS, compileC, fixture, hasClang, hasDwarfdump, imagePath, read, sampleSource, tool, type Isa } from './fixtures/toolchain.js';

interface DumpDie {
  offset: number;
  depth: number;
  parent: DumpDie | undefined;
  tag: string;
  attrs: Map<string, string>;
  ranges: [bigint, bigint][];
}

/** Parse `llvm-dwarfdump --debug-info` into DIEs (offset, tag, attribute text, range-list lines). */
function dwarfdump(path: string): DumpDie[] {
  const out: DumpDie[] = [];
  let cur: DumpDie | undefined;
  let lastAttr = '';
  const open: DumpDie[] = [];
  for (const line of tool('llvm-dwarfdump', ['--debug-info', path]).split('\n')) {
    let m = /^0x([0-9a-f]+):(\s+)(DW_TAG_\w+)/.exec(line);
    if (m) {
      const depth = m[2]!.length;
      while (open.length && open[open.length - 1]!.depth >= depth) open.pop();
      cur = { offset: parseInt(m[1]!, 16), depth, parent: open[open.length - 1], tag: m[3]!, attrs: new Map(), ranges: [] };
      open.push(cur);
      out.push(cur);
      continue;
    }
    m = /^\s+(DW_AT_\w+)\s+\((.*)$/.exec(line);
    if (m && cur) {
      lastAttr = m[1]!;
      cur.attrs.set(m[1]!, m[2]!);
      continue;
    }
    m = /^\s+\[0x([0-9a-f]+), 0x([0-9a-f]+)\)/.exec(line);
    if (m && cur && lastAttr === 'DW_AT_ranges') cur.ranges.push([BigInt('0x' + m[1]), BigInt('0x' + m[2])]);
  }
  return out;
}

const hexOf = (s: string | undefined): bigint | undefined => {
  const m = /^\(?0x([0-9a-f]+)/.exec(s ?? '');
  return m ? BigInt('0x' + m[1]) : undefined;
};
const quoted = (s: string | undefined): string | undefined => /"([^"]*)"/.exec(s ?? '')?.[1];
const rangesOf = (d: DumpDie): [bigint, bigint][] => {
  const lo = hexOf(d.attrs.get('DW_AT_low_pc'));
  const hi = hexOf(d.attrs.get('DW_AT_high_pc'));
  if (lo !== undefined && hi !== undefined) return lo === hi ? [] : [[lo, hi]];
  return d.ranges.filter(([a, b]) => a !== b);
};

/** Compare functions, inlined copies and struct members with llvm-dwarfdump. */
function checkAgainstDwarfdump(path: string, info: DwarfInfo): { functions: number; inlines: number; members: number } {
  const dies = dwarfdump(path);
  let functions = 0;
  let inlines = 0;
  let members = 0;
  const fnByDie = new Map(info.functions.map((f) => [f.dieOffset, f]));
  const inlByDie = new Map(info.inlines.map((i) => [i.dieOffset, i]));
  for (const d of dies) {
    if (d.tag === 'DW_TAG_subprogram' && (d.attrs.has('DW_AT_low_pc') || d.attrs.has('DW_AT_ranges'))) {
      const f = fnByDie.get(d.offset);
      expect(f, `function at DIE 0x${d.offset.toString(16)}`).toBeDefined();
      const name = quoted(d.attrs.get('DW_AT_name')) ?? quoted(d.attrs.get('DW_AT_abstract_origin')) ?? quoted(d.attrs.get('DW_AT_specification'));
      expect(f!.name).toBe(name);
      expect(f!.ranges.map((r) => [r.start, r.end])).toEqual(rangesOf(d));
      functions++;
    }
    if (d.tag === 'DW_TAG_inlined_subroutine') {
      const i = inlByDie.get(d.offset);
      expect(i, `inline at DIE 0x${d.offset.toString(16)}`).toBeDefined();
      expect(i!.name).toBe(quoted(d.attrs.get('DW_AT_abstract_origin')));
      expect(i!.ranges.map((r) => [r.start, r.end])).toEqual(rangesOf(d));
      expect(i!.callLine).toBe(Number(/\((\d+)\)|^(\d+)\)/.exec(`(${d.attrs.get('DW_AT_call_line')}`)?.[1] ?? NaN));
      inlines++;
    }
    if (d.tag === 'DW_TAG_member' && d.attrs.has('DW_AT_data_member_location') && !d.attrs.has('DW_AT_bit_size')) {
      const loc = hexOf(d.attrs.get('DW_AT_data_member_location'));
      // find the parent struct: the closest preceding structure/union DIE
      const parent = d.parent;
      const t = parent ? info.types.get(parent.offset) : undefined;
      expect(t && (t.kind === 'struct' || t.kind === 'union')).toBe(true);
      if (t && (t.kind === 'struct' || t.kind === 'union')) {
        const m = t.members.find((x) => x.name === quoted(d.attrs.get('DW_AT_name')));
        expect(m, `member ${d.attrs.get('DW_AT_name')}`).toBeDefined();
        expect(BigInt(m!.offset)).toBe(loc);
        members++;
      }
    }
  }
  return { functions, inlines, members };
}

describe.each([
  ['sample-x86_64.o', 5],
  ['sample-x86_64-dwarf4.o', 4],
  ['sample-arm.o', 5],
] as const)('DWARF model of the committed fixture %s', (file, version) => {
  const info = readDwarf(fixture(file));
  const ptr = file.includes('arm') ? 4 : 8;

  it('reads the unit version', () => {
    expect(info.versions).toEqual([version]);
  });

  it('builds structs with member offsets, bitfields, unions, arrays and function pointers', () => {
    const node = info.types.get(info.namedTypes.get('struct node')!)!;
    expect(node.kind).toBe('struct');
    if (node.kind !== 'struct') return;
    const m = Object.fromEntries(node.members.map((x) => [x.name, x]));
    expect(info.typeName(m.next!.type)).toBe('struct node *');
    expect(info.typeName(m.name!.type)).toBe('const char *');
    expect(info.typeName(m.count!.type)).toBe('volatile int');
    expect(info.typeName(m.matrix!.type)).toBe('int [2][3]');
    expect(info.typeName(m.callback!.type)).toBe('int (*)(struct node *, int)');
    expect(info.typeName(m.color!.type)).toBe('enum color');
    expect(m.next!.offset).toBe(0);
    expect(m.name!.offset).toBe(ptr);
    expect(m.count!.offset).toBe(2 * ptr);
    expect(info.sizeOf(m.matrix!.type)).toBe(24);
    expect(info.sizeOf(node.id)).toBe(ptr === 8 ? 72 : 56);
    const u = info.types.get(m.u!.type)!;
    expect(u.kind === 'union' && u.members.map((x) => x.name)).toEqual(['as_long', 'bytes']);
    const flags = info.types.get(info.namedTypes.get('struct flags')!)!;
    expect(flags.kind === 'struct' && flags.members.map((x) => [x.name, x.bitOffset, x.bitSize])).toEqual([
      ['ready', 0, 1],
      ['mode', 1, 3],
      ['level', 4, 12],
    ]);
  });

  it('builds enums, typedefs and qualified pointers', () => {
    const e = info.types.get(info.namedTypes.get('enum color')!)!;
    expect(e.kind === 'enum' && e.enumerators.map((x) => [x.name, x.value])).toEqual([
      ['RED', 0n],
      ['GREEN', 5n],
      ['BLUE', -2n],
    ]);
    const size = info.types.get(info.namedTypes.get('size_t')!)!;
    expect(size.kind === 'typedef' && info.typeName(size.target)).toBe('unsigned long');
    const holder = info.variables.find((v) => v.name === 'restrict_ptr_holder')!;
    expect(info.typeName(holder.type)).toBe('const pid_t *const');
  });

  it('lists functions with typed parameters and the inlined copies of add_scaled', () => {
    const read = info.functions.find((f) => f.name === 'hello_read')!;
    expect(read.params.map((p) => info.declare(p.type, p.name ?? ''))).toEqual(['int fd', 'char *buf', 'size_t len']);
    expect(info.typeName(read.returns)).toBe('long');
    expect(read.ranges.length).toBeGreaterThan(0);
    const add = info.functions.find((f) => f.name === 'add_scaled')!;
    expect(add.inlineOnly).toBe(true);
    const copies = info.inlines.filter((i) => i.name === 'add_scaled');
    expect(copies.map((c) => c.caller).sort()).toEqual(['_init', 'hello_read', 'node_walk']);
    for (const c of copies) {
      expect(c.ranges.length).toBeGreaterThan(0);
      const caller = info.functions.find((f) => f.name === c.caller)!;
      for (const r of c.ranges) expect(caller.ranges.some((cr) => cr.start <= r.start && r.end <= cr.end)).toBe(true);
    }
    expect(info.inlinesOf('add_scaled')).toHaveLength(3);
    for (const c of copies) {
      const pc = c.ranges[0]!.start;
      expect(info.functionAt(pc)?.name).toBe(c.caller);
      expect(info.inlinesAt(pc).map((i) => i.name)).toEqual(['add_scaled']);
    }
    expect(info.functionAt(read.ranges[0]!.end + 0x100000n)).toBeUndefined();
    expect(info.variables.map((v) => v.name).sort()).toEqual(['counter', 'global_node', 'hidden_table', 'restrict_ptr_holder']);
  });

  it.skipIf(!hasDwarfdump)('agrees with llvm-dwarfdump', () => {
    const path = new URL(`./fixtures/${file}`, import.meta.url).pathname;
    const n = checkAgainstDwarfdump(path, info);
    expect(n.functions).toBe(3);
    expect(n.inlines).toBe(3);
    expect(n.members).toBeGreaterThan(8);
  });
});

describe('DWARF of a linked module', () => {
  it.each(ISAS)('%s: relocated to the addresses krtld chose', (isa) => {
    const base = isa === 'x86_64' ? 0xffffffff80240000n : 0xc0240000n;
    const obj = fixture(`sample-${isa}.o`);
    const m = linkModule(obj, { name: 'sample', base, resolve: (n) => (n === 'printk' ? base - 0x1000n : undefined) });
    const info = readDwarf(obj, { sectionAddresses: m.sectionAddresses });
    for (const s of m.symbols) {
      if (s.isFunction) {
        const f = info.functions.find((x) => x.name === s.name)!;
        expect(f.lowPc).toBe(s.address);
      } else {
        const v = info.variables.find((x) => x.name === s.name);
        if (v) expect(v.address).toBe(s.address);
      }
    }
    for (const i of info.inlines) for (const r of i.ranges) expect(r.start >= base && r.end <= base + BigInt(m.size)).toBe(true);
  });
});

describe('DWARF errors', () => {
  it('reports missing debug information', () => {
    const elf = compileLess();
    expect(() => readDwarf(elf)).toThrow(DwarfError);
    expect(() => readDwarf(elf)).toThrow(/no DWARF debug information/);
  });
  it('reports a truncated .debug_info', () => {
    const b = fixture('sample-x86_64.o');
    const elf = parseElf(b);
    const info = elf.sectionByName('.debug_info')!;
    // claim a unit length far past the section end
    new DataView(b.buffer).setUint32(info.offset, 0x7ffffff0, true);
    expect(() => readDwarf(b)).toThrow(/runs past the section end/);
  });
});

/** The ELF fixture with its .debug_info section renamed, so no DWARF is found. */
function compileLess(): Uint8Array {
  const b = fixture('sample-arm.o');
  const elf = parseElf(b);
  const shstr = elf.sections[elf.header.shstrndx]!;
  const info = elf.sectionByName('.debug_info')!;
  // section names are NUL-terminated in .shstrtab; find ".debug_info" there and change one letter
  const nameOff = new DataView(b.buffer).getUint32(elf.header.shoff + info.index * 40, true);
  b[shstr.offset + nameOff + 1] = 'X'.charCodeAt(0);
  return b;
}

describe.skipIf(!hasClang || !hasDwarfdump)('DWARF against llvm-dwarfdump on fresh clang builds', () => {
  it.each(ISAS.flatMap((isa) => [[isa, '-gdwarf-4'], [isa, '-gdwarf-5']] as [Isa, string][]))('%s %s', (isa, flag) => {
    const path = compileC(isa, sampleSource, `sample${flag}`, [flag]);
    const info = readDwarf(read(path));
    expect(info.versions).toEqual([flag === '-gdwarf-4' ? 4 : 5]);
    const n = checkAgainstDwarfdump(path, info);
    expect(n.inlines).toBe(3);
  });
});

describe.each(ISAS)('DWARF of the guest kernel image (%s)', (isa) => {
  const path = imagePath(isa, 'kernel.elf');
  it.skipIf(!path || !hasDwarfdump)('agrees with llvm-dwarfdump and the symbol table', () => {
    const bytes = read(path!);
    const t0 = performance.now();
    const info = readDwarf(bytes);
    const ms = performance.now() - t0;
    const n = checkAgainstDwarfdump(path!, info);
    expect(n.functions).toBeGreaterThan(100);
    const elf = parseElf(bytes);
    const syms = new Map<string, bigint>();
    for (const s of elf.symbols()) if (s.shndx !== SHN_UNDEF && (s.type === STT_FUNC || s.type === STT_OBJECT) && s.bind !== STB_LOCAL) syms.set(s.name, s.value);
    let checked = 0;
    for (const f of info.functions) if (f.lowPc !== undefined && f.external && syms.has(f.name)) { expect(f.lowPc).toBe(syms.get(f.name)); checked++; }
    for (const v of info.variables) if (v.address !== undefined && v.external && syms.has(v.name)) { expect(v.address).toBe(syms.get(v.name)); checked++; }
    expect(checked).toBeGreaterThan(100);
    console.log(`${isa} kernel DWARF: ${info.functions.length} functions, ${info.inlines.length} inlined copies, ${info.types.size} types, ${info.variables.length} variables in ${ms.toFixed(0)} ms (dwarfdump-checked: ${n.functions} functions, ${n.inlines} inlines, ${n.members} members)`);
  });
});
