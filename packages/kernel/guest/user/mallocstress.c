/*
 * mallocstress: a memory allocator workload. Keeps a table of SLOTS live
 * blocks and, ROUNDS times, frees a pseudo-randomly chosen one and
 * allocates another of a random size (16 bytes to 64 KiB), filling each
 * block with a pattern and checking it when freed. The heap grows and
 * shrinks through brk and mmap, so the syscall and vminfo-like activity is
 * visible to tracing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: mallocstress [ROUNDS [SLOTS]]\n"
	"Frees and allocates ROUNDS (default 2000) blocks of random sizes, SLOTS\n"
	"(default 64, at most 1024) live at a time, checking every block's contents;\n"
	"prints 'mallocstress rounds=R slots=S bytes=B corrupt=C'.\n";

static unsigned long state = 12345;

static unsigned long next_random(void)
{
	state = state * 6364136223846793005ul + 1442695040888963407ul;
	return state >> 17;
}

struct block {
	unsigned char *p;
	size_t n;
	unsigned char fill;
};

int main(int argc, char **argv)
{
	long rounds = 2000, slots = 64, corrupt = 0;
	unsigned long long bytes = 0;
	struct block *table;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 1)
		rounds = atol(argv[1]);
	if (argc > 2)
		slots = atol(argv[2]);
	if (rounds < 0 || slots < 1 || slots > 1024) {
		fprintf(stderr, "mallocstress: bad arguments\n%s", usage);
		return 1;
	}
	table = calloc((size_t)slots, sizeof(*table));
	if (!table) {
		fputs("mallocstress: out of memory\n", stderr);
		return 1;
	}
	for (long r = 0; r < rounds; r++) {
		struct block *b = &table[next_random() % (unsigned long)slots];
		size_t n = 16u << (next_random() % 13);

		n += next_random() % n;
		if (n > 65536)
			n = 65536;
		if (b->p) {
			for (size_t k = 0; k < b->n; k += 64)
				if (b->p[k] != b->fill)
					corrupt++;
			free(b->p);
		}
		b->p = malloc(n);
		if (!b->p) {
			fprintf(stderr, "mallocstress: malloc(%zu) failed\n", n);
			return 1;
		}
		b->n = n;
		b->fill = (unsigned char)r;
		memset(b->p, b->fill, n);
		bytes += n;
	}
	for (long s = 0; s < slots; s++)
		free(table[s].p);
	free(table);
	printf("mallocstress rounds=%ld slots=%ld bytes=%llu corrupt=%ld\n", rounds, slots, bytes, corrupt);
	return corrupt ? 1 : 0;
}
