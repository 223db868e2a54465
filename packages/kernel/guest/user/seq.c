/*
 * seq: print a sequence of integers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: seq [-s SEP] [-w] [FIRST [INCREMENT]] LAST\n"
	"Prints the integers from FIRST (default 1) to LAST by INCREMENT (default 1),\n"
	"one a line or separated by SEP; -w pads them to equal width with zeros.\n";

static int number(const char *s, long *v)
{
	char *e;

	*v = strtol(s, &e, 10);
	if (*e || e == s) {
		fprintf(stderr, "seq: invalid integer argument: '%s'\n", s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sep = "\n";
	long first = 1, step = 1, last;
	int i = 1, width = 0, equal = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1] && !(argv[i][1] >= '0' && argv[i][1] <= '9'); i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			sep = argv[++i];
		else if (strcmp(argv[i], "-w") == 0)
			equal = 1;
		else {
			fprintf(stderr, "seq: invalid option '%s'\n%s", argv[i], usage);
			return 1;
		}
	}
	switch (argc - i) {
	case 1:
		if (number(argv[i], &last) < 0)
			return 1;
		break;
	case 2:
		if (number(argv[i], &first) < 0 || number(argv[i + 1], &last) < 0)
			return 1;
		break;
	case 3:
		if (number(argv[i], &first) < 0 || number(argv[i + 1], &step) < 0 || number(argv[i + 2], &last) < 0)
			return 1;
		if (step == 0) {
			fputs("seq: invalid Zero increment value: '0'\n", stderr);
			return 1;
		}
		break;
	default:
		fprintf(stderr, "seq: missing operand\n%s", usage);
		return 1;
	}
	if (equal) {
		char a[24], b[24];
		int wa = snprintf(a, sizeof(a), "%ld", first), wb = snprintf(b, sizeof(b), "%ld", last);

		width = wa > wb ? wa : wb;
	}
	for (long v = first, n = 0; step > 0 ? v <= last : v >= last; v += step, n++) {
		if (n)
			fputs(sep, stdout);
		printf("%0*ld", width, v);
	}
	if ((step > 0 && first <= last) || (step < 0 && first >= last))
		putchar('\n');
	return 0;
}
