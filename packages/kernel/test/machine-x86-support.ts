// Helpers for the x86-64 machine tests (machine-support.ts for this ISA).
import type { MachineOptions } from '../src/index.js';
import { runMachine, shell, type GuestRun } from './machine-support.js';

export type { GuestRun };

/** Boots x86-64 with `quiet`, runs `args` as init's program, waits for power-off. */
export function runX86(args: readonly string[], options: Partial<MachineOptions> = {}, instructions = 400_000_000): Promise<GuestRun> {
  return runMachine('x86_64', args, options, instructions);
}

/** Runs a shell command line in the guest. */
export function sh(command: string, options: Partial<MachineOptions> = {}): Promise<GuestRun> {
  return shell('x86_64', command, options);
}
