/*
 * Address spaces: a sorted list of VMAs per mm, demand-zero paging on
 * faults, eager copy on fork (every process owns private copies of its
 * pages, text included), and the brk/mmap/munmap/mprotect system calls.
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>

#define STACK_LIMIT (8ul << 20)

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm));

	if (!mm)
		return NULL;
	if (arch_mm_init(mm) < 0) {
		kfree(mm);
		return NULL;
	}
	mm->mm_users = 1;
	mm->mmap_base = USER_MMAP_BASE;
	return mm;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, vaddr_t addr)
{
	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next)
		if (addr >= v->vm_start && addr < v->vm_end)
			return v;
	return NULL;
}

static bool vma_range_free(struct mm_struct *mm, vaddr_t start, vaddr_t end)
{
	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next)
		if (start < v->vm_end && end > v->vm_start)
			return false;
	return true;
}

int insert_vma(struct mm_struct *mm, vaddr_t start, vaddr_t end, unsigned flags)
{
	struct vm_area_struct *vma, **link = &mm->mmap;

	if (start >= end || end > USER_TOP || (start & ~PAGE_MASK) || (end & ~PAGE_MASK))
		return -EINVAL;
	if (!vma_range_free(mm, start, end))
		return -EEXIST;
	vma = kzalloc(sizeof(*vma));
	if (!vma)
		return -ENOMEM;
	vma->vm_start = start;
	vma->vm_end = end;
	vma->vm_flags = flags;
	while (*link && (*link)->vm_start < start)
		link = &(*link)->vm_next;
	vma->vm_next = *link;
	*link = vma;
	return 0;
}

static void unmap_pages(struct mm_struct *mm, vaddr_t start, vaddr_t end)
{
	for (vaddr_t va = start; va < end; va += PAGE_SIZE) {
		paddr_t pa;

		if (arch_translate(mm, va, &pa, NULL)) {
			arch_unmap_page(mm, va);
			free_page(pa & ~(paddr_t)(PAGE_SIZE - 1));
			mm->rss_pages--;
		}
	}
}

/* Remove [start, end) from every VMA, splitting where needed. */
int remove_vma_range(struct mm_struct *mm, vaddr_t start, vaddr_t end)
{
	struct vm_area_struct **link = &mm->mmap;

	while (*link) {
		struct vm_area_struct *v = *link;

		if (v->vm_end <= start || v->vm_start >= end) {
			link = &v->vm_next;
			continue;
		}
		if (v->vm_start < start && v->vm_end > end) {
			/* Hole in the middle: split in two. */
			struct vm_area_struct *tail = kzalloc(sizeof(*tail));

			if (!tail)
				return -ENOMEM;
			tail->vm_start = end;
			tail->vm_end = v->vm_end;
			tail->vm_flags = v->vm_flags;
			tail->vm_next = v->vm_next;
			v->vm_next = tail;
			unmap_pages(mm, start, end);
			v->vm_end = start;
			return 0;
		}
		if (v->vm_start >= start && v->vm_end <= end) {
			unmap_pages(mm, v->vm_start, v->vm_end);
			*link = v->vm_next;
			kfree(v);
			continue;
		}
		if (v->vm_start < start) {
			unmap_pages(mm, start, v->vm_end);
			v->vm_end = start;
		} else {
			unmap_pages(mm, v->vm_start, end);
			v->vm_start = end;
		}
		link = &v->vm_next;
	}
	return 0;
}

static void exit_mmap(struct mm_struct *mm)
{
	while (mm->mmap) {
		struct vm_area_struct *v = mm->mmap;

		unmap_pages(mm, v->vm_start, v->vm_end);
		mm->mmap = v->vm_next;
		kfree(v);
	}
}

void mmput(struct mm_struct *mm)
{
	if (--mm->mm_users > 0)
		return;
	exit_mmap(mm);
	arch_mm_free(mm);
	kfree(mm);
}

static unsigned vma_pte_flags(const struct vm_area_struct *v)
{
	unsigned f = PTE_USER | PTE_READ;

	if (v->vm_flags & VM_WRITE)
		f |= PTE_WRITE;
	if (v->vm_flags & VM_EXEC)
		f |= PTE_EXEC;
	return f;
}

/* Copy an address space for fork: same VMAs, private copies of every page
 * that is present. */
struct mm_struct *mm_dup(struct mm_struct *old)
{
	struct mm_struct *mm = mm_alloc();

