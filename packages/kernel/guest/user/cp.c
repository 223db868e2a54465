/*
 * cp: copy files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: cp SOURCE DEST\n"
	"       cp SOURCE... DIRECTORY\n"
	"Copies each SOURCE file to DEST, or into DIRECTORY under its own name.\n";

static int copy(const char *from, const char *to)
{
	char buf[4096];
	ssize_t n;
	int in, out;
	struct stat st;

	in = open(from, O_RDONLY);
	if (in < 0) {
		fprintf(stderr, "cp: cannot open '%s': %s\n", from, strerror(errno));
		return 1;
	}
	if (fstat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cp: -r not specified; omitting directory '%s'\n", from);
		close(in);
		return 1;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		fprintf(stderr, "cp: cannot create '%s': %s\n", to, strerror(errno));
		close(in);
		return 1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			fprintf(stderr, "cp: error writing '%s': %s\n", to, strerror(errno));
			close(in);
			close(out);
			return 1;
		}
	}
	if (n < 0)
		fprintf(stderr, "cp: error reading '%s': %s\n", from, strerror(errno));
	close(in);
	close(out);
	return n < 0;
}

static char *join(const char *dir, const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	size_t n = strlen(dir) + strlen(base) + 2;
	char *p = malloc(n);

	snprintf(p, n, "%s/%s", dir, base);
	return p;
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
		fprintf(stderr, "cp: missing file operand\n%s", usage);
		return 1;
	}
	if (stat(argv[argc - 1], &st) == 0 && S_ISDIR(st.st_mode)) {
		for (int i = 1; i < argc - 1; i++) {
			char *to = join(argv[argc - 1], argv[i]);

			status |= copy(argv[i], to);
			free(to);
		}
		return status;
	}
	if (argc > 3) {
		fprintf(stderr, "cp: target '%s' is not a directory\n", argv[argc - 1]);
		return 1;
	}
	return copy(argv[1], argv[2]);
}
