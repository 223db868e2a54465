/* Small system calls: identity (getpid and friends), uname, time, sleeping,
 * yielding, thread bookkeeping, random bytes, TLS and reboot. */
#include <kernel/board.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/time.h>

long sys_getpid(long a0, long a1, long a2, long a3, long a4, long a5) { return current->tgid; }
long sys_gettid(long a0, long a1, long a2, long a3, long a4, long a5) { return current->pid; }
long sys_getuid(long a0, long a1, long a2, long a3, long a4, long a5) { return 0; }
long sys_getgid(long a0, long a1, long a2, long a3, long a4, long a5) { return 0; }
long sys_geteuid(long a0, long a1, long a2, long a3, long a4, long a5) { return 0; }
long sys_getegid(long a0, long a1, long a2, long a3, long a4, long a5) { return 0; }

long sys_getppid(long a0, long a1, long a2, long a3, long a4, long a5)
{
	struct task_struct *leader = current->group_leader;

	return leader->parent ? leader->parent->tgid : 0;
}

/* Process groups and sessions are not modelled: every process is its own. */
long sys_setpgid(long pid, long pgid, long a2, long a3, long a4, long a5) { return 0; }
long sys_getpgrp(long a0, long a1, long a2, long a3, long a4, long a5) { return current->tgid; }
long sys_setsid(long a0, long a1, long a2, long a3, long a4, long a5) { return current->tgid; }

long sys_uname(long ubuf, long a1, long a2, long a3, long a4, long a5)
{
	struct utsname u;

	memset(&u, 0, sizeof(u));
	strcpy(u.sysname, "Linux");
	strcpy(u.nodename, "wdtrace");
	strcpy(u.release, "6.1.0-wdtrace");
	strcpy(u.version, "#1 SMP wdtrace guest kernel");
	strcpy(u.machine, arch_uname_machine);
	strcpy(u.domainname, "(none)");
	return copy_to_user((void *)ubuf, &u, sizeof(u)) < 0 ? -EFAULT : 0;
}

long sys_clock_gettime(long clock, long uts, long a2, long a3, long a4, long a5)
{
	uint64_t ns;
	struct kernel_timespec ts;

	switch (clock) {
	case CLOCK_REALTIME: ns = ktime_get_real_ns(); break;
	case CLOCK_MONOTONIC:
	case 4: /* CLOCK_MONOTONIC_RAW */
	case 7: /* CLOCK_BOOTTIME */
	case 2: /* CLOCK_PROCESS_CPUTIME_ID (approximated by uptime) */
	case 3: /* CLOCK_THREAD_CPUTIME_ID */
		ns = ktime_get_ns();
		break;
	default:
		return -EINVAL;
	}
	ts.tv_sec = (long)(ns / NSEC_PER_SEC);
	ts.tv_nsec = (long)(ns % NSEC_PER_SEC);
	return copy_to_user((void *)uts, &ts, sizeof(ts)) < 0 ? -EFAULT : 0;
}

/* time(2) (x86-64 only): seconds of CLOCK_REALTIME, also stored at ut when given. */
long sys_time(long ut, long a1, long a2, long a3, long a4, long a5)
{
	long s = (long)(ktime_get_real_ns() / NSEC_PER_SEC);

	if (ut && copy_to_user((void *)ut, &s, sizeof(s)) < 0)
		return -EFAULT;
	return s;
}

/* gettimeofday(2): CLOCK_REALTIME in microseconds; the timezone is UTC. */
long sys_gettimeofday(long utv, long utz, long a2, long a3, long a4, long a5)
{
	uint64_t ns = ktime_get_real_ns();
	struct { long tv_sec, tv_usec; } tv = { (long)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC / 1000) };
	int tz[2] = { 0, 0 };

	if (utv && copy_to_user((void *)utv, &tv, sizeof(tv)) < 0)
		return -EFAULT;
	if (utz && copy_to_user((void *)utz, tz, sizeof(tz)) < 0)
		return -EFAULT;
	return 0;
}

long sys_clock_getres(long clock, long uts, long a2, long a3, long a4, long a5)
{
	struct kernel_timespec ts = { 0, 1 };

	if (uts && copy_to_user((void *)uts, &ts, sizeof(ts)) < 0)
		return -EFAULT;
	return 0;
}

