// Fuzz: random byte streams executed by the core never throw on the host;
// every stop is one of the documented reasons, and unimplemented or invalid
// encodings become guest #UD/#GP stops, not host errors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bareCore } from './core-harness.js';

describe('execution fuzz', () => {
  it('runs random bytes without host exceptions (debug build, with assertions)', async () => {
    const m = await bareCore(1 << 20, 'debug');
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.array(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { minLength: 16, maxLength: 16 }), (code, regs) => {
      m.poke(0x1000, code);
      const r = m.regs();
      regs.forEach((v, i) => { r[i] = v; });
      r[4] = 0x8000n;
      m.setRip(0x1000n);
      m.core.wake();
      const stop = m.core.run(50);
      expect([0, 1, 2, 3]).toContain(stop);
      if (stop === 2) expect(m.core.stopVector()).toBeGreaterThanOrEqual(0);
    }), { numRuns: 3000 });
  });
});
