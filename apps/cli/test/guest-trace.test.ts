// Tracing the guest from the command line: kernel probes on a booted guest of
// each ISA with -c (the command's output and the trace side by side, $target,
// "pid N has exited"), -l listing the guest's probes, and the errors.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));


// The ARM guest also as its Thumb-2 build (--thumb): kernel, module and programs in T32 code.
const MACHINES = [
  { name: 'x86_64', machine: ['--arch', 'x86_64'] },
  { name: 'arm', machine: ['--arch', 'arm'] },
  { name: 'arm-thumb', machine: ['--thumb'] },
];

describe.each(MACHINES)('wdtrace -c on a $name guest', ({ machine }) => {
  it('counts kernel function entries of the command, prints its output, and ends when it exits', async () => {
    const r = await wdtrace(...machine, '-n', 'fbt::sys_write:entry /pid == $target/ { @[execname, probefunc] = count(); }', '-c', '/bin/echo hello world');
    expect(r.stderr).toBe("dtrace: description 'fbt::sys_write:entry ' matched 1 probe\ndtrace: pid 2 has exited\n");
    expect(r.stdout).toBe('hello world\n\n  echo                                                sys_write                                                         1\n');
    expect(r.status).toBe(0);
  }, 120_000);

  it('traces system calls: entry arguments, return values, errno', async () => {
    const r = await wdtrace(
      ...machine, '-q',
      '-n', 'syscall::openat:entry /pid == $target/ { printf("openat(%s)\\n", copyinstr(arg1)); }',
      '-n', 'syscall::openat:return /pid == $target/ { printf("= %d errno %d\\n", arg0, errno); }',
      '-n', 'syscall::read:entry /pid == $target/ { @reads[arg0] = count(); }',
      '-c', '/bin/cat /etc/hostname /nonexistent',
    );
    expect(r.stdout).toBe(
      'wdtrace\ncat: /nonexistent: No such file or directory\n' +
        'openat(/etc/hostname)\n= 3 errno 0\nopenat(/nonexistent)\n= -1 errno 2\n\n' +
        '                3                2\n',
    );
    expect(r.status).toBe(0);
  }, 120_000);

  it('keys aggregations by stack(), func() and mod()', async () => {
    const r = await wdtrace(...machine, '-q', '-n', 'fbt::sys_write:entry /pid == $target/ { @s[stack(1)] = count(); @f[func(caller), mod(caller)] = count(); }', '-c', '/bin/echo hi');
    expect(r.stdout).toMatch(/^hi\n\n\n {14}kernel`do_syscall\+0x[0-9a-f]+\n {16}1\n/);
    // dt_print_sym's "  %-50s" for each symbol key, then the count.
    expect(r.stdout).toMatch(/\n {2}kernel`do_syscall {35}kernel {50,}1\n$/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('keys aggregations by user addresses (pid and address records) and prints them named', async () => {
    const r = await wdtrace(...machine, '-q', '-n', 'profile-997 /arg1 != 0/ { @u[uaddr(arg1)] = count(); }', '-c', '/bin/cpubound 2');
    // Each key names its address in the program that ran (cpubound`function+0xoffset), never a byte dump.
    const rows = r.stdout.split('\n').filter((l) => /^ {2}cpubound`/.test(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatch(/^ {2}cpubound`[A-Za-z_][\w.]*(\+0x[0-9a-f]+)? {2,}\d+$/);
    expect(r.stdout).not.toContain(' 0  1  2  3');
  }, 120_000);

  it('names user frames from the program\'s symbols and aggregates ufunc() keys by function', async () => {
    const u = await wdtrace(...machine, '-q', '-n', 'syscall::write:entry /pid == $target/ { ustack(); exit(0); }', '-c', '/bin/echo hi');
    const frames = u.stdout.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('echo`'));
    expect(frames.some((f) => /^echo`main\+0x[0-9a-f]+$/.test(f))).toBe(true);
    const a = await wdtrace(...machine, '-q', '-n', 'profile-997 /arg1 != 0 && pid == $target/ { @[ufunc(arg1)] = count(); }', '-c', '/bin/cpubound 2');
    const rows = a.stdout.split('\n').filter((l) => l.startsWith('  cpubound`'));
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.trim().split(/\s+/)[0])).size).toBe(rows.length);
  }, 120_000);

  it('prints kernel stacks symbolised against the guest kernel', async () => {
    const r = await wdtrace(...machine, '-q', '-n', 'fbt::sys_write:entry /pid == $target/ { stack(); exit(0); }', '-c', '/bin/echo hi');
    const frames = r.stdout.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('kernel`'));
    expect(frames.length).toBeGreaterThan(1);
    expect(frames[0]).toMatch(/^kernel`do_syscall\+0x[0-9a-f]+$/);
    expect(r.status).toBe(0);
  }, 120_000);
});

describe('the guest from the command line', () => {
  it('types args[] and kernel variables from the guest kernel DWARF; -q silences the exit notice', async () => {
    const r = await wdtrace('-q', '-n', 'fbt::sys_write:entry /pid == $target/ { printf("fd=%d count=%d cpus=%d\\n", args[0], args[2], `nr_cpus_online); }', '-c', '/bin/echo hi');
    expect(r.stdout).toBe('hi\nfd=1 count=3 cpus=1\n\n');
    expect(r.stderr).toBe('');
    const l = await wdtrace('-lv', '--arch', 'arm', '-n', 'fbt::sys_write:entry');
    expect(l.stdout).toContain('\t\targs[0]: long\n');
  }, 120_000);

  it('gives profile probes the kernel pc in arg0 and the user pc in arg1', async () => {
    const r = await wdtrace('-q', '-n', 'profile-997 /arg1 != 0/ { @u[execname] = count(); } profile-997 /arg0 != 0 && arg1 != 0/ { @both = count(); }', '-c', '/bin/cpubound 3');
    expect(r.stdout).toMatch(/^cpubound rounds=3 .*\n\n {2}cpubound {3,}\d+\n$/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('expands kinst::<inline function>:entry into probes at its inlined copies, shown by -d', async () => {
    const d = await wdtrace('--arch', 'x86_64', '-d', '-n', 'kinst::vfs_write:entry { @[probefunc, probename] = count(); }');
    const lines = d.stdout.split('\n');
    // vfs_write is inlined into its callers and also exists out of line.
    expect(lines.filter((l) => /^kinst::[a-z_]+:\d+,$/.test(l)).length).toBeGreaterThan(0);
    expect(d.stdout).toContain('fbt::vfs_write:entry\n{\n');
    const r = await wdtrace('-q', '-n', 'kinst::vfs_write:entry /pid == $target/ { @[probefunc] = count(); }', '-c', '/bin/echo hi');
    // echo's one write goes through sys_write, where vfs_write is inlined.
    expect(r.stdout).toMatch(/^hi\n\n {2}sys_write {2,}1\n$/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('types args[] from C type names with qualifiers and curthread as the kernel\'s struct task_struct *', async () => {
    // Tracing starts once the command (pid 2) is exec'd, as dtrace -c starts it: the shell's child is traced from its exec.
    const r = await wdtrace('-q', '-n', 'proc:::exec { printf("%s\\n", stringof(args[0])); } fbt::sys_write:entry /ppid == $target/ { printf("%s %d\\n", stringof(curthread->comm), curthread->parent->tgid); }', '-c', '/bin/sh -c /bin/echo');
    expect(r.stdout).toBe('\n/bin/echo\necho 2\n\n');
    expect(r.status).toBe(0);
  }, 120_000);

  it('lists the guest kernel probes with -l --arch', async () => {
    const r = await wdtrace('-l', '--arch', 'x86_64', '-n', 'fbt::sys_write:');
    expect(r.stdout).toMatch(/^ {3}ID {3}PROVIDER {12}MODULE {26}FUNCTION NAME\n/);
    expect(r.stdout).toMatch(/\n *\d+ +fbt +kernel +sys_write entry\n/);
    expect(r.stdout).toMatch(/\n *\d+ +fbt +kernel +sys_write return\n/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('picks the guest by itself when kernel probes are named', async () => {
    const r = await wdtrace('-q', '-n', 'proc:::exec-success { printf("%s\\n", execname); }', '-c', '/bin/sh -c /bin/true');
    expect(r.stdout).toContain('true\n');
    expect(r.status).toBe(0);
  }, 120_000);

  it('grabs a process of the running guest with -p and refuses one that does not exist or a bad pid', () => {
    const r = spawnSync(process.execPath, [bin, '--boot', '/bin/sleep 1 & printf boot', '-p', '2', '--run-for', '3s', '-n', 'syscall::write:entry /pid == $target/ { @writes = count(); }'], {
      encoding: 'utf8',
    });
    // The boot shell (pid 2) is grabbed as it starts: its printf builtin's write is among its writes; its
    // console goes to stderr, the trace alone to stdout.
    expect(r.stderr).toContain("dtrace: description 'syscall::write:entry ' matched 1 probe\n");
    expect(r.stderr).toContain('boot');
    expect(r.stdout).toMatch(/^\n +[1-9]\d*\n$/);
    expect(r.status).toBe(0);
    const missing = spawnSync(process.execPath, [bin, '-p', '77', '-n', 'syscall::write:entry'], { input: '', encoding: 'utf8' });
    expect(missing.stderr).toBe('dtrace: failed to grab pid 77: No such process\n');
    expect(missing.status).toBe(1);
    const bad = spawnSync(process.execPath, [bin, '-p', 'x', '-n', 'syscall::write:entry'], { input: '', encoding: 'utf8' });
    expect(bad.stderr).toBe('dtrace: invalid process ID -- x\n');
    expect(bad.status).toBe(2);
  }, 120_000);

  it('refuses --thumb for the x86-64 guest', async () => {
    const r = await wdtrace('--arch', 'x86_64', '--thumb', '-n', 'BEGIN');
    expect(r.stderr).toContain('--thumb is for the ARM guest, not --arch x86_64');
    expect(r.status).toBe(2);
  });

  it('reports a bad --arch and a missing -c program', async () => {
    const bad = await wdtrace('--arch', 'mips', '-n', 'BEGIN');
    expect(bad.stderr).toContain("invalid --arch 'mips': expected x86_64 or arm");
    expect(bad.status).toBe(2);
    const missing = await wdtrace('-n', 'fbt::sys_write:entry', '-c', '/no/such/program');
    expect(missing.stderr).toContain('failed to execute /no/such/program');
    expect(missing.status).toBe(2);
    expect(missing.stdout).toBe('');
  }, 120_000);

  it('refuses a -c command that is a guest file but no program, before the guest runs, as dtrace refuses a bad -c command', async () => {
    for (const arch of ['x86_64', 'arm']) {
      const notProgram = await wdtrace('--arch', arch, '-n', 'BEGIN', '-c', '/etc/hostname');
      expect(notProgram.stderr).toBe('dtrace: failed to execute /etc/hostname: cannot execute file\n');
      expect(notProgram.stdout).toBe('');
      expect(notProgram.status).toBe(1);
    }
    const directory = await wdtrace('-n', 'BEGIN', '-c', '/bin');
    expect(directory.stderr).toBe('dtrace: failed to execute /bin: cannot execute file\n');
    expect(directory.status).toBe(1);
  }, 120_000);

  it('reads the proc, sched and io probes\' arguments through their translators (psinfo_t, lwpsinfo_t, bufinfo_t ...)', async () => {
    for (const arch of ['x86_64', 'arm']) {
      const r = await wdtrace(
        '--arch', arch, '-q',
        '-n', 'proc:::create { printf("%d %s\\n", args[0]->pr_pid, args[0]->pr_fname); }',
        '-n', 'sched:::off-cpu { @[args[1]->pr_fname] = count(); }',
        '-n', 'io:::start /ppid == $target/ { printf("%d %s\\n", args[0]->b_bcount, args[2]->fi_pathname); }',
        '-c', '/bin/sh -c /bin/echo',
      );
      expect(r.stderr).toBe('');
      // The command (the shell, pid 2) forks echo as pid 3; echo writes "\n" (1 byte) to the console.
      const lines = r.stdout.split('\n');
      expect(lines.filter((l) => /^\d+ /.test(l))).toEqual(['3 sh', '1 /dev/console']);
      expect(r.stdout).toMatch(/\n {2}sh {2,}\d+\n/);
      expect(r.status).toBe(0);
    }
  }, 240_000);
});
