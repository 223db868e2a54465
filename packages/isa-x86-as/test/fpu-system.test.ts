// The FPU's system side on a bare core, what the differential vectors (user
// mode on the host) cannot show: #NM under CR0.EM/TS for x87, MMX, SSE and
// FXSAVE (and #UD for MMX and SSE under EM), #MF at the next waiting instruction,
// FXSAVE/FXRSTOR's alignment and MXCSR checks, the 16-bit FNSTENV layout,
// each CPU's own FPU state, and the state every CPU starts with.
// Instruction bytes are spelled out with their AT&T text in comments.
import { describe, expect, it } from 'vitest';
import { bareCore, type BareCore } from './core-harness.js';

const STOP_HALT = 1, STOP_EXCEPTION = 2;
const CODE = 0x1000, DATA = 0x8000;

/** Runs `code` (then hlt) at CODE with rbx = DATA; returns the stop and, for an exception, its vector. */
function run(m: BareCore, code: number[]): { stop: number; vector: number } {
  m.poke(CODE, [...code, 0xf4]);
  m.regs()[3] = BigInt(DATA);
  m.core.wake();
  m.setRip(BigInt(CODE));
  const stop = m.core.run(1000);
  return { stop, vector: stop === STOP_EXCEPTION ? m.core.stopVector() : -1 };
}
const word = (m: BareCore, a: number) => m.ram()[a]! | (m.ram()[a + 1]! << 8);

