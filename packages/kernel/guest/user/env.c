/*
 * env: print the environment or run a program in a changed one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: env [-i] [NAME=VALUE]... [COMMAND [ARG...]]\n"
	"Sets each NAME to VALUE and runs COMMAND, or prints the environment.\n"
	"  -i   start from an empty environment\n";

int main(int argc, char **argv)
{
	int i = 1;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (i < argc && (strcmp(argv[i], "-i") == 0 || strcmp(argv[i], "-") == 0)) {
		static char *empty[1] = { NULL };

		environ = empty;
		i++;
	}
	for (; i < argc && strchr(argv[i], '='); i++) {
		char *eq = strchr(argv[i], '=');

		*eq = '\0';
		setenv(argv[i], eq + 1, 1);
		*eq = '=';
	}
	if (i >= argc) {
		for (char **e = environ; *e; e++)
			puts(*e);
		return 0;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "env: '%s': %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
