#!/usr/bin/env node
// npm run bench: guest MIPS of the ARM core (release build) on a CPU-bound C
// workload (bench/workload.c, clang -O2, bare metal) built as A32 (-marm) and
// as Thumb-2 (-mthumb), side by side, and each program under qemu-arm in the
// same run, as a ratio. Needs clang and ld.lld; qemu-arm is optional.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createArmCore, StopReason } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const iterations = Number(process.env.BENCH_ITERATIONS ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'a32-bench-'));

/** The workload with `n` iterations, as A32 (isa 'arm') or Thumb-2 ('thumb') code. */
function build(n, isa) {
  const exe = join(dir, `work${n}-${isa}`);
  execFileSync('clang', ['--target=armv7a-linux-gnueabi', `-m${isa}`, '-mfloat-abi=soft', '-O2', '-static', '-nostdlib', '-ffreestanding', '-fno-builtin', '-fuse-ld=lld', `-DITERATIONS=${n}`, join(here, 'workload.c'), '-o', exe]);
  return exe;
}

/** Loads PT_LOAD segments of a static ELF32 into guest RAM; returns the entry point. */
function loadElf(core, bytes) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ram = new Uint8Array(core.memory.buffer, core.ramOffset(), core.ramBytes());
  const phoff = v.getUint32(28, true);
  const phnum = v.getUint16(44, true);
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * 32;
    if (v.getUint32(o, true) !== 1) continue;
    const off = v.getUint32(o + 4, true);
    const paddr = v.getUint32(o + 12, true);
    const filesz = v.getUint32(o + 16, true);
    const memsz = v.getUint32(o + 20, true);
    ram.fill(0, paddr, paddr + memsz);
    ram.set(bytes.subarray(off, off + filesz), paddr);
  }
  core.invalidateCodeRange(0, core.ramBytes());
  return v.getUint32(24, true);
}

const RAM = 16 << 20;
const TABLE = RAM - 0x4000; // L1 table: identity-mapped 1 MiB sections

/** With `mmu`, a privileged preamble maps RAM with client-domain sections and turns the MMU on. */
async function runCore(exe, mmu = false) {
  const core = await createArmCore('release');
  core.init(1, RAM);
  core.setStopMask(0, 1 << 2 | 0x3fa); // stop on svc (the exit call) and on any fault
  const entry = loadElf(core, readFileSync(exe));
  if (mmu) {
    const view = new DataView(core.memory.buffer, core.ramOffset(), core.ramBytes());
    for (let mb = 0; mb < 4096; mb++) view.setUint32(TABLE + mb * 4, mb < RAM >> 20 ? (mb << 20) | (3 << 10) | 2 : 0, true);
    // mcr TTBR0, r0 ; mcr DACR, r1 ; mrc SCTLR, r2 ; orr r2, #1 ; mcr SCTLR, r2 ; isb ; bx r3 (a Thumb entry has bit 0 set)
    [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, 0xe12fff13].forEach((w, i) => view.setUint32(0x100 + i * 4, w, true));
    core.invalidateCodeRange(0x100, 28);
    core.setCpsr(0, 0x13);
    core.setReg(0, 13, TABLE);
    core.setReg(0, 0, TABLE);
    core.setReg(0, 1, 0x55555555);
    core.setReg(0, 3, entry);
    core.setReg(0, 15, 0x100);
  } else {
    core.setCpsr(0, 0x10 | (entry & 1 ? 0x20 : 0)); // User mode (its own r13), Thumb state for a Thumb entry
    core.setReg(0, 13, TABLE);
    core.setReg(0, 15, entry & ~1);
  }
  // CPU time, not wall time: the machine is shared, and being descheduled
  // must not count against either side of the ratio.
  const start = process.cpuUsage();
  let reason;
  do reason = core.run(0, 1_000_000); while (reason === StopReason.BUDGET);
  const used = process.cpuUsage(start);
  const seconds = (used.user + used.system) / 1e6;
  if (reason !== StopReason.SVC) throw new Error(`workload stopped with reason ${reason} at 0x${(core.stopPc(0) >>> 0).toString(16)}`);
  const instructions = core.retiredLow(0) + core.retiredHigh(0) * 2 ** 32;
  return { instructions, seconds, exit: core.getReg(0, 0) & 0xff };
}

