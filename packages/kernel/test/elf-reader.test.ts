import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EM_ARM,
  EM_X86_64,
  ET_EXEC,
  ET_REL,
  ElfError,
  PT_LOAD,
  SHT_RELA,
  SHT_REL,
  parseElf,
} from '../src/elf/index.js';
import { ISAS, compileC, fixture, hasClang, hasReadelf, imagePath, linkExec, read, tool, type Isa } from './fixtures/toolchain.js';

interface ReadelfSection {
  name: string;
  type: string;
  addr: bigint;
  off: number;
  size: number;
}

/** Parse `llvm-readelf -S -W` into section rows. */
function readelfSections(path: string): ReadelfSection[] {
  const out: ReadelfSection[] = [];
  for (const line of tool('llvm-readelf', ['-S', '-W', path]).split('\n')) {
    const m = /^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)/.exec(line);
    if (!m || m[1] === '0') continue;
    out.push({ name: m[2]!, type: m[3]!, addr: BigInt('0x' + m[4]), off: parseInt(m[5]!, 16), size: parseInt(m[6]!, 16) });
  }
  return out;
}

function readelfSymbols(path: string): { value: bigint; size: number; name: string }[] {
  const out: { value: bigint; size: number; name: string }[] = [];
  for (const line of tool('llvm-readelf', ['-s', '-W', path]).split('\n')) {
    const m = /^\s*(\d+):\s+([0-9a-f]+)\s+(\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s*(\S*)/.exec(line);
    if (m) out.push({ value: BigInt('0x' + m[2]), size: Number(m[3]), name: m[4] ?? '' });
  }
  return out;
}

function readelfRelocCount(path: string): number {
  return tool('llvm-readelf', ['-r', '-W', path])
    .split('\n')
    .filter((l) => /^[0-9a-f]{8,16}\s+[0-9a-f]{8,16}\s+R_/.test(l)).length;
}

function checkAgainstReadelf(path: string): void {
  const elf = parseElf(read(path));
  const sections = readelfSections(path);
  expect(elf.sections.length - 1).toBe(sections.length);
  sections.forEach((s, i) => {
    const ours = elf.sections[i + 1]!;
    expect(ours.name).toBe(s.name);
    expect(ours.addr).toBe(s.addr);
    expect(ours.offset).toBe(s.off);
    expect(ours.size).toBe(s.size);
  });
  const symbols = readelfSymbols(path);
  const ours = elf.symbols();
  expect(ours.length).toBe(symbols.length);
  symbols.forEach((s, i) => {
    expect(ours[i]!.value).toBe(s.value);
    expect(ours[i]!.size).toBe(s.size);
    // llvm-readelf shows a section symbol under its section's name
    if (ours[i]!.type === 3) expect(s.name).toBe(elf.sections[ours[i]!.shndx]!.name);
    else expect(ours[i]!.name).toBe(s.name);
  });
  const relocs = elf.relocationSections().reduce((n, r) => n + r.entries.length, 0);
  expect(relocs).toBe(readelfRelocCount(path));
}

describe('ELF reader on the committed fixtures', () => {
  it('reads the x86-64 ET_REL fixture', () => {
    const elf = parseElf(fixture('sample-x86_64.o'));
    expect(elf.header.elfClass).toBe(64);
    expect(elf.machine).toBe(EM_X86_64);
    expect(elf.type).toBe(ET_REL);
    expect(elf.sectionByName('.text')).toBeDefined();
    const names = elf.symbols().map((s) => s.name);
    expect(names).toContain('node_walk');
    expect(names).toContain('__dtrace_probe___proc_exec');
    const rela = elf.relocationsFor(elf.sectionByName('.text')!.index)!;
    expect(rela.isRela).toBe(true);
    expect(rela.section.type).toBe(SHT_RELA);
    expect(rela.entries.length).toBeGreaterThan(5);
    expect(rela.entries.every((r) => r.addend !== undefined)).toBe(true);
  });

  it('reads the ARM ET_REL fixture with REL relocations', () => {
    const elf = parseElf(fixture('sample-arm.o'));
    expect(elf.header.elfClass).toBe(32);
    expect(elf.machine).toBe(EM_ARM);
    const rel = elf.relocationsFor(elf.sectionByName('.text')!.index)!;
    expect(rel.section.type).toBe(SHT_REL);
    expect(rel.entries.every((r) => r.addend === undefined)).toBe(true);
    const types = new Set(rel.entries.map((r) => r.type));
    expect(types.has(28)).toBe(true); // R_ARM_CALL
    expect(elf.symbols().find((s) => s.name === 'hello_read')?.type).toBe(2);
  });

  it('reads notes from a note section', () => {
    // Build a minimal ELF64 with one SHT_NOTE section by hand.
    const bytes = buildNoteElf();
    const elf = parseElf(bytes);
    const notes = elf.notes(elf.sectionByName('.note.test')!);
    expect(notes).toHaveLength(2);
    expect(notes[0]!.name).toBe('GNU');
    expect(notes[0]!.type).toBe(3);
    expect([...notes[0]!.desc]).toEqual([1, 2, 3, 4, 5]);
    expect(notes[1]!.name).toBe('wdtrace');
    expect(notes[1]!.desc.length).toBe(0);
  });
});

describe('ELF reader errors', () => {
  const good = fixture('sample-x86_64.o');
  const err = (b: Uint8Array): ElfError => {
    try {
      parseElf(b);
    } catch (e) {
      if (e instanceof ElfError) return e;
      throw e;
    }
    throw new Error('expected an ElfError');
  };

  it('rejects non-ELF input', () => {
    expect(err(new Uint8Array([1, 2, 3])).message).toMatch(/not an ELF file/);
    expect(err(new TextEncoder().encode('#!/bin/sh\necho hi\n')).message).toMatch(/not an ELF file/);
  });
  it('names an unsupported machine', () => {
    const b = good.slice();
    b[18] = 183;
    b[19] = 0;
    expect(err(b).message).toBe('unsupported machine 183 at offset 0x12');
  });
  it('rejects big-endian files', () => {
    const b = good.slice();
    b[5] = 2;
    expect(err(b).message).toMatch(/little-endian/);
  });
  it('reports a truncated section header table with its offset', () => {
    const elf = parseElf(good);
    const cut = good.slice(0, elf.header.shoff + 10);
    expect(err(cut).message).toMatch(new RegExp(`truncated section header table.*0x${elf.header.shoff.toString(16)}`));
  });
  it('reports a section running past the end of the file', () => {
    const elf = parseElf(good);
    const b = good.slice();
    const text = elf.sectionByName('.text')!;
    const dv = new DataView(b.buffer);
    dv.setBigUint64(elf.header.shoff + text.index * 64 + 32, 0x7fffffffn, true);
    expect(err(b).message).toMatch(/section \d+ contents .* run past the end of the file/);
  });
  it('reports a bad string offset in the symbol table', () => {
    const elf = parseElf(good);
    const b = good.slice();
    const symtab = elf.sectionByName('.symtab')!;
    new DataView(b.buffer).setUint32(symtab.offset + 24 * 3, 0xfffffff, true);
    expect(() => parseElf(b).symbols()).toThrow(/string offset 0xfffffff outside string table/);
  });

  it('never throws anything but ElfError on random or mutated input (fuzz)', () => {
    const fixtures = [fixture('sample-x86_64.o'), fixture('sample-arm.o')];
    const exercise = (b: Uint8Array): void => {
      try {
        const elf = parseElf(b);
        for (const t of elf.symbolTables()) elf.symbols(t);
        for (const s of elf.sections) {
          elf.sectionData(s);
          if (s.type === 7) elf.notes(s);
        }
        elf.relocationSections();
        for (const p of elf.programHeaders) if (p.type === 4) elf.notes(p);
      } catch (e) {
        if (!(e instanceof ElfError)) throw e;
      }
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), (b) => exercise(b)), { numRuns: 500 });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.option(fc.nat()),
        (which, edits, cut) => {
          const src = fixtures[which]!;
          const b = src.slice(0, cut === null ? src.length : cut % (src.length + 1));
          for (const [pos, v] of edits) if (b.length) b[pos % Math.min(b.length, 4096)] = v;
          exercise(b);
        },
      ),
      { numRuns: 1500 },
    );
  });
});

