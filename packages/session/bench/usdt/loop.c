/*
 * The usdt bench's program: 20000 iterations of a loop with one USDT probe
 * each (loop:::iter), then "done" and exit. Freestanding; built by build.sh.
 */
#include "loop.h"

static long sys3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
#else
	register long r0 __asm__("r0") = a;
	register long r1 __asm__("r1") = b;
	register long r2 __asm__("r2") = c;
	register long r7 __asm__("r7") = nr;
	__asm__ volatile("svc #0" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r7) : "memory");
	return r0;
#endif
}

#if defined(__x86_64__)
#define NR_WRITE 1
#define NR_EXIT 60
#else
#define NR_WRITE 4
#define NR_EXIT 1
#endif

volatile int sink;

void _start(void)
{
	for (int i = 0; i < 20000; i++) {
		sink += i;
		LOOP_ITER(i);
	}
	sys3(NR_WRITE, 1, (long)"done\n", 5);
	sys3(NR_EXIT, 0, 0, 0);
	for (;;)
		;
}
