// Traps taken inside the run (setTrapHook): the host's trap callback is
// called from inside run() with the stop recorded and the instructions
// before it retired, may call the core's exports (emulate, another CPU's
// accessors, a TLB flush), and the run goes on for as many instructions as
// it answers, or ends with TRAPPED; run() is refused inside it, a callback
// that throws leaves the core usable, and a code page the callback unmaps
// is not executed from the run's cached fetch page. Each case runs on both
// builds and, where it matters, is compared with the same program handled
// by trap stops (run() returning and called again).
import { describe, expect, it } from 'vitest';
import { ArmEmulation, createArmCore, StopReason, writeRam, type ArmCoreExports, type WasmBuild } from '../src/index.js';
import { BREAKPOINT, PUSH, RAM, expectSameCpu0, retired, runByTrapStops, u, words } from './breakpoint-loop.js';


/**
 * A loop calling f `n` times, whose first instruction (a push, at 0x8020)
 * is the DTrace breakpoint; bkpt after the loop:
 *   0x8000 ldr r4, [pc, #32] ; bl f ; subs r4, r4, #1 ; bne 0x8004 ; bkpt #0 ; nop x3
 *   0x8020 f: <push {r11, lr}> ; add r5, r5, #1 ; pop {r11, pc}
 *   0x802c .word n
 */
function program(core: ArmCoreExports, n: number, cpu = 0, patched = true): void {
  words(core, 0x8000, [0xe59f4024, 0xeb000005, 0xe2544001, 0x1afffffc, 0xe1200070, 0xe320f000, 0xe320f000, 0xe320f000]);
  words(core, 0x8020, [patched ? BREAKPOINT : PUSH, 0xe2855001, 0xe8bd8800, n]);
  core.setReg(cpu, 13, 0x80000 - cpu * 0x1000);
  core.setReg(cpu, 5, 0);
  core.setReg(cpu, 15, 0x8000);
}