	if (!mm)
		return NULL;
	mm->start_brk = old->start_brk;
	mm->brk = old->brk;
	mm->mmap_base = old->mmap_base;
	mm->stack_top = old->stack_top;
	for (struct vm_area_struct *v = old->mmap; v; v = v->vm_next) {
		if (insert_vma(mm, v->vm_start, v->vm_end, v->vm_flags) < 0)
			goto fail;
		for (vaddr_t va = v->vm_start; va < v->vm_end; va += PAGE_SIZE) {
			paddr_t src, dst;

			if (!arch_translate(old, va, &src, NULL))
				continue;
			dst = alloc_page();
			if (!dst)
				goto fail;
			memcpy(phys_to_virt(dst), phys_to_virt(src), PAGE_SIZE);
			if (arch_map_page(mm, va, dst, vma_pte_flags(v)) < 0) {
				free_page(dst);
				goto fail;
			}
			mm->rss_pages++;
		}
	}
	return mm;
fail:
	mmput(mm);
	return NULL;
}

/* Extend a grows-down stack VMA to cover addr if within the limit. */
static struct vm_area_struct *expand_stack(struct mm_struct *mm, vaddr_t addr)
{
	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next) {
		if (!(v->vm_flags & VM_GROWSDOWN) || addr >= v->vm_start)
			continue;
		if (v->vm_end - (addr & PAGE_MASK) > STACK_LIMIT)
			return NULL;
		if (!vma_range_free(mm, addr & PAGE_MASK, v->vm_start))
			return NULL;
		v->vm_start = addr & PAGE_MASK;
		return v;
	}
	return NULL;
}

/* Resolve a fault at addr: 0 if a page is now mapped, -EFAULT if the access
 * is not allowed (the caller raises SIGSEGV). */
int handle_mm_fault(struct mm_struct *mm, vaddr_t addr, bool write, bool exec)
{
	struct vm_area_struct *v;
	paddr_t pa;
	unsigned flags;

	if (!mm || addr >= USER_TOP)
		return -EFAULT;
	v = find_vma(mm, addr);
	if (!v && addr + 65536 + 256 >= regs_sp(current->regs))
		v = expand_stack(mm, addr);
	if (!v)
		return -EFAULT;
	if ((write && !(v->vm_flags & VM_WRITE)) || (exec && !(v->vm_flags & VM_EXEC)) ||
	    !(v->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return -EFAULT;
	if (arch_translate(mm, addr & PAGE_MASK, NULL, &flags))
		return -EFAULT;      /* present but the access was refused */
	pa = alloc_page();
	if (!pa)
		return -ENOMEM;
	if (arch_map_page(mm, addr & PAGE_MASK, pa, vma_pte_flags(v)) < 0) {
		free_page(pa);
		return -ENOMEM;
	}
	mm->rss_pages++;
	return 0;
}

/* Kernel address of the user page holding va in mm, faulting it in; NULL if
 * the access is not allowed. */
void *user_page_kaddr(struct mm_struct *mm, vaddr_t va, bool write)
{
	paddr_t pa;
	unsigned flags;

	if (!mm || va >= USER_TOP)
		return NULL;
	if (!arch_translate(mm, va, &pa, &flags)) {
		if (handle_mm_fault(mm, va, write, false) < 0)
			return NULL;
		if (!arch_translate(mm, va, &pa, &flags))
			return NULL;
	}
	if (!(flags & PTE_USER) || (write && !(flags & PTE_WRITE)))
		return NULL;
	return phys_to_virt(pa);
}

vaddr_t get_unmapped_area(struct mm_struct *mm, vaddr_t hint, size_t len)
{
	vaddr_t addr;

	len = PAGE_ALIGN(len);
	if (hint && !(hint & ~PAGE_MASK) && hint + len <= USER_TOP &&
	    vma_range_free(mm, hint, hint + len))
		return hint;
	/* Top-down below mmap_base. */
	addr = mm->mmap_base - len;
	while (addr >= PAGE_SIZE * 16) {
		if (vma_range_free(mm, addr, addr + len)) {
			return addr;
		}
		addr -= PAGE_SIZE;
	}
	return 0;
}

long sys_brk(long brk_arg, long a1, long a2, long a3, long a4, long a5)
{
	struct mm_struct *mm = current->mm;
	vaddr_t new_brk = (vaddr_t)brk_arg;
	vaddr_t old_end = PAGE_ALIGN(mm->brk), new_end;

	if (new_brk < mm->start_brk)
		return (long)mm->brk;
	new_end = PAGE_ALIGN(new_brk);
	if (new_end > old_end) {
		if (insert_vma(mm, old_end, new_end, VM_READ | VM_WRITE | VM_HEAP) < 0)
			return (long)mm->brk;
	} else if (new_end < old_end) {
		remove_vma_range(mm, new_end, old_end);
	}
	mm->brk = new_brk;
	return (long)mm->brk;
}

static unsigned prot_to_vm(long prot)
{
	unsigned f = 0;

	if (prot & PROT_READ)
		f |= VM_READ;
	if (prot & PROT_WRITE)
		f |= VM_WRITE | VM_READ;
	if (prot & PROT_EXEC)
		f |= VM_EXEC | VM_READ;
	return f;
}

/* Only anonymous private mappings are supported (no file mappings). */
static long do_mmap(vaddr_t addr, size_t len, long prot, long flags, long fd)
{
	struct mm_struct *mm = current->mm;
	int err;

	if (len == 0)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS))
		return -ENODEV;
	len = PAGE_ALIGN(len);
	if (flags & MAP_FIXED) {
		if (addr & ~PAGE_MASK)
			return -EINVAL;
		remove_vma_range(mm, addr, addr + len);
	} else {
		addr = get_unmapped_area(mm, addr, len);
		if (!addr)
			return -ENOMEM;
	}
	err = insert_vma(mm, addr, addr + len, prot_to_vm(prot));
	if (err < 0)
		return err;
	return (long)addr;
}

