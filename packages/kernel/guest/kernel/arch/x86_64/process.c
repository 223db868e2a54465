/*
 * x86-64 thread frames: the kernel stack of a thread holds its user pt_regs
 * at the top; below it, while the thread is switched out, the callee-saved
 * registers pushed by __switch_to. A new thread gets a hand-built switch
 * frame whose return address is ret_from_fork (user threads) or
 * kthread_trampoline (kernel threads).
 *
 *   kstack + KERNEL_STACK_SIZE -> +----------------+
 *                                 | struct pt_regs |  user state
 *                                 +----------------+
 *                                 | return address |  ret_from_fork
 *                                 | rbp rbx r12-15 |  switch frame
 *   task->kernel_sp ------------> +----------------+
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/sched.h>

extern char ret_from_fork[], kthread_trampoline[];
void __switch_to(unsigned long *prev_sp, unsigned long next_sp);
void arch_load_user_tls(struct task_struct *t);

struct switch_frame {
	uint64_t r15, r14, r13, r12, rbx, rbp, ret;
};

static void *fpu_area(struct task_struct *t)
{
	return (void *)(((unsigned long)t->arch.fpu_buf + 15) & ~15ul);
}

static struct pt_regs *task_pt_regs(struct task_struct *t)
{
	return (struct pt_regs *)(t->kstack + KERNEL_STACK_SIZE) - 1;
}

static void push_switch_frame(struct task_struct *t, void *ret, uint64_t rbx, uint64_t r12)
{
	struct switch_frame *f = (struct switch_frame *)task_pt_regs(t) - 1;

	memset(f, 0, sizeof(*f));
	f->ret = (uint64_t)ret;
	f->rbx = rbx;
	f->r12 = r12;
	t->kernel_sp = (unsigned long)f;
}

void arch_thread_setup_fork(struct task_struct *child, const struct pt_regs *parent_regs,
			    unsigned long new_sp, unsigned long tls)
{
	struct pt_regs *regs = task_pt_regs(child);

	*regs = *parent_regs;
	regs->rax = 0;              /* the child's fork() returns 0 */
	if (new_sp)
		regs->rsp = new_sp;
	if (tls)
		child->arch.fs_base = tls;
	/* The child starts with the parent's FPU/SSE registers, as they are now. */
	__asm__ volatile("fxsave64 (%0)" : : "r"(fpu_area(child)) : "memory");
	child->arch.fpu_valid = true;
	child->regs = regs;
	push_switch_frame(child, ret_from_fork, 0, 0);
}

void arch_thread_setup_kernel(struct task_struct *t, void (*fn)(void *), void *arg)
{
	t->regs = task_pt_regs(t);
	memset(t->regs, 0, sizeof(*t->regs));
	t->regs->cs = KERNEL_CS;
	t->regs->ss = KERNEL_DS;
	push_switch_frame(t, kthread_trampoline, (uint64_t)fn, (uint64_t)arg);
}

/* Make regs start a fresh user program at entry with stack sp. */
void arch_thread_setup_exec(struct pt_regs *regs, unsigned long entry, unsigned long sp)
{
	memset(regs, 0, sizeof(*regs));
	regs->rip = entry;
	regs->rsp = sp;
	regs->cs = USER_CS;
	regs->ss = USER_DS;
	regs->rflags = 0x202;       /* IF set */
	current->arch.fs_base = 0;
	current->arch.gs_base = 0;
	arch_load_user_tls(current);
	{
		/* A new program starts with the FPU as FNINIT leaves it. */
		uint32_t mxcsr = 0x1f80;

		__asm__ volatile("fninit; ldmxcsr %0" : : "m"(mxcsr) : "memory");
	}
}

/* The FPU/SSE registers belong to the user thread: the kernel is built
 * without SSE and never touches them, so they are saved when a user thread
 * leaves the CPU and loaded when one arrives (kernel threads and the idle
 * task leave them alone). */
static void fpu_switch(struct task_struct *prev, struct task_struct *next)
{
	if (!prev->is_kthread && !prev->is_idle) {
		__asm__ volatile("fxsave64 (%0)" : : "r"(fpu_area(prev)) : "memory");
		prev->arch.fpu_valid = true;
	}
	if (next->is_kthread || next->is_idle)
		return;
	if (next->arch.fpu_valid) {
		__asm__ volatile("fxrstor64 (%0)" : : "r"(fpu_area(next)) : "memory");
	} else {
		uint32_t mxcsr = 0x1f80;

		__asm__ volatile("fninit; ldmxcsr %0" : : "m"(mxcsr) : "memory");
	}
}

void arch_switch_to(struct task_struct *prev, struct task_struct *next)
{
	fpu_switch(prev, next);
	arch_set_kernel_stack(next);
	if (!next->is_kthread)
		arch_load_user_tls(next);
	__switch_to(&prev->kernel_sp, next->kernel_sp);
}
