// The proc, sched and io probes' translated arguments on a booted guest of
// each ISA: programs compiled by the real compiler with the guest's D
// library (library.ts) and its kernel types, args[N] read through the
// translators from what the probe sites pass, and the values compared with
// what the guest did (its process ids, names, transfers and signals).
import type { Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { traceGuest } from './guest-support.js';

const trace = (isa: Isa, script: string, args: string[]) => traceGuest(isa, script, args, { quiet: true });

const lines = (s: string) => s.split('\n').filter((l) => l !== '');

describe.each(['x86_64', 'arm'] as const)('translated proc, sched and io arguments on a %s guest', (isa) => {
  it('proc:::create gives the child as psinfo_t: its pid, its parent (the forking process) and the name it inherits', async () => {
    // init (pid 1) forked the shell (pid 2) before tracing began (BEGIN fires once it is exec'd, as
    // dtrace -c starts tracing its command); the shell forks echo twice (pids 3 and 4).
    const { out, guestOut } = await trace(
      isa,
      'proc:::create { printf("create %d ppid %d by %d %s %s\\n", args[0]->pr_pid, args[0]->pr_ppid, pid, args[0]->pr_fname, execname); } ' +
        'proc:::exec-success { printf("exec %d %s\\n", pid, execname); }',
      ['/bin/sh', '-c', '/bin/echo a; /bin/echo b'],
    );
    expect(guestOut).toBe('a\nb\n');
    expect(lines(out)).toEqual([
      'create 3 ppid 2 by 2 sh sh',
      'exec 3 echo',
      'create 4 ppid 2 by 2 sh sh',
      'exec 4 echo',
    ]);
  }, 120_000);

  it('proc:::signal-send gives the target as lwpsinfo_t and psinfo_t and the signal as args[2] (native arg 1)', async () => {
    // Each exiting child sends SIGCHLD (17) to its parent: echo (3) to sh (2), sh (2) to init (1).
    const { out } = await trace(
      isa,
      'proc:::signal-send { printf("%d from %d to %d/%d %s %s\\n", args[2], pid, args[1]->pr_pid, args[0]->pr_lwpid, args[0]->pr_name, args[1]->pr_fname); }',
      ['/bin/sh', '-c', '/bin/echo a; exit 3'],
    );
    expect(lines(out)).toEqual(['17 from 3 to 2/2 sh sh', '17 from 2 to 1/1 init init']);
  }, 120_000);

  it('sched:::off-cpu names the next thread: counted by its name, it matches the on-cpu firings in that thread', async () => {
    const { out } = await trace(
      isa,
      'sched:::off-cpu /args[1]->pr_pid != 0/ { @["off", args[1]->pr_fname] = count(); } sched:::on-cpu /pid != 0/ { @["on", execname] = count(); } ' +
        'sched:::off-cpu /args[1]->pr_pid != 0 && (args[0]->pr_sname != \'R\' || args[0]->pr_state != 2 || args[0]->pr_lwpid != args[1]->pr_pid)/ { printf("odd %d\\n", args[0]->pr_lwpid); }',
      ['/bin/sh', '-c', '/bin/echo a | /bin/cat'],
    );
    // The thread switched to is runnable, not yet on a CPU (SRUN, 'R'), and single-threaded: nothing odd was printed.
    const rows = lines(out).map((l) => l.trim().split(/\s+/));
    expect(rows.every((r) => r.length === 3), out).toBe(true);
    const off = rows.filter((r) => r[0] === 'off');
    expect(off.map((r) => r[1]).sort()).toEqual(['init', 'sh']);
    // Each switch to a thread is followed by an on-cpu in it (the first of a new thread's in schedule_tail).
    for (const [, name, n] of off) expect(rows.find((r) => r[0] === 'on' && r[1] === name)?.[2], name).toBe(n);
  }, 120_000);

  it('sched:::enqueue gives the shared run queue as cpuinfo_t (no CPU: -1) and args[3] 0 (to the back)', async () => {
    const { out } = await trace(
      isa,
      'sched:::enqueue { @[args[2]->cpu_id, args[3], args[0]->pr_lwpid == args[1]->pr_pid] = count(); }',
      ['/bin/sh', '-c', '/bin/echo a'],
    );
    expect(out).toMatch(/^\n? +-1 +0 +1 +\d+\n$/);
  }, 120_000);

  it('io:::start and io:::done describe each transfer: sizes, direction, residual, device and file', async () => {
    // cat reads /etc/hostname ("wdtrace\n") into its buffer until end of file, and writes what it read to the console.
    const { out, guestOut } = await trace(
      isa,
      'io:::start /execname == "cat"/ { printf("start %s %d %s %s %s %s %s %d\\n", args[0]->b_flags & B_READ ? "R" : "W", args[0]->b_bcount, args[1]->dev_name, ' +
        'args[2]->fi_pathname, args[2]->fi_name, args[2]->fi_dirname, args[2]->fi_fs, args[2]->fi_offset); } ' +
        'io:::done /execname == "cat"/ { printf("done %d %d %d\\n", args[0]->b_bcount - args[0]->b_resid, args[0]->b_error, args[1]->dev_major != 0); }',
      ['/bin/cat', '/etc/hostname'],
    );
    expect(guestOut).toBe('wdtrace\n');
    const l = lines(out);
    const read = l.find((x) => x.startsWith('start R'))!;
    expect(read).toMatch(/^start R \d+ ramfs \/etc\/hostname hostname \/etc ramfs 0$/);
    expect(l[l.indexOf(read) + 1]).toBe('done 8 0 0');
    expect(l).toContain('start W 8 console /dev/console console /dev specfs 0');
    expect(l[l.indexOf('start W 8 console /dev/console console /dev specfs 0') + 1]).toBe('done 8 0 1');
    // The read at end of file: from offset 8, nothing transferred.
    expect(l.some((x) => /^start R \d+ ramfs \/etc\/hostname hostname \/etc ramfs 8$/.test(x))).toBe(true);
    expect(l).toContain('done 0 0 0');
  }, 120_000);
});
