/*
 * kmalloc: power-of-two size classes from 32 bytes to 2 KiB carved out of
 * whole pages, each class with its own free list; larger requests take
 * contiguous pages. Every block is preceded by a header recording its size
 * class (or page count), so kfree needs only the pointer.
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/mm.h>

#define MIN_SHIFT 5
#define MAX_SHIFT 11
#define NR_CLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define HEADER_SIZE 16
#define BIG_MAGIC 0x4B4D4247ul       /* "KMBG" */

struct kmalloc_header {
	unsigned long size_or_pages;    /* class size, or page count for big blocks */
	unsigned long magic;            /* BIG_MAGIC for page blocks, else class index */
};

struct free_block {
	struct free_block *next;
};

static struct free_block *free_lists[NR_CLASSES];
static unsigned long bytes_in_use;

static unsigned size_class(size_t total)
{
	unsigned shift = MIN_SHIFT;

	while ((1ul << shift) < total)
		shift++;
	return shift - MIN_SHIFT;
}

static int refill_class(unsigned cls)
{
	size_t block = 1ul << (cls + MIN_SHIFT);
	paddr_t pa = alloc_page();
	char *page;

	if (!pa)
		return -ENOMEM;
	page = phys_to_virt(pa);
	for (size_t off = 0; off + block <= PAGE_SIZE; off += block) {
		struct free_block *b = (struct free_block *)(page + off);

		b->next = free_lists[cls];
		free_lists[cls] = b;
	}
	return 0;
}

void kmalloc_init(void)
{
	for (unsigned i = 0; i < NR_CLASSES; i++)
		free_lists[i] = NULL;
}

void *kmalloc(size_t size)
{
	size_t total = size + HEADER_SIZE;
	struct kmalloc_header *h;

	if (total > (1ul << MAX_SHIFT)) {
		unsigned pages = (unsigned)((total + PAGE_SIZE - 1) >> PAGE_SHIFT);
		paddr_t pa = alloc_pages(pages);

		if (!pa)
			return NULL;
		h = phys_to_virt(pa);
		h->size_or_pages = pages;
		h->magic = BIG_MAGIC;
		bytes_in_use += (unsigned long)pages * PAGE_SIZE;
	} else {
		unsigned cls = size_class(total);

		if (!free_lists[cls] && refill_class(cls) < 0)
			return NULL;
		h = (struct kmalloc_header *)free_lists[cls];
		free_lists[cls] = free_lists[cls]->next;
		h->size_or_pages = 1ul << (cls + MIN_SHIFT);
		h->magic = cls;
		bytes_in_use += h->size_or_pages;
	}
	return (char *)h + HEADER_SIZE;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

static size_t kmalloc_usable_size(const void *p)
{
	const struct kmalloc_header *h = (const void *)((const char *)p - HEADER_SIZE);

	if (h->magic == BIG_MAGIC)
		return h->size_or_pages * PAGE_SIZE - HEADER_SIZE;
	return h->size_or_pages - HEADER_SIZE;
}

void kfree(void *p)
{
	struct kmalloc_header *h;

	if (!p)
		return;
	h = (struct kmalloc_header *)((char *)p - HEADER_SIZE);
	if (h->magic == BIG_MAGIC) {
		bytes_in_use -= h->size_or_pages * PAGE_SIZE;
		free_pages(virt_to_phys(h), (unsigned)h->size_or_pages);
		return;
	}
	BUG_ON(h->magic >= NR_CLASSES);
	bytes_in_use -= h->size_or_pages;
	((struct free_block *)h)->next = free_lists[h->magic];
	free_lists[h->magic] = (struct free_block *)h;
}

void *krealloc(void *p, size_t size)
{
	void *q;

	if (!p)
		return kmalloc(size);
	if (kmalloc_usable_size(p) >= size)
		return p;
	q = kmalloc(size);
	if (!q)
		return NULL;
	memcpy(q, p, kmalloc_usable_size(p));
	kfree(p);
	return q;
}
