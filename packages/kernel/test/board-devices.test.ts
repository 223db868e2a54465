import { describe, expect, it } from 'vitest';
import {
  Board,
  CONSOLE_BASE,
  INITRD_BASE,
  INTC_BASE,
  POWER_BASE,
  SMP_BASE,
  TIMER_BASE,
  type BoardHost,
  type CpuStartRequest,
  isDeviceAddress,
} from '../src/board/index.js';

function makeBoard(cpuCount = 2, input: number[] = []) {
  let now = 0;
  const out: number[] = [];
  const started: CpuStartRequest[] = [];
  const logs: string[] = [];
  let power: [number, boolean] | undefined;
  let closed = false;
  const host: BoardHost = {
    consoleOutput: (b) => out.push(b),
    consoleInput: () => (input.length ? input.shift()! : -1),
    consoleInputReady: () => input.length > 0,
    consoleInputClosed: () => closed,
    startCpu: (r) => started.push(r),
    powerOff: (s, p) => (power = [s, p]),
    log: (m) => logs.push(m),
  };
  const board = new Board({ cpuCount, nsPerInsn: 1, initrdBase: 0x1f00_0000, initrdSize: 0x12345 }, { now: () => now }, host);
  return {
    board,
    out,
    started,
    logs,
    input,
    setNow: (t: number) => (now = t),
    close: () => (closed = true),
    power: () => power,
  };
}

