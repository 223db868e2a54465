#!/usr/bin/env node
// Records qemu-arm's results for seeded single-instruction cases so the
// execution tests run without qemu:
//   a32: test/vectors/exec-qemu.bin.gz      (scripts/diff-cases.mjs)
//   t32: test/vectors/exec-qemu-t32.bin.gz  (scripts/diff-cases-t32.mjs)
// Record layout (little-endian): seed u32, instruction u32, batch index u16,
// changed-register mask u16, the changed r0-r12 values u32..., APSR u32
// (NZCVQ and GE only), FNV-1a of the 256-byte buffer u32. Header: 'A32X' or
// 'T32X' and the record count.
// Usage: make-exec-vectors.mjs a32|t32 [count]
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { runOnQemu, runOnQemuThumb } from './qemu-diff.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const isa = process.argv[2];
if (isa !== 'a32' && isa !== 't32') throw new Error('usage: make-exec-vectors.mjs a32|t32 [count]');
const count = Number(process.argv[3] ?? 24000);
const BATCH = 2000;
const FIRST_SEED = isa === 'a32' ? 0x10001 : 0x20001;
const chunks = [];
for (let start = 0; start < count; start += BATCH) {
  const seeds = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => FIRST_SEED + start + i);
  const cases = isa === 'a32' ? runOnQemu(seeds) : runOnQemuThumb(seeds);
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
    buf.writeUInt32LE(isa === 'a32' ? k.word : k.value, 4);
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
header.write(isa === 'a32' ? 'A32X' : 'T32X', 0, 'latin1');
header.writeUInt32LE(chunks.length, 4);
const file = isa === 'a32' ? 'exec-qemu.bin.gz' : 'exec-qemu-t32.bin.gz';
writeFileSync(join(root, 'test', 'vectors', file), gzipSync(Buffer.concat([header, ...chunks]), { level: 9 }));
console.log(`\n${chunks.length} ${isa} cases recorded in test/vectors/${file}`);
