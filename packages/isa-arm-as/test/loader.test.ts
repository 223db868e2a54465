import { describe, expect, it } from 'vitest';
import { createArmCore, wasmBytes } from '../src/index.js';

// Reference ARMExpandImm, written independently of the core.
function expand(imm12: number): number {
  const rot = ((imm12 >> 8) & 0xf) * 2;
  const v = imm12 & 0xff;
  return rot === 0 ? v : ((v >>> rot) | (v << (32 - rot))) >>> 0;
}

describe.each(['debug', 'release'] as const)('ARM core, %s build', (build) => {
  it('is a WebAssembly module', () => {
    expect([...wasmBytes(build).subarray(0, 4)]).toEqual([0x00, 0x61, 0x73, 0x6d]);
  });

  it('expands known modified immediates', async () => {
    const core = await createArmCore(build);
    expect(core.expandImmediate(0x0ff) >>> 0).toBe(0xff);
    expect(core.expandImmediate(0x4ff) >>> 0).toBe(0xff000000);
    expect(core.expandImmediate(0xf02) >>> 0).toBe(0x8);
    expect(core.expandImmediate(0x1ab) >>> 0).toBe(0xc000002a);
  });

  it('agrees with the reference on all 4096 encodings, carry included', async () => {
    const core = await createArmCore(build);
    for (let imm12 = 0; imm12 < 4096; imm12++) {
      const value = expand(imm12);
      expect(core.expandImmediate(imm12) >>> 0).toBe(value);
      const rotated = (imm12 & 0xf00) !== 0;
      for (const carryIn of [0, 1]) {
        expect(core.expandImmediateCarry(imm12, carryIn)).toBe(rotated ? value >>> 31 : carryIn);
      }
    }
  });
});
