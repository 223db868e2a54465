// ArmPort on its own (no guest kernel): the boot state of BOARD.md 6.2 and
// section 7, how the core's stops become CpuStops, the IRQ input and wfi,
// device accesses and requestStop, a CPU stuck taking prefetch aborts, and
// the host-side translation-table walk behind readVirtual/translate (a
// mapping the guest changes between two traps is read anew).
// Programs are A32 words (encodings from the ARM ARM; the text is beside each).
import { describe, expect, it } from 'vitest';
import { ArmPort } from '../src/machine/arm.js';

const RAM = 16 << 20;

interface Access {
  kind: 'r' | 'w';
  cpu: number;
  paddr: number;
  value?: number;
}

async function port(cpus = 1, onWrite?: (p: ArmPort) => void): Promise<{ p: ArmPort; log: Access[] }> {
  const log: Access[] = [];
  let self: ArmPort | undefined;
  const p = await ArmPort.create({
    cpuCount: cpus,
    ramBytes: RAM,
    mmioRead: (cpu, paddr) => {
      log.push({ kind: 'r', cpu, paddr });
      return 0x55;
    },
    mmioWrite: (cpu, paddr, _size, value) => {
      log.push({ kind: 'w', cpu, paddr, value });
      onWrite?.(self!);
    },
  });
  self = p;
  return { p, log };
}

function words(p: ArmPort, at: number, list: number[]): void {
  const view = new DataView(p.ram().buffer, p.ram().byteOffset);
  list.forEach((w, i) => view.setUint32(at + i * 4, w >>> 0, true));
  p.codeWritten(at, list.length * 4);
}

const UDF_16 = 0xe7f001f0; // udf #16: an undefined instruction that is not the DTrace breakpoint

describe('ArmPort: boot state', () => {
  it('puts CPU 0 at the physical entry in SVC mode with r1 = board id, r2 = boot info, sp = 0x10000', async () => {
    const { p } = await port();
    p.resetBoot(0x10_0000n);
    const r = p.registers(0);
    expect([r.get(0), r.get(1), r.get(2), r.sp(), r.pc()]).toEqual([0n, 0x7764n, 0x1000n, 0x1_0000n, 0x10_0000n]);
    expect(r.flags()).toBe(0x1d3);
    expect(r.userMode()).toBe(false);
    expect(r.retired()).toBe(0n);
    expect(r.pageTableRoot()).toBe(0n);
  });

  it('starts a secondary CPU with fresh registers: r0 = argument, sp, pc = entry, CPSR 0x1D3', async () => {
    const { p } = await port(2);
    words(p, 0x8000, [0xe3a05007, UDF_16]); // mov r5, #7 ; udf
    p.startSecondary({ cpu: 1, entry: 0x8000n, stack: 0x9000n, arg: 3n, pageTable: 0n });
    expect(p.run(1, 10)).toMatchObject({ kind: 'trap' });
    expect(p.registers(1).get(5)).toBe(7n);
    p.startSecondary({ cpu: 1, entry: 0x8004n, stack: 0xa000n, arg: 0xffff_ffffn, pageTable: 0n });
    const r = p.registers(1);
    expect([r.get(0), r.get(5), r.sp(), r.pc(), BigInt(r.flags())]).toEqual([0xffff_ffffn, 0n, 0xa000n, 0x8004n, 0x1d3n]);
    expect(r.retired()).toBe(0n);
    expect(() => p.registers(2)).toThrow('ARM machine: no CPU 2 (the machine has 2)');
  });
});