describe('virt board devices', () => {
  it('knows the device window', () => {
    expect(isDeviceAddress(0xf000_0000)).toBe(true);
    expect(isDeviceAddress(0xf0ff_ffff)).toBe(true);
    expect(isDeviceAddress(0xf100_0000)).toBe(false);
    expect(isDeviceAddress(0xefff_ffff)).toBe(false);
  });

  it('console: TX writes bytes, RX pops, STATUS reports ready and EOF', () => {
    const t = makeBoard(1, [0x41]);
    t.board.mmioWrite(0, CONSOLE_BASE, 4, 0x1234_5668);
    expect(t.out).toEqual([0x68]);
    expect(t.board.mmioRead(0, CONSOLE_BASE + 8, 4)).toBe(3);
    expect(t.board.mmioRead(0, CONSOLE_BASE + 4, 4)).toBe(0x41);
    expect(t.board.mmioRead(0, CONSOLE_BASE + 4, 4)).toBe(0xffff_ffff);
    expect(t.board.mmioRead(0, CONSOLE_BASE + 8, 4)).toBe(2);
    t.close();
    expect(t.board.mmioRead(0, CONSOLE_BASE + 8, 4)).toBe(6);
  });

  it('console input raises IRQ 1 on CPU 0 only while enabled and waiting', () => {
    const t = makeBoard(2, [1, 2]);
    t.board.mmioWrite(0, INTC_BASE + 0x0c, 4, 0b10);
    t.board.mmioWrite(1, INTC_BASE + 0x0c, 4, 0b10);
    t.board.update();
    expect(t.board.interruptAsserted(0)).toBe(false);
    t.board.mmioWrite(0, CONSOLE_BASE + 0x0c, 4, 1);
    t.board.update();
    expect(t.board.interruptAsserted(0)).toBe(true);
    expect(t.board.interruptAsserted(1)).toBe(false);
    expect(t.board.mmioRead(0, INTC_BASE + 0x10, 4)).toBe(1);
    expect(t.board.interruptAsserted(0)).toBe(false);
  });

  it('timer: time latches HI on LO reads; a deadline fires once on its CPU', () => {
    const t = makeBoard(2);
    t.setNow(0x1_2345_6789);
    expect(t.board.mmioRead(1, TIMER_BASE, 4)).toBe(0x2345_6789);
    t.setNow(0x2_0000_0000);
    expect(t.board.mmioRead(1, TIMER_BASE + 4, 4)).toBe(1);
    t.board.mmioWrite(1, TIMER_BASE + 8, 4, 0x0000_1000);
    t.board.mmioWrite(1, TIMER_BASE + 0x0c, 4, 3);
    t.board.mmioWrite(1, INTC_BASE + 0x0c, 4, 1);
    t.board.mmioWrite(1, TIMER_BASE + 0x10, 4, 1);
    expect(t.board.nextDeadline()).toBe(3 * 2 ** 32 + 0x1000);
    t.board.update();
    expect(t.board.interruptAsserted(1)).toBe(false);
    t.setNow(3 * 2 ** 32 + 0x1000);
    t.board.update();
    expect(t.board.interruptAsserted(1)).toBe(true);
    expect(t.board.interruptAsserted(0)).toBe(false);
    expect(t.board.mmioRead(1, TIMER_BASE + 0x10, 4)).toBe(0);
    t.board.mmioWrite(1, INTC_BASE + 0x14, 4, 1);
    t.board.update();
    expect(t.board.interruptAsserted(1)).toBe(false);
    expect(t.board.nextDeadline()).toBeUndefined();
  });

  it('timer: a deadline in the past fires as soon as it is armed', () => {
    const t = makeBoard(1);
    t.setNow(500);
    t.board.mmioWrite(0, INTC_BASE + 0x0c, 4, 1);
    t.board.mmioWrite(0, TIMER_BASE + 8, 4, 100);
    t.board.mmioWrite(0, TIMER_BASE + 0x10, 4, 1);
    expect(t.board.lowestAssertedLine(0)).toBe(0);
  });

  it('interrupt controller: ids, claim order, IPIs', () => {
    const t = makeBoard(3);
    expect(t.board.mmioRead(2, INTC_BASE, 4)).toBe(2);
    expect(t.board.mmioRead(0, INTC_BASE + 4, 4)).toBe(3);
    t.board.mmioWrite(0, INTC_BASE + 0x18, 4, 0b1110);
    expect(t.board.mmioRead(0, INTC_BASE + 8, 4)).toBe(0);
    expect(t.board.mmioRead(1, INTC_BASE + 8, 4)).toBe(4);
    expect(t.board.mmioRead(2, INTC_BASE + 8, 4)).toBe(4);
    expect(t.board.mmioRead(1, INTC_BASE + 0x10, 4)).toBe(0xffff_ffff);
    t.board.mmioWrite(1, INTC_BASE + 0x0c, 4, 0b101);
    t.board.raise(1, 0);
    expect(t.board.mmioRead(1, INTC_BASE + 0x10, 4)).toBe(0);
    expect(t.board.mmioRead(1, INTC_BASE + 0x10, 4)).toBe(2);
    expect(t.board.mmioRead(1, INTC_BASE + 0x10, 4)).toBe(0xffff_ffff);
  });

  it('initrd window, power-off and panic', () => {
    const t = makeBoard(1);
    expect(t.board.mmioRead(0, INITRD_BASE, 4)).toBe(0x1f00_0000);
    expect(t.board.mmioRead(0, INITRD_BASE + 8, 4)).toBe(0x12345);
    t.board.mmioWrite(0, POWER_BASE, 4, 0x103);
    expect(t.power()).toEqual([3, false]);
    t.board.mmioWrite(0, POWER_BASE + 4, 4, 7);
    expect(t.power()).toEqual([7, true]);
  });

  it('starts secondary CPUs once, with the registers copied at START', () => {
    const t = makeBoard(2);
    const regs = [0x8000_1000, 0xffff_ffff, 0x9000, 0, 42, 0, 0x2000, 0];
    regs.forEach((v, i) => t.board.mmioWrite(0, SMP_BASE + i * 4, 4, v));
    t.board.mmioWrite(0, SMP_BASE + 0x20, 4, 1);
    t.board.mmioWrite(0, SMP_BASE + 0x20, 4, 1);
    t.board.mmioWrite(0, SMP_BASE + 0x20, 4, 0);
    t.board.mmioWrite(0, SMP_BASE + 0x20, 4, 5);
    expect(t.started).toEqual([{ cpu: 1, entry: 0xffff_ffff_8000_1000n, stack: 0x9000n, arg: 42n, pageTable: 0x2000n }]);
    expect(t.board.mmioRead(0, SMP_BASE + 0x24, 4)).toBe(3);
  });

  it('ignores and reports non-32-bit or unaligned accesses once', () => {
    const t = makeBoard(1, [9]);
    expect(t.board.mmioRead(0, CONSOLE_BASE + 4, 1)).toBe(0);
    expect(t.board.mmioRead(0, CONSOLE_BASE + 4, 1)).toBe(0);
    t.board.mmioWrite(0, CONSOLE_BASE + 2, 4, 0x41);
    expect(t.out).toEqual([]);
    expect(t.input).toEqual([9]);
    expect(t.logs).toHaveLength(2);
    expect(t.logs[0]).toContain('1-byte read at 0xf0000004');
  });

  it('rejects impossible CPU counts', () => {
    expect(() => new Board({ cpuCount: 9, nsPerInsn: 1, initrdBase: 0, initrdSize: 0 }, { now: () => 0 }, {} as BoardHost)).toThrow(/1 to 8/);
  });
});
