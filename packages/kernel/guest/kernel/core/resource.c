/*
 * Resource limits, accounting and interval timers: getrlimit, setrlimit,
 * prlimit64 (and ARM's ugetrlimit), times, getrusage, sysinfo,
 * sched_getaffinity, alarm, setitimer, getitimer, prctl's name options,
 * and rseq (answered as by a kernel built without it).
 *
 * Limits are kept per task, inherited at fork, reported and checked as
 * Linux checks them; RLIMIT_NOFILE's ceiling is the descriptor table's
 * size. CPU times are scheduler ticks (10 ms), which is also USER_HZ's
 * clock tick, so they need no conversion. ITIMER_REAL is checked on CPU 0's
 * tick: SIGALRM arrives on the first tick at or after the expiry.
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/time.h>

#define NSEC_PER_USEC 1000ull
#define USEC_PER_SEC 1000000ul

void rlimit_init(struct task_struct *t)
{
	for (int i = 0; i < RLIM_NLIMITS; i++)
		t->rlim[i].rlim_cur = t->rlim[i].rlim_max = RLIM64_INFINITY;
	t->rlim[RLIMIT_STACK].rlim_cur = 8ull << 20;
	t->rlim[RLIMIT_CORE].rlim_cur = 0;
	t->rlim[RLIMIT_NOFILE].rlim_cur = t->rlim[RLIMIT_NOFILE].rlim_max = NR_OPEN;
	t->rlim[8].rlim_cur = t->rlim[8].rlim_max = 8ull << 20;      /* MEMLOCK */
	t->rlim[12].rlim_cur = t->rlim[12].rlim_max = 819200;        /* MSGQUEUE */
	t->rlim[13].rlim_cur = t->rlim[13].rlim_max = 0;             /* NICE */
	t->rlim[14].rlim_cur = t->rlim[14].rlim_max = 0;             /* RTPRIO */
}

/* ---- limits ---- */

static struct task_struct *task_or_self(long pid)
{
	return pid == 0 ? current : find_task_by_pid((pid_t)pid);
}

static long do_prlimit(struct task_struct *t, unsigned resource, const struct rlimit64 *new,
		       struct rlimit64 *old)
{
	struct rlimit64 *lim;

	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	lim = &t->group_leader->rlim[resource];
	if (new) {
		if (new->rlim_cur > new->rlim_max)
			return -EINVAL;
		if (resource == RLIMIT_NOFILE && new->rlim_max > NR_OPEN)
			return -EPERM;
	}
	if (old)
		*old = *lim;
	if (new)
		*lim = *new;
	return 0;
}

long sys_prlimit64(long pid, long resource, long unew, long uold, long a4, long a5)
{
	struct task_struct *t = task_or_self(pid);
	struct rlimit64 new, old;
	long r;

	if (!t)
		return -ESRCH;
	if (unew && copy_from_user(&new, (void *)unew, sizeof(new)) < 0)
		return -EFAULT;
	r = do_prlimit(t, (unsigned)resource, unew ? &new : NULL, uold ? &old : NULL);
	if (r == 0 && uold && copy_to_user((void *)uold, &old, sizeof(old)) < 0)
		return -EFAULT;
	return r;
}

/* getrlimit/setrlimit use unsigned long: on ARM a value that does not fit
 * reads as RLIM_INFINITY (~0ul), and RLIM_INFINITY means infinity. */
static unsigned long rlim_to_ulong(uint64_t v)
{
	return v > (unsigned long)-1 ? (unsigned long)-1 : (unsigned long)v;
}

static uint64_t rlim_from_ulong(unsigned long v)
{
	return v == (unsigned long)-1 ? RLIM64_INFINITY : v;
}

long sys_getrlimit(long resource, long ulim, long a2, long a3, long a4, long a5)
{
	struct rlimit64 lim;
	unsigned long out[2];
	long r = do_prlimit(current, (unsigned)resource, NULL, &lim);

	if (r < 0)
		return r;
	out[0] = rlim_to_ulong(lim.rlim_cur);
	out[1] = rlim_to_ulong(lim.rlim_max);
	return copy_to_user((void *)ulim, out, sizeof(out)) < 0 ? -EFAULT : 0;
}

long sys_ugetrlimit(long resource, long ulim, long a2, long a3, long a4, long a5)
{
	return sys_getrlimit(resource, ulim, 0, 0, 0, 0);
}

