/*
 * x86-64 processor setup: per-CPU GDT and TSS, the shared IDT, the MSRs for
 * syscall/sysret and GS, interrupt masking, and starting secondary CPUs
 * through the board's CPU-start device.
 */
#include <kernel/arch.h>
#include <kernel/board.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

#define MSR_EFER 0xC0000080u
#define MSR_STAR 0xC0000081u
#define MSR_LSTAR 0xC0000082u
#define MSR_SFMASK 0xC0000084u
#define MSR_FS_BASE 0xC0000100u
#define MSR_GS_BASE 0xC0000101u
#define MSR_KERNEL_GS_BASE 0xC0000102u

#define RFLAGS_IF 0x200ul

struct tss64 {
	uint32_t reserved0;
	uint64_t rsp0, rsp1, rsp2;
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3, iomap_base;
} __attribute__((packed));

struct idt_gate {
	uint16_t offset_low, selector;
	uint8_t ist, type_attr;
	uint16_t offset_mid;
	uint32_t offset_high, reserved;
} __attribute__((packed));

struct descriptor_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

struct cpu_tables {
	uint64_t gdt[7];          /* null, kcode, kdata, udata, ucode, tss(2) */
	struct tss64 tss;
} __aligned(64);

static struct cpu_tables cpu_tables[NR_CPUS];
static struct idt_gate idt[48];
extern const uint64_t trap_stub_table[48];
extern char syscall_entry[];
extern char secondary_entry[];

uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

void wrmsr(uint32_t msr, uint64_t value)
{
	__asm__ __volatile__("wrmsr" ::"c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32)));
}

unsigned long arch_irq_save(void)
{
	unsigned long flags;

	__asm__ __volatile__("pushfq; popq %0; cli" : "=r"(flags)::"memory");
	return flags;
}

void arch_irq_restore(unsigned long flags)
{
	if (flags & RFLAGS_IF)
		__asm__ __volatile__("sti" ::: "memory");
}

void arch_irq_enable(void)
{
	__asm__ __volatile__("sti" ::: "memory");
}

void arch_irq_disable(void)
{
	__asm__ __volatile__("cli" ::: "memory");
}

/* Wait for an interrupt with interrupts enabled only during the wait:
 * "sti; hlt" cannot lose a wake-up because sti takes effect after hlt. */
void arch_wait_for_interrupt(void)
{
	__asm__ __volatile__("sti; hlt; cli" ::: "memory");
}

void arch_memory_barrier(void)
{
	__asm__ __volatile__("mfence" ::: "memory");
}

void arch_set_cpu_info(struct cpu_info *ci)
{
	ci->self = ci;
	wrmsr(MSR_GS_BASE, (uint64_t)ci);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}

struct cpu_info *arch_cpu_info(void)
{
	struct cpu_info *ci;

	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(ci));
	return ci;
}

static void idt_set_gate(unsigned vector, uint64_t handler, unsigned dpl)
{
	struct idt_gate *g = &idt[vector];

	g->offset_low = (uint16_t)handler;
	g->selector = KERNEL_CS;
	g->ist = 0;
	g->type_attr = (uint8_t)(0x8E | (dpl << 5));   /* present, 64-bit interrupt gate */
	g->offset_mid = (uint16_t)(handler >> 16);
	g->offset_high = (uint32_t)(handler >> 32);
	g->reserved = 0;
}

void idt_init(void)
{
	for (unsigned v = 0; v < ARRAY_SIZE(idt); v++)
		idt_set_gate(v, trap_stub_table[v], v == 3 || v == 4 ? 3 : 0);
}

static void gdt_init(unsigned cpu)
{
	struct cpu_tables *t = &cpu_tables[cpu];
	uint64_t tss = (uint64_t)&t->tss;
	uint64_t limit = sizeof(t->tss) - 1;

	t->gdt[0] = 0;
	t->gdt[1] = 0x00AF9A000000FFFFull;   /* 0x08 kernel code, 64-bit */
	t->gdt[2] = 0x00CF92000000FFFFull;   /* 0x10 kernel data */
	t->gdt[3] = 0x00CFF2000000FFFFull;   /* 0x18 user data, DPL 3 */
	t->gdt[4] = 0x00AFFA000000FFFFull;   /* 0x20 user code, 64-bit, DPL 3 */
	t->gdt[5] = (limit & 0xFFFF) | ((tss & 0xFFFFFF) << 16) | (0x89ull << 40) |
		    (((limit >> 16) & 0xF) << 48) | (((tss >> 24) & 0xFF) << 56);
	t->gdt[6] = tss >> 32;
	t->tss.iomap_base = sizeof(t->tss);
}

