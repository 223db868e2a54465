// Helpers for the ARM machine tests (machine-support.ts for this ISA), and
// the power-off status of a run that must have powered off.
import type { Machine, RunResult } from '../src/machine/machine.js';
import { RUN_LIMIT, guestMachine, type GuestMachineOptions } from './machine-support.js';

export { RUN_LIMIT };

export interface ArmRun {
  machine: Machine;
  result: RunResult;
  /** Everything the guest wrote to the console. */
  output: string;
}

export type ArmMachineOptions = GuestMachineOptions;

/** Creates an ARM machine whose console output is collected. */
export function armMachine(options: ArmMachineOptions = {}): Promise<{ machine: Machine; output: () => string }> {
  return guestMachine('arm', options);
}

/** Boots the ARM guest with init running `args`, until power-off (or the limit). */
export async function runArm(args: readonly string[], options: ArmMachineOptions = {}, limit = RUN_LIMIT): Promise<ArmRun> {
  const { machine, output } = await armMachine({ cmdline: 'quiet', ...options, args });
  const result = machine.run({ instructions: limit });
  return { machine, result, output: output() };
}

/** Runs `script` with /bin/sh -c; returns the output and the exit status (throws unless the guest powered off). */
export async function sh(script: string, options: ArmMachineOptions = {}): Promise<{ output: string; status: number; machine: Machine }> {
  const r = await runArm(['/bin/sh', '-c', script], options);
  return { output: r.output, status: poweroffStatus(r), machine: r.machine };
}

/** The power-off status of a run; throws with the run's output when it ended otherwise. */
export function poweroffStatus(r: ArmRun): number {
  if (r.result.kind !== 'poweroff') {
    const detail = JSON.stringify(r.result, (_, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v));
    throw new Error(`the ARM guest did not power off: ${detail}\n--- console ---\n${r.output}`);
  }
  return r.result.status;
}
