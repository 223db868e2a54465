// SSE results that underflow all the way to zero raise underflow with
// precision (MXCSR UE|PE, masked), as the host CPU does: the core's fast
// path on the host's own arithmetic must not take a zero result of a
// multiply, divide or narrowing conversion for an exact one. An exact zero
// (x - x) raises nothing. The expected MXCSR values are the ones the same
// instructions leave on an x86-64 host. Instruction bytes are spelled out
// with their AT&T text in comments.
import { describe, expect, it } from 'vitest';
import { bareCore, type BareCore } from './core-harness.js';

const STOP_HALT = 1;
const CODE = 0x1000, DATA = 0x8000;
const LDMXCSR = [0x0f, 0xae, 0x53, 0x20]; // ldmxcsr 32(%rbx)
const STMXCSR = [0x0f, 0xae, 0x5b, 0x24]; // stmxcsr 36(%rbx)

/** Runs `code` between an ldmxcsr of 0x1f80 and an stmxcsr, with rbx = DATA holding `values` (doubles or floats); returns MXCSR. */
function mxcsrAfter(m: BareCore, code: number[], values: number[], single = false): number {
  const data = new DataView(new ArrayBuffer(40));
  values.forEach((v, i) => (single ? data.setFloat32(i * 4, v, true) : data.setFloat64(i * 8, v, true)));
  data.setUint32(32, 0x1f80, true);
  m.ram().set(new Uint8Array(data.buffer), DATA);
  m.poke(CODE, [...LDMXCSR, ...code, ...STMXCSR, 0xf4]);
  m.regs()[3] = BigInt(DATA);
  m.core.wake();
  m.setRip(BigInt(CODE));
  expect(m.core.run(1000)).toBe(STOP_HALT);
  return m.ram()[DATA + 36]! | (m.ram()[DATA + 37]! << 8);
}

describe('SSE underflow to zero', () => {
  it('raises UE and PE for products, quotients and narrowings that round to zero, and nothing for an exact zero', async () => {
    const m = await bareCore(1 << 20);
    const tiny64 = 2 ** -900, huge64 = 2 ** 900, tiny32 = 2 ** -100;
    // movsd (%rbx),%xmm0; mulsd 8(%rbx),%xmm0
    expect(mxcsrAfter(m, [0xf2, 0x0f, 0x10, 0x03, 0xf2, 0x0f, 0x59, 0x43, 0x08], [tiny64, tiny64]).toString(16)).toBe('1fb0');
    // movsd (%rbx),%xmm0; divsd 8(%rbx),%xmm0
    expect(mxcsrAfter(m, [0xf2, 0x0f, 0x10, 0x03, 0xf2, 0x0f, 0x5e, 0x43, 0x08], [tiny64, huge64]).toString(16)).toBe('1fb0');
    // movss (%rbx),%xmm0; mulss 4(%rbx),%xmm0
    expect(mxcsrAfter(m, [0xf3, 0x0f, 0x10, 0x03, 0xf3, 0x0f, 0x59, 0x43, 0x04], [tiny32, tiny32], true).toString(16)).toBe('1fb0');
    // cvtsd2ss (%rbx),%xmm0
    expect(mxcsrAfter(m, [0xf2, 0x0f, 0x5a, 0x03], [2 ** -200]).toString(16)).toBe('1fb0');
    // cvtpd2ps (%rbx),%xmm0: a normal and a denormal double, both to zero (the denormal raises DE too)
    expect(mxcsrAfter(m, [0x66, 0x0f, 0x5a, 0x03], [2 ** -200, 0]).toString(16)).toBe('1fb0');
    expect(mxcsrAfter(m, [0x66, 0x0f, 0x5a, 0x03], [2 ** -1060, 0]).toString(16)).toBe('1fb2');
    // movsd (%rbx),%xmm0; subsd 8(%rbx),%xmm0: exactly zero
    expect(mxcsrAfter(m, [0xf2, 0x0f, 0x10, 0x03, 0xf2, 0x0f, 0x5c, 0x43, 0x08], [tiny64, tiny64]).toString(16)).toBe('1f80');
  });
});
