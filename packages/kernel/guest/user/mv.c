/*
 * mv: rename files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: mv SOURCE DEST\n"
	"       mv SOURCE... DIRECTORY\n"
	"Renames SOURCE to DEST, or moves each SOURCE into DIRECTORY.\n";

static int move(const char *from, const char *to)
{
	if (rename(from, to) < 0) {
		fprintf(stderr, "mv: cannot move '%s' to '%s': %s\n", from, to, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct stat st;
	int status = 0;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "mv: missing file operand\n%s", usage);
		return 1;
	}
	if (stat(argv[argc - 1], &st) == 0 && S_ISDIR(st.st_mode)) {
		for (int i = 1; i < argc - 1; i++) {
			const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
			size_t n = strlen(argv[argc - 1]) + strlen(base) + 2;
			char *to = malloc(n);

			snprintf(to, n, "%s/%s", argv[argc - 1], base);
			status |= move(argv[i], to);
			free(to);
		}
		return status;
	}
	if (argc > 3) {
		fprintf(stderr, "mv: target '%s' is not a directory\n", argv[argc - 1]);
		return 1;
	}
	return move(argv[1], argv[2]);
}
