/*
 * dd: copy blocks between files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: dd [if=FILE] [of=FILE] [bs=N] [count=N] [skip=N] [seek=N]\n"
	"Copies COUNT blocks of BS bytes (default 512; suffixes k and M) from\n"
	"FILE (default standard input) to FILE (default standard output), after\n"
	"skipping SKIP input blocks and SEEK output blocks, then reports the\n"
	"records and bytes on standard error.\n";

static long size_arg(const char *s, const char *name)
{
	char *e;
	long v = strtol(s, &e, 10);

	if (*e == 'k' || *e == 'K')
		v *= 1024, e++;
	else if (*e == 'M')
		v *= 1024 * 1024, e++;
	if (*e || e == s || v < 0) {
		fprintf(stderr, "dd: invalid number for %s: '%s'\n", name, s);
		exit(1);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	long bs = 512, count = -1, skip = 0, seek = 0, full = 0, partial = 0, ofull = 0, opartial = 0, bytes = 0;
	int ifd = 0, ofd = 1;
	char *buf;

	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (!eq) {
			fprintf(stderr, "dd: unrecognized operand '%s'\n%s", argv[i], usage);
			return 1;
		}
		*eq = '\0';
		if (strcmp(argv[i], "if") == 0)
			in = eq + 1;
		else if (strcmp(argv[i], "of") == 0)
			out = eq + 1;
		else if (strcmp(argv[i], "bs") == 0)
			bs = size_arg(eq + 1, "bs");
		else if (strcmp(argv[i], "count") == 0)
			count = size_arg(eq + 1, "count");
		else if (strcmp(argv[i], "skip") == 0)
			skip = size_arg(eq + 1, "skip");
		else if (strcmp(argv[i], "seek") == 0)
			seek = size_arg(eq + 1, "seek");
		else {
			fprintf(stderr, "dd: unrecognized operand '%s'\n%s", argv[i], usage);
			return 1;
		}
	}
	if (bs == 0 || bs > 16 * 1024 * 1024) {
		fputs("dd: invalid block size\n", stderr);
		return 1;
	}
	if (in && (ifd = open(in, O_RDONLY)) < 0) {
		fprintf(stderr, "dd: failed to open '%s': %s\n", in, strerror(errno));
		return 1;
	}
	if (out && (ofd = open(out, O_WRONLY | O_CREAT | (seek ? 0 : O_TRUNC), 0644)) < 0) {
		fprintf(stderr, "dd: failed to open '%s': %s\n", out, strerror(errno));
		return 1;
	}
	buf = malloc((size_t)bs);
	if (!buf) {
		fputs("dd: out of memory\n", stderr);
		return 1;
	}
	if (skip && lseek(ifd, skip * bs, SEEK_SET) < 0)
		for (long k = 0; k < skip; k++)
			if (read(ifd, buf, (size_t)bs) <= 0)
				break;
	if (seek && lseek(ofd, seek * bs, SEEK_SET) < 0) {
		fprintf(stderr, "dd: cannot seek: %s\n", strerror(errno));
		return 1;
	}
	while (count < 0 || full + partial < count) {
		ssize_t n = read(ifd, buf, (size_t)bs), w;

		if (n < 0) {
			fprintf(stderr, "dd: error reading: %s\n", strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		if (n == bs)
			full++;
		else
			partial++;
		w = write(ofd, buf, (size_t)n);
		if (w < 0) {
			fprintf(stderr, "dd: error writing: %s\n", strerror(errno));
			return 1;
		}
		if (w == bs)
			ofull++;
		else
			opartial++;
		bytes += w;
	}
	fprintf(stderr, "%ld+%ld records in\n%ld+%ld records out\n%ld bytes copied\n", full, partial, ofull, opartial, bytes);
	return 0;
}
