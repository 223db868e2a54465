// @wdtrace/isa-arm-as — host side of the ARMv7-A core: instantiates the
// WebAssembly module (debug or release build) from embedded bytes, so it
// needs no file or network access and runs the same in Node and browsers.
import { instantiateWasm, wasmBytes, type WasmBuild } from './generated/wasm.js';

export { wasmBytes, type WasmBuild };

/** The functions the ARM core exports. */
export interface ArmCoreExports {
  memory: WebAssembly.Memory;
  /** ARMExpandImm: the value of a 12-bit modified immediate. */
  expandImmediate(imm12: number): number;
  /** ARMExpandImm_C's carry out for `imm12` with carry in `carryIn`. */
  expandImmediateCarry(imm12: number, carryIn: number): number;
}

/** Instantiates a fresh ARMv7-A core. */
export async function createArmCore(build: WasmBuild = 'release'): Promise<ArmCoreExports> {
  const instance = await instantiateWasm(build);
  return instance.exports as unknown as ArmCoreExports;
}

export { describeA32, expandModifiedImmediate, CONDITION_NAMES, REGISTER_NAMES, type A32Instruction, type A32Class } from './describe.js';
