// Execution against qemu-arm: recorded single-instruction vectors always,
// a fresh random batch when qemu-arm and clang are installed; plus fuzzing
// (random words and sequences never throw on the host).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createArmCore, describeA32, StopReason } from '../src/index.js';
// @ts-expect-error plain .mjs helpers without types
import { makeCase } from '../scripts/diff-cases.mjs';
// @ts-expect-error plain .mjs helpers without types
import { bufferAddressOf, haveQemu, runOnQemu } from '../scripts/qemu-diff.mjs';
// @ts-expect-error plain .mjs helpers without types
import { prepareCore, replayCase, differences } from '../scripts/replay.mjs';

interface Expected { regs: number[]; apsr: number; bufferHash: number }

function loadVectors(): { seed: number; word: number; index: number; expected: Expected }[] {
  const bytes = gunzipSync(readFileSync(new URL('./vectors/exec-qemu.bin.gz', import.meta.url)));
  expect(bytes.toString('latin1', 0, 4)).toBe('A32X');
  const count = bytes.readUInt32LE(4);
  const out = [];
  let at = 8;
  for (let i = 0; i < count; i++) {
    const seed = bytes.readUInt32LE(at);
    const word = bytes.readUInt32LE(at + 4);
    const index = bytes.readUInt16LE(at + 8);
    const mask = bytes.readUInt16LE(at + 10);
    at += 12;
    const k = makeCase(seed, bufferAddressOf(index));
    expect(k.word).toBe(word); // the case generator still matches the recording
    const regs = [...k.regs];
    for (let r = 0; r < 13; r++) {
      if (mask & (1 << r)) {
        regs[r] = bytes.readUInt32LE(at);
        at += 4;
      }
    }
    const apsr = bytes.readUInt32LE(at);
    const bufferHash = bytes.readUInt32LE(at + 4);
    at += 8;
    out.push({ seed, word, index, expected: { regs, apsr, bufferHash } });
  }
  return out;
}

describe('A32 execution agrees with qemu-arm', () => {
  it('on >= 20,000 recorded single-instruction cases', async () => {
    const vectors = loadVectors();
    expect(vectors.length).toBeGreaterThanOrEqual(20000);
    const core = await createArmCore('release');
    prepareCore(core);
    const failures: string[] = [];
    const classes = new Set<string>();
    for (const v of vectors) {
      const k = makeCase(v.seed, bufferAddressOf(v.index));
      classes.add(describeA32(k.word).encoding);
      const diff = differences(v.expected, replayCase(core, k, bufferAddressOf(v.index)));
      if (diff.length && failures.length < 20) failures.push(`${k.word.toString(16)} ${describeA32(k.word).text}: ${diff.join('; ')}`);
    }
    expect(failures).toEqual([]);
    expect(classes.size).toBeGreaterThan(150);
  }, 120_000);

  it.runIf(haveQemu())('on a fresh random batch run under qemu-arm now', async () => {
    const first = (Date.now() & 0x3fffffff) | 1;
    const cases = runOnQemu(Array.from({ length: 2000 }, (_, i) => first + i));
    const core = await createArmCore('debug');
    prepareCore(core);
    const failures: string[] = [];
    cases.forEach((k: any, i: number) => {
      const diff = differences(k.expected, replayCase(core, k, bufferAddressOf(i)));
      if (diff.length && failures.length < 20) failures.push(`seed ${k.seed} ${k.word.toString(16)} ${describeA32(k.word).text}: ${diff.join('; ')}`);
    });
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('A32 fuzzing', () => {
  it('random words in every mode never throw on the host and stop cleanly', async () => {
    const core = await createArmCore('debug');
    expect(core.init(1, 1 << 20)).toBe(0);
    core.setStopMask(0, 0x3fe);
    const view = new DataView(core.memory.buffer, core.ramOffset(), core.ramBytes());
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 1, maxLength: 16 }), fc.constantFrom(0x10, 0x13, 0x17, 0x1b, 0x12, 0x11, 0x1f), fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 15, maxLength: 15 }), (words, mode, regs) => {
        core.reset(0);
        core.setStopMask(0, 0x3fe);
        words.forEach((w, i) => view.setUint32(0x8000 + i * 4, w, true));
        core.invalidateCodeRange(0x8000, words.length * 4);
        core.setCpsr(0, mode | 0xc0);
        regs.forEach((v, i) => core.setReg(0, i, v));
        core.setReg(0, 15, 0x8000);
        const reason = core.run(0, 64);
        expect(Object.values(StopReason)).toContain(reason);
      }),
      { numRuns: 3000 },
    );
  });
});
