// The usdt provider from the command line, on the three code sets: the
// probes of a -c command's program (linked after wdtrace -G) are listed with
// -l, fire at their sites with their arguments, args[] is translated by the
// provider definition's translators, an is-enabled site yields 1 only while
// its probe is enabled, and the program's output is otherwise unchanged.
// Beyond DTrace: probes of <sys/sdt.h>'s SystemTap notes, with their
// argument locations and semaphores, in freestanding and glibc programs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const FIXTURES = new URL('./fixtures/usdt/', import.meta.url).pathname;

describe.each([
  { set: 'x86_64', arch: ['--arch', 'x86_64'] },
  { set: 'arm', arch: ['--arch', 'arm'] },
  { set: 'thumb', arch: ['--thumb'] },
])('usdt probes of a $set program', ({ set, arch }) => {
  const exe = `${FIXTURES}shop-${set}`;

  it('lists the probes of provider$target with -l -c', async () => {
    const r = await wdtrace(...arch, '-l', '-c', exe, '-n', 'shop$target:::', '-n', 'shop$target:a.out:_start:');
    const rows = r.stdout.split('\n').slice(1, -1).map((l) => l.trim().split(/\s+/).slice(1).join(' '));
    expect(rows).toEqual([`shop2 shop-${set} place order-start`, `shop2 shop-${set} place order-done`, `shop2 shop-${set} _start tick`]);
    expect(r.status).toBe(0);
  }, 120_000);

  it('fires with the arguments of each site, args[] translated', async () => {
    const r = await wdtrace(
      ...arch,
      '-q',
      '-n', 'shop$target:::order-start { printf("start %d %s\\n", arg0, copyinstr(arg1)); }',
      '-n', 'shop$target:::order-done { printf("done %d %d %s\\n", args[0]->oi_id, args[0]->oi_total, args[0]->oi_item); }',
      '-n', 'shop$target:::tick { @ticks[probefunc] = count(); }',
      '-c', exe,
    );
    // order-start is enabled: its is-enabled site yields 1 and the program says "checked".
    expect(r.stdout).toBe('order apple\norder pear\norder fig\nchecked\nstart 1 apple\ndone 1 20 apple\nstart 2 pear\ndone 2 30 pear\nstart 3 fig\ndone 3 40 fig\n\n  _start                                                            3\n');
    expect(r.status).toBe(0);
  }, 120_000);

  it('leaves is-enabled sites yielding 0 while their probe is disabled', async () => {
    const r = await wdtrace(...arch, '-q', '-n', 'shop$target:::tick { @ = count(); }', '-c', exe);
    expect(r.stdout).toBe('order apple\norder pear\norder fig\nunchecked\n\n                3\n');
    const untraced = await wdtrace(...arch, '-q', '-n', 'BEGIN {}', '-c', exe);
    expect(untraced.stdout).toBe('order apple\norder pear\norder fig\nunchecked\n\n');
  }, 120_000);
});

describe.each([
  { set: 'x86_64', arch: ['--arch', 'x86_64'] },
  { set: 'arm', arch: ['--arch', 'arm'] },
  { set: 'thumb', arch: ['--thumb'] },
])('usdt probes from the SystemTap notes of a $set program', ({ set, arch }) => {
  const exe = `${FIXTURES}stap-${set}`;

  it('fire with the arguments the notes locate, and count in the semaphore while enabled', async () => {
    const r = await wdtrace(
      ...arch,
      '-q',
      '-n', 'stp$target:::go { printf("go %d %s %d\\n", arg0, copyinstr(arg1), arg2); }',
      '-n', 'stp$target:::mem { printf("mem %d %s\\n", args[0], probefunc); }',
      '-c', exe,
    );
    expect(r.stdout).toBe('go enabled\ngo enabled\nbye\ngo 1 one -1\nmem 7 step\ngo 2 two -2\nmem 7 step\n\n');
    expect(r.status).toBe(0);
    // The semaphore of a probe not enabled stays 0: the program's is-enabled test fails.
    const quiet = await wdtrace(...arch, '-q', '-n', 'stp$target:::mem { @ = count(); }', '-c', exe);
    expect(quiet.stdout).toBe('bye\n\n                2\n');
  }, 120_000);

  it('types args[] by the width and sign of each argument', async () => {
    const r = await wdtrace(...arch, '-l', '-v', '-c', exe, '-n', 'stp$target:::go');
    expect(r.stdout).toContain('\t\targs[0]: int32_t\n\t\targs[1]: uint' + (set === 'x86_64' ? '64' : '32') + '_t\n\t\targs[2]: int16_t\n');
  }, 120_000);
});

// A glibc static program built with <sys/sdt.h>, when the host can build one.
const canBuildSdt = spawnSync('gcc', ['--version']).status === 0 && existsSync('/usr/lib/x86_64-linux-gnu/libc.a') && existsSync('/usr/include/x86_64-linux-gnu/sys/sdt.h');

describe.skipIf(!canBuildSdt)('usdt probes of a glibc static program with <sys/sdt.h>', () => {
  it('fire, and the program prints what it prints untraced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wdtrace-sdt-'));
    writeFileSync(
      join(dir, 'sdt.c'),
      '#define _SDT_HAS_SEMAPHORES 1\n#include <sys/sdt.h>\n#include <stdio.h>\n' +
        'unsigned short app_ping_semaphore __attribute__((section(".probes"))), app_hello_semaphore __attribute__((section(".probes")));\n' +
        '__attribute__((noinline)) long work(long a, int b, const char *s) {\n\tDTRACE_PROBE3(app, hello, a, b, s);\n\tif (app_ping_semaphore) printf("ping enabled\\n");\n\tDTRACE_PROBE1(app, ping, a * 2);\n\treturn a + b;\n}\n' +
        'int main(void) {\n\tlong t = 0;\n\tfor (int i = 0; i < 3; i++) t += work(i, i * 10, "str");\n\tprintf("t=%ld\\n", t);\n\treturn 0;\n}\n',
    );
    const exe = join(dir, 'sdt');
    expect(spawnSync('gcc', ['-static', '-O2', '-o', exe, join(dir, 'sdt.c')]).status).toBe(0);
    const r = await wdtrace('-q', '-n', 'app$target:::hello { printf("hello %d %d %s\\n", arg0, arg1, copyinstr(arg2)); }', '-c', exe);
    expect(r.stdout).toBe('t=33\nhello 0 0 str\nhello 1 10 str\nhello 2 20 str\n\n');
    const ping = await wdtrace('-q', '-n', 'app$target:::ping { printf("ping %d\\n", arg0); }', '-c', exe);
    expect(ping.stdout).toBe('ping enabled\nping enabled\nping enabled\nt=33\nping 0\nping 2\nping 4\n\n');
  }, 300_000);
});
