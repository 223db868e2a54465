// The ELF reader the disassembler uses: a clang-built object when clang is
// installed, the machine's libc when present, and malformed inputs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createX86Decoder, disassemble, ElfError, formatLine, readElfCode, SymbolTable } from '../src/index.js';

function hasClang(): boolean {
  try { execFileSync('clang', ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}

describe('readElfCode', () => {
  it('rejects malformed input with the problem and the offset', () => {
    expect(() => readElfCode(new Uint8Array(10))).toThrow(ElfError);
    expect(() => readElfCode(new Uint8Array(64))).toThrow(/bad magic at offset 0/);
    const arm = new Uint8Array(64);
    arm.set([0x7f, 0x45, 0x4c, 0x46, 2, 1]);
    arm[18] = 40;
    expect(() => readElfCode(arm)).toThrow(/e_machine 40 at offset 18/);
    const bad = new Uint8Array(64);
    bad.set([0x7f, 0x45, 0x4c, 0x46, 2, 1]);
    bad[18] = 62;
    new DataView(bad.buffer).setBigUint64(0x28, 1000n, true);
    new DataView(bad.buffer).setUint16(0x3a, 64, true);
    new DataView(bad.buffer).setUint16(0x3c, 3, true);
    expect(() => readElfCode(bad)).toThrow(/runs past the end/);
  });

  it.runIf(hasClang())('reads sections and function symbols of a clang-built object and disassembles them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'x86-elf-'));
    writeFileSync(join(dir, 'f.c'), 'int add(int a, int b) { return a + b; }\nint twice(int x) { return add(x, x); }\n');
    execFileSync('clang', ['-O1', '-fno-pic', '-c', '-o', join(dir, 'f.o'), join(dir, 'f.c')]);
    const elf = readElfCode(readFileSync(join(dir, 'f.o')));
    expect(elf.sections.map((s) => s.name)).toContain('.text');
    expect(elf.symbols.map((s) => s.name).sort()).toEqual(['add', 'twice']);
    const text = elf.sections.find((s) => s.name === '.text')!;
    const lines = disassemble(await createX86Decoder(), text.bytes, text.address, new SymbolTable(elf.symbols));
    expect(lines[0]!.symbol).toBe('add');
    expect(lines.map(formatLine).join('\n')).toContain('leal\t(%rdi,%rsi), %eax');
  });

  it.runIf(existsSync('/usr/lib/x86_64-linux-gnu/libc.so.6'))('finds libc .text and its dynamic symbols', () => {
    const elf = readElfCode(readFileSync('/usr/lib/x86_64-linux-gnu/libc.so.6'));
    expect(elf.sections.some((s) => s.name === '.text')).toBe(true);
    expect(elf.symbols.some((s) => s.name === 'malloc')).toBe(true);
  });
});
