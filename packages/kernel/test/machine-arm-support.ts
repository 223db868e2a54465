// Helpers for the ARM machine tests: boot the committed ARM guest (or given
// images) on the emulated ARMv7-A machine, run a program to power-off, and
// collect the console output; plus a newc cpio writer to add files to the
// initrd.
import { Machine, type MachineOptions, type RunResult } from '../src/machine/machine.js';
import { createArmPort } from '../src/machine/arm.js';
import type { CpioEntry } from './guest-support.js';

export interface ArmRun {
  machine: Machine;
  result: RunResult;
  /** Everything the guest wrote to the console. */
  output: string;
}

/** Most a test lets one guest run retire before giving up. */
export const RUN_LIMIT = 2_000_000_000;

export type ArmMachineOptions = Omit<MachineOptions, 'isa'>;

/** Creates an ARM machine whose console output is collected. */
export async function armMachine(options: ArmMachineOptions = {}): Promise<{ machine: Machine; output: () => string }> {
  const chunks: Uint8Array[] = [];
  const machine = await Machine.create({
    port: createArmPort,
    ...options,
    isa: 'arm',
    consoleOutput: (bytes) => {
      chunks.push(bytes.slice());
      options.consoleOutput?.(bytes);
    },
  });
  return { machine, output: () => Buffer.concat(chunks).toString('utf8') };
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

/** Writes a newc ("070701") cpio archive, deterministic like guest/tools/mkcpio.c. */
export function writeCpio(entries: readonly CpioEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  let offset = 0;
  const put = (b: Buffer) => {
    parts.push(b);
    offset += b.length;
  };
  const pad = () => put(Buffer.alloc((4 - (offset % 4)) % 4));
  const hex = (n: number) => n.toString(16).padStart(8, '0');
  const all = [...entries, { name: 'TRAILER!!!', mode: 0, rdevMajor: 0, rdevMinor: 0, data: Buffer.alloc(0) }];
  all.forEach((e, i) => {
    const name = Buffer.from(`${e.name}\0`, 'latin1');
    const fields = [e.name === 'TRAILER!!!' ? 0 : i + 1, e.mode, 0, 0, 1, 0, e.data.length, 0, 0, e.rdevMajor, e.rdevMinor, name.length, 0];
    put(Buffer.from(`070701${fields.map(hex).join('')}`, 'latin1'));
    put(name);
    pad();
    put(Buffer.from(e.data));
    pad();
  });
  return new Uint8Array(Buffer.concat(parts));
}
