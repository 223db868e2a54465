/*
 * xargs: build command lines from standard input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
	"usage: xargs [-n MAX] [-I REPLACE] [COMMAND [ARG...]]\n"
	"Runs COMMAND (default echo) with ARGs and words read from standard input\n"
	"(separated by blanks and newlines; quotes and backslashes group them),\n"
	"at most MAX words a run. -I runs COMMAND once per input line, with\n"
	"REPLACE in the ARGs replaced by the line. Exit status 123 if a run\n"
	"failed, 127 if COMMAND was not found.\n";

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("xargs: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "xargs: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return 127;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 123;
}

static char *replace_all(const char *s, const char *what, const char *with)
{
	size_t n = 1, wl = strlen(what), rl = strlen(with);
	char *r, *o;

	for (const char *p = s; *p;)
		if (wl && strncmp(p, what, wl) == 0)
			n += rl, p += wl;
		else
			n++, p++;
	r = o = malloc(n);
	for (const char *p = s; *p;)
		if (wl && strncmp(p, what, wl) == 0) {
			memcpy(o, with, rl);
			o += rl;
			p += wl;
		} else
			*o++ = *p++;
	*o = '\0';
	return r;
}

int main(int argc, char **argv)
{
	int i = 1, max = 0, status = 0, fixed;
	const char *repl = NULL;
	char **cmd;
	int cap = 64, n;
	char *word = NULL;
	size_t wlen = 0, wcap = 0;
	int c, quote = 0, have = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			max = atoi(argv[++i]);
		else if (strcmp(argv[i], "-I") == 0 && i + 1 < argc)
			repl = argv[++i];
		else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else {
			fprintf(stderr, "xargs: invalid option '%s'\n%s", argv[i], usage);
			return 1;
		}
	}
	fixed = argc - i;
	cap += fixed;
	cmd = malloc(sizeof(char *) * (size_t)(cap + 1));
	if (fixed == 0)
		cmd[0] = "echo", fixed = 1;
	else
		for (int k = 0; k < fixed; k++)
			cmd[k] = argv[i + k];
	n = fixed;
	if (repl) {
		char *line = NULL;
		size_t lcap = 0;
		ssize_t len;

		while ((len = getline(&line, &lcap, stdin)) > 0) {
			char **a = malloc(sizeof(char *) * (size_t)(fixed + 1));
			int r;

			if (line[len - 1] == '\n')
				line[len - 1] = '\0';
			for (int k = 0; k < fixed; k++)
				a[k] = replace_all(cmd[k], repl, line);
			a[fixed] = NULL;
			r = run(a);
			if (r)
				status = r;
			for (int k = 0; k < fixed; k++)
				free(a[k]);
			free(a);
			if (r == 127)
				break;
		}
		return status;
	}
	for (;;) {
		c = getchar();
		if (c != EOF && (quote ? c != quote : !(c == ' ' || c == '\t' || c == '\n'))) {
			if (!quote && (c == '\'' || c == '"')) {
				quote = c;
				have = 1;
				continue;
			}
			if (!quote && c == '\\') {
				c = getchar();
				if (c == EOF)
					break;
			}
			if (wlen + 2 > wcap) {
				wcap = wcap ? wcap * 2 : 64;
				word = realloc(word, wcap);
			}
			word[wlen++] = (char)c;
			have = 1;
			continue;
		}
		if (quote && c != EOF) {
			quote = 0;
			continue;
		}
		if (quote) {
			fputs("xargs: unmatched quote\n", stderr);
			return 1;
		}
		if (have) {
			if (!word) {
				wcap = 64;
				word = malloc(wcap);
			}
			word[wlen] = '\0';
			cmd[n++] = strndup(word, wlen);
			wlen = 0;
			have = 0;
		}
		if ((n > fixed && (n >= cap || (max && n - fixed >= max))) || (c == EOF && n > fixed)) {
			int r;

			cmd[n] = NULL;
			r = run(cmd);
			if (r)
				status = r;
			for (int k = fixed; k < n; k++)
				free(cmd[k]);
			n = fixed;
			if (r == 127)
				return 127;
		}
		if (c == EOF)
			break;
	}
	return status;
}
