// The USDT probes the guest's own programs carry (built with wdtrace -h and
// -G by the guest build): every site of /bin/sh's provider sh and /bin/kvd's
// provider kv resolves to an address in its function, on each image set —
// also when the program has lost its FILE symbols (llvm-strip --strip-debug
// drops them), a static function then found by its name alone.
import { describe, expect, it } from 'vitest';
import { defaultImages, parseElf, readInitrdEntries } from '@wdtrace/kernel';
import { programUsdt } from '../src/usdt/sites.js';

/** A program of the guest's initrd. */
function guestProgram(isa: 'x86_64' | 'arm', thumb: boolean, path: string): Uint8Array {
  const initrd = defaultImages(isa, { thumb }).initrd;
  const e = readInitrdEntries(initrd).entries.find((x) => x.name.replace(/^\.?\//, '') === path);
  if (!e) throw new Error(`no ${path} in the initrd`);
  return initrd.slice(e.dataStart, e.dataStart + e.size);
}

/** A copy of an ELF program whose STT_FILE symbols are NOTYPE symbols. */
function withoutFileSymbols(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  const elf = parseElf(out);
  const symtab = elf.sectionByName('.symtab')!;
  const size = elf.is64 ? 24 : 16;
  const info = elf.is64 ? 4 : 12;
  for (let o = symtab.offset; o + size <= symtab.offset + symtab.size; o += size) if ((out[o + info]! & 0xf) === 4) out[o + info] = out[o + info]! & 0xf0;
  return out;
}

describe.each([
  { set: 'x86_64', isa: 'x86_64' as const, thumb: false },
  { set: 'arm', isa: 'arm' as const, thumb: false },
  { set: 'arm-thumb', isa: 'arm' as const, thumb: true },
])('the usdt probes of the guest programs ($set)', ({ isa, thumb }) => {
  const cases = [
    { path: 'bin/sh', provider: 'sh', probes: ['command-start', 'command-done', 'builtin-start', 'builtin-done', 'function-entry', 'function-return'], functions: ['exec_simple'] },
    { path: 'bin/kvd', provider: 'kv', probes: ['request-start', 'request-done', 'table-grow'], functions: ['grow', 'serve'] },
  ];
  for (const c of cases) {
    it(`${c.path}: every site resolves, with and without FILE symbols`, () => {
      const bytes = guestProgram(isa, thumb, c.path);
      for (const program of [bytes, withoutFileSymbols(bytes)]) {
        const elf = parseElf(program);
        const usdt = programUsdt(elf)!;
        expect(usdt.unresolved).toBe(0);
        expect(usdt.providers.map((p) => p.name)).toEqual([c.provider]);
        expect(usdt.providers[0]!.probes.map((p) => p.name)).toEqual(c.probes);
        expect([...new Set(usdt.sites.map((s) => s.function))].sort()).toEqual(c.functions);
        expect(new Set(usdt.sites.filter((s) => !s.isEnabled).map((s) => s.probe))).toEqual(new Set(c.probes));
        for (const s of usdt.sites) {
          const fn = elf.symbols().find((y) => y.name === s.function && (y.value & ~1n) === s.functionAddress)!;
          expect(s.address - s.functionAddress).toBe(BigInt(s.offset));
          expect(s.offset).toBeLessThan(fn.size);
          expect(s.thumb).toBe(thumb);
        }
      }
    });
  }
});