describe('ArmPort: stops', () => {
  it('maps BKPT to a breakpoint trap, UDF and the DTrace breakpoint to undefined traps, each delivered on request', async () => {
    const { p } = await port();
    p.resetBoot(0x8000n);
    // bkpt #0x12 ; udf #16 ; DTrace breakpoint (AL) ; DTrace breakpoint (EQ, Z clear: skipped) ; mov r0, #1 ; udf #16
    words(p, 0x8000, [0xe1200172, UDF_16, 0xe7f000fe, 0xe7f000f0, 0xe3a00001, UDF_16]);
    expect(p.run(0, 100)).toEqual({ kind: 'trap', trap: { cpu: 0, kind: 'breakpoint', pc: 0x8000n, word: 0xe1200172, user: false } });
    p.registers(0).setPc(0x8004n);
    expect(p.run(0, 100)).toEqual({ kind: 'trap', trap: { cpu: 0, kind: 'undefined', pc: 0x8004n, word: UDF_16, user: false } });
    // Unclaimed: the guest's undefined-instruction vector (VBAR 0 + 4), lr = the next instruction.
    p.deliverStop(0);
    expect(p.registers(0).pc()).toBe(0x4n);
    expect(p.registers(0).flags() & 0x1f).toBe(0x1b);
    expect(p.registers(0).get(14)).toBe(0x8008n);
    p.resetBoot(0x8008n);
    const stop = p.run(0, 100);
    expect(stop).toEqual({ kind: 'trap', trap: { cpu: 0, kind: 'undefined', pc: 0x8008n, word: 0xe7f000fe, user: false } });
    // Claimed: emulate nothing but a nop in its place and go on; the EQ breakpoint is skipped.
    if (stop.kind !== 'trap') throw new Error('no trap');
    expect(p.emulate(0, stop.trap, 15, 0xe320f000)).toBeUndefined();
    expect(p.run(0, 100)).toMatchObject({ kind: 'trap', trap: { pc: 0x8014n } });
    expect(p.registers(0).get(0)).toBe(1n);
  });

  it('lets svc reach the guest vector without stopping', async () => {
    const { p } = await port();
    p.resetBoot(0x8000n);
    p.registers(0).set(0, 0n);
    words(p, 0x8000, [0xef000000]); // svc #0
    expect(p.run(0, 1)).toEqual({ kind: 'budget' });
    expect(p.registers(0).pc()).toBe(0x8n);
    expect(p.registers(0).flags() & 0x1f).toBe(0x13);
  });

  it('halts on wfi with the interrupt input low and takes the IRQ once the line is raised and unmasked', async () => {
    const { p } = await port();
    p.resetBoot(0x8000n);
    words(p, 0x8000, [0xe320f003, 0xf1080080, 0xe320f000]); // wfi ; cpsie i ; nop
    expect(p.run(0, 10)).toEqual({ kind: 'halt' });
    expect(p.run(0, 10)).toEqual({ kind: 'halt' });
    p.setInterruptLine(0, 0);
    p.run(0, 2); // wakes even though masked, unmasks, and the IRQ is taken
    expect(p.registers(0).flags() & 0x1f).toBe(0x12);
    expect(p.registers(0).pc()).toBe(0x18n + 4n);
    p.setInterruptLine(0, -1);
  });

  it('reports a CPU that keeps taking prefetch aborts at an unusable vector as fatal', async () => {
    const { p } = await port();
    p.resetBoot(0x8000n);
    p.registers(0).set(0, 0xe000_0000n);
    words(p, 0x8000, [0xee0c0f10, 0xe12fff10]); // mcr p15, 0, r0, c12, c0, 0 (VBAR) ; bx r0
    expect(p.run(0, 2)).toEqual({ kind: 'budget' });
    const stop = p.run(0, 1000);
    expect(stop).toMatchObject({ kind: 'fatal', pc: 0xe000_000cn });
    expect(stop.kind === 'fatal' && stop.reason).toBe('CPU 0 retired nothing in 1000 steps: it keeps taking prefetch aborts at 0xe000000c (is its vector table mapped?)');
  });

  it('sends device accesses to the board with the CPU index, and stops after the instruction that asks', async () => {
    const { p, log } = await port(2, (self) => self.requestStop());
    p.startSecondary({ cpu: 1, entry: 0x8000n, stack: 0n, arg: 0n, pageTable: 0n });
    p.registers(1).set(1, 0xf000_4000n);
    // ldr r0, [r1] ; str r0, [r1, #4] ; mov r2, #9 ; udf
    words(p, 0x8000, [0xe5910000, 0xe5810004, 0xe3a02009, UDF_16]);
    expect(p.run(1, 100)).toEqual({ kind: 'budget' });
    expect(log).toEqual([
      { kind: 'r', cpu: 1, paddr: 0xf000_4000 },
      { kind: 'w', cpu: 1, paddr: 0xf000_4004, value: 0x55 },
    ]);
    expect(p.registers(1).retired()).toBe(2n);
    expect(p.registers(1).get(2)).toBe(0n);
    expect(p.run(1, 100)).toMatchObject({ kind: 'trap' });
    expect(p.registers(1).get(2)).toBe(9n);
  });

  it('refuses an emulation whose class does not fit, and displaced bytes that are not one instruction', async () => {
    const { p } = await port();
    p.resetBoot(0x8000n);
    const trap = { cpu: 0, kind: 'undefined' as const, pc: 0x8000n, word: 0xe7f000fe, user: false };
    expect(() => p.emulate(0, trap, 1, 0xe3a00001)).toThrow('ARM emulate: 0xe3a00001 at 0x8000 is not of emulation class 1');
    expect(() => p.executeDisplaced(0, trap, new Uint8Array(2))).toThrow('an A32 instruction is 4 bytes, not 2');
    // A displaced undefined instruction is a stop to deliver.
    expect(p.executeDisplaced(0, trap, Uint8Array.of(0xf0, 0x01, 0xf0, 0xe7))).toEqual({ kind: 'exception', vector: 0x04, pc: 0x8000n });
  });
});

