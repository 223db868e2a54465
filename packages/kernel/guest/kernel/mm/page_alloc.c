/*
 * Physical page allocator: one bit per 4 KiB page of RAM (1 = in use). Pages
 * come back zeroed. A next-fit cursor keeps allocation O(1) on average.
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/mm.h>

#define MAX_PAGES (4ul << 20)            /* up to 16 GiB of RAM */

static uint32_t page_bitmap[MAX_PAGES / 32];
static unsigned long total_pages, free_count, cursor;

static bool page_in_use(unsigned long pfn)
{
	return (page_bitmap[pfn / 32] >> (pfn % 32)) & 1;
}

static void page_mark(unsigned long pfn, bool used)
{
	if (used)
		page_bitmap[pfn / 32] |= 1u << (pfn % 32);
	else
		page_bitmap[pfn / 32] &= ~(1u << (pfn % 32));
}

/* All pages in [start, end) become free; everything else stays used. */
void page_alloc_init(paddr_t start, paddr_t end)
{
	total_pages = (unsigned long)(end >> PAGE_SHIFT);
	if (total_pages > MAX_PAGES)
		total_pages = MAX_PAGES;
	memset(page_bitmap, 0xff, sizeof(page_bitmap));
	for (unsigned long pfn = (unsigned long)(start >> PAGE_SHIFT); pfn < total_pages; pfn++) {
		page_mark(pfn, false);
		free_count++;
	}
	cursor = (unsigned long)(start >> PAGE_SHIFT);
}

void page_reserve(paddr_t start, paddr_t end)
{
	for (unsigned long pfn = (unsigned long)(start >> PAGE_SHIFT);
	     pfn < (unsigned long)((end + PAGE_SIZE - 1) >> PAGE_SHIFT) && pfn < total_pages; pfn++) {
		if (!page_in_use(pfn)) {
			page_mark(pfn, true);
			free_count--;
		}
	}
}

paddr_t alloc_pages(unsigned count)
{
	unsigned long scanned = 0, run = 0, pfn = cursor;

	if (count == 0 || count > free_count)
		return 0;
	while (scanned < total_pages + count) {
		if (pfn >= total_pages) {
			pfn = 0;
			run = 0;
		}
		if (page_in_use(pfn)) {
			run = 0;
		} else if (++run == count) {
			unsigned long first = pfn + 1 - count;
			paddr_t pa = (paddr_t)first << PAGE_SHIFT;

			for (unsigned long i = first; i <= pfn; i++)
				page_mark(i, true);
			free_count -= count;
			cursor = pfn + 1;
			memset(phys_to_virt(pa), 0, (size_t)count * PAGE_SIZE);
			return pa;
		}
		pfn++;
		scanned++;
	}
	return 0;
}

paddr_t alloc_page(void)
{
	return alloc_pages(1);
}

void free_pages(paddr_t pa, unsigned count)
{
	unsigned long pfn = (unsigned long)(pa >> PAGE_SHIFT);

	for (unsigned i = 0; i < count; i++, pfn++) {
		BUG_ON(pfn >= total_pages || !page_in_use(pfn));
		page_mark(pfn, false);
		free_count++;
	}
}

void free_page(paddr_t pa)
{
	free_pages(pa, 1);
}

unsigned long nr_free_pages(void)
{
	return free_count;
}

unsigned long nr_total_pages(void)
{
	return total_pages;
}
