/* printf-style formatting engine shared by the kernel and libc (format.c). */
#ifndef GUEST_FORMAT_H
#define GUEST_FORMAT_H
#include <stdarg.h>
#include <stddef.h>

typedef void (*format_sink_fn)(void *ctx, char c);

struct format_buffer {
	char *buf;
	size_t cap;
	size_t len;
};

int format_output(format_sink_fn sink, void *ctx, const char *fmt, va_list ap);
void format_buffer_sink(void *ctx, char c);
int format_to_buffer(char *buf, size_t cap, const char *fmt, va_list ap);
#endif
