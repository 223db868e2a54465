/*
 * Kernel console output: printk formats into a line buffer and writes it to
 * the board console; panic prints, stops the other CPUs' progress and powers
 * the machine off with the panic marker.
 */
#include <kernel/board.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>
#include "../../lib/format.h"

bool console_quiet;
static spinlock_t printk_lock = SPINLOCK_INIT;

void console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		board_write32(CONSOLE_BASE + CONSOLE_TX, (unsigned char)s[i]);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return format_to_buffer(buf, size, fmt, ap);
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int vprintk(const char *fmt, va_list ap)
{
	char line[512];
	int n = vsnprintf(line, sizeof(line), fmt, ap);

	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	spin_lock(&printk_lock);
	console_write(line, (size_t)n);
	spin_unlock(&printk_lock);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (console_quiet)
		return 0;
	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

__noreturn void panic(const char *fmt, ...)
{
	va_list ap;

	arch_irq_disable();
	console_quiet = false;
	printk("\nKernel panic on CPU %u: ", smp_processor_id());
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	board_panic_stop(255);
}

char *kstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = kmalloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

unsigned long simple_strtoul(const char *s, char **end, unsigned base)
{
	unsigned long v = 0;

	if (base == 0) {
		base = 10;
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			s += 2;
		}
	}
	for (;; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (d >= base)
			break;
		v = v * base + d;
	}
	if (end)
		*end = (char *)s;
	return v;
}
