/* sort: sort lines of files or standard input; -r reverses, -n compares
 * leading numbers, -u drops repeated lines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reverse, numeric, unique;

static int compare_lines(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int r;

	if (numeric) {
		long nx = atol(x), ny = atol(y);

		r = nx < ny ? -1 : nx > ny ? 1 : strcmp(x, y);
	} else {
		r = strcmp(x, y);
	}
	return reverse ? -r : r;
}

static char **lines;
static size_t nlines, cap;

static int read_lines(FILE *f)
{
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;

	while ((len = getline(&line, &lcap, f)) >= 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (nlines == cap) {
			cap = cap ? cap * 2 : 256;
			lines = realloc(lines, cap * sizeof(char *));
			if (!lines) {
				fprintf(stderr, "sort: out of memory\n");
				return -1;
			}
		}
		lines[nlines++] = strdup(line);
	}
	free(line);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		for (const char *p = argv[i] + 1; *p; p++) {
			if (*p == 'r')
				reverse = 1;
			else if (*p == 'n')
				numeric = 1;
			else if (*p == 'u')
				unique = 1;
			else {
				fprintf(stderr, "sort: unknown option -%c\n", *p);
				return 2;
			}
		}
	}
	if (i == argc) {
		if (read_lines(stdin) < 0)
			return 2;
	}
	for (; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");

		if (!f) {
			fprintf(stderr, "sort: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		if (read_lines(f) < 0)
			return 2;
		fclose(f);
	}
	qsort(lines, nlines, sizeof(char *), compare_lines);
	for (size_t k = 0; k < nlines; k++) {
		if (unique && k > 0 && strcmp(lines[k], lines[k - 1]) == 0)
			continue;
		puts(lines[k]);
	}
	return 0;
}
