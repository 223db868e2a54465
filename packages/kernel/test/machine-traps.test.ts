// Trap interposition, host text patching and NOFAULT access on the machine
// of each ISA: the ISA's breakpoint written with writeText over sys_write's
// first instruction (x86-64 int3 on `push %rbp`; ARM the DTrace breakpoint,
// a UDF word carrying the condition, on `push {..., r11, lr}`) is claimed by
// a handler that emulates it and the guest runs exactly as untraced; an
// unclaimed one reaches the guest kernel; handlers and listeners that keep
// traps get copies; displaced execution and a handler
// that sets the pc itself; NOFAULT reads of mapped, unmapped and device
// addresses; reading and writing a process's memory from a probe; a probe's
// NOFAULT reads (and the guest-memory window's kernel registers) through its
// own CPU's address space on a 2-CPU machine.
// ARM-only behaviour (conditions, emulation classes, several CPUs, user
// text) is in machine-arm-traps.test.ts.
import { ArmEmulation, DTRACE_BREAKPOINT, describeA32 } from '@wdtrace/isa-arm-as';
import { X86Emulation } from '@wdtrace/isa-x86-as';
import { describe, expect, it } from 'vitest';
import { ISAS, TRANSLATION_WORDS, type InvopResult, type Isa, type Machine, type RegisterFile, type SafeRead, type Trap } from '../src/index.js';
import { guestMachine, runMachine } from './machine-support.js';

const LIMIT = { instructions: 200_000_000 };
const le32 = (bytes: Uint8Array): number => new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
const bytesOf = (w: number): Uint8Array => Uint8Array.of(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);
/** The ARM DTrace breakpoint carrying `original`'s condition field. */
const armBreakpoint = (original: Uint8Array): Uint8Array => bytesOf((DTRACE_BREAKPOINT | (le32(original) >>> 28)) >>> 0);

interface TrapCase {
  /** The kind of trap the breakpoint raises. */
  readonly kind: Trap['kind'];
  /** Whether sys_write's first instruction is the frame-building one the emulation performs. */
  isEntry(original: Uint8Array): boolean;
  /** The breakpoint over `original` and what a handler returns to perform it. */
  breakpoint(original: Uint8Array): Uint8Array;
  emulateEntry(original: Uint8Array): InvopResult;
  /** sys_write(fd, buf, count): the registers of buf and count. */
  readonly bufCount: readonly [number, number];
  /** A trapping pattern no handler claims, and the panic the guest kernel reports for it at `at`. */
  readonly unclaimed: Uint8Array;
  panic(at: bigint): string;
  /** sys_write's second instruction (the frame pointer set-up), checked, and its work done by hand. */
  readonly second: { readonly offset: bigint; readonly length: number; check(bytes: Uint8Array): void; perform(regs: RegisterFile, bytes: Uint8Array): void };
  /** The name arch_uname_machine holds. */
  readonly machineName: string;
  /** The first address past the last page of RAM (64 MiB) in the kernel's mapping. */
  readonly ramEnd: bigint;
  /** Kernel addresses where nothing is mapped (each a fault at itself). */
  readonly unmapped: readonly bigint[];
  /** The console's RX register and another device address, through the kernel's device mapping. */
  readonly devices: readonly bigint[];
  /** An address in /bin/echo's text: mapped, read-only. */
  readonly userText: bigint;
  /** Kernel addresses writeText and readText refuse. */
  readonly badText: readonly [bigint, bigint];
}

