/*
 * x86-64 trap and interrupt dispatch: decodes the vector of a pt_regs frame
 * built by entry.S and hands it to the machine-independent handlers in
 * core/entry.c (IRQs, user faults, system calls).
 */
#include <kernel/arch.h>
#include <kernel/board.h>
#include <kernel/entry.h>
#include <kernel/irq.h>
#include <kernel/lib.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>

static const char *const exception_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow", "bound range",
	"invalid opcode", "device not available", "double fault", "coprocessor overrun",
	"invalid TSS", "segment not present", "stack fault", "general protection",
	"page fault", "reserved", "x87 error", "alignment check", "machine check",
	"SIMD error", "virtualization", "control protection",
};

static unsigned long read_cr2(void)
{
	unsigned long cr2;

	__asm__ __volatile__("movq %%cr2, %0" : "=r"(cr2));
	return cr2;
}

/* The signal a user-mode exception raises (as Linux chooses). */
static int exception_signal(unsigned vector)
{
	switch (vector) {
	case 0: return SIGFPE;
	case 1: case 3: return SIGTRAP;
	case 6: return SIGILL;
	case 16: case 19: return SIGFPE;
	case 17: return SIGBUS;
	default: return SIGSEGV;
	}
}

/* SIGFPE's si_code (Linux's fpu__exception_code): #DE is an integer
 * divide; for #MF (x87) and #XM (SSE) the first unmasked exception that
 * occurred, in Linux's order. The user's FPU state is live here. */
#define FPE_INTDIV 1
#define FPE_FLTDIV 3
#define FPE_FLTOVF 4
#define FPE_FLTUND 5
#define FPE_FLTRES 6
#define FPE_FLTINV 7

static int fpe_code(unsigned vector)
{
	unsigned err;

	if (vector == 0)
		return FPE_INTDIV;
	if (vector == 16) {
		uint16_t cw, sw;

		__asm__ __volatile__("fnstcw %0; fnstsw %1" : "=m"(cw), "=m"(sw));
		err = (unsigned)sw & ~(unsigned)cw;
	} else {
		uint32_t mxcsr;

		__asm__ __volatile__("stmxcsr %0" : "=m"(mxcsr));
		err = ~(mxcsr >> 7) & mxcsr;
	}
	if (err & 0x001)
		return FPE_FLTINV;
	if (err & 0x004)
		return FPE_FLTDIV;
	if (err & 0x008)
		return FPE_FLTOVF;
	if (err & 0x012)
		return FPE_FLTUND;
	if (err & 0x020)
		return FPE_FLTRES;
	return 0;
}

void trap_handler(struct pt_regs *regs)
{
	unsigned vector = (unsigned)regs->vector;
	bool user = regs_user_mode(regs);

	if (vector >= 32) {
		irq_entry(regs, vector - 32);
		return;
	}
	if (!user) {
		const char *name = vector < 32 && exception_names[vector] ? exception_names[vector] : "?";

		regs_dump(regs);
		panic("kernel %s (vector %u, error %#lx, cr2 %#lx) at %#lx", name, vector,
		      (unsigned long)regs->error_code, vector == 14 ? read_cr2() : 0ul,
		      (unsigned long)regs->rip);
	}
	user_entry(regs);
	if (vector == 14) {
		/* Error code: bit 0 present, bit 1 write, bit 4 instruction fetch. */
		unsigned long addr = read_cr2();

		do_user_fault(regs, addr, (regs->error_code & 2) != 0, (regs->error_code & 16) != 0);
	} else if (vector == 0 || vector == 16 || vector == 19) {
		int code = fpe_code(vector);

		/* A floating-point trap with no unmasked exception behind it is
		 * spurious: Linux ignores it too. */
		if (code)
			force_sig_fault_code(SIGFPE, code, regs->rip);
	} else {
		force_sig_fault(exception_signal(vector), regs->rip);
	}
	exit_to_user_mode(regs);
}

void syscall_handler(struct pt_regs *regs)
{
	user_entry(regs);
	do_syscall(regs);
	exit_to_user_mode(regs);
}

unsigned long regs_syscall_nr(const struct pt_regs *regs) { return regs->rax; }

unsigned long regs_syscall_arg(const struct pt_regs *regs, int n)
{
	switch (n) {
	case 0: return regs->rdi;
	case 1: return regs->rsi;
	case 2: return regs->rdx;
	case 3: return regs->r10;
	case 4: return regs->r8;
	default: return regs->r9;
	}
}

void regs_set_return(struct pt_regs *regs, long value) { regs->rax = (uint64_t)value; }
bool regs_user_mode(const struct pt_regs *regs) { return (regs->cs & 3) == 3; }
unsigned long regs_pc(const struct pt_regs *regs) { return regs->rip; }
unsigned long regs_sp(const struct pt_regs *regs) { return regs->rsp; }
unsigned long regs_frame_pointer(const struct pt_regs *regs) { return regs->rbp; }

void regs_dump(const struct pt_regs *regs)
{
	printk("RIP %016lx CS %04lx RFLAGS %08lx RSP %016lx SS %04lx\n",
	       (unsigned long)regs->rip, (unsigned long)regs->cs, (unsigned long)regs->rflags,
	       (unsigned long)regs->rsp, (unsigned long)regs->ss);
	printk("RAX %016lx RBX %016lx RCX %016lx RDX %016lx\n", (unsigned long)regs->rax,
	       (unsigned long)regs->rbx, (unsigned long)regs->rcx, (unsigned long)regs->rdx);
	printk("RSI %016lx RDI %016lx RBP %016lx R8  %016lx\n", (unsigned long)regs->rsi,
	       (unsigned long)regs->rdi, (unsigned long)regs->rbp, (unsigned long)regs->r8);
	printk("R9  %016lx R10 %016lx R11 %016lx R12 %016lx\n", (unsigned long)regs->r9,
	       (unsigned long)regs->r10, (unsigned long)regs->r11, (unsigned long)regs->r12);
	printk("R13 %016lx R14 %016lx R15 %016lx\n", (unsigned long)regs->r13,
	       (unsigned long)regs->r14, (unsigned long)regs->r15);
}
