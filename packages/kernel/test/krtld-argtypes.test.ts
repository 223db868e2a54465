// SDT argument-type records: the strings sdt.h's DTRACE_* macros put in
// .dtrace_argtypes, read by krtld for the core kernel and for modules, on the
// committed guest images of both ISAs; malformed or missing records leave the
// sites without types and never stop linking.
import { describe, expect, it } from 'vitest';
import { SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE, SHN_UNDEF, parseElf } from '../src/elf/index.js';
import {
  SDT_ARGTYPES_SECTION,
  linkModule,
  parseSdtArgTypes,
  processKernelSdtSites,
  type LinkedModule,
  type SdtSite,
} from '../src/krtld/index.js';
import { ISAS, imagePath, read } from './fixtures/toolchain.js';

const enc = new TextEncoder();
/** A section made of the given strings, each NUL-terminated. */
const strings = (...parts: string[]): Uint8Array => enc.encode(parts.map((p) => `${p}\0`).join(''));

/** Argument types of one probe, checking every site of it agrees. */
function typesOf(sites: readonly SdtSite[], provider: string, probe: string): readonly string[] {
  const matching = sites.filter((s) => s.provider === provider && s.probe === probe);
  expect(matching.length, `${provider}:::${probe}`).toBeGreaterThan(0);
  for (const s of matching) expect(s.argTypes, `${provider}:::${probe} at 0x${s.address.toString(16)}`).toEqual(matching[0]!.argTypes);
  return matching[0]!.argTypes;
}

/** The file bytes of one section of an ELF image. */
function sectionBytes(bytes: Uint8Array, name: string): Uint8Array {
  const s = parseElf(bytes).sections.find((x) => x.name === name);
  if (!s) throw new Error(`no section ${name}`);
  return bytes.subarray(s.offset, s.offset + s.size);
}

/** Rename a section in place (same length), so readers no longer find it. */
function renameSection(bytes: Uint8Array, from: string, to: string): void {
  expect(to.length).toBe(from.length);
  const elf = parseElf(bytes);
  const names = elf.sections[elf.header.shstrndx]!;
  const table = bytes.subarray(names.offset, names.offset + names.size);
  const needle = enc.encode(`${from}\0`);
  let at = -1;
  for (let i = 0; i + needle.length <= table.length && at < 0; i++) if (needle.every((b, j) => table[i + j] === b)) at = i;
  expect(at).toBeGreaterThanOrEqual(0);
  table.set(enc.encode(to), at);
}

describe('parseSdtArgTypes', () => {
  it('reads records, skipping NUL padding between them', () => {
    const bytes = new Uint8Array([
      ...strings('__dtrace_probe___proc_exec', '1', 'const char *', ''),
      0, 0, 0,
      ...strings('__dtrace_probe___sched_on__cpu', '0', ''),
      ...strings('__dtrace_probe_hello__read__start', '3', 'struct file *', 'size_t', 'off_t', ''),
    ]);
    const r = parseSdtArgTypes(bytes);
    expect(r.problems).toEqual([]);
    expect([...r.types]).toEqual([
      ['__dtrace_probe___proc_exec', ['const char *']],
      ['__dtrace_probe___sched_on__cpu', []],
      ['__dtrace_probe_hello__read__start', ['struct file *', 'size_t', 'off_t']],
    ]);
    expect(parseSdtArgTypes(new Uint8Array(0))).toEqual({ types: new Map(), problems: [] });
  });

  it('keeps the first record of a symbol and reports a disagreeing one', () => {
    const r = parseSdtArgTypes(
      new Uint8Array([...strings('__dtrace_probe_x', '1', 'int', ''), ...strings('__dtrace_probe_x', '1', 'long', ''), ...strings('__dtrace_probe_x', '1', 'int', '')]),
      'mod: .dtrace_argtypes',
    );
    expect(r.types.get('__dtrace_probe_x')).toEqual(['int']);
    expect(r.problems).toEqual(['mod: .dtrace_argtypes+0x18: __dtrace_probe_x has types (long) here but (int) in an earlier record; the earlier ones are used']);
  });

  const good = strings('__dtrace_probe_ok', '1', 'int', '');
  it.each([
    ['a truncated record', strings('__dtrace_probe_bad', '2', 'int').subarray(0, -1), /record of __dtrace_probe_bad runs past the end of the section after 0 of 2 types/],
    ['a record with fewer types than its count', strings('__dtrace_probe_bad', '2', 'int', ''), /has an empty type for argument 1/],
    ['a record with more strings than its count', strings('__dtrace_probe_bad', '1', 'int', 'long', ''), /has more strings than its 1 types/],
    ['a record without its terminating empty string', strings('__dtrace_probe_bad', '1', 'int'), /has no terminating empty string/],
    ['a record of something else', strings('printk', '1', 'int', ''), /names "printk", not an __dtrace_probe_\* symbol/],
    ['a record naming no probe', strings('__dtrace_probe_', '0', ''), /names no probe/],
    ['a record with a count that is not a number', strings('__dtrace_probe_bad', 'two', 'int', 'int', ''), /argument count "two"/],
    ['a record with an absurd count', strings('__dtrace_probe_bad', '999', 'int', ''), /argument count "999" \(want 0 to 32\)/],
  ])('reports %s, keeps the records before it and ignores the rest', (what, bad, message) => {
    // A truncated or unterminated record can only be the last one.
    const last = /truncated|terminating/.test(what);
    const after = last ? new Uint8Array(0) : strings('__dtrace_probe_after', '0', '');
    const r = parseSdtArgTypes(new Uint8Array([...good, ...bad, ...after]), 'obj: .dtrace_argtypes');
    expect([...r.types.keys()]).toEqual(['__dtrace_probe_ok']);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^obj: \.dtrace_argtypes\+0x19: /);
    expect(r.problems[0]).toMatch(message);
    expect(r.problems[0]).toMatch(/this record and the \d+ bytes from it are ignored$/);
  });
});