const CASES: Readonly<Record<Isa, TrapCase>> = {
  x86_64: {
    kind: 'breakpoint',
    isEntry: (b) => b[0] === 0x55, // push %rbp
    breakpoint: () => Uint8Array.of(0xcc),
    emulateEntry: () => ({ kind: 'emulate', code: X86Emulation.pushRbp }),
    bufCount: [6, 2], // rsi rdx
    unclaimed: Uint8Array.of(0xcc),
    panic: () => '(vector 3,',
    second: {
      offset: 1n,
      length: 3,
      check: (b) => expect(b).toEqual(Uint8Array.of(0x48, 0x89, 0xe5)), // mov %rsp,%rbp
      perform: (regs) => regs.set(5, regs.sp()),
    },
    machineName: 'x86_64',
    ramEnd: 0xffff_ffff_8400_0000n,
    // Above the kernel image mapping; a non-canonical address.
    unmapped: [0x10n, 0xffff_ffff_c000_0000n, 0x8000_0000_0000_0000n],
    devices: [0xffff_ffff_f000_0004n, 0xffff_ffff_f000_0ffcn],
    userText: 0x20_1000n,
    badText: [0x4000_0000_0000n, 0xffff_ffff_c000_0000n],
  },
  arm: {
    kind: 'undefined',
    isEntry: (b) => /^push\t\{.*r11, lr\}$/.test(describeA32(le32(b)).text),
    breakpoint: armBreakpoint,
    emulateEntry: (b) => ({ kind: 'emulate', code: ArmEmulation.PUSHM, word: le32(b) }),
    bufCount: [1, 2],
    // udf #16 (udf #0-#15 are the DTrace breakpoint carrying a condition)
    unclaimed: bytesOf(0xe7f001f0),
    panic: (at) => `Kernel panic on CPU 0: kernel undefined instruction at 0x${at.toString(16)} `,
    second: {
      offset: 4n,
      length: 4,
      check: (b) => expect(describeA32(le32(b)).text).toMatch(/^add\tr11, sp, #\d+$/),
      perform: (regs, b) => regs.set(11, regs.sp() + BigInt(/#(\d+)$/.exec(describeA32(le32(b)).text)![1]!)),
    },
    machineName: 'armv7l',
    ramEnd: 0xc400_0000n,
    // Between the kernel's RAM mapping and the device window; at the top of the 32-bit space; beyond it.
    unmapped: [0x10n, 0xef00_0000n, 0xffff_fffen, 0x1_0000_0000n],
    devices: [0xf000_0004n, 0xf000_0ffcn],
    userText: 0x2_1000n,
    badText: [0xef00_0000n, 0xef00_0000n],
  },
};

function fn(m: Machine, name: string): bigint {
  const s = m.symbols.byName(name, 'kernel');
  if (!s) throw new Error(`no ${name}`);
  return s.address;
}

describe.each(ISAS)('%s machine: trap interposition', (isa) => {
  const c = CASES[isa];
  const machineWith = async (args: string[], consoleInput = '') => {
    const { machine, output } = await guestMachine(isa, { cmdline: 'quiet', args, consoleInput });
    return { m: machine, out: output };
  };

  it('a handler claims the breakpoint at sys_write entry and emulates the instruction; the guest runs exactly as before', async () => {
    const plain = await runMachine(isa, ['/bin/echo', 'hello', 'traps']);
    const { m, out } = await machineWith(['/bin/echo', 'hello', 'traps']);
    const at = fn(m, 'sys_write');
    const original = m.readText(at, c.breakpoint(new Uint8Array(4)).length);
    expect(c.isEntry(original)).toBe(true);
    const patch = c.breakpoint(original);
    m.writeText(at, patch);
    expect(m.readText(at, patch.length)).toEqual(patch);
    const seen: { trap: Trap; text: string }[] = [];
    const declined: Trap[] = [];
    const observed: (InvopResult | undefined)[] = [];
    m.onTrap((_trap, result) => observed.push(result));
    m.addInvopHandler(
      (trap) => {
        declined.push(trap);
        return undefined;
      },
      { keepsTraps: true },
    );
    const remove = m.addInvopHandler((trap) => {
      if (trap.kind !== c.kind || trap.pc !== at) return undefined;
      const regs = m.registers(trap.cpu);
      const buf = m.readUser(regs.pageTableRoot(), regs.get(c.bufCount[0]), Number(regs.get(c.bufCount[1])));
      if ('fault' in buf) throw new Error(`fault at ${buf.fault}`);
      seen.push({ trap: { ...trap }, text: new TextDecoder().decode(buf.bytes) });
      return c.emulateEntry(original);
    });
    expect(m.invopHandlerCount).toBe(2);
    const r = await m.runUntilPowerOff(LIMIT);
    expect(r).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe(plain.output);
    expect(m.instructions).toBe(plain.machine.instructions);
    expect(seen.map((s) => s.text).join('')).toBe('hello traps\n');
    expect(seen[0]!.trap).toMatchObject({ cpu: 0, kind: c.kind, pc: at, user: false });
    // Handlers are asked in registration order: the first declined every trap the second claimed.
    expect(declined.length).toBe(seen.length);
    // The trap listener heard each trap and what claimed it did.
    expect(observed).toEqual(seen.map(() => c.emulateEntry(original)));
    remove();
    expect(m.invopHandlerCount).toBe(1);
    m.writeText(at, original);
    expect(m.readText(at, original.length)).toEqual(original);
  });

  it('a handler and a listener that keep traps are given copies that keep each trap\'s values', async () => {
    const { m, out } = await machineWith(['/bin/sh', '-c', 'echo kept | cat']);
    const sites = new Map<bigint, Uint8Array>();
    for (const name of ['sys_read', 'sys_write']) {
      const at = fn(m, name);
      const original = m.readText(at, c.breakpoint(new Uint8Array(4)).length);
      expect(c.isEntry(original)).toBe(true);
      m.writeText(at, c.breakpoint(original));
      sites.set(at, original);
    }
    const handled: { trap: Trap; pc: bigint; cpu: number }[] = [];
    const heard: { trap: Trap; pc: bigint }[] = [];
    m.addInvopHandler(
      (trap) => {
        const original = sites.get(trap.pc);
        if (!original) return undefined;
        handled.push({ trap, pc: trap.pc, cpu: trap.cpu });
        return c.emulateEntry(original);
      },
      { keepsTraps: true },
    );
    m.onTrap((trap) => heard.push({ trap, pc: trap.pc }), { keepsTraps: true });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe('kept\n');
    expect(new Set(handled.map((h) => h.pc))).toEqual(new Set(sites.keys()));
    for (const h of [...handled, ...heard]) {
      expect(h.trap.pc).toBe(h.pc);
      expect(Object.isFrozen(h.trap)).toBe(true);
    }
    expect(handled.map((h) => h.trap)).toMatchObject(handled.map((h) => ({ cpu: h.cpu, kind: c.kind, user: false })));
    expect(heard.map((h) => h.pc)).toEqual(handled.map((h) => h.pc));
  });

  it('an unclaimed trap in the kernel reaches the guest kernel, which panics on it', async () => {
    const { m, out } = await machineWith(['/bin/echo', 'x']);
    const at = fn(m, 'sys_write');
    m.writeText(at, c.unclaimed);
    let offered = 0;
    const heard: (InvopResult | undefined)[] = [];
    m.onTrap((_trap, result) => heard.push(result));
    m.addInvopHandler((trap) => {
      offered++;
      expect(trap).toMatchObject({ pc: at, user: false });
      return undefined;
    });
    const r = await m.runUntilPowerOff(LIMIT);
    expect(offered).toBe(1);
    expect(heard).toEqual([undefined]);
    expect(r.kind).toBe('panic');
    expect(out()).toContain(c.panic(at));
  });

  it('displaced execution of the original instruction and a handler that sets the pc itself', async () => {
    const { m, out } = await machineWith(['/bin/sh', '-c', 'echo dis; echo placed; echo twice']);
    const second = fn(m, 'sys_write') + c.second.offset;
    const bytes = m.readText(second, c.second.length);
    c.second.check(bytes);
    const patch = c.breakpoint(bytes);
    m.writeText(second, Uint8Array.from([...patch, ...bytes.subarray(patch.length).map(() => 0x90)]));
    let fired = 0;
    m.addInvopHandler((trap) => {
      if (trap.pc !== second) return undefined;
      fired++;
      // even firings: run the displaced instruction; odd: do its work here and resume after it
      if (fired % 2 === 0) return { kind: 'displaced', bytes };
      c.second.perform(m.registers(trap.cpu), bytes);
      return { kind: 'resume', pc: second + BigInt(c.second.length) };
    });
    const r = await m.runUntilPowerOff(LIMIT);
    expect(r).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe('dis\nplaced\ntwice\n');
    expect(fired).toBe(3);
  });

  it('a handler stops the run: run() returns, and the next run goes on from there', async () => {
    const plain = await runMachine(isa, ['/bin/echo', 'stop', 'here']);
    const { m, out } = await machineWith(['/bin/echo', 'stop', 'here']);
    const at = fn(m, 'sys_write');
    const original = m.readText(at, c.breakpoint(new Uint8Array(4)).length);
    m.writeText(at, c.breakpoint(original));
    m.addInvopHandler((trap) => {
      if (trap.pc !== at) return undefined;
      m.stop();
      return c.emulateEntry(original);
    });
    expect(m.run(LIMIT)).toEqual({ kind: 'stopped' });
    expect(out()).toBe('');
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe(plain.output);
    expect(m.instructions).toBe(plain.machine.instructions);
  });

  it('host text patching refuses kernel addresses that are not RAM', async () => {
    const { m } = await machineWith(['/bin/true']);
    const [write, read] = c.badText;
    expect(() => m.writeText(write, Uint8Array.of(0))).toThrow(`kernel address 0x${write.toString(16)} is not mapped to RAM`);
    expect(() => m.readText(read, 4)).toThrow(`kernel address 0x${read.toString(16)} is not mapped to RAM`);
  });
});

describe.each(ISAS)('%s machine: NOFAULT access', (isa) => {
  const c = CASES[isa];
  const booted = async (args: string[], consoleInput = '') => {
    const { machine, output } = await guestMachine(isa, { cmdline: 'quiet', args, consoleInput });
    return { m: machine, out: output };
  };

  it('reads mapped kernel memory as the image holds it', async () => {
    const { m } = await booted(['/bin/true']);
    await m.runUntilPowerOff(LIMIT);
    const at = fn(m, 'start_kernel');
    const r = m.readKernel(at, 64);
    expect('bytes' in r && r.bytes).toEqual(m.readText(at, 64));
    // Into a buffer the caller keeps: its first bytes, the rest left alone.
    const into = new Uint8Array(200).fill(0xee);
    const r2 = m.readKernel(at, 100, into);
    expect('bytes' in r2 && r2.bytes.buffer).toBe(into.buffer);
    expect('bytes' in r2 && r2.bytes).toEqual(m.readText(at, 100));
    expect(into.subarray(0, 100)).toEqual(m.readText(at, 100));
    expect(into.subarray(100).every((b) => b === 0xee)).toBe(true);
    expect(() => m.readKernel(at, 201, into)).toThrow('a read of 201 bytes into 200');
    // A word reads as its bytes do, little-endian.
    const text = m.readText(at, 8);
    expect(m.readWord(at, 8)).toBe(new DataView(text.buffer, text.byteOffset).getBigUint64(0, true));
    expect(m.readWord(at + 1n, 2)).toBe(BigInt(text[1]! | (text[2]! << 8)));
    expect(() => m.readWord(at, 9)).toThrow('a word is 1 to 8 bytes, not 9');
    // The banner format string in .rodata: found in the image, read back as a NUL-terminated string.
    const rodata = m.kernel.sectionByName('.rodata')!;
    const data = m.kernel.sectionData(rodata);
    const off = Buffer.from(data).indexOf(Buffer.from('wdtrace guest kernel ('));
    expect(off).toBeGreaterThanOrEqual(0);
    const addr = rodata.addr + BigInt(off);
    const full = m.readString(addr, 200);
    expect('text' in full && full.text.startsWith('wdtrace guest kernel (')).toBe(true);
    expect('text' in full && full.text.length).toBe(data.indexOf(0, off) - off);
    expect(m.readString(addr, 7)).toMatchObject({ text: 'wdtrace' });
    expect(m.readString(fn(m, 'arch_uname_machine'))).toMatchObject({ text: c.machineName });
    expect(m.readString(0x10n, 7)).toEqual({ fault: 0x10n });
  });

  it('an unmapped address, or one past the end of RAM, gives the first address that did not translate', async () => {
    const { m } = await booted(['/bin/true']);
    await m.runUntilPowerOff(LIMIT);
    for (const a of c.unmapped) {
      expect(m.readKernel(a, 4)).toEqual({ fault: a });
      expect(m.readWord(a, 4)).toBeUndefined();
      expect(m.wordFault).toBe(a);
    }
    // A read that crosses from the last page of RAM (64 MiB) into what lies beyond it.
    expect(m.readKernel(c.ramEnd - 8n, 16)).toEqual({ fault: c.ramEnd });
    expect(m.readKernel(c.ramEnd - 8n, 16, new Uint8Array(100))).toEqual({ fault: c.ramEnd });
    expect(m.readWord(c.ramEnd - 4n, 8)).toBeUndefined();
    expect(m.wordFault).toBe(c.ramEnd);
  });

  it('the device window is refused and never touched', async () => {
    const { m, out } = await booted(['/bin/cat'], 'typed\n');
    // The kernel has mapped its devices by now.
    expect(m.run({ instructions: 300_000 })).toEqual({ kind: 'limit' });
    // Console RX (read-to-pop) through the kernel's device mapping: refused, the byte stays.
    expect(m.readKernel(c.devices[0]!, 4)).toEqual({ fault: c.devices[0]! });
    expect(m.readKernel(c.devices[1]!, 8)).toEqual({ fault: c.devices[1]! });
    expect(m.readWord(c.devices[0]!, 4)).toBeUndefined();
    expect(m.wordFault).toBe(c.devices[0]!);
    expect(m.port.translate(0, c.devices[0]!)).toBe(0xf000_0004); // mapped, but not for reading
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe('typed\n');
  });

  it('a probe on either CPU of a 2-CPU machine reads through its own CPU\'s address space', async () => {
    const script = 'syscallheavy 30 & echo one two three & echo four five; wait; echo six';
    const { machine: m, output } = await guestMachine(isa, { cmdline: 'quiet', cpus: 2, args: ['/bin/sh', '-c', script] });
    const at = fn(m, 'sys_write');
    const original = m.readText(at, c.breakpoint(new Uint8Array(4)).length);
    m.writeText(at, c.breakpoint(original));
    const perCpu = [0, 0];
    let differ = 0;
    m.addInvopHandler((trap) => {
      if (trap.pc !== at) return undefined;
      perCpu[trap.cpu]!++;
      const regs = m.registers(trap.cpu);
      const buf = regs.get(c.bufCount[0]);
      const n = Math.min(16, Number(regs.get(c.bufCount[1])));
      // Kernel reads without page tables of their own, and the CPU's own process's memory, agree.
      const own = m.readUser(regs.pageTableRoot(), buf, n);
      const kernel = m.readKernel(buf, n);
      const text = (r: SafeRead) => ('fault' in r ? `fault ${r.fault}` : r.bytes.join(','));
      if (text(kernel) !== text(own)) differ++;
      // The guest-memory window's kernel registers are those of this CPU too.
      const window = new Uint32Array(TRANSLATION_WORDS);
      m.memoryWindow()!.translationRegisters(window, 0, undefined);
      const root = regs.pageTableRoot();
      if (window[0] !== (isa === 'x86_64' ? Number(root & 0x000f_ffff_ffff_f000n) : Number(root))) differ++;
      for (let i = 0; i < n; i += 4) {
        const word = m.readWord(buf + BigInt(i), 1);
        if (!('bytes' in own) || word !== BigInt(own.bytes[i]!)) differ++;
      }
      return c.emulateEntry(original);
    });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toContain('six\n');
    expect(perCpu[0]).toBeGreaterThan(0);
    expect(perCpu[1]).toBeGreaterThan(0);
    expect(differ).toBe(0);
  });

  it('a probe reads user strings and copies out into writable user pages only, up to the first that is not', async () => {
    const { m, out } = await booted(['/bin/echo', 'quiet', 'words']);
    const at = fn(m, 'sys_write');
    const original = m.readText(at, c.breakpoint(new Uint8Array(4)).length);
    m.writeText(at, c.breakpoint(original));
    const results: (bigint | undefined)[] = [];
    let text = '';
    let straddled = '';
    let holeAt = 0n;
    m.addInvopHandler((trap) => {
      if (trap.pc !== at) return undefined;
      const regs = m.registers(trap.cpu);
      const root = regs.pageTableRoot();
      const buf = regs.get(c.bufCount[0]);
      const s = m.readString(buf, 5, root);
      if ('text' in s) text = s.text;
      // copyout into the buffer (user-writable): the guest writes the new bytes
      results.push(m.writeUser(root, buf, new TextEncoder().encode('QUIET')));
      // copyout into user text (read-only) is refused, nothing written
      results.push(m.writeUserString(root, c.userText, 'x'));
      // copyout across the end of the buffer's mapping: the bytes before the hole are written
      let hole = (buf & ~0xfffn) + 0x1000n;
      while (!('fault' in m.readString(hole, 1, root))) hole += 0x1000n;
      holeAt = hole;
      results.push(m.writeUser(root, hole - 2n, new TextEncoder().encode('ABCD')));
      const before = m.readString(hole - 2n, 2, root);
      straddled = 'text' in before ? before.text : '';
      return c.emulateEntry(original);
    });
    expect(await m.runUntilPowerOff(LIMIT)).toEqual({ kind: 'poweroff', status: 0 });
    expect(text).toBe('quiet');
    expect(out()).toBe('QUIET words\n');
    expect(results).toEqual([undefined, c.userText, holeAt]);
    expect(straddled).toBe('AB');
  });
});
