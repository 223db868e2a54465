// The disassembler's text against llvm-objdump: whole lines (mnemonic and
// operands) on libc's .text when the oracle is installed, and fixed lines
// (bytes, symbol headers, branch targets) always.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createX86Decoder, disassemble, formatLine, formatSymbolHeader, type Symbolizer } from '../src/index.js';
import { readExecutableSections } from './elf-text.js';
import { hasObjdump } from './objdump-oracle.js';

const dec = await createX86Decoder('release');

/** A Symbolizer over a few labels: the nearest one at or below an address. */
function labels(list: { address: bigint; name: string }[]): Symbolizer {
  const below = (a: bigint) => list.filter((s) => s.address <= a).sort((x, y) => (x.address < y.address ? 1 : -1))[0];
  return {
    startingAt: (a) => list.find((s) => s.address === a)?.name,
    symbolize: (a) => {
      const s = below(a);
      return s && (s.address === a ? s.name : `${s.name}+0x${(a - s.address).toString(16)}`);
    },
  };
}

describe('disassemble', () => {
  it('prints lines, symbol headers and branch targets like llvm-objdump', () => {
    const code = Uint8Array.from([0x55, 0x48, 0x89, 0xe5, 0xe8, 0x05, 0, 0, 0, 0x5d, 0xc3, 0x90, 0x90, 0x90, 0x90, 0xf0, 0x0f, 0xb1, 0x17]);
    const syms = labels([{ address: 0x1000n, name: 'main' }, { address: 0x100en, name: 'helper' }]);
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

  it('adds llvm-objdump comments for large immediates and RIP-relative operands at column 72', () => {
    // Expected lines are llvm-objdump's own for these bytes of the guest kernel.
    const at = (address: bigint, hex: string) => disassemble(dec, Uint8Array.from(hex.split(' ').map((b) => parseInt(b, 16))), address, undefined, data)[0]!;
    const data = labels([{ address: 0xffffffff8010f000n, name: 'setup_stack.random_seed' }, { address: 0xffffffff80222420n, name: 'irq_table' }]);
    expect(formatLine(at(0xffffffff801020e1n, '69 0d 15 cf 00 00 0d 66 19 00'))).toBe(
      'ffffffff801020e1: 69 0d 15 cf 00 00 0d 66 19 00\timull\t$1664525, 53013(%rip), %ecx # imm = 0x19660D\n' +
        ' '.repeat(72) + '# 0xffffffff8010f000 <setup_stack.random_seed>',
    );
    expect(formatLine(at(0xffffffff801054den, '48 c7 05 67 cf 11 00 30 55 10 80'))).toBe(
      'ffffffff801054de: 48 c7 05 67 cf 11 00 30 55 10 80     \tmovq\t$-2146413264, 1167207(%rip) # imm = 0x80105530\n' +
        ' '.repeat(72) + '# 0xffffffff80222450 <irq_table+0x30>',
    );
    // Short text is padded to the comment column; 16-bit values lose their sign bits; [-256, 255] gets no comment.
    expect(formatLine(at(0x1000n, '48 83 ec 08'))).toBe('    1000: 48 83 ec 08                  \tsubq\t$8, %rsp');
    expect(formatLine(at(0x1000n, '48 c7 c0 00 ff ff ff'))).toBe('    1000: 48 c7 c0 00 ff ff ff         \tmovq\t$-256, %rax');
    expect(formatLine(at(0x1000n, '48 c7 c0 ff fe ff ff'))).toBe('    1000: 48 c7 c0 ff fe ff ff         \tmovq\t$-257, %rax' + ' '.repeat(13) + '# imm = 0xFEFF');
  });

  it('spells segment-register moves and the 0F 00 group as llvm does', () => {
    const text = (hex: string) => {
      const l = disassemble(dec, Uint8Array.from(hex.split(' ').map((b) => parseInt(b, 16))), 0n)[0]!;
      return `${l.mnemonic} ${l.operands}`;
    };
    expect(text('8e d9')).toBe('movl %ecx, %ds');
    expect(text('66 8e d9')).toBe('movw %cx, %ds');
    expect(text('48 8e d9')).toBe('movq %rcx, %ds');
    expect(text('8e 19')).toBe('movw (%rcx), %ds');
    expect(text('8c 19')).toBe('movw %ds, (%rcx)');
    expect(text('0f 00 d8')).toBe('ltrw %ax');
    expect(text('0f 00 d0')).toBe('lldtw %ax');
    expect(text('0f 00 c8')).toBe('strl %eax');
    expect(text('48 0f 00 c8')).toBe('strq %rax');
    expect(text('0f 00 08')).toBe('strw (%rax)');
    expect(text('0f 00 e0')).toBe('verr %ax');
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
