import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHN_UNDEF, parseElf } from '../src/elf/index.js';
import {
  KrtldError,
  X86_SDT_NOP,
  linkModule,
  moduleImports,
  processKernelSdtSites,
  sdtProbeName,
  type LinkedModule,
} from '../src/krtld/index.js';
import { ISAS, compileC, fixture, fixturesDir, hasClang, imagePath, read, tool, type Isa } from './fixtures/toolchain.js';

const BASE: Record<Isa, bigint> = { x86_64: 0xffffffff80240000n, arm: 0xc0240000n };
const PRINTK: Record<Isa, bigint> = { x86_64: 0xffffffff80101230n, arm: 0xc0101230n };
const fakeKernel = (isa: Isa) => (name: string): bigint | undefined => (name === 'printk' ? PRINTK[isa] : undefined);

function u32(b: Uint8Array, o: number): number {
  return new DataView(b.buffer, b.byteOffset).getUint32(o, true);
}

function siteKeys(m: { sites: readonly { provider: string; probe: string; function: string }[] }): string[] {
  return m.sites.map((s) => `${s.provider}:${s.function}:${s.probe}`).sort();
}

describe('SDT probe names', () => {
  it('follows the illumos convention', () => {
    expect(sdtProbeName('__dtrace_probe___proc_exec')).toEqual({ provider: 'proc', probe: 'exec' });
    expect(sdtProbeName('__dtrace_probe___sched_on__cpu')).toEqual({ provider: 'sched', probe: 'on-cpu' });
    expect(sdtProbeName('__dtrace_probe___io_start')).toEqual({ provider: 'io', probe: 'start' });
    expect(sdtProbeName('__dtrace_probe_hello__read__start')).toEqual({ provider: 'sdt', probe: 'hello-read-start' });
    expect(sdtProbeName('__dtrace_probe_plain')).toEqual({ provider: 'sdt', probe: 'plain' });
    expect(() => sdtProbeName('printk')).toThrow(/not an SDT probe symbol/);
  });
});

describe.each(ISAS)('krtld on the committed %s fixture', (isa) => {
  const file = `sample-${isa}.o`;
  const link = (): LinkedModule => linkModule(fixture(file), { name: 'sample', base: BASE[isa], resolve: fakeKernel(isa) });

  it('relocates a copy: the object given as a Node Buffer is unchanged and links the same again', () => {
    const bytes = readFileSync(join(fixturesDir, file));
    const before = Buffer.from(bytes);
    const options = { name: 'sample', base: BASE[isa], resolve: fakeKernel(isa) };
    const first = linkModule(bytes, options);
    expect(bytes.equals(before)).toBe(true);
    const second = linkModule(bytes, options);
    expect(second.segments.map((x) => [...x.bytes])).toEqual(first.segments.map((x) => [...x.bytes]));
  });

  it('links, lays out sections in order and finds every SDT site', () => {
    const m = link();
    expect(m.isa).toBe(isa);
    expect(m.segments[0]!.section).toBe('.text');
    expect(m.segments[0]!.address).toBe(BASE[isa]);
    for (let i = 1; i < m.segments.length; i++) expect(m.segments[i]!.address >= m.segments[i - 1]!.address + BigInt(m.segments[i - 1]!.bytes.length)).toBe(true);
    expect(siteKeys(m)).toEqual([
      'proc:node_walk:exec',
      'sched:node_walk:on-cpu',
      'sdt:hello_read:hello-read-start',
      'sdt:hello_read:plain',
    ]);
    const text = m.segments[0]!;
    for (const site of m.sites) {
      const off = Number(site.address - text.address);
      if (isa === 'x86_64') expect([...text.bytes.subarray(off, off + 5)]).toEqual([...X86_SDT_NOP]);
      else expect(u32(text.bytes, off)).toBe(0xe320f000);
      expect(site.tailCall).toBe(false);
      expect(site.module).toBe('sample');
    }
    expect(m.init).toBe(m.symbols.find((s) => s.name === '_init')!.address);
    expect(m.fini).toBeUndefined();
    const walk = m.symbols.find((s) => s.name === 'node_walk')!;
    expect(walk.isFunction).toBe(true);
    expect(walk.address >= BASE[isa]).toBe(true);
    expect(m.symbols.find((s) => s.name === 'hidden_table')?.isGlobal).toBe(false);
  });

  it('names every unresolved symbol', () => {
    expect(() => linkModule(fixture(file), { name: 'sample', base: BASE[isa], resolve: () => undefined })).toThrow(
      new KrtldError('sample: unresolved symbol: printk'),
    );
  });

  it('refuses a module that does not fit', () => {
    expect(() => linkModule(fixture(file), { name: 'sample', base: BASE[isa], resolve: fakeKernel(isa), limit: 64 })).toThrow(/sample: needs \d+ bytes but only 64/);
  });

  it('lists the imports', () => {
    expect(moduleImports(fixture(file))).toEqual(['printk']);
  });

  it('refuses an executable as a module and a module as a kernel', () => {
    expect(() => processKernelSdtSites(fixture(file))).toThrow(/not an executable/);
  });
});

