/* The board interrupt controller: per-CPU enable masks, acknowledge/claim,
 * inter-processor interrupts, and the table of IRQ handlers. */
#include <kernel/board.h>
#include <kernel/irq.h>
#include <kernel/lib.h>
#include <kernel/sched.h>

#define NR_IRQS 32

struct irq_desc {
	irq_handler_t handler;
	const char *name;
	unsigned long count;
};

static struct irq_desc irq_table[NR_IRQS];

int request_irq(unsigned irq, irq_handler_t handler, const char *name)
{
	if (irq >= NR_IRQS)
		return -EINVAL;
	if (irq_table[irq].handler)
		return -EBUSY;
	irq_table[irq].handler = handler;
	irq_table[irq].name = name;
	return 0;
}

void enable_irq(unsigned irq)
{
	board_write32(INTC_BASE + INTC_ENABLE, board_read32(INTC_BASE + INTC_ENABLE) | (1u << irq));
}

void disable_irq(unsigned irq)
{
	board_write32(INTC_BASE + INTC_ENABLE, board_read32(INTC_BASE + INTC_ENABLE) & ~(1u << irq));
}

void ack_irq(unsigned irq)
{
	board_write32(INTC_BASE + INTC_ACK, 1u << irq);
}

unsigned claim_irq(void)
{
	return board_read32(INTC_BASE + INTC_CLAIM);
}

void send_ipi(unsigned cpu)
{
	board_write32(INTC_BASE + INTC_IPI_SEND, 1u << cpu);
}

static void ipi_interrupt(unsigned irq)
{
	/* Only a wake-up: the caller wants this CPU to look at the run queue. */
	current->need_resched = true;
}

void handle_irq(unsigned irq, struct pt_regs *regs)
{
	struct irq_desc *desc;

	if (irq >= NR_IRQS) {
		printk("intc: spurious interrupt %u\n", irq);
		return;
	}
	desc = &irq_table[irq];
	desc->count++;
	if (desc->handler)
		desc->handler(irq);
	else
		printk("intc: unhandled interrupt %u\n", irq);
}

/* Enable this CPU's timer and IPI lines (lines enabled earlier, such as the
 * console's on CPU 0, stay enabled). */
void irq_init_cpu(void)
{
	if (!irq_table[IRQ_IPI].handler)
		request_irq(IRQ_IPI, ipi_interrupt, "ipi");
	enable_irq(IRQ_TIMER);
	enable_irq(IRQ_IPI);
}
