#!/usr/bin/env node
// npm run bench: the whole machine with the committed guest, per ISA —
// boot to the shell prompt, the cost of a system call, of fork+exec+wait, and
// guest MIPS on the cpubound workload. Per-operation figures come from two
// runs of a workload at different sizes (the difference cancels boot and
// start-up), so they are guest instructions and wall time per operation.
// A probe's trap round trip is the extra CPU time of syscallheavy with a
// breakpoint on do_syscall's first instruction, claimed by a handler that
// reads one word NOFAULT and has the instruction emulated (what an fbt
// entry probe asks of the machine), per trap, against the same run
// untraced (the traced guest retires exactly the same instructions).
// Wall times on a shared machine are noise; instruction counts are exact.
import { ArmEmulation, DTRACE_BREAKPOINT } from '@wdtrace/isa-arm-as';
import { X86Emulation } from '@wdtrace/isa-x86-as';
import { Machine, PORT_FACTORIES } from '../dist/index.js';

const isas = Object.keys(PORT_FACTORIES);

async function run(isa, args, options = {}, setup = () => {}) {
  let out = '';
  const m = await Machine.create({ isa, cmdline: 'quiet', args, consoleOutput: (b) => (out += new TextDecoder().decode(b)), ...options });
  setup(m);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const r = await m.runUntilPowerOff({ instructions: 5_000_000_000 });
  const cpu1 = process.cpuUsage(cpu0);
  const ms = performance.now() - t0;
  if (r.kind !== 'poweroff' || r.status !== 0) throw new Error(`bench ${isa} ${args.join(' ')}: ${JSON.stringify(r)}\n${out}`);
  return { insns: m.instructions, ms, cpuMs: (cpu1.user + cpu1.system) / 1000, out };
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

/**
 * Claims a breakpoint over do_syscall's first instruction (x86-64 int3 on
 * `push %rbp`, ARM the DTrace breakpoint on `push {..., lr}`): each trap
 * reads the word its argument (the saved registers) points to NOFAULT
 * (readWord) and has the instruction emulated. Returns the count of traps so far.
 */
function trapSyscalls(isa, m) {
  const at = m.symbols.byName('do_syscall', 'kernel').address;
  const original = m.readText(at, isa === 'arm' ? 4 : 1);
  let patch;
  let result;
  if (isa === 'arm') {
    const word = new DataView(original.buffer).getUint32(0, true);
    patch = new Uint8Array(4);
    new DataView(patch.buffer).setUint32(0, (DTRACE_BREAKPOINT | (word >>> 28)) >>> 0, true);
    result = { kind: 'emulate', code: ArmEmulation.PUSHM, word };
  } else {
    if (original[0] !== 0x55) throw new Error('bench x86_64: do_syscall does not start with push %rbp');
    patch = Uint8Array.of(0xcc);
    result = { kind: 'emulate', code: X86Emulation.pushRbp };
  }
  const argRegister = isa === 'arm' ? 0 : 7;
  const wordSize = isa === 'arm' ? 4 : 8;
  m.writeText(at, patch);
  let traps = 0;
  m.addInvopHandler((trap) => {
    if (trap.pc !== at) return undefined;
    if (m.readWord(m.registers(trap.cpu).get(argRegister), wordSize) === undefined) throw new Error(`bench ${isa}: do_syscall's argument faulted at 0x${m.wordFault.toString(16)}`);
    traps++;
    return result;
  });
  return () => traps;
}

/**
 * Extra time per trap of syscallheavy with trapSyscalls's breakpoint over
 * the same run untraced, best of `rounds` alternating pairs: CPU time of
 * this process, less disturbed by a loaded machine than wall time.
 */
async function trapCost(isa, rounds = 5) {
  const args = ['/bin/syscallheavy', '5000'];
  let plainMs = Infinity;
  let tracedMs = Infinity;
  let traps = 0;
  let insns = 0;
  for (let i = 0; i < rounds; i++) {
    const plain = await run(isa, args);
    let count = () => 0;
    const traced = await run(isa, args, {}, (m) => (count = trapSyscalls(isa, m)));
    if (traced.insns !== plain.insns || traced.out !== plain.out) throw new Error(`bench ${isa}: the traced run differs from the plain one`);
    plainMs = Math.min(plainMs, plain.cpuMs);
    tracedMs = Math.min(tracedMs, traced.cpuMs);
    traps = count();
    insns = plain.insns;
  }
  const ns = ((tracedMs - plainMs) * 1e6) / traps;
  return { ns, insns: ns / ((plainMs * 1e6) / insns), traps };
}

const rows = [];
for (const isa of isas) {
  const boot = await bootToPrompt(isa);
  const sys = await perOp(isa, '/bin/syscallheavy', 1000, 6000, 4);
  const fork = await perOp(isa, '/bin/forkheavy', 10, 60, 1, ['exec']);
  const base = await run(isa, ['/bin/cpubound', '1']);
  const cpu = await run(isa, ['/bin/cpubound', '40']);
  const mips = (cpu.insns - base.insns) / ((cpu.ms - base.ms) / 1000) / 1e6;
  const trap = await trapCost(isa);
  rows.push({ isa, boot, sys, fork, mips, cpuInsns: cpu.insns - base.insns, trap });
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
  ['probe trap round trip (claimed, one NOFAULT word read, emulated): CPU ns', ...rows.map((r) => fmt(r.trap.ns))],
  ['probe trap round trip: guest-instruction equivalents', ...rows.map((r) => fmt(r.trap.insns))],
];
const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
console.log('machine bench (committed guest images, 1 CPU, 1 ns per instruction, release cores)');
for (const row of table) console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   '));
