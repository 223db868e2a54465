/*
 * fileio: a file I/O workload. Writes FILES files of SIZE bytes each in
 * blocks, reads them back and checks them, appends to them, renames and
 * finally removes them, in a work directory. Each phase is a burst of
 * open/read/write/close calls (io:::start/done, syscall probes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: fileio [FILES [SIZE [DIR]]]\n"
	"Writes FILES (default 4) files of SIZE bytes (default 16384) in DIR\n"
	"(default /tmp/fileio), reads and checks them, appends, renames and removes\n"
	"them; prints 'fileio files=F written=W read=R errors=E'.\n";

static long written, bytes_read;
static int errors;

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "fileio: %s %s: %s\n", what, path, strerror(errno));
	errors++;
}

int main(int argc, char **argv)
{
	int files = 4;
	long size = 16384;
	const char *dir = "/tmp/fileio";
	char block[1024], path[256], path2[256];

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 1)
		files = atoi(argv[1]);
	if (argc > 2)
		size = atol(argv[2]);
	if (argc > 3)
		dir = argv[3];
	if (files < 1 || files > 1000 || size < 0) {
		fprintf(stderr, "fileio: bad arguments\n%s", usage);
		return 1;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fail("mkdir", dir);
		return 1;
	}
	for (int f = 0; f < files; f++) {
		int fd;

		snprintf(path, sizeof(path), "%s/data%d", dir, f);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fail("create", path);
			continue;
		}
		for (long off = 0; off < size; off += (long)sizeof(block)) {
			size_t n = size - off < (long)sizeof(block) ? (size_t)(size - off) : sizeof(block);

			for (size_t k = 0; k < n; k++)
				block[k] = (char)((off + (long)k) * 31 + f);
			if (write(fd, block, n) != (ssize_t)n)
				fail("write", path);
			written += (long)n;
		}
		close(fd);
	}
	for (int f = 0; f < files; f++) {
		int fd;
		long off = 0;
		ssize_t n;

		snprintf(path, sizeof(path), "%s/data%d", dir, f);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			fail("open", path);
			continue;
		}
		while ((n = read(fd, block, sizeof(block))) > 0) {
			for (ssize_t k = 0; k < n; k++)
				if (block[k] != (char)((off + k) * 31 + f)) {
					errors++;
					break;
				}
			off += n;
			bytes_read += n;
		}
		if (off != size)
			errors++;
		close(fd);
		fd = open(path, O_WRONLY | O_APPEND);
		if (fd < 0 || write(fd, "tail\n", 5) != 5)
			fail("append", path);
		else
			written += 5;
		if (fd >= 0)
			close(fd);
		snprintf(path2, sizeof(path2), "%s/done%d", dir, f);
		if (rename(path, path2) < 0)
			fail("rename", path);
		else {
			struct stat st;

			if (stat(path2, &st) < 0 || st.st_size != size + 5)
				errors++;
			if (unlink(path2) < 0)
				fail("unlink", path2);
		}
	}
	if (rmdir(dir) < 0)
		fail("rmdir", dir);
	printf("fileio files=%d written=%ld read=%ld errors=%d\n", files, written, bytes_read, errors);
	return errors ? 1 : 0;
}
