/*
 * Machine-independent entry and exit: what happens around every trap,
 * interrupt and system call once the arch code has saved the registers.
 * Entry from user mode takes the big kernel lock; the way back to user mode
 * runs pending work (reschedule, signals) and releases it.
 */
#include <kernel/board.h>
#include <kernel/entry.h>
#include <kernel/irq.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

void user_entry(struct pt_regs *regs)
{
	lock_kernel();
	current->regs = regs;
}

void exit_to_user_mode(struct pt_regs *regs)
{
	for (;;) {
		if (current->need_resched) {
			schedule();
			continue;
		}
		if (current->dtrace_sig || current->dtrace_stop) {
			dtrace_post_signals(current);
			continue;
		}
		if (signal_pending(current)) {
			do_signal(regs);
			continue;
		}
		break;
	}
	unlock_kernel();
}

/* Interrupts reach the kernel either from user mode or from the idle loop
 * (kernel code otherwise runs with interrupts masked). */
void irq_entry(struct pt_regs *regs, unsigned irq)
{
	bool user = regs_user_mode(regs);
	bool took_lock = false;

	if (user) {
		user_entry(regs);
	} else if (!kernel_locked_by_me()) {
		lock_kernel();
		took_lock = true;
	}
	if (irq == IRQ_NONE) {
		while ((irq = claim_irq()) != IRQ_NONE)
			handle_irq(irq, regs);
	} else {
		ack_irq(irq);
		handle_irq(irq, regs);
	}
	if (user)
		exit_to_user_mode(regs);
	else if (took_lock)
		unlock_kernel();
}

void do_user_fault(struct pt_regs *regs, unsigned long addr, bool write, bool exec)
{
	int err = handle_mm_fault(current->mm, addr, write, exec);

	if (err == 0)
		return;
	printk("%s[%d]: segfault at %#lx pc %#lx (%s%s)\n", current->comm, current->pid, addr,
	       regs_pc(regs), write ? "write" : exec ? "exec" : "read",
	       err == -ENOMEM ? ", out of memory" : "");
	force_sig_fault(SIGSEGV, addr);
}

__noreturn void kthread_start(void (*fn)(void *), void *arg)
{
	schedule_tail(NULL);
	fn(arg);
	do_exit(0);
}
