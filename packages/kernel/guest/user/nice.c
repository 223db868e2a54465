/*
 * nice: run a program with a changed nice value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const char usage[] =
	"usage: nice [-n ADJUSTMENT] [COMMAND [ARG...]]\n"
	"Runs COMMAND with its nice value raised by ADJUSTMENT (default 10);\n"
	"without a command, prints the current nice value. Nice values go from\n"
	"-20 (most favoured) to 19 (least); a task's time slice shrinks as its\n"
	"nice value grows.\n";

int main(int argc, char **argv)
{
	int adjust = 10, i = 1;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (i < argc && strcmp(argv[i], "-n") == 0) {
		char *end;

		if (i + 1 >= argc) {
			fputs("nice: option requires an argument -- 'n'\n", stderr);
			return 125;
		}
		adjust = (int)strtol(argv[i + 1], &end, 10);
		if (*end || end == argv[i + 1]) {
			fprintf(stderr, "nice: invalid adjustment '%s'\n", argv[i + 1]);
			return 125;
		}
		i += 2;
	} else if (i < argc && argv[i][0] == '-' && argv[i][1] >= '0' && argv[i][1] <= '9') {
		adjust = atoi(argv[i] + 1);
		i++;
	}
	if (i >= argc) {
		errno = 0;
		int now = getpriority(PRIO_PROCESS, 0);

		if (now == -1 && errno) {
			perror("nice");
			return 125;
		}
		printf("%d\n", now);
		return 0;
	}
	errno = 0;
	if (nice(adjust) == -1 && errno) {
		fprintf(stderr, "nice: cannot set niceness: %s\n", strerror(errno));
		return 125;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "nice: %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
