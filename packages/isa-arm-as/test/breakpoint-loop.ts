// Pieces the breakpoint tests share (trap-hook, fast-sites): a guest loop
// calling a function whose first instruction is the DTrace breakpoint, and
// the reference run of such a program with the host handling every trap
// by trap stops (run() returning at each and called again).
import { expect } from 'vitest';
import { ArmEmulation, createArmCore, DTRACE_BREAKPOINT, StopReason, writeRam, type ArmCoreExports, type WasmBuild } from '../src/index.js';

export const RAM = 4 << 20;
export const PUSH = 0xe92d4800; // push {r11, lr}
export const BREAKPOINT = (DTRACE_BREAKPOINT | 0xe) >>> 0; // the DTrace breakpoint, condition AL

export function words(core: ArmCoreExports, at: number, list: number[]): void {
  const bytes = new Uint8Array(list.length * 4);
  const view = new DataView(bytes.buffer);
  list.forEach((w, i) => view.setUint32(i * 4, w, true));
  writeRam(core, at, bytes);
}

export const u = (v: number) => v >>> 0;
export const retired = (core: ArmCoreExports, cpu: number) => u(core.retiredHigh(cpu)) * 2 ** 32 + u(core.retiredLow(cpu));

/** A fresh one-CPU core of `build` with `load` run on it, run to its bkpt with every breakpoint handled by a trap stop that emulates the push. */
export async function runByTrapStops(build: WasmBuild, load: (core: ArmCoreExports) => void): Promise<ArmCoreExports> {
  const plain = await createArmCore(build);
  expect(plain.init(1, RAM)).toBe(0);
  load(plain);
  let reason: number;
  while ((reason = plain.run(0, 1_000_000)) === StopReason.DTRACE_BREAKPOINT) {
    plain.clearPending(0);
    plain.emulate(0, ArmEmulation.PUSHM, PUSH, plain.stopPc(0));
  }
  expect(reason).toBe(StopReason.BKPT);
  return plain;
}

/** CPU 0 of `a` and `b` retired as many instructions and ended with the same registers and CPSR. */
export function expectSameCpu0(a: ArmCoreExports, b: ArmCoreExports): void {
  expect(retired(a, 0)).toBe(retired(b, 0));
  for (let n = 0; n < 16; n++) expect(u(a.getReg(0, n))).toBe(u(b.getReg(0, n)));
  expect(u(a.getCpsr(0))).toBe(u(b.getCpsr(0)));
}
