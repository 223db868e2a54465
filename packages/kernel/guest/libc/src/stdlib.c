/* Conversions, environment, exit and atexit, qsort, rand, and the string
 * functions that allocate (strdup) or keep state (strtok, strerror). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

unsigned long long strtoull(const char *s, char **end, int base)
{
	unsigned long long v = 0;
	const char *start = s;
	int neg = 0, any = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    isxdigit((unsigned char)s[2])) {
		s += 2;
		base = 16;
	} else if (base == 0) {
		base = s[0] == '0' ? 8 : 10;
	}
	for (;; s++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (isalpha((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		v = v * (unsigned)base + (unsigned)d;
		any = 1;
	}
	if (end)
		*end = (char *)(any ? s : start);
	return neg ? -v : v;
}

long long strtoll(const char *s, char **end, int base) { return (long long)strtoull(s, end, base); }
unsigned long strtoul(const char *s, char **end, int base) { return (unsigned long)strtoull(s, end, base); }
long strtol(const char *s, char **end, int base) { return (long)strtoull(s, end, base); }
int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
long atol(const char *s) { return strtol(s, NULL, 10); }
int abs(int x) { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }

static unsigned int rand_state = 1;
void srand(unsigned int seed) { rand_state = seed; }
int rand(void)
{
	rand_state = rand_state * 1103515245u + 12345u;
	return (int)(rand_state >> 1) & RAND_MAX;
}

char *getenv(const char *name)
{
	size_t n = strlen(name);

	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

int setenv(const char *name, const char *value, int overwrite)
{
	size_t n = strlen(name), count = 0;
	char *entry, **grown;

	if (getenv(name) && !overwrite)
		return 0;
	entry = malloc(n + strlen(value) + 2);
	if (!entry)
		return -1;
	strcpy(entry, name);
	entry[n] = '=';
	strcpy(entry + n + 1, value);
	for (char **e = environ; e && *e; e++, count++) {
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') {
			*e = entry;
			return 0;
		}
	}
	grown = malloc((count + 2) * sizeof(char *));
	if (!grown)
		return -1;
	for (size_t i = 0; i < count; i++)
		grown[i] = environ[i];
	grown[count] = entry;
	grown[count + 1] = NULL;
	environ = grown;
	return 0;
}

#define ATEXIT_MAX 32
static void (*atexit_fns[ATEXIT_MAX])(void);
static int atexit_count;

int atexit(void (*fn)(void))
{
	if (atexit_count == ATEXIT_MAX)
		return -1;
	atexit_fns[atexit_count++] = fn;
	return 0;
}

void __stdio_flush_all(void);

__attribute__((noreturn)) void exit(int status)
{
	while (atexit_count > 0)
		atexit_fns[--atexit_count]();
	__stdio_flush_all();
	_exit(status);
}

__attribute__((noreturn)) void abort(void)
{
	__stdio_flush_all();
	raise(SIGABRT);
	_exit(127);
}

static void swap_bytes(char *a, char *b, size_t n)
{
	while (n--) {
		char t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

/* Merge-free quicksort with insertion sort for short runs; median-of-three
 * pivot so sorted input does not go quadratic. */
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *a = base;

	while (n > 8) {
		size_t mid = n / 2, i = 0, j = n - 1;
		char *pivot;

		if (cmp(a + mid * size, a) < 0)
			swap_bytes(a + mid * size, a, size);
		if (cmp(a + (n - 1) * size, a + mid * size) < 0) {
			swap_bytes(a + (n - 1) * size, a + mid * size, size);
			if (cmp(a + mid * size, a) < 0)
				swap_bytes(a + mid * size, a, size);
		}
		swap_bytes(a + mid * size, a + (n - 1) * size, size);
		pivot = a + (n - 1) * size;
		for (j = 0; j < n - 1; j++) {
			if (cmp(a + j * size, pivot) < 0) {
				swap_bytes(a + i * size, a + j * size, size);
				i++;
			}
		}
		swap_bytes(a + i * size, pivot, size);
		/* Recurse into the smaller side, loop on the larger one. */
		if (i < n - i - 1) {
			qsort(a, i, size, cmp);
			a += (i + 1) * size;
			n -= i + 1;
		} else {
			qsort(a + (i + 1) * size, n - i - 1, size, cmp);
			n = i;
		}
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp(a + (j - 1) * size, a + j * size) > 0; j--)
			swap_bytes(a + (j - 1) * size, a + j * size, size);
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	return d ? memcpy(d, s, n) : NULL;
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = malloc(n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *strtok(char *s, const char *delim)
{
	static char *next;
	char *tok;

	if (s)
		next = s;
	if (!next)
		return NULL;
	next += strspn(next, delim);
	if (!*next) {
		next = NULL;
		return NULL;
	}
	tok = next;
	next += strcspn(next, delim);
	if (*next)
		*next++ = '\0';
	else
		next = NULL;
	return tok;
}

char *strerror(int err)
{
	static char unknown[32];

	switch (err) {
	case 0: return "Success";
	case EPERM: return "Operation not permitted";
	case ENOENT: return "No such file or directory";
	case ESRCH: return "No such process";
	case EINTR: return "Interrupted system call";
	case EIO: return "Input/output error";
	case E2BIG: return "Argument list too long";
	case ENOEXEC: return "Exec format error";
	case EBADF: return "Bad file descriptor";
	case ECHILD: return "No child processes";
	case EAGAIN: return "Resource temporarily unavailable";
	case ENOMEM: return "Cannot allocate memory";
	case EACCES: return "Permission denied";
	case EFAULT: return "Bad address";
	case EBUSY: return "Device or resource busy";
	case EEXIST: return "File exists";
	case ENODEV: return "No such device";
	case ENOTDIR: return "Not a directory";
	case EISDIR: return "Is a directory";
	case EINVAL: return "Invalid argument";
	case EMFILE: return "Too many open files";
	case ENOTTY: return "Inappropriate ioctl for device";
	case ENOSPC: return "No space left on device";
	case ESPIPE: return "Illegal seek";
	case EPIPE: return "Broken pipe";
	case ERANGE: return "Numerical result out of range";
	case ENAMETOOLONG: return "File name too long";
	case ENOSYS: return "Function not implemented";
	case ENOTEMPTY: return "Directory not empty";
	default:
		snprintf(unknown, sizeof(unknown), "Unknown error %d", err);
		return unknown;
	}
}
