// Trap interposition on the ARM machine beyond what both ISAs share
// (machine-traps.test.ts): the DTrace breakpoint carries the displaced
// instruction's condition, so a conditional site fires only when its
// condition passes; an emulation code must fit the displaced word; every
// entry, return and instruction of busy kernel paths emulated or displaced
// leaves the run identical, on one CPU and on four; a breakpoint in a
// process's own text traps in user mode.
import { ArmEmulation, DTRACE_BREAKPOINT, describeA32 } from '@wdtrace/isa-arm-as';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Machine, STT_FUNC, parseElf } from '../src/index.js';
import { IMAGES_DIR, readCpio } from './guest-support.js';
import { armMachine, runArm } from './machine-arm-support.js';

const LIMIT = { instructions: 200_000_000 };
const word = (bytes: Uint8Array): number => new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
const bytesOf = (w: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, w >>> 0, true);
  return b;
};
/** The DTrace breakpoint carrying `original`'s condition field. */
const breakpointFor = (original: number): number => (DTRACE_BREAKPOINT | (original >>> 28)) >>> 0;

function fn(m: Machine, name: string): bigint {
  const s = m.symbols.byName(name, 'kernel');
  if (!s) throw new Error(`no ${name}`);
  return s.address;
}

async function machineWith(args: string[], consoleInput = ''): Promise<{ m: Machine; out: () => string }> {
  const { machine, output } = await armMachine({ cmdline: 'quiet', args, consoleInput });
  return { m: machine, out: output };
}

