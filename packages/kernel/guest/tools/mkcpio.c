/*
 * mkcpio: write a newc ("070701") cpio archive from a list file, for the
 * guest initrd. Deterministic by construction: entries in list order, inode
 * numbers counted from 1, mtime/uid/gid zero, no host metadata read except
 * file contents.
 *
 * List lines (blank lines and '#' comments ignored):
 *   dir  MODE PATH
 *   file MODE PATH SOURCE
 *   chr  MODE PATH MAJOR MINOR
 * MODE is octal permission bits; PATH is relative (no leading '/').
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static unsigned long next_ino = 1;
static unsigned long offset;

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "mkcpio: %s: %s\n", what, detail);
	exit(1);
}

static void put_bytes(const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, out) != n)
		die("write", strerror(errno));
	offset += n;
}

static void pad4(void)
{
	static const char zeros[4];

	put_bytes(zeros, (4 - offset % 4) % 4);
}

static void put_entry(const char *name, unsigned long mode, const void *data,
		      unsigned long size, unsigned long rmajor, unsigned long rminor)
{
	char header[111];
	unsigned long namesize = strlen(name) + 1;
	int nlink = (mode & 0170000) == 0040000 ? 2 : 1;

	snprintf(header, sizeof(header),
		 "070701%08lX%08lX%08lX%08lX%08lX%08lX%08lX%08lX%08lX%08lX%08lX%08lX%08lX",
		 strcmp(name, "TRAILER!!!") == 0 ? 0 : next_ino++, mode, 0ul, 0ul,
		 (unsigned long)nlink, 0ul, size, 0ul, 0ul, rmajor, rminor, namesize, 0ul);
	put_bytes(header, 110);
	put_bytes(name, namesize);
	pad4();
	put_bytes(data, size);
	pad4();
}

static void *read_file(const char *path, unsigned long *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n = 0;

	if (!f)
		die(path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		die(path, "cannot determine size");
	buf = malloc((size_t)n + 1);
	if (!buf)
		die(path, "out of memory");
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(path, "short read");
	fclose(f);
	*size = (unsigned long)n;
	return buf;
}

int main(int argc, char **argv)
{
	char line[4096];
	FILE *list;
	int lineno = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: mkcpio LIST OUTPUT\n");
		return 2;
	}
	list = fopen(argv[1], "r");
	if (!list)
		die(argv[1], strerror(errno));
	out = fopen(argv[2], "wb");
	if (!out)
		die(argv[2], strerror(errno));
	while (fgets(line, sizeof(line), list)) {
		char type[16], path[1024], source[2048];
		unsigned long mode, major, minor;
		int n;

		lineno++;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		n = sscanf(line, "%15s %lo %1023s %2047s", type, &mode, path, source);
		if (n < 3 || path[0] == '/') {
			snprintf(source, sizeof(source), "line %d: malformed entry", lineno);
			die(argv[1], source);
		}
		if (strcmp(type, "dir") == 0) {
			put_entry(path, 0040000 | mode, NULL, 0, 0, 0);
		} else if (strcmp(type, "file") == 0 && n == 4) {
			unsigned long size;
			void *data = read_file(source, &size);

			put_entry(path, 0100000 | mode, data, size, 0, 0);
			free(data);
		} else if (strcmp(type, "chr") == 0 &&
			   sscanf(line, "%*s %*o %*s %lu %lu", &major, &minor) == 2) {
			put_entry(path, 0020000 | mode, NULL, 0, major, minor);
		} else {
			snprintf(source, sizeof(source), "line %d: unknown entry type '%s'", lineno, type);
			die(argv[1], source);
		}
	}
	put_entry("TRAILER!!!", 0, NULL, 0, 0, 0);
	if (fclose(out) != 0)
		die(argv[2], strerror(errno));
	return 0;
}
