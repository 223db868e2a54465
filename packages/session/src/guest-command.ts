// Whether a file of the guest can be its -c command, checked before the guest
// boots as libdtrace checks a command before it creates the process: a
// regular, executable ELF file of the guest's ISA (ET_EXEC, what the guest
// kernel's execve loads). Reads the initrd only.
import { ELF_MACHINE, defaultImages, readInitrdEntries, type Isa } from '@wdtrace/kernel';

/**
 * Why the file at `path` of the guest's initrd cannot be run as the -c
 * command, in libproc's Pcreate_error() words as dtrace(1) reports a bad
 * command ("failed to execute <file>: cannot execute file"); undefined when
 * it is an executable of the guest's ISA or not one of the initrd's files.
 */
export function guestExecProblem(isa: Isa, path: string, initrd: Uint8Array = defaultImages(isa).initrd): string | undefined {
  const entry = readInitrdEntries(initrd).entries.find((e) => `/${e.name}` === path);
  if (entry === undefined) return undefined;
  const head = initrd.subarray(entry.dataStart, entry.dataStart + Math.min(entry.size, 20));
  const regular = (entry.mode & 0o170000) === 0o100000;
  const executable = (entry.mode & 0o111) !== 0;
  const elf = head.length === 20 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
  // ET_EXEC for this ISA's machine: what the guest kernel's execve loads.
  const loadable = elf && (head[16]! | (head[17]! << 8)) === 2 && (head[18]! | (head[19]! << 8)) === ELF_MACHINE[isa];
  return regular && executable && loadable ? undefined : 'cannot execute file';
}

/** Whether `path` names a file of the guest's initrd. */
export function guestHasFile(isa: Isa, path: string, initrd: Uint8Array = defaultImages(isa).initrd): boolean {
  return readInitrdEntries(initrd).entries.some((e) => `/${e.name}` === path);
}
