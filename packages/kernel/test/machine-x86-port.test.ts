// The x86-64 CpuPort on its own: boot state (BOARD.md 6.1), the level-
// triggered interrupt input, NOFAULT translation rules (a mapping the guest
// changes between two traps is read anew). Tiny hand-written
// guest code in identity-mapped low memory (the host-built boot tables).
import { describe, expect, it } from 'vitest';
import { X86Emulation } from '@wdtrace/isa-x86-as';
import { createX86Port, type X86Port } from '../src/index.js';

const RAX = 0;
const RCX = 1;
const RBX = 3;
const BOOT_PML4 = 0x2000;

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

  it('walks 4 KiB, 2 MiB and 1 GiB pages in both halves, through CR3 or another root, and refuses non-canonical addresses', async () => {
    const p = await port();
    const dv = new DataView(p.ram().buffer, p.ram().byteOffset);
    const pdpt = Number(dv.getBigUint64(BOOT_PML4, true) & 0xf_f000n); // the boot tables' first PDPT
    const pd = 0x30_0000;
    const pt = 0x30_1000;
    dv.setBigUint64(BOOT_PML4, dv.getBigUint64(BOOT_PML4, true) | 4n, true); // user pages below
    dv.setBigUint64(pdpt + 1 * 8, BigInt(pd) | 7n, true); // 1 GiB: a page directory
    dv.setBigUint64(pd + 0 * 8, BigInt(pt) | 7n, true); // 1 GiB + 0: a page table
    dv.setBigUint64(pd + 1 * 8, 0x20_0000n | 0x83n, true); // 1 GiB + 2 MiB: a 2 MiB page at 2 MiB
    dv.setBigUint64(pt + 5 * 8, 0x31_0000n | 7n, true); // 1 GiB + 20 KiB: user RW
    dv.setBigUint64(pt + 6 * 8, 0x31_1000n | 5n, true); // 1 GiB + 24 KiB: user read-only
    dv.setBigUint64(pdpt + 2 * 8, 0x83n, true); // 2 GiB: a 1 GiB page at 0
    p.codeWritten(BOOT_PML4, 0x1000);
    p.codeWritten(pd, 0x2000);
    p.codeWritten(pdpt, 0x1000);
    expect(p.translate(0, 0x4000_5123n)).toBe(0x31_0123);
    expect(p.translate(0, 0x4000_5123n, undefined, true)).toBe(0x31_0123);
    expect(p.translate(0, 0x4000_6123n)).toBe(0x31_1123);
    expect(p.translate(0, 0x4000_6123n, undefined, true)).toBeUndefined();
    expect(p.translate(0, 0x4000_7000n)).toBeUndefined();
    expect(p.translate(0, 0x4031_2345n)).toBe(0x31_2345);
    expect(p.translate(0, 0x8031_2345n)).toBe(0x31_2345);
    expect(p.translate(0, 0x8031_2345n, BigInt(BOOT_PML4))).toBe(0x31_2345);
    p.ram().set([1, 2], 0x31_0ffe);
    p.ram().set([5, 6], 0x31_1000);
    // A read crossing from a 4 KiB page into the next, and from there into an unmapped one.
    expect(p.readVirtual(0, 0x4000_5ffen, 4)).toEqual({ bytes: Uint8Array.of(1, 2, 5, 6) });
    expect(p.readVirtual(0, 0x4000_6ffen, 4)).toEqual({ fault: 0x4000_7000n });
    // The same bytes through the 2 MiB and the 1 GiB page, from either root.
    expect(p.readVirtual(0, 0x4031_0ffen, 4)).toEqual({ bytes: Uint8Array.of(1, 2, 5, 6) });
    expect(p.readVirtual(0, 0x8031_0ffen, 4, BigInt(BOOT_PML4))).toEqual({ bytes: Uint8Array.of(1, 2, 5, 6) });
    // Words read as the bytes are: within a page, across two, into an unmapped one.
    p.ram().set([0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe], 0x31_0100);
    expect(p.readWord(0, 0x4000_5100n, 8)).toBe(0xfedc_ba98_7654_3210n);
    expect(p.readWord(0, 0x4000_5101n, 3)).toBe(0x76_5432n);
    expect(p.readWord(0, 0x4000_5100n, 1, BigInt(BOOT_PML4))).toBe(0x10n);
    expect(p.readWord(0, 0x4000_5ffen, 4)).toBe(0x0605_0201n);
    expect(p.readWord(0, 0x4000_6ffen, 4)).toBeUndefined();
    expect(p.wordFault).toBe(0x4000_7000n);
    expect(p.readWord(0, 0x4000_7000n, 8)).toBeUndefined();
    expect(p.wordFault).toBe(0x4000_7000n);
    expect(p.readWord(0, 0x0000_8000_0000_0000n, 2)).toBeUndefined();
    expect(p.wordFault).toBe(0x0000_8000_0000_0000n);
    // Bits 63..47 must all be equal; the top of the address space wraps to 0 after 2^64 - 1.
    expect(p.translate(0, 0x0000_8000_0000_0000n)).toBeUndefined();
    expect(p.readVirtual(0, 0xffff_7fff_ffff_fffen, 2)).toEqual({ fault: 0xffff_7fff_ffff_fffen });
    expect(p.translate(0, 0xffff_ffff_8012_3456n)).toBe(0x12_3456);
    expect(p.readVirtual(0, 0xffff_ffff_ffff_ffffn, 2)).toEqual({ fault: 0xffff_ffff_ffff_ffffn });
  });

  it('a NOFAULT read after the guest changed a mapping between two traps sees the new mapping', async () => {
    const p = await port();
    const dv = new DataView(p.ram().buffer, p.ram().byteOffset);
    const pdpt = Number(dv.getBigUint64(BOOT_PML4, true) & 0xf_f000n);
    const pd = 0x30_0000;
    const pt = 0x30_1000;
    dv.setBigUint64(pdpt + 1 * 8, BigInt(pd) | 3n, true);
    dv.setBigUint64(pd, BigInt(pt) | 3n, true);
    dv.setBigUint64(pt, 0x31_0000n | 3n, true); // 1 GiB -> 0x31_0000, later 0x32_0000
    p.codeWritten(pdpt, 0x1000);
    p.codeWritten(pd, 0x2000);
    p.ram().fill(0x41, 0x31_0000, 0x31_1000);
    p.ram().fill(0x42, 0x32_0000, 0x32_1000);
    // int3 ; mov %rax, (%rbx) ; invlpg (%rcx) ; int3 ; 1: jmp 1b
    p.ram().set([0xcc, 0x48, 0x89, 0x03, 0x0f, 0x01, 0x39, 0xcc, 0xeb, 0xfe], 0x10_0000);
    p.codeWritten(0x10_0000, 16);
    const regs = p.registers(0);
    regs.set(RAX, 0x32_0000n | 3n);
    regs.set(RBX, BigInt(pt));
    regs.set(RCX, 0x4000_0000n);
    const first = p.run(0, 100);
    expect(first).toEqual({ kind: 'trap', trap: { cpu: 0, kind: 'breakpoint', pc: 0x10_0000n, user: false } });
    expect(p.readVirtual(0, 0x4000_0ffen, 2)).toEqual({ bytes: Uint8Array.of(0x41, 0x41) });
    expect(p.readVirtual(0, 0x4000_0000n, 1, BigInt(BOOT_PML4))).toEqual({ bytes: Uint8Array.of(0x41) });
    if (first.kind !== 'trap') throw new Error('no trap');
    expect(p.emulate(0, first.trap, X86Emulation.nop)).toBeUndefined();
    expect(p.run(0, 100)).toEqual({ kind: 'trap', trap: { cpu: 0, kind: 'breakpoint', pc: 0x10_0007n, user: false } });
    expect(p.readVirtual(0, 0x4000_0ffen, 2)).toEqual({ bytes: Uint8Array.of(0x42, 0x42) });
    expect(p.readWord(0, 0x4000_0ff8n, 8)).toBe(0x4242_4242_4242_4242n);
    expect(p.readVirtual(0, 0x4000_0000n, 1, BigInt(BOOT_PML4))).toEqual({ bytes: Uint8Array.of(0x42) });
    expect(p.translate(0, 0x4000_0000n)).toBe(0x32_0000);
  });

  it('gives a fast site\'s filter rdi, rsi, rdx, rcx and, while its interrupt line is asserted, leaves the int3 to the trap path', async () => {
    const p = await port();
    // mov $1,%edi; mov $2,%esi; mov $3,%edx; mov $4,%ecx; call f; hlt / f: int3 (push %rbp); pop %rbp; ret
    p.ram().set([0xbf, 1, 0, 0, 0, 0xbe, 2, 0, 0, 0, 0xba, 3, 0, 0, 0, 0xb9, 4, 0, 0, 0, 0xe8, 0xdb, 0, 0, 0, 0xf4], 0x10_0000);
    p.ram().set([0xcc, 0x5d, 0xc3], 0x10_0100);
    p.codeWritten(0x10_0000, 0x200);
    const { filter, args } = recordingFilter();
    expect(p.fastSites.set(0x10_0100n, filter, { kind: 'emulate', code: X86Emulation.pushRbp })).toBe(true);
    p.fastSites.setLimit(0, Infinity);
    p.fastSites.enable(true);
    // The line asserted (interrupts masked): the trap path, which raises the line again at the trap.
    p.setInterruptLine(0, 0);
    expect(p.run(0, 100)).toMatchObject({ kind: 'trap', trap: { pc: 0x10_0100n } });
    expect(p.fastSites.firings(0x10_0100n)).toBe(0);
    // The line low: the core calls the filter and goes on.
    p.setInterruptLine(0, -1);
    p.registers(0).setPc(0x10_0000n);
    p.registers(0).set(4, 0xffff_ffff_8001_0000n);
    expect(p.run(0, 100)).toEqual({ kind: 'halt' });
    expect(args()).toEqual([1n, 2n, 3n, 4n]);
    expect(p.fastSites.firings(0x10_0100n)).toBe(1);
    expect(p.registers(0).sp()).toBe(0xffff_ffff_8001_0000n);
    expect(p.fastSites.remove(0x10_0100n)).toBe(1);
  });
});

