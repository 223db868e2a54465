// The x86-64 guest on the machine: boot, every program of the initrd, the
// shell (pipes, redirection, exit status), fork/exec/wait, a faulting
// program, idle time skipping, several CPUs, and determinism.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Machine } from '../src/index.js';
import { IMAGES_DIR, cannotRun, extractInitrd, runGuest } from './guest-support.js';
import { runX86, sh } from './machine-x86-support.js';

describe('x86-64 machine: boot', () => {
  it('boots to the shell prompt, prints the banner, and powers off with the shell status at end of input', async () => {
    let output = '';
    const m = await Machine.create({ isa: 'x86_64', consoleOutput: (b) => (output += new TextDecoder().decode(b)), consoleInput: 'echo hello from the shell\n' });
    const result = await m.runUntilPowerOff({ instructions: 100_000_000 });
    expect(result).toEqual({ kind: 'poweroff', status: 0 });
    expect(output).toMatch(/^wdtrace guest kernel \(x86_64\), 1 CPU\(s\), 64 MiB RAM, \d+ pages free\n/);
    expect(output).toContain('initramfs: 55 entries unpacked\n');
    expect(output).toContain('$ hello from the shell\n$ ');
    expect(m.instructions).toBeGreaterThan(1_000_000);
  });

  it('runs the program after -- and powers off with its exit status', async () => {
    expect(await runX86(['/bin/echo', 'hi', 'there'])).toMatchObject({ output: 'hi there\n', status: 0 });
    expect((await runX86(['/bin/true'])).status).toBe(0);
    expect((await runX86(['/bin/false'])).status).toBe(1);
    expect((await sh('exit 42')).status).toBe(42);
  });

  it('keeps a quoted argument with spaces as one word', async () => {
    expect((await runX86(['/bin/echo', 'a  b', 'c'])).output).toBe('a  b c\n');
  });

  it('reports a missing program through init', async () => {
    const r = await runX86(['/bin/nonexistent']);
    expect(r.status).not.toBe(0);
  });

  it('interactive console: run() stops when every CPU waits for input, and goes on when it arrives', async () => {
    let output = '';
    const m = await Machine.create({ isa: 'x86_64', cmdline: 'quiet', interactive: true, consoleOutput: (b) => (output += new TextDecoder().decode(b)) });
    expect(m.run({ instructions: 100_000_000 })).toMatchObject({ kind: 'input' });
    expect(output).toBe('$ ');
    const t = m.now();
    m.input('echo one\n');
    expect(m.run({ instructions: 100_000_000 })).toMatchObject({ kind: 'input' });
    expect(output).toBe('$ one\n$ ');
    m.input('exit 9\n');
    m.closeInput();
    expect(await m.runUntilPowerOff({ instructions: 100_000_000 })).toEqual({ kind: 'poweroff', status: 9 });
    expect(m.now()).toBeGreaterThan(t);
  });

  it('an exception before the kernel has an IDT stops the machine with a triple-fault report', async () => {
    const m = await Machine.create({ isa: 'x86_64' });
    const entry = m.kernel.header.entry;
    m.writeText(entry, Uint8Array.of(0x0f, 0x0b)); // ud2: #UD, offered to the handlers, then to the guest's (absent) IDT
    let offered = 0;
    m.addInvopHandler(() => {
      offered++;
      return undefined;
    });
    expect(m.run({ instructions: 1000 })).toEqual({ kind: 'fatal', cpu: 0, reason: 'triple fault delivering vector 6', pc: entry });
    expect(offered).toBe(1);
    expect(m.result).toMatchObject({ kind: 'fatal' });
  });

  it('rejects bad options with clear errors', async () => {
    await expect(Machine.create({ isa: 'x86_64', cpus: 9 })).rejects.toThrow('cpus must be 1 to 8, not 9');
    await expect(Machine.create({ isa: 'x86_64', ramBytes: 8 << 20 })).rejects.toThrow('at least 16 MiB');
    await expect(Machine.create({ isa: 'x86_64', kernel: new Uint8Array([1, 2, 3]), initrd: new Uint8Array(0) })).rejects.toThrow(/^kernel image: /);
    const arm = readFileSync(join(IMAGES_DIR, 'arm', 'kernel.elf'));
    await expect(Machine.create({ isa: 'x86_64', kernel: arm, initrd: new Uint8Array(0) })).rejects.toThrow('kernel image is for arm, not x86_64');
    await expect(Machine.create({ isa: 'x86_64', args: ['say "hi"'] })).rejects.toThrow('cannot carry a double quote');
    await expect(Machine.create({ isa: 'x86_64', args: ['/bin/echo', 'x'.repeat(4000)] })).rejects.toThrow(/^boot information: command line is 4013 bytes; at most 3839 fit$/);
  });
});

