/* echo: print the arguments separated by spaces; -n omits the newline. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int newline = 1, i = 1;

	if (i < argc && strcmp(argv[i], "-n") == 0) {
		newline = 0;
		i++;
	}
	for (int first = i; i < argc; i++) {
		if (i > first)
			putchar(' ');
		fputs(argv[i], stdout);
	}
	if (newline)
		putchar('\n');
	return 0;
}
