#!/usr/bin/env node
// Records qemu-arm's results for seeded single-instruction VFP cases
// (scripts/vfp-cases.mjs) so the tests run without qemu:
//   test/vectors/vfp-qemu.bin.gz
// Header: 'VFPX', record count. Record (little-endian): seed u32, flags u16
// (bit 0: T32), batch index u16, changed-register mask u16, changed-s mask
// u32, the changed r0-r12 values u32..., APSR u32 (NZCV), the changed s0-s31
// values u32..., FPSCR u32, FNV-1a of the 256-byte buffer u32.
// Usage: make-vfp-vectors.mjs [count per instruction set]
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { makeVfpCase, runVfpOnQemu, VFP_SEEDS, VFP_DATA_BASE } from './vfp-cases.mjs';
import { BUFFER_SIZE } from './diff-cases.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const count = Number(process.argv[2] ?? 6000);
const BATCH = 2000;
const chunks = [];
for (const thumb of [false, true]) {
  for (let start = 0; start < count; start += BATCH) {
    const n = Math.min(BATCH, count - start);
    const cases = Array.from({ length: n }, (_, i) => makeVfpCase(VFP_SEEDS[thumb ? 't32' : 'a32'] + start + i, VFP_DATA_BASE + i * BUFFER_SIZE, thumb));
    runVfpOnQemu(cases, VFP_DATA_BASE).forEach((k, index) => {
      let regMask = 0;
      let fpMask = 0;
      const regs = [];
      const fp = [];
      for (let r = 0; r < 13; r++) if (k.expected.regs[r] !== k.regs[r]) { regMask |= 1 << r; regs.push(k.expected.regs[r]); }
      for (let i = 0; i < 32; i++) if (k.expected.fp[i] !== k.fp[i]) { fpMask = (fpMask | (1 << i)) >>> 0; fp.push(k.expected.fp[i]); }
      const buf = Buffer.alloc(14 + 4 * (regs.length + fp.length + 3));
      buf.writeUInt32LE(k.seed, 0);
      buf.writeUInt16LE(thumb ? 1 : 0, 4);
      buf.writeUInt16LE(index, 6);
      buf.writeUInt16LE(regMask, 8);
      buf.writeUInt32LE(fpMask, 10);
      let at = 14;
      for (const v of [...regs, k.expected.apsr, ...fp, k.expected.fpscr, k.expected.bufferHash]) { buf.writeUInt32LE(v >>> 0, at); at += 4; }
      chunks.push(buf);
    });
    process.stderr.write(`${thumb ? 't32' : 'a32'} ${start + n}/${count}\r`);
  }
}
mkdirSync(join(root, 'test', 'vectors'), { recursive: true });
const header = Buffer.alloc(8);
header.write('VFPX', 0, 'latin1');
header.writeUInt32LE(chunks.length, 4);
writeFileSync(join(root, 'test', 'vectors', 'vfp-qemu.bin.gz'), gzipSync(Buffer.concat([header, ...chunks]), { level: 9 }));
console.log(`\n${chunks.length} VFP cases recorded in test/vectors/vfp-qemu.bin.gz`);
