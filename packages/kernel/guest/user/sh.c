/*
 * sh: a POSIX-shell subset. Source text is tokenized, parsed into a tree of
 * commands, and the tree is executed; words are expanded when a command
 * runs (parameters, $(...), $((...)), field splitting, globbing, quote
 * removal).
 *
 *   list      := and_or ( (';' | '&' | newline) and_or )*
 *   and_or    := pipeline ( ('&&' | '||') linebreak pipeline )*
 *   pipeline  := ['!'] command ( '|' linebreak command )*
 *   command   := simple | compound redirect* | NAME '(' ')' compound
 *   compound  := '{' list '}' | '(' list ')' | if | while | until | for | case
 *   simple    := ( NAME=word | word | redirect )+
 *   redirect  := [n] ( '<' | '>' | '>>' | '>|' | '<>' | '<&' | '>&' ) word
 *              | [n] ( '<<' | '<<-' ) delimiter | [n] '<<<' word
 *
 * Parameters: $name ${name} $1.. ${10} $# $@ $* $? $$ $! $0 and ${name:-w}
 * ${name-w} ${name:=w} ${name:+w} ${name:?w} ${#name} ${name%p} ${name%%p}
 * ${name#p} ${name##p}; unset variables expand to nothing. Built-ins: : . [
 * break cd continue eval exec exit export jobs kill local printf pwd read
 * readonly return set shift test trap type umask unset wait (echo, true
 * and false are the programs in /bin, so each is a process one can trace).
 * Usage: sh [-e] [-x] [-c COMMAND [NAME [ARG...]] | SCRIPT [ARG...]]; reads
 * standard input otherwise, printing a "$ " prompt when it is a terminal.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sh_provider.h"

/* ---- small helpers ---- */

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		write(2, "sh: out of memory\n", 18);
		_exit(2);
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		write(2, "sh: out of memory\n", 18);
		_exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s);
	char *d = xmalloc(n + 1);

	memcpy(d, s, n + 1);
	return d;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

struct str {
	char *s;
	size_t len, cap;
};

