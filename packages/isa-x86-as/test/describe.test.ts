// describe(): lengths, mnemonics, operands and provider classes for hand-picked
// encodings (expected text as llvm-objdump prints it), plus a fuzz property:
// random byte streams never throw on the host and never exceed 15 bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createX86Decoder } from '../src/index.js';

const dec = await createX86Decoder('debug');
const d = (hex: string, address = 0x1000n) => dec.describe(Uint8Array.from(hex.split(' ').map((b) => parseInt(b, 16))), 0, address)!;

describe('describe', () => {
  it.each([
    ['55', 'pushq', '%rbp', 'push_rbp'],
    ['5d', 'popq', '%rbp', 'pop_rbp'],
    ['c9', 'leave', '', 'leave'],
    ['c3', 'retq', '', 'ret'],
    ['cc', 'int3', '', 'int3'],
    ['90', 'nop', '', 'nop'],
    ['0f 1f 44 00 00', 'nopl', '(%rax,%rax)', 'nop'],
    ['48 8d 1d c8 ea 1a 00', 'leaq', '1764040(%rip), %rbx', 'rip_relative'],
    ['48 81 ec a8 00 00 00', 'subq', '$168, %rsp', ''],
    ['64 48 8b 04 25 28 00 00 00', 'movq', '%fs:40, %rax', ''],
    ['e8 19 00 00 00', 'callq', '0x101e', 'call'],
    ['ff d0', 'callq', '*%rax', 'indirect'],
    ['74 08', 'je', '0x100a', 'jcc'],
    ['e2 fe', 'loop', '0x1000', 'loop'],
    ['0f 05', 'syscall', '', 'syscall'],
    ['0f 01 f8', 'swapgs', '', 'priv'],
    ['f3 48 ab', 'rep stosq', '%rax, %es:(%rdi)', 'string'],
    ['f0 0f b1 17', 'lock cmpxchgl', '%edx, (%rdi)', ''],
    ['48 b8 88 77 66 55 44 33 22 11', 'movabsq', '$1234605616436508552, %rax', ''],
    ['0f b6 c0', 'movzbl', '%al, %eax', ''],
    ['48 63 c7', 'movslq', '%edi, %rax', ''],
    ['66 0f ef c0', 'pxor', '%xmm0, %xmm0', 'sse'],
    ['f2 0f 58 c1', 'addsd', '%xmm1, %xmm0', 'sse'],
    ['0f ae 00', 'fxsave', '(%rax)', ''],
    ['48 0f ae 00', 'fxsave64', '(%rax)', ''],
    ['48 0f ae 08', 'fxrstor64', '(%rax)', ''],
  ])('%s -> %s %s', (hex, mnemonic, operands, cls) => {
    const r = d(hex);
    expect(r.length).toBe(hex.split(' ').length);
    expect(r.mnemonic).toBe(mnemonic);
    expect(r.operands).toBe(operands);
    if (cls) expect(r.classes.has(cls)).toBe(true);
  });

  it('reports truncated input as null instead of guessing', () => {
    expect(dec.describe(Uint8Array.from([0x48, 0x8b]))).toBeNull();
    expect(dec.describe(Uint8Array.from([0xe8, 0, 0]))).toBeNull();
  });

  it('rejects more than 15 bytes of prefixes', () => {
    expect(dec.describe(new Uint8Array(16).fill(0x66))).toBeNull();
  });

  it('never throws and stays within 15 bytes on random byte streams', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 20 }), (bytes) => {
      const r = dec.describe(bytes);
      if (r) {
        expect(r.length).toBeGreaterThan(0);
        expect(r.length).toBeLessThanOrEqual(Math.min(15, bytes.length));
      }
    }), { numRuns: 20000 });
  });
});
