/*
 * poll, ppoll, select and pselect6: wait until descriptors are ready.
 *
 * Readiness comes from each file's poll operation (pipes, the console);
 * files without one (RAM files, directories, /dev/null ...) are always
 * readable and writable, as Linux's DEFAULT_POLLMASK says. Nothing wakes a
 * poller directly: it sleeps one timer tick (10 ms of virtual time) at a
 * time and looks again, so readiness is seen within a tick, deterministically.
 * A signal ends the wait with EINTR. ppoll's and pselect6's signal mask
 * holds while waiting and the caller's mask is back on return (Linux keeps
 * it until a handler has run; here a signal the old mask blocks stays
 * pending until unblocked).
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/time.h>

#define POLL_TICK_NS 10000000ull                 /* one timer tick */
#define DEFAULT_POLLMASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)
#define NO_DEADLINE (~0ull)

static unsigned file_poll(struct file *file)
{
	return file->f_op && file->f_op->poll ? file->f_op->poll(file) : DEFAULT_POLLMASK;
}

/* Sleep until the next look: one tick, or less if the deadline is nearer.
 * -EINTR if a signal came. */
static int poll_wait_a_tick(uint64_t deadline)
{
	uint64_t now = ktime_get_ns(), until = now + POLL_TICK_NS;

	if (deadline < until)
		until = deadline;
	return sleep_until(until);
}

/* Apply a temporary signal mask (ppoll, pselect6); returns the old one. */
static long swap_sigmask(long usigmask, long sigsetsize, uint64_t *old)
{
	uint64_t mask;

	*old = current->blocked_signals;
	if (!usigmask)
		return 0;
	if (sigsetsize != sizeof(uint64_t))
		return -EINVAL;
	if (copy_from_user(&mask, (void *)usigmask, sizeof(mask)) < 0)
		return -EFAULT;
	current->blocked_signals = mask & ~((1ull << (SIGKILL - 1)) | (1ull << (19 - 1)));
	return 0;
}

static uint64_t deadline_after(uint64_t ns)
{
	uint64_t now = ktime_get_ns();

	return ns > NO_DEADLINE - now ? NO_DEADLINE : now + ns;
}

/* ---- poll ---- */

#define POLL_MAX 64                               /* NR_OPEN descriptors */

static long do_poll(long ufds, long nfds, uint64_t deadline)
{
	struct pollfd fds[POLL_MAX];
	long ready;

	if (nfds < 0 || (uint64_t)nfds > current->group_leader->rlim[RLIMIT_NOFILE].rlim_cur ||
	    nfds > POLL_MAX)
		return -EINVAL;
	if (copy_from_user(fds, (void *)ufds, (size_t)nfds * sizeof(fds[0])) < 0)
		return -EFAULT;
	for (;;) {
		int err;

		ready = 0;
		for (long i = 0; i < nfds; i++) {
			struct file *file;
			unsigned mask;

			fds[i].revents = 0;
			if (fds[i].fd < 0)
				continue;
			file = fdget(fds[i].fd);
			if (!file) {
				fds[i].revents = POLLNVAL;
				ready++;
				continue;
			}
			mask = file_poll(file) & ((unsigned)(unsigned short)fds[i].events | POLLERR | POLLHUP);
			fds[i].revents = (short)mask;
			if (mask)
				ready++;
		}
		if (ready || ktime_get_ns() >= deadline)
			break;
		err = poll_wait_a_tick(deadline);
		if (err < 0)
			return err;
	}
	if (copy_to_user((void *)ufds, fds, (size_t)nfds * sizeof(fds[0])) < 0)
		return -EFAULT;
	return ready;
}

long sys_poll(long ufds, long nfds, long timeout_ms, long a3, long a4, long a5)
{
	int ms = (int)timeout_ms;

	return do_poll(ufds, nfds, ms < 0 ? NO_DEADLINE : deadline_after((uint64_t)ms * 1000000ull));
}

