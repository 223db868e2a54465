// A C program compiled here with clang for armv7a against the guest libc,
// added to the initrd and run on the ARM machine (and as Thumb-2 code on
// the Thumb-2 build of the guest). Its output is checked
// against the same binary under qemu-arm when that is installed. It covers
// libc formatting, the heap, files, fork/pipe/wait, the clock, and an
// undefined instruction in user mode reaching the guest kernel (SIGILL).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUEST_DIR, hasTool, runGuest, tool } from './guest-support.js';
import { runArm, poweroffStatus } from './machine-arm-support.js';

const missing = ['clang', 'ld.lld', 'llvm-ar', 'llvm-strip'].filter((t) => !hasTool(t));

const PROGRAM = String.raw`
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int by_length(const void *a, const void *b)
{
	return (int)strlen(*(char *const *)a) - (int)strlen(*(char *const *)b);
}

static unsigned long long fib(unsigned n)
{
	unsigned long long a = 0, b = 1;

	while (n--) {
		unsigned long long t = a + b;
		a = b;
		b = t;
	}
	return a;
}

int main(int argc, char **argv)
{
	char buf[96], *line = NULL, *words[] = { "ccc", "a", "bbbb", "dd" };
	size_t cap = 0;
	int fds[2], status;
	struct timespec t0, t1;
	FILE *f;
	char *copy = malloc(100);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	qsort(words, 4, sizeof(words[0]), by_length);
	snprintf(buf, sizeof(buf), "%s|%5d|%-4x|%c|%.2s|%lu|%lld", words[0], -42, 255, 'Z', "xyz", 1234567890UL, -9000000000LL);
	printf("%s\n", buf);
	printf("fib(90)=%llu div=%lld mod=%u\n", fib(90), (long long)fib(80) / 12345, (unsigned)(fib(70) % 1000003u));
	strcpy(copy, "realloc me");
	copy = realloc(copy, 4000);
	printf("%s %zu %d\n", copy, strlen(copy), atoi("  -17"));
	f = fopen(argv[1], "w+");
	fprintf(f, "line one\nline two\n");
	fclose(f);
	f = fopen(argv[1], "r");
	while (getline(&line, &cap, f) > 0)
		fputs(line, stdout);
	fclose(f);

	pipe(fds);
	if (fork() == 0) {
		close(fds[0]);
		dprintf(fds[1], "child %d says hi", getpid() > 0);
		_exit(6);
	}
	close(fds[1]);
	memset(buf, 0, sizeof(buf));
	read(fds[0], buf, sizeof(buf) - 1);
	wait(&status);
	printf("pipe: %s; exit %d\n", buf, WEXITSTATUS(status));

	if (fork() == 0) {
#ifdef __thumb__
		__asm__ __volatile__(".inst.n 0xde12"); /* udf #0x12: not a DTrace breakpoint */
#else
		__asm__ __volatile__(".inst 0xe7f123f4"); /* udf #0x1234: not the DTrace breakpoint */
#endif
		_exit(0);
	}
	wait(&status);
	printf("udf child: signal %d\n", WTERMSIG(status));

	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("argc=%d env=%s time moves=%d\n", argc, getenv("HOME"), t1.tv_sec > t0.tv_sec || t1.tv_nsec > t0.tv_nsec);
	return 3;
}
`;

/** The ARM-specific kernel paths: signal frames (arch/arm/signal.c), TLS (set_tls, TPIDRURO), mmap2. */
const ARM_PROGRAM = String.raw`
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask[2];
};

static volatile int caught, caught_sig;
static volatile unsigned long handler_sp;

__attribute__((naked)) static void restorer(void)
{
	__asm__ volatile("mov r7, #173");
	__asm__ volatile("svc #0"); /* rt_sigreturn */
}

static void on_usr1(int sig)
{
	unsigned long sp;

	__asm__ volatile("mov %0, sp" : "=r"(sp));
	handler_sp = sp;
	caught_sig = sig;
	caught++;
}

/*
 * kill(getpid(), sig) by a conditional svc followed by an instruction of the
 * opposite condition: "svceq #0; movne r0, #5", in Thumb code inside an
 * "ite eq" block. The svc runs, the handler runs on the way back, and
 * rt_sigreturn must bring back the IT state with the flags, or the movne
 * would run unconditionally in Thumb code.
 */
#ifdef __thumb__
#define ITE_EQ "ite eq\n\t"
#else
#define ITE_EQ ""
#endif
__attribute__((naked)) static long kill_conditionally(long pid, long sig)
{
	__asm__ volatile("push {r7, lr}\n\tmov r7, #37\n\tcmp r0, r0\n\t" ITE_EQ "svceq #0\n\tmovne r0, #5\n\tpop {r7, pc}");
}

static unsigned long tls(void)
{
	unsigned long v;

	__asm__ volatile("mrc p15, 0, %0, c13, c0, 3" : "=r"(v));
	return v;
}

int main(void)
{
	struct ksigaction sa = { on_usr1, 0x04000004ul /* SA_RESTORER | SA_SIGINFO: an rt frame, ended by rt_sigreturn */, restorer, { 0, 0 } };
	volatile unsigned long keep = 0x600dcafe;
	unsigned long sp;
	int status;
	char *p;

	printf("sigaction=%ld\n", syscall(174, SIGUSR1, (long)&sa, 0, 8));
	__asm__ volatile("mov %0, sp" : "=r"(sp));
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR1);
	printf("caught=%d sig=%d keep=%lx frame below sp=%d aligned=%d\n", caught, caught_sig, keep,
	       handler_sp < sp, (int)(handler_sp % 8 == 0));

	printf("tls before=%lx set=%ld after=%lx\n", tls(), syscall(0xf0005, 0x12345678), tls());
	fflush(stdout);
	if (fork() == 0) {
		printf("child tls=%lx\n", tls());
		fflush(stdout);
		_exit(0);
	}
	wait(&status);

	p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(p, 'm', 3 * 4096);
	printf("mmap zero-filled and writable: %c%c %d\n", p[0], p[3 * 4096 - 1], p != MAP_FAILED);
	munmap(p, 3 * 4096);
	fflush(stdout);
	if (fork() == 0) {
		p[4096] = 1;
		_exit(0);
	}
	wait(&status);
	printf("after munmap: signal %d\n", WTERMSIG(status));
	fflush(stdout);
	if (fork() == 0) {
		__asm__ volatile("bkpt #7");
		_exit(0);
	}
	wait(&status);
	printf("bkpt: signal %d\n", WTERMSIG(status));
	printf("kill by a conditional svc: %ld caught=%d\n", kill_conditionally(getpid(), SIGUSR1), caught);
	return 0;
}
`;

