/*
 * mkdir: make directories.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: mkdir [-p] [-m MODE] DIRECTORY...\n"
	"Creates each DIRECTORY.\n"
	"  -p       make parent directories as needed; no error if it exists\n"
	"  -m MODE  permissions (octal), default 0777 less the umask\n";

static int make(const char *path, mode_t mode, int parents)
{
	struct stat st;

	if (parents) {
		char *p = strdup(path);

		for (char *s = p + 1; *s; s++) {
			if (*s == '/') {
				*s = '\0';
				if (mkdir(p, 0777) < 0 && errno != EEXIST) {
					fprintf(stderr, "mkdir: cannot create directory '%s': %s\n", p, strerror(errno));
					free(p);
					return 1;
				}
				*s = '/';
			}
		}
		free(p);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
	}
	if (mkdir(path, mode) < 0) {
		fprintf(stderr, "mkdir: cannot create directory '%s': %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int parents = 0, status = 0, i = 1;
	mode_t mode = 0777;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-p") == 0)
			parents = 1;
		else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
			mode = (mode_t)strtol(argv[++i], NULL, 8);
		else {
			fprintf(stderr, "mkdir: invalid option '%s'\n%s", argv[i], usage);
			return 1;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "mkdir: missing operand\n%s", usage);
		return 1;
	}
	for (; i < argc; i++)
		status |= make(argv[i], mode, parents);
	return status;
}
