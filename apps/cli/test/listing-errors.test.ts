// Listing and errors as a user meets them (the wdtrace command in a process of
// its own): -l with a description that matches nothing fails as dtrace -l
// fails; -f matches fbt and the function-level probes (kinst's per-
// instruction probes only when kinst is named); -l without a guest says how
// to list the kernel's probes; failed writes of trace output, a directory
// given to -s, truncated ELF files and bad option values get one line and a
// status, before anything is traced.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));
const HEADER = '   ID   PROVIDER            MODULE                          FUNCTION NAME\n';

function run(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { input: '', encoding: 'utf8' });
}

/** Runs wdtrace through the shell (for redirections and pipes). */
function shell(command: string) {
  return spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8', env: { ...process.env, NODE: process.execPath, BIN: bin } });
}

describe.each(['x86_64', 'arm'])('wdtrace -l on a %s guest', (arch) => {
  it('fails for a description that matches nothing, as dtrace -l does', () => {
    const r = run(['--arch', arch, '-l', '-n', 'sdt:::no-such-probe']);
    expect(r.stdout).toBe(HEADER);
    expect(r.stderr).toBe('dtrace: failed to match sdt:::no-such-probe: No probe matches description\n');
    expect(r.status).toBe(1);
    // Matched descriptions are listed; the status still says one failed.
    const mixed = run(['--arch', arch, '-l', '-n', 'BEGIN', '-n', 'fbt::no_such_function:entry']);
    expect(mixed.stdout).toMatch(/^ {3}ID.*\n +1 +dtrace +BEGIN\n$/);
    expect(mixed.stderr).toBe('dtrace: failed to match fbt::no_such_function:entry: No probe matches description\n');
    expect(mixed.status).toBe(1);
  }, 120_000);

  it('-f names a function: its fbt probes and the probes of other providers in it, not one kinst probe per instruction', () => {
    const r = run(['--arch', arch, '-l', '-f', 'sys_getpid']);
    const rows = r.stdout.split('\n').slice(1).filter((l) => l !== '').map((l) => l.trim().split(/\s+/).slice(1));
    expect(rows).toEqual([
      ['fbt', 'kernel', 'sys_getpid', 'entry'],
      ['fbt', 'kernel', 'sys_getpid', 'return'],
    ]);
    expect(r.status).toBe(0);
    // kinst's probes come when kinst is named.
    const k = run(['--arch', arch, '-l', '-f', 'kinst::sys_getpid']);
    expect(k.stdout.split('\n').filter((l) => / kinst /.test(l)).length).toBeGreaterThan(2);
  }, 120_000);
});

describe('wdtrace -l without a guest', () => {
  it('lists the idle machine\'s probes and says how to list the kernel\'s', () => {
    const r = run(['-l']);
    expect(r.stdout.startsWith(HEADER)).toBe(true);
    expect(r.stdout).toMatch(/ dtrace +BEGIN\n/);
    expect(r.stderr).toBe("dtrace: no guest machine: listing the probes of the idle machine (BEGIN, END, ERROR, profile); add --arch x86_64 or --arch arm to list the guest kernel's probes\n");
    expect(r.status).toBe(0);
  }, 60_000);
});

describe('wdtrace output and input errors', () => {
  it('ends with one line and status 1 when trace output cannot be written: a full device, a closed pipe', () => {
    const full = shell(`"$NODE" "$BIN" -n 'BEGIN { exit(0); }' > /dev/full`);
    expect(full.stderr).toBe("dtrace: description 'BEGIN ' matched 1 probe\ndtrace: failed to write to <stdout>: No space left on device\n");
    expect(full.status).toBe(1);
    const pipe = shell(`"$NODE" "$BIN" -q -n 'tick-1ms { printf("line\\n"); }' --run-for 10s | head -1`);
    expect(pipe.stdout.split('\n')[0]).toBe('line');
    expect(pipe.stderr).toBe('dtrace: failed to write to <stdout>: Broken pipe\n');
  }, 60_000);

  it('names a directory given to -s, and a file that cannot be written with -o', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wdtrace-'));
    const r = run(['-s', dir]);
    expect(r.stderr).toBe(`dtrace: failed to open ${dir}: Is a directory\n`);
    expect(r.status).toBe(1);
    const o = run(['-o', '/dev/full', '-n', 'BEGIN { exit(0); }']);
    expect(o.stderr).toBe("dtrace: description 'BEGIN ' matched 1 probe\ndtrace: failed to write to /dev/full: No space left on device\n");
    expect(o.status).toBe(1);
  }, 60_000);

  it('calls a truncated ELF file truncated, once, and a foreign one not an ELF file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wdtrace-'));
    const cut = join(dir, 'cut');
    writeFileSync(cut, readFileSync(process.execPath).subarray(0, 10));
    const c = run(['-n', 'BEGIN', '-c', cut]);
    expect(c.stderr).toBe(`dtrace: failed to execute ${cut}: truncated ELF identification (needs 16 bytes, file has 10) at offset 0x0\n`);
    expect(c.status).toBe(2);
    const text = join(dir, 'text');
    writeFileSync(text, 'just some text\n');
    const r = spawnSync(process.execPath, [bin, 'run', text], { encoding: 'utf8' });
    expect(r.stderr).toBe(`wdtrace run: ${text}: not an ELF file (bad magic) at offset 0x0\n`);
  }, 60_000);

  it('checks option values before anything is traced, with one range of CPUs for every machine', () => {
    for (const args of [['-n', 'BEGIN'], ['--arch', 'arm', '-n', 'BEGIN']]) {
      const r = run([...args, '--cpus', '9']);
      expect(r.stderr).toBe("dtrace: invalid CPU count '9': a machine has 1 to 8 CPUs\n");
      expect(r.status).toBe(2);
    }
    const d = run(['-n', 'BEGIN', '--run-for', '5parsecs']);
    expect(d.stderr).toBe("dtrace: invalid duration '5parsecs': expected a number with an optional unit (ns, us, ms, s, m, h)\n");
    expect(d.status).toBe(2);
    const u = run(['--no-such-option']);
    expect(u.stderr).toBe("dtrace: unknown option '--no-such-option'\n");
    expect(u.status).toBe(2);
  }, 60_000);
});
