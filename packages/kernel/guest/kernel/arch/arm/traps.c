/*
 * ARM exception dispatch: entry.S calls arm_exception with the saved frame
 * and the vector that was taken; this decodes the fault registers and hands
 * off to the machine-independent handlers (core/entry.c).
 */
#include <kernel/arch.h>
#include <kernel/board.h>
#include <kernel/entry.h>
#include <kernel/irq.h>
#include <kernel/lib.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>

enum { EXC_RESET, EXC_UNDEF, EXC_SVC, EXC_PABT, EXC_DABT, EXC_UNUSED, EXC_IRQ, EXC_FIQ };

static const char *const exception_names[] = {
	"reset", "undefined instruction", "supervisor call", "prefetch abort",
	"data abort", "unused vector", "IRQ", "FIQ",
};

static uint32_t read_dfsr(void) { uint32_t v; __asm__ __volatile__("mrc p15, 0, %0, c5, c0, 0" : "=r"(v)); return v; }
static uint32_t read_dfar(void) { uint32_t v; __asm__ __volatile__("mrc p15, 0, %0, c6, c0, 0" : "=r"(v)); return v; }
static uint32_t read_ifar(void) { uint32_t v; __asm__ __volatile__("mrc p15, 0, %0, c6, c0, 2" : "=r"(v)); return v; }
static uint32_t read_ifsr(void) { uint32_t v; __asm__ __volatile__("mrc p15, 0, %0, c5, c0, 1" : "=r"(v)); return v; }

#define FS_DEBUG_EVENT 0x2   /* IFSR after a bkpt (B3.13.3): no IFAR, nothing to page in */

/* DFSR/IFSR fault status (short-descriptor format): FS[4] is bit 10. */
static unsigned fault_status(uint32_t fsr)
{
	return (fsr & 0xF) | ((fsr >> 6) & 0x10);
}

/* The instruction an exception is about. The saved pc is where execution
 * resumes: after an undefined instruction or svc, lr is the next
 * instruction (B1.8.3); the aborts' entry code already wound it back. */
static uint32_t fault_pc(const struct pt_regs *regs, unsigned kind)
{
	return kind == EXC_UNDEF || kind == EXC_SVC ? regs->pc - 4 : regs->pc;
}

void arm_exception(struct pt_regs *regs, unsigned kind)
{
	bool user = regs_user_mode(regs);

	if (kind == EXC_IRQ) {
		irq_entry(regs, IRQ_NONE);
		return;
	}
	if (kind == EXC_SVC && user) {
		user_entry(regs);
		do_syscall(regs);
		exit_to_user_mode(regs);
		return;
	}
	if (!user) {
		regs_dump(regs);
		panic("kernel %s at %#x (DFSR %#x DFAR %#x)", exception_names[kind & 7],
		      fault_pc(regs, kind), read_dfsr(), read_dfar());
	}
	user_entry(regs);
	switch (kind) {
	case EXC_DABT: {
		uint32_t fsr = read_dfsr();
		unsigned fs = fault_status(fsr);

		if (fs == 0x1)   /* alignment fault */
			force_sig_fault(SIGBUS, read_dfar());
		else
			do_user_fault(regs, read_dfar(), (fsr & (1u << 11)) != 0, false);
		break;
	}
	case EXC_PABT:
		if (fault_status(read_ifsr()) == FS_DEBUG_EVENT)
			force_sig_fault(SIGTRAP, regs->pc);   /* bkpt, as Linux reports it */
		else
			do_user_fault(regs, read_ifar(), false, true);
		break;
	case EXC_UNDEF:
		force_sig_fault(SIGILL, fault_pc(regs, kind));
		break;
	default:
		force_sig_fault(SIGSEGV, regs->pc);
		break;
	}
	exit_to_user_mode(regs);
}

unsigned long regs_syscall_nr(const struct pt_regs *regs) { return regs->r[7]; }
unsigned long regs_syscall_arg(const struct pt_regs *regs, int n) { return regs->r[n]; }
void regs_set_return(struct pt_regs *regs, long value) { regs->r[0] = (uint32_t)value; }
bool regs_user_mode(const struct pt_regs *regs) { return (regs->cpsr & PSR_MODE_MASK) == PSR_MODE_USR; }
unsigned long regs_pc(const struct pt_regs *regs) { return regs->pc; }
unsigned long regs_sp(const struct pt_regs *regs) { return regs->sp_usr; }
unsigned long regs_frame_pointer(const struct pt_regs *regs) { return regs->r[11]; }

void regs_dump(const struct pt_regs *regs)
{
	for (int i = 0; i < 13; i += 4)
		printk("r%-2d %08x r%-2d %08x r%-2d %08x r%-2d %08x\n", i, regs->r[i], i + 1,
		       i + 1 < 13 ? regs->r[i + 1] : 0, i + 2, i + 2 < 13 ? regs->r[i + 2] : 0, i + 3,
		       i + 3 < 13 ? regs->r[i + 3] : 0);
	printk("sp_usr %08x lr_usr %08x lr_svc %08x pc %08x cpsr %08x\n", regs->sp_usr,
	       regs->lr_usr, regs->lr_svc, regs->pc, regs->cpsr);
}
