/*
 * x86-64 signal frames. The frame sits below the interrupted stack pointer
 * (past the 128-byte red zone) so that at handler entry %rsp + 8 is 16-byte
 * aligned, as after a call:
 *
 *   %rsp -> restorer (return address of the handler)
 *           siginfo (128 bytes: si_signo; si_code, si_addr of faults) <- %rsi
 *           saved struct pt_regs
 *           saved signal mask
 *
 * The handler's `ret` pops the restorer address, so rt_sigreturn finds the
 * frame 8 bytes below the stack pointer it is called with.
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

struct signal_frame {
	uint64_t restorer;
	int32_t info[32];
	struct pt_regs saved;
	uint64_t saved_mask;
};

#define RED_ZONE 128
#define RFLAGS_USER_MASK 0x00000CD5ul   /* CF PF AF ZF SF DF OF */

long arch_setup_signal_frame(struct pt_regs *regs, int sig, const struct k_sigaction *ka,
			     uint64_t saved_mask)
{
	struct signal_frame frame;
	uint64_t sp = ((regs->rsp - RED_ZONE - sizeof(frame)) & ~15ul) - 8;

	memset(&frame, 0, sizeof(frame));
	frame.restorer = ka->restorer;
	siginfo_fill(frame.info, sig);
	frame.saved = *regs;
	frame.saved_mask = saved_mask;
	if (copy_to_user((void *)sp, &frame, sizeof(frame)) < 0)
		return -EFAULT;
	regs->rsp = sp;
	regs->rip = ka->handler;
	regs->rdi = (uint64_t)sig;
	regs->rsi = sp + offsetof(struct signal_frame, info);
	regs->rdx = 0;
	regs->rax = 0;
	regs->rflags &= ~0x100ul;      /* no single-stepping into the handler */
	return 0;
}

long arch_restore_signal_frame(struct pt_regs *regs, uint64_t *saved_mask, long *return_value)
{
	struct signal_frame frame;
	uint64_t frame_addr = regs->rsp - 8;
	uint64_t rflags;

	if (copy_from_user(&frame, (void *)frame_addr, sizeof(frame)) < 0)
		return -EFAULT;
	rflags = (regs->rflags & ~RFLAGS_USER_MASK) | (frame.saved.rflags & RFLAGS_USER_MASK);
	*regs = frame.saved;
	regs->cs = USER_CS;
	regs->ss = USER_DS;
	regs->rflags = rflags | 0x200;  /* interrupts stay enabled in user mode */
	*saved_mask = frame.saved_mask;
	*return_value = (long)frame.saved.rax;
	return 0;
}