describe.each<WasmBuild>(['debug', 'release'])('traps taken inside the run (%s build)', (build) => {
  it('calls the host with the stop recorded, and the run goes on after an emulation as after trap stops', async () => {
    let core!: ArmCoreExports;
    const seen: { cpu: number; reason: number; pc: number; word: number; retired: number; r15: number }[] = [];
    core = await createArmCore(build, {
      trap: (cpu, reason) => {
        seen.push({ cpu, reason, pc: u(core.stopPc(cpu)), word: u(core.stopWord(cpu)), retired: retired(core, cpu), r15: u(core.getReg(cpu, 15)) });
        if (reason !== StopReason.DTRACE_BREAKPOINT) return -1;
        core.clearPending(cpu);
        expect(core.emulate(cpu, ArmEmulation.PUSHM, PUSH, core.stopPc(cpu))).toBe(0);
        return 1_000_000;
      },
    });
    expect(core.init(1, RAM)).toBe(0);
    program(core, 5);
    core.setTrapHook(1);
    expect(core.run(0, 1_000_000)).toBe(StopReason.TRAPPED);
    expect(core.stopReason(0)).toBe(StopReason.TRAPPED);
    expect(seen.map((s) => s.reason)).toEqual([...Array<number>(5).fill(StopReason.DTRACE_BREAKPOINT), StopReason.BKPT]);
    // Each breakpoint is seen where it stands, with r15 on it, after the instructions before it retired:
    // ldr, bl (2), then 6 a call (subs, bne, bl, the emulated push, add, pop).
    expect(seen.slice(0, 5).map((s) => [s.pc, s.word, s.r15, s.retired])).toEqual([0, 1, 2, 3, 4].map((i) => [0x8020, BREAKPOINT, 0x8020, 2 + 6 * i]));
    expect(seen[5]).toMatchObject({ pc: 0x8010, r15: 0x8010, retired: 2 + 6 * 4 + 5 });
    expect(u(core.getReg(0, 5))).toBe(5);
    expect(u(core.getReg(0, 13))).toBe(0x80000);

    // The same program with trap stops: run() returns at each trap and is called again.
    expectSameCpu0(core, await runByTrapStops(build, (plain) => program(plain, 5)));
  });

  it('runs as many more instructions as the host answers, counted from the trap', async () => {
    let core!: ArmCoreExports;
    core = await createArmCore(build, {
      trap: (cpu) => {
        core.clearPending(cpu);
        core.emulate(cpu, ArmEmulation.PUSHM, PUSH, core.stopPc(cpu));
        return 3; // add, pop, subs
      },
    });
    expect(core.init(1, RAM)).toBe(0);
    program(core, 5);
    core.setTrapHook(1);
    expect(core.run(0, 1_000_000)).toBe(StopReason.BUDGET);
    // ldr, bl; the emulated push; add, pop, subs.
    expect(retired(core, 0)).toBe(6);
    expect(u(core.getReg(0, 15))).toBe(0x800c);
    expect(u(core.getReg(0, 4))).toBe(4);
  });

  it('lets the host act on another CPU inside the callback and goes on with the trapping one', async () => {
    let core!: ArmCoreExports;
    const other: number[] = [];
    core = await createArmCore(build, {
      trap: (cpu, reason) => {
        if (reason !== StopReason.DTRACE_BREAKPOINT) return -1;
        // Another CPU's state, read and written through the accessors (which select it).
        other.push(u(core.getReg(1 - cpu, 5)));
        core.setReg(1 - cpu, 6, u(core.getReg(1 - cpu, 6)) + 1);
        core.clearPending(cpu);
        core.emulate(cpu, ArmEmulation.PUSHM, PUSH, core.stopPc(cpu));
        return 1_000_000;
      },
    });
    expect(core.init(2, RAM)).toBe(0);
    program(core, 4, 0);
    program(core, 4, 1);
    core.setReg(0, 6, 0);
    core.setReg(1, 6, 0);
    core.setTrapHook(1);
    expect(core.run(1, 1_000_000)).toBe(StopReason.TRAPPED);
    expect(core.run(0, 1_000_000)).toBe(StopReason.TRAPPED);
    // CPU 1's four traps saw CPU 0 before it ran; CPU 0's four saw CPU 1's finished count.
    expect(other).toEqual([0, 0, 0, 0, 4, 4, 4, 4]);
    expect([u(core.getReg(0, 5)), u(core.getReg(1, 5))]).toEqual([4, 4]);
    expect([u(core.getReg(0, 6)), u(core.getReg(1, 6))]).toEqual([4, 4]);
    expect([u(core.getReg(0, 13)), u(core.getReg(1, 13))]).toEqual([0x80000, 0x7f000]);
    expect([u(core.getReg(0, 15)), u(core.getReg(1, 15))]).toEqual([0x8010, 0x8010]);
  });

  it('refuses run() inside the callback, and a callback that throws leaves the core usable', async () => {
    let core!: ArmCoreExports;
    let calls = 0;
    core = await createArmCore(build, {
      trap: (cpu, reason) => {
        if (reason !== StopReason.DTRACE_BREAKPOINT) return -1;
        calls++;
        expect(core.run(cpu, 10)).toBe(StopReason.UNDEFINED);
        if (calls === 2) throw new Error('handler failed');
        core.clearPending(cpu);
        core.emulate(cpu, ArmEmulation.PUSHM, PUSH, core.stopPc(cpu));
        return 1_000_000;
      },
    });
    expect(core.init(1, RAM)).toBe(0);
    program(core, 3);
    core.setTrapHook(1);
    expect(() => core.run(0, 1_000_000)).toThrow('handler failed');
    // Stopped on the second breakpoint, what ran before it retired.
    expect(u(core.getReg(0, 15))).toBe(0x8020);
    expect(retired(core, 0)).toBe(2 + 6);
    // The next run takes that trap again and goes on to the end.
    expect(core.run(0, 1_000_000)).toBe(StopReason.TRAPPED);
    expect(calls).toBe(4);
    expect(u(core.getReg(0, 5))).toBe(3);
    expect(retired(core, 0)).toBe(2 + 6 * 2 + 5);
  });

  it('does not run on from the cached fetch page of code the callback unmapped', async () => {
    let core!: ArmCoreExports;
    core = await createArmCore(build, {
      trap: (cpu, reason) => {
        if (reason !== StopReason.DTRACE_BREAKPOINT) return -1;
        core.clearPending(cpu);
        core.emulate(cpu, ArmEmulation.ANY, 0xe320f000, core.stopPc(cpu)); // a nop in the breakpoint's place
        // The page of the code, 0x00401000, unmapped and its translation dropped (as the guest's tlbi would).
        words(core, 0x104004, [0]);
        core.flushTlb(cpu);
        return 1_000_000;
      },
    });
    expect(core.init(1, RAM)).toBe(0);
    // 0x100000: the first MB a full-access section (the vectors), 0x00400000 a page table at 0x104000
    // whose page 1 (0x00401000) is PA 0x301000, full access.
    const l1 = new Uint32Array(4096);
    l1[0] = (3 << 10) | 2;
    l1[4] = 0x104000 | 1;
    writeRam(core, 0x100000, new Uint8Array(l1.buffer));
    words(core, 0x104000, [0, (0x301000 | (3 << 4) | 2) >>> 0]);
    // 0x00401000: <breakpoint> ; mov r7, #1 ; bkpt
    words(core, 0x301000, [BREAKPOINT, 0xe3a07001, 0xe1200070]);
    // mcr TTBR0 ; mcr DACR ; mrc SCTLR ; orr #1 ; mcr SCTLR ; isb ; mov pc, r3
    words(core, 0x8000, [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, 0xe1a0f003]);
    core.setReg(0, 0, 0x100000);
    core.setReg(0, 1, 1);
    core.setReg(0, 3, 0x401000);
    core.setReg(0, 7, 0);
    core.setReg(0, 15, 0x8000);
    core.setTrapHook(1);
    // The next instruction's fetch aborts (a translation fault there), and the abort stops the run.
    expect(core.run(0, 1_000)).toBe(StopReason.PREFETCH_ABORT);
    expect(u(core.stopPc(0))).toBe(0x401004);
    expect(u(core.faultAddress(0))).toBe(0x401004);
    expect(u(core.getReg(0, 7))).toBe(0);
  });

  it('is refused by a core created without a trap callback', async () => {
    const core = await createArmCore(build);
    expect(() => core.setTrapHook(1)).toThrow('without a trap callback');
    core.setTrapHook(0);
  });
});
