/*
 * Buffered standard I/O. A FILE owns a buffer used either for reading or for
 * writing. stdout is line-buffered when it is a terminal and fully buffered
 * otherwise (so pipelines are cheap); stderr is unbuffered. All open streams
 * are flushed at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../lib/format.h"

enum { BUF_NONE, BUF_LINE, BUF_FULL };

struct FILE {
	int fd;
	int mode;        /* BUF_* */
	int flags;       /* F_* below */
	int unget;       /* pushed-back character or EOF */
	size_t rpos, rlen;
	size_t wlen;
	unsigned char buf[BUFSIZ];
	struct FILE *next_open;
};

#define F_EOF 1
#define F_ERR 2
#define F_TTY_CHECKED 4
#define F_READABLE 8
#define F_WRITABLE 16

static FILE stdin_file = { 0, BUF_FULL, F_READABLE, EOF, 0, 0, 0, {0}, NULL };
static FILE stdout_file = { 1, BUF_FULL, F_WRITABLE, EOF, 0, 0, 0, {0}, &stdin_file };
static FILE stderr_file = { 2, BUF_NONE, F_WRITABLE | F_TTY_CHECKED, EOF, 0, 0, 0, {0}, &stdout_file };
FILE *stdin = &stdin_file;
FILE *stdout = &stdout_file;
FILE *stderr = &stderr_file;
static FILE *open_files = &stderr_file;

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int fflush(FILE *f)
{
	if (!f) {
		for (FILE *g = open_files; g; g = g->next_open)
			fflush(g);
		return 0;
	}
	if (f->wlen) {
		int r = write_all(f->fd, f->buf, f->wlen);

		f->wlen = 0;
		if (r < 0) {
			f->flags |= F_ERR;
			return EOF;
		}
	}
	return 0;
}

void __stdio_flush_all(void)
{
	fflush(NULL);
}

static void check_tty(FILE *f)
{
	if (!(f->flags & F_TTY_CHECKED)) {
		f->flags |= F_TTY_CHECKED;
		if (f->mode == BUF_FULL && isatty(f->fd))
			f->mode = BUF_LINE;
	}
}

int fputc(int c, FILE *f)
{
	check_tty(f);
	if (f->mode == BUF_NONE) {
		unsigned char ch = (unsigned char)c;

		if (write_all(f->fd, &ch, 1) < 0) {
			f->flags |= F_ERR;
			return EOF;
		}
		return ch;
	}
	f->buf[f->wlen++] = (unsigned char)c;
	if (f->wlen == sizeof(f->buf) || (f->mode == BUF_LINE && c == '\n'))
		if (fflush(f) == EOF)
			return EOF;
	return (unsigned char)c;
}

int putc(int c, FILE *f) { return fputc(c, f); }
int putchar(int c) { return fputc(c, stdout); }

size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	const unsigned char *p = buf;
	size_t total = size * n;

	check_tty(f);
	if (f->mode != BUF_LINE && total >= sizeof(f->buf)) {
		if (fflush(f) == EOF || write_all(f->fd, p, total) < 0) {
			f->flags |= F_ERR;
			return 0;
		}
		return n;
	}
	for (size_t i = 0; i < total; i++)
		if (fputc(p[i], f) == EOF)
			return size ? i / size : 0;
	return n;
}

int fputs(const char *s, FILE *f)
{
	size_t n = strlen(s);

	return fwrite(s, 1, n, f) == n ? 0 : EOF;
}

int puts(const char *s)
{
	if (fputs(s, stdout) == EOF)
		return EOF;
	return fputc('\n', stdout) == EOF ? EOF : 0;
}

int fgetc(FILE *f)
{
	if (f->unget != EOF) {
		int c = f->unget;

		f->unget = EOF;
		return c;
	}
	if (f->rpos == f->rlen) {
		ssize_t r;

		if (f == stdin)
			fflush(stdout);
		do
			r = read(f->fd, f->buf, sizeof(f->buf));
		while (r < 0 && errno == EINTR);
		if (r <= 0) {
			f->flags |= r == 0 ? F_EOF : F_ERR;
			return EOF;
		}
		f->rpos = 0;
		f->rlen = (size_t)r;
	}
	return f->buf[f->rpos++];
}

int getc(FILE *f) { return fgetc(f); }
int getchar(void) { return fgetc(stdin); }

int ungetc(int c, FILE *f)
{
	if (c == EOF)
		return EOF;
	f->unget = (unsigned char)c;
	f->flags &= ~F_EOF;
	return c;
}

