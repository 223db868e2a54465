/*
 * Signals: sending (kill, tkill, tgkill, faults, SIGPIPE, SIGCHLD), the
 * sigaction table and masks, and delivery on the way back to user mode.
 * Delivery implements the default actions (terminate, or ignore for
 * SIGCHLD), SIG_IGN, and user handlers: the arch code saves the interrupted
 * registers and mask in a frame on the user stack and enters the handler
 * with its return address set to the sa_restorer trampoline (SA_RESTORER
 * is required, as libcs always set it), whose rt_sigreturn restores them.
 * The frame layout is this kernel's own; handlers get (signo, siginfo *,
 * NULL) with si_signo set.
 */
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/sdt.h>
#include <kernel/syscall.h>

#define SIG_BIT(sig) (1ull << ((sig) - 1))
#define SIGCONT_ 18
#define SIGSTOP_ 19
#define UNBLOCKABLE (SIG_BIT(SIGKILL) | SIG_BIT(SIGSTOP_))
/* SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU: their default action stops the task. */
#define STOP_SIGNALS (SIG_BIT(SIGSTOP_) | SIG_BIT(20) | SIG_BIT(21) | SIG_BIT(22))

struct signal_struct *sighand_alloc(void)
{
	struct signal_struct *s = kzalloc(sizeof(*s));

	if (s)
		s->count = 1;
	return s;
}

struct signal_struct *sighand_dup(struct signal_struct *old)
{
	struct signal_struct *s = sighand_alloc();

	if (s && old)
		memcpy(s->action, old->action, sizeof(s->action));
	return s;
}

void sighand_put(struct signal_struct *s)
{
	if (s && --s->count == 0)
		kfree(s);
}

/* exec resets caught signals to the default, keeps ignored ones. */
void flush_signal_handlers(struct task_struct *t)
{
	for (int i = 0; i < 64; i++)
		if (t->sighand->action[i].handler > 1)
			memset(&t->sighand->action[i], 0, sizeof(t->sighand->action[i]));
}

static bool sig_default_ignored(int sig)
{
	/* SIGCONT's default action, continuing, is taken when it is sent. */
	return sig == SIGCHLD || sig == SIGCONT_ || sig == 23 /* SIGURG */ || sig == 28 /* SIGWINCH */;
}

static bool sig_ignored(struct task_struct *t, int sig)
{
	unsigned long handler;

	if (sig == SIGKILL || !t->sighand)
		return false;
	handler = t->sighand->action[sig - 1].handler;
	return handler == 1 || (handler == 0 && sig_default_ignored(sig));
}

bool signal_pending(struct task_struct *t)
{
	return (t->pending_signals & ~(t->blocked_signals & ~UNBLOCKABLE)) != 0;
}

