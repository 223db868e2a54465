// RCPPS/RCPSS and RSQRTPS/RSQRTSS: approximations whose bits are each
// processor's own, so they are checked against the SDM's bound (relative
// error at most 1.5 * 2^-12) and its special values, not against the host.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bareCore } from './core-harness.js';

const m = await bareCore(1 << 20, 'release');
const bits = new DataView(new ArrayBuffer(4));
const asFloat = (b: number) => { bits.setUint32(0, b); return bits.getFloat32(0); };
const asBits = (f: number) => { bits.setFloat32(0, f); return bits.getUint32(0); };

/** rcpss (root false) or rsqrtss of the single with bits `b`: xmm0 = op(xmm1). */
function approximate(b: number, root: boolean): number {
  const x = new DataView(m.core.memory.buffer, m.core.xmmOffset());
  x.setUint32(16, b, true);
  m.poke(0x1000, [0xf3, 0x0f, root ? 0x52 : 0x53, 0xc1, 0xf4]);
  m.setRip(0x1000n);
  m.core.wake();
  expect(m.core.run(10)).toBe(1);
  return x.getUint32(0, true);
}

describe('SSE reciprocal approximations', () => {
  it('are within 1.5 * 2^-12 of 1/x and 1/sqrt(x) for normal singles', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 253 }), fc.integer({ min: 0, max: 0x7fffff }), fc.boolean(), (e, frac, negative) => {
      const b = ((negative ? 0x80000000 : 0) | (e << 23) | frac) >>> 0;
      const x = asFloat(b);
      const r = asFloat(approximate(b, false));
      if (Math.abs(1 / x) >= 2 ** -126) expect(Math.abs(r * x - 1)).toBeLessThanOrEqual(1.5 * 2 ** -12);
      if (!negative) expect(Math.abs(asFloat(approximate(b, true)) * Math.sqrt(x) - 1)).toBeLessThanOrEqual(1.5 * 2 ** -12);
    }), { numRuns: 2000 });
  });

  it('give the SDM\'s special values: zeros and denormals to infinity, infinity to zero, tiny results flushed, NaNs quieted', () => {
    const rcp = (f: number) => approximate(asBits(f), false);
    const rsqrt = (f: number) => approximate(asBits(f), true);
    expect(rcp(0)).toBe(0x7f800000);
    expect(rcp(-0)).toBe(0xff800000);
    expect(approximate(0x00000123, false)).toBe(0x7f800000); // a denormal counts as +0
    expect(rcp(Infinity)).toBe(0);
    expect(rcp(-Infinity)).toBe(0x80000000);
    expect(rcp(2e38)).toBe(0); // 1/x below 2^-126
    expect(rsqrt(-Infinity)).toBe(0xffc00000);
    expect(rsqrt(-2)).toBe(0xffc00000);
    expect(rsqrt(-0)).toBe(0xff800000);
    expect(approximate(0x7f800001, false)).toBe(0x7fc00001);
    expect(approximate(0xffa00000, true)).toBe(0xffe00000);
  });
});