long sys_setrlimit(long resource, long ulim, long a2, long a3, long a4, long a5)
{
	unsigned long in[2];
	struct rlimit64 lim;

	if (copy_from_user(in, (void *)ulim, sizeof(in)) < 0)
		return -EFAULT;
	lim.rlim_cur = rlim_from_ulong(in[0]);
	lim.rlim_max = rlim_from_ulong(in[1]);
	return do_prlimit(current, (unsigned)resource, &lim, NULL);
}

/* ---- accounting ---- */

struct cpu_ticks {
	uint64_t utime, stime;
};

/* A thread group's ticks: every live thread of it. */
static struct cpu_ticks group_ticks(pid_t tgid)
{
	struct cpu_ticks c = { 0, 0 };
	struct list_head *pos;

	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->tgid == tgid && !t->is_idle) {
			c.utime += t->utime_ticks;
			c.stime += t->stime_ticks;
		}
	}
	return c;
}

long sys_times(long ubuf, long a1, long a2, long a3, long a4, long a5)
{
	struct cpu_ticks self = group_ticks(current->tgid);
	struct task_struct *leader = current->group_leader;
	struct tms tms = { (long)self.utime, (long)self.stime, (long)leader->cutime_ticks,
			   (long)leader->cstime_ticks };

	if (ubuf && copy_to_user((void *)ubuf, &tms, sizeof(tms)) < 0)
		return -EFAULT;
	return (long)(ktime_get_ns() / (NSEC_PER_SEC / 100));
}

static struct kernel_timeval ticks_to_timeval(uint64_t ticks)
{
	struct kernel_timeval tv = { (long)(ticks / 100), (long)(ticks % 100 * 10000) };

	return tv;
}

long sys_getrusage(long who, long uru, long a2, long a3, long a4, long a5)
{
	struct rusage ru;
	struct cpu_ticks c;

	switch (who) {
	case RUSAGE_SELF:
		c = group_ticks(current->tgid);
		break;
	case RUSAGE_THREAD:
		c.utime = current->utime_ticks;
		c.stime = current->stime_ticks;
		break;
	case RUSAGE_CHILDREN:
		c.utime = current->group_leader->cutime_ticks;
		c.stime = current->group_leader->cstime_ticks;
		break;
	default:
		return -EINVAL;
	}
	memset(&ru, 0, sizeof(ru));
	ru.ru_utime = ticks_to_timeval(c.utime);
	ru.ru_stime = ticks_to_timeval(c.stime);
	if (who != RUSAGE_CHILDREN && current->mm)
		ru.ru_maxrss = (long)(current->mm->rss_pages * (PAGE_SIZE / 1024));
	return copy_to_user((void *)uru, &ru, sizeof(ru)) < 0 ? -EFAULT : 0;
}

long sys_sysinfo(long uinfo, long a1, long a2, long a3, long a4, long a5)
{
	struct sysinfo info;
	struct list_head *pos;
	unsigned procs = 0;

	memset(&info, 0, sizeof(info));
	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (!t->is_idle && t->state != TASK_DEAD)
			procs++;
	}
	info.uptime = (long)(ktime_get_ns() / NSEC_PER_SEC);
	info.totalram = nr_total_pages();
	info.freeram = nr_free_pages();
	info.procs = (unsigned short)procs;
	info.mem_unit = PAGE_SIZE;
	return copy_to_user((void *)uinfo, &info, sizeof(info)) < 0 ? -EFAULT : 0;
}

/* Every online CPU: tasks run anywhere. The mask is one unsigned long
 * (this kernel's nr_cpu_ids is at most NR_CPUS = 8). */
long sys_sched_getaffinity(long pid, long len, long umask, long a3, long a4, long a5)
{
	unsigned long mask = (1ul << nr_cpus_online) - 1;

	if (!task_or_self(pid))
		return -ESRCH;
	if ((unsigned long)len * 8 < nr_cpus_online || (len & (long)(sizeof(long) - 1)))
		return -EINVAL;
	if (copy_to_user((void *)umask, &mask, sizeof(mask)) < 0)
		return -EFAULT;
	return sizeof(mask);
}

/* ---- interval timers (ITIMER_REAL) ---- */

static struct kernel_timeval ns_to_timeval(uint64_t ns)
{
	struct kernel_timeval tv = { (long)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC / NSEC_PER_USEC) };

	return tv;
}

