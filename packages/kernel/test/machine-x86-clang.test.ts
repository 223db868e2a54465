// A C program compiled by this test with clang against the guest libc, added
// to the initrd and run on the x86-64 machine: its output must be what the
// same binary prints natively. A second program executes int3 in user mode,
// which no handler claims: the guest kernel turns it into SIGTRAP.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUEST_DIR, cannotRun, hasTool, runGuest, tool } from './guest-support.js';
import { runX86 } from './machine-x86-support.js';

const missing = ['clang', 'ld.lld', 'llvm-ar', 'llvm-strip'].filter((t) => !hasTool(t));

const PROGRAM = String.raw`
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv)
{
	int v[] = { 42, -7, 19, 0, 1000, 3 };
	char buf[96];
	int status = 0;
	pid_t pid;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;

	qsort(v, 6, sizeof(v[0]), cmp);
	for (int i = 0; i < 6; i++)
		printf("%d%c", v[i], i == 5 ? '\n' : ' ');
	snprintf(buf, sizeof(buf), "[%8.3s|%-6x|%05ld|%c]", "abcdef", 0xbeef, -42L, 'q');
	puts(buf);
	printf("fib(24)=%lu argc=%d last=%s\n", fib(24), argc, argv[argc - 1]);
	f = fopen("/tmp/clang-test.txt", "w");
	fprintf(f, "first\nsecond\n");
	fclose(f);
	f = fopen("/tmp/clang-test.txt", "r");
	while (getline(&line, &cap, f) > 0)
		printf("read: %s", line);
	fclose(f);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		printf("child running\n");
		exit(9);
	}
	waitpid(pid, &status, 0);
	printf("child exited %d\n", WEXITSTATUS(status));
	return 4;
}
`;

const TRAP = String.raw`
#include <stdio.h>
int main(void)
{
	printf("before int3\n");
	fflush(stdout);
	__asm__ volatile("int3");
	printf("after int3\n");
	return 0;
}
`;

describe.skipIf(missing.length > 0)(`x86-64 machine: programs built with clang${missing.length ? ` (skipped: ${missing.join(', ')} missing)` : ''}`, () => {
  let scratch = '';
  const exe: Record<string, string> = {};

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'machine-clang-'));
    // Build the guest libc into the scratch directory (the committed sources).
    const r = spawnSync(join(GUEST_DIR, 'build.sh'), ['--arch', 'x86_64', '--out', join(scratch, 'images')], {
      env: { ...process.env, GUEST_BUILD_DIR: join(scratch, 'build') },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`guest build failed: ${r.stderr}`);
    const lib = join(scratch, 'build', 'x86_64', 'libc');
    for (const [name, source] of Object.entries({ prog: PROGRAM, trap: TRAP })) {
      const src = join(scratch, `${name}.c`);
      writeFileSync(src, source);
      tool('clang', ['--target=x86_64-unknown-none-elf', '-O2', '-ffreestanding', '-fno-builtin', '-nostdlibinc', '-fno-pic', '-I', join(GUEST_DIR, 'libc', 'include'), '-I', join(GUEST_DIR, 'include'), '-c', src, '-o', join(scratch, `${name}.o`)]);
      tool('ld.lld', ['-static', '-nostdlib', '-e', '_start', '-o', join(scratch, name), join(lib, 'crt0.o'), join(scratch, `${name}.o`), join(lib, 'libc.a')]);
      exe[name] = join(scratch, name);
    }
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('runs in the guest and prints what it prints natively', async () => {
    const r = await runX86(['/usr/bin/prog', 'one', 'two'], { files: [{ path: '/usr/bin/prog', data: new Uint8Array(readFileSync(exe['prog']!)) }] });
    expect(r.output).toBe('-7 0 3 19 42 1000\n[     abc|beef  |-0042|q]\nfib(24)=46368 argc=3 last=two\nread: first\nread: second\nchild running\nchild exited 9\n');
    expect(r.status).toBe(4);
    if (cannotRun('x86_64') === null) {
      const native = runGuest('x86_64', exe['prog']!, ['one', 'two']);
      expect(r.output).toBe(native.stdout);
      expect(r.status).toBe(native.status);
    }
  });

  it('an int3 in user mode that no handler claims is the guest kernel\'s SIGTRAP', async () => {
    const r = await runX86(['/bin/trap'], { files: [{ path: '/bin/trap', data: new Uint8Array(readFileSync(exe['trap']!)) }] });
    expect(r.output).toBe('before int3\n');
    expect(r.status).toBe(128 + 5);
  });
});
