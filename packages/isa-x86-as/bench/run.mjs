#!/usr/bin/env node
// npm run bench: guest MIPS of the interpreter (release build) on a CPU-bound
// C workload (bench/workload.c, clang -O2) running on the bare core in long
// mode with identity-mapped 2 MiB pages, and the same program natively and
// under qemu-x86_64 (when installed), as ratios measured in the same run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createX86Core } from '../dist/index.js';
import { buildGuestImage, cflags, here, loadGuest } from './guest.mjs';

const ROUNDS = Number(process.argv[2] ?? 30);
const dir = mkdtempSync(join(tmpdir(), 'x86-bench-'));
const image = buildGuestImage(dir);
execFileSync('clang', [...cflags, '-static', '-o', join(dir, 'native'), join(here, 'native-main.c'), join(here, 'workload.c')]);

const core = await createX86Core('release');
const regs = loadGuest(core, image, ROUNDS);
if (process.env.NO_CACHE) core.setCodeCache(false);
// run() in slices as the machine layer calls it (packages/kernel: 10,000
// instructions per CPU slice by default). One run(1 << 24) call kept the run
// loop in V8's baseline tier for its first 16 M instructions: WebAssembly
// functions move to the optimising tier only on their next call.
const SLICE = Number(process.env.SLICE ?? 10_000);
const t0 = performance.now();
let stop;
do stop = core.run(SLICE); while (stop === 0);
const guestSeconds = (performance.now() - t0) / 1000;
if (stop !== 1) throw new Error(`bench: guest stopped with ${stop} (vector ${core.stopVector()}) at 0x${core.stopPcLo().toString(16)}`);
const retired = core.retiredHi() * 2 ** 32 + (core.retiredLo() >>> 0);
const guestResult = regs[0];
const guestMips = retired / guestSeconds / 1e6;

const native = execFileSync(join(dir, 'native'), [String(ROUNDS)]).toString().trim().split(' ');
if (BigInt(native[0]) !== guestResult) throw new Error(`bench: guest result ${guestResult} differs from native ${native[0]}`);
const nativeMips = retired / (Number(native[1]) / 1e9) / 1e6;
let qemuMips = null;
try {
  const t = performance.now();
  execFileSync('qemu-x86_64', [join(dir, 'native'), String(ROUNDS)]);
  qemuMips = retired / ((performance.now() - t) / 1000) / 1e6;
} catch { /* qemu-x86_64 not installed */ }

console.log(`workload: ${ROUNDS} rounds, ${retired.toLocaleString('en')} guest instructions, result ${guestResult} (matches native)`);
console.log(`interpreter (release): ${guestMips.toFixed(1)} MIPS  [${guestSeconds.toFixed(2)} s, run() slices of ${SLICE.toLocaleString('en')}]`);
console.log(`native:                ${nativeMips.toFixed(0)} MIPS  -> interpreter is 1/${(nativeMips / guestMips).toFixed(0)} of native`);
if (qemuMips) console.log(`qemu-x86_64:           ${qemuMips.toFixed(0)} MIPS  -> interpreter is 1/${(qemuMips / guestMips).toFixed(1)} of qemu-x86_64 (including its start-up)`);
else console.log('qemu-x86_64: not installed');
