/*
 * sigaction(2) and friends over rt_sigaction/rt_sigprocmask. The kernel
 * requires SA_RESTORER; the trampoline __restore_rt (syscall.S of each ISA)
 * calls rt_sigreturn when a handler returns.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#define SA_RESTORER 0x04000000ul
#define SIGSET_LONGS (64 / (8 * sizeof(unsigned long)))

void __restore_rt(void);

struct kernel_sigaction {
	unsigned long handler;
	unsigned long flags;
	unsigned long restorer;
	unsigned long mask[SIGSET_LONGS];
};

#if defined(__x86_64__)
enum { NR_rt_sigaction = 13, NR_rt_sigprocmask = 14 };
#else
enum { NR_rt_sigaction = 174, NR_rt_sigprocmask = 175 };
#endif

static long result(long r)
{
	if (r < 0 && r >= -4095) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static void to_words(sigset_t set, unsigned long *words)
{
	for (size_t i = 0; i < SIGSET_LONGS; i++)
		words[i] = (unsigned long)(set >> (i * 8 * sizeof(unsigned long)));
}

static sigset_t from_words(const unsigned long *words)
{
	sigset_t set = 0;

	for (size_t i = 0; i < SIGSET_LONGS; i++)
		set |= (sigset_t)words[i] << (i * 8 * sizeof(unsigned long));
	return set;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct kernel_sigaction kact, kold;
	long r;

	if (act) {
		kact.handler = (unsigned long)act->sa_handler;
		kact.flags = act->sa_flags | SA_RESTORER;
		kact.restorer = (unsigned long)__restore_rt;
		to_words(act->sa_mask, kact.mask);
	}
	r = result(__syscall(NR_rt_sigaction, sig, act ? (long)&kact : 0, old ? (long)&kold : 0, 8, 0, 0));
	if (r == 0 && old) {
		old->sa_handler = (sighandler_t)kold.handler;
		old->sa_flags = kold.flags & ~SA_RESTORER;
		old->sa_mask = from_words(kold.mask);
	}
	return (int)r;
}

sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act = { handler, 0, SA_RESTART }, old;

	if (sigaction(sig, &act, &old) < 0)
		return (sighandler_t)-1;
	return old.sa_handler;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	unsigned long kset[SIGSET_LONGS], kold[SIGSET_LONGS];
	long r;

	if (set)
		to_words(*set, kset);
	r = result(__syscall(NR_rt_sigprocmask, how, set ? (long)kset : 0, old ? (long)kold : 0, 8, 0, 0));
	if (r == 0 && old)
		*old = from_words(kold);
	return (int)r;
}

static int bad_signal(int sig)
{
	if (sig < 1 || sig > 64) {
		errno = EINVAL;
		return 1;
	}
	return 0;
}

int sigemptyset(sigset_t *set) { *set = 0; return 0; }
int sigfillset(sigset_t *set) { *set = ~(sigset_t)0; return 0; }
int sigaddset(sigset_t *set, int sig)
{
	if (bad_signal(sig))
		return -1;
	*set |= (sigset_t)1 << (sig - 1);
	return 0;
}
int sigdelset(sigset_t *set, int sig)
{
	if (bad_signal(sig))
		return -1;
	*set &= ~((sigset_t)1 << (sig - 1));
	return 0;
}
int sigismember(const sigset_t *set, int sig)
{
	if (bad_signal(sig))
		return -1;
	return (int)((*set >> (sig - 1)) & 1);
}