static void get_real_timer(struct task_struct *leader, struct itimerval *it)
{
	uint64_t now = ktime_get_ns();
	uint64_t left = leader->itimer_real_ns > now ? leader->itimer_real_ns - now : 0;

	/* An expired one-shot timer still armed waits for the tick: 1 us left. */
	if (leader->itimer_real_ns && left == 0)
		left = NSEC_PER_USEC;
	it->it_value = ns_to_timeval(leader->itimer_real_ns ? left : 0);
	it->it_interval = ns_to_timeval(leader->itimer_interval_ns);
}

static int timeval_to_ns(const struct kernel_timeval *tv, uint64_t *ns)
{
	if (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= (long)USEC_PER_SEC)
		return -EINVAL;
	*ns = (uint64_t)tv->tv_sec * NSEC_PER_SEC + (uint64_t)tv->tv_usec * NSEC_PER_USEC;
	return 0;
}

long sys_getitimer(long which, long uvalue, long a2, long a3, long a4, long a5)
{
	struct itimerval it;

	if (which != ITIMER_REAL)
		return -EINVAL;
	get_real_timer(current->group_leader, &it);
	return copy_to_user((void *)uvalue, &it, sizeof(it)) < 0 ? -EFAULT : 0;
}

long sys_setitimer(long which, long unew, long uold, long a3, long a4, long a5)
{
	struct task_struct *leader = current->group_leader;
	struct itimerval new, old;
	uint64_t value, interval;

	if (which != ITIMER_REAL)
		return -EINVAL;
	memset(&new, 0, sizeof(new));       /* NULL disarms, as Linux allows */
	if (unew && copy_from_user(&new, (void *)unew, sizeof(new)) < 0)
		return -EFAULT;
	if (timeval_to_ns(&new.it_value, &value) < 0 || timeval_to_ns(&new.it_interval, &interval) < 0)
		return -EINVAL;
	get_real_timer(leader, &old);
	leader->itimer_real_ns = value ? ktime_get_ns() + value : 0;
	leader->itimer_interval_ns = interval;
	if (uold && copy_to_user((void *)uold, &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

/* alarm(2): seconds left of the previous timer, rounded as Linux does. */
long sys_alarm(long seconds, long a1, long a2, long a3, long a4, long a5)
{
	struct task_struct *leader = current->group_leader;
	struct itimerval old;

	get_real_timer(leader, &old);
	leader->itimer_real_ns = seconds ? ktime_get_ns() + (uint64_t)(unsigned)seconds * NSEC_PER_SEC : 0;
	leader->itimer_interval_ns = 0;
	if ((!old.it_value.tv_sec && old.it_value.tv_usec) || old.it_value.tv_usec >= 500000)
		old.it_value.tv_sec++;
	return old.it_value.tv_sec;
}

/* CPU 0's tick: send SIGALRM for every real timer that has expired. */
void itimer_tick(uint64_t now)
{
	struct list_head *pos;

	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->group_leader != t || !t->itimer_real_ns || t->itimer_real_ns > now ||
		    t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
			continue;
		send_signal(t, SIGALRM);
		if (t->itimer_interval_ns) {
			t->itimer_real_ns += t->itimer_interval_ns;
			if (t->itimer_real_ns <= now)
				t->itimer_real_ns = now + t->itimer_interval_ns;
		} else {
			t->itimer_real_ns = 0;
		}
	}
}

/* ---- prctl, rseq ---- */

long sys_prctl(long option, long arg2, long a2, long a3, long a4, long a5)
{
	char name[TASK_COMM_LEN];
	long n;

	switch (option) {
	case PR_SET_NAME:
		n = strncpy_from_user(name, (const char *)arg2, sizeof(name));
		if (n < 0 && n != -ENAMETOOLONG)
			return n;
		name[sizeof(name) - 1] = '\0';
		memcpy(current->comm, name, sizeof(name));
		return 0;
	case PR_GET_NAME:
		return copy_to_user((void *)arg2, current->comm, sizeof(current->comm)) < 0 ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

/* Restartable sequences are not offered: ENOSYS, as from a kernel built
 * without CONFIG_RSEQ; glibc's startup then does without. */
long sys_rseq(long a0, long a1, long a2, long a3, long a4, long a5)
{
	return -ENOSYS;
}
