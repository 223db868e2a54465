#!/usr/bin/env node
// Compares describeA32 (dist build) with llvm-objdump on seeded random words
// and prints agreement and the most common disagreements.
// Usage: compare-llvm.mjs [count] [seed]
import { describeA32 } from '../dist/index.js';
import { llvmDisassemble, randomWords } from './llvm-oracle.mjs';

const count = Number(process.argv[2] ?? 100000);
const seed = Number(process.argv[3] ?? 12345);
const words = randomWords(seed, count);
const oracle = llvmDisassemble(words);
let mnemonicOk = 0, textOk = 0, vfp = 0;
const bad = new Map();
for (let i = 0; i < count; i++) {
  const d = describeA32(words[i], i * 4);
  const llvm = oracle[i];
  const lm = llvm.split('\t')[0];
  if (d.classes.has('vfp') && lm.startsWith('v')) { vfp++; continue; }
  if (d.mnemonic === lm) mnemonicOk++;
  else {
    const strip = (m) => m.replace(/(eq|ne|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)$/, "");
    const key = `${d.encoding}: ours ${strip(d.mnemonic)} llvm ${strip(lm)}`;
    const e = bad.get(key) ?? { n: 0, ex: [] };
    e.n++;
    if (e.ex.length < 2) e.ex.push(`${words[i].toString(16).padStart(8, '0')} ours '${d.text}' llvm '${llvm}'`);
    bad.set(key, e);
  }
  if (d.text === llvm) textOk++;
}
const n = count - vfp;
console.log(`words ${count}, vfp/neon set aside ${vfp}; mnemonic agreement ${(100 * mnemonicOk / n).toFixed(3)}%, full text ${(100 * textOk / n).toFixed(3)}%`);
for (const [k, e] of [...bad].sort((a, b) => b[1].n - a[1].n).slice(0, Number(process.env.TOP ?? 40))) console.log(e.n, k, '|', e.ex.join(' ; '));
