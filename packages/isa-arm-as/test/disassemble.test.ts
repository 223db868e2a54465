// The ELF disassembler against llvm-objdump -d's listing of a compiled object.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { disassembleA32, disassembleElf } from '../src/index.js';

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

  it('disassembles raw words', () => {
    const bytes = new Uint8Array([0x1e, 0xff, 0x2f, 0xe1, 0x00, 0x48, 0x2d, 0xe9]);
    expect(disassembleA32(bytes, 0x1000).map((l) => l.text)).toEqual(['bx\tlr', 'push\t{r11, lr}']);
  });
});