describe('ArmPort: NOFAULT reads and translation', () => {
  it('with the MMU off reads physical RAM, and refuses the device window and what lies beyond RAM', async () => {
    const { p, log } = await port();
    p.resetBoot(0x8000n);
    words(p, 0x2000, [0x44332211]);
    expect(p.readVirtual(0, 0x2001n, 3)).toEqual({ bytes: Uint8Array.of(0x22, 0x33, 0x44) });
    expect(p.readVirtual(0, 0xf000_0004n, 4)).toEqual({ fault: 0xf000_0004n });
    expect(p.readVirtual(0, BigInt(RAM - 2), 4)).toEqual({ fault: BigInt(RAM) });
    expect(p.readVirtual(0, 0x1_0000_0000n, 1)).toEqual({ fault: 0x1_0000_0000n });
    expect(p.translate(0, 0x2000n)).toBe(0x2000);
    expect(log).toEqual([]);
  });

  it('walks sections and small pages with their permissions, through TTBR0 or another root', async () => {
    const { p } = await port();
    const ram = new DataView(p.ram().buffer, p.ram().byteOffset);
    const l1 = 0x10_0000; // 16 KiB aligned
    const other = 0x10_8000;
    const l2 = 0x10_4000;
    ram.setUint32(l1 + 0 * 4, 0x0000_0000 | (1 << 10) | 2, true); // VA 0 MiB -> PA 0, section, privileged RW (identity for the code)
    ram.setUint32(l1 + 0xc00 * 4, 0x0020_0000 | (1 << 10) | 2, true); // VA 0xC000_0000 -> PA 2 MiB, section
    ram.setUint32(l1 + 0xf00 * 4, 0xf000_0000 | (1 << 10) | 0x12, true); // device window, section, XN
    ram.setUint32(l1 + 4 * 4, l2 | 1, true); // VA 4 MiB: page table
    ram.setUint32(l2 + 0 * 4, 0x30_0000 | (3 << 4) | 2, true); // 0x0040_0000 user RW
    ram.setUint32(l2 + 1 * 4, 0x30_1000 | (2 << 4) | 2, true); // 0x0040_1000 user read-only
    ram.setUint32(l2 + 2 * 4, 0x30_2000 | (1 << 4) | 2, true); // 0x0040_2000 kernel only
    ram.setUint32(other + 4 * 4, 0x0050_0000 | (3 << 10) | 2, true); // other root: VA 4 MiB -> PA 5 MiB section, full access
    ram.setUint32(0x30_1ffc, 0xcafe_f00d, true);
    ram.setUint32(0x30_2000, 0x1234_5678, true);
    p.resetBoot(0x8000n);
    p.registers(0).set(0, BigInt(l1));
    p.registers(0).set(1, 1n); // DACR: domain 0 client
    // mcr TTBR0 ; mcr DACR ; mrc SCTLR ; orr #1 ; mcr SCTLR ; isb ; udf
    words(p, 0x8000, [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, UDF_16]);
    expect(p.run(0, 20)).toMatchObject({ kind: 'trap' });
    expect(p.registers(0).pageTableRoot()).toBe(BigInt(l1));
    expect(p.translate(0, 0xc000_1234n)).toBe(0x20_1234);
    expect(p.translate(0, 0x40_0010n, undefined, true)).toBe(0x30_0010);
    expect(p.translate(0, 0x40_1000n)).toBe(0x30_1000);
    expect(p.translate(0, 0x40_1000n, undefined, true)).toBeUndefined();
    expect(p.translate(0, 0x40_2000n, undefined, true)).toBeUndefined();
    expect(p.translate(0, 0x40_3000n)).toBeUndefined();
    expect(p.translate(0, 0x80_0000n)).toBeUndefined();
    // Kernel privilege reads kernel-only pages; a read crossing into an unmapped page faults there.
    expect(p.readVirtual(0, 0x40_1ffcn, 8)).toEqual({ bytes: Uint8Array.of(0x0d, 0xf0, 0xfe, 0xca, 0x78, 0x56, 0x34, 0x12) });
    expect(p.readVirtual(0, 0x40_2ffen, 4)).toEqual({ fault: 0x40_3000n });
    // Words read as the bytes are: across two pages, into an unmapped one, a past-2^32 address.
    expect(p.readWord(0, 0x40_1ffcn, 8)).toBe(0x1234_5678_cafe_f00dn);
    expect(p.readWord(0, 0x40_1ffen, 4)).toBe(0x5678_cafen);
    expect(p.readWord(0, 0x40_2ffen, 4)).toBeUndefined();
    expect(p.wordFault).toBe(0x40_3000n);
    expect(p.readWord(0, 0x1_0000_0000n, 1)).toBeUndefined();
    expect(p.wordFault).toBe(0x1_0000_0000n);
    // The device window is mapped but toxic.
    expect(p.translate(0, 0xf000_0000n)).toBe(0xf000_0000);
    expect(p.readVirtual(0, 0xf000_0000n, 4)).toEqual({ fault: 0xf000_0000n });
    expect(p.readWord(0, 0xf000_0000n, 4)).toBeUndefined();
    expect(p.wordFault).toBe(0xf000_0000n);
    // Another address space's root.
    expect(p.translate(0, 0x40_0010n, BigInt(other))).toBe(0x50_0010);
    expect(p.translate(0, 0x40_0010n, BigInt(other), true)).toBe(0x50_0010);
    // No-access domain: nothing translates.
    ram.setUint32(l1 + 0xc00 * 4, 0x0020_0000 | (1 << 10) | (3 << 5) | 2, true); // domain 3, DACR gives it no access
    expect(p.translate(0, 0xc000_1234n)).toBeUndefined();
  });

  it('a NOFAULT read after the guest changed a mapping between two traps sees the new mapping', async () => {
    const { p } = await port();
    const ram = new DataView(p.ram().buffer, p.ram().byteOffset);
    const l1 = 0x10_0000;
    const l2 = 0x10_4000;
    ram.setUint32(l1 + 0 * 4, 0x0000_0000 | (1 << 10) | 2, true); // VA 0 MiB -> PA 0 (the code)
    ram.setUint32(l1 + 1 * 4, 0x0010_0000 | (1 << 10) | 2, true); // VA 1 MiB -> PA 1 MiB (the tables)
    ram.setUint32(l1 + 4 * 4, l2 | 1, true); // VA 4 MiB: page table
    ram.setUint32(l2, 0x30_0000 | (1 << 4) | 2, true); // 0x0040_0000 -> 0x30_0000, later 0x30_5000
    p.ram().fill(0x41, 0x30_0000, 0x30_1000);
    p.ram().fill(0x42, 0x30_5000, 0x30_6000);
    p.resetBoot(0x8000n);
    const regs = p.registers(0);
    regs.set(0, BigInt(l1));
    regs.set(1, 1n); // DACR: domain 0 client
    regs.set(3, BigInt(0x30_5000 | (1 << 4) | 2));
    regs.set(4, BigInt(l2));
    regs.set(5, 0x40_0000n);
    // mcr TTBR0 ; mcr DACR ; mrc SCTLR ; orr #1 ; mcr SCTLR ; isb ; udf ;
    // str r3, [r4] ; mcr TLBIMVA r5 ; dsb ; isb ; udf
    words(p, 0x8000, [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, UDF_16, 0xe5843000, 0xee085f37, 0xf57ff04f, 0xf57ff06f, UDF_16]);
    expect(p.run(0, 20)).toMatchObject({ kind: 'trap', trap: { pc: 0x8018n } });
    expect(p.readVirtual(0, 0x40_0ffen, 2)).toEqual({ bytes: Uint8Array.of(0x41, 0x41) });
    expect(p.readVirtual(0, 0x40_0000n, 1, BigInt(l1))).toEqual({ bytes: Uint8Array.of(0x41) });
    regs.setPc(0x801cn);
    expect(p.run(0, 20)).toMatchObject({ kind: 'trap', trap: { pc: 0x802cn } });
    expect(p.readVirtual(0, 0x40_0ffen, 2)).toEqual({ bytes: Uint8Array.of(0x42, 0x42) });
    expect(p.readWord(0, 0x40_0ffcn, 4)).toBe(0x4242_4242n);
    expect(p.readVirtual(0, 0x40_0000n, 1, BigInt(l1))).toEqual({ bytes: Uint8Array.of(0x42) });
    expect(p.translate(0, 0x40_0000n)).toBe(0x30_5000);
  });
});
