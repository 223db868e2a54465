/*
 * ARM signal frames. The frame sits below the interrupted stack pointer,
 * 8-byte aligned; the handler runs with r0 = signal, r1 = &siginfo, r2 = 0,
 * sp = the frame and lr = sa_restorer. The restorer calls rt_sigreturn with
 * sp unchanged, so the frame is found at sp.
 *
 *   sp -> siginfo (128 bytes, si_signo set)
 *         saved struct pt_regs
 *         saved signal mask
 *         saved VFP registers d0-d15, FPSCR (the handler may use them)
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

struct signal_frame {
	int32_t info[32];
	struct pt_regs saved;
	uint64_t saved_mask;
	uint64_t vfp_d[16];
	uint32_t fpscr;
	uint32_t pad;
};

#define PSR_USER_FLAGS 0xFE0FFC00u   /* N Z C V Q, the IT state and GE bits */

long arch_setup_signal_frame(struct pt_regs *regs, int sig, const struct k_sigaction *ka,
			     uint64_t saved_mask)
{
	struct signal_frame frame;
	uint32_t sp = (regs->sp_usr - (uint32_t)sizeof(frame)) & ~7u;

	memset(&frame, 0, sizeof(frame));
	frame.info[0] = sig;
	frame.saved = *regs;
	frame.saved_mask = saved_mask;
	arm_vfp_store(frame.vfp_d, &frame.fpscr);
	if (copy_to_user((void *)(uintptr_t)sp, &frame, sizeof(frame)) < 0)
		return -EFAULT;
	regs->sp_usr = sp;
	regs->r[0] = (uint32_t)sig;
	regs->r[1] = sp + (uint32_t)offsetof(struct signal_frame, info);
	regs->r[2] = 0;
	regs->lr_usr = (uint32_t)ka->restorer;
	regs->pc = (uint32_t)ka->handler & ~1u;
	regs->cpsr = PSR_MODE_USR | ((ka->handler & 1) ? PSR_T_BIT : 0);
	return 0;
}

long arch_restore_signal_frame(struct pt_regs *regs, uint64_t *saved_mask, long *return_value)
{
	struct signal_frame frame;

	if (copy_from_user(&frame, (void *)(uintptr_t)regs->sp_usr, sizeof(frame)) < 0)
		return -EFAULT;
	*regs = frame.saved;
	/* Only the condition flags, the IT state and the Thumb bit come from user memory. */
	regs->cpsr = PSR_MODE_USR | (frame.saved.cpsr & (PSR_USER_FLAGS | PSR_T_BIT));
	*saved_mask = frame.saved_mask;
	arm_vfp_load(frame.vfp_d, frame.fpscr);
	*return_value = (long)frame.saved.r[0];
	return 0;
}
