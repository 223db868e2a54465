// The instruction sets the machine emulates: the one name type every package
// uses for them, and how an ELF file names each (e_machine).
import { EM_ARM, EM_X86_64 } from './elf/reader.js';

/** The ISAs, in the order tools list them. */
export const ISAS = ['x86_64', 'arm'] as const;

/** An instruction set the machine emulates. */
export type Isa = (typeof ISAS)[number];

/** Bytes of a pointer-sized word (the guest kernel's long and pointers). */
export const WORD_BYTES: Readonly<Record<Isa, 4 | 8>> = { x86_64: 8, arm: 4 };

/** e_machine of each ISA's ELF files. */
export const ELF_MACHINE: Readonly<Record<Isa, number>> = { x86_64: EM_X86_64, arm: EM_ARM };

/** The ISA of an ELF file's e_machine, undefined for a machine not emulated here. */
export function isaOfElfMachine(machine: number): Isa | undefined {
  return ISAS.find((isa) => ELF_MACHINE[isa] === machine);
}
