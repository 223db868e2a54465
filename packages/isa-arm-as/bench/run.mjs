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

try {
  let haveQemu = true;
  try {
    execFileSync('qemu-arm', ['-version'], { stdio: 'ignore' });
  } catch {
    haveQemu = false;
  }
  const rows = [];
  for (const [isa, name] of [['arm', 'A32'], ['thumb', 'T32']]) {
    const exe = build(iterations, isa);
    const empty = build(0, isa);
    // Warm-up run: lets the engine's optimising tier compile the run loop
    // (V8 starts WebAssembly in its baseline compiler), as a long-running
    // machine would be after its first time slices.
    await runCore(build(Math.max(1, iterations >> 3), isa));
    const core = await runCore(exe);
    const mips = core.instructions / core.seconds / 1e6;
    console.log(`${name} core (release): ${core.instructions} guest instructions in ${core.seconds.toFixed(3)} s CPU time = ${mips.toFixed(1)} MIPS`);
    const mapped = await runCore(exe, true);
    if (mapped.exit !== core.exit) throw new Error(`${name}: checksum with the MMU on differs: ${mapped.exit} vs ${core.exit}`);
    const mappedMips = mapped.instructions / mapped.seconds / 1e6;
    console.log(`${name} core, MMU on (sections, client domain): ${mappedMips.toFixed(1)} MIPS`);
    const row = { name, mips, mappedMips, ratio: '' };
    if (haveQemu) {
      const q = qemuSeconds(exe, empty);
      if (q.exit !== core.exit) throw new Error(`${name}: checksum differs: core ${core.exit}, qemu-arm ${q.exit}`);
      const qmips = core.instructions / q.seconds / 1e6;
      console.log(`${name}: checksum ${core.exit} agrees with qemu-arm; qemu-arm ${q.seconds.toFixed(3)} s CPU time (start-up subtracted) = ${qmips.toFixed(1)} MIPS`);
      row.ratio = `1/${(qmips / mips).toFixed(1)}`;
    }
    rows.push(row);
  }
  if (!haveQemu) console.log('qemu-arm not installed: no ratio');
  console.log('\n          MIPS   MMU on  core/qemu-arm');
  for (const r of rows) console.log(`${r.name.padEnd(6)} ${r.mips.toFixed(1).padStart(8)} ${r.mappedMips.toFixed(1).padStart(8)}  ${r.ratio || '-'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