int send_signal(struct task_struct *t, int sig)
{
	if (sig < 1 || sig > 64)
		return -EINVAL;
	if (t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
		return 0;
	DTRACE_PROC2(signal__send, struct task_struct *, t, int, sig);
	/* SIGCONT continues a stopped task, even when it is ignored or
	 * blocked, and cancels pending stops; a stop cancels a pending SIGCONT. */
	if (sig == SIGCONT_) {
		t->pending_signals &= ~STOP_SIGNALS;
		if (t->state == TASK_STOPPED)
			wake_up_process(t);
	} else if (SIG_BIT(sig) & STOP_SIGNALS) {
		t->pending_signals &= ~SIG_BIT(SIGCONT_);
	}
	if (sig_ignored(t, sig))
		return 0;
	t->pending_signals |= SIG_BIT(sig);
	if ((t->state == TASK_INTERRUPTIBLE && signal_pending(t)) || (t->state == TASK_STOPPED && sig == SIGKILL))
		wake_up_process(t);
	return 0;
}

/* What DTrace's raise() and stop() actions posted while the thread was in
 * probe context, sent now through the usual path (illumos posts them on the
 * way back to user mode too). raise() keeps one signal (a queue depth of 1). */
void dtrace_post_signals(struct task_struct *t)
{
	int sig = t->dtrace_sig;

	t->dtrace_sig = 0;
	if (sig)
		send_signal(t, sig);
	if (t->dtrace_stop) {
		t->dtrace_stop = false;
		send_signal(t, SIGSTOP_);
	}
}

/* A stopped process that DTrace grabbed (dtrace -p sets a stopped process
 * running, as its grab does): the host writes its pid here, and the next
 * clock tick continues it with SIGCONT through kill_pid. */
pid_t dtrace_continue_pid;

void dtrace_continue_grabbed(void)
{
	pid_t pid = dtrace_continue_pid;

	if (pid > 0) {
		dtrace_continue_pid = 0;
		kill_pid(pid, SIGCONT_);
	}
}

/* The default action of a stop signal: off the CPU until SIGCONT (or
 * SIGKILL) wakes it. */
static void do_signal_stop(struct task_struct *t)
{
	t->state = TASK_STOPPED;
	schedule();
}

/* A fault signal cannot be ignored or blocked: it terminates. */
/* A fault's signal (as Linux's force_sig_fault): a handler the program
 * installed runs; when the signal is blocked or ignored, the default action
 * (termination) applies instead. */
void force_sig_fault(int sig, unsigned long addr)
{
	struct task_struct *t = current;
	bool blocked = (t->blocked_signals & SIG_BIT(sig)) != 0;

	t->blocked_signals &= ~SIG_BIT(sig);
	if (t->sighand && (blocked || t->sighand->action[sig - 1].handler == 1))
		t->sighand->action[sig - 1].handler = 0;
	send_signal(t, sig);
}

/* A fault's signal with the si_code and si_addr its handler is told
 * (FPE_INTDIV and the address of the divide, for instance). */
void force_sig_fault_code(int sig, int code, unsigned long addr)
{
	current->fault_signo = sig;
	current->fault_code = code;
	current->fault_addr = addr;
	force_sig_fault(sig, addr);
}

/* The siginfo a handler gets: si_signo, and for the fault that was forced
 * si_code and si_addr (after si_signo, si_errno, si_code, at pointer
 * alignment: offset 16 on x86-64, 12 on ARM). */
void siginfo_fill(int32_t info[32], int sig)
{
	struct task_struct *t = current;

	info[0] = sig;
	if (t->fault_signo != sig)
		return;
	info[2] = t->fault_code;
	memcpy((char *)info + ALIGN_UP(3 * sizeof(int32_t), sizeof(void *)), &t->fault_addr, sizeof(void *));
	t->fault_signo = 0;
}

int kill_pid(pid_t pid, int sig)
{
	struct list_head *pos;
	int found = 0;

	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->is_idle || t->is_kthread || t->pid != t->tgid)
			continue;
		if ((pid > 0 && t->tgid == pid) || (pid == -1 && t != init_task && t->tgid != current->tgid) ||
		    (pid == 0 && t->tgid == current->tgid)) {
			found++;
			if (sig)
				send_signal(t, sig);
		}
	}
	return found ? 0 : -ESRCH;
}

/* Run the user handler of sig: one signal per return to user mode. */
static void handle_signal(struct pt_regs *regs, int sig, struct k_sigaction *ka)
{
	struct task_struct *t = current;

	if (!(ka->flags & SA_RESTORER) ||
	    arch_setup_signal_frame(regs, sig, ka, t->blocked_signals) < 0) {
		printk("%s[%d]: cannot deliver signal %d to its handler\n", t->comm, t->pid, sig);
		do_group_exit(SIGSEGV);
	}
	t->blocked_signals |= ka->mask;
	if (!(ka->flags & SA_NODEFER))
		t->blocked_signals |= SIG_BIT(sig);
	t->blocked_signals &= ~UNBLOCKABLE;
	if (ka->flags & SA_RESETHAND)
		ka->handler = 0;
}

void do_signal(struct pt_regs *regs)
{
	struct task_struct *t = current;
	uint64_t deliverable = t->pending_signals & ~(t->blocked_signals & ~UNBLOCKABLE);

	for (int sig = 1; sig <= 64; sig++) {
		struct k_sigaction *ka;

		if (!(deliverable & SIG_BIT(sig)))
			continue;
		t->pending_signals &= ~SIG_BIT(sig);
		if (sig_ignored(t, sig))
			continue;
		ka = &t->sighand->action[sig - 1];
		if (ka->handler > 1 && sig != SIGKILL) {
			handle_signal(regs, sig, ka);
			return;
		}
		if (SIG_BIT(sig) & STOP_SIGNALS) {
			do_signal_stop(t);
			return;
		}
		do_group_exit(sig);
	}
}

