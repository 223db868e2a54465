// The x86-64 CpuPort on its own: boot state (BOARD.md 6.1), the level-
// triggered interrupt input, NOFAULT translation rules. Tiny hand-written
// guest code in identity-mapped low memory (the host-built boot tables).
import { describe, expect, it } from 'vitest';
import { createX86Port, type X86Port } from '../src/index.js';

const RBX = 3;

async function port(): Promise<X86Port> {
  const p = await createX86Port({ cpuCount: 1, ramBytes: 16 << 20, build: 'release', mmioRead: () => 0, mmioWrite: () => {} });
  p.resetBoot(0x10_0000n);
  return p;
}

function gate(p: X86Port, idt: number, vector: number, target: number): void {
  const dv = new DataView(p.ram().buffer, p.ram().byteOffset);
  const lo = BigInt(target & 0xffff) | (0x08n << 16n) | (0x8en << 40n) | (BigInt(target >>> 16) << 48n);
  dv.setBigUint64(idt + vector * 16, lo, true);
  dv.setBigUint64(idt + vector * 16 + 8, 0n, true);
}

describe('x86-64 port', () => {
  it('boots CPU 0 as BOARD.md 6.1 says', async () => {
    const p = await port();
    const r = p.registers(0);
    expect(r.pc()).toBe(0x10_0000n);
    expect(r.sp()).toBe(0xffff_ffff_8001_0000n);
    expect(r.get(7)).toBe(0x1000n);
    expect(r.flags()).toBe(0x2);
    expect(r.userMode()).toBe(false);
    expect(r.pageTableRoot()).toBe(0x2000n);
    expect(p.core.readMsrLo(0xc000_0080)).toBe(0xd01); // SCE LME LMA NXE
    expect(p.core.getControlRegisterLo(0) >>> 0).toBe(0x8001_0021); // PG WP NE PE
    expect(p.core.getControlRegisterLo(4)).toBe(0x20);
    // the boot tables: identity low, the kernel half, the device window
    expect(p.translate(0, 0x12_3456n)).toBe(0x12_3456);
    expect(p.translate(0, 0xffff_ffff_8012_3456n)).toBe(0x12_3456);
    expect(p.translate(0, 0xf000_4000n)).toBe(0xf000_4000);
    expect(p.translate(0, 0x4000_0000n)).toBeUndefined();
    // supervisor pages are not user-writable
    expect(p.translate(0, 0x12_3456n, undefined, true)).toBeUndefined();
  });

  it('the interrupt input is a level: while asserted, it is taken again whenever the machine pushes it', async () => {
    const p = await port();
    const ram = p.ram();
    ram.set([0xfb, 0x90, 0xeb, 0xfd], 0x10_0000); // sti; 1: nop; jmp 1b
    ram.set([0x48, 0xff, 0xc3, 0x48, 0xcf], 0x10_0100); // incq %rbx; iretq (no acknowledge)
    p.codeWritten(0x10_0000, 0x200);
    gate(p, 0x20_0000, 32, 0x10_0100);
    p.core.setIdtr(0x20_0000, 0, 0xfff);
    const regs = p.registers(0);
    p.setInterruptLine(0, 0);
    expect(p.run(0, 100)).toEqual({ kind: 'budget' });
    expect(regs.get(RBX)).toBe(1n);
    // the board still asserts line 0: pushed again after the slice, taken again
    p.setInterruptLine(0, 0);
    expect(p.run(0, 100)).toEqual({ kind: 'budget' });
    expect(regs.get(RBX)).toBe(2n);
    // line low: nothing more, even though the core had it pending before
    p.setInterruptLine(0, 0);
    p.setInterruptLine(0, -1);
    expect(p.run(0, 100)).toEqual({ kind: 'budget' });
    expect(regs.get(RBX)).toBe(2n);
  });

  it('hlt with the line low stops as halt; the line wakes it', async () => {
    const p = await port();
    p.ram().set([0xfb, 0xf4, 0xeb, 0xfd], 0x10_0000); // sti; 1: hlt; jmp 1b
    p.ram().set([0x48, 0xff, 0xc3, 0x48, 0xcf], 0x10_0100);
    p.codeWritten(0x10_0000, 0x200);
    gate(p, 0x20_0000, 33, 0x10_0100);
    p.core.setIdtr(0x20_0000, 0, 0xfff);
    expect(p.run(0, 100)).toEqual({ kind: 'halt' });
    p.setInterruptLine(0, 1);
    p.run(0, 3);
    expect(p.registers(0).get(RBX)).toBe(1n);
  });
});
