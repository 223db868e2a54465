/*
 * kill: send a signal to processes.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kill [-s SIGNAL | -SIGNAL] PID...\n"
	"       kill -l [STATUS]\n"
	"Sends SIGNAL (default TERM) to each PID; a negative PID names a process\n"
	"group. SIGNAL is a name (HUP, INT, KILL, USR1, TERM, ...) or a number.\n"
	"-l lists the signal names, or names the signal of an exit STATUS > 128.\n";

static const char *const names[] = {
	NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
	"PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU",
	"XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};
#define NNAMES 32

static int signum(const char *s)
{
	if (isdigit((unsigned char)s[0])) {
		char *e;
		long n = strtol(s, &e, 10);

		return *e || n > 64 ? -1 : (int)n;
	}
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (int i = 1; i < NNAMES; i++)
		if (strcasecmp(s, names[i]) == 0)
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	int sig = SIGTERM, i = 1, status = 0;

	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "-l") == 0) {
		if (argc > 2) {
			int n = atoi(argv[2]);

			if (n > 128)
				n -= 128;
			if (n < 1 || n >= NNAMES) {
				fprintf(stderr, "kill: unknown signal '%s'\n", argv[2]);
				return 1;
			}
			puts(names[n]);
			return 0;
		}
		for (int s = 1; s < NNAMES; s++)
			printf("%2d) SIG%s\n", s, names[s]);
		return 0;
	}
	if (strcmp(argv[1], "-s") == 0) {
		if (argc < 3 || (sig = signum(argv[2])) < 0) {
			fprintf(stderr, "kill: unknown signal '%s'\n", argc < 3 ? "" : argv[2]);
			return 2;
		}
		i = 3;
	} else if (argv[1][0] == '-' && argv[1][1] && !(argv[1][1] >= '0' && argv[1][1] <= '9' && argc == 2)) {
		if (strcmp(argv[1], "--") == 0)
			i = 2;
		else if ((sig = signum(argv[1] + 1)) < 0) {
			fprintf(stderr, "kill: unknown signal '%s'\n", argv[1] + 1);
			return 2;
		} else
			i = 2;
	}
	if (i >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	for (; i < argc; i++) {
		char *e;
		long pid = strtol(argv[i], &e, 10);

		if (*e || e == argv[i]) {
			fprintf(stderr, "kill: invalid process id '%s'\n", argv[i]);
			status = 1;
			continue;
		}
		if (kill((pid_t)pid, sig) < 0) {
			fprintf(stderr, "kill: (%ld) - %s\n", pid, strerror(errno));
			status = 1;
		}
	}
	return status;
}
