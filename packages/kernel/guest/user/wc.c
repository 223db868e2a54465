/* wc: count lines, words and bytes (-l, -w, -c select columns). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct counts {
	unsigned long lines, words, bytes;
};

static int show_lines, show_words, show_bytes;

static int count_fd(int fd, struct counts *c)
{
	char buf[4096];
	int in_word = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char ch = buf[i];
			int space = ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r' ||
				    ch == '\v' || ch == '\f';

			if (ch == '\n')
				c->lines++;
			if (space)
				in_word = 0;
			else if (!in_word) {
				in_word = 1;
				c->words++;
			}
		}
		c->bytes += (unsigned long)n;
	}
	return n < 0 ? -1 : 0;
}

static void print_counts(const struct counts *c, const char *name)
{
	const char *sep = "";

	if (show_lines) {
		printf("%s%7lu", sep, c->lines);
		sep = " ";
	}
	if (show_words) {
		printf("%s%7lu", sep, c->words);
		sep = " ";
	}
	if (show_bytes)
		printf("%s%7lu", sep, c->bytes);
	if (name)
		printf(" %s", name);
	putchar('\n');
}

int main(int argc, char **argv)
{
	struct counts total = { 0, 0, 0 };
	int i = 1, files = 0, status = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		for (const char *p = argv[i] + 1; *p; p++) {
			if (*p == 'l')
				show_lines = 1;
			else if (*p == 'w')
				show_words = 1;
			else if (*p == 'c')
				show_bytes = 1;
			else {
				fprintf(stderr, "wc: unknown option -%c\n", *p);
				return 2;
			}
		}
	}
	if (!show_lines && !show_words && !show_bytes)
		show_lines = show_words = show_bytes = 1;
	if (i == argc) {
		struct counts c = { 0, 0, 0 };

		count_fd(0, &c);
		print_counts(&c, NULL);
		return 0;
	}
	for (; i < argc; i++, files++) {
		struct counts c = { 0, 0, 0 };
		int fd = open(argv[i], O_RDONLY);

		if (fd < 0 || count_fd(fd, &c) < 0) {
			fprintf(stderr, "wc: %s: %s\n", argv[i], strerror(errno));
			status = 1;
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		print_counts(&c, argv[i]);
		total.lines += c.lines;
		total.words += c.words;
		total.bytes += c.bytes;
	}
	if (files > 1)
		print_counts(&total, "total");
	return status;
}