static void load_tables(unsigned cpu)
{
	struct cpu_tables *t = &cpu_tables[cpu];
	struct descriptor_pointer gdtr = { sizeof(t->gdt) - 1, (uint64_t)t->gdt };
	struct descriptor_pointer idtr = { sizeof(idt) - 1, (uint64_t)idt };

	__asm__ __volatile__("lgdt %0" ::"m"(gdtr));
	__asm__ __volatile__(
		"movw %w0, %%ds\n\tmovw %w0, %%es\n\tmovw %w0, %%ss\n\t"
		"pushq %1\n\tleaq 1f(%%rip), %%rax\n\tpushq %%rax\n\tlretq\n1:"
		:: "r"(KERNEL_DS), "i"(KERNEL_CS) : "rax", "memory");
	__asm__ __volatile__("ltr %w0" ::"r"(TSS_SEL));
	__asm__ __volatile__("lidt %0" ::"m"(idtr));
}

void arch_cpu_init(unsigned cpu)
{
	gdt_init(cpu);
	load_tables(cpu);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | 1 /* SCE */ | (1u << 11) /* NXE */);
	wrmsr(MSR_STAR, ((uint64_t)0x10 << 48) | ((uint64_t)KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_SFMASK, 0x47700);  /* clear TF, IF, DF, NT, AC on entry */
	{
		/* CR4.OSFXSR (9): FXSAVE/FXRSTOR and SSE; CR4.OSXMMEXCPT (10): SIMD
		 * floating-point exceptions as #XM. */
		uint64_t cr4;

		__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
		cr4 |= (1ul << 9) | (1ul << 10);
		__asm__ volatile("mov %0, %%cr4" : : "r"(cr4));
	}
	arch_set_cpu_info(&cpu_infos[cpu]);
}

/* The kernel stack used on the next entry from user mode on this CPU. */
void arch_set_kernel_stack(struct task_struct *t)
{
	unsigned cpu = smp_processor_id();
	unsigned long top = t->kstack + KERNEL_STACK_SIZE;

	cpu_tables[cpu].tss.rsp0 = top;
	cpu_infos[cpu].kernel_stack_top = top;
}

void arch_setup(void)
{
	idt_init();
}

extern paddr_t kernel_pgd_phys;

void arch_start_secondary(unsigned cpu, void *stack_top)
{
	uint64_t entry = (uint64_t)secondary_entry;

	board_write32(SMP_BASE + SMP_ENTRY_LO, (uint32_t)entry);
	board_write32(SMP_BASE + SMP_ENTRY_HI, (uint32_t)(entry >> 32));
	board_write32(SMP_BASE + SMP_STACK_LO, (uint32_t)(uint64_t)stack_top);
	board_write32(SMP_BASE + SMP_STACK_HI, (uint32_t)((uint64_t)stack_top >> 32));
	board_write32(SMP_BASE + SMP_ARG_LO, cpu);
	board_write32(SMP_BASE + SMP_ARG_HI, 0);
	board_write32(SMP_BASE + SMP_PAGE_TABLE_LO, (uint32_t)kernel_pgd_phys);
	board_write32(SMP_BASE + SMP_PAGE_TABLE_HI, (uint32_t)(kernel_pgd_phys >> 32));
	board_write32(SMP_BASE + SMP_START, cpu);
}

long arch_set_tls(struct task_struct *t, unsigned long value)
{
	t->arch.fs_base = value;
	if (t == current)
		wrmsr(MSR_FS_BASE, value);
	return 0;
}

/* arch_prctl(2): ARCH_SET_GS 0x1001, ARCH_SET_FS 0x1002, ARCH_GET_FS 0x1003,
 * ARCH_GET_GS 0x1004. */
long arch_prctl_call(struct task_struct *t, int code, unsigned long addr)
{
	switch (code) {
	case 0x1001:
		t->arch.gs_base = addr;
		wrmsr(MSR_KERNEL_GS_BASE, addr);
		return 0;
	case 0x1002:
		return arch_set_tls(t, addr);
	case 0x1003:
		return copy_to_user((void *)addr, &t->arch.fs_base, sizeof(uint64_t));
	case 0x1004:
		return copy_to_user((void *)addr, &t->arch.gs_base, sizeof(uint64_t));
	default:
		return -EINVAL;
	}
}

/* Restore the user TLS registers of the thread about to run. */
void arch_load_user_tls(struct task_struct *t)
{
	wrmsr(MSR_FS_BASE, t->arch.fs_base);
	wrmsr(MSR_KERNEL_GS_BASE, t->arch.gs_base);
}

const unsigned arch_elf_machine = 62;   /* EM_X86_64 */
const unsigned arch_elf_class = 2;      /* ELFCLASS64 */
const char arch_uname_machine[] = "x86_64";
