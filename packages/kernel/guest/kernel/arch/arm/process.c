/*
 * ARM thread frames: the user pt_regs sit at the top of the kernel stack;
 * below them, while a thread is switched out, the registers pushed by
 * __switch_to (r4-r11, lr). New threads get a hand-built switch frame whose
 * lr is ret_from_fork (user threads) or kthread_trampoline (r4 = function,
 * r5 = argument).
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/sched.h>

extern char ret_from_fork[], kthread_trampoline[];
void __switch_to(unsigned long *prev_sp, unsigned long next_sp);
void arch_load_user_tls(struct task_struct *t);

struct switch_frame {
	uint32_t r4, r5, r6, r7, r8, r9, r10, r11, lr;
};

static struct pt_regs *task_pt_regs(struct task_struct *t)
{
	return (struct pt_regs *)(t->kstack + KERNEL_STACK_SIZE) - 1;
}

static void push_switch_frame(struct task_struct *t, void *lr, uint32_t r4, uint32_t r5)
{
	struct switch_frame *f = (struct switch_frame *)task_pt_regs(t) - 1;

	memset(f, 0, sizeof(*f));
	f->lr = (uint32_t)lr;
	f->r4 = r4;
	f->r5 = r5;
	t->kernel_sp = (unsigned long)f;
}

/*
 * VFP (VFPv3-D16): the registers belong to the user thread. The kernel is
 * built soft-float and never touches them, so they are saved when a user
 * thread leaves the CPU and loaded when one arrives (kernel threads and the
 * idle task leave them alone); a fork inherits them, exec clears them.
 */
void arm_vfp_init_cpu(void)
{
	uint32_t cpacr;

	__asm__ __volatile__("mrc p15, 0, %0, c1, c0, 2" : "=r"(cpacr));
	cpacr |= 0xfu << 20; /* cp10, cp11: full access */
	__asm__ __volatile__("mcr p15, 0, %0, c1, c0, 2\n\tisb" ::"r"(cpacr));
	__asm__ __volatile__(".fpu vfpv3-d16\n\tvmsr fpexc, %0" ::"r"(1u << 30));
}

void arm_vfp_store(uint64_t *d, uint32_t *fpscr)
{
	__asm__ __volatile__(".fpu vfpv3-d16\n\tvstmia %1, {d0-d15}\n\tvmrs %0, fpscr" : "=r"(*fpscr) : "r"(d) : "memory");
}

void arm_vfp_load(const uint64_t *d, uint32_t fpscr)
{
	__asm__ __volatile__(".fpu vfpv3-d16\n\tvldmia %0, {d0-d15}\n\tvmsr fpscr, %1" ::"r"(d), "r"(fpscr) : "memory");
}

static void vfp_save(struct task_struct *t)
{
	arm_vfp_store(t->arch.vfp_d, &t->arch.fpscr);
	t->arch.vfp_valid = 1;
}

/* What a new program starts with: zeros, round to nearest, no flags. */
static const uint64_t vfp_zero[16];

static void vfp_switch(struct task_struct *prev, struct task_struct *next)
{
	if (!prev->is_kthread && !prev->is_idle)
		vfp_save(prev);
	if (next->is_kthread || next->is_idle)
		return;
	if (next->arch.vfp_valid)
		arm_vfp_load(next->arch.vfp_d, next->arch.fpscr);
	else
		arm_vfp_load(vfp_zero, 0);
}

void arch_thread_setup_fork(struct task_struct *child, const struct pt_regs *parent_regs,
			    unsigned long new_sp, unsigned long tls)
{
	struct pt_regs *regs = task_pt_regs(child);

	*regs = *parent_regs;
	regs->r[0] = 0;
	if (new_sp)
		regs->sp_usr = (uint32_t)new_sp;
	if (tls)
		child->arch.tls = (uint32_t)tls;
	/* The child starts with the parent's VFP registers, as they are now. */
	vfp_save(child);
	child->regs = regs;
	push_switch_frame(child, ret_from_fork, 0, 0);
}

void arch_thread_setup_kernel(struct task_struct *t, void (*fn)(void *), void *arg)
{
	t->regs = task_pt_regs(t);
	memset(t->regs, 0, sizeof(*t->regs));
	t->regs->cpsr = PSR_MODE_SVC | PSR_I_BIT;
	push_switch_frame(t, kthread_trampoline, (uint32_t)fn, (uint32_t)arg);
}

void arch_thread_setup_exec(struct pt_regs *regs, unsigned long entry, unsigned long sp)
{
	memset(regs, 0, sizeof(*regs));
	regs->pc = (uint32_t)entry & ~1u;
	regs->sp_usr = (uint32_t)sp;
	regs->cpsr = PSR_MODE_USR | ((entry & 1) ? PSR_T_BIT : 0);
	current->arch.tls = 0;
	arch_load_user_tls(current);
	current->arch.vfp_valid = 0;
	arm_vfp_load(vfp_zero, 0);
}

void arch_switch_to(struct task_struct *prev, struct task_struct *next)
{
	vfp_switch(prev, next);
	if (!next->is_kthread)
		arch_load_user_tls(next);
	__switch_to(&prev->kernel_sp, next->kernel_sp);
}
