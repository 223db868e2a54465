/*
 * fpmix: a floating-point workload. Sums a series in double (SSE registers
 * on x86-64) and in long double (the x87 stack) in a loop with no calls, so
 * the running sums live in FPU registers when the timer preempts the
 * process; prints the sums scaled to integers. Two copies on one CPU print
 * what one alone prints only if the kernel keeps each process's FPU state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: fpmix [ROUNDS]\n"
	"Sums 1/(i+1) and i*0.5 over ROUNDS (default 100000) terms in double and\n"
	"long double and prints 'fpmix rounds=N harmonic=H half=S x87=X' (scaled\n"
	"by 10^6, truncated).\n";

int main(int argc, char **argv)
{
	long rounds = 100000;
	double harmonic = 0.0, half = 0.0;
	long double x87 = 0.0L;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 1)
		rounds = atol(argv[1]);
	for (long i = 0; i < rounds; i++) {
		harmonic += 1.0 / (double)(i + 1);
		half += (double)i * 0.5;
		x87 += 1.0L / ((long double)i * 2.0L + 1.0L);
	}
	printf("fpmix rounds=%ld harmonic=%ld half=%ld x87=%ld\n", rounds, (long)(harmonic * 1e6),
	       (long)(half / 1000.0), (long)(x87 * 1e6L));
	return 0;
}