function buildNoteElf(): Uint8Array {
  // ELF64 header + notes + shstrtab + 3 section headers (null, .note.test, .shstrtab)
  const notes = [
    ...le32(4), ...le32(5), ...le32(3), ...ascii('GNU\0'), 1, 2, 3, 4, 5, 0, 0, 0,
    ...le32(8), ...le32(0), ...le32(9), ...ascii('wdtrace\0'),
  ];
  const shstr = ascii('\0.note.test\0.shstrtab\0');
  const notesOff = 64;
  const shstrOff = notesOff + notes.length;
  const shoff = Math.ceil((shstrOff + shstr.length) / 8) * 8;
  const b = new Uint8Array(shoff + 3 * 64);
  const dv = new DataView(b.buffer);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  dv.setUint16(16, ET_REL, true);
  dv.setUint16(18, EM_X86_64, true);
  dv.setUint32(20, 1, true);
  dv.setBigUint64(40, BigInt(shoff), true);
  dv.setUint16(52, 64, true);
  dv.setUint16(58, 64, true);
  dv.setUint16(60, 3, true);
  dv.setUint16(62, 2, true);
  b.set(notes, notesOff);
  b.set(shstr, shstrOff);
  const sh = (i: number, name: number, type: number, off: number, size: number, align: number): void => {
    const o = shoff + i * 64;
    dv.setUint32(o, name, true);
    dv.setUint32(o + 4, type, true);
    dv.setBigUint64(o + 24, BigInt(off), true);
    dv.setBigUint64(o + 32, BigInt(size), true);
    dv.setBigUint64(o + 48, BigInt(align), true);
  };
  sh(1, 1, 7, notesOff, notes.length, 4);
  sh(2, 12, 3, shstrOff, shstr.length, 1);
  return b;
}
function le32(n: number): number[] {
  return [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
}
function ascii(s: string): number[] {
  return [...s].map((c) => c.charCodeAt(0));
}

describe.skipIf(!hasClang || !hasReadelf)('ELF reader against llvm-readelf on clang-built files', () => {
  it.each(ISAS)('%s: object and linked executable match llvm-readelf', (isa: Isa) => {
    const obj = compileC(isa, `int g = 3; static int s; int f(int x){ s += x; return g + s; } int _start(void){ return f(2); }`, 'tiny');
    checkAgainstReadelf(obj);
    const exe = linkExec([obj], `tiny-${isa}`, ['-e', '_start', '--emit-relocs', '-Ttext=0x10000']);
    checkAgainstReadelf(exe);
    const elf = parseElf(read(exe));
    expect(elf.type).toBe(ET_EXEC);
    expect(elf.programHeaders.some((p) => p.type === PT_LOAD)).toBe(true);
  });
  it.each(ISAS)('%s: guest kernel image matches llvm-readelf', (isa: Isa) => {
    const path = imagePath(isa, 'kernel.elf');
    if (!path) return;
    checkAgainstReadelf(path);
    const mod = imagePath(isa, 'modules/hello.ko');
    if (mod) checkAgainstReadelf(mod);
  });
});
