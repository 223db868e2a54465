// Trap interposition, host text patching and NOFAULT access on the x86-64
// machine: an int3 written with writeText at a kernel function's
// `push %rbp` is claimed by a handler that emulates the push; an unclaimed
// one reaches the guest kernel; NOFAULT reads of mapped, unmapped and device
// addresses; reading and writing a process's memory from a probe.
import { X86Emulation } from '@wdtrace/isa-x86-as';
import { describe, expect, it } from 'vitest';
import { Machine, type Trap } from '../src/index.js';
import { runX86 } from './machine-x86-support.js';

const RBP = 5;
const RSI = 6;
const RDX = 2;

async function machineWith(args: string[], input = ''): Promise<{ m: Machine; out: () => string }> {
  let output = '';
  const m = await Machine.create({ isa: 'x86_64', cmdline: 'quiet', args, consoleInput: input, consoleOutput: (b) => (output += new TextDecoder().decode(b)) });
  return { m, out: () => output };
}

function fn(m: Machine, name: string): bigint {
  const s = m.symbols.byName(name, 'kernel');
  if (!s) throw new Error(`no ${name}`);
  return s.address;
}

describe('x86-64 machine: trap interposition', () => {
  it('a handler claims the int3 at sys_write entry and emulates push %rbp; the guest runs exactly as before', async () => {
    const plain = await runX86(['/bin/echo', 'hello', 'traps']);
    const { m, out } = await machineWith(['/bin/echo', 'hello', 'traps']);
    const at = fn(m, 'sys_write');
    const original = m.readText(at, 1);
    expect(original).toEqual(Uint8Array.of(0x55));
    m.writeText(at, Uint8Array.of(0xcc));
    expect(m.readText(at, 1)).toEqual(Uint8Array.of(0xcc));
    const seen: { trap: Trap; rbp: bigint; text: string }[] = [];
    const declined: Trap[] = [];
    m.addInvopHandler((trap) => {
      declined.push(trap);
      return undefined;
    });
    const remove = m.addInvopHandler((trap) => {
      if (trap.kind !== 'breakpoint' || trap.pc !== at) return undefined;
      const regs = m.registers(trap.cpu);
      const buf = m.readUser(regs.pageTableRoot(), regs.get(RSI), Number(regs.get(RDX)));
      if ('fault' in buf) throw new Error(`fault at ${buf.fault}`);
      seen.push({ trap, rbp: regs.fp(), text: new TextDecoder().decode(buf.bytes) });
      return { kind: 'emulate', code: X86Emulation.pushRbp };
    });
    const r = await m.runUntilPowerOff({ instructions: 100_000_000 });
    expect(r).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe(plain.output);
    expect(m.instructions).toBe(plain.machine.instructions);
    expect(seen.map((s) => s.text).join('')).toBe('hello traps\n');
    expect(seen[0]!.trap).toMatchObject({ cpu: 0, kind: 'breakpoint', pc: at, user: false });
    // Handlers are asked in registration order: the first declined every trap the second claimed.
    expect(declined.length).toBe(seen.length);
    remove();
    m.writeText(at, original);
    expect(m.readText(at, 1)).toEqual(original);
  });

  it('an unclaimed int3 in the kernel reaches the guest kernel, which panics on it', async () => {
    const { m, out } = await machineWith(['/bin/echo', 'x']);
    const at = fn(m, 'sys_write');
    m.writeText(at, Uint8Array.of(0xcc));
    let offered = 0;
    m.addInvopHandler(() => {
      offered++;
      return undefined;
    });
    const r = await m.runUntilPowerOff({ instructions: 100_000_000 });
    expect(offered).toBe(1);
    expect(r.kind).toBe('panic');
    expect(out()).toContain('(vector 3,');
  });

  it('displaced execution of the original instruction and a handler that sets the pc itself', async () => {
    const { m, out } = await machineWith(['/bin/echo', 'displaced']);
    const at = fn(m, 'sys_write');
    const second = at + 1n; // mov %rsp,%rbp follows push %rbp
    const bytes = m.readText(second, 3);
    expect(bytes).toEqual(Uint8Array.of(0x48, 0x89, 0xe5));
    m.writeText(second, Uint8Array.of(0xcc, 0x90, 0x90));
    let fired = 0;
    m.addInvopHandler((trap) => {
      if (trap.pc !== second) return undefined;
      fired++;
      const regs = m.registers(trap.cpu);
      // even firings: run the displaced instruction; odd: do its work here and resume after it
      if (fired % 2 === 0) return { kind: 'displaced', bytes };
      regs.set(RBP, regs.sp());
      return { kind: 'resume', pc: second + 3n };
    });
    const r = await m.runUntilPowerOff({ instructions: 100_000_000 });
    expect(r).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe('displaced\n');
    expect(fired).toBeGreaterThan(0);
  });
});

