/*
 * yes: print a line over and over.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: yes [STRING...]\n"
	"Prints STRING (default 'y') on a line, again and again, until killed or\n"
	"its output is closed.\n";

int main(int argc, char **argv)
{
	char buf[4096];
	size_t len = 0, line = 0;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 2) {
		buf[0] = 'y';
		len = 1;
	}
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + 2 > sizeof(buf) / 2)
			break;
		if (i > 1)
			buf[len++] = ' ';
		memcpy(buf + len, argv[i], n);
		len += n;
	}
	buf[len++] = '\n';
	line = len;
	while (len + line <= sizeof(buf)) {
		memcpy(buf + len, buf, line);
		len += line;
	}
	for (;;)
		if (write(1, buf, len) < 0)
			return 1;
}
