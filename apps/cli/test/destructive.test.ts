// Destructive actions under -w, run as a user runs them (the wdtrace command
// in a process of its own), on both guests: raise() sends the signal through
// the guest kernel's own signal path as the thread returns to user mode,
// stop() stops the process until SIGCONT, chill() spins in virtual time,
// breakpoint() says there is no kernel debugger and tracing goes on, panic()
// panics the guest kernel (or, with no guest, ends tracing at once).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));

function run(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 110_000 });
}

describe.each(['x86_64', 'arm'])('destructive actions on the %s guest', (arch) => {
  it('raise() delivers the signal to the thread: the target is terminated by it', () => {
    const r = run(['--arch', arch, '-w', '-q', '-c', '/bin/sleep 1', '-n', 'syscall::*nanosleep:entry /pid == $target/ { raise(SIGUSR1); printf("raised\\n"); }', '-n', 'proc:::signal-send /args[1]->pr_pid == $target/ { printf("signal %d\\n", args[2]); }']);
    expect(r.stdout).toBe('raised\nsignal 10\n\n');
    expect(r.status).toBe(0);
    const loud = run(['--arch', arch, '-w', '-c', '/bin/sleep 1', '-n', 'syscall::*nanosleep:entry /pid == $target/ { raise(SIGUSR1); }']);
    expect(loud.stderr).toContain('dtrace: pid 2 terminated by SIGUSR1\n');
  }, 120_000);

  it('raise() of no signal is an illegal operation', () => {
    const r = run(['--arch', arch, '-w', '-q', '-c', '/bin/true', '-n', 'syscall::exit_group:entry /pid == $target/ { raise(65); }']);
    expect(r.stderr).toMatch(/^dtrace: error on enabled probe ID 1 \(ID \d+: syscall::exit_group:entry\): illegal operation in action #1$/m);
    expect(r.status).toBe(0);
  }, 120_000);

  it('stop() stops the process until SIGCONT continues it', () => {
    const r = run([
      '--arch', arch, '-w', '-q', '--run-for', '2s',
      '--boot', '/bin/cpubound 100000 & /bin/sleep 1; /bin/ps; /bin/kill -CONT 3',
      '-n', 'int done; profile-997 /pid == 3 && !done/ { stop(); done = 1; printf("stop\\n"); } proc:::signal-send /args[1]->pr_pid == 3/ { printf("signal %d\\n", args[2]); } profile-997 /pid == 3/ { @[done] = count(); }',
    ]);
    // Stopped by SIGSTOP on its way back to user mode, shown stopped by ps, continued by kill -CONT.
    expect(r.stdout).toMatch(/^stop\nsignal 19\nsignal 18\n\n {8}1 +\d+\n$/);
    expect(r.stderr).toMatch(/^ +3 +2 T .* cpubound$/m);
    // It ran after SIGCONT: most of the second second's samples are its.
    expect(Number(/ {8}1 +(\d+)/.exec(r.stdout)![1])).toBeGreaterThan(500);
    expect(r.status).toBe(0);
  }, 120_000);

  it('chill() spins its CPU in virtual time, at most 500 ms in any second', () => {
    const r = run(['--arch', arch, '-w', '-q', '-n', 'BEGIN { t = timestamp; chill(200000000); printf("%d ms\\n", (timestamp - t) / 1000000); exit(0); }']);
    expect(r.stdout).toBe('200 ms\n\n');
    const over = run(['--arch', arch, '-w', '-q', '-n', 'BEGIN { chill(300000000); chill(300000000); printf("not reached\\n"); } BEGIN { exit(0); }']);
    expect(over.stdout).toBe('\n');
    expect(over.stderr).toMatch(/illegal operation in action #2\n/);
  }, 120_000);

  it('breakpoint() is reported (no kernel debugger) and tracing goes on', () => {
    const r = run(['--arch', arch, '-w', '-q', '-n', 'BEGIN { breakpoint(); printf("after\\n"); exit(0); }']);
    expect(r.stderr).toBe('dtrace: breakpoint action at probe dtrace:::BEGIN (ecb 0x1): no kernel debugger is present; tracing continues\n');
    expect(r.stdout).toBe('after\n\n');
    expect(r.status).toBe(0);
  }, 120_000);

  it('panic() panics the guest kernel: its panic message, and tracing ends without END', () => {
    // Under -c the console is the command's terminal (standard output): the panic comes before the trace, and echo never writes.
    const r = run(['--arch', arch, '-w', '-q', '-c', '/bin/echo hi', '-n', 'syscall::write:entry /pid == $target/ { printf("write\\n"); } syscall::write:entry /pid == $target/ { panic(); } END { printf("END\\n"); }']);
    expect(r.stdout).toBe('\nKernel panic on CPU 0: dtrace: panic action at probe syscall::write:entry (ecb 0x2)\nwrite\n\n');
    expect(r.stderr).toBe('dtrace: the guest kernel panicked (status 255)\n');
    // On a running system the console is standard error.
    const running = run(['--arch', arch, '-w', '-q', '--boot', '/bin/echo hi', '-n', 'syscall::write:entry /execname == "echo"/ { panic(); }']);
    expect(running.stderr).toBe('\nKernel panic on CPU 0: dtrace: panic action at probe syscall::write:entry (ecb 0x1)\ndtrace: the guest kernel panicked (status 255)\n');
    expect(running.stdout).toBe('\n');
  }, 120_000);
});

describe('destructive actions with no guest', () => {
  it('panic() with no guest ends tracing at once, saying there is no kernel to panic', () => {
    const r = run(['-w', '-q', '-n', 'BEGIN { panic(); } END { printf("END\\n"); }']);
    expect(r.stderr).toBe('dtrace: panic action at probe dtrace:::BEGIN (ecb 0x1): there is no guest kernel to panic; tracing ends\n');
    expect(r.stdout).toBe('\n');
    expect(r.status).toBe(0);
  }, 60_000);

  it('chill() moves the idle machine\'s clock', () => {
    const r = run(['-w', '-q', '-n', 'BEGIN { t = timestamp; chill(1000); printf("%d\\n", timestamp - t); exit(0); }']);
    expect(r.stdout).toBe('1000\n\n');
  }, 60_000);
});