it('x86-64: range-checks R_X86_64_32S when the module is placed outside the top 2 GiB', () => {
  expect(() => linkModule(fixture('sample-x86_64.o'), { name: 'low', base: 0x100000000n, resolve: () => 0xffffffff80100000n })).toThrow(
    /low: R_X86_64_32S? at \.text\+0x[0-9a-f]+ against .*does not fit in a(n un)? ?signed 32-bit field/,
  );
});

describe.skipIf(!hasClang)('krtld GOT-relative relocations', () => {
  it('x86-64: -fPIC code reaches kernel data through a GOT slot; a tail call to an SDT probe becomes a return', () => {
    const src = `extern int printk(const char *, ...); extern int kernel_counter; extern void __dtrace_probe_tail(int);
      int _init(void) { kernel_counter++; return printk("x"); }
      void leave(int v) { __dtrace_probe_tail(v); }`;
    const obj = read(compileC('x86_64', src, 'gotmod', ['-fPIC', '-mcmodel=small']));
    const base = 0xffffffff80300000n;
    const counter = 0xffffffff80123450n;
    const m = linkModule(obj, { name: 'gotmod', base, resolve: (n) => (n === 'printk' ? 0xffffffff80101000n : n === 'kernel_counter' ? counter : undefined) });
    const got = m.segments.find((s) => s.section === '.got')!;
    expect(got).toBeDefined();
    const text = m.segments[0]!;
    // movq kernel_counter@GOTPCREL(%rip), %rax: 48 8b 05 rel32
    const at = text.bytes.findIndex((b, i) => b === 0x48 && text.bytes[i + 1] === 0x8b && text.bytes[i + 2] === 0x05);
    expect(at).toBeGreaterThanOrEqual(0);
    const rel = BigInt(new DataView(text.bytes.buffer, text.bytes.byteOffset).getInt32(at + 3, true));
    const slot = text.address + BigInt(at + 7) + rel;
    expect(slot >= got.address && slot < got.address + BigInt(got.bytes.length)).toBe(true);
    expect(new DataView(got.bytes.buffer, got.bytes.byteOffset).getBigUint64(Number(slot - got.address), true)).toBe(counter);
    const tail = m.sites.find((s) => s.probe === 'tail')!;
    expect(tail.function).toBe('leave');
    expect(tail.tailCall).toBe(true);
    expect([...tail.patch]).toEqual([0xc3, 0x0f, 0x1f, 0x40, 0x00]);
  });
});

/**
 * Oracle: ld.lld links the same object at the addresses krtld chose (a linker
 * script per section; the SDT symbols defined as an address we then patch);
 * every allocated byte must match except the patched sites.
 */
describe.skipIf(!hasClang)('krtld against ld.lld', () => {
  it.each(ISAS)('%s: relocated bytes match ld.lld at the same layout', (isa) => {
    const obj = fixture(`sample-${isa}.o`);
    const m = linkModule(obj, { name: 'sample', base: BASE[isa], resolve: fakeKernel(isa) });
    const dir = mkdtempSync(join(tmpdir(), 'krtld-'));
    const objPath = join(dir, 'sample.o');
    writeFileSync(objPath, obj);
    const elf = parseElf(obj);
    const lines = ['SECTIONS {'];
    for (const [index, address] of m.sectionAddresses) {
      const s = elf.sections[index]!;
      // lld grows the unwind index (terminating entry); keep it out of the way
      if (s.name === '.ARM.exidx') continue;
      lines.push(`  ${s.name} 0x${address.toString(16)} : { *(${s.name}) }`);
    }
    if (isa === 'arm') lines.push(`  .ARM.exidx 0x${(BASE[isa] + 0x10000n).toString(16)} : { *(.ARM.exidx) }`);
    lines.push('}');
    writeFileSync(join(dir, 'script.ld'), lines.join('\n'));
    const probes = elf.symbols().filter((s) => s.shndx === SHN_UNDEF && s.name.startsWith('__dtrace_probe_'));
    const out = join(dir, 'sample.elf');
    tool('ld.lld', [
      '-T', join(dir, 'script.ld'), '-o', out, objPath, '--no-rosegment', '-e', '0', '-O0', // -O0: no string-merging reorder
      `--defsym=printk=0x${PRINTK[isa].toString(16)}`,
      ...probes.map((p) => `--defsym=${p.name}=0x${BASE[isa].toString(16)}`),
    ]);
    const lld = parseElf(read(out));
    let compared = 0;
    for (const seg of m.segments) {
      if (seg.section === '.ARM.exidx') continue; // lld rewrites the unwind index table
      const ls = lld.sectionByName(seg.section)!;
      expect(ls.addr).toBe(seg.address);
      const theirs = lld.sectionData(ls).slice();
      if (ls.type === 8) continue;
      // overwrite the SDT sites in lld's output with krtld's patches, then compare
      for (const site of m.sites) {
        const off = Number(site.address - seg.address);
        if (off >= 0 && off < theirs.length) theirs.set(site.patch, off);
      }
      const firstDiff = seg.bytes.findIndex((v, i) => v !== theirs[i]);
      expect(firstDiff, `${seg.section} first differs at +0x${firstDiff.toString(16)}`).toBe(-1);
      expect(seg.bytes.length).toBe(theirs.length);
      compared += seg.bytes.length;
    }
    expect(compared).toBeGreaterThan(100);
  });
});

