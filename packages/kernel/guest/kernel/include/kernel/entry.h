/* Machine-independent kernel entry and exit (core/entry.c), called by the
 * arch trap code. */
#ifndef KERNEL_ENTRY_H
#define KERNEL_ENTRY_H
#include <kernel/arch.h>

void user_entry(struct pt_regs *regs);
void exit_to_user_mode(struct pt_regs *regs);
/* irq: the line to handle and acknowledge, or IRQ_NONE to claim lines from
 * the controller until none is left. */
void irq_entry(struct pt_regs *regs, unsigned irq);
void do_user_fault(struct pt_regs *regs, unsigned long addr, bool write, bool exec);
__noreturn void kthread_start(void (*fn)(void *), void *arg);
void schedule_tail(struct pt_regs *regs);
#endif
