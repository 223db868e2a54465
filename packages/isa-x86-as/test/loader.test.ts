import { describe, expect, it } from 'vitest';
import { createX86Core, wasmBytes } from '../src/index.js';

function popcount(v: number): number {
  let n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}

describe.each(['debug', 'release'] as const)('x86-64 core, %s build', (build) => {
  it('is a WebAssembly module', () => {
    const bytes = wasmBytes(build);
    expect([...bytes.subarray(0, 4)]).toEqual([0x00, 0x61, 0x73, 0x6d]);
  });

  it('computes PF for every low byte, ignoring the upper bits', async () => {
    const core = await createX86Core(build);
    for (let v = 0; v < 256; v++) {
      const expected = popcount(v) % 2 === 0 ? 4 : 0;
      expect(core.parityFlag(v)).toBe(expected);
      expect(core.parityFlag(v | 0x1234500)).toBe(expected);
    }
  });
});
