/*
 * x86-64 paging: the kernel's own 4-level tables (built at boot, replacing
 * the host's) and per-process user tables. Kernel half (PML4 entries
 * 256-511) is shared by every address space: each process PML4 copies those
 * entries from the master table, and the kernel never adds PML4 entries
 * after boot.
 *
 * Entry bits (Intel SDM vol. 3, 4.5): P=1, RW=2, US=4, PWT=8, PCD=0x10,
 * PS=0x80 (2 MiB page in a PD), NX=bit 63; physical address bits 51:12.
 */
#include <kernel/arch.h>
#include <kernel/board.h>
#include <kernel/lib.h>
#include <kernel/mm.h>

#define PTE_P   0x001ull
#define PTE_RW  0x002ull
#define PTE_US  0x004ull
#define PTE_PWT 0x008ull
#define PTE_PCD 0x010ull
#define PTE_PS  0x080ull
#define PTE_G   0x100ull
#define PTE_NX  (1ull << 63)
#define PTE_ADDR 0x000FFFFFFFFFF000ull

#define PML4_INDEX(va) (((va) >> 39) & 511)
#define PDPT_INDEX(va) (((va) >> 30) & 511)
#define PD_INDEX(va)   (((va) >> 21) & 511)
#define PT_INDEX(va)   (((va) >> 12) & 511)

#define DIRECT_MAP_GIB 4

static uint64_t kernel_pml4[512] __aligned(4096);
static uint64_t kernel_pdpt[512] __aligned(4096);    /* PML4[511] */
static uint64_t kernel_image_pd[512] __aligned(4096);/* kernel image, 1 GiB */
static uint64_t device_pd[512] __aligned(4096);      /* device window */
static uint64_t direct_pdpt[512] __aligned(4096);    /* PML4[273] */
static uint64_t direct_pd[DIRECT_MAP_GIB][512] __aligned(4096);

paddr_t kernel_pgd_phys;
static bool direct_map_ready;

/* Before the direct map exists, kernel-image addresses are the only ones
 * usable: they translate by subtracting KERNEL_BASE. */
static paddr_t kernel_image_phys(const void *va)
{
	return (paddr_t)((uintptr_t)va - KERNEL_BASE);
}

void *phys_to_virt(paddr_t pa)
{
	if (!direct_map_ready)
		return (void *)(uintptr_t)(pa + KERNEL_BASE);
	return (void *)(uintptr_t)(pa + DIRECT_MAP_BASE);
}

paddr_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;

	if (v >= KERNEL_BASE)
		return v - KERNEL_BASE;
	return v - DIRECT_MAP_BASE;
}

static void load_cr3(paddr_t pa)
{
	__asm__ __volatile__("movq %0, %%cr3" ::"r"(pa) : "memory");
}

void arch_flush_tlb(void)
{
	uint64_t cr3;

	__asm__ __volatile__("movq %%cr3, %0" : "=r"(cr3));
	load_cr3(cr3);
}

static void invlpg(vaddr_t va)
{
	__asm__ __volatile__("invlpg (%0)" ::"r"(va) : "memory");
}

/* Build the kernel tables and switch to them (BOARD.md 6.1: the host's
 * tables are not kept). */
void arch_paging_init(uint64_t ram_size)
{
	unsigned gib = (unsigned)((ram_size + (1ull << 30) - 1) >> 30);

	if (gib > DIRECT_MAP_GIB)
		gib = DIRECT_MAP_GIB;
	for (unsigned i = 0; i < 512; i++)
		kernel_image_pd[i] = ((uint64_t)i << 21) | PTE_P | PTE_RW | PTE_PS | PTE_G;
	for (unsigned i = 0; i < 8; i++)
		device_pd[384 + i] = (DEVICE_PHYS_BASE + ((uint64_t)i << 21)) | PTE_P | PTE_RW |
				     PTE_PS | PTE_PCD | PTE_PWT | PTE_G | PTE_NX;
	kernel_pdpt[510] = kernel_image_phys(kernel_image_pd) | PTE_P | PTE_RW;
	kernel_pdpt[511] = kernel_image_phys(device_pd) | PTE_P | PTE_RW;
	for (unsigned g = 0; g < gib; g++) {
		for (unsigned i = 0; i < 512; i++)
			direct_pd[g][i] = (((uint64_t)g << 30) + ((uint64_t)i << 21)) | PTE_P |
					  PTE_RW | PTE_PS | PTE_G | PTE_NX;
		direct_pdpt[g] = kernel_image_phys(direct_pd[g]) | PTE_P | PTE_RW;
	}
	kernel_pml4[PML4_INDEX(DIRECT_MAP_BASE)] = kernel_image_phys(direct_pdpt) | PTE_P | PTE_RW;
	kernel_pml4[511] = kernel_image_phys(kernel_pdpt) | PTE_P | PTE_RW;
	kernel_pgd_phys = kernel_image_phys(kernel_pml4);
	load_cr3(kernel_pgd_phys);
	direct_map_ready = true;
}

