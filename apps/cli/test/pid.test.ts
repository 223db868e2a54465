// The pid provider from the command line: -l lists a -c command's probes
// ($target expanded), probes fire in a guest program and in a host static
// executable (a glibc one when the host can build it: gcc and a static
// libc), and a bad offset is reported with dtrace's words.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

describe.each(['x86_64', 'arm'])('pid probes on a %s guest', (arch) => {
  it('lists the probes of pid$target with -l -c', async () => {
    const r = await wdtrace('--arch', arch, '-l', '-c', '/bin/echo', '-n', 'pid$target:a.out:main:entry', '-n', 'pid$target:a.out:mai*:return');
    expect(r.stdout).toMatch(/^ +ID +PROVIDER +MODULE +FUNCTION NAME\n +\d+ +pid2 +echo +main entry\n +\d+ +pid2 +echo +main return\n$/);
    expect(r.status).toBe(0);
  }, 120_000);

  it("fires in the command's functions and reports a bad offset", async () => {
    const r = await wdtrace('--arch', arch, '-q', '-n', 'pid$target:a.out:strcmp:return { printf("strcmp = %d\\n", arg1); }', '-c', '/bin/echo -n hi');
    // echo -n prints no newline; the trace line follows it, then dtrace's closing newline.
    expect(r.stdout).toBe('histrcmp = 0\n\n');
    expect(r.status).toBe(0);
    const bad = await wdtrace('--arch', arch, '-n', 'pid$target:a.out:main:100000', '-c', '/bin/echo');
    expect(bad.stderr).toBe('dtrace: invalid probe specifier pid$target:a.out:main:100000: line 1: offset 0x100000 outside of echo:main\n');
    expect(bad.status).toBe(1);
  }, 120_000);
});

// A glibc static executable, built on the host when it can (gcc with a static libc).
const canBuild = spawnSync('gcc', ['--version']).status === 0 && existsSync('/usr/lib/x86_64-linux-gnu/libc.a');

describe.skipIf(!canBuild)('pid probes in a glibc static executable', () => {
  it('traces its functions, entry arguments and return values, and leaves its output unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wdtrace-pid-'));
    writeFileSync(
      join(dir, 'square.c'),
      '#include <stdio.h>\n#include <stdlib.h>\n__attribute__((noinline)) long square(long x) { return x * x; }\n' +
        'int main(int argc, char **argv) {\n\tlong sum = 0;\n\tfor (int i = 1; i < argc; i++) sum += square(atol(argv[i]));\n\tprintf("sum %ld\\n", sum);\n\treturn 0;\n}\n',
    );
    const exe = join(dir, 'square');
    expect(spawnSync('gcc', ['-static', '-O2', '-fno-omit-frame-pointer', '-o', exe, join(dir, 'square.c')]).status).toBe(0);
    const r = await wdtrace(
      '-q',
      '-n', 'pid$target:a.out:square:entry { printf("square(%d)\\n", arg0); }',
      '-n', 'pid$target:a.out:square:return { printf("= %d\\n", arg1); }',
      '-n', 'pid$target:a.out::entry { @n = count(); }',
      '-c', `${exe} 3 4 5`,
    );
    expect(r.stdout).toMatch(/^sum 50\nsquare\(3\)\n= 9\nsquare\(4\)\n= 16\nsquare\(5\)\n= 25\n\n +\d+\n$/);
    expect(r.status).toBe(0);
  }, 300_000);
});
