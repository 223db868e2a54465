// Guest RAM for a reader that translates addresses itself: the CPU core's
// WebAssembly memory, where RAM lies in it, the device window, and the
// translation registers of the machine's NOFAULT reads, so that code outside
// the kernel (dtrace-core's WebAssembly backend) can walk the page tables as
// `Machine.readWord` walks them without calling it for every word. Each
// port fills the registers (x86.ts, arm.ts); the layout is the one
// @wdtrace/dtrace-core's GuestMemoryWindow documents.
//
// Invariants:
// - The registers are those of the reads they stand for: kernel reads use
//   those of the CPU `readWord` reads through at the time they are filled
//   (the CPU whose turn is in progress, else CPU 0), user reads those of the page
//   table root of `userCpu` (as `readWord` with
//   `registers(userCpu).pageTableRoot()`).
// - Filling them changes no guest state.
import { DEVICE_BASE, DEVICE_SIZE } from '../board/constants.js';

/** How the guest translates: x86-64 4-level paging, or ARMv7-A short descriptors. */
export type GuestTranslation = 'x86-64' | 'armv7-short';

/** How many words `translationRegisters` writes. */
export const TRANSLATION_WORDS = 6;

export interface MemoryWindow {
  /** The CPU core's memory, which holds guest RAM. */
  readonly memory: WebAssembly.Memory;
  /** Where guest physical address 0 is in `memory`. */
  readonly ramOffset: number;
  readonly ramBytes: number;
  /** The device window [deviceStart, deviceEnd): toxic to NOFAULT reads. */
  readonly deviceStart: number;
  readonly deviceEnd: number;
  readonly translation: GuestTranslation;
  /**
   * Writes the translation registers of kernel reads, and of user reads of
   * the address space `userCpu` is in (word 1 is left alone when it is
   * undefined), into `words` from `at`:
   * - x86-64: 0 the physical address of the kernel reads' PML4, 1 that of
   *   the user reads' (0xffff_ffff for one at or past 2^32); 2..5 are 0.
   * - armv7-short: 0 the kernel reads' TTBR0, 1 the user reads' TTBR0,
   *   2 SCTLR, 3 TTBCR, 4 TTBR1, 5 DACR.
   */
  translationRegisters(words: Uint32Array, at: number, userCpu: number | undefined): void;
}

/** The device window of the board (BOARD.md). */
export const DEVICE_WINDOW = { deviceStart: DEVICE_BASE, deviceEnd: DEVICE_BASE + DEVICE_SIZE } as const;

/** A physical table address as a translation word: itself below 2^32, else 0xffff_ffff (no RAM there either). */
export function physicalWord(pa: number): number {
  return pa > 0xffff_ffff ? 0xffff_ffff : pa;
}
