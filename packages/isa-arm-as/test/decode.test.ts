// Decoders and disassemblers against llvm-objdump (--triple=armv7a for A32,
// --triple=thumbv7 for T32): recorded vectors always, plus a fresh random
// batch when llvm is installed.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeA32, describeT32, disassembleElf, walkT32 } from '../src/index.js';
// @ts-expect-error plain .mjs helper without types
import { haveLlvm, llvmDisassemble, llvmDisassembleThumb, randomWords } from '../scripts/llvm-oracle.mjs';
// @ts-expect-error plain .mjs helper without types
import { compareThumbStreams } from '../scripts/t32-agreement.mjs';

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

describe('T32 decode agrees with llvm-objdump --triple=thumbv7', () => {
  it('on a recorded random halfword stream: instruction boundaries and mnemonics', () => {
    const v = load('decode-t32-random.json.gz');
    const words = randomWords(v.seed, (v.halfwords + 1) >> 1);
    const bytes = new Uint8Array(words.buffer, 0, v.halfwords * 2);
    const theirs = v.listing.map(([offset, text]: [number, string]) => ({ address: v.base + offset, text }));
    const result = compareThumbStreams(walkT32(bytes, v.base), theirs);
    expect(result.boundaries).toBeGreaterThanOrEqual(0.999);
    expect(result.mnemonics, JSON.stringify(result.worst.slice(0, 5))).toBeGreaterThanOrEqual(0.995);
  });

  it('on a compiled -mthumb corpus, line for line (code, IT blocks and literal pools)', () => {
    const v = load('decode-t32-corpus.json.gz');
    for (const o of v.objects as { name: string; elf: string; listing: { address: number; symbol: string; text: string }[] }[]) {
      const ours = disassembleElf(new Uint8Array(Buffer.from(o.elf, 'base64'))).map((l) => ({ address: l.address, text: l.text }));
      const theirs = o.listing.filter((l) => !l.text.startsWith('.')).map((l) => ({ address: l.address, text: l.text }));
      const code = ours.filter((l) => !l.text.startsWith('.'));
      expect(code, o.name).toEqual(theirs);
    }
  });

  it.runIf(haveLlvm())('on a fresh random halfword stream run through llvm-objdump now', () => {
    const seed = (Date.now() & 0x7fffffff) | 1;
    const words = randomWords(seed, 3000);
    const bytes = new Uint8Array(words.buffer, 0, 6000);
    const result = compareThumbStreams(walkT32(bytes, 0x10000), llvmDisassembleThumb(bytes, 0x10000));
    expect(result.boundaries, `seed ${seed}`).toBeGreaterThanOrEqual(0.995);
    expect(result.mnemonics, `seed ${seed}: ${JSON.stringify(result.worst.slice(0, 5))}`).toBeGreaterThanOrEqual(0.99);
  }, 600_000);
});

describe('T32 describe classes', () => {
  const at = (value: number, address = 0x8000, it = 0) => describeT32(value, address, it);
  it('finds the prologue and epilogue shapes Thumb probes patch', () => {
    expect(at(0xb580).classes.has('push')).toBe(true); // push {r7, lr}
    expect(at(0xb580).registerList).toBe(0x4080);
    expect(at(0xbd80).classes.has('pop')).toBe(true); // pop {r7, pc}
    expect(at(0xbd80).classes.has('ldm-pc')).toBe(true);
    expect(at(0xe8bd8ff0).text).toBe('pop.w\t{r4, r5, r6, r7, r8, r9, r10, r11, pc}');
    expect(at(0xe92d4ff0).classes.has('push')).toBe(true); // push.w {r4-r11, lr}
    expect(at(0xf84dbd04).text).toBe('str\tr11, [sp, #-4]!'); // single-register push keeps its str spelling
    expect(at(0xf84dbd04).classes.has('push')).toBe(true);
    expect(at(0x4770).classes.has('bx-lr')).toBe(true); // bx lr
    expect(at(0x466f).classes.has('mov-fp-sp')).toBe(true); // mov r7, sp
    expect(at(0xaf02).classes.has('add-fp-sp')).toBe(true); // add r7, sp, #8
    expect(at(0xaf02).immediate).toBe(8);
    expect(at(0xb082).classes.has('sub-sp')).toBe(true); // sub sp, #8
    expect(at(0xb082).immediate).toBe(8);
    expect(at(0x4801, 0x8002).literalAddress).toBe(0x8008); // ldr r0, [pc, #4]: Align(0x8006, 4) + 4
    expect(at(0xf000f800, 0x9000).target).toBe(0x9004); // bl
    expect(at(0xf000f800).classes.has('call')).toBe(true);
    expect(at(0xb118, 0x8000).target).toBe(0x800a); // cbz r0, +6
    expect(at(0xbf04).classes.has('it')).toBe(true);
    expect(at(0xdef0).classes.has('udf')).toBe(true);
    expect(at(0xdf05).classes.has('svc')).toBe(true);
  });

  it('follows the IT block: conditions on the instructions, no flag setting for 16-bit data processing', () => {
    expect(at(0x1c48).text).toBe('adds\tr0, r1, #1');
    expect(at(0x1c48, 0x8000, 0x04).text).toBe('addeq\tr0, r1, #1');
    expect(at(0xf1010001, 0x8000, 0x14).text).toBe('addne.w\tr0, r1, #1');
    const insns = walkT32(new Uint8Array([0x0c, 0xbf, 0x01, 0x20, 0x02, 0x20, 0x03, 0x20]), 0x8000).map((l) => l.insn.text);
    expect(insns).toEqual(['ite\teq', 'moveq\tr0, #1', 'movne\tr0, #2', 'movs\tr0, #3']);
  });

  it('never throws and always names a mnemonic, for any halfword or 32-bit value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xfffffffe }), fc.integer({ min: 0, max: 255 }), (v, a, it) => {
        expect(describeT32(v, a & ~1, it).mnemonic.length).toBeGreaterThan(0);
        expect(describeT32(v & 0xffff, a & ~1, it).mnemonic.length).toBeGreaterThan(0);
      }),
      { numRuns: 20000 },
    );
  });
});
