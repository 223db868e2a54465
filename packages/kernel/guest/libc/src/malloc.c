/*
 * malloc/free/realloc/calloc: a first-fit free list over memory from sbrk.
 * Every block has a header holding its size (a multiple of 16, including the
 * header) and, while free, the next free block; free blocks are kept sorted
 * by address and merged with their neighbours, so a long-running shell does
 * not fragment without bound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

struct block {
	size_t size;          /* bytes including this header */
	struct block *next;   /* next free block (only while free) */
};

#define ALIGNMENT 16
#define HEADER ((sizeof(struct block) + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1))
#define GROW_MIN (64 * 1024)

static struct block *free_list;

static size_t block_size_for(size_t n)
{
	return (n + HEADER + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1);
}

/* Put a block back on the address-sorted free list, merging neighbours. */
static void free_list_insert(struct block *b)
{
	struct block **link = &free_list;

	while (*link && *link < b)
		link = &(*link)->next;
	b->next = *link;
	*link = b;
	if (b->next && (char *)b + b->size == (char *)b->next) {
		b->size += b->next->size;
		b->next = b->next->next;
	}
	if (link != &free_list) {
		struct block *prev = (struct block *)((char *)link - offsetof(struct block, next));

		if ((char *)prev + prev->size == (char *)b) {
			prev->size += b->size;
			prev->next = b->next;
		}
	}
}

static int heap_grow(size_t need)
{
	size_t grow = need > GROW_MIN ? need : GROW_MIN;
	char *p = sbrk(0);
	uintptr_t pad = (ALIGNMENT - ((uintptr_t)p & (ALIGNMENT - 1))) & (ALIGNMENT - 1);
	struct block *b;

	p = sbrk((long)(grow + pad));
	if (p == (void *)-1) {
		errno = ENOMEM;
		return -1;
	}
	b = (struct block *)(p + pad);
	b->size = grow;
	free_list_insert(b);
	return 0;
}

void *malloc(size_t n)
{
	size_t need;

	if (n > (size_t)1 << (sizeof(size_t) * 8 - 2)) {
		errno = ENOMEM;
		return NULL;
	}
	need = block_size_for(n);
	for (;;) {
		for (struct block **link = &free_list; *link; link = &(*link)->next) {
			struct block *b = *link;

			if (b->size < need)
				continue;
			if (b->size - need >= HEADER + ALIGNMENT) {
				struct block *rest = (struct block *)((char *)b + need);

				rest->size = b->size - need;
				rest->next = b->next;
				*link = rest;
				b->size = need;
			} else {
				*link = b->next;
			}
			return (char *)b + HEADER;
		}
		if (heap_grow(need) < 0)
			return NULL;
	}
}

void free(void *p)
{
	if (p)
		free_list_insert((struct block *)((char *)p - HEADER));
}

void *calloc(size_t count, size_t n)
{
	size_t total = count * n;
	void *p;

	if (n && total / n != count) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(total);
	if (p)
		memset(p, 0, total);
	return p;
}

void *realloc(void *p, size_t n)
{
	struct block *b;
	void *q;

	if (!p)
		return malloc(n);
	if (n == 0) {
		free(p);
		return NULL;
	}
	b = (struct block *)((char *)p - HEADER);
	if (b->size >= block_size_for(n))
		return p;
	q = malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, b->size - HEADER);
	free(p);
	return q;
}
