#!/usr/bin/env node
// npm run bench: the whole machine with the committed guest, per ISA —
// boot to the shell prompt, the cost of a system call, of fork+exec+wait, and
// guest MIPS on the cpubound workload. Per-operation figures come from two
// runs of a workload at different sizes (the difference cancels boot and
// start-up), so they are guest instructions and wall time per operation.
// Wall times on a shared machine are noise; instruction counts are exact.
import { Machine, PORT_FACTORIES } from '../dist/index.js';

const isas = Object.keys(PORT_FACTORIES);

async function run(isa, args, options = {}) {
  let out = '';
  const m = await Machine.create({ isa, cmdline: 'quiet', args, consoleOutput: (b) => (out += new TextDecoder().decode(b)), ...options });
  const t0 = performance.now();
  const r = await m.runUntilPowerOff({ instructions: 5_000_000_000 });
  const ms = performance.now() - t0;
  if (r.kind !== 'poweroff' || r.status !== 0) throw new Error(`bench ${isa} ${args.join(' ')}: ${JSON.stringify(r)}\n${out}`);
  return { insns: m.instructions, ms, out };
}

async function bootToPrompt(isa) {
  let out = '';
  const m = await Machine.create({ isa, interactive: true, consoleOutput: (b) => (out += new TextDecoder().decode(b)) });
  const t0 = performance.now();
  const r = m.run({ instructions: 1_000_000_000 });
  const ms = performance.now() - t0;
  if (r.kind !== 'input' || !out.endsWith('$ ')) throw new Error(`bench ${isa}: no shell prompt (${JSON.stringify(r)})\n${out}`);
  return { insns: m.instructions, ms };
}

/** Per-operation cost from runs at two sizes. */
async function perOp(isa, prog, small, large, opsPer, extra = []) {
  const a = await run(isa, [prog, String(small), ...extra]);
  const b = await run(isa, [prog, String(large), ...extra]);
  const ops = (large - small) * opsPer;
  return { insns: (b.insns - a.insns) / ops, us: ((b.ms - a.ms) * 1000) / ops };
}

const rows = [];
for (const isa of isas) {
  const boot = await bootToPrompt(isa);
  const sys = await perOp(isa, '/bin/syscallheavy', 1000, 6000, 4);
  const fork = await perOp(isa, '/bin/forkheavy', 10, 60, 1, ['exec']);
  const base = await run(isa, ['/bin/cpubound', '1']);
  const cpu = await run(isa, ['/bin/cpubound', '40']);
  const mips = (cpu.insns - base.insns) / ((cpu.ms - base.ms) / 1000) / 1e6;
  rows.push({ isa, boot, sys, fork, mips, cpuInsns: cpu.insns - base.insns });
}

const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const table = [
  ['', ...rows.map((r) => r.isa)],
  ['boot to shell prompt: guest instructions', ...rows.map((r) => fmt(r.boot.insns))],
  ['boot to shell prompt: wall ms', ...rows.map((r) => fmt(r.boot.ms))],
  ['system call round trip: guest instructions', ...rows.map((r) => fmt(r.sys.insns, 1))],
  ['system call round trip: wall µs', ...rows.map((r) => fmt(r.sys.us, 2))],
  ['fork+exec+wait: guest instructions', ...rows.map((r) => fmt(r.fork.insns))],
  ['fork+exec+wait: wall µs', ...rows.map((r) => fmt(r.fork.us))],
  ['cpubound (39 rounds): guest instructions', ...rows.map((r) => fmt(r.cpuInsns))],
  ['cpubound: guest MIPS', ...rows.map((r) => fmt(r.mips, 1))],
];
const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
console.log('machine bench (committed guest images, 1 CPU, 1 ns per instruction, release cores)');
for (const row of table) console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   '));
