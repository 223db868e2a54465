/*
 * ARM processor setup: translation-table registers for the split
 * user/kernel layout, VBAR, the per-CPU pointer in TPIDRPRW, interrupt
 * masking, user TLS (TPIDRURO) and starting secondary CPUs.
 */
#include <kernel/arch.h>
#include <kernel/board.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

extern char vectors[];
extern char secondary_entry[];
void arm_mmu_init_cpu(void);

unsigned long arch_irq_save(void)
{
	unsigned long cpsr;

	__asm__ __volatile__("mrs %0, cpsr\n\tcpsid i" : "=r"(cpsr)::"memory");
	return cpsr;
}

void arch_irq_restore(unsigned long flags)
{
	if (!(flags & PSR_I_BIT))
		__asm__ __volatile__("cpsie i" ::: "memory");
}

void arch_irq_enable(void)
{
	__asm__ __volatile__("cpsie i" ::: "memory");
}

void arch_irq_disable(void)
{
	__asm__ __volatile__("cpsid i" ::: "memory");
}

/* wfi wakes on a pending interrupt even while masked; unmasking for one
 * instruction then takes it. No wake-up can be lost between the check and
 * the wait. */
void arch_wait_for_interrupt(void)
{
	__asm__ __volatile__("dsb\n\twfi\n\tcpsie i\n\tnop\n\tcpsid i" ::: "memory");
}

void arch_memory_barrier(void)
{
	__asm__ __volatile__("dmb" ::: "memory");
}

void arch_set_cpu_info(struct cpu_info *ci)
{
	ci->self = ci;
	__asm__ __volatile__("mcr p15, 0, %0, c13, c0, 4" ::"r"(ci));
}

struct cpu_info *arch_cpu_info(void)
{
	struct cpu_info *ci;

	__asm__ __volatile__("mrc p15, 0, %0, c13, c0, 4" : "=r"(ci));
	return ci;
}

void arch_cpu_init(unsigned cpu)
{
	arm_mmu_init_cpu();
	__asm__ __volatile__("mcr p15, 0, %0, c12, c0, 0\n\tisb" ::"r"(vectors));
	arch_set_cpu_info(&cpu_infos[cpu]);
	arm_vfp_init_cpu();
}

void arch_setup(void)
{
}

/* The SVC stack pointer of an exception from user mode is wherever the
 * thread left it: the top of its kernel stack, so nothing to program. */
void arch_set_kernel_stack(struct task_struct *t)
{
}

void arch_start_secondary(unsigned cpu, void *stack_top)
{
	uint32_t entry = (uint32_t)virt_to_phys(secondary_entry);
	uint32_t stack = (uint32_t)virt_to_phys(stack_top);

	board_write32(SMP_BASE + SMP_ENTRY_LO, entry);
	board_write32(SMP_BASE + SMP_ENTRY_HI, 0);
	board_write32(SMP_BASE + SMP_STACK_LO, stack);
	board_write32(SMP_BASE + SMP_STACK_HI, 0);
	board_write32(SMP_BASE + SMP_ARG_LO, cpu);
	board_write32(SMP_BASE + SMP_ARG_HI, 0);
	board_write32(SMP_BASE + SMP_START, cpu);
}

static void write_tpidruro(uint32_t value)
{
	__asm__ __volatile__("mcr p15, 0, %0, c13, c0, 3" ::"r"(value));
}

long arch_set_tls(struct task_struct *t, unsigned long value)
{
	t->arch.tls = (uint32_t)value;
	if (t == current)
		write_tpidruro((uint32_t)value);
	return 0;
}

long arch_prctl_call(struct task_struct *t, int code, unsigned long addr)
{
	return -EINVAL;
}

void arch_load_user_tls(struct task_struct *t)
{
	write_tpidruro(t->arch.tls);
}

const unsigned arch_elf_machine = 40;   /* EM_ARM */
const unsigned arch_elf_class = 1;      /* ELFCLASS32 */
const char arch_uname_machine[] = "armv7l";
