#!/usr/bin/env node
// Records qemu-arm's results for seeded single-instruction cases into
// test/vectors/exec-qemu.bin.gz so the execution tests run without qemu.
// Record layout (little-endian): seed u32, word u32, batch index u16,
// changed-register mask u16, the changed r0-r12 values u32..., APSR u32
// (NZCVQ and GE only), FNV-1a of the 256-byte buffer u32.
// Usage: make-exec-vectors.mjs [count]
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { runOnQemu } from './qemu-diff.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const count = Number(process.argv[2] ?? 24000);
const BATCH = 2000;
const FIRST_SEED = 0x10001;
const chunks = [];
for (let start = 0; start < count; start += BATCH) {
  const seeds = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => FIRST_SEED + start + i);
  const cases = runOnQemu(seeds);
  cases.forEach((k, index) => {
    let mask = 0;
    const changed = [];
    for (let r = 0; r < 13; r++) {
      if (k.expected.regs[r] !== k.regs[r]) {
        mask |= 1 << r;
        changed.push(k.expected.regs[r]);
      }
    }
    const buf = Buffer.alloc(12 + changed.length * 4 + 8);
    buf.writeUInt32LE(k.seed, 0);
    buf.writeUInt32LE(k.word, 4);
    buf.writeUInt16LE(index, 8);
    buf.writeUInt16LE(mask, 10);
    changed.forEach((v, i) => buf.writeUInt32LE(v, 12 + i * 4));
    buf.writeUInt32LE(k.expected.apsr, 12 + changed.length * 4);
    buf.writeUInt32LE(k.expected.bufferHash, 16 + changed.length * 4);
    chunks.push(buf);
  });
  process.stderr.write(`${start + seeds.length}/${count}\r`);
}
mkdirSync(join(root, 'test', 'vectors'), { recursive: true });
const header = Buffer.alloc(8);
header.write('A32X', 0, 'latin1');
header.writeUInt32LE(chunks.length, 4);
writeFileSync(join(root, 'test', 'vectors', 'exec-qemu.bin.gz'), gzipSync(Buffer.concat([header, ...chunks]), { level: 9 }));
console.log(`\n${chunks.length} cases recorded`);