describe.each(ISAS)('guest images (%s)', (isa) => {
  const kernelPath = imagePath(isa, 'kernel.elf');
  const modPath = imagePath(isa, 'modules/hello.ko');

  it.skipIf(!kernelPath)('leaves the caller\'s bytes alone, a Node Buffer included, so the sites can be processed again', () => {
    const bytes = readFileSync(kernelPath!);
    const before = Buffer.from(bytes);
    const first = processKernelSdtSites(bytes);
    expect(bytes.equals(before)).toBe(true);
    const second = processKernelSdtSites(bytes);
    expect(second.sites.length).toBe(first.sites.length);
    expect(second.sites.length).toBeGreaterThan(0);
  });

  it.skipIf(!kernelPath)('finds, names and patches the core kernel SDT sites', () => {
    const kernel = read(kernelPath!);
    const r = processKernelSdtSites(kernel);
    const probes = new Set(r.sites.map((s) => `${s.provider}:::${s.probe}`));
    for (const p of ['proc:::exec', 'proc:::exit', 'sched:::on-cpu', 'sched:::off-cpu', 'sdt:::syscall-entry', 'sdt:::syscall-return']) {
      expect(probes.has(p), p).toBe(true);
    }
    expect(r.sites.every((s) => s.function !== '')).toBe(true);
    expect(r.sites.every((s) => !s.tailCall)).toBe(true);
    const patched = parseElf(r.patchedImage);
    const text = patched.sectionByName('.text')!;
    for (const p of r.patches) {
      expect(p.fileOffset).toBe(text.offset + Number(p.address - text.addr));
      expect([...r.patchedImage.subarray(p.fileOffset, p.fileOffset + p.bytes.length)]).toEqual([...p.bytes]);
    }
    // Everything else is untouched.
    let diff = 0;
    for (let i = 0; i < kernel.length; i++) if (kernel[i] !== r.patchedImage[i]) diff++;
    expect(diff).toBeLessThanOrEqual(r.patches.reduce((n, p) => n + p.bytes.length, 0));
    expect(diff).toBeGreaterThan(0);
  });

  it.skipIf(!kernelPath || !modPath)('links hello.ko against the kernel symbols in kmod_arena', () => {
    const kernel = parseElf(read(kernelPath!));
    const globals = new Map<string, bigint>();
    for (const s of kernel.symbols()) if (s.shndx !== SHN_UNDEF && s.bind !== 0 && s.name) globals.set(s.name, s.value);
    const arena = globals.get('kmod_arena')!;
    expect(arena).toBeDefined();
    const m = linkModule(read(modPath!), { name: 'hello', base: arena, resolve: (n) => globals.get(n), limit: 1 << 20 });
    expect(m.init).toBeDefined();
    const probes = new Set(m.sites.map((s) => `${s.provider}:${s.module}:${s.function}:${s.probe}`));
    expect([...probes].some((p) => p.startsWith('sdt:hello:') && p.endsWith(':hello-open'))).toBe(true);
    expect([...probes].some((p) => p.endsWith(':hello-read-start'))).toBe(true);
    expect(m.sites.every((s) => s.function !== '')).toBe(true);
    expect(m.size).toBeLessThan(1 << 20);
  });
});

it('refuses a section whose size in the file is larger than a module may take, before allocating it', () => {
  const bytes = fixture('sample-x86_64.o').slice();
  const elf = parseElf(bytes);
  const bss = elf.sections.find((s) => s.name === '.bss' || s.type === 8)!;
  // sh_size of an ELF64 section header is at offset 32 of the header.
  const header = elf.header.shoff + bss.index * elf.header.shentsize;
  new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(header + 32, 0xffff_fff0n, true);
  expect(() => linkModule(bytes, { name: 'huge', base: 0xffffffff80240000n, resolve: fakeKernel('x86_64') })).toThrow(KrtldError);
  expect(() => linkModule(bytes, { name: 'huge', base: 0xffffffff80240000n, resolve: fakeKernel('x86_64') })).toThrow(/huge: section .* does not fit in the 67108864 bytes/);
});