describe('ARM machine: trap interposition', () => {
  it('traps and emulations on every CPU of a 4-CPU machine leave every program\'s results as untraced', async () => {
    const script = 'syscallheavy 300 & forkheavy 20 & cpubound 1 & syscallheavy 200; sleep 1; echo end';
    const plain = await runArm(['/bin/sh', '-c', script], { cpus: 4 });
    const { machine: m, output } = await armMachine({ cmdline: 'quiet', cpus: 4, args: ['/bin/sh', '-c', script] });
    const at = fn(m, 'schedule'); // every CPU schedules
    const original = m.readText(at, 4);
    expect(describeA32(word(original)).text).toMatch(/^push\t/);
    m.writeText(at, bytesOf(breakpointFor(word(original))));
    const perCpu = [0, 0, 0, 0];
    m.addInvopHandler((trap) => {
      if (trap.pc !== at) return undefined;
      perCpu[trap.cpu]!++;
      return { kind: 'emulate', code: ArmEmulation.PUSHM, word: word(original) };
    });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    // Same programs, same results. The order of lines may differ: a trap ends its CPU's turn early, so the
    // CPUs interleave differently than untraced (with one CPU the run is identical, see the first test);
    // so may the pids the shell prints for its background jobs ("[N]"), forkheavy forking alongside.
    const lines = (text: string) => text.split('\n').map((l) => l.replace(/^\[\d+\]$/, '[pid]')).sort();
    expect(lines(output())).toEqual(lines(plain.output));
    expect(output()).toContain('syscallheavy iterations=300 calls_ok=1200\n');
    expect(perCpu.reduce((a, b) => a + b, 0)).toBeGreaterThan(40);
    expect(perCpu.every((n) => n > 0)).toBe(true);
  });

  it('every entry push and every return (pop {..., pc}, bx lr, conditional ones included) of the kernel, emulated: the run is identical', async () => {
    const args = ['/bin/sh', '-c', 'echo one | cat; forkheavy 3; syscallheavy 20; ls /etc | wc -l'];
    const plain = await runArm(args);
    const { machine: m, output } = await armMachine({ cmdline: 'quiet', args });
    const syms = m.kernel.symbols();
    const data = syms.filter((s) => s.name.startsWith('$d')).map((s) => s.value);
    const code = syms.filter((s) => s.name.startsWith('$a')).map((s) => s.value);
    /** Whether `va` is in a literal pool: the nearest mapping symbol at or below it is $d. */
    const isData = (va: bigint) => {
      const below = (list: bigint[]) => list.reduce((best, v) => (v <= va && v > best ? v : best), -1n);
      return below(data) > below(code);
    };
    // Code that runs with the MMU off (physical pcs) is left alone.
    const physical = new Set(['_start', 'enable_mmu', 'secondary_entry']);
    const sites = new Map<bigint, { code: number; word: number }>();
    for (const f of syms) {
      if (f.type !== STT_FUNC || f.size === 0 || physical.has(f.name)) continue;
      const text = m.readText(f.value, f.size);
      for (let off = 0; off + 4 <= f.size; off += 4) {
        const va = f.value + BigInt(off);
        const w = word(text.subarray(off));
        let emul: number | undefined;
        if (off === 0 && (w & 0xffff4000) >>> 0 === 0xe92d4000) emul = ArmEmulation.PUSHM;
        else if ((w & 0x0fff8000) === 0x08bd8000 && w >>> 28 !== 0xf) emul = ArmEmulation.POPM;
        else if ((w & 0x0fffffff) === 0x012fff1e && w >>> 28 !== 0xf) emul = ArmEmulation.BX_LR;
        if (emul !== undefined && !isData(va)) sites.set(va, { code: emul, word: w });
      }
    }
    expect(sites.size).toBeGreaterThan(600);
    const conditional = [...sites.values()].filter((x) => x.word >>> 28 !== 0xe).length;
    expect(conditional).toBeGreaterThan(10);
    for (const [va, x] of sites) m.writeText(va, bytesOf(breakpointFor(x.word)));
    const hits = new Map<number, number>();
    m.addInvopHandler((trap) => {
      const x = sites.get(trap.pc);
      if (!x) return undefined;
      hits.set(x.code, (hits.get(x.code) ?? 0) + 1);
      return { kind: 'emulate', code: x.code, word: x.word };
    });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toBe(plain.output);
    expect(m.instructions).toBe(plain.machine.instructions);
    for (const c of [ArmEmulation.PUSHM, ArmEmulation.POPM, ArmEmulation.BX_LR]) expect(hits.get(c) ?? 0).toBeGreaterThan(1000);
  });

  it('every instruction of the syscall, scheduling, locking and idle paths executed displaced: the run is identical', async () => {
    const args = ['/bin/sh', '-c', 'echo one | cat; forkheavy 3; syscallheavy 20; sleep 1; ls /etc | wc -l'];
    const plain = await runArm(args);
    const { machine: m, output } = await armMachine({ cmdline: 'quiet', args });
    const names = [
      'do_syscall', 'sys_write', 'sys_read', 'vfs_write', 'vfs_read', 'copy_to_user', 'copy_from_user', 'memcpy', 'memset',
      'schedule', '__switch_to', 'arch_switch_to', 'spin_trylock', 'spin_lock', 'lock_kernel', 'unlock_kernel', 'cpu_idle',
      'arch_wait_for_interrupt', 'irq_entry', 'arm_exception', 'timer_interrupt', 'console_write', 'exception_return', 'ret_from_fork',
    ];
    const sites = new Map<bigint, Uint8Array>();
    const classes = new Set<string>();
    for (const name of names) {
      const sym = m.symbols.byName(name, 'kernel');
      if (!sym) throw new Error(`no ${name}`);
      const size = sym.size || 4 * 8;
      const text = m.readText(sym.address, size);
      for (let off = 0; off + 4 <= size; off += 4) {
        const w = word(text.subarray(off));
        const d = describeA32(w);
        if (d.text.startsWith('.word') || d.text.startsWith('udf')) break; // a literal pool ends the code
        classes.add(d.text.split('\t')[0]!);
        sites.set(sym.address + BigInt(off), text.slice(off, off + 4));
      }
    }
    for (const mnemonic of ['ldrex', 'strex', 'wfi', 'bl', 'bne', 'pop', 'push', 'ldr', 'str']) expect(classes).toContain(mnemonic);
    for (const [va, bytes] of sites) m.writeText(va, bytesOf(breakpointFor(word(bytes))));
    let hits = 0;
    m.addInvopHandler((trap) => {
      const bytes = sites.get(trap.pc);
      if (!bytes) return undefined;
      hits++;
      return { kind: 'displaced', bytes };
    });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toBe(plain.output);
    expect(m.instructions).toBe(plain.machine.instructions);
    expect(hits).toBeGreaterThan(100_000);
  });

  it('a breakpoint in a process\'s own text traps in user mode and runs its instruction displaced there', async () => {
    const input = 'one\ntwo\nthree\n';
    const plain = await runArm(['/bin/cat'], { consoleInput: input });
    const cat = readCpio(readFileSync(join(IMAGES_DIR, 'arm', 'initrd.cpio'))).find((e) => e.name === 'bin/cat')!;
    const writeVa = parseElf(new Uint8Array(cat.data)).symbols().find((s) => s.name === 'write')!.value;
    const { machine: m, output } = await armMachine({ cmdline: 'quiet', args: ['/bin/cat'], consoleInput: input });
    const at = fn(m, 'sys_write');
    const kernelWord = m.readText(at, 4);
    m.writeText(at, bytesOf(breakpointFor(word(kernelWord))));
    let userOriginal: Uint8Array | undefined;
    const userHits: { pc: bigint; fd: bigint; count: bigint; text: string }[] = [];
    m.addInvopHandler((trap) => {
      const regs = m.registers(trap.cpu);
      if (!trap.user && trap.pc === at) {
        if (!userOriginal) {
          // The first write: patch libc's write() in this process's text (its own copy of the page).
          const root = regs.pageTableRoot();
          const pa = m.port.translate(trap.cpu, writeVa, root)!;
          const ram = m.port.ram();
          userOriginal = ram.slice(pa, pa + 4);
          ram.set(bytesOf(breakpointFor(word(userOriginal))), pa);
          m.port.codeWritten(pa, 4);
        }
        return { kind: 'emulate', code: ArmEmulation.PUSHM, word: word(kernelWord) };
      }
      if (trap.user && trap.pc === writeVa) {
        const buf = m.readUser(regs.pageTableRoot(), regs.get(1), Number(regs.get(2)));
        userHits.push({ pc: trap.pc, fd: regs.get(0), count: regs.get(2), text: 'bytes' in buf ? new TextDecoder().decode(buf.bytes) : '' });
        return { kind: 'displaced', bytes: userOriginal! };
      }
      return undefined;
    });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toBe(plain.output);
    expect(output()).toBe(input);
    expect(m.instructions).toBe(plain.machine.instructions);
    expect(userHits.map((h) => h.text).join('')).toBe('two\nthree\n');
    expect(userHits.every((h) => h.fd === 1n)).toBe(true);
  });

  it('a breakpoint carrying a condition fires only when the condition passes', async () => {
    const { m, out } = await machineWith(['/bin/sh', '-c', 'echo one; echo two; echo three']);
    // sys_write: ... cmp r5, #0 ; bmi <bad count> — the count is never negative here.
    const at = fn(m, 'sys_write');
    const text = m.readText(at, 0x40);
    const words = Array.from({ length: 16 }, (_, i) => word(text.subarray(i * 4)));
    const bmi = words.findIndex((w) => describeA32(w).text.startsWith('bmi'));
    expect(bmi).toBeGreaterThan(0);
    expect(describeA32(words[bmi - 1]!).text).toBe('cmp\tr5, #0');
    const cmpAt = at + BigInt((bmi - 1) * 4);
    const bmiAt = at + BigInt(bmi * 4);
    m.writeText(cmpAt, bytesOf(breakpointFor(words[bmi - 1]!)));
    m.writeText(bmiAt, bytesOf(breakpointFor(words[bmi]!)));
    expect(word(m.readText(bmiAt, 4))).toBe(0xe7f000f4); // MI
    const fired = { cmp: 0, bmi: 0 };
    m.addInvopHandler((trap) => {
      if (trap.pc === cmpAt) {
        fired.cmp++;
        return { kind: 'emulate', code: ArmEmulation.CMP_IMM, word: words[bmi - 1]! };
      }
      if (trap.pc === bmiAt) {
        fired.bmi++;
        return { kind: 'emulate', code: ArmEmulation.B, word: words[bmi]! };
      }
      return undefined;
    });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe('one\ntwo\nthree\n');
    expect(fired.cmp).toBe(3);
    expect(fired.bmi).toBe(0);
  });

  it('an emulation code that does not fit the displaced word is refused with an error naming both', async () => {
    const { m } = await machineWith(['/bin/echo', 'x']);
    const at = fn(m, 'sys_write');
    const original = word(m.readText(at, 4));
    m.writeText(at, bytesOf(breakpointFor(original)));
    m.addInvopHandler((trap) => (trap.pc === at ? { kind: 'emulate', code: ArmEmulation.BX_LR, word: original } : undefined));
    await expect(m.runUntilPowerOff(LIMIT)).rejects.toThrow(`0x${original.toString(16)} at 0x${at.toString(16)} is not of emulation class ${ArmEmulation.BX_LR}`);
  });
});

