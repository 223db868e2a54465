import { describe, expect, it } from 'vitest';
import { BOOTINFO_MAGIC, checkRamSize, placeInitrd, writeBootInfo, writeX86BootTables } from '../src/board/index.js';

const MiB = 1024 * 1024;

// Walks 4-level x86-64 page tables the way the MMU does (Intel SDM vol. 3, 4.5),
// stopping at 2 MiB pages; returns the physical address or undefined.
function translate(ram: Uint8Array, cr3: number, va: bigint): bigint | undefined {
  const v = new DataView(ram.buffer);
  let table = BigInt(cr3);
  for (const [shift, last] of [[39n, false], [30n, false], [21n, true]] as const) {
    const e = v.getBigUint64(Number(table + ((va >> shift) & 511n) * 8n), true);
    if (!(e & 1n)) return undefined;
    const addr = e & 0x000f_ffff_ffff_f000n;
    if (last) {
      expect(e & 0x80n).toBe(0x80n);
      return (addr & ~0x1f_ffffn) + (va & 0x1f_ffffn);
    }
    table = addr;
  }
  return undefined;
}

describe('boot-time writers', () => {
  it('writes the boot-information block field by field', () => {
    const ram = new Uint8Array(64 * 1024);
    writeBootInfo(ram, { cpuCount: 2, ramSize: 64 * MiB, initrdBase: 0x3f0_0000, initrdSize: 1234, nsPerInsn: 3, kernelEnd: 0x20_0001, cmdline: 'init=/bin/sh quiet' });
    const v = new DataView(ram.buffer, 0x1000);
    expect(v.getUint32(0, true)).toBe(BOOTINFO_MAGIC);
    expect(new TextDecoder().decode(ram.subarray(0x1000, 0x1004))).toBe('TBDW');
    expect(v.getUint32(0x0c, true)).toBe(2);
    expect(v.getBigUint64(0x10, true)).toBe(BigInt(64 * MiB));
    expect(v.getBigUint64(0x18, true)).toBe(0x3f0_0000n);
    expect(v.getUint32(0x28, true)).toBe(3);
    expect(v.getUint32(0x2c, true)).toBe(18);
    expect(v.getBigUint64(0x30, true)).toBe(0xf000_0000n);
    expect(v.getBigUint64(0x38, true)).toBe(1_700_000_000n);
    expect(v.getBigUint64(0x40, true)).toBe(0x20_1000n);
    expect(new TextDecoder().decode(ram.subarray(0x1100, 0x1112))).toBe('init=/bin/sh quiet');
    expect(ram[0x1112]).toBe(0);
  });

  it('refuses a command line that does not fit', () => {
    const ram = new Uint8Array(64 * 1024);
    expect(() => writeBootInfo(ram, { cpuCount: 1, ramSize: 16 * MiB, initrdBase: 0, initrdSize: 0, nsPerInsn: 1, kernelEnd: 0, cmdline: 'x'.repeat(4000) })).toThrow(/at most 3839/);
  });

  it('places the initrd at the top of RAM or 512 MiB, page aligned', () => {
    expect(placeInitrd(64 * MiB, 0x20_0000, 5000)).toBe(64 * MiB - 8192);
    expect(placeInitrd(1024 * MiB, 0x20_0000, 4096)).toBe(512 * MiB - 4096);
    expect(() => placeInitrd(16 * MiB, 15 * MiB, 2 * MiB)).toThrow(/does not fit/);
  });

  it('checks RAM sizes per ISA', () => {
    expect(checkRamSize('arm', 256 * MiB)).toBeUndefined();
    expect(checkRamSize('arm', 1024 * MiB)).toMatch(/at most 768 MiB/);
    expect(checkRamSize('x86_64', 8 * MiB)).toMatch(/at least 16 MiB/);
    expect(checkRamSize('x86_64', 20 * MiB + 5)).toMatch(/whole number of MiB/);
  });

  it('builds x86-64 boot tables: identity, higher half and the device window', () => {
    const ram = new Uint8Array(1 * MiB);
    const cr3 = writeX86BootTables(ram);
    expect(cr3).toBe(0x2000);
    expect(translate(ram, cr3, 0x12_3456n)).toBe(0x12_3456n);
    expect(translate(ram, cr3, 0x3fff_ffffn)).toBe(0x3fff_ffffn);
    expect(translate(ram, cr3, 0x4000_0000n)).toBeUndefined();
    expect(translate(ram, cr3, 0xffff_ffff_8010_0000n)).toBe(0x10_0000n);
    expect(translate(ram, cr3, 0xf000_5004n)).toBe(0xf000_5004n);
    expect(translate(ram, cr3, 0xf0ff_ffffn)).toBe(0xf0ff_ffffn);
    expect(translate(ram, cr3, 0xf100_0000n)).toBeUndefined();
    const gdt = new DataView(ram.buffer, 0x7000);
    // 0x08: present, DPL 0, code, L = 1; 0x10: present, data, writable.
    expect((gdt.getBigUint64(8, true) >> 40n) & 0xffn).toBe(0x9an);
    expect((gdt.getBigUint64(8, true) >> 53n) & 1n).toBe(1n);
    expect((gdt.getBigUint64(16, true) >> 40n) & 0xffn).toBe(0x92n);
  });
});
