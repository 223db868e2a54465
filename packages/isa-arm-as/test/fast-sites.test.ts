// Fast probe sites (assembly/fastsite.ts, src/fast-sites.ts): at a DTrace
// breakpoint registered as a fast site, the core calls the site's filter
// with r0-r3 and, when it answers 0, performs the displaced instruction
// itself and runs on, counting the firing, without calling the host; any
// other answer, a CPU past its retired limit or the switch off takes the
// host's trap path. Registers and retired counts end as with the host
// handling every trap by trap stops.
import { describe, expect, it } from 'vitest';
import { ArmEmulation, ArmFastSites, createArmCore, StopReason, type ArmCoreExports, type ArmFastFilter, type WasmBuild } from '../src/index.js';
import { BREAKPOINT, PUSH, RAM, expectSameCpu0, runByTrapStops, u, words } from './breakpoint-loop.js';


/**
 * f called n times with r0 = n, n-1, ..., 1; f's push (0x8020) is the breakpoint; bkpt at the end:
 *   0x8000 ldr r4, [pc, #36] ; mov r0, r4 ; bl f ; subs r4, r4, #1 ; bne 0x8004 ; bkpt #0 ; nop ; nop
 *   0x8020 f: <push {r11, lr}> ; add r5, r5, #1 ; pop {r11, pc}
 *   0x802c .word n
 */
function program(core: ArmCoreExports, n: number, patched = true): void {
  words(core, 0x8000, [0xe59f4024, 0xe1a00004, 0xeb000004, 0xe2544001, 0x1afffffb, 0xe1200070, 0xe320f000, 0xe320f000]);
  words(core, 0x8020, [patched ? BREAKPOINT : PUSH, 0xe2855001, 0xe8bd8800, n]);
  core.setReg(0, 13, 0x80000);
  core.setReg(0, 5, 0);
  core.setReg(0, 15, 0x8000);
}

/** A filter that lets only firings with r0 == `pass` through to the host. */
function filterPassing(pass: number): ArmFastFilter {
  const bytes = Uint8Array.of(
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x0a, 0x01, 0x60, 0x05, 0x7f, 0x7e, 0x7e, 0x7e, 0x7e, 0x01, 0x7f, // type (i32 i64 i64 i64 i64) -> i32
    0x03, 0x02, 0x01, 0x00,
    0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, // export "f"
    0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x01, 0x42, pass, 0x51, 0x0b, // local.get 1; i64.const pass; i64.eq
  );
  return new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports['f'] as ArmFastFilter;
}


describe.each<WasmBuild>(['debug', 'release'])('fast probe sites (%s build)', (build) => {
  async function traced(setup: (sites: ArmFastSites) => void) {
    let core!: ArmCoreExports;
    const trapped: number[] = [];
    core = await createArmCore(build, {
      trap: (cpu, reason) => {
        if (reason !== StopReason.DTRACE_BREAKPOINT) return -1;
        trapped.push(u(core.getReg(cpu, 0)));
        core.clearPending(cpu);
        core.emulate(cpu, ArmEmulation.PUSHM, PUSH, core.stopPc(cpu));
        return 1_000_000;
      },
    });
    expect(core.init(1, RAM)).toBe(0);
    program(core, 5);
    core.setTrapHook(1);
    const sites = new ArmFastSites(core);
    setup(sites);
    expect(core.run(0, 1_000_000)).toBe(StopReason.TRAPPED);
    return { core, trapped, sites };
  }

  it('performs the displaced instruction itself where the filter answers 0, and ends as the host path does', async () => {
    const { core, trapped, sites } = await traced((s) => {
      expect(s.set(0x8020, filterPassing(2), { kind: 'emulate', code: ArmEmulation.PUSHM, word: PUSH })).toBe(true);
      s.setLimit(0, Infinity);
      s.enable(true);
    });
    expect(trapped).toEqual([2]);
    expect(sites.firings(0x8020)).toBe(4);
    expectSameCpu0(core, await runByTrapStops(build, (plain) => program(plain, 5)));
    // Taken out: its count comes back, and the breakpoint goes to the host again.
    expect(sites.remove(0x8020)).toBe(4);
    expect(sites.firings(0x8020)).toBe(0);
  });

  it('runs the displaced bytes in place of an emulation code', async () => {
    const bytes = Uint8Array.of(PUSH & 0xff, (PUSH >>> 8) & 0xff, (PUSH >>> 16) & 0xff, PUSH >>> 24);
    const { core, trapped, sites } = await traced((s) => {
      s.set(0x8020, filterPassing(9), { kind: 'displaced', bytes });
      s.setLimit(0, Infinity);
      s.enable(true);
    });
    expect(trapped).toEqual([]);
    expect(sites.firings(0x8020)).toBe(5);
    expect(u(core.getReg(0, 5))).toBe(5);
    expect(u(core.getReg(0, 13))).toBe(0x80000);
  });

  it('leaves every trap to the host while switched off, past the CPU limit, or when the class does not fit', async () => {
    const off = await traced((s) => {
      s.set(0x8020, filterPassing(9), { kind: 'emulate', code: ArmEmulation.PUSHM, word: PUSH });
      s.setLimit(0, Infinity);
    });
    expect(off.trapped).toEqual([5, 4, 3, 2, 1]);
    // The limit is the retired count the fast path stops at: ldr, mov, bl, then 7 a call.
    const limited = await traced((s) => {
      s.set(0x8020, filterPassing(9), { kind: 'emulate', code: ArmEmulation.PUSHM, word: PUSH });
      s.setLimit(0, 3 + 7 * 2);
      s.enable(true);
    });
    expect(limited.trapped).toEqual([3, 2, 1]);
    expect(limited.sites.firings(0x8020)).toBe(2);
    await traced((s) => expect(s.set(0x8020, filterPassing(9), { kind: 'emulate', code: ArmEmulation.POPM, word: PUSH })).toBe(false));
  });
});
