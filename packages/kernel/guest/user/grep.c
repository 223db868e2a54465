/* grep: print lines containing a fixed string. -v inverts, -i ignores case,
 * -c counts, -n numbers lines, -q is quiet. Exit 0 if a line matched, 1 if
 * none, 2 on error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int invert, ignore_case, count_only, number, quiet;

static int line_matches(const char *line, const char *pattern)
{
	size_t n = strlen(pattern);

	if (!ignore_case)
		return strstr(line, pattern) != NULL;
	for (; *line; line++)
		if (strncasecmp(line, pattern, n) == 0)
			return 1;
	return n == 0;
}

static long grep_stream(FILE *f, const char *pattern, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	long matches = 0, lineno = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (line_matches(line, pattern) == invert)
			continue;
		matches++;
		if (count_only || quiet)
			continue;
		if (name)
			printf("%s:", name);
		if (number)
			printf("%ld:", lineno);
		puts(line);
	}
	free(line);
	if (count_only) {
		if (name)
			printf("%s:", name);
		printf("%ld\n", matches);
	}
	return matches;
}

int main(int argc, char **argv)
{
	const char *pattern;
	long matches = 0;
	int i = 1, error = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		for (const char *p = argv[i] + 1; *p; p++) {
			switch (*p) {
			case 'v': invert = 1; break;
			case 'i': ignore_case = 1; break;
			case 'c': count_only = 1; break;
			case 'n': number = 1; break;
			case 'q': quiet = 1; break;
			case 'F': break;
			default:
				fprintf(stderr, "grep: unknown option -%c\n", *p);
				return 2;
			}
		}
	}
	if (i == argc) {
		fprintf(stderr, "usage: grep [-vicnqF] STRING [FILE...]\n");
		return 2;
	}
	pattern = argv[i++];
	if (i == argc)
		matches = grep_stream(stdin, pattern, NULL);
	for (int nfiles = argc - i; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");

		if (!f) {
			fprintf(stderr, "grep: %s: %s\n", argv[i], strerror(errno));
			error = 1;
			continue;
		}
		matches += grep_stream(f, pattern, nfiles > 1 ? argv[i] : NULL);
		fclose(f);
	}
	if (error)
		return 2;
	return matches > 0 ? 0 : 1;
}
