// The disassembler's text against llvm-objdump: whole lines (mnemonic and
// operands) on libc's .text when the oracle is installed, and fixed lines
// (bytes, symbol headers, branch targets) always.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createX86Decoder, disassemble, formatLine, formatSymbolHeader, SymbolTable } from '../src/index.js';
import { readExecutableSections } from './elf-text.js';
import { hasObjdump } from './objdump-oracle.js';

const dec = await createX86Decoder('release');

describe('disassemble', () => {
  it('prints lines, symbol headers and branch targets like llvm-objdump', () => {
    const code = Uint8Array.from([0x55, 0x48, 0x89, 0xe5, 0xe8, 0x05, 0, 0, 0, 0x5d, 0xc3, 0x90, 0x90, 0x90, 0x90, 0xf0, 0x0f, 0xb1, 0x17]);
    const syms = new SymbolTable([{ address: 0x1000n, name: 'main' }, { address: 0x100en, name: 'helper' }]);
    const lines = disassemble(dec, code, 0x1000n, syms);
    expect(lines[0]!.symbol).toBe('main');
    expect(formatSymbolHeader(0x1000n, 'main')).toBe('\n0000000000001000 <main>:');
    expect(lines.map(formatLine)).toEqual([
      '    1000: 55                           \tpushq\t%rbp',
      '    1001: 48 89 e5                     \tmovq\t%rsp, %rbp',
      '    1004: e8 05 00 00 00               \tcallq\t0x100e <helper>',
      '    1009: 5d                           \tpopq\t%rbp',
      '    100a: c3                           \tretq',
      '    100b: 90                           \tnop',
      '    100c: 90                           \tnop',
      '    100d: 90                           \tnop',
      '    100e: 90                           \tnop',
      '    100f: f0 0f b1 17                  \tlock\t\tcmpxchgl\t%edx, (%rdi)',
    ]);
  });

  const libc = '/usr/lib/x86_64-linux-gnu/libc.so.6';
  it.runIf(existsSync(libc) && hasObjdump())('agrees with llvm-objdump on whole lines for at least 98.5% of libc', () => {
    const text = readExecutableSections(libc).find((s) => s.name === '.text')!;
    const mine = new Map(disassemble(dec, text.bytes, text.address).map((l) => [l.address, `${l.mnemonic}\t${l.operands}`.trim()]));
    const out = execFileSync('llvm-objdump', ['-d', '--no-show-raw-insn', '-j', '.text', libc], { maxBuffer: 1 << 30 }).toString();
    let n = 0, ok = 0, lock = false;
    for (const l of out.split('\n')) {
      const m = /^\s*([0-9a-f]+):\s*\t(.*)$/.exec(l);
      if (!m) continue;
      let t = m[2]!.replace(/\s+#.*$/, '').replace(/ <[^>]*>$/, '').split('\t').filter(Boolean);
      if (t[0] === 'lock') { lock = true; continue; }
      let a = BigInt('0x' + m[1]);
      if (lock) { a -= 1n; t = ['lock ' + t[0], ...t.slice(1)]; lock = false; }
      if ((t[0] === 'rep' || t[0] === 'repne') && t[1]) t = [`${t[0]} ${t[1]}`, ...t.slice(2)];
      n++;
      if (mine.get(a) === `${t[0]}\t${t.slice(1).join(' ')}`.trim()) ok++;
    }
    console.log(`disassembler: ${ok} of ${n} libc lines identical to llvm-objdump (${((ok / n) * 100).toFixed(2)}%)`);
    expect(ok / n).toBeGreaterThanOrEqual(0.985);
  }, 120_000);
});