long sys_mmap(long addr, long len, long prot, long flags, long fd, long off)
{
	if (off & (long)(PAGE_SIZE - 1))
		return -EINVAL;
	return do_mmap((vaddr_t)addr, (size_t)len, prot, flags, fd);
}

long sys_mmap2(long addr, long len, long prot, long flags, long fd, long pgoff)
{
	return do_mmap((vaddr_t)addr, (size_t)len, prot, flags, fd);
}

long sys_munmap(long addr, long len, long a2, long a3, long a4, long a5)
{
	if ((addr & (long)(PAGE_SIZE - 1)) || len <= 0)
		return -EINVAL;
	return remove_vma_range(current->mm, (vaddr_t)addr, (vaddr_t)addr + PAGE_ALIGN((size_t)len));
}

/* Split v in two at addr when addr falls strictly inside it; the tail
 * follows v in the list with the same flags. */
static int split_vma(struct vm_area_struct *v, vaddr_t addr)
{
	struct vm_area_struct *tail;

	if (addr <= v->vm_start || addr >= v->vm_end)
		return 0;
	tail = kzalloc(sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	tail->vm_start = addr;
	tail->vm_end = v->vm_end;
	tail->vm_flags = v->vm_flags;
	tail->vm_next = v->vm_next;
	v->vm_next = tail;
	v->vm_end = addr;
	return 0;
}

long sys_mprotect(long addr, long len, long prot, long a3, long a4, long a5)
{
	struct mm_struct *mm = current->mm;
	vaddr_t start = (vaddr_t)addr, end = start + PAGE_ALIGN((size_t)len);

	if (start & ~PAGE_MASK)
		return -EINVAL;
	for (vaddr_t va = start; va < end; va += PAGE_SIZE)
		if (!find_vma(mm, va))
			return -ENOMEM;
	/* VMAs that straddle start or end are split there first, so only the
	 * range changes protection (a RELRO mprotect must leave the rest of the
	 * data segment writable, for this process and for its forks). */
	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next) {
		if (split_vma(v, start) < 0 || split_vma(v, end) < 0)
			return -ENOMEM;
	}
	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next) {
		if (v->vm_end <= start || v->vm_start >= end)
			continue;
		v->vm_flags = (v->vm_flags & (VM_GROWSDOWN | VM_HEAP)) | prot_to_vm(prot);
		for (vaddr_t va = MAX(v->vm_start, start); va < MIN(v->vm_end, end); va += PAGE_SIZE) {
			paddr_t pa;

			if (arch_translate(mm, va, &pa, NULL))
				arch_map_page(mm, va, pa & ~(paddr_t)(PAGE_SIZE - 1), vma_pte_flags(v));
		}
	}
	return 0;
}