describe('x86-64 machine: the programs of the initrd', () => {
  it('echo, cat, ls, wc, sort, head, grep', async () => {
    expect((await runX86(['/bin/echo', '-n', 'x'])).output).toBe('x');
    expect((await runX86(['/bin/cat', '/etc/hostname'])).output).toBe('wdtrace\n');
    expect((await runX86(['/bin/ls', '/etc'])).output).toBe('hostname\nmotd\npasswd\nrc\n');
    // ls -l formats with SSE2 code (packssdw, pmovmskb ...)
    expect((await runX86(['/bin/ls', '-l', '/etc'])).output).toMatch(/^-rw-r--r-- +8 hostname\n-rw-r--r-- +\d+ motd\n/);
    expect((await sh('echo one two three | wc')).output).toBe('      1       3      14\n');
    expect((await sh('echo c > /tmp/s; echo a >> /tmp/s; echo b >> /tmp/s; sort /tmp/s; sort -r < /tmp/s')).output).toBe('a\nb\nc\nc\nb\na\n');
    expect((await sh('ls /bin | head -3')).output).toBe('cat\ncp\ncpubound\n');
    const grep = await sh('grep root /etc/passwd; echo $?; grep nobody-here /etc/passwd; echo $?');
    expect(grep.output).toBe('root:x:0:0:root:/:/bin/sh\n0\n1\n');
  });

  it('sleep 1 takes a second of virtual time and few instructions (idle CPUs skip ahead)', async () => {
    const r = await runX86(['/bin/sleep', '1']);
    expect(r.status).toBe(0);
    expect(r.machine.now()).toBeGreaterThan(1_000_000_000);
    expect(r.machine.instructions).toBeLessThan(20_000_000);
  });

  it.skipIf(cannotRun('x86_64'))('cpubound, syscallheavy and forkheavy print what they print natively', async () => {
    const root = extractInitrd('x86_64');
    for (const prog of ['cpubound', 'syscallheavy', 'forkheavy']) {
      const native = runGuest('x86_64', join(root, 'bin', prog), []);
      const guest = await runX86([`/bin/${prog}`], {}, 1_000_000_000);
      expect(guest.output, prog).toBe(native.stdout);
      expect(guest.status, prog).toBe(native.status);
    }
  });
});

describe('x86-64 machine: shell, processes and signals', () => {
  it('pipes, redirection and exit status', async () => {
    const r = await sh('echo hello > /tmp/f; echo world >> /tmp/f; cat < /tmp/f | wc -l; cat /missing 2>&1; false || echo or; true && echo and; exit 3');
    expect(r.output).toBe('      2\ncat: /missing: No such file or directory\nor\nand\n');
    expect(r.status).toBe(3);
  });

  it('fork, exec and wait: the shell runs children and reports their status', async () => {
    const r = await sh("sh -c 'exit 5'; echo $?; /bin/echo child; echo after");
    expect(r.output).toBe('5\nchild\nafter\n');
  });

  it('a faulting program is killed by SIGSEGV while the kernel goes on', async () => {
    const r = await sh('fault; echo status $?; echo still running', { cmdline: '' });
    expect(r.output).toMatch(/segfault at 0 /);
    expect(r.output).toContain('status 139\nstill running\n');
    expect(r.status).toBe(0);
    const direct = await runX86(['/bin/fault']);
    expect(direct.status).toBe(128 + 11);
  });

  it('boots and runs programs on 4 CPUs', async () => {
    const r = await sh('forkheavy; echo done', { cpus: 4, cmdline: '' });
    expect(r.output).toContain('smp: CPU 3 online\n');
    expect(r.output).toContain('forkheavy children=50 status_sum=1225\ndone\n');
    expect(r.machine.cpuStarted(3)).toBe(true);
    expect(r.machine.retired(1)).toBeGreaterThan(0);
  });

  it('brings every CPU online before init runs, however short the program', async () => {
    const r = await runX86(['/bin/echo', 'hi'], { cpus: 4, cmdline: '' });
    expect(r.output).toMatch(/smp: CPU 1 online\nsmp: CPU 2 online\nsmp: CPU 3 online\nhi\n$/);
    for (const cpu of [1, 2, 3]) expect(r.machine.cpuStarted(cpu)).toBe(true);
  });
});

describe('x86-64 machine: idle time on several CPUs', () => {
  it('8 CPUs all idle while a program sleeps: time jumps ahead, few instructions run', async () => {
    const r = await sh('sleep 2; echo woke', { cpus: 8 });
    expect(r.output).toBe('woke\n');
    expect(r.machine.now()).toBeGreaterThan(2_000_000_000);
    expect(r.machine.instructions).toBeLessThan(40_000_000);
    for (let cpu = 0; cpu < 8; cpu++) expect(r.machine.cpuStarted(cpu)).toBe(true);
  });
});

describe('x86-64 machine: determinism', () => {
  it('two runs give the same output and the same instruction counts, on 1 and on 3 CPUs', async () => {
    for (const cpus of [1, 3]) {
      const a = await sh('forkheavy; ls /bin | wc; sleep 0', { cpus });
      const b = await sh('forkheavy; ls /bin | wc; sleep 0', { cpus });
      expect(a.status).toBe(0);
      expect(b.output).toBe(a.output);
      expect(b.machine.instructions).toBe(a.machine.instructions);
      expect(b.machine.now()).toBe(a.machine.now());
      for (let cpu = 0; cpu < cpus; cpu++) expect(b.machine.retired(cpu)).toBe(a.machine.retired(cpu));
    }
  });
});