int arch_mm_init(struct mm_struct *mm)
{
	paddr_t pgd = alloc_page();
	uint64_t *table;

	if (!pgd)
		return -ENOMEM;
	table = phys_to_virt(pgd);
	for (unsigned i = 256; i < 512; i++)
		table[i] = kernel_pml4[i];
	mm->pgd = pgd;
	return 0;
}

/* Free the user half: page tables only; the pages were freed by the VMA
 * teardown through arch_unmap_page. */
static void free_table_level(paddr_t table_pa, int level)
{
	uint64_t *table = phys_to_virt(table_pa);

	if (level > 1) {
		for (unsigned i = 0; i < 512; i++)
			if (table[i] & PTE_P)
				free_table_level(table[i] & PTE_ADDR, level - 1);
	}
	free_page(table_pa);
}

void arch_mm_free(struct mm_struct *mm)
{
	uint64_t *pml4 = phys_to_virt(mm->pgd);

	for (unsigned i = 0; i < 256; i++)
		if (pml4[i] & PTE_P)
			free_table_level(pml4[i] & PTE_ADDR, 3);
	free_page(mm->pgd);
	mm->pgd = 0;
}

/* The PTE slot for va, allocating intermediate tables if create. */
static uint64_t *pte_slot(struct mm_struct *mm, vaddr_t va, bool create)
{
	uint64_t *table = phys_to_virt(mm->pgd);
	static const unsigned shifts[3] = { 39, 30, 21 };

	for (int level = 0; level < 3; level++) {
		uint64_t *entry = &table[(va >> shifts[level]) & 511];

		if (!(*entry & PTE_P)) {
			paddr_t next;

			if (!create)
				return NULL;
			next = alloc_page();
			if (!next)
				return NULL;
			*entry = next | PTE_P | PTE_RW | PTE_US;
		}
		table = phys_to_virt(*entry & PTE_ADDR);
	}
	return &table[PT_INDEX(va)];
}

int arch_map_page(struct mm_struct *mm, vaddr_t va, paddr_t pa, unsigned flags)
{
	uint64_t *pte = pte_slot(mm, va, true);
	uint64_t entry = pa | PTE_P;

	if (!pte)
		return -ENOMEM;
	if (flags & PTE_WRITE)
		entry |= PTE_RW;
	if (flags & PTE_USER)
		entry |= PTE_US;
	if (!(flags & PTE_EXEC))
		entry |= PTE_NX;
	*pte = entry;
	invlpg(va);
	return 0;
}

void arch_unmap_page(struct mm_struct *mm, vaddr_t va)
{
	uint64_t *pte = pte_slot(mm, va, false);

	if (pte && (*pte & PTE_P)) {
		*pte = 0;
		invlpg(va);
	}
}

bool arch_translate(struct mm_struct *mm, vaddr_t va, paddr_t *pa, unsigned *flags)
{
	uint64_t *pte = pte_slot(mm, va, false);
	unsigned f = PTE_READ;

	if (!pte || !(*pte & PTE_P))
		return false;
	if (*pte & PTE_RW)
		f |= PTE_WRITE;
	if (*pte & PTE_US)
		f |= PTE_USER;
	if (!(*pte & PTE_NX))
		f |= PTE_EXEC;
	if (pa)
		*pa = (*pte & PTE_ADDR) | (va & (PAGE_SIZE - 1));
	if (flags)
		*flags = f;
	return true;
}

void arch_switch_mm(struct mm_struct *mm)
{
	load_cr3(mm ? mm->pgd : kernel_pgd_phys);
}