long sys_kill(long pid, long sig, long a2, long a3, long a4, long a5)
{
	if (sig < 0 || sig > 64)
		return -EINVAL;
	return kill_pid((pid_t)pid, (int)sig);
}

long sys_tgkill(long tgid, long tid, long sig, long a3, long a4, long a5)
{
	struct task_struct *t = find_task_by_pid((pid_t)tid);

	if (!t || (tgid > 0 && t->tgid != tgid))
		return -ESRCH;
	return sig ? send_signal(t, (int)sig) : 0;
}

long sys_tkill(long tid, long sig, long a2, long a3, long a4, long a5)
{
	return sys_tgkill(0, tid, sig, 0, 0, 0);
}

/* struct sigaction as the kernel ABI passes it: handler, flags, restorer,
 * then the 64-bit mask as an array of longs (so at offset 12 on ARM, where
 * a uint64_t member would be padded to 16). */
#define SIGSET_LONGS (64 / (8 * sizeof(unsigned long)))

struct user_sigaction {
	unsigned long handler;
	unsigned long flags;
	unsigned long restorer;
	unsigned long mask[SIGSET_LONGS];
};

static uint64_t sigset_from_user(const unsigned long *words)
{
	uint64_t set = 0;

	for (size_t i = 0; i < SIGSET_LONGS; i++)
		set |= (uint64_t)words[i] << (i * 8 * sizeof(unsigned long));
	return set;
}

static void sigset_to_user(uint64_t set, unsigned long *words)
{
	for (size_t i = 0; i < SIGSET_LONGS; i++)
		words[i] = (unsigned long)(set >> (i * 8 * sizeof(unsigned long)));
}

long sys_rt_sigaction(long sig, long uact, long uoldact, long sigsetsize, long a4, long a5)
{
	struct k_sigaction *ka;
	struct user_sigaction act;

	if (sig < 1 || sig > 64 || sig == SIGKILL || sig == 19)
		return -EINVAL;
	ka = &current->sighand->action[sig - 1];
	if (uoldact) {
		struct user_sigaction old = { ka->handler, ka->flags, ka->restorer, { 0 } };

		sigset_to_user(ka->mask, old.mask);
		if (copy_to_user((void *)uoldact, &old, sizeof(old)) < 0)
			return -EFAULT;
	}
	if (uact) {
		if (copy_from_user(&act, (void *)uact, sizeof(act)) < 0)
			return -EFAULT;
		ka->handler = act.handler;
		ka->flags = act.flags;
		ka->restorer = act.restorer;
		ka->mask = sigset_from_user(act.mask);
		if (sig_ignored(current, (int)sig))
			current->pending_signals &= ~SIG_BIT(sig);
	}
	return 0;
}

long sys_rt_sigprocmask(long how, long uset, long uold, long sigsetsize, long a4, long a5)
{
	uint64_t set;
	struct task_struct *t = current;

	if (uold && copy_to_user((void *)uold, &t->blocked_signals, sizeof(uint64_t)) < 0)
		return -EFAULT;
	if (!uset)
		return 0;
	if (copy_from_user(&set, (void *)uset, sizeof(set)) < 0)
		return -EFAULT;
	switch (how) {
	case 0: t->blocked_signals |= set; break;      /* SIG_BLOCK */
	case 1: t->blocked_signals &= ~set; break;     /* SIG_UNBLOCK */
	case 2: t->blocked_signals = set; break;       /* SIG_SETMASK */
	default: return -EINVAL;
	}
	t->blocked_signals &= ~UNBLOCKABLE;
	return 0;
}

long sys_rt_sigreturn(long a0, long a1, long a2, long a3, long a4, long a5)
{
	struct task_struct *t = current;
	uint64_t mask;
	long value;

	if (arch_restore_signal_frame(t->regs, &mask, &value) < 0) {
		force_sig_fault(SIGSEGV, regs_sp(t->regs));
		return 0;
	}
	t->blocked_signals = mask & ~UNBLOCKABLE;
	return value;
}

/* ARM's sigreturn, which C libraries' restorers call after a handler
 * installed without SA_SIGINFO (glibc's signal(), for one). This kernel
 * builds the same frame either way, so it is rt_sigreturn. */
long sys_sigreturn(long a0, long a1, long a2, long a3, long a4, long a5)
{
	return sys_rt_sigreturn(a0, a1, a2, a3, a4, a5);
}