long sys_nanosleep(long ureq, long urem, long a2, long a3, long a4, long a5)
{
	struct kernel_timespec req;
	uint64_t start = ktime_get_ns(), end;

	if (copy_from_user(&req, (void *)ureq, sizeof(req)) < 0)
		return -EFAULT;
	if (req.tv_sec < 0 || req.tv_nsec < 0 || req.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	end = start + (uint64_t)req.tv_sec * NSEC_PER_SEC + (uint64_t)req.tv_nsec;
	if (sleep_until(end) < 0) {
		if (urem) {
			uint64_t left = end - ktime_get_ns();
			struct kernel_timespec rem = { (long)(left / NSEC_PER_SEC), (long)(left % NSEC_PER_SEC) };

			copy_to_user((void *)urem, &rem, sizeof(rem));
		}
		return -EINTR;
	}
	return 0;
}

/* clock_nanosleep(2): a relative or (TIMER_ABSTIME) absolute sleep on
 * CLOCK_REALTIME or CLOCK_MONOTONIC; the remaining time only for relative
 * sleeps, as Linux does. Errors are returned, not put in errno. */
long sys_clock_nanosleep(long clock, long flags, long ureq, long urem, long a4, long a5)
{
	struct kernel_timespec req;
	uint64_t now, end, base;

	if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC && clock != 7 /* CLOCK_BOOTTIME */)
		return -EINVAL;
	if (copy_from_user(&req, (void *)ureq, sizeof(req)) < 0)
		return -EFAULT;
	if (req.tv_sec < 0 || req.tv_nsec < 0 || req.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	now = ktime_get_ns();
	base = clock == CLOCK_REALTIME ? ktime_get_real_ns() : now;
	end = (uint64_t)req.tv_sec * NSEC_PER_SEC + (uint64_t)req.tv_nsec;
	if (flags & 1 /* TIMER_ABSTIME */)
		end = end > base ? now + (end - base) : now;
	else
		end += now;
	if (sleep_until(end) < 0) {
		if (urem && !(flags & 1)) {
			uint64_t left = end - ktime_get_ns();
			struct kernel_timespec rem = { (long)(left / NSEC_PER_SEC), (long)(left % NSEC_PER_SEC) };

			if (copy_to_user((void *)urem, &rem, sizeof(rem)) < 0)
				return -EFAULT;
		}
		return -EINTR;
	}
	return 0;
}

/* getpriority/setpriority(2): nice values of a thread (PRIO_PROCESS, who 0
 * = the caller), a process group (PRIO_PGRP: a process and its children
 * here, as the process group is the leader's tgid) or a user (PRIO_USER:
 * every task, all run as uid 0). getpriority returns 20 - nice, as the
 * Linux system call does (the libc turns it back). */
#define PRIO_PROCESS 0
#define PRIO_PGRP 1
#define PRIO_USER 2

static bool prio_matches(struct task_struct *t, long which, long who)
{
	if (t->is_idle || t->is_kthread || t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
		return false;
	switch (which) {
	case PRIO_PROCESS: return t->pid == (who ? who : current->pid);
	case PRIO_PGRP: return t->tgid == (who ? who : current->tgid);
	default: return who == 0;
	}
}

long sys_getpriority(long which, long who, long a2, long a3, long a4, long a5)
{
	struct list_head *pos;
	int best = 40;
	bool found = false;

	if (which < PRIO_PROCESS || which > PRIO_USER)
		return -EINVAL;
	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (prio_matches(t, which, who)) {
			found = true;
			if (t->nice < best)
				best = t->nice;
		}
	}
	return found ? 20 - best : -ESRCH;
}

long sys_setpriority(long which, long who, long prio, long a3, long a4, long a5)
{
	struct list_head *pos;
	bool found = false;

	if (which < PRIO_PROCESS || which > PRIO_USER)
		return -EINVAL;
	if (prio < -20)
		prio = -20;
	if (prio > 19)
		prio = 19;
	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (prio_matches(t, which, who)) {
			found = true;
			t->nice = (int)prio;
		}
	}
	return found ? 0 : -ESRCH;
}

long sys_sched_yield(long a0, long a1, long a2, long a3, long a4, long a5)
{
	yield();
	return 0;
}

long sys_set_tid_address(long tidptr, long a1, long a2, long a3, long a4, long a5)
{
	current->clear_child_tid = (unsigned long)tidptr;
	return current->pid;
}

long sys_set_robust_list(long head, long len, long a2, long a3, long a4, long a5)
{
	return 0;
}

/* Deterministic "random" bytes: runs must be reproducible. */
long sys_getrandom(long ubuf, long len, long flags, long a3, long a4, long a5)
{
	static uint64_t state = 0x853c49e6748fea9bull;
	uint8_t chunk[64];
	long done = 0;

	while (done < len) {
		long n = MIN(len - done, (long)sizeof(chunk));

		for (long i = 0; i < n; i++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			chunk[i] = (uint8_t)(state >> 56);
		}
		if (copy_to_user((char *)ubuf + done, chunk, (size_t)n) < 0)
			return -EFAULT;
		done += n;
	}
	return done;
}

long sys_arch_prctl(long code, long addr, long a2, long a3, long a4, long a5)
{
	return arch_prctl_call(current, (int)code, (unsigned long)addr);
}

long sys_set_tls(long value, long a1, long a2, long a3, long a4, long a5)
{
	return arch_set_tls(current, (unsigned long)value);
}

/* reboot(2): only power-off; the 4th argument is the exit status the
 * machine reports (Linux ignores it for this command). */
long sys_reboot(long magic1, long magic2, long cmd, long arg, long a4, long a5)
{
	if ((unsigned long)magic1 != LINUX_REBOOT_MAGIC1 || magic2 != LINUX_REBOOT_MAGIC2)
		return -EINVAL;
	if ((unsigned long)cmd != LINUX_REBOOT_CMD_POWER_OFF && (unsigned)cmd != 0x4321FEDCu)
		return -EINVAL;
	board_poweroff((int)arg);
}
