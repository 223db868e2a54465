/*
 * sh: a small shell. Grammar (a subset of POSIX sh):
 *
 *   list     := and_or ( (';' | '&' | newline) and_or )*
 *   and_or   := pipeline ( ('&&' | '||') pipeline )*
 *   pipeline := command ( '|' command )*
 *   command  := ( word | redirect )+
 *   redirect := [n]'<' word | [n]'>' word | [n]'>>' word | [n]'>&' n
 *
 * Words may be quoted with '...' or "..." or escaped with a backslash;
 * $? expands to the last exit status and $NAME to the environment variable.
 * Built-ins: cd, exit, export, pwd. A command killed by signal s has status
 * 128 + s. Usage: sh [-c COMMAND | SCRIPT]; reads standard input otherwise,
 * printing a "$ " prompt when it is a terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_TOKENS 256
#define MAX_ARGS 64
#define MAX_REDIRS 8
#define MAX_PIPELINE 16

enum token_kind { T_WORD, T_PIPE, T_AND, T_OR, T_SEMI, T_AMP, T_REDIR, T_END };

struct token {
	enum token_kind kind;
	char *text;        /* T_WORD: expanded word; T_REDIR: operator */
	int io_number;     /* T_REDIR: explicit fd or -1 */
};

struct redirect {
	int fd;            /* fd being redirected */
	int kind;          /* '<', '>', 'a' (>>), 'd' (>&) */
	char *target;
};

struct command {
	char *argv[MAX_ARGS + 1];
	int argc;
	struct redirect redirs[MAX_REDIRS];
	int nredirs;
};

static int last_status;

/* Stands for "$?" in a word until the word is used (see expand_status). */
#define STATUS_MARK '\x01'
static struct token tokens[MAX_TOKENS];
static int ntokens;

static void shell_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "sh: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* ---- lexing and expansion ---- */

struct word_buffer {
	char *text;
	size_t len, cap;
};

static void word_add(struct word_buffer *w, char c)
{
	if (w->len + 2 > w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->text = realloc(w->text, w->cap);
	}
	w->text[w->len++] = c;
	w->text[w->len] = '\0';
}

static void word_add_str(struct word_buffer *w, const char *s)
{
	while (*s)
		word_add(w, *s++);
}

/* Expand $? or $NAME at *p (just after '$'); returns the new position. */
static const char *expand_dollar(struct word_buffer *w, const char *p)
{
	char name[64];
	size_t n = 0;

	if (*p == '?') {
		/* Expanded when the command runs: the status changes within a line. */
		word_add(w, STATUS_MARK);
		return p + 1;
	}
	if (*p == '$') {
		char num[16];

		snprintf(num, sizeof(num), "%d", getpid());
		word_add_str(w, num);
		return p + 1;
	}
	while ((*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		(n > 0 && *p >= '0' && *p <= '9')) && n < sizeof(name) - 1)
		name[n++] = *p++;
	name[n] = '\0';
	if (n == 0) {
		word_add(w, '$');
		return p;
	}
	if (getenv(name))
		word_add_str(w, getenv(name));
	return p;
}

static int is_operator_char(char c)
{
	return c == '|' || c == '&' || c == ';' || c == '<' || c == '>';
}

static int add_token(enum token_kind kind, char *text, int io_number)
{
	if (ntokens == MAX_TOKENS - 1) {
		shell_error("%s", "line too long");
		return -1;
	}
	tokens[ntokens].kind = kind;
	tokens[ntokens].text = text;
	tokens[ntokens].io_number = io_number;
	ntokens++;
	return 0;
}

static void free_tokens(void)
{
	for (int i = 0; i < ntokens; i++)
		free(tokens[i].text);
	ntokens = 0;
}

