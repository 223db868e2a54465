/*
 * printf-style formatting shared by the kernel (printk, snprintf) and libc
 * (printf family). Output goes through a per-character sink, so the same
 * engine serves buffers, FILE streams and the console.
 *
 * Supported: %d %i %u %x %X %o %c %s %p %%, flags '-' '0' '+' ' ' '#',
 * width and precision (numbers or '*'), length modifiers hh h l ll z t j.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include "format.h"

struct format_state {
	format_sink_fn sink;
	void *ctx;
	int count;
};

static void format_put(struct format_state *st, char c)
{
	st->sink(st->ctx, c);
	st->count++;
}

static void format_pad(struct format_state *st, char c, int n)
{
	while (n-- > 0)
		format_put(st, c);
}

/* Emit one converted number: digits[] holds the digits in reverse order. */
static void format_number(struct format_state *st, uint64_t value, int negative,
			  unsigned base, int upper, int width, int precision,
			  int left, int zero, char plus, int alt)
{
	char digits[24];
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int ndigits = 0, len, zeros;
	char sign = negative ? '-' : plus;
	const char *prefix = "";

	if (alt && base == 16 && value != 0)
		prefix = upper ? "0X" : "0x";
	else if (alt && base == 8)
		prefix = "0";
	while (value != 0) {
		digits[ndigits++] = set[value % base];
		value /= base;
	}
	if (ndigits == 0 && precision != 0)
		digits[ndigits++] = '0';
	zeros = precision > ndigits ? precision - ndigits : 0;
	len = ndigits + zeros + (sign ? 1 : 0);
	for (const char *p = prefix; *p; p++)
		len++;
	if (zero && !left && precision < 0 && width > len) {
		zeros += width - len;
		len = width;
	}
	if (!left)
		format_pad(st, ' ', width - len);
	if (sign)
		format_put(st, sign);
	for (const char *p = prefix; *p; p++)
		format_put(st, *p);
	format_pad(st, '0', zeros);
	while (ndigits > 0)
		format_put(st, digits[--ndigits]);
	if (left)
		format_pad(st, ' ', width - len);
}

int format_output(format_sink_fn sink, void *ctx, const char *fmt, va_list ap)
{
	struct format_state st = { sink, ctx, 0 };

	for (; *fmt; fmt++) {
		int left = 0, zero = 0, alt = 0, width = 0, precision = -1, size = 0;
		char plus = 0;

		if (*fmt != '%') {
			format_put(&st, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				left = 1;
			else if (*fmt == '0')
				zero = 1;
			else if (*fmt == '+')
				plus = '+';
			else if (*fmt == ' ')
				plus = plus ? plus : ' ';
			else if (*fmt == '#')
				alt = 1;
			else
				break;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				left = 1;
				width = -width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			precision = 0;
			if (*fmt == '*') {
				precision = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					precision = precision * 10 + (*fmt++ - '0');
			}
		}
		/* size: 0 int, 1 long, 2 long long, -1 short, -2 char, 3 size_t */
		for (;; fmt++) {
			if (*fmt == 'l')
				size = size == 1 ? 2 : 1;
			else if (*fmt == 'h')
				size = size == -1 ? -2 : -1;
			else if (*fmt == 'z' || *fmt == 't')
				size = 3;
			else if (*fmt == 'j')
				size = 2;
			else
				break;
		}
		switch (*fmt) {
		case 'd':
		case 'i': {
			int64_t v;

			if (size == 2)
				v = va_arg(ap, long long);
			else if (size == 1 || size == 3)
				v = va_arg(ap, long);
			else
				v = va_arg(ap, int);
			if (size == -1)
				v = (short)v;
			else if (size == -2)
				v = (signed char)v;
			format_number(&st, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10, 0,
				      width, precision, left, zero, plus, 0);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			uint64_t v;
			unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;

			if (size == 2)
				v = va_arg(ap, unsigned long long);
			else if (size == 1 || size == 3)
				v = va_arg(ap, unsigned long);
			else
				v = va_arg(ap, unsigned int);
			if (size == -1)
				v = (unsigned short)v;
			else if (size == -2)
				v = (unsigned char)v;
			format_number(&st, v, 0, base, *fmt == 'X', width, precision, left,
				      zero, 0, alt);
			break;
		}
		case 'p':
			format_number(&st, (uintptr_t)va_arg(ap, void *), 0, 16, 0, width,
				      precision, left, zero, 0, 1);
			break;
		case 'c':
			if (!left)
				format_pad(&st, ' ', width - 1);
			format_put(&st, (char)va_arg(ap, int));
			if (left)
				format_pad(&st, ' ', width - 1);
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			int len = 0;

			if (!s)
				s = "(null)";
			while (s[len] && (precision < 0 || len < precision))
				len++;
			if (!left)
				format_pad(&st, ' ', width - len);
			for (int i = 0; i < len; i++)
				format_put(&st, s[i]);
			if (left)
				format_pad(&st, ' ', width - len);
			break;
		}
		case '%':
			format_put(&st, '%');
			break;
		case '\0':
			return st.count;
		default:
			/* Unknown conversion: print it as written, so mistakes show. */
			format_put(&st, '%');
			format_put(&st, *fmt);
			break;
		}
	}
	return st.count;
}

/* Sink that fills a bounded buffer, counting what did not fit. */
void format_buffer_sink(void *ctx, char c)
{
	struct format_buffer *b = ctx;

	if (b->len + 1 < b->cap)
		b->buf[b->len] = c;
	b->len++;
}

int format_to_buffer(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct format_buffer b = { buf, cap, 0 };
	int n = format_output(format_buffer_sink, &b, fmt, ap);

	if (cap > 0)
		buf[b.len < cap ? b.len : cap - 1] = '\0';
	return n;
}
