/*
 * stat: show a file's status.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: stat FILE...\n"
	"Prints each FILE's type, size, inode, links, mode and device numbers.\n";

static const char *type_of(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "regular file";
	case S_IFDIR: return "directory";
	case S_IFCHR: return "character special file";
	case S_IFIFO: return "fifo";
	default: return "other";
	}
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "stat: missing operand\n%s", usage);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "stat: cannot stat '%s': %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		printf("  File: %s\n", argv[i]);
		printf("  Size: %-10lld Type: %s\n", (long long)st.st_size, type_of(st.st_mode));
		printf("Device: %llu Inode: %-10llu Links: %llu\n", (unsigned long long)st.st_dev,
		       (unsigned long long)st.st_ino, (unsigned long long)st.st_nlink);
		printf("Access: (%04o) Uid: %u Gid: %u", st.st_mode & 07777, st.st_uid, st.st_gid);
		if (S_ISCHR(st.st_mode))
			printf(" Device type: %llu,%llu", (unsigned long long)(st.st_rdev >> 8),
			       (unsigned long long)(st.st_rdev & 0xff));
		putchar('\n');
	}
	return status;
}
