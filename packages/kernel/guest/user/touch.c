/*
 * touch: create files that do not exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: touch [-c] FILE...\n"
	"Creates each FILE that does not exist (empty). The guest's file system\n"
	"keeps no times, so an existing file is left as it is.\n"
	"  -c   do not create missing files\n";

int main(int argc, char **argv)
{
	int i = 1, nocreate = 0, status = 0;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (i < argc && strcmp(argv[i], "-c") == 0)
		nocreate = 1, i++;
	if (i >= argc) {
		fprintf(stderr, "touch: missing file operand\n%s", usage);
		return 1;
	}
	for (; i < argc; i++) {
		int fd = open(argv[i], nocreate ? O_WRONLY : O_WRONLY | O_CREAT, 0644);

		if (fd < 0) {
			if (nocreate && errno == ENOENT)
				continue;
			fprintf(stderr, "touch: cannot touch '%s': %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		close(fd);
	}
	return status;
}
