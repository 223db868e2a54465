/*
 * rm: remove files and (with -r) directories.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: rm [-f] [-r] FILE...\n"
	"Removes each FILE.\n"
	"  -f   ignore missing files, never fail for them\n"
	"  -r   remove directories and their contents\n";

static int force, recursive;

static int remove_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (force && errno == ENOENT)
			return 0;
		fprintf(stderr, "rm: cannot remove '%s': %s\n", path, strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *e;
		int status = 0;

		if (!recursive) {
			fprintf(stderr, "rm: cannot remove '%s': Is a directory\n", path);
			return 1;
		}
		d = opendir(path);
		if (!d) {
			fprintf(stderr, "rm: cannot open '%s': %s\n", path, strerror(errno));
			return 1;
		}
		while ((e = readdir(d)) != NULL) {
			char *child;
			size_t n;

			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			n = strlen(path) + strlen(e->d_name) + 2;
			child = malloc(n);
			snprintf(child, n, "%s/%s", path, e->d_name);
			status |= remove_path(child);
			free(child);
		}
		closedir(d);
		if (rmdir(path) < 0) {
			fprintf(stderr, "rm: cannot remove '%s': %s\n", path, strerror(errno));
			return 1;
		}
		return status;
	}
	if (unlink(path) < 0) {
		fprintf(stderr, "rm: cannot remove '%s': %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1, status = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		for (const char *p = argv[i] + 1; *p; p++) {
			if (*p == 'f')
				force = 1;
			else if (*p == 'r' || *p == 'R')
				recursive = 1;
			else {
				fprintf(stderr, "rm: invalid option -- '%c'\n%s", *p, usage);
				return 1;
			}
		}
	}
	if (i >= argc && !force) {
		fprintf(stderr, "rm: missing operand\n%s", usage);
		return 1;
	}
	for (; i < argc; i++)
		status |= remove_path(argv[i]);
	return status;
}
