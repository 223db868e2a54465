#!/usr/bin/env node
// Compares the T32 describer (dist build) with llvm-objdump --triple=thumbv7
// on a seeded random halfword stream: instruction boundaries and mnemonics,
// and prints the most common disagreements.
// Usage: compare-llvm-t32.mjs [halfwords] [seed]
import { walkT32 } from '../dist/index.js';
import { llvmDisassembleThumb, randomWords } from './llvm-oracle.mjs';
import { compareThumbStreams } from './t32-agreement.mjs';

const count = Number(process.argv[2] ?? 100000);
const seed = Number(process.argv[3] ?? 12345);
const words = randomWords(seed, (count + 1) >> 1);
const bytes = new Uint8Array(words.buffer, 0, count * 2);
const result = compareThumbStreams(walkT32(bytes, 0x10000), llvmDisassembleThumb(bytes, 0x10000));
console.log(`halfwords ${count}: boundaries ${(100 * result.boundaries).toFixed(3)}%, mnemonics ${(100 * result.mnemonics).toFixed(3)}% (vfp/neon set aside: ${result.vfp}), full text ${(100 * result.text).toFixed(3)}%`);
for (const [k, e] of result.worst.slice(0, Number(process.env.TOP ?? 40))) console.log(e.n, k, '|', e.examples.join(' ; '));
