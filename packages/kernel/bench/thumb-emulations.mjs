#!/usr/bin/env node
// node bench/thumb-emulations.mjs: the cost of a trap on the Thumb-2 guest
// performed by a Thumb emulation code against the same trap performed by
// displaced execution. A breakpoint goes over every instruction of the
// kernel's Thumb code that an emulation code covers (prologue and epilogue
// push/pop, bx lr, mov r7, sp, add r7, sp, #n, sub sp, #n, sp-relative
// ldr/str); syscallheavy runs with each way of performing them, alternated
// over several rounds in one process, and the untraced run is subtracted.
// Wall times on a shared machine are noise: the ratio within a round is
// the figure to quote.
import { ArmEmulation, DTRACE_BREAKPOINT_T16, DTRACE_BREAKPOINT_T32, createArmCore, walkT32 } from '@wdtrace/isa-arm-as';
import { Machine, STT_FUNC } from '../dist/index.js';

const ARGS = ['/bin/syscallheavy', '500'];
const ROUNDS = Number(process.argv[2] ?? 5);
const CODES = [ArmEmulation.T_PUSH, ArmEmulation.T_POP, ArmEmulation.T_BX_LR, ArmEmulation.T_MOV_FP_SP, ArmEmulation.T_ADD_FP_SP, ArmEmulation.T_SUB_SP, ArmEmulation.T_LDR_SP, ArmEmulation.T_STR_SP];
const core = await createArmCore('release');
const le16 = (h) => [h & 0xff, h >>> 8];

/** Runs syscallheavy on the Thumb guest; mode: 'none' (untraced), 'emulate' or 'displaced'. */
async function once(mode) {
  let out = '';
  const m = await Machine.create({ isa: 'arm', thumb: true, cmdline: 'quiet', args: ARGS, consoleOutput: (b) => (out += new TextDecoder().decode(b)) });
  let traps = 0;
  if (mode !== 'none') {
    const syms = m.kernel.symbols();
    const sites = new Map();
    for (const f of syms) {
      if (f.type !== STT_FUNC || f.size === 0 || (f.value & 1n) === 0n) continue;
      const start = f.value & ~1n;
      for (const line of walkT32(m.readText(start, f.size), Number(start & 0xffffffffn))) {
        if (line.insn.classes.has('undefined')) continue;
        const value = line.insn.word >>> 0;
        const code = CODES.find((c) => core.emulationMatches(c, value) === 1);
        if (code === undefined) continue;
        const va = BigInt(line.address >>> 0);
        const start2 = Number(va - start);
        sites.set(va, { code, value, bytes: m.readText(start, f.size).slice(start2, start2 + line.size) });
        m.writeText(va, Uint8Array.from(line.size === 2 ? le16(DTRACE_BREAKPOINT_T16) : [...le16(DTRACE_BREAKPOINT_T32 >>> 16), ...le16(DTRACE_BREAKPOINT_T32 & 0xffff)]));
      }
    }
    m.addInvopHandler((trap) => {
      const x = sites.get(trap.pc);
      if (!x) return undefined;
      traps++;
      return mode === 'emulate' ? { kind: 'emulate', code: x.code, word: x.value } : { kind: 'displaced', bytes: x.bytes };
    });
  }
  const t0 = performance.now();
  const r = await m.runUntilPowerOff({ instructions: 5_000_000_000 });
  const ms = performance.now() - t0;
  if (r.kind !== 'poweroff' || r.status !== 0) throw new Error(`${mode}: ${JSON.stringify(r)}\n${out}`);
  return { ms, traps, insns: m.instructions, out };
}

await once('none'); // warm-up: the engine's optimising tier
const rows = [];
for (let i = 0; i < ROUNDS; i++) {
  const base = await once('none');
  const emu = await once('emulate');
  const dis = await once('displaced');
  if (emu.out !== base.out || dis.out !== base.out || emu.insns !== base.insns || dis.insns !== base.insns) throw new Error('a traced run differs from the untraced one');
  const per = (r) => ((r.ms - base.ms) * 1e6) / r.traps;
  rows.push({ traps: emu.traps, emulate: per(emu), displaced: per(dis) });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const e = median(rows.map((r) => r.emulate));
const d = median(rows.map((r) => r.displaced));
const ratio = median(rows.map((r) => r.emulate / r.displaced));
console.log(`Thumb-2 guest, ${ARGS.join(' ')}: ${rows[0].traps} traps per run, ${ROUNDS} rounds (medians)`);
console.log(`  per trap, emulation code:      ${e.toFixed(0)} ns`);
console.log(`  per trap, displaced execution: ${d.toFixed(0)} ns`);
console.log(`  emulation / displaced, per round: ${rows.map((r) => (r.emulate / r.displaced).toFixed(2)).join(' ')} (median ${ratio.toFixed(2)})`);
