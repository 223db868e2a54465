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

const TERMIOS = String.raw`
#include <stdio.h>
/* ioctl(1, TCGETS, buf) by hand: the kernel fills its 36-byte struct termios and nothing after it */
int main(void)
{
	unsigned char buf[64];
	long r;
	int zero = 0, intact = 0;

	for (int i = 0; i < 64; i++)
		buf[i] = 0xaa;
	__asm__ volatile("syscall" : "=a"(r) : "a"(16L), "D"(1L), "S"(0x5401L), "d"(buf) : "rcx", "r11", "memory");
	for (int i = 0; i < 36; i++)
		zero += buf[i] == 0;
	for (int i = 36; i < 64; i++)
		intact += buf[i] == 0xaa;
	printf("ioctl=%ld zeroed=%d intact=%d\n", r, zero, intact);
	return 0;
}
`;

const MPROTECT = String.raw`
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
/* mprotect of the middle page of a mapping leaves the pages around it
 * writable, in this process and in its fork */
int main(void)
{
	char *p = mmap(0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status = -1;
	pid_t pid;

	p[0] = 1; /* the first page only is present */
	if (mprotect(p + 4096, 4096, PROT_READ) != 0) {
		puts("mprotect failed");
		return 1;
	}
	p[2 * 4096] = 3; /* the third page, untouched so far */
	pid = fork();
	if (pid == 0) {
		p[1] = 5;
		p[2 * 4096 + 1] = 4;
		printf("child wrote %d %d %d\n", p[0] + p[1], p[2 * 4096], p[2 * 4096 + 1]);
		exit(0);
	}
	waitpid(pid, &status, 0);
	printf("child status %d\n", status);
	fflush(stdout);
	p[4096] = 9; /* read-only: SIGSEGV */
	puts("not reached");
	return 0;
}
`;

describe.skipIf(missing.length > 0)(`x86-64 machine: programs built with clang${missing.length ? ` (skipped: ${missing.join(', ')} missing)` : ''}`, () => {
  let scratch = '';
  const exe: Record<string, string> = {};

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'machine-clang-'));
    // Build the guest libc into the scratch directory (the committed sources).
    const r = spawnSync(join(GUEST_DIR, 'build.sh'), ['--arch', 'x86_64', '--libc-only'], {
      env: { ...process.env, GUEST_BUILD_DIR: join(scratch, 'build') },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`guest build failed: ${r.stderr}`);
    const lib = join(scratch, 'build', 'x86_64', 'libc');
    for (const [name, source] of Object.entries({ prog: PROGRAM, trap: TRAP, termios: TERMIOS, mprotect: MPROTECT })) {
      const src = join(scratch, `${name}.c`);
      writeFileSync(src, source);
      tool('clang', ['--target=x86_64-unknown-none-elf', '-O2', '-ffreestanding', '-fno-builtin', '-nostdlibinc', '-fno-pic', '-I', join(GUEST_DIR, 'libc', 'include'), '-I', join(GUEST_DIR, 'include'), '-c', src, '-o', join(scratch, `${name}.o`)]);
      tool('ld.lld', ['-static', '-nostdlib', '-e', '_start', '-o', join(scratch, name), join(lib, 'crt0.o'), join(scratch, `${name}.o`), join(lib, 'libc.a')]);
      exe[name] = join(scratch, name);
    }
  });
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

  it('TCGETS on the console fills the kernel\'s 36-byte termios and nothing beyond it', async () => {
    const r = await runX86(['/bin/termios'], { files: [{ path: '/bin/termios', data: new Uint8Array(readFileSync(exe['termios']!)) }] });
    expect(r.output).toBe('ioctl=0 zeroed=36 intact=28\n');
  });

  it('mprotect changes only its range: the pages around it stay writable, in a fork too', async () => {
    const r = await runX86(['/bin/mprotect'], { files: [{ path: '/bin/mprotect', data: new Uint8Array(readFileSync(exe['mprotect']!)) }] });
    expect(r.output).toBe('child wrote 6 3 4\nchild status 0\n');
    expect(r.status).toBe(128 + 11);
  });

  it('an int3 in user mode that no handler claims is the guest kernel\'s SIGTRAP', async () => {
    const r = await runX86(['/bin/trap'], { files: [{ path: '/bin/trap', data: new Uint8Array(readFileSync(exe['trap']!)) }] });
    expect(r.output).toBe('before int3\n');
    expect(r.status).toBe(128 + 5);
  });
});

// A static glibc program (the kind `wdtrace run ./prog` is for): stdio on the
// console (tcgetattr on its start), malloc, string functions with SSE2.
const GLIBC = String.raw`
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static sigjmp_buf back;
static void on_segv(int sig) { siglongjmp(back, sig); }
int main(int argc, char **argv)
{
	char *p = malloc(100000);
	int status = -1, sig;
	pid_t pid;

	memset(p, 7, 100000);
	printf("hello %s %d %zu\n", argv[argc - 1], p[99999] * argc, strlen(argv[1]));
	for (int i = 1; i < argc; i++)
		puts(argv[i]);
	fflush(stdout);
	/* fork after glibc's RELRO mprotect: the child writes .data and .bss */
	pid = fork();
	if (pid == 0) {
		static char bss[5000];
		bss[4999] = 1;
		execl("/bin/echo", "echo", "exec'd", "child", (char *)0);
		_exit(99);
	}
	waitpid(pid, &status, 0);
	printf("child status %d\n", status);
	/* a fault's signal reaches the handler the program installed */
	signal(SIGSEGV, on_segv);
	sig = sigsetjmp(back, 1);
	if (sig == 0)
		*(volatile int *)0 = 1;
	printf("caught signal %d\n", sig);
	printf("time after 2020: %d\n", time(0) > 1600000000);
	return 3;
}
`;

/** Builds the program with gcc -static; the reason it cannot be built, or its path. */
function buildGlibc(): { path?: string; reason?: string; dir?: string } {
  if (!hasTool('gcc')) return { reason: 'gcc is not installed' };
  const host = cannotRun('x86_64');
  if (host) return { reason: host };
  const dir = mkdtempSync(join(tmpdir(), 'machine-glibc-'));
  writeFileSync(join(dir, 'g.c'), GLIBC);
  const cc = spawnSync('gcc', ['-static', '-O2', '-o', join(dir, 'g'), join(dir, 'g.c')], { encoding: 'utf8' });
  if (cc.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: 'gcc cannot link static programs here (no libc.a)' };
  }
  return { path: join(dir, 'g'), dir };
}
const glibc = buildGlibc();
afterAll(() => {
  if (glibc.dir) rmSync(glibc.dir, { recursive: true, force: true });
});

describe.skipIf(glibc.reason !== undefined)(`x86-64 machine: a static glibc program${glibc.reason ? ` (skipped: ${glibc.reason})` : ''}`, () => {
  it('runs and prints what it prints natively', async () => {
    const r = await runX86(['/host/g', 'one', 'two'], { files: [{ path: '/host/g', data: new Uint8Array(readFileSync(glibc.path!)) }] });
    // natively /bin/echo is the host's: the same words
    const native = runGuest('x86_64', glibc.path!, ['one', 'two']);
    expect(r.output).toBe(native.stdout);
    expect(r.output).toBe("hello two 21 3\none\ntwo\nexec'd child\nchild status 0\ncaught signal 11\ntime after 2020: 1\n");
    expect(r.status).toBe(3);
    expect(r.status).toBe(native.status);
  });
});