static long get_timespec_deadline(long uts, uint64_t *deadline)
{
	struct kernel_timespec ts;

	*deadline = NO_DEADLINE;
	if (!uts)
		return 0;
	if (copy_from_user(&ts, (void *)uts, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	*deadline = deadline_after((uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec);
	return 0;
}

/* What is left of a timeout, written back as Linux does for ppoll,
 * pselect6 and select. */
static void put_time_left(long uaddr, uint64_t deadline, bool timeval)
{
	uint64_t now = ktime_get_ns(), left = deadline > now ? deadline - now : 0;
	long v[2] = { (long)(left / NSEC_PER_SEC), (long)(left % NSEC_PER_SEC) };

	if (timeval)
		v[1] /= 1000;
	copy_to_user((void *)uaddr, v, sizeof(v));
}

long sys_ppoll(long ufds, long nfds, long uts, long usigmask, long sigsetsize, long a5)
{
	uint64_t deadline, old;
	long r = get_timespec_deadline(uts, &deadline);

	if (r < 0)
		return r;
	r = swap_sigmask(usigmask, sigsetsize, &old);
	if (r < 0)
		return r;
	r = do_poll(ufds, nfds, deadline);
	current->blocked_signals = old;
	if (uts)
		put_time_left(uts, deadline, false);
	return r;
}

/* ---- select ---- */

#define LONG_BITS (8 * sizeof(long))
#define SET_WORDS (POLL_MAX / LONG_BITS)

struct fd_sets {
	unsigned long in[SET_WORDS], out[SET_WORDS], ex[SET_WORDS];
};

static bool fd_isset(const unsigned long *set, int fd)
{
	return (set[fd / LONG_BITS] >> (fd % LONG_BITS)) & 1;
}

static long get_set(unsigned long *set, long uset, size_t bytes)
{
	memset(set, 0, SET_WORDS * sizeof(long));
	if (uset && copy_from_user(set, (void *)uset, bytes) < 0)
		return -EFAULT;
	return 0;
}

static long do_select(long nfds, long uin, long uout, long uex, uint64_t deadline)
{
	struct fd_sets want, got;
	size_t bytes;
	long ready;

	if (nfds < 0)
		return -EINVAL;
	if (nfds > POLL_MAX)
		nfds = POLL_MAX;    /* no descriptor above the table can be open */
	bytes = ALIGN_UP((size_t)nfds, LONG_BITS) / 8;
	if (get_set(want.in, uin, bytes) < 0 || get_set(want.out, uout, bytes) < 0 ||
	    get_set(want.ex, uex, bytes) < 0)
		return -EFAULT;
	for (int fd = 0; fd < nfds; fd++)
		if ((fd_isset(want.in, fd) || fd_isset(want.out, fd) || fd_isset(want.ex, fd)) && !fdget(fd))
			return -EBADF;
	for (;;) {
		int err;

		memset(&got, 0, sizeof(got));
		ready = 0;
		for (int fd = 0; fd < nfds; fd++) {
			unsigned long bit = 1ul << (fd % LONG_BITS);
			unsigned mask;

			if (!fd_isset(want.in, fd) && !fd_isset(want.out, fd) && !fd_isset(want.ex, fd))
				continue;
			mask = file_poll(fdget(fd));
			/* Linux's POLLIN_SET and POLLOUT_SET: a hung-up or failed
			 * descriptor is readable (and writable) so the read says why. */
			if (fd_isset(want.in, fd) && (mask & (POLLIN | POLLRDNORM | POLLHUP | POLLERR))) {
				got.in[fd / LONG_BITS] |= bit;
				ready++;
			}
			if (fd_isset(want.out, fd) && (mask & (POLLOUT | POLLWRNORM | POLLERR))) {
				got.out[fd / LONG_BITS] |= bit;
				ready++;
			}
			if (fd_isset(want.ex, fd) && (mask & POLLPRI)) {
				got.ex[fd / LONG_BITS] |= bit;
				ready++;
			}
		}
		if (ready || ktime_get_ns() >= deadline)
			break;
		err = poll_wait_a_tick(deadline);
		if (err < 0)
			return err;
	}
	if ((uin && copy_to_user((void *)uin, got.in, bytes) < 0) ||
	    (uout && copy_to_user((void *)uout, got.out, bytes) < 0) ||
	    (uex && copy_to_user((void *)uex, got.ex, bytes) < 0))
		return -EFAULT;
	return ready;
}

long sys_select(long nfds, long uin, long uout, long uex, long utv, long a5)
{
	struct kernel_timeval tv;
	uint64_t deadline = NO_DEADLINE;
	long r;

	if (utv) {
		if (copy_from_user(&tv, (void *)utv, sizeof(tv)) < 0)
			return -EFAULT;
		if (tv.tv_sec < 0 || tv.tv_usec < 0)
			return -EINVAL;
		deadline = deadline_after((uint64_t)tv.tv_sec * NSEC_PER_SEC + (uint64_t)tv.tv_usec * 1000ull);
	}
	r = do_select(nfds, uin, uout, uex, deadline);
	if (utv)
		put_time_left(utv, deadline, true);
	return r;
}

/* pselect6's sixth argument points at { const sigset_t *ss; size_t ss_len; }. */
long sys_pselect6(long nfds, long uin, long uout, long uex, long uts, long usig)
{
	unsigned long sig[2] = { 0, 0 };
	uint64_t deadline, old;
	long r = get_timespec_deadline(uts, &deadline);

	if (r < 0)
		return r;
	if (usig && copy_from_user(sig, (void *)usig, sizeof(sig)) < 0)
		return -EFAULT;
	r = swap_sigmask((long)sig[0], (long)sig[1], &old);
	if (r < 0)
		return r;
	r = do_select(nfds, uin, uout, uex, deadline);
	current->blocked_signals = old;
	if (uts)
		put_time_left(uts, deadline, false);
	return r;
}