static int tokenize(const char *p)
{
	ntokens = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '\0' || *p == '#')
			break;
		if (*p == '\n') {
			if (add_token(T_SEMI, NULL, -1) < 0)
				return -1;
			p++;
			continue;
		}
		/* An all-digit word directly followed by < or > is an fd number. */
		{
			const char *q = p;
			int io = 0;

			while (*q >= '0' && *q <= '9')
				io = io * 10 + (*q++ - '0');
			if (q > p && (*q == '<' || *q == '>')) {
				int append = q[0] == '>' && q[1] == '>';
				int dup = q[0] == '>' && q[1] == '&';

				if (add_token(T_REDIR, strdup(append ? ">>" : dup ? ">&" : q[0] == '<' ? "<" : ">"),
					      io) < 0)
					return -1;
				p = q + (append || dup ? 2 : 1);
				continue;
			}
		}
		if (is_operator_char(*p)) {
			if (p[0] == '|' && p[1] == '|') {
				add_token(T_OR, NULL, -1);
				p += 2;
			} else if (p[0] == '&' && p[1] == '&') {
				add_token(T_AND, NULL, -1);
				p += 2;
			} else if (p[0] == '|') {
				add_token(T_PIPE, NULL, -1);
				p++;
			} else if (p[0] == '&') {
				add_token(T_AMP, NULL, -1);
				p++;
			} else if (p[0] == ';') {
				add_token(T_SEMI, NULL, -1);
				p++;
			} else if (p[0] == '>' && p[1] == '>') {
				add_token(T_REDIR, strdup(">>"), -1);
				p += 2;
			} else if (p[0] == '>' && p[1] == '&') {
				add_token(T_REDIR, strdup(">&"), -1);
				p += 2;
			} else {
				add_token(T_REDIR, strdup(p[0] == '<' ? "<" : ">"), -1);
				p++;
			}
			continue;
		}
		{
			struct word_buffer w = { NULL, 0, 0 };

			word_add_str(&w, "");
			while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' &&
			       !is_operator_char(*p)) {
				if (*p == '\'') {
					for (p++; *p && *p != '\''; p++)
						word_add(&w, *p);
					if (*p != '\'') {
						shell_error("%s", "unterminated quote");
						free(w.text);
						return -1;
					}
					p++;
				} else if (*p == '"') {
					for (p++; *p && *p != '"';) {
						if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$')) {
							word_add(&w, p[1]);
							p += 2;
						} else if (*p == '$') {
							p = expand_dollar(&w, p + 1);
						} else {
							word_add(&w, *p++);
						}
					}
					if (*p != '"') {
						shell_error("%s", "unterminated quote");
						free(w.text);
						return -1;
					}
					p++;
				} else if (*p == '\\' && p[1]) {
					word_add(&w, p[1]);
					p += 2;
				} else if (*p == '$') {
					p = expand_dollar(&w, p + 1);
				} else {
					word_add(&w, *p++);
				}
			}
			if (add_token(T_WORD, w.text, -1) < 0)
				return -1;
		}
	}
	return add_token(T_END, NULL, -1);
}

/* Replace each STATUS_MARK in a token's text by the current $?. */
static char *expand_status(char *text)
{
	struct word_buffer w = { NULL, 0, 0 };
	char num[16];

	if (!strchr(text, STATUS_MARK))
		return text;
	snprintf(num, sizeof(num), "%d", last_status);
	word_add_str(&w, "");
	for (const char *p = text; *p; p++) {
		if (*p == STATUS_MARK)
			word_add_str(&w, num);
		else
			word_add(&w, *p);
	}
	free(text);
	return w.text;
}

/* ---- execution ---- */

static int apply_redirects(const struct command *cmd)
{
	for (int i = 0; i < cmd->nredirs; i++) {
		const struct redirect *r = &cmd->redirs[i];
		int fd;

		if (r->kind == 'd') {
			fd = atoi(r->target);
			if (dup2(fd, r->fd) < 0) {
				shell_error("%s: bad file descriptor", r->target);
				return -1;
			}
			continue;
		}
		if (r->kind == '<')
			fd = open(r->target, O_RDONLY);
		else if (r->kind == 'a')
			fd = open(r->target, O_WRONLY | O_CREAT | O_APPEND, 0644);
		else
			fd = open(r->target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fprintf(stderr, "sh: %s: %s\n", r->target, strerror(errno));
			return -1;
		}
		if (fd != r->fd) {
			dup2(fd, r->fd);
			close(fd);
		}
	}
	return 0;
}

