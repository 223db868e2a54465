/* Interrupt handling: the board's interrupt controller and the dispatch of
 * IRQ lines to handlers. */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H
#include <kernel/types.h>
#include <kernel/arch.h>

typedef void (*irq_handler_t)(unsigned irq);
void irq_init_cpu(void);
int request_irq(unsigned irq, irq_handler_t handler, const char *name);
void enable_irq(unsigned irq);
void disable_irq(unsigned irq);
void handle_irq(unsigned irq, struct pt_regs *regs);
void ack_irq(unsigned irq);
unsigned claim_irq(void);
void send_ipi(unsigned cpu);
void console_irq_init(void);
void console_tick(void);
#endif
