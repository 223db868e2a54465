// Helpers for the x86-64 machine tests: boot the committed guest with a
// command line and collect its console output until it powers off.
import { Machine, type MachineOptions, type RunResult } from '../src/index.js';

export interface GuestRun {
  machine: Machine;
  result: RunResult;
  output: string;
  /** Exit status reported at power-off (undefined if the run ended otherwise). */
  status: number | undefined;
}

/** Boots x86-64 with `quiet`, runs `args` as init's program, waits for power-off. */
export async function runX86(args: readonly string[], options: Partial<MachineOptions> = {}, instructions = 400_000_000): Promise<GuestRun> {
  let output = '';
  const decoder = new TextDecoder();
  const machine = await Machine.create({
    isa: 'x86_64',
    cmdline: 'quiet',
    args,
    consoleOutput: (bytes) => {
      output += decoder.decode(bytes, { stream: true });
    },
    ...options,
  });
  const result = await machine.runUntilPowerOff({ instructions });
  output += decoder.decode();
  return { machine, result, output, status: result.kind === 'poweroff' ? result.status : undefined };
}

/** Runs a shell command line in the guest. */
export function sh(command: string, options: Partial<MachineOptions> = {}): Promise<GuestRun> {
  return runX86(['/bin/sh', '-c', command], options);
}
