// The ARM machine boots the committed ARM guest kernel and runs the initrd's
// programs on the emulated ARMv7-A CPU: every program, the shell's pipes,
// redirection and exit status, fork/exec/wait, a faulting program, several
// CPUs, and determinism. The expected outputs are those the same binaries
// give under qemu-arm (guest-userland.test.ts).
import { describe, expect, it } from 'vitest';
import { armMachine, runArm, poweroffStatus, sh } from './machine-arm-support.js';

const FRUITS = 'pear\napple\nfig\nbanana\napple\n';
/** Shell prefix writing /tmp/fruits.txt. */
const MAKE_FRUITS = FRUITS.trim().split('\n').map((w, i) => `echo ${w} ${i ? '>>' : '>'} /tmp/fruits.txt`).join('; ');

describe('ARM machine: boot', () => {
  it('boots the kernel, runs init and powers off with the program status', async () => {
    const r = await runArm(['/bin/echo', 'hello', 'guest world'], { cmdline: '' });
    expect(poweroffStatus(r)).toBe(0);
    expect(r.output).toMatch(/^wdtrace guest kernel \(armv7l\), 1 CPU\(s\), 64 MiB RAM, \d+ pages free\n/);
    expect(r.output).toMatch(/initramfs: \d+ entries unpacked\n/);
    expect(r.output.endsWith('hello guest world\n')).toBe(true);
    expect(r.machine.instructions).toBeGreaterThan(100_000);
    // CPU 0 ends in the kernel, with the MMU on and the kernel's vectors.
    const regs = r.machine.registers(0);
    expect(regs.userMode()).toBe(false);
    expect(regs.pc() >= 0xc000_0000n).toBe(true);
  });

  it('passes the exit status of init\'s program to the host', async () => {
    expect(poweroffStatus(await runArm(['/bin/true']))).toBe(0);
    expect(poweroffStatus(await runArm(['/bin/false']))).toBe(1);
    expect((await sh('exit 7')).status).toBe(7);
  });

  it('boots with the smallest RAM the board allows and a slower virtual clock', async () => {
    const r = await runArm(['/bin/sh', '-c', 'forkheavy 5; sleep 1; echo ok'], { cmdline: '', ramBytes: 16 << 20, nsPerInsn: 7 });
    expect(poweroffStatus(r)).toBe(0);
    expect(r.output).toMatch(/^wdtrace guest kernel \(armv7l\), 1 CPU\(s\), 16 MiB RAM, \d+ pages free\n/);
    expect(r.output.endsWith('forkheavy children=5 status_sum=10\nok\n')).toBe(true);
    expect(r.machine.now()).toBeGreaterThanOrEqual(1e9);
    expect(r.machine.now()).toBeGreaterThanOrEqual(r.machine.instructions * 7);
  });

  it('hands init a long command line whole (BOARD.md allows 3839 bytes)', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}-${'x'.repeat(40)}`);
    const r = await runArm(['/bin/echo', ...words]);
    expect(r.machine.cmdline.length).toBeGreaterThan(2800);
    expect(r.output).toBe(`${words.join(' ')}\n`);
    const tooMany = await runArm(['/bin/echo', ...Array.from({ length: 70 }, (_, i) => `${i}`)], { cmdline: '' });
    expect(tooMany.output).toContain('cmdline: init takes at most 63 arguments; 8 more dropped\n');
    expect(tooMany.output).toContain(`${Array.from({ length: 62 }, (_, i) => `${i}`).join(' ')}\n`);
  });

  it('is deterministic: same output and instruction counts on two runs', async () => {
    const script = `${MAKE_FRUITS}; sort /tmp/fruits.txt | head -n 2; syscallheavy 50; forkheavy 5; sleep 0.01; echo done`;
    const a = await sh(script, { cpus: 2 });
    const b = await sh(script, { cpus: 2 });
    expect(a.output).toBe(b.output);
    expect(a.output.endsWith('apple\napple\nsyscallheavy iterations=50 calls_ok=200\nforkheavy children=5 status_sum=10\ndone\n')).toBe(true);
    expect(a.machine.instructions).toBe(b.machine.instructions);
    expect(a.machine.retired(0)).toBe(b.machine.retired(0));
    expect(a.machine.retired(1)).toBe(b.machine.retired(1));
    expect(a.machine.now()).toBe(b.machine.now());
  });

  it('on one CPU the length of a turn changes nothing: device reads see the exact virtual time', async () => {
    const script = 'syscallheavy 300; forkheavy 5; sleep 1; cpubound 1';
    const runs = await Promise.all([1000, 10_000, 77_777].map((slice) => sh(script, { sliceInstructions: slice })));
    for (const r of runs.slice(1)) {
      expect(r.output).toBe(runs[0]!.output);
      expect(r.machine.instructions).toBe(runs[0]!.machine.instructions);
      expect(r.machine.now()).toBe(runs[0]!.machine.now());
    }
  });

  it('brings up secondary CPUs and runs work on them', async () => {
    const r = await sh('forkheavy 20; cpubound 1', { cpus: 4, cmdline: '' });
    expect(r.status).toBe(0);
    for (const cpu of [1, 2, 3]) expect(r.output).toContain(`smp: CPU ${cpu} online\n`);
    expect(r.output).toContain('forkheavy children=20 status_sum=190\n');
    for (const cpu of [1, 2, 3]) {
      expect(r.machine.cpuStarted(cpu)).toBe(true);
      expect(r.machine.retired(cpu)).toBeGreaterThan(0);
    }
  });

  it('brings every CPU online before init runs, however short the program', async () => {
    const r = await runArm(['/bin/echo', 'hi'], { cpus: 4, cmdline: '' });
    expect(r.output).toMatch(/smp: CPU 1 online\nsmp: CPU 2 online\nsmp: CPU 3 online\nhi\n$/);
    for (const cpu of [1, 2, 3]) expect(r.machine.cpuStarted(cpu)).toBe(true);
  });
});

describe('ARM machine: several CPUs under load', () => {
  for (const slice of [997, 10_000]) {
    it(`runs background jobs, pipes and forks on 4 CPUs taking turns of ${slice} instructions`, async () => {
      const r = await sh('forkheavy 40 & forkheavy 40 & syscallheavy 2000 & cpubound 2 & syscallheavy 1000 | wc; forkheavy 30; sleep 2; echo all done', { cpus: 4, sliceInstructions: slice });
      expect(r.status).toBe(0);
      // Each program's line is one write, so it stays whole; the shell's job numbers interleave between writes.
      for (const want of [
        'forkheavy children=40 status_sum=780',
        'cpubound rounds=2 hash=f964fc55 checksum=5a8e0eca primes=5035',
        '      1       3      43',
        'forkheavy children=30 status_sum=435',
        'syscallheavy iterations=2000 calls_ok=8000',
      ]) {
        expect(r.output).toContain(want);
      }
      expect(r.output.endsWith('all done\n')).toBe(true);
      expect(r.output.split('forkheavy children=40 status_sum=780\n').length).toBe(3);
      for (const cpu of [0, 1, 2, 3]) expect(r.machine.retired(cpu)).toBeGreaterThan(1_000_000);
    });
  }
});

describe('ARM machine: programs', () => {
  it('echo prints its arguments, -n without newline', async () => {
    expect((await runArm(['/bin/echo', '-n', 'x'])).output).toBe('x');
    expect((await sh("echo a 'b  c'; echo -n d; echo e")).output).toBe('a b  c\nde\n');
  });

  it('true and false exit 0 and 1', async () => {
    expect((await sh('true; echo $?; false; echo $?')).output).toBe('0\n1\n');
  });

  it('cat copies files and stdin, reports a missing file', async () => {
    expect((await sh(`${MAKE_FRUITS}; cat /tmp/fruits.txt`)).output).toBe(FRUITS);
    expect((await runArm(['/bin/cat'], { consoleInput: 'from stdin\n' })).output).toBe('from stdin\n');
    const missing = await runArm(['/bin/cat', 'nope']);
    expect(missing.output).toBe('cat: nope: No such file or directory\n');
    expect(poweroffStatus(missing)).toBe(1);
  });

  it('wc counts lines, words and bytes', async () => {
    expect((await runArm(['/bin/wc'], { consoleInput: 'one two\nthree\n' })).output).toBe('      2       3      14\n');
    expect((await sh(`${MAKE_FRUITS}; cd /tmp; wc -l fruits.txt`)).output).toBe('      5 fruits.txt\n');
  });

  it('sort sorts, -r reverses, -u drops repeats, -n is numeric', async () => {
    expect((await sh(`${MAKE_FRUITS}; sort /tmp/fruits.txt; sort -ru /tmp/fruits.txt`)).output).toBe('apple\napple\nbanana\nfig\npear\npear\nfig\nbanana\napple\n');
    expect((await runArm(['/bin/sort', '-n'], { consoleInput: '10\n9\n100\n-1\n' })).output).toBe('-1\n9\n10\n100\n');
  });

  it('head prints the first lines', async () => {
    expect((await sh(`${MAKE_FRUITS}; head -n 2 /tmp/fruits.txt`)).output).toBe('pear\napple\n');
    expect((await runArm(['/bin/head', '-1'], { consoleInput: 'a\nb\n' })).output).toBe('a\n');
  });

  it('grep finds fixed strings with the right exit status', async () => {
    const r = await sh(
      `${MAKE_FRUITS}; cd /tmp; grep an fruits.txt; grep -c apple fruits.txt; grep -vn p fruits.txt; grep -i FIG fruits.txt; ` +
        'grep kiwi fruits.txt; echo $?; grep x missing; echo $?',
    );
    expect(r.output).toBe('banana\n2\n3:fig\n4:banana\nfig\n1\ngrep: missing: No such file or directory\n2\n');
  });

  it('ls lists a directory sorted, -a shows dot files, -l shows sizes', async () => {
    const r = await sh('cd /tmp; echo 1234 > b.txt; echo -n > a.txt; echo > .hidden; ls; ls -a; ls -l /tmp /etc; ls /no/such/dir; echo $?; ls /');
    const lines = r.output.split('\n');
    expect(lines.slice(0, 7)).toEqual(['a.txt', 'b.txt', '.', '..', '.hidden', 'a.txt', 'b.txt']);
    expect(lines.slice(7, 15)).toEqual([
      '/tmp:',
      '-rw-r--r--        0 a.txt',
      '-rw-r--r--        5 b.txt',
      '/etc:',
      '-rw-r--r--        8 hostname',
      '-rw-r--r--       30 motd',
      '-rw-r--r--       26 passwd',
      '-rw-r--r--       88 rc',
    ]);
    expect(r.output).toContain("ls: cannot access '/no/such/dir': No such file or directory\n2\n");
    expect(r.output.endsWith('bin\ndev\netc\nhome\nproc\nsbin\ntmp\n')).toBe(true);
  });

  it('sleep waits in virtual time and rejects garbage', async () => {
    const r = await sh('sleep 2; echo $?; sleep soon; echo $?');
    expect(r.output).toMatch(/^0\nsleep: .*\n1\n$/);
    // Two seconds of virtual time passed, mostly while every CPU was idle.
    expect(r.machine.now()).toBeGreaterThanOrEqual(2e9);
    expect(r.machine.instructions).toBeLessThan(2e8);
  });

  it('cpubound prints the checksum qemu-arm and x86-64 give', async () => {
    expect((await runArm(['/bin/cpubound', '3'])).output).toBe('cpubound rounds=3 hash=d66f59a9 checksum=710445ac primes=4946\n');
  });

  it('syscallheavy and forkheavy complete', async () => {
    const r = await sh('syscallheavy 200; forkheavy 10');
    expect(r.output).toBe('syscallheavy iterations=200 calls_ok=800\nforkheavy children=10 status_sum=45\n');
  });
});

describe('ARM machine: shell and processes', () => {
  it('runs pipelines', async () => {
    const r = await sh(`${MAKE_FRUITS}; cat /tmp/fruits.txt | sort | head -n 3; echo one two three | wc -w`);
    expect(r.output).toBe('apple\napple\nbanana\n      3\n');
  });

  it('redirects < > >> and 2>&1', async () => {
    const r = await sh('cd /tmp; echo first > out.txt; echo second >> out.txt; cat < out.txt; cat missing-file 2>&1 | wc -l; cat < missing-file; echo $?');
    expect(r.output).toMatch(/^first\nsecond\n {6}1\n.*\n1\n$/);
  });

  it('gives exit status through $?, ;, && and ||, and 127 for a missing command', async () => {
    const r = await sh('false; echo $?; true && echo yes || echo no; false && echo yes || echo no; no-such-command; echo $?');
    expect(r.output).toMatch(/^1\nyes\nno\n.*no-such-command.*\n127\n$/);
  });

  it('wakes a reader asleep on the console when interactive input ends (no interrupt marks the end)', async () => {
    const { machine: m, output } = await armMachine({ cmdline: 'quiet', interactive: true, args: ['/bin/wc', '-l'] });
    expect(m.run({ instructions: 50_000_000 })).toMatchObject({ kind: 'input' });
    m.input('a\nb\n');
    expect(m.run({ instructions: 50_000_000 })).toMatchObject({ kind: 'input' }); // wc read both lines and sleeps again
    const before = m.now();
    m.closeInput();
    expect(m.run({ instructions: 50_000_000 })).toEqual({ kind: 'poweroff', status: 0 });
    expect(output()).toBe('      2\n');
    expect(m.now() - before).toBeLessThan(20_000_000); // noticed at the next 10 ms tick
  });

  it('reads a script from standard input', async () => {
    const r = await runArm(['/bin/sh'], { consoleInput: 'echo a\necho b | cat\nexit 3\necho never\n' });
    expect(r.output).toBe('$ a\n$ b\n$ '); // the console is a terminal: sh prompts
    expect(poweroffStatus(r)).toBe(3);
  });

  it('forks, execs and waits: exit statuses and signals come back to the parent', async () => {
    const r = await sh("sh -c 'exit 5'; echo $?; sh -c 'sh -c false; exit 9'; echo $?; fault; echo fault=$?; forkheavy 30");
    expect(r.output).toMatch(/^5\n9\n/);
    expect(r.output).toContain('fault: writing to address 0\n');
    expect(r.output).toContain('fault=139\n');
    expect(r.output.endsWith('forkheavy children=30 status_sum=435\n')).toBe(true);
  });

  it('kills a faulting program with SIGSEGV and the kernel goes on', async () => {
    const r = await sh('fault; echo status=$?; echo still running');
    expect(r.output).toMatch(/^fault: writing to address 0\n(.*segfault at 0 pc 0x[0-9a-f]+ \(write\)\n)?status=139\nstill running\n$/);
    expect(r.status).toBe(0);
    // Killed directly by init: 128 + SIGSEGV.
    expect(poweroffStatus(await runArm(['/bin/fault']))).toBe(139);
  });
});
