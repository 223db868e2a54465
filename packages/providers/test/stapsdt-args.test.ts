// The argument strings of SystemTap SDT notes, in both ISAs' assembler
// syntax, and their values: registers (sub-registers, high bytes), stack and
// indexed memory, immediates, symbols; widths and signs as the note says.
import { describe, expect, it } from 'vitest';
import type { RegisterFile, SafeRead } from '@wdtrace/kernel';
import { StapArgumentError, parseStapArguments, stapArgumentType, stapArgumentValue } from '../src/usdt/stapsdt.js';

/** Registers n -> value, and a memory of little-endian bytes at 0x1000. */
function machine(values: Record<number, bigint>, memory: number[]): { regs: RegisterFile; read: (va: bigint, n: number) => SafeRead } {
  const regs = { get: (n: number) => values[n] ?? 0n, pc: () => 0n, sp: () => values[4] ?? 0n } as unknown as RegisterFile;
  const read = (va: bigint, n: number): SafeRead => {
    const o = Number(va - 0x1000n);
    return o >= 0 && o + n <= memory.length ? { bytes: Uint8Array.from(memory.slice(o, o + n)) } : { fault: va };
  };
  return { regs, read };
}

describe('x86-64 SDT arguments', () => {
  it('read registers, memory, immediates and symbols', () => {
    const args = parseStapArguments('x86_64', '-4@%eax 8@-16(%rbp) -2@$-3 1@%ah 8@4(%rbx,%rcx,2) 4@counter(%rip) -8@%r9', (n) => (n === 'counter' ? 0x1008n : undefined));
    expect(args.map(stapArgumentType)).toEqual(['int32_t', 'uint64_t', 'int16_t', 'uint8_t', 'uint64_t', 'uint32_t', 'int64_t']);
    const { regs, read } = machine({ 0: 0xffff_ffff_ffff_fff0n, 5: 0x1010n, 3: 0x1000n, 1: 2n, 9: 5n }, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    const v = args.map((a) => stapArgumentValue(a, regs, 0x400000n, 0x400001n, read));
    expect(v[0]).toBe(BigInt.asUintN(64, -16n));
    expect(v[1]).toBe(0x0807060504030201n);
    expect(v[2]).toBe(BigInt.asUintN(64, -3n));
    expect(v[3]).toBe(0xffn);
    expect(v[4]).toBe(0x100f0e0d0c0b0a09n);
    expect(v[5]).toBe(0x0c0b0a09n);
    expect(v[6]).toBe(5n);
  });

  it('reject what they cannot read', () => {
    expect(() => parseStapArguments('x86_64', '4@%xyz')).toThrow(StapArgumentError);
    expect(() => parseStapArguments('x86_64', '3@%eax')).toThrow(StapArgumentError);
    expect(() => parseStapArguments('x86_64', '4@nosuch(%rip)')).toThrow(StapArgumentError);
  });
});

describe('ARM SDT arguments', () => {
  it('read registers, [base, #offset] memory and immediates', () => {
    const args = parseStapArguments('arm', '-4@r0 4@[sp, #8] -2@[r12] 4@#-5 1@[fp, #-1]');
    expect(args.map((a) => a.text)).toEqual(['-4@r0', '4@[sp, #8]', '-2@[r12]', '4@#-5', '1@[fp, #-1]']);
    const { regs, read } = machine({ 0: 0xfffffffen, 13: 0x1000n, 12: 0x1002n, 11: 0x1001n }, [0x10, 0x20, 0xfe, 0xff, 0, 0, 0, 0, 0x78, 0x56, 0x34, 0x12]);
    const v = args.map((a) => stapArgumentValue(a, regs, 0x10000n, 0x10004n, read));
    expect(v).toEqual([BigInt.asUintN(64, -2n), 0x12345678n, BigInt.asUintN(64, -2n), 0xfffffffbn, 0x10n]);
  });
});
