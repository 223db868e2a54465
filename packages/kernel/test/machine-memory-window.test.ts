// The machine's guest-memory window (guest-memory.ts) on a booted 2-CPU
// guest of each ISA: the bytes it names are guest RAM itself, and the
// translation registers it writes are those the machine's NOFAULT reads
// walk with (kernel reads: CPU 0's outside a turn, the turn's CPU's in one —
// machine-traps.test.ts; user reads: the given CPU's root).
import { describe, expect, it } from 'vitest';
import { ArmPort, DEVICE_BASE, DEVICE_SIZE, TRANSLATION_WORDS, type Isa } from '../src/index.js';
import { guestMachine } from './machine-support.js';

describe.each(['x86_64', 'arm'] as const)('the guest-memory window of a %s machine', (isa: Isa) => {
  it('names guest RAM in the core\'s memory and the registers of the NOFAULT reads', async () => {
    const { machine } = await guestMachine(isa, { cpus: 2, args: ['/bin/syscallheavy', '100000'] });
    for (let slice = 0; slice < 400; slice++) machine.run({ instructions: 20_000 });
    const w = machine.memoryWindow()!;
    expect(w.translation).toBe(isa === 'x86_64' ? 'x86-64' : 'armv7-short');
    expect([w.deviceStart, w.deviceEnd]).toEqual([DEVICE_BASE, DEVICE_BASE + DEVICE_SIZE]);
    // The same bytes: a write through one view is seen through the other.
    const ram = machine.port.ram();
    expect(w.ramBytes).toBe(ram.length);
    const mine = new Uint8Array(w.memory.buffer, w.ramOffset, w.ramBytes);
    const at = 0x3f_fff0;
    const before = ram[at]!;
    mine[at] = before ^ 0xff;
    expect(ram[at]).toBe(before ^ 0xff);
    mine[at] = before;

    const words = new Uint32Array(2 + TRANSLATION_WORDS).fill(0xdead);
    w.translationRegisters(words, 2, undefined);
    // Word 1 is left alone without a user CPU.
    expect(words[3]).toBe(0xdead);
    const roots = [0, 1].map((cpu) => machine.registers(cpu).pageTableRoot());
    expect(roots[0]).not.toBe(roots[1]);
    w.translationRegisters(words, 2, 1);
    if (isa === 'x86_64') {
      const table = (cr3: bigint) => Number(cr3 & 0x000f_ffff_ffff_f000n);
      expect([...words.subarray(2)]).toEqual([table(roots[0]!), table(roots[1]!), 0xdead, 0xdead, 0xdead, 0xdead]);
    } else {
      const port = machine.port as ArmPort;
      // SCTLR, TTBCR, TTBR1, DACR of CPU 0 (isa-arm-as's state block offsets).
      const cp15 = [224, 236, 232, 240].map((offset) => port.stateWord(0, offset));
      expect([...words.subarray(2)]).toEqual([Number(roots[0]), Number(roots[1]), ...cp15]);
      expect(cp15[0]! & 1).toBe(1); // the MMU is on
    }
  }, 120_000);
});
