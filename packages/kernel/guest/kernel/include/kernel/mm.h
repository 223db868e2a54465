/* Memory management: physical page allocator, kmalloc, and per-process
 * address spaces made of virtual memory areas (VMAs). */
#ifndef KERNEL_MM_H
#define KERNEL_MM_H
#include <kernel/types.h>
#include <kernel/arch.h>

/* ---- physical pages ---- */
void page_alloc_init(paddr_t start, paddr_t end);
void page_reserve(paddr_t start, paddr_t end);
paddr_t alloc_page(void);                 /* zeroed; 0 if none */
paddr_t alloc_pages(unsigned count);      /* contiguous, zeroed */
void free_page(paddr_t pa);
void free_pages(paddr_t pa, unsigned count);
unsigned long nr_free_pages(void);
unsigned long nr_total_pages(void);

/* ---- kernel heap ---- */
void kmalloc_init(void);
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void *krealloc(void *p, size_t size);
void kfree(void *p);

/* ---- address spaces ---- */
#define VM_READ   PTE_READ
#define VM_WRITE  PTE_WRITE
#define VM_EXEC   PTE_EXEC
#define VM_GROWSDOWN 0x100u
#define VM_HEAP      0x200u

struct vm_area_struct {
	vaddr_t vm_start, vm_end;     /* [start, end), page aligned */
	unsigned vm_flags;
	struct vm_area_struct *vm_next; /* sorted by address */
};

struct mm_struct {
	int mm_users;
	paddr_t pgd;                 /* arch root table (physical) */
	struct vm_area_struct *mmap; /* sorted VMA list */
	vaddr_t start_brk, brk;
	vaddr_t mmap_base;           /* next address for mmap without a hint */
	vaddr_t stack_top;
	unsigned long rss_pages;
};

struct mm_struct *mm_alloc(void);
struct mm_struct *mm_dup(struct mm_struct *old);
void mmput(struct mm_struct *mm);
struct vm_area_struct *find_vma(struct mm_struct *mm, vaddr_t addr);
int insert_vma(struct mm_struct *mm, vaddr_t start, vaddr_t end, unsigned flags);
int remove_vma_range(struct mm_struct *mm, vaddr_t start, vaddr_t end);
int handle_mm_fault(struct mm_struct *mm, vaddr_t addr, bool write, bool exec);
vaddr_t get_unmapped_area(struct mm_struct *mm, vaddr_t hint, size_t len);
void *user_page_kaddr(struct mm_struct *mm, vaddr_t va, bool write);

/* ---- user memory access (checked, fault-in) ---- */
long copy_from_user(void *dst, const void *usrc, size_t n);
long copy_to_user(void *udst, const void *src, size_t n);
long clear_user(void *udst, size_t n);
long strncpy_from_user(char *dst, const char *usrc, size_t max);
bool access_ok(const void *uaddr, size_t n);
#endif