/** A filter (a WebAssembly function, as the core's table needs) that keeps a0..a3 of its last call and answers 0. */
function recordingFilter(): { filter: (cpu: number, a0: bigint, a1: bigint, a2: bigint, a3: bigint) => number; args: () => bigint[] } {
  const section = (id: number, content: number[]) => [id, content.length, ...content];
  const name = (c: string) => [1, c.charCodeAt(0)];
  const body = [0, ...[0, 1, 2, 3].flatMap((g) => [0x20, g + 1, 0x24, g]), 0x41, 0, 0x0b]; // local.get a_g; global.set g ... i32.const 0
  const bytes = Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, 0x7f, 0x7e, 0x7e, 0x7e, 0x7e, 1, 0x7f]), // (i32 i64 i64 i64 i64) -> i32
    ...section(3, [1, 0]),
    ...section(6, [4, ...[0, 1, 2, 3].flatMap(() => [0x7e, 1, 0x42, 0, 0x0b])]), // 4 mutable i64 globals
    ...section(7, [5, ...name('f'), 0, 0, ...['a', 'b', 'c', 'd'].flatMap((c, g) => [...name(c), 3, g])]),
    ...section(10, [1, body.length, ...body]),
  ]);
  const e = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as Record<string, unknown>;
  return {
    filter: e['f'] as (cpu: number, a0: bigint, a1: bigint, a2: bigint, a3: bigint) => number,
    args: () => ['a', 'b', 'c', 'd'].map((g) => (e[g] as WebAssembly.Global).value as bigint),
  };
}
