/* Signals: kill(2), sigaction(2), sigprocmask(2) and the numbers. */
#ifndef _SIGNAL_H
#define _SIGNAL_H
#include <sys/types.h>
#include <uapi/abi.h>

typedef uint64_t sigset_t;
typedef void (*sighandler_t)(int);

/* The libc's struct sigaction; sigaction() converts it to the kernel's
 * layout and supplies the sa_restorer trampoline. */
struct sigaction {
	sighandler_t sa_handler;
	sigset_t sa_mask;
	unsigned long sa_flags;
};

#define SA_NODEFER   0x40000000ul
#define SA_RESETHAND 0x80000000ul
#define SA_RESTART   0x10000000ul

#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

int kill(pid_t pid, int sig);
int raise(int sig);
int sigaction(int sig, const struct sigaction *act, struct sigaction *old);
sighandler_t signal(int sig, sighandler_t handler);
int sigprocmask(int how, const sigset_t *set, sigset_t *old);
int sigemptyset(sigset_t *set);
int sigfillset(sigset_t *set);
int sigaddset(sigset_t *set, int sig);
int sigdelset(sigset_t *set, int sig);
int sigismember(const sigset_t *set, int sig);
#endif
