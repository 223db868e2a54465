// The CPU port of each ISA the machine can build by itself. Each port module
// registers its factory here; `Machine.create({ isa })` looks it up.
import type { CpuPort, Isa } from './types.js';
import { createX86Port } from './x86.js';
import { createArmPort } from './arm.js';

/** What a port needs from the machine. */
export interface PortConfig {
  readonly cpuCount: number;
  readonly ramBytes: number;
  readonly build: 'debug' | 'release';
  /** The board's device window: loads and stores of `size` bytes at physical `paddr` by CPU `cpu`. */
  mmioRead(cpu: number, paddr: number, size: number): number;
  mmioWrite(cpu: number, paddr: number, size: number, value: number): void;
}

export type PortFactory = (config: PortConfig) => Promise<CpuPort>;

export const PORT_FACTORIES: Partial<Record<Isa, PortFactory>> = {
  x86_64: createX86Port,
  arm: createArmPort,
};
