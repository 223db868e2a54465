// What the host writes into guest RAM before CPU 0 starts (BOARD.md sections
// 2, 5 and 6): the boot-information block, the initrd's place, and on x86-64
// the boot page tables and GDT. Pure functions over a view of physical RAM.
import {
  BOARD_ID,
  BOOTINFO_MAGIC,
  BOOTINFO_PHYS,
  BOOTINFO_VERSION,
  DEFAULT_EPOCH_SECONDS,
  DEVICE_BASE,
  INITRD_CEILING,
  MAX_CPUS,
  X86_BOOT_GDT,
  X86_BOOT_PD_DEVICES,
  X86_BOOT_PD_RAM,
  X86_BOOT_PDPT_HIGH,
  X86_BOOT_PDPT_LOW,
  X86_BOOT_PML4,
} from './constants.js';
import type { Isa } from '../isa.js';

export interface BootInfo {
  cpuCount: number;
  ramSize: number;
  initrdBase: number;
  initrdSize: number;
  nsPerInsn: number;
  kernelEnd: number;
  cmdline: string;
  epochSeconds?: number;
}

const MiB = 1024 * 1024;
const CMDLINE_OFFSET = 0x100;
const CMDLINE_MAX = 0x1000 - CMDLINE_OFFSET - 1;

/** The most RAM each ISA's kernel maps (BOARD.md section 2). */
const MAX_RAM: Readonly<Record<Isa, number>> = { x86_64: 3840 * MiB, arm: 768 * MiB };

/** Checks a RAM size against the board's rules for `isa`; returns an error message or undefined. */
export function checkRamSize(isa: Isa, ramSize: number): string | undefined {
  const max = MAX_RAM[isa];
  if (!Number.isInteger(ramSize) || ramSize % MiB !== 0) return `RAM size must be a whole number of MiB, not ${ramSize} bytes`;
  if (ramSize < 16 * MiB) return `RAM size must be at least 16 MiB, not ${ramSize / MiB} MiB`;
  if (ramSize > max) return `RAM size on ${isa} is at most ${max / MiB} MiB, not ${ramSize / MiB} MiB`;
  return undefined;
}

/**
 * Where the initrd goes: the highest 4 KiB-aligned address at which it ends
 * at or below min(ramSize, 512 MiB), and above `kernelEnd`.
 */
export function placeInitrd(ramSize: number, kernelEnd: number, size: number): number {
  const top = Math.min(ramSize, INITRD_CEILING);
  const base = Math.floor((top - size) / 4096) * 4096;
  if (size > 0 && base < kernelEnd) {
    throw new RangeError(`initrd of ${size} bytes does not fit between the kernel (ends at 0x${kernelEnd.toString(16)}) and 0x${top.toString(16)}`);
  }
  return base;
}

/** Writes the boot-information block at physical BOOTINFO_PHYS. */
export function writeBootInfo(ram: Uint8Array, info: BootInfo): void {
  if (info.cpuCount < 1 || info.cpuCount > MAX_CPUS) throw new RangeError(`cpu count must be 1 to ${MAX_CPUS}`);
  if (!(info.nsPerInsn >= 1)) throw new RangeError('ns per instruction must be at least 1');
  const cmd = new TextEncoder().encode(info.cmdline);
  if (cmd.length > CMDLINE_MAX) throw new RangeError(`command line is ${cmd.length} bytes; at most ${CMDLINE_MAX} fit`);
  const block = ram.subarray(BOOTINFO_PHYS, BOOTINFO_PHYS + 0x1000);
  block.fill(0);
  const v = new DataView(block.buffer, block.byteOffset, block.byteLength);
  v.setUint32(0x00, BOOTINFO_MAGIC, true);
  v.setUint32(0x04, BOOTINFO_VERSION, true);
  v.setUint32(0x08, BOARD_ID, true);
  v.setUint32(0x0c, info.cpuCount, true);
  v.setBigUint64(0x10, BigInt(info.ramSize), true);
  v.setBigUint64(0x18, BigInt(info.initrdBase), true);
  v.setBigUint64(0x20, BigInt(info.initrdSize), true);
  v.setUint32(0x28, info.nsPerInsn, true);
  v.setUint32(0x2c, cmd.length, true);
  v.setBigUint64(0x30, BigInt(DEVICE_BASE), true);
  v.setBigUint64(0x38, BigInt(info.epochSeconds ?? DEFAULT_EPOCH_SECONDS), true);
  v.setBigUint64(0x40, BigInt(Math.ceil(info.kernelEnd / 4096) * 4096), true);
  block.set(cmd, CMDLINE_OFFSET);
}

// x86-64 paging-structure entry bits (Intel SDM vol. 3, 4.5).
const P = 1n;
const RW = 2n;
const PCD = 1n << 4n;
const PS = 1n << 7n;

/**
 * The x86-64 boot page tables and GDT of BOARD.md 6.1: identity map of the
 * first 1 GiB, the same at 0xFFFF_FFFF_8000_0000, and the device window
 * identity-mapped uncached. Returns the CR3 value.
 */
export function writeX86BootTables(ram: Uint8Array): number {
  ram.fill(0, X86_BOOT_PML4, X86_BOOT_GDT + 0x1000);
  const v = new DataView(ram.buffer, ram.byteOffset, ram.byteLength);
  const entry = (table: number, index: number, value: bigint) => v.setBigUint64(table + index * 8, value, true);
  entry(X86_BOOT_PML4, 0, BigInt(X86_BOOT_PDPT_LOW) | P | RW);
  entry(X86_BOOT_PML4, 511, BigInt(X86_BOOT_PDPT_HIGH) | P | RW);
  entry(X86_BOOT_PDPT_LOW, 0, BigInt(X86_BOOT_PD_RAM) | P | RW);
  entry(X86_BOOT_PDPT_LOW, 3, BigInt(X86_BOOT_PD_DEVICES) | P | RW);
  entry(X86_BOOT_PDPT_HIGH, 510, BigInt(X86_BOOT_PD_RAM) | P | RW);
  for (let i = 0; i < 512; i++) entry(X86_BOOT_PD_RAM, i, (BigInt(i) << 21n) | P | RW | PS);
  // PDPT[3] covers 3-4 GiB: PD entries 384-391 are the 16 MiB device window.
  for (let i = 384; i < 392; i++) entry(X86_BOOT_PD_DEVICES, i, ((3n << 30n) + (BigInt(i) << 21n)) | P | RW | PS | PCD);
  // GDT: null, 64-bit code DPL 0 (0x08), data DPL 0 (0x10).
  v.setBigUint64(X86_BOOT_GDT + 0x08, 0x00af_9a00_0000_ffffn, true);
  v.setBigUint64(X86_BOOT_GDT + 0x10, 0x00cf_9200_0000_ffffn, true);
  return X86_BOOT_PML4;
}