let qemuExit = -1;
/** CPU seconds (user + system) qemu-arm spends on `exe`, read from the shell's `times`. */
function timeQemu(exe) {
  const out = execFileSync('sh', ['-c', 'qemu-arm "$0" > /dev/null; echo $?; times', exe]).toString().trim().split('\n');
  qemuExit = Number(out[0]);
  const children = out[2] ?? out[1];
  const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return secs.reduce((a, b) => a + b, 0);
}

/** CPU seconds qemu-arm needs for `exe` beyond its start-up (best of three each), and its exit status. */
function qemuSeconds(exe, empty) {
  const best = (f) => Math.min(f(), f(), f());
  const full = best(() => timeQemu(exe));
  const exit = qemuExit;
  return { seconds: Math.max(full - best(() => timeQemu(empty)), 1e-6), exit };
}

/** The median of a list of numbers. */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// Rounds alternate the builds (A32, T32, A32 with the MMU, T32 with the
// MMU, then again), so load on the shared machine falls on both sides of
// each round's T32/A32 ratio alike.
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

try {
  let haveQemu = true;
  try {
    execFileSync('qemu-arm', ['-version'], { stdio: 'ignore' });
  } catch {
    haveQemu = false;
  }
  const sets = [['arm', 'A32'], ['thumb', 'T32']].map(([isa, name]) => ({ isa, name, exe: build(iterations, isa), empty: build(0, isa), mips: [], mappedMips: [], exit: -1, instructions: 0 }));
  // Warm-up runs: let the engine's optimising tier compile the run loop
  // (V8 starts WebAssembly in its baseline compiler), as a long-running
  // machine would be after its first time slices.
  for (const s of sets) await runCore(build(Math.max(1, iterations >> 3), s.isa));
  for (let round = 1; round <= rounds; round++) {
    for (const mmu of [false, true]) {
      for (const s of sets) {
        const r = await runCore(s.exe, mmu);
        if (s.exit === -1) s.exit = r.exit;
        if (r.exit !== s.exit) throw new Error(`${s.name}: checksum ${mmu ? 'with' : 'without'} the MMU differs: ${r.exit} vs ${s.exit}`);
        s.instructions = r.instructions;
        (mmu ? s.mappedMips : s.mips).push(r.instructions / r.seconds / 1e6);
      }
    }
    const [a, t] = sets;
    const at = (xs) => xs[round - 1];
    console.log(`round ${round}: A32 ${at(a.mips).toFixed(1)} MIPS, T32 ${at(t.mips).toFixed(1)} (T32/A32 ${(at(t.mips) / at(a.mips)).toFixed(2)}); ` +
      `MMU on: A32 ${at(a.mappedMips).toFixed(1)}, T32 ${at(t.mappedMips).toFixed(1)} (${(at(t.mappedMips) / at(a.mappedMips)).toFixed(2)})`);
  }
  for (const s of sets) {
    s.ratio = '';
    if (!haveQemu) continue;
    const q = qemuSeconds(s.exe, s.empty);
    if (q.exit !== s.exit) throw new Error(`${s.name}: checksum differs: core ${s.exit}, qemu-arm ${q.exit}`);
    const qmips = s.instructions / q.seconds / 1e6;
    console.log(`${s.name}: ${s.instructions} guest instructions, checksum ${s.exit} agrees with qemu-arm; qemu-arm ${q.seconds.toFixed(3)} s CPU time (start-up subtracted) = ${qmips.toFixed(1)} MIPS`);
    s.ratio = `1/${(qmips / median(s.mips)).toFixed(1)}`;
  }
  if (!haveQemu) console.log('qemu-arm not installed: no ratio');
  console.log(`\nmedians of ${rounds} round${rounds > 1 ? 's' : ''} (core, release build, CPU time)`);
  console.log('          MIPS   MMU on  core/qemu-arm');
  for (const s of sets) console.log(`${s.name.padEnd(6)} ${median(s.mips).toFixed(1).padStart(8)} ${median(s.mappedMips).toFixed(1).padStart(8)}  ${s.ratio || '-'}`);
  const ratios = sets[1].mips.map((t, i) => t / sets[0].mips[i]);
  const mappedRatios = sets[1].mappedMips.map((t, i) => t / sets[0].mappedMips[i]);
  console.log(`T32/A32   ${median(ratios).toFixed(2).padStart(5)}    ${median(mappedRatios).toFixed(2).padStart(5)}  (per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}; MMU on: ${mappedRatios.map((r) => r.toFixed(2)).join(' ')})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
