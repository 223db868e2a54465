/* sleep: pause for a number of seconds (fractions allowed, e.g. 0.25). */
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 0 };
	const char *p;
	long scale = 100000000;

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		fputs("usage: sleep SECONDS\nWaits SECONDS (fractions allowed, e.g. 0.25) with nanosleep.\n", stdout);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: sleep SECONDS\n");
		return 1;
	}
	for (p = argv[1]; *p >= '0' && *p <= '9'; p++)
		ts.tv_sec = ts.tv_sec * 10 + (*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9' && scale > 0; p++, scale /= 10)
			ts.tv_nsec += (*p - '0') * scale;
	if (*p) {
		fprintf(stderr, "sleep: invalid time interval '%s'\n", argv[1]);
		return 1;
	}
	return nanosleep(&ts, NULL) < 0 ? 1 : 0;
}