describe.each(ISAS)('argument types on the committed %s images', (isa) => {
  const kernelPath = imagePath(isa, 'kernel.elf');
  const modPath = imagePath(isa, 'modules/hello.ko');

  const linkHello = (bytes: Uint8Array): LinkedModule => {
    const kernel = parseElf(read(kernelPath!));
    const globals = new Map<string, bigint>();
    for (const s of kernel.symbols()) if (s.shndx !== SHN_UNDEF && s.bind !== 0 && s.name) globals.set(s.name, s.value);
    return linkModule(bytes, { name: 'hello', base: globals.get('kmod_arena')!, resolve: (n) => globals.get(n), limit: 1 << 20 });
  };

  it.skipIf(!kernelPath)('gives every core kernel site the types written at it', () => {
    const r = processKernelSdtSites(read(kernelPath!));
    expect(r.argTypeProblems).toEqual([]);
    expect(typesOf(r.sites, 'proc', 'exec')).toEqual(['const char *']);
    expect(typesOf(r.sites, 'proc', 'exec-success')).toEqual([]);
    expect(typesOf(r.sites, 'proc', 'exec-failure')).toEqual(['int']);
    expect(typesOf(r.sites, 'proc', 'exit')).toEqual(['int']);
    expect(typesOf(r.sites, 'proc', 'create')).toEqual(['struct task_struct *']);
    expect(typesOf(r.sites, 'proc', 'signal-send')).toEqual(['struct task_struct *', 'int']);
    expect(typesOf(r.sites, 'sched', 'on-cpu')).toEqual([]);
    expect(typesOf(r.sites, 'sched', 'off-cpu')).toEqual(['struct task_struct *']);
    expect(typesOf(r.sites, 'sched', 'enqueue')).toEqual(['struct task_struct *', 'struct run_queue *', 'int']);
    expect(typesOf(r.sites, 'sched', 'dequeue')).toEqual(['struct task_struct *', 'struct run_queue *']);
    expect(typesOf(r.sites, 'io', 'start')).toEqual(['struct io_buf *']);
    expect(typesOf(r.sites, 'io', 'done')).toEqual(['struct io_buf *']);
    expect(typesOf(r.sites, 'sdt', 'syscall-entry')).toEqual(['unsigned long', 'const char *']);
    expect(typesOf(r.sites, 'sdt', 'syscall-return')).toEqual(['unsigned long', 'const char *', 'long']);
    expect(typesOf(r.sites, 'sdt', 'file-write-start')).toEqual(['int', 'const void *', 'size_t']);
    // Every probe with arguments has its record (only the argument-less ones have none to show).
    const untyped = new Set(r.sites.filter((s) => s.argTypes.length === 0).map((s) => `${s.provider}:::${s.probe}`));
    expect([...untyped].sort()).toEqual(['proc:::exec-success', 'sched:::on-cpu']);
  });

  it.skipIf(!kernelPath || !modPath)('gives hello.ko\'s sites their types when krtld links it', () => {
    const m = linkHello(read(modPath!));
    expect(m.argTypeProblems).toEqual([]);
    expect(typesOf(m.sites, 'sdt', 'hello-read-start')).toEqual(['struct file *', 'size_t', 'off_t']);
    expect(typesOf(m.sites, 'sdt', 'hello-read-done')).toEqual(['struct file *', 'ssize_t']);
    expect(typesOf(m.sites, 'sdt', 'hello-open')).toEqual(['struct file *', 'unsigned long']);
    expect(typesOf(m.sites, 'sdt', 'hello-write')).toEqual(['const char *', 'size_t']);
    expect(typesOf(m.sites, 'sdt', 'hello-release')).toEqual(['struct file *']);
  });

  it.skipIf(!kernelPath || !modPath)('keeps the records in read-only data that no code or data refers to', () => {
    for (const path of [kernelPath!, modPath!]) {
      const elf = parseElf(read(path));
      const section = elf.sections.find((s) => s.name === SDT_ARGTYPES_SECTION)!;
      expect(section, path).toBeDefined();
      expect(section.flags & (SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR), path).toBe(SHF_ALLOC);
      expect(section.addralign, path).toBe(1);
      const symbols = elf.symbols(elf.symbolTables()[0]!);
      let checked = 0;
      for (const r of elf.relocationSections()) {
        const target = elf.sections[r.target]!;
        if (!(target.flags & SHF_ALLOC)) continue; // debug info describes the arrays, which is fine
        expect(target.index, `${path}: relocations for the records`).not.toBe(section.index);
        for (const e of r.entries) {
          checked++;
          expect(symbols[e.symbolIndex]!.shndx, `${path}: ${target.name}+0x${e.offset.toString(16)}`).not.toBe(section.index);
        }
      }
      expect(checked, path).toBeGreaterThan(30);
    }
  });

  it.skipIf(!kernelPath || !modPath)('links a module whose records are corrupt: same sites and code, no types, the problem reported', () => {
    const pristine = read(modPath!);
    const good = linkHello(pristine);
    const bytes = pristine.slice();
    const section = sectionBytes(bytes, SDT_ARGTYPES_SECTION);
    // The second record's argument count becomes "x".
    let second = 0;
    while (!(section[second] === 0 && section[second + 1] === 0)) second++;
    second += 2;
    const countAt = section.indexOf(0, second) + 1;
    section[countAt] = 'x'.charCodeAt(0);
    const m = linkHello(bytes);
    expect(m.argTypeProblems).toHaveLength(1);
    expect(m.argTypeProblems[0]).toMatch(new RegExp(`^hello: \\.dtrace_argtypes\\+0x${second.toString(16)}: record of __dtrace_probe_\\w+ has argument count "x"`));
    expect(m.sites.map((s) => s.address)).toEqual(good.sites.map((s) => s.address));
    expect(m.segments.filter((s) => s.executable).map((s) => [...s.bytes])).toEqual(good.segments.filter((s) => s.executable).map((s) => [...s.bytes]));
    // Only the first record survives: hello-open keeps its types, the others have none.
    expect(typesOf(m.sites, 'sdt', 'hello-open')).toEqual(['struct file *', 'unsigned long']);
    expect(typesOf(m.sites, 'sdt', 'hello-read-start')).toEqual([]);
    expect(typesOf(m.sites, 'sdt', 'hello-release')).toEqual([]);
  });

  it.skipIf(!kernelPath || !modPath)('links a module without records: no types, nothing reported', () => {
    const bytes = read(modPath!).slice();
    renameSection(bytes, SDT_ARGTYPES_SECTION, '.dtrace_argtypeX');
    const m = linkHello(bytes);
    expect(m.argTypeProblems).toEqual([]);
    expect(m.sites.length).toBe(linkHello(read(modPath!)).sites.length);
    expect(m.sites.every((s) => s.argTypes.length === 0)).toBe(true);
  });

  it.skipIf(!kernelPath)('processes a kernel whose records are garbage or missing without types and without failing', () => {
    const pristine = read(kernelPath!);
    const good = processKernelSdtSites(pristine);
    const garbage = pristine.slice();
    sectionBytes(garbage, SDT_ARGTYPES_SECTION).fill(0xff);
    const g = processKernelSdtSites(garbage);
    expect(g.argTypeProblems).toEqual([expect.stringMatching(/^kernel: \.dtrace_argtypes\+0x0: record runs past the end of the section/)]);
    expect(g.sites.every((s) => s.argTypes.length === 0)).toBe(true);
    expect(g.sites.map((s) => s.address)).toEqual(good.sites.map((s) => s.address));

    const missing = pristine.slice();
    renameSection(missing, SDT_ARGTYPES_SECTION, '.dtrace_argtypeX');
    const m = processKernelSdtSites(missing);
    expect(m.argTypeProblems).toEqual([]);
    expect(m.sites.every((s) => s.argTypes.length === 0)).toBe(true);
    expect(m.sites.length).toBe(good.sites.length);
  });
});
