/*
 * tee: copy standard input to standard output and to files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: tee [-a] [FILE...]\n"
	"Copies standard input to standard output and to each FILE.\n"
	"  -a   append to the files instead of truncating them\n";

int main(int argc, char **argv)
{
	int fds[32], n = 0, i = 1, append = 0, status = 0;
	char buf[4096];
	ssize_t r;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (i < argc && strcmp(argv[i], "-a") == 0)
		append = 1, i++;
	for (; i < argc && n < 32; i++) {
		int fd = open(argv[i], O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);

		if (fd < 0) {
			fprintf(stderr, "tee: %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		fds[n++] = fd;
	}
	while ((r = read(0, buf, sizeof(buf))) > 0) {
		if (write(1, buf, (size_t)r) != r)
			status = 1;
		for (int k = 0; k < n; k++)
			if (write(fds[k], buf, (size_t)r) != r)
				status = 1;
	}
	if (r < 0) {
		perror("tee: read");
		status = 1;
	}
	return status;
}
