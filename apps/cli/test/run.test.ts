// `wdtrace run`: boots the guest, runs a guest program or a host static ELF
// copied into the guest, passes the console through and exits with the
// program's status; clear errors for a wrong ISA, a non-ELF file and a
// missing file.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readInitrdEntries, type Isa } from '@wdtrace/kernel';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));
const images = fileURLToPath(new URL('../../../packages/kernel/guest/images/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'wdtrace-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function wdtrace(args: string[], input = '') {
  return spawnSync(process.execPath, [bin, 'run', ...args], { encoding: 'utf8', cwd: scratch, input, timeout: 120_000 });
}

/** A program of the committed initrd of `isa`, written to a host file. */
function guestProgram(name: string, isa: Isa = 'x86_64'): string {
  const initrd = new Uint8Array(readFileSync(join(images, isa, 'initrd.cpio')));
  const e = readInitrdEntries(initrd).entries.find((x) => x.name === `bin/${name}`)!;
  const path = join(scratch, `${isa}-${name}`);
  writeFileSync(path, initrd.subarray(e.dataStart, e.dataStart + e.size));
  chmodSync(path, 0o755);
  return path;
}

describe('wdtrace run', () => {
  it('runs a guest program and exits with its status', () => {
    const r = wdtrace(['--', '/bin/echo', 'hello', 'world']);
    expect(r.stdout).toBe('hello world\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(wdtrace(['--', '/bin/sh', '-c', 'echo out; exit 7'])).toMatchObject({ stdout: 'out\n', status: 7 });
    expect(wdtrace(['--', '/bin/false']).status).toBe(1);
  });

  it('takes the options after PROGRAM as the program\'s own, without --', () => {
    expect(wdtrace(['--cpus', '2', '/bin/ls', '-a', '/etc'])).toMatchObject({ stdout: '.\n..\nhostname\nmotd\npasswd\nrc\n', status: 0 });
  });

  it('passes standard input through; with no program the guest shell reads it', () => {
    expect(wdtrace(['--', '/bin/wc', '-l'], 'a\nb\nc\n')).toMatchObject({ stdout: '      3\n', status: 0 });
    const sh = wdtrace([], 'echo from the shell\nexit 4\n');
    expect(sh.stdout).toBe('$ from the shell\n$ ');
    expect(sh.status).toBe(4);
  });

  it('runs on several CPUs and keeps the boot messages with --verbose', () => {
    const r = wdtrace(['--cpus', '2', '--verbose', '--', '/bin/echo', 'smp']);
    expect(r.stdout).toMatch(/^wdtrace guest kernel \(x86_64\), 2 CPU\(s\), 64 MiB RAM/);
    expect(r.stdout).toContain('smp: CPU 1 online\n');
    expect(r.stdout.endsWith('smp\n')).toBe(true);
  });

  it('copies a host static executable into the guest and runs it with its arguments', () => {
    const path = guestProgram('echo');
    const r = wdtrace(['--', path, 'from', 'the host']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('from the host\n');
    expect(r.status).toBe(0);
    // the program is at /host/<name> in the guest
    const sh = guestProgram('sh');
    expect(wdtrace(['--', sh, '-c', 'ls /host'])).toMatchObject({ stdout: 'x86_64-sh\n', status: 0 });
  });

  it('clear errors: missing file, not an ELF file, wrong ISA, dynamic executable, bad options', () => {
    const missing = wdtrace(['--', join(scratch, 'nope')]);
    expect(missing.stderr).toBe(`wdtrace run: ${join(scratch, 'nope')}: no such file in the guest file system or on the host\n`);
    expect(missing.status).toBe(2);
    const text = join(scratch, 'notes.txt');
    writeFileSync(text, 'just text\n');
    const notElf = wdtrace(['--', text]);
    expect(notElf.stderr).toMatch(new RegExp(`^wdtrace run: ${text}: not an ELF file \\(`));
    expect(notElf.status).toBe(2);
    const armFile = join(scratch, 'arm-kernel.elf');
    writeFileSync(armFile, readFileSync(join(images, 'arm', 'kernel.elf')));
    const wrong = wdtrace(['--arch', 'x86_64', '--', armFile]);
    expect(wrong.stderr).toBe(`wdtrace run: ${armFile}: an ELF file for arm, but the machine is x86_64 (use --arch arm)\n`);
    expect(wrong.status).toBe(2);
    const dynamic = wdtrace(['--', process.execPath, '--version']);
    expect(dynamic.stderr).toBe(`wdtrace run: ${process.execPath}: dynamically linked; the guest runs static executables only\n`);
    expect(wdtrace(['--cpus', '9', '--', '/bin/true']).stderr).toBe("wdtrace run: --cpus must be a whole number from 1 to 8, not '9'\n");
    expect(wdtrace(['--arch', 'mips']).status).toBe(2);
  });
});

describe('wdtrace run --thumb', () => {
  it('runs the Thumb-2 build of the ARM guest, and refuses --thumb for x86-64', () => {
    expect(wdtrace(['--thumb', '--', '/bin/sh', '-c', 'echo thumb | wc -c; exit 5'])).toMatchObject({ stdout: '      6\n', status: 5 });
    expect(wdtrace(['--arch', 'x86_64', '--thumb', '--', '/bin/true'])).toMatchObject({ stderr: 'wdtrace run: --thumb is for the ARM guest, not --arch x86_64\n', status: 2 });
  });
});

describe('wdtrace run --arch arm', () => {
  it('runs a guest program on the ARM machine and exits with its status', () => {
    expect(wdtrace(['--arch', 'arm', '--', '/bin/echo', 'hello', 'arm'])).toMatchObject({ stdout: 'hello arm\n', stderr: '', status: 0 });
    expect(wdtrace(['--arch', 'arm', '--', '/bin/sh', '-c', 'echo out | wc -c; exit 7'])).toMatchObject({ stdout: '      4\n', status: 7 });
    expect(wdtrace(['--arch', 'arm', '--', '/bin/fault']).status).toBe(139);
  });

  it('passes standard input through and keeps the boot messages with --verbose on several CPUs', () => {
    expect(wdtrace(['--arch', 'arm', '--', '/bin/sort', '-r'], 'a\nc\nb\n')).toMatchObject({ stdout: 'c\nb\na\n', status: 0 });
    expect(wdtrace(['--arch', 'arm'], 'echo from the arm shell\nexit 4\n')).toMatchObject({ stdout: '$ from the arm shell\n$ ', status: 4 });
    // Work enough for CPU 1 to take the big kernel lock and say it is online before the end.
    const r = wdtrace(['--arch', 'arm', '--cpus', '2', '--verbose', '--', '/bin/sh', '-c', 'forkheavy 10 >/dev/null; echo smp']);
    expect(r.stdout).toMatch(/^wdtrace guest kernel \(armv7l\), 2 CPU\(s\), 64 MiB RAM/);
    expect(r.stdout).toContain('smp: CPU 1 online\n');
    expect(r.stdout.endsWith('smp\n')).toBe(true);
  });

  it('runs a host ARM static executable on the ARM machine without --arch, and refuses it on x86-64', () => {
    const path = guestProgram('echo', 'arm');
    expect(wdtrace(['--', path, 'from', 'an arm host file'])).toMatchObject({ stdout: 'from an arm host file\n', stderr: '', status: 0 });
    const wrong = wdtrace(['--arch', 'x86_64', '--', path]);
    expect(wrong.stderr).toBe(`wdtrace run: ${path}: an ELF file for arm, but the machine is x86_64 (use --arch arm)\n`);
    expect(wrong.status).toBe(2);
    const x86 = guestProgram('true');
    expect(wdtrace(['--arch', 'arm', '--', x86]).stderr).toBe(`wdtrace run: ${x86}: an ELF file for x86_64, but the machine is arm (use --arch x86_64)\n`);
  });
});
