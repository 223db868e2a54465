// The CPU port of each ISA the machine can build by itself; `Machine.create({
// isa })` looks it up here.
import type { Isa } from '../isa.js';
import type { PortFactory } from './types.js';
import { createX86Port } from './x86.js';
import { createArmPort } from './arm.js';

export const PORT_FACTORIES: Partial<Record<Isa, PortFactory>> = {
  x86_64: createX86Port,
  arm: createArmPort,
};
