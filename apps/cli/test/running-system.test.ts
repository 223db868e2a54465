// dtrace(1) on a running guest, run as a user runs it (the wdtrace command in
// a process of its own): without -c the guest boots and stays up, idle or
// running --boot's work, its console kept out of the trace output; BEGIN
// fires on the running kernel; ticks, --run-for, ^C and SIGTERM end tracing
// as dtrace(1) ends it; -p grabs any process of the running guest; -c feeds
// the command standard input; the target's end is reported as dtrace(1)'s
// prochandler reports it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));

/** Runs wdtrace with `input` on its standard input; resolves with what it printed and its status. */
function run(args: string[], input = ''): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (status) => resolve({ stdout, stderr, status }));
    child.stdin.end(input);
  });
}

/** Starts wdtrace, sends `signal` once `ready` is on stderr, and resolves with what it printed and its status. */
function signalled(args: string[], ready: string, signal: NodeJS.Signals): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // The first tick is proof that tracing runs; then the signal ends it.
      if (!sent && stdout.includes(ready)) {
        sent = true;
        child.kill(signal);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ stdout, stderr, status }));
  });
}

describe.concurrent.each(['x86_64', 'arm'])('wdtrace on a running %s guest', (arch) => {
  it('fires BEGIN on the booted kernel: its CPUs are online', async () => {
    const r = await run(['--arch', arch, '--cpus', '2', '-q', '-n', 'BEGIN { printf("%d cpus\\n", `nr_cpus_online); exit(0); }']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('2 cpus\n\n');
    expect(r.status).toBe(0);
  }, 240_000);

  it('stays up for --run-for: every tick fires, and the console is not in the trace output', async () => {
    const r = await run(['--arch', arch, '-q', '-n', 'BEGIN { start = timestamp; } tick-1s { printf("tick %d\\n", (timestamp - start) / 1000000000); }', '--run-for', '3s']);
    expect(r.stdout).toBe('tick 1\ntick 2\ntick 3\n\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 240_000);

  it('runs --boot work: a CPU-bound program started at boot is on CPU while tracing runs', async () => {
    const r = await run(['--arch', arch, '--boot', '/bin/cpubound 50 &', '--run-for', '100ms', '-q', '-n', 'profile-997 /execname == "cpubound"/ { @ = count(); }']);
    expect(Number(r.stdout.trim())).toBeGreaterThan(50);
    expect(r.status).toBe(0);
  }, 240_000);

  it('gives a CPU-bound program on one CPU every profile sample: the scheduler keeps it on when its slice ends', async () => {
    // A task whose slice ends with nothing else runnable runs on at once; the idle loop is not entered.
    const r = await run(['--arch', arch, '--cpus', '1', '--boot', '/bin/cpubound 100000 &', '--run-for', '300ms', '-q', '-n', 'profile-997 { @[execname] = count(); }']);
    // The boot shell takes the first few samples (it forks and execs cpubound as tracing starts); the idle loop none.
    const m = /^\n {2}sh +(\d+)\n {2}cpubound +(\d+)\n$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![1]) + Number(m![2])).toBe(299);
    expect(Number(m![2])).toBeGreaterThan(280);
    expect(r.status).toBe(0);
  }, 240_000);

  it('runs on the time scale --ns-per-insn sets: the same instructions take a tenth of the virtual time at 1 ns as at the default 10', async () => {
    // The command's output, then the count (the last line).
    const count = async (extra: string[]) => Number((await run(['--arch', arch, ...extra, '-q', '-n', 'profile-997 /execname == "cpubound"/ { @ = count(); }', '-c', '/bin/cpubound 20'])).stdout.trim().split('\n').pop());
    const fast = await count(['--ns-per-insn', '1']);
    expect(fast).toBeGreaterThan(20);
    expect(await count([])).toBeGreaterThan(5 * fast);
  }, 240_000);

  it.each([1, 4])('keeps the same seconds on %i CPUs: --run-for 2s fires tick-1s twice, ticks and timestamps agree', async (cpus) => {
    const busy = Array.from({ length: cpus }, () => '/bin/cpubound 100000 &').join(' ');
    const r = await run(['--arch', arch, '--cpus', String(cpus), '--boot', busy, '--run-for', '2s', '-q', '-n', 'BEGIN { last = timestamp; } tick-1s, tick-250ms { printf("%s %d\\n", probename, timestamp - last); last = timestamp; }']);
    expect(r.stderr).toBe('');
    // Every second, tick-1s (the lower probe ID) fires first, then tick-250ms at the same time.
    const second = 'tick-250ms 250000000\n'.repeat(3) + 'tick-1s 250000000\ntick-250ms 0\n';
    expect(r.stdout).toBe(second.repeat(2) + '\n');
    expect(r.status).toBe(0);
  }, 360_000);

  it('gives each of 4 busy CPUs profile-N samples at the rate of one busy CPU', async () => {
    const r = await run(['--arch', arch, '--cpus', '4', '--boot', 'for i in 1 2 3 4; do /bin/cpubound 100000 & done', '--run-for', '500ms', '-q', '-n', 'profile-97 { @[cpu, execname] = count(); }']);
    const rows = r.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
    // Every CPU's samples fall in cpubound, all but the few taken before the four had spread.
    for (const cpu of ['0', '1', '2', '3']) {
      const n = Number(rows.find((row) => row[0] === cpu && row[1] === 'cpubound')?.[2]);
      // 97 a second on each CPU: 48 in half a second.
      expect(n, r.stdout).toBeGreaterThanOrEqual(44);
      expect(n, r.stdout).toBeLessThanOrEqual(48);
    }
    expect(r.status).toBe(0);
  }, 360_000);

  it('runs a CPU-bound program as fast in virtual time on 4 busy CPUs as on 1 idle machine: each CPU\'s clock counts its own instructions', async () => {
    const took = async (cpus: number) => {
      const work = Array.from({ length: cpus }, () => '/bin/cpubound 20 > /dev/null &').join(' ');
      const r = await run(['--arch', arch, '--cpus', String(cpus), '--boot', work, '--run-for', '3s', '-q', '-n', 'BEGIN { start = timestamp; } proc:::exit /execname == "cpubound"/ { @ = max((timestamp - start) / 1000000); }']);
      expect(r.status).toBe(0);
      return Number(r.stdout.trim());
    };
    const alone = await took(1);
    expect(alone).toBeGreaterThan(100);
    const four = await took(4);
    expect(four / alone).toBeGreaterThan(0.9);
    expect(four / alone).toBeLessThan(1.25);
  }, 360_000);

  it('grabs any process with -p and reports its end', async () => {
    // The boot shell is pid 2; the programs it starts are 3, 4 ...
    const s = await run(['--arch', arch, '--boot', '/bin/sleep 1 & /bin/cpubound 1 &', '-p', '3', '-n', 'syscall:::entry /pid == $target/ { @[probefunc] = count(); }']);
    expect(s.stderr).toContain("dtrace: description 'syscall:::entry ' matched 115 probes\n");
    expect(s.stderr).toContain('dtrace: pid 3 has exited\n');
    // sleep is grabbed in or just before its nanosleep: what follows is its exit.
    expect(s.stdout).toMatch(/^\n {2}exit_group +1\n( {2}nanosleep +1\n)?$/);
    expect(s.status).toBe(0);
    // The boot shell itself, ending with a status (the guest then powers off: init's program is gone).
    const r = await run(['--arch', arch, '--boot', '/bin/sleep 1; exit 3', '-p', '2', '-n', 'proc:::exit /pid == $target/ { trace(args[0]); }']);
    expect(r.stderr).toContain('dtrace: pid 2 exited with status 3\n');
    expect(r.stdout).toMatch(/:exit +1 *\n\n$/);
    expect(r.status).toBe(0);
  }, 240_000);

  it('refuses a process that does not exist at once, even with standard input left open', async () => {
    const r = await new Promise<{ stderr: string; status: number | null }>((resolve) => {
      const child = spawn(process.execPath, [bin, '--arch', arch, '-p', '77', '-n', 'BEGIN'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (status) => resolve({ stderr, status }));
    });
    expect(r.stderr).toBe('dtrace: failed to grab pid 77: No such process\n');
    expect(r.status).toBe(1);
  }, 240_000);

  it('passes standard input to a -c command and reports how it ended', async () => {
    const cat = await run(['--arch', arch, '-q', '-n', 'syscall::read:return /pid == $target && arg0 > 0/ { @bytes = sum(arg0); }', '-c', '/bin/cat'], 'hello\n');
    expect(cat.stdout).toBe('hello\n\n                6\n');
    expect(cat.status).toBe(0);
    expect((await run(['--arch', arch, '-n', 'BEGIN', '-c', '/bin/false'])).stderr).toBe("dtrace: description 'BEGIN' matched 1 probe\ndtrace: pid 2 exited with status 1\n");
    expect((await run(['--arch', arch, '-n', 'BEGIN', '-c', '/bin/fault'])).stderr).toBe("dtrace: description 'BEGIN' matched 1 probe\ndtrace: pid 2 terminated by SIGSEGV\n");
    expect((await run(['--arch', arch, '-n', 'BEGIN', '-c', '/bin/true'])).stderr).toBe("dtrace: description 'BEGIN' matched 1 probe\ndtrace: pid 2 has exited\n");
  }, 240_000);

  it.each(['SIGINT', 'SIGTERM'] as const)('ends on %s with END and the aggregations printed', async (signal) => {
    const r = await signalled(['--arch', arch, '-n', 'tick-100ms { printf("tick\\n"); @ticks = count(); } END { printf("end\\n"); }'], 'tick', signal);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/:END end\n\n\n +\d+\n$/);
  }, 240_000);
});
