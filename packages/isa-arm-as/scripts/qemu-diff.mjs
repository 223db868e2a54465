// Runs a batch of single-instruction cases (scripts/diff-cases.mjs for A32,
// scripts/diff-cases-t32.mjs for T32) on qemu-arm: writes a static harness in
// assembly (for each case: load r0-r12 and APSR, execute the instruction —
// in Thumb state after its IT instruction and nops — store r0-r12 and APSR),
// links it with clang/ld.lld for armv7-a without libc, runs it and reads back
// the final registers, APSR and buffers. Node only (scripts and tests).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUFFER_SIZE, makeCase, fnv1a } from './diff-cases.mjs';
import { makeThumbCase, caseHalfwords } from './diff-cases-t32.mjs';

/** Where the harness places case i's buffer; the core replays at the same address. */
export const DATA_BASE = 0x400000;
export const bufferAddressOf = (index) => DATA_BASE + index * BUFFER_SIZE;

export function haveQemu() {
  try {
    execFileSync('qemu-arm', ['-version'], { stdio: 'ignore' });
    execFileSync('clang', ['--target=armv7a-linux-gnueabi', '--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds and runs the harness: `body(k, i)` gives the lines that run case i
 * between loading its state and storing it. Returns the cases with
 * `expected` (regs, apsr, bufferHash) filled in.
 */
function runHarness(cases, thumb, body) {
  const n = cases.length;
  const lines = ['.syntax unified', thumb ? '.thumb' : '.arm', '.text', '.global _start', ...(thumb ? ['.thumb_func'] : []), '_start:'];
  cases.forEach((k, i) => {
    lines.push(
      `  ldr r0, =init+${i * 56}`,
      '  mov sp, r0',
      '  ldr r0, [sp, #52]',
      '  msr APSR_nzcvqg, r0',
      '  ldm sp, {r0-r12}',
      `  ldr sp, =out+${i * 56}`,
      ...body(k, i),
      '  stm sp, {r0-r12}',
      '  mrs r0, apsr',
      '  str r0, [sp, #52]',
      '  b 1f',
      '  .ltorg',
      '1:',
    );
  });
  lines.push(
    '  mov r7, #4', '  mov r0, #1', '  ldr r1, =out', `  ldr r2, =${n * 56}`, '  svc #0',
    '  mov r7, #4', '  mov r0, #1', '  ldr r1, =bufs', `  ldr r2, =${n * BUFFER_SIZE}`, '  svc #0',
    '  mov r7, #1', '  mov r0, #0', '  svc #0', '  .ltorg',
    '.section .casedata, "aw"',
    'bufs:',
  );
  for (const k of cases) lines.push(`  .byte ${[...k.buffer].join(',')}`);
  lines.push('init:');
  for (const k of cases) lines.push(`  .word ${[...k.regs, k.apsr].map((v) => '0x' + v.toString(16)).join(',')}`);
  lines.push('out:', `  .space ${n * 56}`);
  const dir = mkdtempSync(join(tmpdir(), 'arm-qemu-'));
  try {
    const src = join(dir, 'harness.s');
    const exe = join(dir, 'harness');
    writeFileSync(src, lines.join('\n') + '\n');
    execFileSync('clang', ['--target=armv7a-linux-gnueabi', '-march=armv7ve', '-static', '-nostdlib', '-fuse-ld=lld',
      `-Wl,--section-start=.casedata=0x${DATA_BASE.toString(16)}`, src, '-o', exe]);
    const stdout = execFileSync('qemu-arm', ['-cpu', 'cortex-a15', exe], { maxBuffer: 1 << 28 });
    const view = new DataView(stdout.buffer, stdout.byteOffset, stdout.byteLength);
    return cases.map((k, i) => {
      const regs = [];
      for (let r = 0; r < 13; r++) regs.push(view.getUint32(i * 56 + r * 4, true));
      const apsr = (view.getUint32(i * 56 + 52, true) & 0xf80f0000) >>> 0;
      const buffer = stdout.subarray(n * 56 + i * BUFFER_SIZE, n * 56 + (i + 1) * BUFFER_SIZE);
      return { ...k, expected: { regs, apsr, bufferHash: fnv1a(buffer) } };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A32 cases for seeds (case i's buffer at bufferAddressOf(i)), run under qemu-arm -cpu cortex-a15. */
export function runOnQemu(seeds) {
  const cases = seeds.map((seed, i) => makeCase(seed, bufferAddressOf(i)));
  return runHarness(cases, false, (k) => [`  .inst 0x${k.word.toString(16)}`]);
}

/** T32 cases for seeds, likewise: the IT instruction and nops, then the instruction, as .inst.n halfwords. */
export function runOnQemuThumb(seeds) {
  const cases = seeds.map((seed, i) => makeThumbCase(seed, bufferAddressOf(i)));
  return runHarness(cases, true, (k) => caseHalfwords(k).map((h) => `  .inst.n 0x${h.toString(16)}`));
}
