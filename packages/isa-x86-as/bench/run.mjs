#!/usr/bin/env node
// npm run bench: guest MIPS of the interpreter (release build) on a CPU-bound
// C workload (bench/workload.c, clang -O2) running on the bare core in long
// mode with identity-mapped 2 MiB pages, and the same program natively and
// under qemu-x86_64 (when installed), as ratios measured in the same run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createX86Core } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 30);
const dir = mkdtempSync(join(tmpdir(), 'x86-bench-'));
const cflags = ['-O2', '-fno-pic', '-fno-stack-protector', '-fcf-protection=none', '-mno-sse', '-mno-red-zone', '-fno-builtin'];
execFileSync('clang', ['-c', ...cflags, '-ffreestanding', '-o', join(dir, 'w.o'), join(here, 'workload.c')]);
execFileSync('clang', ['-c', '-o', join(dir, 'e.o'), join(here, 'guest-entry.s')]);
execFileSync('ld.lld', ['-static', '-nostdlib', '-e', '_start', '-Ttext=0x100000', '-Tbss=0x400000', '--oformat=binary', '-o', join(dir, 'guest.bin'), join(dir, 'e.o'), join(dir, 'w.o')]);
execFileSync('clang', [...cflags, '-static', '-o', join(dir, 'native'), join(here, 'native-main.c'), join(here, 'workload.c')]);
const image = readFileSync(join(dir, 'guest.bin'));

const core = await createX86Core('release');
const RAM = 16 << 20;
core.initRam(RAM);
const ram = new Uint8Array(core.memory.buffer, core.ramOffset(), RAM);
const dv = new DataView(core.memory.buffer, core.ramOffset(), RAM);
// identity map the first 16 MiB with 2 MiB pages: PML4 0x1000, PDPT 0x2000, PD 0x3000
dv.setBigUint64(0x1000, 0x2003n, true);
dv.setBigUint64(0x2000, 0x3003n, true);
for (let i = 0; i < 8; i++) dv.setBigUint64(0x3000 + i * 8, BigInt(i) * 0x200000n | 0x83n, true);
ram.set(image, 0x100000);
core.setControlRegister(3, 0x1000, 0);
core.setControlRegister(4, 0x20, 0);
core.writeMsr(0xc0000080, 0x500, 0);
core.setControlRegister(0, 0x80000001, 0);
core.setSegments(0x08, 0x10);
const regs = new BigUint64Array(core.memory.buffer, core.regsOffset(), 16);
regs[7] = BigInt(ROUNDS); // %rdi
core.setRipParts(0x100000, 0);
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
