// Trap interposition on the Thumb-2 build of the ARM guest: a breakpoint
// over every instruction of the kernel's Thumb code that one of the core's
// Thumb emulation codes covers (push/pop of the prologues and epilogues,
// bx lr, mov r7, sp, add r7, sp, #n, sub sp, #n, sp-relative ldr/str,
// conditional ones in IT blocks included), each performed by its code:
// the run is identical to an untraced one, instruction for instruction.
import { ArmEmulation, DTRACE_BREAKPOINT_T16, DTRACE_BREAKPOINT_T32, createArmCore, walkT32 } from '@wdtrace/isa-arm-as';
import { describe, expect, it } from 'vitest';
import { STT_FUNC } from '../src/index.js';
import { armMachine, runArm } from './machine-arm-support.js';

const LIMIT = { instructions: 200_000_000 };
const THUMB_CODES = [
  ArmEmulation.T_PUSH, ArmEmulation.T_POP, ArmEmulation.T_BX_LR, ArmEmulation.T_MOV_FP_SP,
  ArmEmulation.T_ADD_FP_SP, ArmEmulation.T_SUB_SP, ArmEmulation.T_LDR_SP, ArmEmulation.T_STR_SP,
];
const le16 = (h: number): number[] => [h & 0xff, h >>> 8];

describe('ARM machine (Thumb-2 guest): trap interposition', () => {
  it('every prologue and epilogue instruction of the Thumb kernel, by its Thumb emulation code: the run is identical', async () => {
    const args = ['/bin/sh', '-c', 'echo one | cat; forkheavy 3; syscallheavy 20; ls /etc | wc -l'];
    const plain = await runArm(args, { thumb: true });
    const { machine: m, output } = await armMachine({ cmdline: 'quiet', args, thumb: true });
    const core = await createArmCore('release'); // the core's own class check picks each site's code
    const syms = m.kernel.symbols();
    const data = syms.filter((s) => s.name.startsWith('$d')).map((s) => s.value);
    const code = syms.filter((s) => s.name.startsWith('$t') || s.name.startsWith('$a')).map((s) => s.value);
    const isData = (va: bigint): boolean => {
      const below = (list: bigint[]): bigint => list.reduce((best, v) => (v <= va && v > best ? v : best), -1n);
      return below(data) > below(code);
    };
    const sites = new Map<bigint, { code: number; value: number; size: number }>();
    for (const f of syms) {
      if (f.type !== STT_FUNC || f.size === 0 || (f.value & 1n) === 0n) continue; // Thumb functions only
      const start = f.value & ~1n;
      const text = m.readText(start, f.size);
      for (const line of walkT32(text, Number(start & 0xffffffffn))) {
        const va = BigInt(line.address >>> 0);
        if (isData(va) || line.insn.classes.has('undefined')) continue;
        const value = line.insn.word >>> 0;
        const c = THUMB_CODES.find((x) => core.emulationMatches(x, value) === 1);
        if (c !== undefined) sites.set(va, { code: c, value, size: line.size });
      }
    }
    expect(sites.size).toBeGreaterThan(1000);
    for (const [va, x] of sites) {
      const bp = x.size === 2 ? le16(DTRACE_BREAKPOINT_T16) : [...le16(DTRACE_BREAKPOINT_T32 >>> 16), ...le16(DTRACE_BREAKPOINT_T32 & 0xffff)];
      m.writeText(va, Uint8Array.from(bp));
    }
    const hits = new Map<number, number>();
    m.addInvopHandler((trap) => {
      const x = sites.get(trap.pc);
      if (!x) return undefined;
      hits.set(x.code, (hits.get(x.code) ?? 0) + 1);
      return { kind: 'emulate', code: x.code, word: x.value };
    });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toBe(plain.output);
    expect(m.instructions).toBe(plain.machine.instructions);
    for (const c of [ArmEmulation.T_PUSH, ArmEmulation.T_POP, ArmEmulation.T_MOV_FP_SP, ArmEmulation.T_LDR_SP, ArmEmulation.T_STR_SP, ArmEmulation.T_SUB_SP]) {
      expect(hits.get(c) ?? 0, `hits of code ${c}`).toBeGreaterThan(100);
    }
  }, 600_000);
});