static void str_addc(struct str *b, char c)
{
	if (b->len + 2 > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->s = xrealloc(b->s, b->cap);
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

static void str_adds(struct str *b, const char *s)
{
	if (!b->s) {
		b->cap = 32;
		b->s = xmalloc(b->cap);
		b->s[0] = '\0';
	}
	while (*s)
		str_addc(b, *s++);
}

static char *str_take(struct str *b)
{
	char *s = b->s ? b->s : xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

struct vec {
	char **v;
	int n, cap;
};

static void vec_push(struct vec *v, char *s)
{
	if (v->n + 2 > v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->v = xrealloc(v->v, (size_t)v->cap * sizeof(char *));
	}
	v->v[v->n++] = s;
	v->v[v->n] = NULL;
}

static void vec_free(struct vec *v)
{
	for (int i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

/*
 * The command line a probe reports: argv joined by spaces. Built only while
 * one of the probes that report it is enabled (their is-enabled tests).
 */
static char *probe_line(char **argv)
{
	size_t n = 1;
	char *line, *p;

	for (int i = 0; argv[i]; i++)
		n += strlen(argv[i]) + 1;
	line = p = xmalloc(n);
	for (int i = 0; argv[i]; i++) {
		size_t len = strlen(argv[i]);

		if (i > 0)
			*p++ = ' ';
		memcpy(p, argv[i], len);
		p += len;
	}
	*p = '\0';
	return line;
}

static int is_name_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_name_char(int c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

static int is_name(const char *s, size_t n)
{
	if (n == 0 || !is_name_start((unsigned char)s[0]))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!is_name_char((unsigned char)s[i]))
			return 0;
	return 1;
}

/* ---- shell state ---- */

static const char *shell_name = "sh";
static int interactive;
static int last_status;
static int opt_errexit, opt_xtrace, opt_nounset;
static pid_t last_bg_pid;
static int positional_n;
static char **positional;      /* positional[0..n-1] are $1..$n */
static int in_function;
static int loop_depth;
static int pending_break, pending_continue, pending_return;
static int errexit_suppressed; /* > 0 in if/while conditions, && || left sides, ! */
static int in_subshell;
static int reading_stream; /* more lines may complete a construct */
static void shell_exit(int status) __attribute__((noreturn));

static void sh_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh_error(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "%s: ", shell_name);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	fflush(stdout);
	write(2, buf, (size_t)n);
}

/* Variables: one list, exported ones go to the environment of commands. */
struct var {
	struct var *next;
	char *name, *value;
	int exported, readonly;
};

static struct var *vars;

static struct var *var_find(const char *name)
{
	for (struct var *v = vars; v; v = v->next)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}

static const char *var_get(const char *name)
{
	struct var *v = var_find(name);

	return v ? v->value : NULL;
}

static int var_set(const char *name, const char *value, int export)
{
	struct var *v = var_find(name);

	if (v && v->readonly) {
		sh_error("%s: is read only", name);
		return -1;
	}
	if (!v) {
		v = xmalloc(sizeof(*v));
		v->name = xstrdup(name);
		v->value = NULL;
		v->exported = 0;
		v->readonly = 0;
		v->next = vars;
		vars = v;
	}
	if (value) {
		free(v->value);
		v->value = xstrdup(value);
	}
	if (export)
		v->exported = 1;
	return 0;
}

static int var_unset(const char *name)
{
	for (struct var **pp = &vars; *pp; pp = &(*pp)->next) {
		struct var *v = *pp;

		if (strcmp(v->name, name) == 0) {
			if (v->readonly) {
				sh_error("%s: is read only", name);
				return -1;
			}
			*pp = v->next;
			free(v->name);
			free(v->value);
			free(v);
			return 0;
		}
	}
	return 0;
}

static char **build_env(void)
{
	struct vec env = { 0 };

	for (struct var *v = vars; v; v = v->next) {
		if (v->exported && v->value) {
			struct str s = { 0 };

			str_adds(&s, v->name);
			str_addc(&s, '=');
			str_adds(&s, v->value);
			vec_push(&env, str_take(&s));
		}
	}
	if (!env.v)
		vec_push(&env, NULL), env.n = 0;
	return env.v;
}

/* ---- tokens ---- */

enum tok {
	T_EOF, T_NEWLINE, T_WORD, T_SEMI, T_DSEMI, T_AMP, T_AND, T_OR, T_PIPE,
	T_LPAREN, T_RPAREN, T_REDIR,
};

enum redir_kind { R_IN, R_OUT, R_APPEND, R_CLOBBER, R_RDWR, R_DUPIN, R_DUPOUT, R_HEREDOC, R_HERESTR };

struct redir {
	struct redir *next;
	int fd;
	enum redir_kind kind;
	char *word;          /* target, or here-document body */
	int heredoc_quoted;  /* body is taken literally */
	int strip_tabs;
};

enum node_kind { N_SIMPLE, N_PIPE, N_AND, N_OR, N_LIST, N_SUBSHELL, N_GROUP, N_IF, N_WHILE, N_UNTIL, N_FOR, N_CASE, N_FUNC, N_NOT };

struct case_item {
	struct case_item *next;
	struct vec patterns;
	struct node *body;
};

struct node {
	enum node_kind kind;
	struct redir *redirs;
	/* N_SIMPLE */
	struct vec assigns, words;
	/* N_PIPE, N_LIST: children; N_LIST: background flags and texts */
	struct node **kids;
	int *bg;
	char **texts;
	int nkids;
	/* N_AND/N_OR/N_IF/N_WHILE/N_UNTIL: a b c; N_SUBSHELL/N_GROUP/N_FUNC/N_NOT: a */
	struct node *a, *b, *c;
	/* N_FOR: name, words (NULL: "$@"); N_CASE: word, items; N_FUNC: name */
	char *name;
	struct vec *list;
	struct case_item *items;
};

struct lexer {
	const char *src;
	size_t pos, len;
	int eof_in_construct; /* the text ended inside a construct: more input may complete it */
	int error;
	enum tok tok;         /* peeked token */
	int have_tok;
	char *word;           /* T_WORD text (raw, quotes kept) */
	int word_quoted;      /* any quoting in the word */
	enum redir_kind rkind;
	int rfd;
	size_t tok_start, tok_end;
	struct redir *pending_heredocs[16];
	int npending;
};

static struct lexer *L;

static void parse_error(const char *what)
{
	if (L->error)
		return;
	L->error = 1;
	sh_error("syntax error: %s", what);
}

static void incomplete(void)
{
	if (L->error)
		return;
	L->error = 1;
	L->eof_in_construct = 1;
	if (!reading_stream)
		sh_error("syntax error: %s", "unexpected end of file");
}

static int is_meta(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '<' || c == '>' || c == '(' || c == ')' || c == '\0';
}

/* Skips a construct starting at src[p] ('\'', '"', '`', "$(", "${",
 * "$(("); returns the index just past it, or -1 if the text ends first. */
static long skip_quoted(const char *s, size_t len, size_t p);

static long skip_until_close(const char *s, size_t len, size_t p, char close)
{
	int depth = 0;

	while (p < len) {
		char c = s[p];

		if (c == '\\') {
			p += 2;
			continue;
		}
		if (c == '\'' || c == '"' || c == '`' || (c == '$' && p + 1 < len && (s[p + 1] == '(' || s[p + 1] == '{'))) {
			long q = skip_quoted(s, len, p);

			if (q < 0)
				return -1;
			p = (size_t)q;
			continue;
		}
		if (close == ')' && c == '(')
			depth++;
		if (c == close) {
			if (depth == 0)
				return (long)p + 1;
			depth--;
		}
		p++;
	}
	return -1;
}

static long skip_quoted(const char *s, size_t len, size_t p)
{
	char c = s[p];

	if (c == '\'') {
		for (p++; p < len && s[p] != '\''; p++)
			;
		return p < len ? (long)p + 1 : -1;
	}
	if (c == '"') {
		for (p++; p < len && s[p] != '"';) {
			if (s[p] == '\\')
				p += 2;
			else if (s[p] == '`' || (s[p] == '$' && p + 1 < len && (s[p + 1] == '(' || s[p + 1] == '{'))) {
				long q = skip_quoted(s, len, p);

				if (q < 0)
					return -1;
				p = (size_t)q;
			} else
				p++;
		}
		return p < len ? (long)p + 1 : -1;
	}
	if (c == '`') {
		for (p++; p < len && s[p] != '`'; p++)
			if (s[p] == '\\')
				p++;
		return p < len ? (long)p + 1 : -1;
	}
	if (c == '$' && s[p + 1] == '{')
		return skip_until_close(s, len, p + 2, '}');
	if (c == '$' && s[p + 1] == '(')
		return skip_until_close(s, len, p + 2, ')');
	return (long)p + 1;
}

static void read_heredoc_bodies(void)
{
	for (int i = 0; i < L->npending; i++) {
		struct redir *r = L->pending_heredocs[i];
		const char *delim = r->word;
		struct str body = { 0 };

		for (;;) {
			size_t start = L->pos, end;

			if (L->pos >= L->len) {
				incomplete();
				free(body.s);
				return;
			}
			while (L->pos < L->len && L->src[L->pos] != '\n')
				L->pos++;
			end = L->pos;
			if (L->pos < L->len)
				L->pos++;
			else if (!interactive) {
				/* a last line without newline still counts */
			} else {
				L->pos = start;
				incomplete();
				free(body.s);
				return;
			}
			if (r->strip_tabs)
				while (start < end && L->src[start] == '\t')
					start++;
			if (end - start == strlen(delim) && memcmp(L->src + start, delim, end - start) == 0)
				break;
			for (size_t k = start; k < end; k++)
				str_addc(&body, L->src[k]);
			str_addc(&body, '\n');
		}
		r->word = str_take(&body);
		free((char *)delim);
	}
	L->npending = 0;
}

static enum tok lex(void)
{
	const char *s = L->src;

	if (L->have_tok)
		return L->tok;
	L->have_tok = 1;
	free(L->word);
	L->word = NULL;
	for (;;) {
		while (L->pos < L->len && (s[L->pos] == ' ' || s[L->pos] == '\t' || s[L->pos] == '\r'))
			L->pos++;
		if (L->pos + 1 < L->len && s[L->pos] == '\\' && s[L->pos + 1] == '\n') {
			L->pos += 2;
			continue;
		}
		break;
	}
	if (L->pos < L->len && s[L->pos] == '#')
		while (L->pos < L->len && s[L->pos] != '\n')
			L->pos++;
	L->tok_start = L->pos;
	if (L->pos >= L->len) {
		L->tok = T_EOF;
		return T_EOF;
	}
	{
		char c = s[L->pos], d = L->pos + 1 < L->len ? s[L->pos + 1] : '\0';
		char e = L->pos + 2 < L->len ? s[L->pos + 2] : '\0';
		size_t q = L->pos;
		int io = -1;

		if (c == '\n') {
			L->pos++;
			L->tok_end = L->pos;
			L->tok = T_NEWLINE;
			if (L->npending)
				read_heredoc_bodies();
			return T_NEWLINE;
		}
		while (q < L->len && s[q] >= '0' && s[q] <= '9')
			q++;
		if (q > L->pos && q < L->len && (s[q] == '<' || s[q] == '>')) {
			io = atoi(s + L->pos);
			L->pos = q;
			c = s[q];
			d = q + 1 < L->len ? s[q + 1] : '\0';
			e = q + 2 < L->len ? s[q + 2] : '\0';
		}
		if (c == '<' || c == '>') {
			int n = 1;

			if (c == '<' && d == '<' && e == '<')
				L->rkind = R_HERESTR, n = 3;
			else if (c == '<' && d == '<' && e == '-')
				L->rkind = R_HEREDOC, n = 3;
			else if (c == '<' && d == '<')
				L->rkind = R_HEREDOC, n = 2;
			else if (c == '<' && d == '&')
				L->rkind = R_DUPIN, n = 2;
			else if (c == '<' && d == '>')
				L->rkind = R_RDWR, n = 2;
			else if (c == '<')
				L->rkind = R_IN;
			else if (d == '>')
				L->rkind = R_APPEND, n = 2;
			else if (d == '&')
				L->rkind = R_DUPOUT, n = 2;
			else if (d == '|')
				L->rkind = R_CLOBBER, n = 2;
			else
				L->rkind = R_OUT;
			L->rfd = io >= 0 ? io : (c == '<' ? 0 : 1);
			L->word_quoted = n == 3 && e == '-'; /* <<- strips tabs */
			L->pos += (size_t)n;
			L->tok_end = L->pos;
			L->tok = T_REDIR;
			return T_REDIR;
		}
		if (c == ';' || c == '&' || c == '|' || c == '(' || c == ')') {
			L->pos++;
			if (c == ';' && d == ';')
				L->tok = T_DSEMI, L->pos++;
			else if (c == '&' && d == '&')
				L->tok = T_AND, L->pos++;
			else if (c == '|' && d == '|')
				L->tok = T_OR, L->pos++;
			else
				L->tok = c == ';' ? T_SEMI : c == '&' ? T_AMP : c == '|' ? T_PIPE : c == '(' ? T_LPAREN : T_RPAREN;
			L->tok_end = L->pos;
			return L->tok;
		}
	}
	{
		size_t start = L->pos;

		L->word_quoted = 0;
		while (L->pos < L->len && !is_meta(s[L->pos])) {
			char c = s[L->pos];

			if (c == '\\') {
				L->word_quoted = 1;
				L->pos += L->pos + 1 < L->len ? 2 : 1;
			} else if (c == '\'' || c == '"' || c == '`' || (c == '$' && L->pos + 1 < L->len && (s[L->pos + 1] == '(' || s[L->pos + 1] == '{'))) {
				long q = skip_quoted(s, L->len, L->pos);

				if (c != '$')
					L->word_quoted = 1;
				if (q < 0) {
					L->pos = L->len;
					incomplete();
					L->tok = T_EOF;
					return T_EOF;
				}
				L->pos = (size_t)q;
			} else {
				L->pos++;
			}
		}
		L->word = xstrndup(s + start, L->pos - start);
		L->tok_end = L->pos;
		L->tok = T_WORD;
		return T_WORD;
	}
}

static void consume(void) { L->have_tok = 0; }

static char *take_word(void)
{
	char *w = L->word;

	L->word = NULL;
	consume();
	return w;
}

/* Is the peeked token the unquoted reserved word kw? */
static int is_kw(const char *kw)
{
	return lex() == T_WORD && !L->word_quoted && strcmp(L->word, kw) == 0;
}

static int is_reserved(const char *w)
{
	static const char *const words[] = { "if", "then", "else", "elif", "fi", "do", "done", "case", "esac",
					     "while", "until", "for", "in", "{", "}", "!", NULL };

	for (int i = 0; words[i]; i++)
		if (strcmp(w, words[i]) == 0)
			return 1;
	return 0;
}

static void skip_newlines(void)
{
	while (lex() == T_NEWLINE)
		consume();
}

static struct node *new_node(enum node_kind kind)
{
	struct node *n = xmalloc(sizeof(*n));

	memset(n, 0, sizeof(*n));
	n->kind = kind;
	return n;
}

static void node_add(struct node *n, struct node *kid, int bg, char *text)
{
	n->kids = xrealloc(n->kids, (size_t)(n->nkids + 1) * sizeof(*n->kids));
	n->bg = xrealloc(n->bg, (size_t)(n->nkids + 1) * sizeof(*n->bg));
	n->texts = xrealloc(n->texts, (size_t)(n->nkids + 1) * sizeof(*n->texts));
	n->kids[n->nkids] = kid;
	n->bg[n->nkids] = bg;
	n->texts[n->nkids] = text;
	n->nkids++;
}

static struct node *parse_list(int top);
static struct node *parse_command(void);
static struct node *parse_and_or(void);

static void expect_kw(const char *kw)
{
	if (L->error)
		return;
	if (is_kw(kw)) {
		consume();
		return;
	}
	if (lex() == T_EOF) {
		incomplete();
		return;
	}
	{
		char msg[96];

		snprintf(msg, sizeof(msg), "expected '%s'", kw);
		parse_error(msg);
	}
}

static const char *tok_text(void)
{
	switch (lex()) {
	case T_WORD: return L->word;
	case T_NEWLINE: return "newline";
	case T_SEMI: return ";";
	case T_DSEMI: return ";;";
	case T_AMP: return "&";
	case T_AND: return "&&";
	case T_OR: return "||";
	case T_PIPE: return "|";
	case T_LPAREN: return "(";
	case T_RPAREN: return ")";
	case T_REDIR: return "redirection";
	default: return "end of file";
	}
}

static void unexpected(void)
{
	char msg[128];

	if (lex() == T_EOF) {
		incomplete();
		return;
	}
	snprintf(msg, sizeof(msg), "unexpected '%s'", tok_text());
	parse_error(msg);
}

static int parse_redirect(struct redir **list)
{
	struct redir *r, **pp;

	if (lex() != T_REDIR)
		return 0;
	r = xmalloc(sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->kind = L->rkind;
	r->fd = L->rfd;
	r->strip_tabs = L->word_quoted;
	consume();
	if (lex() != T_WORD) {
		unexpected();
		free(r);
		return -1;
	}
	r->heredoc_quoted = L->word_quoted;
	r->word = take_word();
	if (r->kind == R_HEREDOC) {
		/* The delimiter is the word with its quotes removed. */
		struct str d = { 0 };

		str_adds(&d, "");
		for (const char *p = r->word; *p; p++) {
			if (*p == '\'' || *p == '"')
				continue;
			if (*p == '\\' && p[1])
				p++;
			str_addc(&d, *p);
		}
		free(r->word);
		r->word = str_take(&d);
		if (L->npending == 16) {
			parse_error("too many here-documents");
			return -1;
		}
		L->pending_heredocs[L->npending++] = r;
	}
	for (pp = list; *pp; pp = &(*pp)->next)
		;
	*pp = r;
	return 1;
}

static void parse_redirects(struct node *n)
{
	while (!L->error && parse_redirect(&n->redirs) > 0)
		;
}

/* compound-list up to one of the words in stop (not consumed). */
static struct node *parse_compound_list(const char *const *stop)
{
	struct node *list = new_node(N_LIST);

	skip_newlines();
	while (!L->error) {
		size_t start;
		struct node *n;
		int bg = 0;

		if (lex() == T_EOF) {
			incomplete();
			break;
		}
		for (int i = 0; stop[i]; i++)
			if (is_kw(stop[i]) || (stop[i][0] == ')' && lex() == T_RPAREN) ||
			    (stop[i][0] == ';' && lex() == T_DSEMI))
				return list;
		start = L->tok_start;
		n = parse_and_or();
		if (L->error || !n)
			break;
		{
			size_t end = L->tok_start;

			if (lex() == T_AMP)
				bg = 1;
			if (lex() == T_SEMI || lex() == T_AMP || lex() == T_NEWLINE)
				consume();
			else if (lex() != T_EOF && lex() != T_RPAREN && lex() != T_DSEMI && lex() != T_WORD) {
				unexpected();
				break;
			}
			while (end > start && (L->src[end - 1] == ' ' || L->src[end - 1] == '\t'))
				end--;
			node_add(list, n, bg, xstrndup(L->src + start, end - start));
		}
		skip_newlines();
	}
	return list;
}


static struct node *parse_if(void)
{
	static const char *const then_stop[] = { "then", NULL };
	static const char *const body_stop[] = { "elif", "else", "fi", NULL };
	struct node *n = new_node(N_IF);

	consume(); /* if or elif */
	n->a = parse_compound_list(then_stop);
	expect_kw("then");
	if (L->error)
		return n;
	n->b = parse_compound_list(body_stop);
	if (L->error)
		return n;
	if (is_kw("elif")) {
		n->c = parse_if();
		return n;
	}
	if (is_kw("else")) {
		static const char *const fi_stop[] = { "fi", NULL };

		consume();
		n->c = parse_compound_list(fi_stop);
	}
	expect_kw("fi");
	return n;
}

static struct node *parse_do_group(void)
{
	static const char *const done_stop[] = { "done", NULL };
	struct node *body;

	skip_newlines();
	expect_kw("do");
	if (L->error)
		return NULL;
	body = parse_compound_list(done_stop);
	expect_kw("done");
	return body;
}

static struct node *parse_loop(enum node_kind kind)
{
	static const char *const do_stop[] = { "do", NULL };
	struct node *n = new_node(kind);

	consume();
	n->a = parse_compound_list(do_stop);
	if (!L->error)
		n->b = parse_do_group();
	return n;
}

static struct node *parse_for(void)
{
	struct node *n = new_node(N_FOR);

	consume();
	if (lex() != T_WORD || !is_name(L->word, strlen(L->word))) {
		if (lex() == T_EOF)
			incomplete();
		else
			parse_error("bad for loop variable");
		return n;
	}
	n->name = take_word();
	skip_newlines();
	if (is_kw("in")) {
		consume();
		n->list = xmalloc(sizeof(struct vec));
		memset(n->list, 0, sizeof(struct vec));
		while (lex() == T_WORD)
			vec_push(n->list, take_word());
		if (lex() == T_SEMI || lex() == T_NEWLINE)
			consume();
		else if (lex() == T_EOF) {
			incomplete();
			return n;
		} else if (!is_kw("do")) {
			unexpected();
			return n;
		}
	} else if (lex() == T_SEMI) {
		consume();
	}
	n->b = parse_do_group();
	return n;
}

static struct node *parse_case(void)
{
	static const char *const item_stop[] = { ";;", "esac", NULL };
	struct node *n = new_node(N_CASE);
	struct case_item **tail = &n->items;

	consume();
	if (lex() != T_WORD) {
		unexpected();
		return n;
	}
	n->name = take_word();
	skip_newlines();
	expect_kw("in");
	skip_newlines();
	while (!L->error && !is_kw("esac")) {
		struct case_item *item = xmalloc(sizeof(*item));

		memset(item, 0, sizeof(*item));
		if (lex() == T_LPAREN)
			consume();
		for (;;) {
			if (lex() != T_WORD) {
				unexpected();
				free(item);
				return n;
			}
			vec_push(&item->patterns, take_word());
			if (lex() == T_PIPE) {
				consume();
				continue;
			}
			break;
		}
		if (lex() != T_RPAREN) {
			unexpected();
			return n;
		}
		consume();
		item->body = parse_compound_list(item_stop);
		*tail = item;
		tail = &item->next;
		if (L->error)
			return n;
		if (lex() == T_DSEMI) {
			consume();
			skip_newlines();
		} else if (!is_kw("esac")) {
			unexpected();
			return n;
		}
	}
	expect_kw("esac");
	return n;
}

static struct node *parse_command(void)
{
	struct node *n;

	if (L->error)
		return NULL;
	if (lex() == T_WORD && !L->word_quoted) {
		const char *w = L->word;

		if (strcmp(w, "if") == 0)
			n = parse_if();
		else if (strcmp(w, "while") == 0)
			n = parse_loop(N_WHILE);
		else if (strcmp(w, "until") == 0)
			n = parse_loop(N_UNTIL);
		else if (strcmp(w, "for") == 0)
			n = parse_for();
		else if (strcmp(w, "case") == 0)
			n = parse_case();
		else if (strcmp(w, "{") == 0) {
			static const char *const stop[] = { "}", NULL };

			consume();
			n = new_node(N_GROUP);
			n->a = parse_compound_list(stop);
			expect_kw("}");
		} else if (is_reserved(w)) {
			unexpected();
			return NULL;
		} else
			goto simple;
		parse_redirects(n);
		return L->error ? NULL : n;
	}
	if (lex() == T_LPAREN) {
		static const char *const stop[] = { ")", NULL };

		consume();
		n = new_node(N_SUBSHELL);
		n->a = parse_compound_list(stop);
		if (L->error)
			return NULL;
		if (lex() != T_RPAREN) {
			unexpected();
			return NULL;
		}
		consume();
		parse_redirects(n);
		return L->error ? NULL : n;
	}
simple:
	n = new_node(N_SIMPLE);
	for (;;) {
		enum tok t = lex();

		if (t == T_REDIR) {
			if (parse_redirect(&n->redirs) < 0)
				return NULL;
			continue;
		}
		if (t != T_WORD)
			break;
		if (n->words.n == 0) {
			char *eq = strchr(L->word, '=');

			if (eq && is_name(L->word, (size_t)(eq - L->word))) {
				vec_push(&n->assigns, take_word());
				continue;
			}
		}
		if (n->words.n == 0 && n->assigns.n == 0 && !n->redirs && is_name(L->word, strlen(L->word)) &&
		    !L->word_quoted) {
			/* NAME ( ) compound: a function definition. */
			size_t p = L->pos;

			while (p < L->len && (L->src[p] == ' ' || L->src[p] == '\t'))
				p++;
			if (p < L->len && L->src[p] == '(') {
				struct node *f = new_node(N_FUNC);

				f->name = take_word();
				consume_paren:
				if (lex() != T_LPAREN) {
					unexpected();
					return NULL;
				}
				consume();
				if (lex() != T_RPAREN) {
					unexpected();
					return NULL;
				}
				consume();
				skip_newlines();
				f->a = parse_command();
				if (!f->a && !L->error)
					unexpected();
				return L->error ? NULL : f;
				goto consume_paren;
			}
		}
		vec_push(&n->words, take_word());
	}
	if (n->words.n == 0 && n->assigns.n == 0 && !n->redirs) {
		unexpected();
		return NULL;
	}
	return n;
}

static struct node *parse_pipeline(void)
{
	struct node *p = new_node(N_PIPE), *cmd;
	int bang = 0;

	while (is_kw("!")) {
		consume();
		bang = !bang;
	}
	for (;;) {
		cmd = parse_command();
		if (!cmd)
			return NULL;
		node_add(p, cmd, 0, NULL);
		if (lex() != T_PIPE)
			break;
		consume();
		skip_newlines();
	}
	if (p->nkids == 1 && !bang) {
		struct node *only = p->kids[0];

		free(p->kids);
		free(p->bg);
		free(p->texts);
		free(p);
		return only;
	}
	if (bang) {
		struct node *not = new_node(N_NOT);

		not->a = p;
		return not;
	}
	return p;
}

static struct node *parse_and_or(void)
{
	struct node *left = parse_pipeline();

	while (left && !L->error && (lex() == T_AND || lex() == T_OR)) {
		struct node *n = new_node(lex() == T_AND ? N_AND : N_OR);

		consume();
		skip_newlines();
		n->a = left;
		n->b = parse_pipeline();
		if (!n->b)
			return NULL;
		left = n;
	}
	return L->error ? NULL : left;
}

/* A complete command: and-or lists up to a newline or the end. Returns
 * NULL at the end or on error (L->error). */
static struct node *parse_list(int top)
{
	struct node *list = new_node(N_LIST);

	(void)top;
	while (lex() == T_NEWLINE)
		consume();
	while (!L->error && lex() != T_EOF && lex() != T_NEWLINE) {
		size_t start = L->tok_start, end;
		struct node *n = parse_and_or();
		int bg = 0;

		if (!n)
			break;
		end = L->tok_start;
		if (lex() == T_AMP) {
			bg = 1;
			consume();
		} else if (lex() == T_SEMI) {
			consume();
		} else if (lex() != T_NEWLINE && lex() != T_EOF) {
			unexpected();
			break;
		}
		while (end > start && (L->src[end - 1] == ' ' || L->src[end - 1] == '\t'))
			end--;
		node_add(list, n, bg, xstrndup(L->src + start, end - start));
	}
	if (!L->error && lex() == T_NEWLINE)
		consume();
	if (!L->error && L->npending)
		incomplete();
	return L->error ? NULL : list;
}

/* ---- expansion ---- */

/* An expanded word is a run of characters, each with flags. */
#define F_QUOTED 1 /* quoted: literal for globbing, kept by splitting */
#define F_SPLIT  2 /* from an unquoted expansion: IFS characters split */
#define F_BREAK  4 /* a field boundary ("$@") */

struct xword {
	char *c;
	unsigned char *f;
	size_t len, cap;
	int any_quotes; /* the word had quotes: an empty result is still a field */
	int at_empty;   /* "$@" with no positional parameters */
};

static void xw_add(struct xword *w, char c, unsigned char f)
{
	if (w->len + 2 > w->cap) {
		w->cap = w->cap ? w->cap * 2 : 32;
		w->c = xrealloc(w->c, w->cap);
		w->f = xrealloc(w->f, w->cap);
	}
	w->c[w->len] = c;
	w->f[w->len] = f;
	w->len++;
}

static void xw_adds(struct xword *w, const char *s, unsigned char f)
{
	while (*s)
		xw_add(w, *s++, f);
}

static int expand_error;
static char *run_command_subst(const char *text, size_t len);
static int arith_eval(const char *expr, long *result);
static int pattern_match(const char *pat, const unsigned char *qf, const char *s);

static const char *param_value(const char *name, char *tmp, size_t tmpsz)
{
	if (strcmp(name, "?") == 0) {
		snprintf(tmp, tmpsz, "%d", last_status);
		return tmp;
	}
	if (strcmp(name, "$") == 0) {
		static pid_t shell_pid;

		if (!shell_pid)
			shell_pid = getpid();
		snprintf(tmp, tmpsz, "%d", shell_pid);
		return tmp;
	}
	if (strcmp(name, "!") == 0) {
		if (!last_bg_pid)
			return NULL;
		snprintf(tmp, tmpsz, "%d", last_bg_pid);
		return tmp;
	}
	if (strcmp(name, "#") == 0) {
		snprintf(tmp, tmpsz, "%d", positional_n);
		return tmp;
	}
	if (strcmp(name, "-") == 0) {
		snprintf(tmp, tmpsz, "%s%s%s", opt_errexit ? "e" : "", opt_nounset ? "u" : "", opt_xtrace ? "x" : "");
		return tmp;
	}
	if (strcmp(name, "0") == 0)
		return shell_name;
	if (isdigit((unsigned char)name[0])) {
		int i = atoi(name);

		return i >= 1 && i <= positional_n ? positional[i - 1] : NULL;
	}
	return var_get(name);
}

static void expand_into(struct xword *w, const char *s, size_t len, int in_dquote, int assignment);

/* Expands text (a word fragment of the source) to a plain string. */
static char *expand_to_string(const char *s, size_t len)
{
	struct xword w = { 0 };
	char *r;

	expand_into(&w, s, len, 0, 1);
	r = xmalloc(w.len + 1);
	memcpy(r, w.c, w.len);
	r[w.len] = '\0';
	free(w.c);
	free(w.f);
	return r;
}

/* The pattern text of ${x#pat}: expanded, with quoted characters marked. */
static char *expand_pattern(const char *s, size_t len, unsigned char **flags)
{
	struct xword w = { 0 };
	char *r;

	expand_into(&w, s, len, 0, 1);
	r = xmalloc(w.len + 1);
	*flags = xmalloc(w.len + 1);
	memcpy(r, w.c, w.len);
	memcpy(*flags, w.f, w.len);
	r[w.len] = '\0';
	(*flags)[w.len] = 0;
	free(w.c);
	free(w.f);
	return r;
}

static void add_value(struct xword *w, const char *v, int in_dquote)
{
	xw_adds(w, v, in_dquote ? F_QUOTED : F_SPLIT);
}

/* ${...}: body is the text between the braces. */
static void expand_braced(struct xword *w, const char *body, size_t len, int in_dquote)
{
	char name[64], tmp[32];
	size_t n = 0, p = 0;
	const char *v;

	if (len > 1 && body[0] == '#') {
		/* ${#name} */
		char num[24];

		for (p = 1; p < len && n < sizeof(name) - 1; p++)
			name[n++] = body[p];
		name[n] = '\0';
		v = param_value(name, tmp, sizeof(tmp));
		snprintf(num, sizeof(num), "%zu", v ? strlen(v) : 0);
		add_value(w, num, in_dquote);
		return;
	}
	if (p < len && (body[p] == '?' || body[p] == '$' || body[p] == '!' || body[p] == '#' || body[p] == '@' ||
			body[p] == '*' || body[p] == '-'))
		name[n++] = body[p++];
	else if (p < len && isdigit((unsigned char)body[p]))
		while (p < len && isdigit((unsigned char)body[p]) && n < sizeof(name) - 1)
			name[n++] = body[p++];
	else
		while (p < len && is_name_char((unsigned char)body[p]) && n < sizeof(name) - 1)
			name[n++] = body[p++];
	name[n] = '\0';
	if (n == 0) {
		sh_error("${%.*s}: bad substitution", (int)len, body);
		expand_error = 1;
		return;
	}
	if (strcmp(name, "@") == 0 || strcmp(name, "*") == 0) {
		if (positional_n == 0 && in_dquote && name[0] == '@')
			w->at_empty = 1;
		for (int i = 0; i < positional_n; i++) {
			if (i)
				xw_add(w, ' ', in_dquote && name[0] == '@' ? F_BREAK : in_dquote ? F_QUOTED : F_SPLIT);
			add_value(w, positional[i], in_dquote);
		}
		return;
	}
	v = param_value(name, tmp, sizeof(tmp));
	if (p == len) {
		if (!v && opt_nounset) {
			sh_error("%s: parameter not set", name);
			expand_error = 1;
			return;
		}
		if (v)
			add_value(w, v, in_dquote);
		return;
	}
	{
		int colon = body[p] == ':';
		char op;
		const char *arg;
		size_t arglen;

		if (colon)
			p++;
		if (p >= len) {
			sh_error("${%.*s}: bad substitution", (int)len, body);
			expand_error = 1;
			return;
		}
		op = body[p++];
		arg = body + p;
		arglen = len - p;
		if (op == '-' || op == '=' || op == '?' || op == '+') {
			int unset = !v || (colon && !*v);

			if (op == '+') {
				if (!unset)
					expand_into(w, arg, arglen, in_dquote, 0);
				return;
			}
			if (!unset) {
				add_value(w, v, in_dquote);
				return;
			}
			if (op == '-') {
				expand_into(w, arg, arglen, in_dquote, 0);
			} else if (op == '=') {
				char *val = expand_to_string(arg, arglen);

				if (!is_name(name, strlen(name))) {
					sh_error("%s: cannot assign in this way", name);
					expand_error = 1;
				} else {
					var_set(name, val, 0);
					add_value(w, val, in_dquote);
				}
				free(val);
			} else {
				char *msg = expand_to_string(arg, arglen);

				sh_error("%s: %s", name, *msg ? msg : "parameter null or not set");
				free(msg);
				expand_error = 1;
				if (!interactive)
					exit(2);
			}
			return;
		}
		if ((op == '%' || op == '#') && !colon) {
			int longest = p < len && body[p] == op;
			unsigned char *pf;
			char *pat, *val, *res;
			size_t vl;

			if (longest)
				arg++, arglen--;
			pat = expand_pattern(arg, arglen, &pf);
			val = xstrdup(v ? v : "");
			vl = strlen(val);
			res = NULL;
			if (op == '#') {
				/* prefix: shortest or longest */
				for (size_t k = 0; k <= vl; k++) {
					size_t cut = longest ? vl - k : k;
					char save = val[cut];

					val[cut] = '\0';
					if (pattern_match(pat, pf, val)) {
						val[cut] = save;
						res = xstrdup(val + cut);
						break;
					}
					val[cut] = save;
				}
			} else {
				for (size_t k = 0; k <= vl; k++) {
					size_t cut = longest ? k : vl - k;

					if (pattern_match(pat, pf, val + cut)) {
						res = xstrndup(val, cut);
						break;
					}
				}
			}
			add_value(w, res ? res : val, in_dquote);
			free(res);
			free(val);
			free(pat);
			free(pf);
			return;
		}
		sh_error("${%.*s}: bad substitution", (int)len, body);
		expand_error = 1;
	}
}

static void tilde(struct xword *w, const char *s, size_t len, size_t *p)
{
	const char *home = var_get("HOME");

	if (*p == 0 && len > 0 && s[0] == '~' && (len == 1 || s[1] == '/') && home) {
		xw_adds(w, home, F_QUOTED);
		*p = 1;
	}
}

/* Expands s[0..len) onto w: parameters, command substitution, arithmetic;
 * quotes are removed and the characters they protected marked F_QUOTED. */
static void expand_into(struct xword *w, const char *s, size_t len, int in_dquote, int assignment)
{
	size_t p = 0;

	if (!in_dquote)
		tilde(w, s, len, &p);
	while (p < len && !expand_error) {
		char c = s[p];

		if (c == '\\') {
			if (p + 1 >= len) {
				xw_add(w, '\\', in_dquote ? F_QUOTED : 0);
				p++;
			} else if (in_dquote && !strchr("$`\"\\\n", s[p + 1])) {
				xw_add(w, '\\', F_QUOTED);
				p++;
			} else {
				if (s[p + 1] != '\n')
					xw_add(w, s[p + 1], F_QUOTED);
				p += 2;
			}
			w->any_quotes = 1;
		} else if (c == '\'' && !in_dquote) {
			w->any_quotes = 1;
			for (p++; p < len && s[p] != '\''; p++)
				xw_add(w, s[p], F_QUOTED);
			p++;
		} else if (c == '"' && !in_dquote) {
			long q = skip_quoted(s, len, p);

			if (q < 0)
				q = (long)len;
			w->any_quotes = 1;
			expand_into(w, s + p + 1, (size_t)q - p - 2, 1, assignment);
			p = (size_t)q;
		} else if (c == '`') {
			struct str inner = { 0 };
			char *out;

			str_adds(&inner, "");
			for (p++; p < len && s[p] != '`'; p++) {
				if (s[p] == '\\' && p + 1 < len && strchr("$`\\", s[p + 1]))
					p++;
				str_addc(&inner, s[p]);
			}
			p++;
			out = run_command_subst(inner.s, inner.len);
			add_value(w, out, in_dquote);
			free(out);
			free(inner.s);
		} else if (c == '$' && p + 2 < len && s[p + 1] == '(' && s[p + 2] == '(') {
			long q = skip_quoted(s, len, p);
			char *expr, num[24];
			long value;

			if (q < 0 || q - (long)p < 5 || s[q - 2] != ')') {
				/* $( (...) ): a command substitution of a subshell */
				goto command_subst;
			}
			expr = expand_to_string(s + p + 3, (size_t)q - p - 5);
			if (arith_eval(expr, &value) < 0) {
				expand_error = 1;
				free(expr);
				return;
			}
			free(expr);
			snprintf(num, sizeof(num), "%ld", value);
			add_value(w, num, in_dquote);
			p = (size_t)q;
		} else if (c == '$' && p + 1 < len && s[p + 1] == '(') {
			long q;
			char *out;

command_subst:
			q = skip_quoted(s, len, p);
			if (q < 0)
				q = (long)len;
			out = run_command_subst(s + p + 2, (size_t)q - p - 3);
			add_value(w, out, in_dquote);
			free(out);
			p = (size_t)q;
		} else if (c == '$' && p + 1 < len && s[p + 1] == '{') {
			long q = skip_quoted(s, len, p);

			if (q < 0)
				q = (long)len;
			expand_braced(w, s + p + 2, (size_t)q - p - 3, in_dquote);
			p = (size_t)q;
		} else if (c == '$' && p + 1 < len && (is_name_start((unsigned char)s[p + 1]) || strchr("?$!#@*-0123456789", s[p + 1]))) {
			size_t start = ++p;

			if (is_name_start((unsigned char)s[p]))
				while (p < len && is_name_char((unsigned char)s[p]))
					p++;
			else
				p++;
			expand_braced(w, s + start, p - start, in_dquote);
		} else {
			xw_add(w, c, in_dquote ? F_QUOTED : 0);
			p++;
			if (assignment && !in_dquote && c == ':' && p < len && s[p] == '~') {
				/* PATH=a:~/b: tilde after a colon in assignments */
			}
		}
	}
}

/* Field splitting: IFS characters of F_SPLIT runs separate fields. */
static void split_fields(struct xword *w, struct xword **fields, int *nfields)
{
	const char *ifs = var_get("IFS");
	struct xword cur = { 0 };
	int have = 0;

	if (!ifs)
		ifs = " \t\n";
	cur.any_quotes = w->any_quotes;
	for (size_t i = 0; i < w->len; i++) {
		char c = w->c[i];
		unsigned char f = w->f[i];

		if (f & F_BREAK) {
			*fields = xrealloc(*fields, (size_t)(*nfields + 1) * sizeof(**fields));
			cur.any_quotes = 1;
			(*fields)[(*nfields)++] = cur;
			memset(&cur, 0, sizeof(cur));
			cur.any_quotes = 1;
			have = 0;
			continue;
		}
		if ((f & F_SPLIT) && strchr(ifs, c) && c) {
			int white = c == ' ' || c == '\t' || c == '\n';

			if (have || cur.len || !white) {
				*fields = xrealloc(*fields, (size_t)(*nfields + 1) * sizeof(**fields));
				(*fields)[(*nfields)++] = cur;
				memset(&cur, 0, sizeof(cur));
				have = 0;
			}
			continue;
		}
		xw_add(&cur, c, f);
		have = 1;
	}
	if (cur.len || cur.any_quotes || have) {
		*fields = xrealloc(*fields, (size_t)(*nfields + 1) * sizeof(**fields));
		(*fields)[(*nfields)++] = cur;
	} else {
		free(cur.c);
		free(cur.f);
	}
}

/* Pattern matching (case, ${x#p}, globbing): * ? [...] [!...]; a character
 * whose flag is F_QUOTED is literal. qf may be NULL (nothing quoted). */
static int pattern_match_at(const char *pat, const unsigned char *qf, size_t pi, const char *s)
{
	while (pat[pi]) {
		int quoted = qf && (qf[pi] & F_QUOTED);
		char pc = pat[pi];

		if (!quoted && pc == '*') {
			while (pat[pi] == '*' && !(qf && (qf[pi] & F_QUOTED)))
				pi++;
			if (!pat[pi])
				return 1;
			for (; *s; s++)
				if (pattern_match_at(pat, qf, pi, s))
					return 1;
			return pattern_match_at(pat, qf, pi, s);
		}
		if (!*s)
			return 0;
		if (!quoted && pc == '?') {
			pi++;
			s++;
			continue;
		}
		if (!quoted && pc == '[') {
			size_t q = pi + 1;
			int negate = 0, matched = 0;

			if (pat[q] == '!' || pat[q] == '^')
				negate = 1, q++;
			if (pat[q] == ']')
				q++;
			while (pat[q] && pat[q] != ']')
				q++;
			if (pat[q] == ']') {
				size_t k = pi + 1 + (size_t)negate;

				if (pat[k] == ']') {
					matched |= *s == ']';
					k++;
				}
				for (; k < q; k++) {
					if (pat[k + 1] == '-' && k + 2 < q) {
						if ((unsigned char)*s >= (unsigned char)pat[k] && (unsigned char)*s <= (unsigned char)pat[k + 2])
							matched = 1;
						k += 2;
					} else if (pat[k] == *s) {
						matched = 1;
					}
				}
				if (matched == negate)
					return 0;
				pi = q + 1;
				s++;
				continue;
			}
		}
		if (pc != *s)
			return 0;
		pi++;
		s++;
	}
	return *s == '\0';
}

static int pattern_match(const char *pat, const unsigned char *qf, const char *s)
{
	return pattern_match_at(pat, qf, 0, s);
}

static int has_glob(const struct xword *w)
{
	for (size_t i = 0; i < w->len; i++)
		if (!(w->f[i] & F_QUOTED) && (w->c[i] == '*' || w->c[i] == '?' || w->c[i] == '['))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Expands the path pattern w[from..] under directory prefix dir. */
static void glob_walk(const char *dir, const struct xword *w, size_t from, struct vec *out)
{
	size_t end = from;
	char *pat;
	unsigned char *pf;
	int literal = 1;
	DIR *d;
	struct dirent *e;
	struct vec names = { 0 };

	while (end < w->len && w->c[end] != '/')
		end++;
	pat = xstrndup(w->c + from, end - from);
	pf = xmalloc(end - from + 1);
	memcpy(pf, w->f + from, end - from);
	for (size_t i = from; i < end; i++)
		if (!(w->f[i] & F_QUOTED) && (w->c[i] == '*' || w->c[i] == '?' || w->c[i] == '['))
			literal = 0;
	if (literal) {
		struct str path = { 0 };
		struct stat st;

		str_adds(&path, dir);
		str_adds(&path, pat);
		if (end >= w->len) {
			if (lstat(path.s, &st) == 0)
				vec_push(out, str_take(&path));
			else
				free(path.s);
		} else {
			str_addc(&path, '/');
			glob_walk(path.s, w, end + 1, out);
			free(path.s);
		}
		free(pat);
		free(pf);
		return;
	}
	d = opendir(*dir ? dir : ".");
	if (d) {
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.' && pat[0] != '.')
				continue;
			if (pattern_match(pat, pf, e->d_name))
				vec_push(&names, xstrdup(e->d_name));
		}
		closedir(d);
	}
	if (names.n)
		qsort(names.v, (size_t)names.n, sizeof(char *), cmp_str);
	for (int i = 0; i < names.n; i++) {
		struct str path = { 0 };

		str_adds(&path, dir);
		str_adds(&path, names.v[i]);
		if (end >= w->len) {
			vec_push(out, str_take(&path));
		} else {
			struct stat st;

			if (stat(path.s, &st) == 0 && S_ISDIR(st.st_mode)) {
				str_addc(&path, '/');
				glob_walk(path.s, w, end + 1, out);
			}
			free(path.s);
		}
	}
	vec_free(&names);
	free(pat);
	free(pf);
}

/* Expands a word into fields appended to out; -1 on an expansion error. */
static int expand_word(const char *word, struct vec *out, int split)
{
	struct xword w = { 0 };
	struct xword *fields = NULL;
	int nfields = 0;

	expand_error = 0;
	expand_into(&w, word, strlen(word), 0, 0);
	if (expand_error) {
		free(w.c);
		free(w.f);
		return -1;
	}
	if (!split) {
		vec_push(out, xstrndup(w.c ? w.c : "", w.len));
		free(w.c);
		free(w.f);
		return 0;
	}
	if (w.at_empty && w.len == 0 && (strcmp(word, "\"$@\"") == 0 || strcmp(word, "\"${@}\"") == 0)) {
		free(w.c);
		free(w.f);
		return 0;
	}
	split_fields(&w, &fields, &nfields);
	free(w.c);
	free(w.f);
	for (int i = 0; i < nfields; i++) {
		struct xword *f = &fields[i];

		if (has_glob(f)) {
			struct vec matches = { 0 };

			if (f->len && f->c[0] == '/') {
				glob_walk("/", f, 1, &matches);
			} else {
				glob_walk("", f, 0, &matches);
			}
			if (matches.n) {
				for (int k = 0; k < matches.n; k++)
					vec_push(out, matches.v[k]);
				free(matches.v);
				free(f->c);
				free(f->f);
				continue;
			}
			free(matches.v);
		}
		vec_push(out, xstrndup(f->c ? f->c : "", f->len));
		free(f->c);
		free(f->f);
	}
	free(fields);
	return 0;
}

static int expand_words(const struct vec *words, struct vec *out)
{
	for (int i = 0; i < words->n; i++)
		if (expand_word(words->v[i], out, 1) < 0) {
			if (!interactive)
				shell_exit(2);
			return -1;
		}
	if (!out->v)
		vec_push(out, NULL), out->n = 0;
	return 0;
}

/* ---- arithmetic ---- */

struct arith {
	const char *p;
	int error;
	int skip; /* evaluating a branch whose value is unused: no assignments */
};

static long arith_ternary(struct arith *a);

static void arith_space(struct arith *a)
{
	while (*a->p == ' ' || *a->p == '\t' || *a->p == '\n')
		a->p++;
}

static void arith_fail(struct arith *a, const char *msg)
{
	if (!a->error)
		sh_error("arithmetic expression: %s", msg);
	a->error = 1;
}

static long arith_var(const char *name)
{
	const char *v = var_get(name);
	char *end;
	long r;

	if (!v || !*v)
		return 0;
	r = strtol(v, &end, 0);
	return r;
}

static long arith_primary(struct arith *a)
{
	arith_space(a);
	if (a->error)
		return 0;
	if (*a->p == '(') {
		long v;

		a->p++;
		v = arith_ternary(a);
		arith_space(a);
		if (*a->p != ')') {
			arith_fail(a, "expecting ')'");
			return 0;
		}
		a->p++;
		return v;
	}
	if (*a->p == '-' || *a->p == '+' || *a->p == '!' || *a->p == '~') {
		char op = *a->p++;
		long v = arith_primary(a);

		return op == '-' ? -v : op == '+' ? v : op == '!' ? !v : ~v;
	}
	if (isdigit((unsigned char)*a->p)) {
		char *end;
		long v = strtol(a->p, &end, 0);

		if (is_name_char((unsigned char)*end)) {
			arith_fail(a, "bad number");
			return 0;
		}
		a->p = end;
		return v;
	}
	if (is_name_start((unsigned char)*a->p)) {
		char name[64];
		size_t n = 0;
		const char *save;

		while (is_name_char((unsigned char)*a->p) && n < sizeof(name) - 1)
			name[n++] = *a->p++;
		name[n] = '\0';
		save = a->p;
		arith_space(a);
		{
			const char *ops[] = { "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "=", NULL };

			for (int i = 0; ops[i]; i++) {
				size_t ol = strlen(ops[i]);

				if (strncmp(a->p, ops[i], ol) == 0 && !(ol == 1 && a->p[1] == '=')) {
					long old = arith_var(name), v, r;
					char num[24];

					a->p += ol;
					v = arith_ternary(a);
					if (a->error)
						return 0;
					switch (ops[i][0]) {
					case '+': r = old + v; break;
					case '-': r = old - v; break;
					case '*': r = old * v; break;
					case '/':
					case '%':
						if (v == 0) {
							arith_fail(a, "division by zero");
							return 0;
						}
						r = ops[i][0] == '/' ? old / v : old % v;
						break;
					case '<': r = old << v; break;
					case '>': r = old >> v; break;
					case '&': r = old & v; break;
					case '|': r = old | v; break;
					case '^': r = old ^ v; break;
					default: r = v; break;
					}
					if (!a->skip) {
						snprintf(num, sizeof(num), "%ld", r);
						var_set(name, num, 0);
					}
					return r;
				}
			}
		}
		a->p = save;
		return arith_var(name);
	}
	if (*a->p == '\0')
		arith_fail(a, "missing operand");
	else {
		char msg[64];

		snprintf(msg, sizeof(msg), "unexpected '%c'", *a->p);
		arith_fail(a, msg);
	}
	return 0;
}

/* Binary operators by precedence level, lowest first. */
static const char *const arith_levels[][5] = {
	{ "||", NULL }, { "&&", NULL }, { "|", NULL }, { "^", NULL }, { "&", NULL },
	{ "==", "!=", NULL }, { "<=", ">=", "<", ">", NULL }, { "<<", ">>", NULL },
	{ "+", "-", NULL }, { "*", "/", "%", NULL },
};
#define ARITH_LEVELS ((int)(sizeof(arith_levels) / sizeof(arith_levels[0])))

static long arith_binary(struct arith *a, int level)
{
	long left;

	if (level == ARITH_LEVELS)
		return arith_primary(a);
	left = arith_binary(a, level + 1);
	for (;;) {
		const char *op = NULL;

		arith_space(a);
		if (a->error)
			return 0;
		for (int i = 0; arith_levels[level][i]; i++) {
			const char *o = arith_levels[level][i];
			size_t ol = strlen(o);

			if (strncmp(a->p, o, ol) == 0) {
				/* not a prefix of a longer operator (| of ||, < of <<, & of &&, = of ==) */
				if (ol == 1 && (a->p[1] == o[0] || a->p[1] == '=') && o[0] != '!')
					continue;
				if (ol == 2 && (strcmp(o, "<<") == 0 || strcmp(o, ">>") == 0) && a->p[2] == '=')
					continue;
				op = o;
				break;
			}
		}
		if (!op)
			return left;
		a->p += strlen(op);
		if (strcmp(op, "&&") == 0 || strcmp(op, "||") == 0) {
			int skip = a->skip;
			long right;

			if ((op[0] == '&' && !left) || (op[0] == '|' && left))
				a->skip = 1;
			right = arith_binary(a, level + 1);
			a->skip = skip;
			left = op[0] == '&' ? (left && right) : (left || right);
			continue;
		}
		{
			long right = arith_binary(a, level + 1);

			if (a->error)
				return 0;
			switch (op[0]) {
			case '|': left |= right; break;
			case '^': left ^= right; break;
			case '&': left &= right; break;
			case '=': left = left == right; break;
			case '!': left = left != right; break;
			case '<':
				left = op[1] == '<' ? left << right : op[1] == '=' ? left <= right : left < right;
				break;
			case '>':
				left = op[1] == '>' ? left >> right : op[1] == '=' ? left >= right : left > right;
				break;
			case '+': left += right; break;
			case '-': left -= right; break;
			case '*': left *= right; break;
			default:
				if (right == 0) {
					if (!a->skip) {
						arith_fail(a, "division by zero");
						return 0;
					}
					left = 0;
				} else
					left = op[0] == '/' ? left / right : left % right;
			}
		}
	}
}

static long arith_ternary(struct arith *a)
{
	long cond = arith_binary(a, 0);

	arith_space(a);
	if (*a->p == '?') {
		int skip = a->skip;
		long x, y;

		a->p++;
		a->skip = skip || !cond;
		x = arith_ternary(a);
		arith_space(a);
		if (*a->p != ':') {
			arith_fail(a, "expecting ':'");
			return 0;
		}
		a->p++;
		a->skip = skip || cond;
		y = arith_ternary(a);
		a->skip = skip;
		return cond ? x : y;
	}
	return cond;
}

static int arith_eval(const char *expr, long *result)
{
	struct arith a = { expr, 0, 0 };

	arith_space(&a);
	if (!*a.p) {
		*result = 0;
		return 0;
	}
	*result = arith_ternary(&a);
	arith_space(&a);
	if (!a.error && *a.p) {
		char msg[64];

		snprintf(msg, sizeof(msg), "unexpected '%c'", *a.p);
		arith_fail(&a, msg);
	}
	return a.error ? -1 : 0;
}

/* ---- jobs and signals ---- */

struct job {
	int id;
	pid_t pids[16];
	int npids, nalive;
	int status;     /* of the last process */
	int done, notified;
	char *text;
};

#define MAX_JOBS 64
static struct job jobs[MAX_JOBS];
static int njobs;

static const char *const signal_names[] = {
	NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
	"PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU",
	"XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};
#define NSIGNAMES 32

static int signal_number(const char *s)
{
	if (isdigit((unsigned char)s[0])) {
		char *end;
		long n = strtol(s, &end, 10);

		return *end || n < 0 || n > 64 ? -1 : (int)n;
	}
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	if (strcasecmp(s, "EXIT") == 0)
		return 0;
	for (int i = 1; i < NSIGNAMES; i++)
		if (strcasecmp(s, signal_names[i]) == 0)
			return i;
	return -1;
}

static int status_of(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	return 128 + WTERMSIG(ws);
}

static struct job *job_by_pid(pid_t pid, int *index)
{
	for (int i = 0; i < njobs; i++)
		for (int k = 0; k < jobs[i].npids; k++)
			if (jobs[i].pids[k] == pid) {
				*index = k;
				return &jobs[i];
			}
	return NULL;
}

static void job_record(pid_t pid, int ws)
{
	int k;
	struct job *j = job_by_pid(pid, &k);

	if (!j)
		return;
	j->nalive--;
	if (k == j->npids - 1)
		j->status = status_of(ws);
	if (j->nalive == 0)
		j->done = 1;
}

static void jobs_reap(void)
{
	pid_t pid;
	int ws;

	while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
		job_record(pid, ws);
}

static void jobs_forget_done(int notify)
{
	int w = 0;

	for (int i = 0; i < njobs; i++) {
		if (jobs[i].done) {
			if (notify && interactive)
				fprintf(stderr, "[%d]+  Done%s %s\n", jobs[i].id, jobs[i].status ? "(exit)" : "", jobs[i].text);
			free(jobs[i].text);
			continue;
		}
		jobs[w++] = jobs[i];
	}
	njobs = w;
}

static volatile int trap_pending[65];
static volatile int any_trap_pending;
static char *traps[65]; /* NULL: default; "": ignored */
static int running_trap;

static void trap_handler(int sig)
{
	trap_pending[sig] = 1;
	any_trap_pending = 1;
}

static int run_string(const char *text, const char *what);

static void run_pending_traps(void)
{
	if (!any_trap_pending || running_trap)
		return;
	any_trap_pending = 0;
	for (int sig = 1; sig <= 64; sig++) {
		if (trap_pending[sig]) {
			trap_pending[sig] = 0;
			if (traps[sig] && *traps[sig]) {
				int saved = last_status;

				running_trap = 1;
				run_string(traps[sig], "trap");
				running_trap = 0;
				last_status = saved;
			}
		}
	}
}

static void shell_exit(int status) __attribute__((noreturn));
static void shell_exit(int status)
{
	if (traps[0] && *traps[0] && !in_subshell) {
		char *t = traps[0];

		traps[0] = NULL;
		last_status = status;
		run_string(t, "trap");
	}
	fflush(stdout);
	exit(status);
}

/* In a child: caught signals go back to the default (ignored stay ignored). */
static void reset_traps_in_child(void)
{
	in_subshell = 1;
	for (int sig = 1; sig <= 64; sig++) {
		if (traps[sig] && *traps[sig]) {
			signal(sig, SIG_DFL);
			free(traps[sig]);
			traps[sig] = NULL;
		}
	}
	if (traps[0]) {
		free(traps[0]);
		traps[0] = NULL;
	}
	njobs = 0;
}

/* ---- execution ---- */

#define X_NOFORK 1   /* this command is the last thing the process does */

static int exec_node(struct node *n, int flags);
static struct node *function_body(const char *name);

struct saved_fd {
	int fd, copy;
};

/* Applies redirections; when save is given, records how to undo them. */
static int apply_redirs(struct redir *r, struct saved_fd *save, int *nsave)
{
	for (; r; r = r->next) {
		int fd = -1;
		char *target = NULL;

		if (save) {
			/* Saved before anything opens: a new file may get r->fd itself. */
			save[*nsave].fd = r->fd;
			save[*nsave].copy = fcntl(r->fd, 1030 /* F_DUPFD_CLOEXEC */, 10);
			(*nsave)++;
		}
		if (r->kind == R_HEREDOC || r->kind == R_HERESTR) {
			int p[2];
			char *body;

			if (r->kind == R_HERESTR) {
				struct vec v = { 0 };

				if (expand_word(r->word, &v, 0) < 0)
					return -1;
				body = xmalloc(strlen(v.v[0]) + 2);
				strcpy(body, v.v[0]);
				strcat(body, "\n");
				vec_free(&v);
			} else if (r->heredoc_quoted) {
				body = xstrdup(r->word);
			} else {
				/* Expand as inside double quotes, without the quotes' special meaning for '"'. */
				struct xword w = { 0 };

				expand_error = 0;
				for (const char *q = r->word; *q;) {
					const char *e = q;

					while (*e && *e != '"')
						e++;
					expand_into(&w, q, (size_t)(e - q), 1, 0);
					if (*e == '"') {
						xw_add(&w, '"', F_QUOTED);
						e++;
					}
					q = e;
				}
				body = xstrndup(w.c ? w.c : "", w.len);
				free(w.c);
				free(w.f);
				if (expand_error) {
					free(body);
					return -1;
				}
			}
			if (pipe(p) < 0) {
				sh_error("pipe: %s", strerror(errno));
				free(body);
				return -1;
			}
			if (strlen(body) <= 4096) {
				write(p[1], body, strlen(body));
			} else {
				pid_t pid = fork();

				if (pid == 0) {
					close(p[0]);
					write(p[1], body, strlen(body));
					_exit(0);
				}
			}
			close(p[1]);
			free(body);
			fd = p[0];
		} else {
			struct vec v = { 0 };

			if (expand_word(r->word, &v, 0) < 0)
				return -1;
			target = xstrdup(v.v[0]);
			vec_free(&v);
			if (r->kind == R_DUPIN || r->kind == R_DUPOUT) {
				char *end;
				long src;

				if (strcmp(target, "-") == 0) {
					close(r->fd);
					free(target);
					continue;
				}
				src = strtol(target, &end, 10);
				if (*end || end == target || fcntl((int)src, F_GETFD) < 0) {
					sh_error("%s: bad file descriptor", target);
					free(target);
					return -1;
				}
				fd = (int)src;
			} else {
				int oflags = r->kind == R_IN ? O_RDONLY : r->kind == R_RDWR ? O_RDWR | O_CREAT
					   : r->kind == R_APPEND ? O_WRONLY | O_CREAT | O_APPEND : O_WRONLY | O_CREAT | O_TRUNC;

				fd = open(target, oflags, 0666);
				if (fd < 0) {
					sh_error("%s: %s", target, r->kind == R_IN && errno == ENOENT ? "No such file or directory"
						 : strerror(errno));
					free(target);
					return -1;
				}
			}
			free(target);
		}
		if (fd != r->fd) {
			dup2(fd, r->fd);
			if (r->kind != R_DUPIN && r->kind != R_DUPOUT)
				close(fd);
		}
	}
	return 0;
}

static void undo_redirs(struct saved_fd *save, int nsave)
{
	fflush(stdout);
	for (int i = nsave - 1; i >= 0; i--) {
		if (save[i].copy >= 0) {
			dup2(save[i].copy, save[i].fd);
			close(save[i].copy);
		} else {
			close(save[i].fd);
		}
	}
}

static int count_redirs(struct redir *r)
{
	int n = 0;

	for (; r; r = r->next)
		n++;
	return n;
}

static void xtrace(struct vec *assigns, char **argv)
{
	struct str s = { 0 };

	str_adds(&s, "+");
	for (int i = 0; assigns && i < assigns->n; i++) {
		str_addc(&s, ' ');
		str_adds(&s, assigns->v[i]);
	}
	for (int i = 0; argv && argv[i]; i++) {
		str_addc(&s, ' ');
		str_adds(&s, argv[i]);
	}
	str_addc(&s, '\n');
	fflush(stdout);
	write(2, s.s, s.len);
	free(s.s);
}

static char *find_in_path(const char *name)
{
	const char *path = var_get("PATH");
	struct stat st;

	if (strchr(name, '/'))
		return xstrdup(name);
	if (!path)
		path = "/bin:/sbin";
	while (1) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		struct str s = { 0 };

		if (n)
			for (size_t i = 0; i < n; i++)
				str_addc(&s, path[i]);
		else
			str_addc(&s, '.');
		str_addc(&s, '/');
		str_adds(&s, name);
		if (stat(s.s, &st) == 0 && !S_ISDIR(st.st_mode))
			return str_take(&s);
		free(s.s);
		if (!colon)
			break;
		path = colon + 1;
	}
	return NULL;
}

static void exec_external(char **argv) __attribute__((noreturn));
static void exec_external(char **argv)
{
	char *path = find_in_path(argv[0]);
	char **env = build_env();
	int err;

	fflush(stdout);
	if (!path) {
		sh_error("%s: not found", argv[0]);
		_exit(127);
	}
	execve(path, argv, env);
	err = errno;
	if (err == ENOEXEC) {
		/* A script without #!: run it with this shell. */
		struct vec a = { 0 };

		vec_push(&a, xstrdup("sh"));
		vec_push(&a, path);
		for (int i = 1; argv[i]; i++)
			vec_push(&a, argv[i]);
		execve("/bin/sh", a.v, env);
	}
	sh_error("%s: %s", argv[0], err == ENOENT ? "not found" : strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

static int wait_pid(pid_t pid)
{
	int ws;

	for (;;) {
		pid_t r = waitpid(pid, &ws, 0);

		if (r == pid)
			return status_of(ws);
		if (r < 0 && errno != EINTR)
			return 127;
		if (r > 0)
			job_record(r, ws);
	}
}

typedef int (*builtin_fn)(int argc, char **argv);
static builtin_fn find_builtin(const char *name, int *special);
static int bi_exec(int argc, char **argv);

static void set_positional(int n, char **args)
{
	positional_n = n;
	positional = args;
}

static int call_function(struct node *body, char **argv, int argc)
{
	int saved_n = positional_n, status;
	char **saved = positional;

	set_positional(argc - 1, argv + 1);
	in_function++;
	status = exec_node(body, 0);
	in_function--;
	if (pending_return) {
		pending_return = 0;
		status = last_status;
	}
	set_positional(saved_n, saved);
	return status;
}

__attribute__((noinline)) static int exec_simple(struct node *n, int flags)
{
	struct vec argv = { 0 };
	struct saved_fd save[32];
	int nsave = 0, status = 0;
	builtin_fn builtin;
	int special = 0;
	struct node *func;

	if (expand_words(&n->words, &argv) < 0) {
		vec_free(&argv);
		return 2;
	}
	if (argv.n == 0) {
		/* Assignments and redirections only. */
		int subst_status;

		last_status = 0;
		for (int i = 0; i < n->assigns.n; i++) {
			char *eq = strchr(n->assigns.v[i], '=');
			char *name = xstrndup(n->assigns.v[i], (size_t)(eq - n->assigns.v[i]));
			struct vec v = { 0 };

			if (expand_word(eq + 1, &v, 0) < 0 || var_set(name, v.v[0], 0) < 0) {
				if (!interactive)
					shell_exit(2);
				free(name);
				vec_free(&v);
				vec_free(&argv);
				return 1;
			}
			free(name);
			vec_free(&v);
		}
		subst_status = last_status;
		if (opt_xtrace && n->assigns.n)
			xtrace(&n->assigns, NULL);
		if (n->redirs) {
			if (count_redirs(n->redirs) > 32 || apply_redirs(n->redirs, save, &nsave) < 0)
				status = 1;
			undo_redirs(save, nsave);
		}
		vec_free(&argv);
		return status ? status : subst_status;
	}
	if (opt_xtrace)
		xtrace(&n->assigns, argv.v);
	func = function_body(argv.v[0]);
	builtin = func ? NULL : find_builtin(argv.v[0], &special);
	if (func || builtin) {
		struct vec old = { 0 };
		int restore_vars = 0;

		/* Assignments: kept for special built-ins, temporary otherwise. */
		for (int i = 0; i < n->assigns.n; i++) {
			char *eq = strchr(n->assigns.v[i], '=');
			char *name = xstrndup(n->assigns.v[i], (size_t)(eq - n->assigns.v[i]));
			struct vec v = { 0 };
			const char *prev = var_get(name);

			if (!special) {
				vec_push(&old, xstrdup(name));
				vec_push(&old, prev ? xstrdup(prev) : NULL);
				restore_vars = 1;
			}
			if (expand_word(eq + 1, &v, 0) == 0)
				var_set(name, v.v[0], !special);
			free(name);
			vec_free(&v);
		}
		if (count_redirs(n->redirs) > 32 || apply_redirs(n->redirs, save, &nsave) < 0) {
			status = 1;
		} else if (func) {
			SH_FUNCTION_ENTRY(argv.v[0], argv.n);
			status = call_function(func, argv.v, argv.n);
			SH_FUNCTION_RETURN(argv.v[0], status);
		} else {
			char *line = SH_BUILTIN_START_ENABLED() || SH_BUILTIN_DONE_ENABLED() ? probe_line(argv.v) : NULL;

			SH_BUILTIN_START(line, argv.n);
			status = builtin(argv.n, argv.v);
			SH_BUILTIN_DONE(line, status);
			free(line);
		}
		fflush(stdout);
		if (builtin == bi_exec) {
			/* exec without a command: its redirections stay. */
			for (int i = 0; i < nsave; i++)
				if (save[i].copy >= 0)
					close(save[i].copy);
			nsave = 0;
		}
		undo_redirs(save, nsave);
		if (restore_vars) {
			for (int i = 0; i + 1 < old.n + 1 && i < old.n; i += 2) {
				if (old.v[i + 1])
					var_set(old.v[i], old.v[i + 1], 0);
				else
					var_unset(old.v[i]);
			}
			for (int i = 0; i < old.n; i++)
				free(old.v[i]);
			free(old.v);
		}
		vec_free(&argv);
		return status;
	}
	{
		pid_t pid = (flags & X_NOFORK) ? 0 : fork();
		char *line;

		if (pid < 0) {
			sh_error("fork: %s", strerror(errno));
			vec_free(&argv);
			return 2;
		}
		if (pid == 0) {
			if (!(flags & X_NOFORK))
				reset_traps_in_child();
			else if (SH_COMMAND_START_ENABLED()) {
				/* The command replaces this process: it starts here. */
				line = probe_line(argv.v);
				SH_COMMAND_START(line, getpid());
				free(line);
			}
			for (int i = 0; i < n->assigns.n; i++) {
				char *eq = strchr(n->assigns.v[i], '=');
				char *name = xstrndup(n->assigns.v[i], (size_t)(eq - n->assigns.v[i]));
				struct vec v = { 0 };

				if (expand_word(eq + 1, &v, 0) == 0)
					var_set(name, v.v[0], 1);
				free(name);
				vec_free(&v);
			}
			if (apply_redirs(n->redirs, NULL, NULL) < 0)
				_exit(1);
			exec_external(argv.v);
		}
		line = SH_COMMAND_START_ENABLED() || SH_COMMAND_DONE_ENABLED() ? probe_line(argv.v) : NULL;
		SH_COMMAND_START(line, pid);
		status = wait_pid(pid);
		SH_COMMAND_DONE(line, pid, status);
		free(line);
	}
	vec_free(&argv);
	return status;
}

/* Runs n in a child process; returns the child's pid. */
static pid_t fork_node(struct node *n, int in_fd, int out_fd, int close_fd, int background)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		sh_error("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		reset_traps_in_child();
		if (close_fd >= 0)
			close(close_fd);
		if (background && in_fd < 0 && !interactive) {
			int null = open("/dev/null", O_RDONLY);

			if (null >= 0 && null != 0) {
				dup2(null, 0);
				close(null);
			}
		}
		if (in_fd >= 0 && in_fd != 0) {
			dup2(in_fd, 0);
			close(in_fd);
		}
		if (out_fd >= 0 && out_fd != 1) {
			dup2(out_fd, 1);
			close(out_fd);
		}
		shell_exit(exec_node(n, X_NOFORK));
	}
	return pid;
}

static int exec_pipeline(struct node *n, int background, const char *text)
{
	pid_t pids[16];
	int prev = -1, count = 0;

	if (n->nkids > 16) {
		sh_error("pipeline too long");
		return 2;
	}
	for (int i = 0; i < n->nkids; i++) {
		int fds[2] = { -1, -1 };

		if (i < n->nkids - 1 && pipe(fds) < 0) {
			sh_error("pipe: %s", strerror(errno));
			break;
		}
		pids[count] = fork_node(n->kids[i], prev, fds[1], fds[0], background && i == 0);
		if (prev >= 0)
			close(prev);
		if (fds[1] >= 0)
			close(fds[1]);
		prev = fds[0];
		if (pids[count] > 0)
			count++;
	}
	if (prev >= 0)
		close(prev);
	if (background) {
		struct job *j;

		jobs_reap();
		jobs_forget_done(1);
		if (njobs == MAX_JOBS) {
			sh_error("too many jobs");
			return 0;
		}
		j = &jobs[njobs++];
		memset(j, 0, sizeof(*j));
		j->id = njobs > 1 ? jobs[njobs - 2].id + 1 : 1;
		memcpy(j->pids, pids, sizeof(pid_t) * (size_t)count);
		j->npids = j->nalive = count;
		j->text = xstrdup(text ? text : "");
		last_bg_pid = count ? pids[count - 1] : 0;
		if (interactive)
			fprintf(stderr, "[%d] %d\n", j->id, last_bg_pid);
		return 0;
	}
	{
		int status = 0;

		for (int i = 0; i < count; i++) {
			int s = wait_pid(pids[i]);

			if (i == count - 1)
				status = s;
		}
		return status;
	}
}

static struct node *func_nodes[64];
static char *func_names[64];
static int nfuncs;

static struct node *function_body(const char *name)
{
	for (int i = 0; i < nfuncs; i++)
		if (strcmp(func_names[i], name) == 0)
			return func_nodes[i];
	return NULL;
}

static int check_errexit(int status)
{
	if (opt_errexit && status != 0 && errexit_suppressed == 0)
		shell_exit(status);
	return status;
}

static int exec_node(struct node *n, int flags)
{
	int status = 0;

	if (!n)
		return 0;
	switch (n->kind) {
	case N_SIMPLE:
		status = exec_simple(n, flags);
		last_status = status;
		run_pending_traps();
		return check_errexit(status);
	case N_PIPE:
		status = exec_pipeline(n, 0, NULL);
		last_status = status;
		run_pending_traps();
		return check_errexit(status);
	case N_NOT:
		errexit_suppressed++;
		status = exec_node(n->a, 0) == 0;
		errexit_suppressed--;
		last_status = status;
		return status;
	case N_AND:
	case N_OR:
		errexit_suppressed++;
		status = exec_node(n->a, 0);
		errexit_suppressed--;
		if (pending_break || pending_continue || pending_return)
			return status;
		if ((n->kind == N_AND) == (status == 0))
			status = exec_node(n->b, flags);
		last_status = status;
		return status;
	case N_LIST:
		for (int i = 0; i < n->nkids; i++) {
			if (n->bg[i]) {
				struct node *k = n->kids[i];

				if (k->kind == N_PIPE)
					status = exec_pipeline(k, 1, n->texts[i]);
				else {
					struct node wrap = { 0 };
					struct node *kids[1] = { k };

					wrap.kind = N_PIPE;
					wrap.kids = kids;
					wrap.nkids = 1;
					status = exec_pipeline(&wrap, 1, n->texts[i]);
				}
				last_status = status;
			} else {
				status = exec_node(n->kids[i], i == n->nkids - 1 ? flags : 0);
			}
			if (pending_break || pending_continue || pending_return)
				break;
		}
		return status;
	case N_SUBSHELL:
	case N_GROUP: {
		struct saved_fd save[32];
		int nsave = 0;

		if (n->kind == N_SUBSHELL && !(flags & X_NOFORK)) {
			struct node inner = *n;
			pid_t pid;

			inner.redirs = NULL;
			if (count_redirs(n->redirs) > 32 || apply_redirs(n->redirs, save, &nsave) < 0) {
				undo_redirs(save, nsave);
				return check_errexit(last_status = 1);
			}
			pid = fork_node(n->a, -1, -1, -1, 0);
			undo_redirs(save, nsave);
			status = pid < 0 ? 2 : wait_pid(pid);
			last_status = status;
			return check_errexit(status);
		}
		if (count_redirs(n->redirs) > 32 || apply_redirs(n->redirs, save, &nsave) < 0) {
			undo_redirs(save, nsave);
			return check_errexit(last_status = 1);
		}
		status = exec_node(n->a, flags & ~X_NOFORK);
		undo_redirs(save, nsave);
		return status;
	}
	case N_IF: {
		struct saved_fd save[32];
		int nsave = 0, cond;

		if (count_redirs(n->redirs) > 32 || apply_redirs(n->redirs, save, &nsave) < 0) {
			undo_redirs(save, nsave);
			return last_status = 1;
		}
		errexit_suppressed++;
		cond = exec_node(n->a, 0);
		errexit_suppressed--;
		if (pending_break || pending_continue || pending_return)
			status = cond;
		else if (cond == 0)
			status = exec_node(n->b, 0);
		else if (n->c)
			status = exec_node(n->c, 0);
		else
			status = 0;
		last_status = status;
		undo_redirs(save, nsave);
		return status;
	}
	case N_WHILE:
	case N_UNTIL: {
		struct saved_fd save[32];
		int nsave = 0;

		if (count_redirs(n->redirs) > 32 || apply_redirs(n->redirs, save, &nsave) < 0) {
			undo_redirs(save, nsave);
			return last_status = 1;
		}
		loop_depth++;
		for (;;) {
			int cond;

			errexit_suppressed++;
			cond = exec_node(n->a, 0);
			errexit_suppressed--;
			if (pending_return)
				break;
			if (pending_break) {
				pending_break--;
				break;
			}
			if (pending_continue) {
				if (--pending_continue)
					break;
				continue;
			}
			if ((cond == 0) != (n->kind == N_WHILE))
				break;
			status = exec_node(n->b, 0);
			if (pending_return)
				break;
			if (pending_break) {
				pending_break--;
				break;
			}
			if (pending_continue && --pending_continue)
				break;
		}
		loop_depth--;
		last_status = status;
		undo_redirs(save, nsave);
		return status;
	}
	case N_FOR: {
		struct vec items = { 0 };
		struct saved_fd save[32];
		int nsave = 0;

		if (n->list) {
			if (expand_words(n->list, &items) < 0) {
				vec_free(&items);
				return last_status = 2;
			}
		} else {
			for (int i = 0; i < positional_n; i++)
				vec_push(&items, xstrdup(positional[i]));
		}
		if (count_redirs(n->redirs) > 32 || apply_redirs(n->redirs, save, &nsave) < 0) {
			undo_redirs(save, nsave);
			vec_free(&items);
			return last_status = 1;
		}
		loop_depth++;
		for (int i = 0; i < items.n; i++) {
			if (var_set(n->name, items.v[i], 0) < 0) {
				status = 1;
				break;
			}
			status = exec_node(n->b, 0);
			if (pending_return)
				break;
			if (pending_break) {
				pending_break--;
				break;
			}
			if (pending_continue && --pending_continue)
				break;
		}
		loop_depth--;
		vec_free(&items);
		last_status = status;
		undo_redirs(save, nsave);
		return status;
	}
	case N_CASE: {
		struct vec word = { 0 };
		struct saved_fd save[32];
		int nsave = 0;

		if (expand_word(n->name, &word, 0) < 0) {
			vec_free(&word);
			return last_status = 2;
		}
		if (count_redirs(n->redirs) > 32 || apply_redirs(n->redirs, save, &nsave) < 0) {
			undo_redirs(save, nsave);
			vec_free(&word);
			return last_status = 1;
		}
		status = 0;
		for (struct case_item *it = n->items; it; it = it->next) {
			int matched = 0;

			for (int k = 0; k < it->patterns.n && !matched; k++) {
				const char *pw = it->patterns.v[k];
				unsigned char *pf;
				char *pat;

				expand_error = 0;
				pat = expand_pattern(pw, strlen(pw), &pf);
				matched = !expand_error && pattern_match(pat, pf, word.v[0]);
				free(pat);
				free(pf);
			}
			if (matched) {
				status = exec_node(it->body, 0);
				break;
			}
		}
		vec_free(&word);
		last_status = status;
		undo_redirs(save, nsave);
		return status;
	}
	case N_FUNC:
		for (int i = 0; i < nfuncs; i++) {
			if (strcmp(func_names[i], n->name) == 0) {
				func_nodes[i] = n->a;
				return last_status = 0;
			}
		}
		if (nfuncs == 64) {
			sh_error("%s: too many functions", n->name);
			return last_status = 2;
		}
		func_names[nfuncs] = n->name;
		func_nodes[nfuncs++] = n->a;
		return last_status = 0;
	}
	return status;
}

/* ---- running text ---- */

/* Parses and runs text (eval, trap actions, command substitution). */
static int run_string(const char *text, const char *what)
{
	struct lexer lx = { 0 }, *saved = L;
	int status = 0;

	(void)what;
	int saved_stream = reading_stream;

	lx.src = text;
	lx.len = strlen(text);
	L = &lx;
	reading_stream = 0;
	for (;;) {
		struct node *list = parse_list(1);

		if (lx.error) {
			status = 2;
			break;
		}
		if (!list && lex() == T_EOF)
			break;
		if (list && list->nkids)
			status = exec_node(list, 0);
		else if (lex() == T_EOF)
			break;
		if (pending_break || pending_continue || pending_return)
			break;
		if (lex() == T_EOF)
			break;
	}
	free(lx.word);
	L = saved;
	reading_stream = saved_stream;
	return status;
}

static char *run_command_subst(const char *text, size_t len)
{
	int p[2];
	pid_t pid;
	struct str out = { 0 };
	char buf[512];
	ssize_t n;

	if (pipe(p) < 0) {
		sh_error("pipe: %s", strerror(errno));
		return xstrdup("");
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		sh_error("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return xstrdup("");
	}
	if (pid == 0) {
		char *t = xstrndup(text, len);

		reset_traps_in_child();
		close(p[0]);
		if (p[1] != 1) {
			dup2(p[1], 1);
			close(p[1]);
		}
		shell_exit(run_string(t, "command substitution"));
	}
	close(p[1]);
	str_adds(&out, "");
	while ((n = read(p[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++)
			str_addc(&out, buf[i]);
	}
	close(p[0]);
	last_status = wait_pid(pid);
	while (out.len && out.s[out.len - 1] == '\n')
		out.s[--out.len] = '\0';
	return str_take(&out);
}

/* ---- built-ins ---- */

static int bi_colon(int argc, char **argv) { (void)argc; (void)argv; return 0; }

static void printf_escape(const char **pp)
{
	const char *p = *pp;

	switch (*p) {
	case 'n': putchar('\n'); break;
	case 't': putchar('\t'); break;
	case 'r': putchar('\r'); break;
	case 'a': putchar('\a'); break;
	case 'b': putchar('\b'); break;
	case 'f': putchar('\f'); break;
	case 'v': putchar('\v'); break;
	case '\\': putchar('\\'); break;
	case '0': {
		int v = 0, k = 0;

		while (k < 3 && p[1] >= '0' && p[1] <= '7')
			v = v * 8 + (*++p - '0'), k++;
		putchar(v);
		break;
	}
	case '\0': putchar('\\'); p--; break;
	default: putchar('\\'); putchar(*p);
	}
	*pp = p + 1;
}

static int bi_printf(int argc, char **argv)
{
	const char *fmt;
	int ai = 2, status = 0;

	if (argc < 2) {
		sh_error("printf: usage: printf FORMAT [ARGUMENT...]");
		return 2;
	}
	fmt = argv[1];
	do {
		int used = 0;

		for (const char *p = fmt; *p;) {
			if (*p == '\\') {
				p++;
				printf_escape(&p);
				continue;
			}
			if (*p != '%') {
				putchar(*p++);
				continue;
			}
			{
				char spec[32];
				size_t sn = 0;
				const char *arg;

				spec[sn++] = *p++;
				if (*p == '%') {
					putchar('%');
					p++;
					continue;
				}
				while (*p && strchr("-+ #0123456789.", *p) && sn < sizeof(spec) - 3)
					spec[sn++] = *p++;
				if (!*p)
					break;
				arg = ai < argc ? argv[ai] : NULL;
				if (arg)
					ai++;
				used = 1;
				if (*p == 's' || *p == 'b' || *p == 'c') {
					spec[sn++] = *p == 'c' ? 'c' : 's';
					spec[sn] = '\0';
					if (*p == 'c')
						printf(spec, arg ? arg[0] : '\0');
					else
						printf(spec, arg ? arg : "");
				} else if (strchr("diouxX", *p)) {
					char *end;
					long v = 0;

					if (arg) {
						v = arg[0] == '\'' || arg[0] == '"' ? (unsigned char)arg[1] : strtol(arg, &end, 0);
						if (!(arg[0] == '\'' || arg[0] == '"') && (*end || end == arg)) {
							sh_error("printf: %s: invalid number", arg);
							status = 1;
						}
					}
					spec[sn++] = 'l';
					spec[sn++] = *p;
					spec[sn] = '\0';
					printf(spec, v);
				} else {
					sh_error("printf: %%%c: invalid directive", *p);
					return 1;
				}
				p++;
			}
		}
		if (!used)
			break;
	} while (ai < argc);
	return status;
}

static int bi_cd(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : var_get("HOME");
	char buf[512];

	if (!dir)
		dir = "/";
	if (argc > 1 && strcmp(dir, "-") == 0) {
		dir = var_get("OLDPWD");
		if (!dir) {
			sh_error("cd: OLDPWD not set");
			return 1;
		}
	}
	dir = xstrdup(dir);
	if (getcwd(buf, sizeof(buf)))
		var_set("OLDPWD", buf, 0);
	if (chdir(dir) < 0) {
		sh_error("cd: can't cd to %s", dir);
		free((char *)dir);
		return 2;
	}
	free((char *)dir);
	if (getcwd(buf, sizeof(buf)))
		var_set("PWD", buf, 0);
	if (argc > 1 && strcmp(argv[1], "-") == 0)
		puts(buf);
	return 0;
}

static int bi_pwd(int argc, char **argv)
{
	char buf[512];

	(void)argc;
	(void)argv;
	if (!getcwd(buf, sizeof(buf))) {
		sh_error("pwd: %s", strerror(errno));
		return 1;
	}
	puts(buf);
	return 0;
}

static int bi_exit(int argc, char **argv)
{
	int status = last_status;

	if (argc > 1) {
		char *end;
		long v = strtol(argv[1], &end, 10);

		if (*end || end == argv[1] || v < 0) {
			sh_error("exit: Illegal number: %s", argv[1]);
			status = 2;
		} else
			status = (int)(v & 255);
	}
	shell_exit(status);
}

static int assign_args(int argc, char **argv, int export, int readonly)
{
	int status = 0;

	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		char *name = eq ? xstrndup(argv[i], (size_t)(eq - argv[i])) : xstrdup(argv[i]);

		if (strcmp(name, "-p") == 0 && !eq) {
			for (struct var *v = vars; v; v = v->next)
				if ((export && v->exported) || (readonly && v->readonly))
					printf("%s %s='%s'\n", export ? "export" : "readonly", v->name, v->value ? v->value : "");
			free(name);
			continue;
		}
		if (!is_name(name, strlen(name))) {
			sh_error("%s: %s: bad variable name", export ? "export" : "readonly", name);
			status = 2;
		} else if (var_set(name, eq ? eq + 1 : NULL, export) < 0) {
			status = 1;
		} else if (readonly) {
			var_find(name)->readonly = 1;
		}
		free(name);
	}
	return status;
}

static int bi_export(int argc, char **argv) { return assign_args(argc, argv, 1, 0); }
static int bi_readonly(int argc, char **argv) { return assign_args(argc, argv, 0, 1); }

static int bi_local(int argc, char **argv)
{
	/* Functions share the global variables here; local assigns like plain assignment. */
	if (!in_function) {
		sh_error("local: not in a function");
		return 2;
	}
	return assign_args(argc, argv, 0, 0);
}

static int bi_unset(int argc, char **argv)
{
	int funcs = 0, status = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-f") == 0) {
			funcs = 1;
			continue;
		}
		if (strcmp(argv[i], "-v") == 0)
			continue;
		if (funcs) {
			for (int k = 0; k < nfuncs; k++)
				if (strcmp(func_names[k], argv[i]) == 0) {
					func_names[k] = func_names[nfuncs - 1];
					func_nodes[k] = func_nodes[nfuncs - 1];
					nfuncs--;
					break;
				}
		} else if (var_unset(argv[i]) < 0)
			status = 1;
	}
	return status;
}

static int loop_control(int argc, char **argv, int *pending)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	if (n < 1) {
		sh_error("%s: Illegal number: %s", argv[0], argv[1]);
		return 2;
	}
	if (loop_depth == 0)
		return 0;
	*pending = n > loop_depth ? loop_depth : n;
	return 0;
}

static int bi_break(int argc, char **argv) { return loop_control(argc, argv, &pending_break); }
static int bi_continue(int argc, char **argv) { return loop_control(argc, argv, &pending_continue); }

static int bi_return(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) & 255 : last_status;

	if (!in_function) {
		sh_error("return: not in a function");
		return 2;
	}
	pending_return = 1;
	last_status = status;
	return status;
}

static int bi_shift(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	if (n < 0 || n > positional_n) {
		sh_error("shift: can't shift that many");
		return 2;
	}
	positional += n;
	positional_n -= n;
	return 0;
}

static int bi_set(int argc, char **argv)
{
	int i = 1;

	if (argc == 1) {
		for (struct var *v = vars; v; v = v->next)
			if (v->value)
				printf("%s='%s'\n", v->name, v->value);
		return 0;
	}
	for (; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if ((a[0] != '-' && a[0] != '+') || !a[1])
			break;
		if (strcmp(a + 1, "o") == 0 && i + 1 < argc) {
			int on = a[0] == '-';
			const char *o = argv[++i];

			if (strcmp(o, "errexit") == 0)
				opt_errexit = on;
			else if (strcmp(o, "xtrace") == 0)
				opt_xtrace = on;
			else if (strcmp(o, "nounset") == 0)
				opt_nounset = on;
			else {
				sh_error("set: Illegal option -o %s", o);
				return 2;
			}
			continue;
		}
		for (const char *p = a + 1; *p; p++) {
			int on = a[0] == '-';

			if (*p == 'e')
				opt_errexit = on;
			else if (*p == 'x')
				opt_xtrace = on;
			else if (*p == 'u')
				opt_nounset = on;
			else if (*p == 'f' || *p == 'm' || *p == 'C')
				; /* accepted, no effect here */
			else {
				sh_error("set: Illegal option %c%c", a[0], *p);
				return 2;
			}
		}
	}
	if (i < argc || (i == argc && strcmp(argv[i - 1], "--") == 0)) {
		int n = argc - i;
		char **args = xmalloc(sizeof(char *) * (size_t)(n + 1));

		for (int k = 0; k < n; k++)
			args[k] = xstrdup(argv[i + k]);
		args[n] = NULL;
		set_positional(n, args);
	}
	return 0;
}

static int bi_eval(int argc, char **argv)
{
	struct str s = { 0 };
	int status;

	str_adds(&s, "");
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			str_addc(&s, ' ');
		str_adds(&s, argv[i]);
	}
	last_status = 0;
	status = run_string(s.s, "eval");
	free(s.s);
	return status;
}

static int bi_dot(int argc, char **argv)
{
	char *path;
	FILE *f;
	struct str s = { 0 };
	int c, status;

	if (argc < 2) {
		sh_error(".: filename argument required");
		return 2;
	}
	path = find_in_path(argv[1]);
	f = path ? fopen(path, "r") : NULL;
	free(path);
	if (!f) {
		sh_error(".: cannot open %s: %s", argv[1], strerror(errno ? errno : ENOENT));
		if (!interactive)
			shell_exit(2);
		return 2;
	}
	str_adds(&s, "");
	while ((c = fgetc(f)) != EOF)
		str_addc(&s, (char)c);
	fclose(f);
	status = run_string(s.s, ".");
	free(s.s);
	return status;
}

static int bi_exec(int argc, char **argv)
{
	/* The redirections were applied by the caller; make them permanent. */
	if (argc == 1)
		return 0;
	fflush(stdout);
	exec_external(argv + 1);
}

static int bi_read(int argc, char **argv)
{
	int raw = 0, i = 1, status = 0;
	struct str line = { 0 };
	const char *ifs = var_get("IFS");

	if (!ifs)
		ifs = " \t\n";
	if (i < argc && strcmp(argv[i], "-r") == 0)
		raw = 1, i++;
	str_adds(&line, "");
	for (;;) {
		char c;
		ssize_t n = read(0, &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			status = 1;
			break;
		}
		if (c == '\n')
			break;
		if (c == '\\' && !raw) {
			n = read(0, &c, 1);
			if (n <= 0)
				break;
			if (c == '\n')
				continue;
			str_addc(&line, '\x01'); /* marks the next char as escaped */
		}
		str_addc(&line, c);
	}
	if (i == argc) {
		var_set("REPLY", line.s, 0);
		free(line.s);
		return status;
	}
	{
		const char *p = line.s;

		for (; i < argc; i++) {
			struct str field = { 0 };

			str_adds(&field, "");
			while (*p && strchr(ifs, *p) && (*p == ' ' || *p == '\t' || *p == '\n'))
				p++;
			if (i == argc - 1) {
				/* the last variable takes the rest, trailing IFS white space removed */
				size_t keep;

				while (*p) {
					if (*p == '\x01')
						p++;
					str_addc(&field, *p++);
				}
				keep = field.len;
				while (keep && strchr(ifs, field.s[keep - 1]) && (field.s[keep - 1] == ' ' || field.s[keep - 1] == '\t'))
					keep--;
				field.s[keep] = '\0';
			} else {
				while (*p && !strchr(ifs, *p)) {
					if (*p == '\x01')
						p++;
					if (*p)
						str_addc(&field, *p++);
				}
				if (*p && strchr(ifs, *p) && !(*p == ' ' || *p == '\t' || *p == '\n'))
					p++;
			}
			if (!is_name(argv[i], strlen(argv[i]))) {
				sh_error("read: %s: bad variable name", argv[i]);
				free(field.s);
				free(line.s);
				return 2;
			}
			var_set(argv[i], field.s, 0);
			free(field.s);
		}
	}
	free(line.s);
	return status;
}

/* test / [ */
struct test_state {
	char **a;
	int n, i, error;
};

static int test_or(struct test_state *t);

static int test_unary(const char *op, const char *arg)
{
	struct stat st;

	switch (op[1]) {
	case 'n': return *arg != '\0';
	case 'z': return *arg == '\0';
	case 'e': return stat(arg, &st) == 0;
	case 'f': return stat(arg, &st) == 0 && S_ISREG(st.st_mode);
	case 'd': return stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
	case 'c': return stat(arg, &st) == 0 && S_ISCHR(st.st_mode);
	case 'p': return stat(arg, &st) == 0 && (st.st_mode & 0170000) == 0010000;
	case 'h':
	case 'L': return lstat(arg, &st) == 0 && (st.st_mode & 0170000) == 0120000;
	case 's': return stat(arg, &st) == 0 && st.st_size > 0;
	case 'r': return access(arg, 4) == 0;
	case 'w': return access(arg, 2) == 0;
	case 'x': return access(arg, 1) == 0;
	case 't': return isatty(atoi(arg));
	}
	return 0;
}

static int is_unary_op(const char *s)
{
	return s[0] == '-' && s[1] && !s[2] && strchr("nzefdcphLsrwxt", s[1]);
}

static int is_binary_op(const char *s)
{
	static const char *const ops[] = { "=", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "<", ">", NULL };

	for (int i = 0; ops[i]; i++)
		if (strcmp(s, ops[i]) == 0)
			return 1;
	return 0;
}

static int test_number(struct test_state *t, const char *s, long *v)
{
	char *end;

	while (*s == ' ')
		s++;
	*v = strtol(s, &end, 10);
	if (end == s || *end) {
		sh_error("test: %s: bad number", s);
		t->error = 1;
		return -1;
	}
	return 0;
}

static int test_binary(struct test_state *t, const char *a, const char *op, const char *b)
{
	long x, y;

	if (strcmp(op, "=") == 0)
		return strcmp(a, b) == 0;
	if (strcmp(op, "!=") == 0)
		return strcmp(a, b) != 0;
	if (strcmp(op, "<") == 0)
		return strcmp(a, b) < 0;
	if (strcmp(op, ">") == 0)
		return strcmp(a, b) > 0;
	if (test_number(t, a, &x) < 0 || test_number(t, b, &y) < 0)
		return 0;
	if (strcmp(op, "-eq") == 0) return x == y;
	if (strcmp(op, "-ne") == 0) return x != y;
	if (strcmp(op, "-lt") == 0) return x < y;
	if (strcmp(op, "-le") == 0) return x <= y;
	if (strcmp(op, "-gt") == 0) return x > y;
	return x >= y;
}

static int test_primary(struct test_state *t)
{
	if (t->i >= t->n) {
		sh_error("test: argument expected");
		t->error = 1;
		return 0;
	}
	if (strcmp(t->a[t->i], "!") == 0 && t->i + 1 < t->n) {
		t->i++;
		return !test_primary(t);
	}
	if (strcmp(t->a[t->i], "(") == 0 && t->i + 1 < t->n &&
	    !(t->i + 2 < t->n && is_binary_op(t->a[t->i + 1]) && strcmp(t->a[t->i + 2], ")") != 0)) {
		int v;

		t->i++;
		v = test_or(t);
		if (t->i >= t->n || strcmp(t->a[t->i], ")") != 0) {
			sh_error("test: closing paren expected");
			t->error = 1;
			return 0;
		}
		t->i++;
		return v;
	}
	if (t->i + 2 < t->n + 0 + 1 && t->i + 1 < t->n && is_binary_op(t->a[t->i + 1]) && t->i + 2 < t->n) {
		int v = test_binary(t, t->a[t->i], t->a[t->i + 1], t->a[t->i + 2]);

		t->i += 3;
		return v;
	}
	if (is_unary_op(t->a[t->i]) && t->i + 1 < t->n) {
		int v = test_unary(t->a[t->i], t->a[t->i + 1]);

		t->i += 2;
		return v;
	}
	return *t->a[t->i++] != '\0';
}

static int test_and(struct test_state *t)
{
	int v = test_primary(t);

	while (!t->error && t->i < t->n && strcmp(t->a[t->i], "-a") == 0) {
		int w;

		t->i++;
		w = test_primary(t);
		v = v && w;
	}
	return v;
}

static int test_or(struct test_state *t)
{
	int v = test_and(t);

	while (!t->error && t->i < t->n && strcmp(t->a[t->i], "-o") == 0) {
		int w;

		t->i++;
		w = test_and(t);
		v = v || w;
	}
	return v;
}

static int bi_test(int argc, char **argv)
{
	struct test_state t;
	int v;

	if (strcmp(argv[0], "[") == 0) {
		if (strcmp(argv[argc - 1], "]") != 0) {
			sh_error("[: missing ]");
			return 2;
		}
		argc--;
	}
	t.a = argv + 1;
	t.n = argc - 1;
	t.i = 0;
	t.error = 0;
	if (t.n == 0)
		return 1;
	v = test_or(&t);
	if (!t.error && t.i < t.n) {
		sh_error("test: %s: unexpected operator", t.a[t.i]);
		return 2;
	}
	return t.error ? 2 : !v;
}

static int parse_job(const char *s, struct job **out)
{
	int id;

	if (s[0] != '%')
		return 0;
	id = (s[1] == '\0' || s[1] == '%' || s[1] == '+') ? (njobs ? jobs[njobs - 1].id : -1)
	     : s[1] == '-' ? (njobs > 1 ? jobs[njobs - 2].id : -1) : atoi(s + 1);
	for (int i = 0; i < njobs; i++)
		if (jobs[i].id == id) {
			*out = &jobs[i];
			return 1;
		}
	*out = NULL;
	return 1;
}

static int bi_jobs(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	jobs_reap();
	for (int i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		const char *mark = i == njobs - 1 ? "+" : i == njobs - 2 ? "-" : " ";
		char state[32];

		if (!j->done)
			snprintf(state, sizeof(state), "Running");
		else if (j->status == 0)
			snprintf(state, sizeof(state), "Done");
		else if (j->status > 128)
			snprintf(state, sizeof(state), "Killed (%s)", j->status - 128 < NSIGNAMES ? signal_names[j->status - 128] : "?");
		else
			snprintf(state, sizeof(state), "Done(%d)", j->status);
		printf("[%d]%s %-24s%s\n", j->id, mark, state, j->text);
	}
	jobs_forget_done(0);
	return 0;
}

static int wait_job(struct job *j)
{
	while (!j->done) {
		int ws;
		pid_t r = waitpid(-1, &ws, 0);

		if (r < 0) {
			if (errno == EINTR) {
				if (any_trap_pending)
					return 128 + 1;
				continue;
			}
			break;
		}
		job_record(r, ws);
	}
	return j->status;
}

static int bi_wait(int argc, char **argv)
{
	int status = 0;

	if (argc == 1) {
		for (;;) {
			int ws, busy = 0;
			pid_t r;

			for (int i = 0; i < njobs; i++)
				busy |= !jobs[i].done;
			if (!busy)
				break;
			r = waitpid(-1, &ws, 0);
			if (r < 0) {
				if (errno == EINTR && any_trap_pending) {
					status = 128 + 1;
					break;
				}
				if (errno == EINTR)
					continue;
				break;
			}
			job_record(r, ws);
		}
		jobs_forget_done(0);
		return status;
	}
	for (int i = 1; i < argc; i++) {
		struct job *j = NULL;
		int k;

		if (parse_job(argv[i], &j)) {
			if (!j) {
				sh_error("wait: %s: no such job", argv[i]);
				status = 127;
				continue;
			}
		} else {
			char *end;
			pid_t pid = (pid_t)strtol(argv[i], &end, 10);

			if (*end || end == argv[i]) {
				sh_error("wait: %s: invalid process id", argv[i]);
				status = 2;
				continue;
			}
			j = job_by_pid(pid, &k);
			if (!j) {
				status = 127;
				continue;
			}
		}
		status = wait_job(j);
	}
	jobs_forget_done(0);
	return status;
}

static int bi_kill(int argc, char **argv)
{
	int sig = SIGTERM, i = 1, status = 0;

	if (argc < 2) {
		sh_error("kill: usage: kill [-s SIGNAL | -SIGNAL] PID|%%JOB... or kill -l [STATUS]");
		return 2;
	}
	if (strcmp(argv[1], "-l") == 0) {
		if (argc > 2) {
			int n = atoi(argv[2]);

			if (n > 128)
				n -= 128;
			if (n < 1 || n >= NSIGNAMES) {
				sh_error("kill: %s: invalid signal", argv[2]);
				return 1;
			}
			puts(signal_names[n]);
			return 0;
		}
		for (int s = 1; s < NSIGNAMES; s++)
			printf("%s%c", signal_names[s], s == NSIGNAMES - 1 ? '\n' : ' ');
		return 0;
	}
	if (strcmp(argv[1], "-s") == 0) {
		if (argc < 3 || (sig = signal_number(argv[2])) < 0) {
			sh_error("kill: %s: invalid signal", argc < 3 ? "" : argv[2]);
			return 2;
		}
		i = 3;
	} else if (argv[1][0] == '-' && argv[1][1]) {
		if (strcmp(argv[1], "--") == 0)
			i = 2;
		else if ((sig = signal_number(argv[1] + 1)) < 0) {
			sh_error("kill: %s: invalid signal", argv[1] + 1);
			return 2;
		} else
			i = 2;
	}
	for (; i < argc; i++) {
		struct job *j;

		if (parse_job(argv[i], &j)) {
			if (!j) {
				sh_error("kill: %s: no such job", argv[i]);
				status = 1;
				continue;
			}
			for (int k = 0; k < j->npids; k++)
				kill(j->pids[k], sig);
			continue;
		}
		{
			char *end;
			long pid = strtol(argv[i], &end, 10);

			if (*end || end == argv[i]) {
				sh_error("kill: %s: arguments must be process or job IDs", argv[i]);
				status = 1;
				continue;
			}
			if (kill((pid_t)pid, sig) < 0) {
				sh_error("kill: %ld: %s", pid, strerror(errno));
				status = 1;
			}
		}
	}
	return status;
}

static int bi_trap(int argc, char **argv)
{
	int i = 1, status = 0;
	const char *action;

	if (argc == 1) {
		for (int s = 0; s <= 64; s++)
			if (traps[s]) {
				printf("trap -- '%s' %s\n", traps[s], s == 0 ? "EXIT" : s < NSIGNAMES ? signal_names[s] : "?");
			}
		return 0;
	}
	if (strcmp(argv[1], "--") == 0)
		i++;
	if (i >= argc)
		return 0;
	action = argv[i];
	/* "trap N..." with a number first resets those signals. */
	if (signal_number(action) >= 0 && isdigit((unsigned char)action[0]))
		action = "-";
	else
		i++;
	for (; i < argc; i++) {
		int s = signal_number(argv[i]);
		struct sigaction sa;

		if (s < 0 || s == SIGKILL || s == 19) {
			sh_error("trap: %s: bad trap", argv[i]);
			status = 1;
			continue;
		}
		free(traps[s]);
		traps[s] = strcmp(action, "-") == 0 ? NULL : xstrdup(action);
		if (s == 0)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = !traps[s] ? SIG_DFL : !*traps[s] ? SIG_IGN : trap_handler;
		sigaction(s, &sa, NULL);
	}
	return status;
}

static int bi_umask(int argc, char **argv)
{
	long mask;

	if (argc < 2) {
		mode_t old = umask(0);

		umask(old);
		printf("%04o\n", old);
		return 0;
	}
	mask = strtol(argv[1], NULL, 8);
	umask((mode_t)mask);
	return 0;
}

static int bi_type(int argc, char **argv)
{
	int status = 0, special;

	for (int i = 1; i < argc; i++) {
		char *path;

		if (function_body(argv[i]))
			printf("%s is a shell function\n", argv[i]);
		else if (find_builtin(argv[i], &special))
			printf("%s is a shell builtin\n", argv[i]);
		else if ((path = find_in_path(argv[i])) != NULL) {
			printf("%s is %s\n", argv[i], path);
			free(path);
		} else {
			printf("%s: not found\n", argv[i]);
			status = 127;
		}
	}
	return status;
}

static const struct {
	const char *name;
	builtin_fn fn;
	int special;
} builtins[] = {
	{ ":", bi_colon, 1 }, { ".", bi_dot, 1 }, { "[", bi_test, 0 }, { "break", bi_break, 1 },
	{ "cd", bi_cd, 0 }, { "continue", bi_continue, 1 }, { "eval", bi_eval, 1 },
	{ "exec", bi_exec, 1 }, { "exit", bi_exit, 1 }, { "export", bi_export, 1 },
	{ "jobs", bi_jobs, 0 }, { "kill", bi_kill, 0 }, { "local", bi_local, 0 }, { "printf", bi_printf, 0 },
	{ "pwd", bi_pwd, 0 }, { "read", bi_read, 0 }, { "readonly", bi_readonly, 1 }, { "return", bi_return, 1 },
	{ "set", bi_set, 1 }, { "shift", bi_shift, 1 }, { "test", bi_test, 0 }, { "trap", bi_trap, 1 },
	{ "type", bi_type, 0 }, { "umask", bi_umask, 0 }, { "unset", bi_unset, 1 },
	{ "wait", bi_wait, 0 }, { NULL, NULL, 0 },
};

static builtin_fn find_builtin(const char *name, int *special)
{
	for (int i = 0; builtins[i].name; i++)
		if (strcmp(builtins[i].name, name) == 0) {
			*special = builtins[i].special;
			return builtins[i].fn;
		}
	return NULL;
}

/* ---- input ---- */

/* Reads a stream a line at a time and runs each complete command as soon
 * as it is complete (a construct spanning lines waits for its end). */
static int run_stream(int fd)
{
	struct str buf = { 0 };
	int at_eof = 0;

	reading_stream = 1;
	str_adds(&buf, "");
	for (;;) {
		struct lexer lx = { 0 };
		size_t consumed = 0;

		if (interactive) {
			jobs_reap();
			jobs_forget_done(1);
			fputs(buf.len ? "> " : "$ ", stderr);
		}
		/* one line */
		for (;;) {
			char c;
			ssize_t n = read(fd, &c, 1);

			if (n < 0 && errno == EINTR) {
				run_pending_traps();
				continue;
			}
			if (n <= 0) {
				at_eof = 1;
				break;
			}
			str_addc(&buf, c);
			if (c == '\n')
				break;
		}
		lx.src = buf.s;
		lx.len = buf.len;
		L = &lx;
		for (;;) {
			struct node *list;

			lx.have_tok = 0;
			list = parse_list(1);
			if (lx.error)
				break;
			consumed = lx.pos;
			if (list && list->nkids) {
				exec_node(list, 0);
				run_pending_traps();
			}
			if (lex() == T_EOF)
				break;
			lx.have_tok = 0;
			lx.pos = consumed;
		}
		free(lx.word);
		L = NULL;
		if (lx.error && lx.eof_in_construct && !at_eof) {
			continue; /* read more lines */
		}
		if (lx.error) {
			if (lx.eof_in_construct)
				sh_error("syntax error: %s", "unexpected end of file");
			last_status = 2;
			if (!interactive)
				shell_exit(2);
		}
		buf.len = 0;
		buf.s[0] = '\0';
		if (at_eof)
			break;
	}
	free(buf.s);
	return last_status;
}

static int usage(void)
{
	fputs("usage: sh [-ex] [-c COMMAND [NAME [ARG...]] | SCRIPT [ARG...]]\n"
	      "A POSIX-shell subset: variables, $((...)), $(...), test/[, if, for, while,\n"
	      "until, case, functions, globbing, &, wait, jobs, kill, trap, here-documents,\n"
	      "set -e. Reads commands from standard input when given no script.\n", stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;
	const char *command = NULL;

	for (char **e = environ; e && *e; e++) {
		char *eq = strchr(*e, '=');

		if (eq) {
			char *name = xstrndup(*e, (size_t)(eq - *e));

			var_set(name, eq + 1, 1);
			free(name);
		}
	}
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--help") == 0)
			return usage();
		for (const char *p = argv[i] + 1; *p; p++) {
			if (*p == 'c') {
				if (i + 1 >= argc) {
					sh_error("-c requires an argument");
					return 2;
				}
				command = argv[++i];
				break;
			} else if (*p == 'e')
				opt_errexit = 1;
			else if (*p == 'x')
				opt_xtrace = 1;
			else if (*p == 'u')
				opt_nounset = 1;
			else if (*p == 's' || *p == 'i')
				;
			else {
				sh_error("Illegal option -%c", *p);
				return 2;
			}
		}
	}
	if (command) {
		int status;

		if (i < argc)
			shell_name = argv[i++];
		set_positional(argc - i, argv + i);
		status = run_string(command, "-c");
		shell_exit(pending_return ? last_status : status);
	}
	if (i < argc) {
		int fd = open(argv[i], O_RDONLY);

		if (fd < 0) {
			sh_error("cannot open %s: %s", argv[i], strerror(errno));
			return 127;
		}
		shell_name = argv[i];
		set_positional(argc - i - 1, argv + i + 1);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		shell_exit(run_stream(fd));
	}
	interactive = isatty(0);
	shell_exit(run_stream(0));
}