const ARM_EXPECTED =
  'sigaction=0\ncaught=2 sig=10 keep=600dcafe frame below sp=1 aligned=1\n' +
  'tls before=0 set=0 after=12345678\nchild tls=12345678\n' +
  'mmap zero-filled and writable: mm 1\nafter munmap: signal 11\nbkpt: signal 5\nkill by a conditional svc: 0 caught=3\n';

const EXPECTED =
  'a|  -42|ff  |Z|xy|1234567890|-9000000000\n' +
  'fib(90)=2880067194370816120 div=1896859323488 mod=533378\n' +
  'realloc me 10 -17\nline one\nline two\npipe: child 1 says hi; exit 6\nudf child: signal 4\nargc=2 env=/ time moves=1\n';

// Each program is built as A32 against the arm guest's libc, and as Thumb-2
// against the arm-thumb guest's, and runs on the machine booting that guest.
for (const thumb of [false, true]) {
  const set = thumb ? 'arm-thumb' : 'arm';
  describe.skipIf(missing.length > 0)(`ARM machine${thumb ? ' (Thumb-2 guest)' : ''}: a C program built with clang${thumb ? ' -mthumb' : ''}${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`, () => {
    let scratch = '';
    let prog: Uint8Array;
    let armProg: Uint8Array;

    beforeAll(() => {
      scratch = mkdtempSync(join(tmpdir(), 'arm-cc-'));
      const r = spawnSync(join(GUEST_DIR, 'build.sh'), ['--arch', set, '--libc-only'], {
        env: { ...process.env, GUEST_BUILD_DIR: join(scratch, 'build') },
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`build.sh failed: ${r.stderr}`);
      const lib = join(scratch, 'build', set, 'libc');
      const build = (name: string, text: string): Uint8Array => {
        const src = join(scratch, `${name}.c`);
        writeFileSync(src, text);
        const target = ['--target=armv7a-none-eabi', thumb ? '-mthumb' : '-marm', '-mfloat-abi=soft'];
        tool('clang', [...target, '-O2', '-ffreestanding', '-fno-builtin', '-nostdlibinc', '-fno-pic', '-I', join(GUEST_DIR, 'libc', 'include'), '-I', join(GUEST_DIR, 'include'), '-c', src, '-o', join(scratch, `${name}.o`)]);
        tool('ld.lld', ['-static', '-nostdlib', '-e', '_start', '-o', join(scratch, name), join(lib, 'crt0.o'), join(scratch, `${name}.o`), join(lib, 'libc.a')]);
        return new Uint8Array(readFileSync(join(scratch, name)));
      };
      prog = build('prog', PROGRAM);
      armProg = build('armprog', ARM_PROGRAM);
    });
    afterAll(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it('runs on the ARM machine with the output it has under qemu-arm', async () => {
      const r = await runArm(['/bin/prog', '/tmp/data.txt'], { thumb, files: [{ path: '/bin/prog', data: prog }] });
      expect(poweroffStatus(r)).toBe(3);
      expect(r.output).toBe(EXPECTED);
      if (hasTool('qemu-arm')) {
        const q = runGuest('arm', join(scratch, 'prog'), [join(scratch, 'data.txt')], { env: { HOME: '/' } });
        expect(q.stdout).toBe(EXPECTED);
        expect(q.status).toBe(3);
      }
    });

    it('delivers signals to a handler and back (ARM signal frame), keeps TLS across fork, maps and unmaps memory, SIGTRAP for bkpt', async () => {
      const r = await runArm(['/bin/armprog'], { thumb, files: [{ path: '/bin/armprog', data: armProg }] });
      expect(r.output).toBe(ARM_EXPECTED);
      expect(poweroffStatus(r)).toBe(0);
      if (hasTool('qemu-arm')) {
        const q = runGuest('arm', join(scratch, 'armprog'), []);
        expect(q.stdout).toBe(ARM_EXPECTED);
      }
    });
  });
}
