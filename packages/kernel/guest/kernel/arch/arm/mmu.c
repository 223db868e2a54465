/*
 * ARM short-descriptor translation (ARM ARM B3.5). The kernel half is the
 * boot table kernel_l1 (TTBR1, 1 MiB sections, built by boot.S); each
 * process has a 4 KiB first-level table for its low 1 GiB (TTBR0 with
 * TTBCR.N = 2) whose entries point to 1 KiB second-level tables. One 4 KiB
 * page holds the second-level tables of four consecutive megabytes.
 *
 * Small-page descriptor bits: XN bit 0, type bit 1, B bit 2, C bit 3,
 * AP[1:0] bits 5:4, TEX bits 8:6, AP[2] bit 9, S bit 10, nG bit 11.
 * AP[2:0]: 001 kernel RW, 011 all RW, 111 all read-only (VMSAv7 encoding).
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/mm.h>

#define L1_COARSE 0x1u
#define L1_TYPE_MASK 0x3u
#define L2_SMALL 0x2u
#define L2_XN 0x1u
#define L2_B 0x4u
#define L2_C 0x8u
#define L2_AP_KERNEL_RW (0x1u << 4)
#define L2_AP_USER_RW (0x3u << 4)
#define L2_AP_USER_RO ((0x3u << 4) | (1u << 9))
#define L2_ADDR_MASK 0xFFFFF000u
#define USER_L1_ENTRIES 1024

extern uint32_t kernel_l1[4096];
static uint32_t empty_user_l1[USER_L1_ENTRIES] __aligned(4096);

void *phys_to_virt(paddr_t pa)
{
	return (void *)(uintptr_t)(pa + DIRECT_MAP_BASE);
}

paddr_t virt_to_phys(const void *va)
{
	return (paddr_t)((uintptr_t)va - DIRECT_MAP_BASE);
}

void arch_flush_tlb(void)
{
	__asm__ __volatile__("dsb\n\tmcr p15, 0, %0, c8, c7, 0\n\tdsb\n\tisb" ::"r"(0) : "memory");
}

static void set_ttbr0(paddr_t pa)
{
	__asm__ __volatile__("mcr p15, 0, %0, c2, c0, 0\n\tisb" ::"r"((uint32_t)pa) : "memory");
	arch_flush_tlb();
}

/* Per CPU: kernel table in TTBR1, the empty user table in TTBR0, N = 2. */
void arm_mmu_init_cpu(void)
{
	__asm__ __volatile__("mcr p15, 0, %0, c2, c0, 1" ::"r"((uint32_t)virt_to_phys(kernel_l1)));
	__asm__ __volatile__("mcr p15, 0, %0, c2, c0, 2" ::"r"(2u));
	set_ttbr0(virt_to_phys(empty_user_l1));
}

void arch_paging_init(uint64_t ram_size)
{
	/* boot.S mapped all of RAM; only the split layout is left to set up. */
	arm_mmu_init_cpu();
}

int arch_mm_init(struct mm_struct *mm)
{
	paddr_t l1 = alloc_page();

	if (!l1)
		return -ENOMEM;
	mm->pgd = l1;
	return 0;
}

void arch_mm_free(struct mm_struct *mm)
{
	uint32_t *l1 = phys_to_virt(mm->pgd);

	for (unsigned i = 0; i < USER_L1_ENTRIES; i += 4) {
		if ((l1[i] & L1_TYPE_MASK) == L1_COARSE)
			free_page(l1[i] & L2_ADDR_MASK);
	}
	free_page(mm->pgd);
	mm->pgd = 0;
}

static uint32_t *l2_slot(struct mm_struct *mm, vaddr_t va, bool create)
{
	uint32_t *l1 = phys_to_virt(mm->pgd);
	unsigned index = (unsigned)(va >> 20);
	uint32_t *l2;

	if (index >= USER_L1_ENTRIES)
		return NULL;
	if ((l1[index] & L1_TYPE_MASK) != L1_COARSE) {
		unsigned group = index & ~3u;
		paddr_t page;

		if (!create)
			return NULL;
		page = alloc_page();
		if (!page)
			return NULL;
		for (unsigned k = 0; k < 4; k++)
			l1[group + k] = (uint32_t)(page + k * 1024) | L1_COARSE;
	}
	l2 = phys_to_virt(l1[index] & ~0x3FFu);
	return &l2[(va >> 12) & 0xFF];
}

int arch_map_page(struct mm_struct *mm, vaddr_t va, paddr_t pa, unsigned flags)
{
	uint32_t *pte = l2_slot(mm, va, true);
	uint32_t entry = (uint32_t)pa | L2_SMALL | L2_B | L2_C;

	if (!pte)
		return -ENOMEM;
	if (flags & PTE_USER)
		entry |= (flags & PTE_WRITE) ? L2_AP_USER_RW : L2_AP_USER_RO;
	else
		entry |= L2_AP_KERNEL_RW;
	if (!(flags & PTE_EXEC))
		entry |= L2_XN;
	*pte = entry;
	arch_flush_tlb();
	return 0;
}

void arch_unmap_page(struct mm_struct *mm, vaddr_t va)
{
	uint32_t *pte = l2_slot(mm, va, false);

	if (pte && (*pte & L2_SMALL)) {
		*pte = 0;
		arch_flush_tlb();
	}
}

bool arch_translate(struct mm_struct *mm, vaddr_t va, paddr_t *pa, unsigned *flags)
{
	uint32_t *pte = l2_slot(mm, va, false);
	unsigned f = PTE_READ;

	if (!pte || !(*pte & L2_SMALL))
		return false;
	if ((*pte & (0x3u << 4)) == L2_AP_USER_RW && !(*pte & (1u << 9)))
		f |= PTE_WRITE | PTE_USER;
	else if ((*pte & (0x3u << 4)) == (0x3u << 4))
		f |= PTE_USER;
	else
		f |= PTE_WRITE;
	if (!(*pte & L2_XN))
		f |= PTE_EXEC;
	if (pa)
		*pa = (*pte & L2_ADDR_MASK) | (va & (PAGE_SIZE - 1));
	if (flags)
		*flags = f;
	return true;
}

void arch_switch_mm(struct mm_struct *mm)
{
	set_ttbr0(mm ? mm->pgd : virt_to_phys(empty_user_l1));
}