static int status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	return 128 + WTERMSIG(wstatus);
}

/* Built-ins run in the shell itself; returns -1 if cmd is not one. */
static int run_builtin(struct command *cmd)
{
	const char *name = cmd->argv[0];

	if (strcmp(name, "exit") == 0) {
		fflush(stdout);
		exit(cmd->argc > 1 ? atoi(cmd->argv[1]) : last_status);
	}
	if (strcmp(name, "cd") == 0) {
		const char *dir = cmd->argc > 1 ? cmd->argv[1] : getenv("HOME");

		if (!dir)
			dir = "/";
		if (chdir(dir) < 0) {
			fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
			return 1;
		}
		return 0;
	}
	if (strcmp(name, "pwd") == 0) {
		char buf[512];

		if (!getcwd(buf, sizeof(buf))) {
			perror("sh: pwd");
			return 1;
		}
		puts(buf);
		fflush(stdout);
		return 0;
	}
	if (strcmp(name, "export") == 0) {
		for (int i = 1; i < cmd->argc; i++) {
			char *eq = strchr(cmd->argv[i], '=');

			if (eq) {
				*eq = '\0';
				setenv(cmd->argv[i], eq + 1, 1);
				*eq = '=';
			}
		}
		return 0;
	}
	return -1;
}

static int is_builtin(const char *name)
{
	return strcmp(name, "exit") == 0 || strcmp(name, "cd") == 0 ||
	       strcmp(name, "pwd") == 0 || strcmp(name, "export") == 0;
}

/* Run a pipeline of n commands; wait unless background. */
static int run_pipeline(struct command *cmds, int n, int background)
{
	pid_t pids[MAX_PIPELINE];
	int prev_read = -1, status = 0;

	fflush(stdout);
	if (n == 1 && cmds[0].argc > 0 && is_builtin(cmds[0].argv[0]) && !background) {
		int saved[3] = { dup(0), dup(1), dup(2) };
		int r = apply_redirects(&cmds[0]) < 0 ? 1 : run_builtin(&cmds[0]);

		fflush(stdout);
		for (int fd = 0; fd < 3; fd++) {
			dup2(saved[fd], fd);
			close(saved[fd]);
		}
		return r;
	}
	for (int i = 0; i < n; i++) {
		int fds[2] = { -1, -1 };

		if (i < n - 1 && pipe(fds) < 0) {
			perror("sh: pipe");
			return 1;
		}
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("sh: fork");
			return 1;
		}
		if (pids[i] == 0) {
			if (prev_read >= 0) {
				dup2(prev_read, 0);
				close(prev_read);
			}
			if (fds[1] >= 0) {
				dup2(fds[1], 1);
				close(fds[1]);
				close(fds[0]);
			}
			if (apply_redirects(&cmds[i]) < 0)
				_exit(1);
			if (cmds[i].argc == 0)
				_exit(0);
			if (is_builtin(cmds[i].argv[0]))
				_exit(run_builtin(&cmds[i]));
			execvp(cmds[i].argv[0], cmds[i].argv);
			fprintf(stderr, "sh: %s: %s\n", cmds[i].argv[0],
				errno == ENOENT ? "command not found" : strerror(errno));
			_exit(errno == ENOENT ? 127 : 126);
		}
		if (prev_read >= 0)
			close(prev_read);
		if (fds[1] >= 0)
			close(fds[1]);
		prev_read = fds[0];
	}
	if (background) {
		fprintf(stderr, "[%d]\n", pids[n - 1]);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		int ws;

		while (waitpid(pids[i], &ws, 0) < 0 && errno == EINTR)
			;
		if (i == n - 1)
			status = status_of(ws);
	}
	return status;
}

