#!/usr/bin/env node
// Records the decode oracle into committed test vectors so the suite runs
// without llvm:
//   a32: test/vectors/decode-random.json.gz      llvm-objdump's text for seeded random words
//        test/vectors/decode-corpus.json.gz      words and llvm-objdump text of a compiled
//                                                corpus (test/corpus/*.c, clang -marm)
//   t32: test/vectors/decode-t32-random.json.gz  llvm-objdump --triple=thumbv7's listing of a
//                                                seeded random halfword stream
//        test/vectors/decode-t32-corpus.json.gz  the corpus built with clang -mthumb: each
//                                                object and llvm-objdump -d's listing of it
//        test/vectors/structs-thumb-O2.o (.objdump.json)  one such object and its listing
// Usage: make-decode-vectors.mjs [a32|t32] [randomCount]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { llvmDisassemble, llvmDisassembleThumb, normalise, randomWords } from './llvm-oracle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'test', 'vectors');
mkdirSync(out, { recursive: true });
const isa = process.argv[2] === 't32' ? 't32' : 'a32';
const countArgument = process.argv[2] === 'a32' || process.argv[2] === 't32' ? process.argv[3] : process.argv[2];

/** llvm-objdump -d's listing of an object: { address, symbol, text } per line (literal pools as .word/.short). */
function objdumpListing(obj, triple) {
  const listing = execFileSync('llvm-objdump', ['-d', `--triple=${triple}`, '--no-show-raw-insn', obj]).toString();
  const lines = [];
  let symbol = '';
  for (const line of listing.split('\n')) {
    const s = /^[0-9a-f]+ <([^>]+)>:$/.exec(line);
    if (s && !s[1].startsWith('$')) symbol = s[1]; // mapping symbols label pools, not functions
    const m = /^\s*([0-9a-f]+):\s+(.*)$/.exec(line);
    if (m) lines.push({ address: parseInt(m[1], 16), symbol, text: normalise(m[2].replace(/^([0-9a-f]{2}\s)+\s*(?=\.(word|short|byte))/, '')) });
  }
  return lines;
}

if (isa === 't32') {
  const RANDOM_SEED = 0x7eed1234;
  const halfwords = Number(countArgument ?? 60000);
  const words = randomWords(RANDOM_SEED, (halfwords + 1) >> 1);
  const listing = llvmDisassembleThumb(new Uint8Array(words.buffer, 0, halfwords * 2), 0x10000);
  writeFileSync(join(out, 'decode-t32-random.json.gz'), gzipSync(JSON.stringify({ seed: RANDOM_SEED, halfwords, base: 0x10000, listing: listing.map((e) => [e.address - 0x10000, e.text]) }), { level: 9 }));
  const dir = mkdtempSync(join(tmpdir(), 't32-corpus-'));
  const objects = [];
  try {
    for (const src of readdirSync(join(root, 'test', 'corpus')).filter((f) => f.endsWith('.c')).sort()) {
      for (const opt of ['-O0', '-O2', '-Os']) {
        const obj = join(dir, `${src}${opt}.o`);
        execFileSync('clang', ['--target=armv7a-none-eabi', '-mthumb', '-mfloat-abi=soft', opt, '-ffreestanding', '-fno-builtin', '-c', join(root, 'test', 'corpus', src), '-o', obj]);
        objects.push({ name: `${src} ${opt}`, elf: readFileSync(obj).toString('base64'), listing: objdumpListing(obj, 'thumbv7') });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  writeFileSync(join(out, 'decode-t32-corpus.json.gz'), gzipSync(JSON.stringify({ objects }), { level: 9 }));
  // A Thumb-2 object and llvm-objdump -d's listing of it, for the disassembler test and the documentation.
  const thumbObj = join(out, 'structs-thumb-O2.o');
  execFileSync('clang', ['--target=armv7a-none-eabi', '-mthumb', '-mfloat-abi=soft', '-O2', '-ffreestanding', '-fno-builtin', '-c', join(root, 'test', 'corpus', 'structs.c'), '-o', thumbObj]);
  writeFileSync(join(out, 'structs-thumb-O2.objdump.json'), JSON.stringify(objdumpListing(thumbObj, 'thumbv7')));
  console.log(`t32 random: ${halfwords} halfwords, ${listing.length} instructions; corpus: ${objects.length} objects, ${objects.reduce((n, o) => n + o.listing.length, 0)} lines`);
  process.exit(0);
}

const RANDOM_SEED = 0x5eed1234;
const randomCount = Number(countArgument ?? 200000);
const words = randomWords(RANDOM_SEED, randomCount);
const texts = llvmDisassemble(words);
writeFileSync(join(out, 'decode-random.json.gz'), gzipSync(JSON.stringify({ seed: RANDOM_SEED, count: randomCount, mnemonics: texts.map((t) => t.split('\t')[0]) }), { level: 9 }));

/** .text words of every object built from the corpus with several option sets. */
function corpusWords() {
  const dir = mkdtempSync(join(tmpdir(), 'a32-corpus-'));
  const all = [];
  try {
    const sources = readdirSync(join(root, 'test', 'corpus')).filter((f) => f.endsWith('.c'));
    for (const src of sources) {
      for (const opt of ['-O0', '-O2', '-Os']) {
        const obj = join(dir, `${src}${opt}.o`);
        execFileSync('clang', ['--target=armv7a-linux-gnueabi', '-marm', '-mfloat-abi=soft', opt, '-ffreestanding', '-fno-builtin', '-c', join(root, 'test', 'corpus', src), '-o', obj]);
        const bin = join(dir, `${src}${opt}.bin`);
        execFileSync('llvm-objcopy', ['-O', 'binary', '--only-section=.text', obj, bin]);
        const bytes = readFileSync(bin);
        // Literal pools are data: keep only words llvm-objdump -d shows as code.
        const listing = execFileSync('llvm-objdump', ['-d', '--triple=armv7a', '--no-show-raw-insn', obj]).toString();
        const code = new Set();
        for (const line of listing.split('\n')) {
          const m = /^\s*([0-9a-f]+):\s+(\S+)/.exec(line);
          if (m && !m[2].startsWith('.word')) code.add(parseInt(m[1], 16));
        }
        for (let at = 0; at + 4 <= bytes.length; at += 4) if (code.has(at)) all.push(bytes.readUInt32LE(at));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return Uint32Array.from(all);
}
const corpus = corpusWords();
const corpusTexts = llvmDisassemble(corpus, 0x10000);
writeFileSync(join(out, 'decode-corpus.json.gz'), gzipSync(JSON.stringify({ base: 0x10000, words: [...corpus], llvm: corpusTexts }), { level: 9 }));
console.log(`random: ${randomCount} words; corpus: ${corpus.length} instructions`);

// An ELF object and llvm-objdump -d's listing of it, for the disassembler test.
{
  const obj = join(out, 'structs-O2.o');
  execFileSync('clang', ['--target=armv7a-linux-gnueabi', '-marm', '-mfloat-abi=soft', '-O2', '-ffreestanding', '-fno-builtin', '-c', join(root, 'test', 'corpus', 'structs.c'), '-o', obj]);
  writeFileSync(join(out, 'structs-O2.objdump.json'), JSON.stringify(objdumpListing(obj, 'armv7a')));
}
