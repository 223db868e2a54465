// Helpers for the machine tests of either ISA: boot the committed guest (or
// given images) with a command line, collect its console output, and run a
// program or a shell command line to power-off.
import { Machine, type Isa, type MachineOptions, type RunResult } from '../src/index.js';

export interface GuestRun {
  machine: Machine;
  result: RunResult;
  /** Everything the guest wrote to the console. */
  output: string;
  /** Exit status reported at power-off (undefined if the run ended otherwise). */
  status: number | undefined;
}

/** Most a test lets one guest run retire before giving up. */
export const RUN_LIMIT = 2_000_000_000;

export type GuestMachineOptions = Omit<MachineOptions, 'isa'>;

/** Creates a machine of `isa` whose console output is collected. */
export async function guestMachine(isa: Isa, options: GuestMachineOptions = {}): Promise<{ machine: Machine; output: () => string }> {
  const chunks: Uint8Array[] = [];
  const machine = await Machine.create({
    ...options,
    isa,
    consoleOutput: (bytes) => {
      chunks.push(bytes.slice());
      options.consoleOutput?.(bytes);
    },
  });
  return { machine, output: () => Buffer.concat(chunks).toString('utf8') };
}

/** Boots the guest of `isa` with `quiet` and init running `args`, until power-off (or the limit). */
export async function runMachine(isa: Isa, args: readonly string[], options: GuestMachineOptions = {}, limit = RUN_LIMIT): Promise<GuestRun> {
  const { machine, output } = await guestMachine(isa, { cmdline: 'quiet', ...options, args });
  const result = await machine.runUntilPowerOff({ instructions: limit });
  return { machine, result, output: output(), status: result.kind === 'poweroff' ? result.status : undefined };
}

/** Runs a shell command line in the guest of `isa`. */
export function shell(isa: Isa, command: string, options: GuestMachineOptions = {}): Promise<GuestRun> {
  return runMachine(isa, ['/bin/sh', '-c', command], options);
}
