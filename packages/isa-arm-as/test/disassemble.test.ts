// The ELF disassembler against llvm-objdump -d's listing of compiled objects (A32 and Thumb-2).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { disassembleA32, disassembleElf, disassembleT32 } from '../src/index.js';

const elf = new Uint8Array(readFileSync(new URL('./vectors/structs-O2.o', import.meta.url)));
const listing: { address: number; symbol: string; text: string }[] = JSON.parse(readFileSync(new URL('./vectors/structs-O2.objdump.json', import.meta.url), 'utf8'));

describe('disassembleElf', () => {
  it('matches llvm-objdump -d line for line (code and literal pools)', () => {
    const ours = disassembleElf(elf).map((l) => ({ address: l.address, symbol: l.symbol ?? '', text: l.text.startsWith('.word') ? l.text.replace(/0x0*/, '0x') : l.text }));
    const theirs = listing.map((l) => ({ ...l, text: l.text.startsWith('.word') ? l.text.replace(/0x0*/, '0x') : l.text }));
    expect(ours).toEqual(theirs);
  });

  it('restricts output to one function with a symbol', () => {
    const lines = disassembleElf(elf, 'classify');
    expect(lines.length).toBe(listing.filter((l) => l.symbol === 'classify').length);
    expect(lines.every((l) => l.symbol === 'classify')).toBe(true);
  });

  it('names the problem for bad input', () => {
    expect(() => disassembleElf(new Uint8Array([1, 2, 3]))).toThrow(/bad magic/);
    const x86 = elf.slice();
    x86[18] = 62;
    expect(() => disassembleElf(x86)).toThrow(/not an ARM file \(e_machine 62/);
    expect(() => disassembleElf(elf, 'no_such_function')).toThrow(/no function symbol 'no_such_function'/);
    const truncated = elf.slice(0, 200);
    expect(() => disassembleElf(truncated)).toThrow(/ELF:/);
  });

  it('matches llvm-objdump -d line for line on a Thumb-2 object (IT blocks, 16- and 32-bit forms)', () => {
    const thumb = new Uint8Array(readFileSync(new URL('./vectors/structs-thumb-O2.o', import.meta.url)));
    const thumbListing: { address: number; symbol: string; text: string }[] = JSON.parse(readFileSync(new URL('./vectors/structs-thumb-O2.objdump.json', import.meta.url), 'utf8'));
    const ours = disassembleElf(thumb).map((l) => ({ address: l.address, symbol: l.symbol ?? '', text: l.text.startsWith('.word') ? l.text.replace(/0x0*/, '0x') : l.text }));
    const theirs = thumbListing.map((l) => ({ ...l, text: l.text.startsWith('.word') ? l.text.replace(/0x0*/, '0x') : l.text }));
    expect(ours).toEqual(theirs);
    expect(ours.some((l) => /^it/.test(l.text))).toBe(true);
  });

  it('disassembles raw halfwords as Thumb code', () => {
    const bytes = new Uint8Array([0x80, 0xb5, 0x0c, 0xbf, 0x01, 0x20, 0x4f, 0xf0, 0x02, 0x00, 0x80, 0xbd]);
    expect(disassembleT32(bytes, 0x1000).map((l) => [l.address, l.size, l.text])).toEqual([
      [0x1000, 2, 'push\t{r7, lr}'], [0x1002, 2, 'ite\teq'], [0x1004, 2, 'moveq\tr0, #1'], [0x1006, 4, 'movne.w\tr0, #2'], [0x100a, 2, 'pop\t{r7, pc}'],
    ]);
  });

  it('disassembles raw words', () => {
    const bytes = new Uint8Array([0x1e, 0xff, 0x2f, 0xe1, 0x00, 0x48, 0x2d, 0xe9]);
    expect(disassembleA32(bytes, 0x1000).map((l) => l.text)).toEqual(['bx\tlr', 'push\t{r11, lr}']);
  });
});