describe('x86-64 machine: NOFAULT access', () => {
  it('reads mapped kernel memory as the image holds it', async () => {
    const { m } = await machineWith(['/bin/true']);
    await m.runUntilPowerOff({ instructions: 100_000_000 });
    const at = fn(m, 'start_kernel');
    const r = m.readKernel(at, 64);
    expect('bytes' in r && r.bytes).toEqual(m.readText(at, 64));
    // The banner format string in .rodata: found in the image, read back as a NUL-terminated string.
    const rodata = m.kernel.sectionByName('.rodata')!;
    const data = m.kernel.sectionData(rodata);
    const needle = new TextEncoder().encode('wdtrace guest kernel (');
    const off = Buffer.from(data).indexOf(Buffer.from(needle));
    expect(off).toBeGreaterThanOrEqual(0);
    const addr = rodata.addr + BigInt(off);
    const full = m.readString(addr, 200);
    expect('text' in full && full.text.startsWith('wdtrace guest kernel (')).toBe(true);
    expect('text' in full && full.text.length).toBe(data.indexOf(0, off) - off);
    expect(m.readString(addr, 7)).toMatchObject({ text: 'wdtrace' });
    expect(m.readString(0x10n, 7)).toEqual({ fault: 0x10n });
  });

  it('an unmapped address gives the first address that did not translate', async () => {
    const { m } = await machineWith(['/bin/true']);
    await m.runUntilPowerOff({ instructions: 100_000_000 });
    expect(m.readKernel(0x10n, 4)).toEqual({ fault: 0x10n });
    // A read that crosses from the last page of RAM (64 MiB) into what lies beyond it.
    expect(m.readKernel(0xffff_ffff_8400_0000n - 8n, 16)).toEqual({ fault: 0xffff_ffff_8400_0000n });
    // Above the kernel image mapping nothing is mapped until the device window.
    expect(m.readKernel(0xffff_ffff_c000_0000n, 1)).toEqual({ fault: 0xffff_ffff_c000_0000n });
    expect(m.readKernel(0x8000_0000_0000_0000n, 1)).toEqual({ fault: 0x8000_0000_0000_0000n });
  });

  it('the device window is refused and never touched', async () => {
    const { m, out } = await machineWith(['/bin/cat'], 'typed\n');
    // Console RX (read-to-pop) through the kernel's device mapping: refused, the byte stays.
    expect(m.readKernel(0xffff_ffff_f000_0004n, 4)).toEqual({ fault: 0xffff_ffff_f000_0004n });
    expect(m.readKernel(0xffff_ffff_f010_0000n, 8)).toEqual({ fault: 0xffff_ffff_f010_0000n });
    expect(await m.runUntilPowerOff({ instructions: 100_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    expect(out()).toBe('typed\n');
  });

  it('a probe reads user strings and copies out into writable user pages only', async () => {
    const { m, out } = await machineWith(['/bin/echo', 'quiet', 'words']);
    const at = fn(m, 'sys_write');
    m.writeText(at, Uint8Array.of(0xcc));
    const results: (bigint | undefined)[] = [];
    let text = '';
    let straddled = '';
    let holeAt = 0n;
    m.addInvopHandler((trap) => {
      if (trap.pc !== at) return undefined;
      const regs = m.registers(trap.cpu);
      const root = regs.pageTableRoot();
      const s = m.readString(regs.get(RSI), 5, root);
      if ('text' in s) text = s.text;
      // copyout into the buffer (user-writable): the guest writes the new bytes
      results.push(m.writeUser(root, regs.get(RSI), new TextEncoder().encode('QUIET')));
      // copyout into user text (read-only) is refused, nothing written
      // (0x201000: the program's text, mapped read-only at its link address)
      results.push(m.writeUserString(root, 0x20_1000n, 'x'));
      // copyout across the end of the buffer's mapping: the bytes before the hole are written
      let hole = (regs.get(RSI) & ~0xfffn) + 0x1000n;
      while (!('fault' in m.readString(hole, 1, root))) hole += 0x1000n;
      holeAt = hole;
      results.push(m.writeUser(root, hole - 2n, new TextEncoder().encode('ABCD')));
      const before = m.readString(hole - 2n, 2, root);
      straddled = 'text' in before ? before.text : '';
      return { kind: 'emulate', code: X86Emulation.pushRbp };
    });
    expect(await m.runUntilPowerOff({ instructions: 100_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    expect(text).toBe('quiet');
    expect(out()).toBe('QUIET words\n');
    expect(results).toEqual([undefined, 0x20_1000n, holeAt]);
    expect(straddled).toBe('AB');
  });
});