size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
	unsigned char *p = buf;
	size_t total = size * n, got = 0;

	while (got < total) {
		int c = fgetc(f);

		if (c == EOF)
			break;
		p[got++] = (unsigned char)c;
	}
	return size ? got / size : 0;
}

char *fgets(char *s, int n, FILE *f)
{
	int i = 0;

	if (n <= 0)
		return NULL;
	while (i < n - 1) {
		int c = fgetc(f);

		if (c == EOF)
			break;
		s[i++] = (char)c;
		if (c == '\n')
			break;
	}
	if (i == 0)
		return NULL;
	s[i] = '\0';
	return s;
}

ssize_t getline(char **line, size_t *cap, FILE *f)
{
	size_t len = 0;
	int c;

	if (!*line || *cap == 0) {
		*cap = 128;
		*line = malloc(*cap);
		if (!*line)
			return -1;
	}
	while ((c = fgetc(f)) != EOF) {
		if (len + 2 > *cap) {
			char *grown = realloc(*line, *cap * 2);

			if (!grown)
				return -1;
			*line = grown;
			*cap *= 2;
		}
		(*line)[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (len == 0)
		return -1;
	(*line)[len] = '\0';
	return (ssize_t)len;
}

int feof(FILE *f) { return (f->flags & F_EOF) != 0; }
int ferror(FILE *f) { return (f->flags & F_ERR) != 0; }
int fileno(FILE *f) { return f->fd; }

static int mode_flags(const char *mode, int *stream_flags)
{
	int plus = strchr(mode, '+') != NULL;

	switch (mode[0]) {
	case 'r':
		*stream_flags = F_READABLE | (plus ? F_WRITABLE : 0);
		return plus ? O_RDWR : O_RDONLY;
	case 'w':
		*stream_flags = F_WRITABLE | (plus ? F_READABLE : 0);
		return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
	case 'a':
		*stream_flags = F_WRITABLE | (plus ? F_READABLE : 0);
		return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
	default:
		errno = EINVAL;
		return -1;
	}
}

FILE *fdopen(int fd, const char *mode)
{
	int sflags;
	FILE *f;

	if (mode_flags(mode, &sflags) < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = fd;
	f->mode = BUF_FULL;
	f->flags = sflags;
	f->unget = EOF;
	f->next_open = open_files;
	open_files = f;
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	int sflags, fd, oflags = mode_flags(mode, &sflags);
	FILE *f;

	if (oflags < 0)
		return NULL;
	fd = open(path, oflags | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f)
		close(fd);
	return f;
}

int fclose(FILE *f)
{
	int r = fflush(f);

	if (close(f->fd) < 0)
		r = EOF;
	for (FILE **link = &open_files; *link; link = &(*link)->next_open) {
		if (*link == f) {
			*link = f->next_open;
			break;
		}
	}
	if (f != stdin && f != stdout && f != stderr)
		free(f);
	return r;
}

static void stream_sink(void *ctx, char c)
{
	fputc((unsigned char)c, ctx);
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	return format_output(stream_sink, f, fmt, ap);
}

int vprintf(const char *fmt, va_list ap) { return vfprintf(stdout, fmt, ap); }

int vsnprintf(char *s, size_t n, const char *fmt, va_list ap)
{
	return format_to_buffer(s, n, fmt, ap);
}

int vsprintf(char *s, const char *fmt, va_list ap)
{
	return format_to_buffer(s, (size_t)-1 / 2, fmt, ap);
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int sprintf(char *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsprintf(s, fmt, ap);
	va_end(ap);
	return n;
}

int snprintf(char *s, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, size, fmt, ap);
	va_end(ap);
	return n;
}

struct fd_sink {
	int fd;
	size_t len;
	unsigned char buf[256];
};

static void fd_sink_put(void *ctx, char c)
{
	struct fd_sink *s = ctx;

	s->buf[s->len++] = (unsigned char)c;
	if (s->len == sizeof(s->buf)) {
		write_all(s->fd, s->buf, s->len);
		s->len = 0;
	}
}

int dprintf(int fd, const char *fmt, ...)
{
	struct fd_sink s;
	va_list ap;
	int n;

	s.fd = fd;
	s.len = 0;
	va_start(ap, fmt);
	n = format_output(fd_sink_put, &s, fmt, ap);
	va_end(ap);
	write_all(fd, s.buf, s.len);
	return n;
}

void perror(const char *msg)
{
	if (msg && *msg)
		fprintf(stderr, "%s: %s\n", msg, strerror(errno));
	else
		fprintf(stderr, "%s\n", strerror(errno));
}