/* Parse tokens [*pos, ...) into one pipeline; returns its length or -1. */
static int parse_pipeline(int *pos, struct command *cmds)
{
	int n = 0;

	memset(&cmds[0], 0, sizeof(cmds[0]));
	for (;;) {
		struct token *t = &tokens[*pos];
		struct command *cmd = &cmds[n];

		if (t->kind == T_WORD) {
			if (cmd->argc == MAX_ARGS) {
				shell_error("%s", "too many arguments");
				return -1;
			}
			t->text = expand_status(t->text);
			cmd->argv[cmd->argc++] = t->text;
			cmd->argv[cmd->argc] = NULL;
			(*pos)++;
		} else if (t->kind == T_REDIR) {
			struct redirect *r;

			if (tokens[*pos + 1].kind != T_WORD) {
				shell_error("syntax error near '%s'", t->text);
				return -1;
			}
			if (cmd->nredirs == MAX_REDIRS) {
				shell_error("%s", "too many redirections");
				return -1;
			}
			r = &cmd->redirs[cmd->nredirs++];
			r->kind = strcmp(t->text, "<") == 0 ? '<' : strcmp(t->text, ">>") == 0 ? 'a'
				: strcmp(t->text, ">&") == 0 ? 'd' : '>';
			r->fd = t->io_number >= 0 ? t->io_number : r->kind == '<' ? 0 : 1;
			tokens[*pos + 1].text = expand_status(tokens[*pos + 1].text);
			r->target = tokens[*pos + 1].text;
			*pos += 2;
		} else if (t->kind == T_PIPE) {
			if (cmd->argc == 0 && cmd->nredirs == 0) {
				shell_error("syntax error near '%s'", "|");
				return -1;
			}
			if (++n == MAX_PIPELINE) {
				shell_error("%s", "pipeline too long");
				return -1;
			}
			memset(&cmds[n], 0, sizeof(cmds[n]));
			(*pos)++;
		} else {
			break;
		}
	}
	if (cmds[n].argc == 0 && cmds[n].nredirs == 0) {
		if (n > 0) {
			shell_error("syntax error near '%s'", "|");
			return -1;
		}
		return 0;
	}
	return n + 1;
}

/* Run one line: a list of and-or lists. */
static void run_line(const char *line)
{
	static struct command cmds[MAX_PIPELINE];
	int pos = 0;

	if (tokenize(line) < 0) {
		last_status = 2;
		free_tokens();
		return;
	}
	while (tokens[pos].kind != T_END) {
		int skip = 0;

		for (;;) {
			int n = parse_pipeline(&pos, cmds);
			enum token_kind next;

			if (n < 0) {
				last_status = 2;
				free_tokens();
				return;
			}
			next = tokens[pos].kind;
			if (n > 0 && !skip)
				last_status = run_pipeline(cmds, n, next == T_AMP);
			if (next == T_AND || next == T_OR) {
				if (n == 0) {
					shell_error("syntax error near '%s'", next == T_AND ? "&&" : "||");
					last_status = 2;
					free_tokens();
					return;
				}
				/* a && b runs b only if a succeeded; a || b only if it failed.
				 * A skipped pipeline leaves the status of the last one run. */
				skip = next == T_AND ? last_status != 0 : last_status == 0;
				pos++;
				continue;
			}
			break;
		}
		if (tokens[pos].kind == T_SEMI || tokens[pos].kind == T_AMP)
			pos++;
		else if (tokens[pos].kind != T_END) {
			shell_error("syntax error near '%s'", tokens[pos].text ? tokens[pos].text : "?");
			last_status = 2;
			break;
		}
	}
	free_tokens();
}

static int run_stream(FILE *in, int interactive)
{
	char *line = NULL;
	size_t cap = 0;

	for (;;) {
		if (interactive) {
			fputs("$ ", stderr);
		}
		if (getline(&line, &cap, in) < 0)
			break;
		run_line(line);
		/* Reap finished background jobs. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	free(line);
	return last_status;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "-c") == 0) {
		run_line(argv[2]);
		fflush(stdout);
		return last_status;
	}
	if (argc > 1) {
		FILE *f = fopen(argv[1], "r");

		if (!f) {
			fprintf(stderr, "sh: %s: %s\n", argv[1], strerror(errno));
			return 127;
		}
		return run_stream(f, 0);
	}
	return run_stream(stdin, isatty(0));
}
