/* head: print the first N lines (default 10) of files or standard input;
 * -n N or -N sets N. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void head_stream(FILE *f, long n)
{
	int c;

	while (n > 0 && (c = fgetc(f)) != EOF) {
		putchar(c);
		if (c == '\n')
			n--;
	}
}

int main(int argc, char **argv)
{
	long n = 10;
	int i = 1, status = 0, nfiles;

	if (i < argc && strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
		n = atol(argv[i + 1]);
		i += 2;
	} else if (i < argc && argv[i][0] == '-' && argv[i][1] >= '0' && argv[i][1] <= '9') {
		n = atol(argv[i] + 1);
		i++;
	}
	nfiles = argc - i;
	if (nfiles == 0) {
		head_stream(stdin, n);
		return 0;
	}
	for (; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");

		if (!f) {
			fprintf(stderr, "head: %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		if (nfiles > 1)
			printf("==> %s <==\n", argv[i]);
		head_stream(f, n);
		fclose(f);
	}
	return status;
}
