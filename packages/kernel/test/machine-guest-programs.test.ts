// The guest's own programs and shell on the guest kernel of each ISA: the
// file tools, ps over /proc/tasks, kill, nice, the workloads, --help on every
// program, the shell's traps, jobs and errors, and clock_nanosleep and
// setpriority through the libc.
import { describe, expect, it } from 'vitest';
import { ISAS } from '../src/index.js';
import { runMachine, shell, type GuestMachineOptions } from './machine-support.js';

/** Runs a shell script in the guest from a file (the kernel command line cannot carry double quotes). */
const script = (isa: (typeof ISAS)[number], text: string, options: GuestMachineOptions = {}) =>
  runMachine(isa, ['/bin/sh', '/etc/test.sh'], { ...options, files: [{ path: '/etc/test.sh', data: new TextEncoder().encode(`${text}\n`) }] });

const PROGRAMS = ['cp', 'date', 'dd', 'env', 'fileio', 'kill', 'kvd', 'mallocstress', 'mkdir', 'mv', 'nice', 'pipeserver', 'ps', 'rm', 'seq', 'sh', 'spin', 'stat', 'sysprobe', 'tee', 'touch', 'uname', 'xargs', 'yes'];

describe.each(ISAS)('%s guest: programs and shell', (isa) => {
  it('every new program answers --help with a usage line', async () => {
    const PROGRAMS_HERE = isa === 'x86_64' ? [...PROGRAMS, 'fpmix'] : PROGRAMS;
    const r = await shell(isa, PROGRAMS_HERE.map((p) => `/bin/${p} --help | head -n 1`).join('; '));
    expect(r.status).toBe(0);
    const lines = r.output.trim().split('\n');
    expect(lines.length).toBe(PROGRAMS_HERE.length);
    PROGRAMS_HERE.forEach((p, i) => expect(lines[i]).toMatch(new RegExp(`^usage: ${p}( |$)`)));
  });

  it('file tools: mkdir, touch, cp, mv, rm, stat, tee, dd, seq, xargs, env, uname, date', async () => {
    const r = await script(isa, [
      'mkdir -p /tmp/a/b/c && touch /tmp/a/b/c/f && ls /tmp/a/b/c',
      'seq 3 | tee /tmp/a/s.txt | wc -l; cat /tmp/a/s.txt',
      'cp /tmp/a/s.txt /tmp/a/b/ && mv /tmp/a/b/s.txt /tmp/a/t.txt && cat /tmp/a/t.txt | xargs echo got',
      'stat /tmp/a/t.txt | head -n 2',
      'dd if=/tmp/a/t.txt of=/tmp/a/d.txt bs=2 count=2 2>/dev/null; cat /tmp/a/d.txt',
      'rm /tmp/a/b 2>&1; rm -r /tmp/a && ls /tmp',
      'mkdir /tmp; echo mkdir=$?',
      'env -i X=1 env; seq -s , 2 2 8; seq -w 8 10',
      'uname -sm; date -d @0; date -d @86399 +%F.%T; yes ok | head -n 2',
      'printf "a b\\nc\\n" | xargs -n 1 echo arg',
    ].join('; '));
    expect(r.output).toBe([
      'f',
      '      3', '1', '2', '3',
      'got 1 2 3',
      '  File: /tmp/a/t.txt', '  Size: 6          Type: regular file',
      '1\n2',
      'rm: cannot remove \'/tmp/a/b\': Is a directory',
      'mkdir: cannot create directory \'/tmp\': File exists', 'mkdir=1',
      'X=1', '2,4,6,8', '08', '09', '10',
      `Linux ${isa === 'arm' ? 'armv7l' : 'x86_64'}`, 'Thu Jan  1 00:00:00 UTC 1970', '1970-01-01.23:59:59', 'ok', 'ok',
      'arg a', 'arg b', 'arg c',
      '',
    ].join('\n'));
  });

  it('ps lists the tasks from /proc/tasks; kill signals them; jobs and wait', async () => {
    const r = await shell(isa, 'sleep 5 & sleep 0.1; ps; kill -l 15; kill $!; wait $!; echo status=$?; kill 99999; echo $?; /bin/kill 99999; echo $?; /bin/kill -l 9; cat /proc/tasks | head -n 1', { cpus: 2 });
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('  PID  PPID S CPU  NI     TIME CMD');
    expect(r.output).toMatch(/\n +1 +0 S +-?\d +0 +\d+:\d\d\.\d\d init\n/);
    expect(r.output).toMatch(/\n +\d+ +\d+ S +-?\d +0 +\d+:\d\d\.\d\d sleep\n/);
    expect(r.output).toMatch(/\n +\d+ +\d+ R +\d +0 +\d+:\d\d\.\d\d ps\n/);
    expect(r.output).toContain('\nTERM\nstatus=143\nsh: kill: 99999: No such process\n1\nkill: (99999) - No such process\n1\nKILL\nPID TGID PPID STATE CPU NICE UTIME STIME COMM\n');
  });

  it('nice sets the nice value that ps shows; setpriority errors are Linux\'s', async () => {
    const r = await script(isa, 'nice; nice -n 5 nice; nice -n 7 ps | grep " ps"; nice -n 50 nice; nice -n x true; echo $?');
    expect(r.output).toMatch(/^0\n5\n +\d+ +\d+ R +\d +7 +\d+:\d\d\.\d\d ps\n19\nnice: invalid adjustment 'x'\n125\n$/);
  });

  it('workloads: pipe server and clients, allocator stress, file I/O', async () => {
    const r = await shell(isa, 'pipeserver 3 10; mallocstress 300 32; fileio 3 5000', { cpus: 2 });
    expect(r.output).toMatch(/^pipeserver clients=3 requests=30 sum=31080 errors=0\nmallocstress rounds=300 slots=32 bytes=\d+ corrupt=0\nfileio files=3 written=15015 read=15000 errors=0\n$/);
    expect(r.status).toBe(0);
  });

  it('shell: traps, unset variables, loops, functions, errors without a crash', async () => {
    const r = await script(isa, [
      'trap \'echo caught USR1\' USR1; kill -USR1 $$',
      'echo "[$unset]"',
      'f() { echo "f $1"; return 2; }; for i in 1 2; do f $i; done; echo $?',
      'n=0; while [ $n -lt 3 ]; do n=$((n+1)); done; echo n=$n',
      'case abc in a*) echo glob;; esac; echo /bin/ec*',
      'sh -c \'if\'; echo syntax=$?',
      'sh -c \'echo $((1/0))\'; echo arith=$?',
      'sleep 1 & jobs; wait; echo waited',
    ].join('; '));
    expect(r.output).toBe([
      'caught USR1', '[]', 'f 1', 'f 2', '2', 'n=3', 'glob', '/bin/echo',
      'sh: syntax error: unexpected end of file', 'syntax=2',
      'sh: arithmetic expression: division by zero', 'arith=2',
      '[1]+ Running                 sleep 1', 'waited', '',
    ].join('\n'));
  });

  // The ARM guest is soft-float (no VFP state to keep); fpmix is x86-64's.
  it.skipIf(isa === 'arm')(`FPU state survives context switches: two fpmix on one CPU print what one alone prints${isa === 'arm' ? ' (skipped: the ARM guest is soft-float)' : ''}`, async () => {
    // 50 ns per instruction: a timer tick every 200,000 instructions, so
    // both are preempted many times with their sums in FPU registers.
    const alone = await shell(isa, 'fpmix 60000', { nsPerInsn: 50 });
    expect(alone.output).toMatch(/^fpmix rounds=60000 harmonic=\d+ half=\d+ x87=\d+\n$/);
    const both = await shell(isa, 'fpmix 60000 > /tmp/a & fpmix 60000 > /tmp/b & wait; cat /tmp/a /tmp/b', { nsPerInsn: 50, cpus: 1 });
    expect(both.output).toBe(alone.output + alone.output);
  });

  it('clock_nanosleep: spin rests until an absolute deadline (TIMER_ABSTIME)', async () => {
    const r = await shell(isa, 'spin 50 200; echo $?');
    expect(r.output).toMatch(/^spin ms=50 count=\d+\n0\n$/);
    expect(r.machine.now()).toBeGreaterThanOrEqual(250e6);
    expect(r.machine.now()).toBeLessThan(400e6);
  });
});