describe('FPU: system side', () => {
  it('starts every CPU with the state FNINIT gives: control word 0x37f, empty stack, MXCSR 0x1f80', async () => {
    const m = await bareCore(1 << 20);
    for (const cpu of [0, 3]) {
      m.core.selectCpu(cpu);
      // fxsave64 (%rbx)
      expect(run(m, [0x48, 0x0f, 0xae, 0x03]).stop).toBe(STOP_HALT);
      expect(word(m, DATA)).toBe(0x037f);
      expect(word(m, DATA + 2)).toBe(0);
      expect(m.ram()[DATA + 4]).toBe(0); // abridged tags: all empty
      expect(word(m, DATA + 24)).toBe(0x1f80);
    }
  });

  it('keeps each CPU its own x87 registers, stack top and control word', async () => {
    const m = await bareCore(1 << 20);
    // CPU 0: fld1; fld1 (TOP 6)   CPU 1: fldpi (TOP 7), then fldcw from memory
    expect(run(m, [0xd9, 0xe8, 0xd9, 0xe8]).stop).toBe(STOP_HALT);
    m.core.selectCpu(1);
    m.ram().set([0x7f, 0x0c], DATA + 0x100); // control word 0x0c7f: rounding toward zero
    expect(run(m, [0xd9, 0xeb, 0xd9, 0xab, 0x00, 0x01, 0x00, 0x00]).stop).toBe(STOP_HALT); // fldpi; fldcw 0x100(%rbx)
    // fnstsw (%rbx); fnstcw 2(%rbx); fstpt 16(%rbx)
    const store = [0xdd, 0x3b, 0xd9, 0x7b, 0x02, 0xdb, 0x7b, 0x10];
    expect(run(m, store).stop).toBe(STOP_HALT);
    expect((word(m, DATA) >> 11) & 7).toBe(7);
    expect(word(m, DATA + 2)).toBe(0x0c7f);
    expect([...m.ram().subarray(DATA + 16, DATA + 26)]).toEqual([0x35, 0xc2, 0x68, 0x21, 0xa2, 0xda, 0x0f, 0xc9, 0x00, 0x40]); // pi
    m.core.selectCpu(0);
    expect(run(m, store).stop).toBe(STOP_HALT);
    expect((word(m, DATA) >> 11) & 7).toBe(6);
    expect(word(m, DATA + 2)).toBe(0x037f);
    expect([...m.ram().subarray(DATA + 16, DATA + 26)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f]); // 1.0
  });

  it('raises #NM under CR0.TS or CR0.EM for x87, MMX, SSE and FXSAVE, #UD for MMX and SSE under EM, and FWAIT only under MP with TS; CLTS clears TS', async () => {
    const m = await bareCore(1 << 20);
    const fld1 = [0xd9, 0xe8], paddb = [0x0f, 0xfc, 0xc1], fxsave = [0x0f, 0xae, 0x03], fwait = [0x9b], addps = [0x0f, 0x58, 0xc1];
    const withCr0 = (bits: number, code: number[]) => {
      m.core.setControlRegister(0, bits, 0);
      const r = run(m, code);
      m.core.setControlRegister(0, 0, 0);
      return r;
    };
    const TS = 8, EM = 4, MP = 2;
    expect(withCr0(TS, fld1)).toEqual({ stop: STOP_EXCEPTION, vector: 7 });
    expect(withCr0(EM, fld1)).toEqual({ stop: STOP_EXCEPTION, vector: 7 });
    expect(withCr0(TS, paddb)).toEqual({ stop: STOP_EXCEPTION, vector: 7 });
    expect(withCr0(EM, paddb)).toEqual({ stop: STOP_EXCEPTION, vector: 6 });
    expect(withCr0(TS, fxsave)).toEqual({ stop: STOP_EXCEPTION, vector: 7 });
    expect(withCr0(TS, addps)).toEqual({ stop: STOP_EXCEPTION, vector: 7 });
    expect(withCr0(EM, addps)).toEqual({ stop: STOP_EXCEPTION, vector: 6 });
    expect(withCr0(TS, fwait)).toEqual({ stop: STOP_HALT, vector: -1 });
    expect(withCr0(TS | MP, fwait)).toEqual({ stop: STOP_EXCEPTION, vector: 7 });
    expect(withCr0(0, [...fld1, ...paddb, ...fxsave, ...fwait, ...addps])).toEqual({ stop: STOP_HALT, vector: -1 });
    // clts clears TS: the x87 instruction after it runs
    expect(withCr0(TS, [0x0f, 0x06, ...fld1])).toEqual({ stop: STOP_HALT, vector: -1 });
  });

  it('raises #MF at the next waiting instruction after an unmasked exception, not at FNSTSW or FNCLEX, and not after FNCLEX', async () => {
    const m = await bareCore(1 << 20);
    m.ram().set([0x7b, 0x03], DATA + 0x100); // control word 0x37b: zero-divide unmasked
    // fldcw 0x100(%rbx); fldz; fld1; fdivrp %st, %st(1) (st(1) = st(0) / st(1)): 1/0 sets ZE, and ES with it
    const divide = [0xd9, 0xab, 0x00, 0x01, 0x00, 0x00, 0xd9, 0xee, 0xd9, 0xe8, 0xde, 0xf1];
    expect(run(m, [0xdb, 0xe3, ...divide, 0xdd, 0x3b, 0x9b]).vector).toBe(16); // ...; fnstsw (%rbx); fwait
    expect(word(m, DATA) & 0x8084).toBe(0x8084); // B, ES, ZE
    expect(m.rip()).toBe(BigInt(CODE + 2 + divide.length + 2)); // at the fwait
    expect(run(m, [0xdb, 0xe3, ...divide, 0xd9, 0xe8]).vector).toBe(16); // a waiting x87 instruction: fld1
    expect(run(m, [0xdb, 0xe3, ...divide, 0xdb, 0xe2, 0x9b, 0xd9, 0xe8]).stop).toBe(STOP_HALT); // fnclex; fwait; fld1
  });

  it('checks FXSAVE/FXRSTOR alignment and the MXCSR an image carries', async () => {
    const m = await bareCore(1 << 20);
    expect(run(m, [0x0f, 0xae, 0x43, 0x08])).toEqual({ stop: STOP_EXCEPTION, vector: 13 }); // fxsave 8(%rbx)
    expect(run(m, [0x0f, 0xae, 0x0b])).toEqual({ stop: STOP_HALT, vector: -1 }); // fxrstor (%rbx): an all-zero image is valid
    m.ram().set([0, 0, 1, 0], DATA + 24); // MXCSR bit 16: reserved
    expect(run(m, [0x0f, 0xae, 0x0b])).toEqual({ stop: STOP_EXCEPTION, vector: 13 });
  });

  it('stores the 16-bit protected-mode environment with an operand-size prefix', async () => {
    const m = await bareCore(1 << 20);
    // fninit; fld1; fldz; fnstenv with 66: control, status, tags, ip, cs, data pointer, ds (14 bytes)
    m.ram().fill(0xaa, DATA, DATA + 32);
    expect(run(m, [0xdb, 0xe3, 0xd9, 0xe8, 0xd9, 0xee, 0x66, 0xd9, 0x33]).stop).toBe(STOP_HALT);
    expect(word(m, DATA)).toBe(0x037f);
    expect((word(m, DATA + 2) >> 11) & 7).toBe(6);
    expect(word(m, DATA + 4)).toBe(0x1fff); // R7 valid (1.0), R6 zero, the rest empty
    expect(m.ram()[DATA + 14]).toBe(0xaa); // nothing past the 14 bytes
    // FNSTENV masked every exception; 66 fldenv (%rbx) loads the stored environment back: fnstcw 32(%rbx)
    m.ram()[DATA] = 0x7e; // the environment with invalid unmasked
    expect(run(m, [0x66, 0xd9, 0x23, 0xd9, 0x7b, 0x20]).stop).toBe(STOP_HALT);
    expect(word(m, DATA + 32)).toBe(0x037e);
  });
});
