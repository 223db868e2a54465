/*
 * spin: a CPU-bound workload that runs for a given time (milliseconds of
 * CLOCK_MONOTONIC, default 100) and prints how many rounds it counted, so
 * its share of a CPU shows (compare two under nice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
	"usage: spin [MILLISECONDS [REST]]\n"
	"Counts in a loop for MILLISECONDS (default 100) of monotonic time and\n"
	"prints 'spin ms=N count=C': C is the rounds done, the CPU time it got.\n"
	"With REST, then sleeps until MILLISECONDS + REST after the start\n"
	"(clock_nanosleep with TIMER_ABSTIME, a periodic task's pattern).\n";

static volatile unsigned long sink;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long ms = 100, rest = -1;
	long long start, end;
	unsigned long count = 0;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 1) {
		char *e;

		ms = strtol(argv[1], &e, 10);
		if (*e || ms < 0) {
			fprintf(stderr, "spin: invalid time '%s'\n", argv[1]);
			return 1;
		}
	}
	if (argc > 2) {
		char *e;

		rest = strtol(argv[2], &e, 10);
		if (*e || rest < 0) {
			fprintf(stderr, "spin: invalid rest '%s'\n", argv[2]);
			return 1;
		}
	}
	start = now_ms();
	end = start + ms;
	while (now_ms() < end) {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * 2654435761u;
		count++;
	}
	printf("spin ms=%ld count=%lu\n", ms, count);
	if (rest >= 0) {
		long long wake = start + ms + rest;
		struct timespec ts = { (time_t)(wake / 1000), (long)(wake % 1000) * 1000000 };
		int err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		if (err) {
			fprintf(stderr, "spin: clock_nanosleep: error %d\n", err);
			return 1;
		}
	}
	return 0;
}
