/* ls: list directory entries sorted by name. -a shows dot files, -l shows
 * type, permissions, size and a link's target. Non-directory arguments are
 * listed as is. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int show_all, long_format;

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void mode_string(unsigned mode, char out[11])
{
	const char *rwx = "rwxrwxrwx";

	out[0] = S_ISDIR(mode) ? 'd' : S_ISCHR(mode) ? 'c' : S_ISFIFO(mode) ? 'p' : S_ISLNK(mode) ? 'l' : '-';
	for (int i = 0; i < 9; i++)
		out[i + 1] = (mode & (0400u >> i)) ? rwx[i] : '-';
	out[10] = '\0';
}

static void print_entry(const char *dir, const char *name)
{
	char path[512], mode[11], target[512];
	struct stat st;
	ssize_t n;

	if (!long_format) {
		puts(name);
		return;
	}
	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	if (lstat(path, &st) < 0) {
		printf("?????????? %8s %s\n", "?", name);
		return;
	}
	mode_string(st.st_mode, mode);
	if (S_ISLNK(st.st_mode) && (n = readlink(path, target, sizeof(target) - 1)) >= 0) {
		target[n] = '\0';
		printf("%s %8lld %s -> %s\n", mode, (long long)st.st_size, name, target);
		return;
	}
	printf("%s %8lld %s\n", mode, (long long)st.st_size, name);
}

static int list_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d) {
		fprintf(stderr, "ls: cannot open directory '%s': %s\n", path, strerror(errno));
		return 2;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' && !show_all)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = realloc(names, cap * sizeof(char *));
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(char *), compare_names);
	for (size_t i = 0; i < n; i++) {
		print_entry(path, names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1, status = 0, nargs;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		for (const char *p = argv[i] + 1; *p; p++) {
			if (*p == 'a')
				show_all = 1;
			else if (*p == 'l')
				long_format = 1;
			else {
				fprintf(stderr, "ls: unknown option -%c\n", *p);
				return 2;
			}
		}
	}
	nargs = argc - i;
	if (nargs == 0)
		return list_dir(".");
	for (; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "ls: cannot access '%s': %s\n", argv[i], strerror(errno));
			status = 2;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (nargs > 1)
				printf("%s:\n", argv[i]);
			status |= list_dir(argv[i]);
		} else {
			print_entry(NULL, argv[i]);
		}
	}
	return status;
}
