import { describe, expect, it } from 'vitest';
import { ARM_RELOCS, X86_64_RELOCS, linkModule } from '../src/krtld/index.js';
import { fixture } from './fixtures/toolchain.js';

const arm = (type: number) => ARM_RELOCS.get(type)!;
const x86 = (type: number) => X86_64_RELOCS.get(type)!;

describe('ARM relocation arithmetic', () => {
  it('R_ARM_CALL/JUMP24 read the addend from imm24 and keep the condition and opcode bits', () => {
    const bl = 0xebfffffen; // bl . (addend -8)
    expect(arm(28).readAddend!(bl)).toBe(-8n);
    const out = arm(28).apply({ S: 0x1000n, A: -8n, P: 0x800n }, bl);
    expect(out).toBe(0xeb000000n | ((0x1000n - 8n - 0x800n) >> 2n));
    const b = 0x0afffffen; // beq
    expect(arm(29).apply({ S: 0x100n, A: -8n, P: 0x100n }, b) >> 24n).toBe(0x0an);
    expect(() => arm(29).apply({ S: 0x4000000n, A: -8n, P: 0n }, b)).toThrow(/signed 26-bit/);
    expect(() => arm(28).apply({ S: 0x1001n, A: -8n, P: 0n }, bl)).toThrow(/not word aligned/);
  });
  it('R_ARM_MOVW_ABS_NC/MOVT_ABS split the value across imm4:imm12', () => {
    const movw = 0xe3000000n; // movw r0, #0
    const movt = 0xe3400000n; // movt r0, #0
    const v = 0xc0123456n;
    const lo = arm(43).apply({ S: v, A: 0n, P: 0n }, movw);
    const hi = arm(44).apply({ S: v, A: 0n, P: 0n }, movt);
    expect(((lo >> 4n) & 0xf000n) | (lo & 0xfffn)).toBe(0x3456n);
    expect(((hi >> 4n) & 0xf000n) | (hi & 0xfffn)).toBe(0xc012n);
    expect(arm(43).readAddend!(arm(43).apply({ S: 0x8004n, A: 0n, P: 0n }, movw))).toBe(-0x7ffcn);
  });
  it('R_ARM_PREL31 keeps bit 31 and range-checks', () => {
    expect(arm(42).apply({ S: 0x1000n, A: 0n, P: 0x2000n }, 0x80000000n)).toBe(0x80000000n | 0x7ffff000n);
    expect(() => arm(42).apply({ S: 0x80000000n, A: 0n, P: 0n }, 0n)).toThrow(/signed 31-bit/);
  });
  it('R_ARM_ABS32, REL32 and V4BX', () => {
    expect(arm(2).apply({ S: 0xc0000000n, A: 4n, P: 0n }, 4n)).toBe(0xc0000004n);
    expect(arm(3).apply({ S: 0x100n, A: 0n, P: 0x200n }, 0n)).toBe(0xffffff00n);
    expect(arm(40).apply({ S: 0n, A: 0n, P: 0n }, 0xe12fff1en)).toBe(0xe12fff1en);
  });
});

describe('x86-64 relocation arithmetic', () => {
  it('checks the 32-bit forms', () => {
    expect(x86(11).apply({ S: 0xffffffff80001000n, A: 8n, P: 0n }, 0n)).toBe(0x80001008n);
    expect(() => x86(11).apply({ S: 0x80000000n, A: 0n, P: 0n }, 0n)).toThrow(/signed 32-bit/);
    expect(x86(10).apply({ S: 0x80000000n, A: 0n, P: 0n }, 0n)).toBe(0x80000000n);
    expect(() => x86(10).apply({ S: 0xffffffff80000000n, A: 0n, P: 0n }, 0n)).toThrow(/unsigned 32-bit/);
    expect(x86(2).apply({ S: 0x1000n, A: -4n, P: 0x2000n }, 0n)).toBe(0xffffeffcn);
    expect(() => x86(4).apply({ S: 0xffffffff80000000n, A: -4n, P: 0x1000n }, 0n)).toThrow(/signed 32-bit/);
    expect(x86(24).apply({ S: 0n, A: 0n, P: 8n }, 0n)).toBe(0xfffffffffffffff8n);
  });
});

it('ARM .ARM.exidx entries point at their functions after linking', () => {
  const obj = fixture('sample-arm.o');
  const m = linkModule(obj, { name: 'sample', base: 0xc0240000n, resolve: () => 0xc0100000n });
  const exidx = m.segments.find((s) => s.section === '.ARM.exidx')!;
  const dv = new DataView(exidx.bytes.buffer, exidx.bytes.byteOffset);
  const starts: bigint[] = [];
  for (let o = 0; o < exidx.bytes.length; o += 8) {
    const off = BigInt.asIntN(31, BigInt(dv.getUint32(o, true) & 0x7fffffff));
    starts.push(exidx.address + BigInt(o) + off);
  }
  const fns = m.symbols.filter((s) => s.isFunction).map((s) => s.address).sort((a, b) => (a < b ? -1 : 1));
  expect(starts).toEqual(fns);
});
