// Execution against qemu-arm, for both instruction sets: recorded
// single-instruction vectors always (A32 from scripts/diff-cases.mjs, T32
// from scripts/diff-cases-t32.mjs, in random IT states), a fresh random
// batch when qemu-arm and clang are installed; plus fuzzing (random words
// and halfwords in every mode never throw on the host).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createArmCore, describeA32, describeT32, StopReason } from '../src/index.js';
// @ts-expect-error plain .mjs helpers without types
import { makeCase } from '../scripts/diff-cases.mjs';
// @ts-expect-error plain .mjs helpers without types
import { makeThumbCase } from '../scripts/diff-cases-t32.mjs';
// @ts-expect-error plain .mjs helpers without types
import { bufferAddressOf, haveQemu, runOnQemu, runOnQemuThumb } from '../scripts/qemu-diff.mjs';
// @ts-expect-error plain .mjs helpers without types
import { prepareCore, replayCase, differences } from '../scripts/replay.mjs';

interface Expected { regs: number[]; apsr: number; bufferHash: number }
interface Case { seed: number; regs: number[]; word?: number; value?: number; it?: number; itLength?: number }

/** What differs per instruction set: the vector file, the case generator, the describer. */
const ISAS = [
  {
    name: 'A32',
    file: 'exec-qemu.bin.gz',
    magic: 'A32X',
    make: (seed: number, buffer: number): Case => makeCase(seed, buffer),
    instruction: (k: Case): number => k.word!,
    text: (k: Case): string => describeA32(k.word!).text,
    encoding: (k: Case): string => describeA32(k.word!).encoding,
    qemu: (seeds: number[]): (Case & { expected: Expected })[] => runOnQemu(seeds),
    minimumEncodings: 150,
  },
  {
    name: 'T32',
    file: 'exec-qemu-t32.bin.gz',
    magic: 'T32X',
    make: (seed: number, buffer: number): Case => makeThumbCase(seed, buffer),
    instruction: (k: Case): number => k.value!,
    text: (k: Case): string => `${describeT32(k.value!).text}${k.itLength ? ` (IT ${k.it!.toString(16)}, slot ${k.itLength})` : ''}`,
    encoding: (k: Case): string => describeT32(k.value!).encoding,
    qemu: (seeds: number[]): (Case & { expected: Expected })[] => runOnQemuThumb(seeds),
    minimumEncodings: 220,
  },
] as const;

function loadVectors(isa: (typeof ISAS)[number]): { k: Case; index: number; expected: Expected }[] {
  const bytes = gunzipSync(readFileSync(new URL(`./vectors/${isa.file}`, import.meta.url)));
  expect(bytes.toString('latin1', 0, 4)).toBe(isa.magic);
  const count = bytes.readUInt32LE(4);
  const out = [];
  let at = 8;
  for (let i = 0; i < count; i++) {
    const seed = bytes.readUInt32LE(at);
    const instruction = bytes.readUInt32LE(at + 4);
    const index = bytes.readUInt16LE(at + 8);
    const mask = bytes.readUInt16LE(at + 10);
    at += 12;
    const k = isa.make(seed, bufferAddressOf(index));
    expect(isa.instruction(k)).toBe(instruction); // the case generator still matches the recording
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
    out.push({ k, index, expected: { regs, apsr, bufferHash } });
  }
  return out;
}

describe.each(ISAS)('$name execution agrees with qemu-arm', (isa) => {
  it('on >= 20,000 recorded single-instruction cases', async () => {
    const vectors = loadVectors(isa);
    expect(vectors.length).toBeGreaterThanOrEqual(20000);
    const core = await createArmCore('release');
    prepareCore(core);
    const failures: string[] = [];
    const encodings = new Set<string>();
    for (const v of vectors) {
      encodings.add(isa.encoding(v.k));
      const diff = differences(v.expected, replayCase(core, v.k, bufferAddressOf(v.index)));
      if (diff.length && failures.length < 20) failures.push(`${isa.instruction(v.k).toString(16)} ${isa.text(v.k)}: ${diff.join('; ')}`);
    }
    expect(failures).toEqual([]);
    expect(encodings.size).toBeGreaterThan(isa.minimumEncodings);
  }, 120_000);

  it.runIf(haveQemu())('on a fresh random batch run under qemu-arm now', async () => {
    const first = (Date.now() & 0x3fffffff) | 1;
    const cases = isa.qemu(Array.from({ length: 2000 }, (_, i) => first + i));
    const core = await createArmCore('debug');
    prepareCore(core);
    const failures: string[] = [];
    cases.forEach((k, i) => {
      const diff = differences(k.expected, replayCase(core, k, bufferAddressOf(i)));
      if (diff.length && failures.length < 20) failures.push(`seed ${k.seed} ${isa.instruction(k).toString(16)} ${isa.text(k)}: ${diff.join('; ')}`);
    });
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('fuzzing', () => {
  it.each([
    ['A32 words', 0],
    ['T32 halfwords', 0x20],
  ])('random %s in every mode never throw on the host and stop cleanly', async (_name, thumb) => {
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
        core.setCpsr(0, mode | 0xc0 | thumb);
        regs.forEach((v, i) => core.setReg(0, i, v));
        core.setReg(0, 15, 0x8000);
        const reason = core.run(0, 64);
        expect(Object.values(StopReason)).toContain(reason);
      }),
      { numRuns: 3000 },
    );
  });
});
