/* Kernel library: strings, formatting, console output, panic. */
#ifndef KERNEL_LIB_H
#define KERNEL_LIB_H
#include <kernel/types.h>
#include <uapi/abi.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strcpy(char *dst, const char *src);
char *strncpy(char *dst, const char *src, size_t n);
size_t strlcpy(char *dst, const char *src, size_t size);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *kstrdup(const char *s);
unsigned long simple_strtoul(const char *s, char **end, unsigned base);

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintk(const char *fmt, va_list ap);
void console_write(const char *s, size_t n);
__noreturn void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define BUG_ON(cond) do { if (unlikely(cond)) panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond); } while (0)

extern bool console_quiet;
#endif
