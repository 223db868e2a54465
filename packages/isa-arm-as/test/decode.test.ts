// Decoder and disassembler against llvm-objdump (--triple=armv7a): recorded
// vectors always, plus a fresh random batch when llvm is installed.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeA32 } from '../src/index.js';
// @ts-expect-error plain .mjs helper without types
import { haveLlvm, llvmDisassemble, randomWords } from '../scripts/llvm-oracle.mjs';

const load = (name: string): any => JSON.parse(gunzipSync(readFileSync(new URL(`./vectors/${name}`, import.meta.url))).toString());

/** Share of words whose mnemonic matches, VFP/NEON words set aside as the issue allows. */
function mnemonicAgreement(words: Uint32Array | number[], mnemonics: string[], base = 0): { share: number; bad: string[] } {
  let considered = 0;
  let ok = 0;
  const bad: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const d = describeA32(words[i]!, base + i * 4);
    if (d.classes.has('vfp') && mnemonics[i]!.startsWith('v')) continue;
    considered++;
    if (d.mnemonic === mnemonics[i]) ok++;
    else if (bad.length < 20) bad.push(`${words[i]!.toString(16)}: ${d.text} / ${mnemonics[i]}`);
  }
  return { share: ok / considered, bad };
}

describe('A32 decode agrees with llvm-objdump', () => {
  it('on >= 98% of recorded random words (mnemonic incl. condition, UNDEFINED)', () => {
    const v = load('decode-random.json.gz');
    const words = randomWords(v.seed, v.count);
    const { share } = mnemonicAgreement(words, v.mnemonics);
    expect(share).toBeGreaterThanOrEqual(0.98);
  });

  it('on >= 99.9% of a compiled -marm corpus, and prints the same text', () => {
    const v = load('decode-corpus.json.gz');
    const mnemonics = v.llvm.map((t: string) => t.split('\t')[0]);
    const { share, bad } = mnemonicAgreement(v.words, mnemonics, v.base);
    expect(bad).toEqual([]);
    expect(share).toBeGreaterThanOrEqual(0.999);
    let same = 0;
    const diff: string[] = [];
    v.words.forEach((w: number, i: number) => {
      const text = describeA32(w, v.base + i * 4).text;
      if (text === v.llvm[i]) same++;
      else if (diff.length < 10) diff.push(`${text} / ${v.llvm[i]}`);
    });
    expect(diff).toEqual([]);
    expect(same / v.words.length).toBeGreaterThanOrEqual(0.999);
  });

  it.runIf(haveLlvm())('on a fresh random batch run through llvm-objdump now', () => {
    const seed = (Date.now() & 0x7fffffff) | 1;
    const words = randomWords(seed, 50000);
    const texts: string[] = llvmDisassemble(words);
    const { share } = mnemonicAgreement(words, texts.map((t) => t.split('\t')[0]!));
    expect(share, `seed ${seed}`).toBeGreaterThanOrEqual(0.98);
  });
});

describe('A32 describe classes', () => {
  const at = (word: number, address = 0x8000) => describeA32(word, address);
  it('spells single-register push/pop as llvm-objdump does, classed as push/pop', () => {
    expect(at(0xe52d1004).text).toBe('str\tr1, [sp, #-4]!');
    expect(at(0xe52d1004).classes.has('push')).toBe(true);
    expect(at(0xe52d1004).registerList).toBe(1 << 1);
    expect(at(0xe49d1004).text).toBe('ldr\tr1, [sp], #4');
    expect(at(0xe49d1004).classes.has('pop')).toBe(true);
    expect(at(0xe49df004).classes.has('writes-pc')).toBe(true);
  });

  it('finds the prologue/epilogue shapes providers patch', () => {
    expect(at(0xe92d4800).classes.has('push')).toBe(true); // push {r11, lr}
    expect(at(0xe92d4800).registerList).toBe(0x4800);
    expect(at(0xe8bd8800).classes.has('pop')).toBe(true); // pop {r11, pc}
    expect(at(0xe8bd8800).classes.has('ldm-pc')).toBe(true);
    expect(at(0xe12fff1e).classes.has('bx-lr')).toBe(true);
    expect(at(0xe1a0f00e).classes.has('mov-pc-lr')).toBe(true);
    expect(at(0xe1a0c00d).classes.has('mov-ip-sp')).toBe(true);
    expect(at(0xe24dd010).classes.has('sub-sp')).toBe(true);
    expect(at(0xe24dd010).immediate).toBe(16);
    expect(at(0xe3550007).classes.has('cmp-imm')).toBe(true);
    expect(at(0xe30004d2).immediate).toBe(1234); // movw r0, #1234
    expect(at(0xe59f0008).literalAddress).toBe(0x8010); // ldr r0, [pc, #8]
    expect(at(0xeb000002).target).toBe(0x8010); // bl
    expect(at(0xef000000).classes.has('svc')).toBe(true);
    expect(at(0xe7f000f3).classes.has('udf')).toBe(true);
    expect(at(0xe1910f9f).classes.has('exclusive')).toBe(true);
    expect(at(0x0a000000).mnemonic).toBe('beq');
  });

  it('never throws and always names a mnemonic, for any word', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xfffffffc }), (w, a) => {
        const d = describeA32(w, a);
        expect(d.mnemonic.length).toBeGreaterThan(0);
      }),
      { numRuns: 20000 },
    );
  });
});
