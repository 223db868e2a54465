/*
 * sysprobe: calls the file-attribute, link, limit, accounting and timer
 * system calls the way programs do and prints what each returned, one line
 * per check, so a test can hold the kernel to Linux's results (values and
 * errno) on both ISAs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
#if defined(__x86_64__)
#define SYSCALL(name, x86, arm, nargs) NR_##name = x86,
#else
#define SYSCALL(name, x86, arm, nargs) NR_##name = arm,
#endif
#include <uapi/syscalls.h>
#undef SYSCALL
};

static const char usage[] =
	"usage: sysprobe [GROUP...]\n"
	"Calls system calls as programs do and prints each result (the value, or\n"
	"-1 and the errno name). Groups: proc links attrs size at limits acct\n"
	"timers poll misc, and fpe on x86-64; all of them when none is given.\n";

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EBADF: return "EBADF";
	case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case ELOOP: return "ELOOP";
	default: return "E?";
	}
}

/* Print "what = value" or "what = -1 ENAME". */
static void show(const char *what, long r)
{
	if (r == -1)
		printf("%s = -1 %s\n", what, errname(errno));
	else
		printf("%s = %ld\n", what, r);
}

#if defined(__x86_64__)
#define NR_getrlimit_or_ugetrlimit NR_getrlimit
#else
#define NR_getrlimit_or_ugetrlimit NR_ugetrlimit
#endif

static long sc(long nr, long a, long b, long c, long d, long e)
{
	return syscall(nr, a, b, c, d, e, 0L);
}

static int atoi_pid(const char *s)
{
	int v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static void group_proc(void)
{
	char buf[512], path[64];
	long n = sc(NR_readlink, (long)"/proc/self/exe", (long)buf, sizeof(buf), 0, 0);
	int pid;

	printf("exe = %.*s\n", n > 0 ? (int)n : 0, buf);
	n = sc(NR_readlink, (long)"/proc/self", (long)buf, sizeof(buf), 0, 0);
	buf[n > 0 ? n : 0] = '\0';
	printf("self is getpid: %s\n", n > 0 && atoi_pid(buf) == getpid() ? "yes" : "no");
	read_file("/proc/self/stat", buf, sizeof(buf));
	pid = atoi_pid(buf);
	printf("stat pid is getpid: %s, comm %.*s\n", pid == getpid() ? "yes" : "no",
	       (int)(strchr(buf, ')') ? strchr(buf, ')') - strchr(buf, '(') + 1 : 0), strchr(buf, '('));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", getpid());
	{
		int fd = open(path, O_RDONLY);
		ssize_t len = read(fd, buf, sizeof(buf));

		close(fd);
		for (ssize_t i = 0; i < len; i++)
			if (buf[i] == '\0')
				buf[i] = '|';
		printf("cmdline = %.*s\n", (int)len, buf);
	}
	show("readlink short buffer", sc(NR_readlink, (long)"/proc/self/exe", (long)buf, 4, 0, 0));
	show("readlink not a link", sc(NR_readlink, (long)"/proc/self/stat", (long)buf, sizeof(buf), 0, 0));
	show("readlink size 0", sc(NR_readlink, (long)"/proc/self/exe", (long)buf, 0, 0, 0));
	show("open /proc/999/stat", open("/proc/999/stat", O_RDONLY));
}

static void show_stat(const char *what, const char *path, int follow)
{
	struct stat st;
	int r = follow ? stat(path, &st) : lstat(path, &st);

	if (r < 0)
		printf("%s = -1 %s\n", what, errname(errno));
	else
		printf("%s: mode %o nlink %u uid %u gid %u size %ld\n", what, (unsigned)st.st_mode,
		       (unsigned)st.st_nlink, (unsigned)st.st_uid, (unsigned)st.st_gid, (long)st.st_size);
}

static void group_links(void)
{
	char buf[64];
	int fd = open("/tmp/sp.file", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	long n;

	write(fd, "hello\n", 6);
	close(fd);
	show("symlink", sc(NR_symlink, (long)"sp.file", (long)"/tmp/sp.link", 0, 0, 0));
	show("symlink again", sc(NR_symlink, (long)"sp.file", (long)"/tmp/sp.link", 0, 0, 0));
	n = sc(NR_readlink, (long)"/tmp/sp.link", (long)buf, sizeof(buf), 0, 0);
	printf("readlink = %ld %.*s\n", n, n > 0 ? (int)n : 0, buf);
	show_stat("lstat link", "/tmp/sp.link", 0);
	show_stat("stat link", "/tmp/sp.link", 1);
	read_file("/tmp/sp.link", buf, sizeof(buf));
	printf("read through link = %s", buf);
	show("symlink loop", sc(NR_symlink, (long)"sp.loop", (long)"/tmp/sp.loop", 0, 0, 0));
	show("open loop", open("/tmp/sp.loop", O_RDONLY));
	show("symlink dangling", sc(NR_symlink, (long)"/nonexistent", (long)"/tmp/sp.dangle", 0, 0, 0));
	show("open dangling", open("/tmp/sp.dangle", O_RDONLY));
	show("link", sc(NR_link, (long)"/tmp/sp.file", (long)"/tmp/sp.hard", 0, 0, 0));
	show_stat("stat hard link", "/tmp/sp.hard", 1);
	show("link existing", sc(NR_link, (long)"/tmp/sp.file", (long)"/tmp/sp.hard", 0, 0, 0));
	show("link directory", sc(NR_link, (long)"/tmp", (long)"/tmp/sp.dir", 0, 0, 0));
	show("unlink file", unlink("/tmp/sp.file"));
	read_file("/tmp/sp.hard", buf, sizeof(buf));
	printf("read hard link = %s", buf);
	show("open via dangling link now", open("/tmp/sp.link", O_RDONLY));
	show("readlink missing", sc(NR_readlink, (long)"/tmp/nothing", (long)buf, sizeof(buf), 0, 0));
	unlink("/tmp/sp.link");
	unlink("/tmp/sp.loop");
	unlink("/tmp/sp.dangle");
	unlink("/tmp/sp.hard");
}

static void group_attrs(void)
{
	struct stat st;
	long times[4] = { 1000000000, 500000000, 1700000000, 250000000 };
	int fd = open("/tmp/sp.attr", O_CREAT | O_WRONLY | O_TRUNC, 0644);

	show("chmod", sc(NR_chmod, (long)"/tmp/sp.attr", 0600, 0, 0, 0));
	show_stat("after chmod", "/tmp/sp.attr", 1);
	show("fchmod", sc(NR_fchmod, fd, 04751, 0, 0, 0));
	show_stat("after fchmod", "/tmp/sp.attr", 1);
	show("fchmodat", sc(NR_fchmodat, AT_FDCWD, (long)"/tmp/sp.attr", 0640, 0, 0));
	show("chown", sc(NR_chown, (long)"/tmp/sp.attr", 12, 34, 0, 0));
	show_stat("after chown", "/tmp/sp.attr", 1);
	show("fchown keep uid", sc(NR_fchown, fd, -1, 56, 0, 0));
	show_stat("after fchown", "/tmp/sp.attr", 1);
	show("chmod missing", sc(NR_chmod, (long)"/tmp/none", 0600, 0, 0, 0));
	show("fchmod bad fd", sc(NR_fchmod, 99, 0600, 0, 0, 0));
	show("utimensat", sc(NR_utimensat, AT_FDCWD, (long)"/tmp/sp.attr", (long)times, 0, 0));
	stat("/tmp/sp.attr", &st);
	printf("atime %ld.%09ld mtime %ld.%09ld\n", (long)st.st_atime_sec, (long)st.st_atime_nsec,
	       (long)st.st_mtime_sec, (long)st.st_mtime_nsec);
	times[1] = UTIME_OMIT;
	times[2] = 5;
	times[3] = 0;
	show("utimensat omit atime", sc(NR_utimensat, AT_FDCWD, (long)"/tmp/sp.attr", (long)times, 0, 0));
	stat("/tmp/sp.attr", &st);
	printf("atime %ld mtime %ld\n", (long)st.st_atime_sec, (long)st.st_mtime_sec);
	times[3] = 1000000000;
	show("utimensat bad nsec", sc(NR_utimensat, AT_FDCWD, (long)"/tmp/sp.attr", (long)times, 0, 0));
	{
		struct statx stx;

		show("statx", sc(NR_statx, AT_FDCWD, (long)"/tmp/sp.attr", 0, STATX_BASIC_STATS, (long)&stx));
		printf("statx: mask %#x mode %o uid %u gid %u size %llu mtime %lld.%09u\n", stx.stx_mask,
		       (unsigned)stx.stx_mode, stx.stx_uid, stx.stx_gid, (unsigned long long)stx.stx_size,
		       (long long)stx.stx_mtime.tv_sec, stx.stx_mtime.tv_nsec);
		show("statx AT_EMPTY_PATH", sc(NR_statx, fd, (long)"", AT_EMPTY_PATH, STATX_BASIC_STATS, (long)&stx));
		printf("statx of the fd: mode %o\n", (unsigned)stx.stx_mode);
		show("statx bad flags", sc(NR_statx, AT_FDCWD, (long)"/tmp/sp.attr", 0x8000, 0, (long)&stx));
		show("statx reserved mask", sc(NR_statx, AT_FDCWD, (long)"/tmp/sp.attr", 0, (long)STATX__RESERVED, (long)&stx));
		show("statx missing", sc(NR_statx, AT_FDCWD, (long)"/tmp/none", 0, STATX_BASIC_STATS, (long)&stx));
	}
	show("utimensat bad flags", sc(NR_utimensat, AT_FDCWD, (long)"/tmp/sp.attr", 0, 1, 0));
	close(fd);
	unlink("/tmp/sp.attr");
}

static void group_size(void)
{
	struct stat st;
	char buf[16];
	int fd = open("/tmp/sp.size", O_CREAT | O_RDWR | O_TRUNC, 0644);
	int rd;
	ssize_t n;

	write(fd, "0123456789", 10);
#if defined(__x86_64__)
	show("ftruncate 4", sc(NR_ftruncate, fd, 4, 0, 0, 0));
#else
	show("ftruncate 4", sc(NR_ftruncate64, fd, 0, 4, 0, 0));
#endif
	fstat(fd, &st);
	printf("size %ld\n", (long)st.st_size);
	show("ftruncate 8", sc(NR_ftruncate, fd, 8, 0, 0, 0));
	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf));
	printf("read %ld:", (long)n);
	for (ssize_t i = 0; i < n; i++)
		printf(" %02x", (unsigned char)buf[i]);
	printf("\n");
	show("ftruncate negative", sc(NR_ftruncate, fd, -1, 0, 0, 0));
	rd = open("/tmp/sp.size", O_RDONLY);
	show("ftruncate read-only fd", sc(NR_ftruncate, rd, 0, 0, 0, 0));
	show("ftruncate bad fd", sc(NR_ftruncate, 99, 0, 0, 0, 0));
	show("truncate 2", sc(NR_truncate, (long)"/tmp/sp.size", 2, 0, 0, 0));
	show_stat("after truncate", "/tmp/sp.size", 1);
	show("truncate directory", sc(NR_truncate, (long)"/tmp", 0, 0, 0, 0));
	close(rd);
	close(fd);
	unlink("/tmp/sp.size");
}

static void group_at(void)
{
	char buf[64];
	int dfd, fd, ffd;

	mkdir("/tmp/sp.d", 0755);
	dfd = open("/tmp/sp.d", O_RDONLY | O_DIRECTORY);
	fd = openat(dfd, "inner", O_CREAT | O_WRONLY, 0644);
	show("openat relative", fd >= 0 ? 0 : -1);
	write(fd, "at\n", 3);
	close(fd);
	read_file("/tmp/sp.d/inner", buf, sizeof(buf));
	printf("read = %s", buf);
	show("mkdirat", sc(NR_mkdirat, dfd, (long)"sub", 0755, 0, 0));
	show_stat("sub", "/tmp/sp.d/sub", 1);
	show("symlinkat", sc(NR_symlinkat, (long)"inner", dfd, (long)"ln", 0, 0));
	show("readlinkat", sc(NR_readlinkat, dfd, (long)"ln", (long)buf, sizeof(buf), 0));
	ffd = open("/tmp/sp.d/inner", O_RDONLY);
	show("openat on a file fd", openat(ffd, "x", O_RDONLY));
	show("openat bad fd", openat(77, "x", O_RDONLY));
	show("openat absolute ignores fd", openat(77, "/tmp/sp.d/inner", O_RDONLY) >= 0 ? 0 : -1);
	show("unlinkat", sc(NR_unlinkat, dfd, (long)"ln", 0, 0, 0));
	show("unlinkat dir", sc(NR_unlinkat, dfd, (long)"sub", AT_REMOVEDIR, 0, 0));
	close(ffd);
	close(dfd);
	unlink("/tmp/sp.d/inner");
	rmdir("/tmp/sp.d");
}

static void group_limits(void)
{
	unsigned long lim[2];
	uint64_t l64[2], old[2];

	show("getrlimit NOFILE", sc(NR_getrlimit_or_ugetrlimit, RLIMIT_NOFILE, (long)lim, 0, 0, 0));
	printf("nofile %lu %lu\n", lim[0], lim[1]);
	lim[0] = 32;
	show("setrlimit NOFILE 32", sc(NR_setrlimit, RLIMIT_NOFILE, (long)lim, 0, 0, 0));
	sc(NR_getrlimit_or_ugetrlimit, RLIMIT_NOFILE, (long)lim, 0, 0, 0);
	printf("nofile %lu %lu\n", lim[0], lim[1]);
	lim[0] = 65;
	show("setrlimit cur > max", sc(NR_setrlimit, RLIMIT_NOFILE, (long)lim, 0, 0, 0));
	show("getrlimit 99", sc(NR_getrlimit_or_ugetrlimit, 99, (long)lim, 0, 0, 0));
	show("prlimit64 STACK", sc(NR_prlimit64, 0, RLIMIT_STACK, 0, (long)old, 0));
	printf("stack %llu %s\n", (unsigned long long)old[0], old[1] == ~0ull ? "unlimited" : "limited");
	l64[0] = 1 << 20;
	l64[1] = ~0ull;
	show("prlimit64 set STACK", sc(NR_prlimit64, getpid(), RLIMIT_STACK, (long)l64, (long)old, 0));
	sc(NR_prlimit64, 0, RLIMIT_STACK, 0, (long)old, 0);
	printf("stack %llu\n", (unsigned long long)old[0]);
	show("prlimit64 no such pid", sc(NR_prlimit64, 9999, RLIMIT_STACK, 0, (long)old, 0));
	l64[0] = 100;
	l64[1] = 100;
	show("prlimit64 NOFILE above table", (l64[1] = 100000, sc(NR_prlimit64, 0, RLIMIT_NOFILE, (long)l64, 0, 0)));
}

static volatile int alarms;

static void on_alarm(int sig)
{
	alarms++;
}

static void group_acct(void)
{
	long tms[4], ru[18], info[16];
	unsigned long mask[4] = { 0, 0, 0, 0 };
	long r;
	int status;
	pid_t child = fork();

	if (child == 0) {
		for (volatile unsigned long i = 0; i < 30000000ul; i++)
			;
		_exit(0);
	}
	waitpid(child, &status, 0);
	r = sc(NR_times, (long)tms, 0, 0, 0, 0);
	printf("times: %s, children's user time %s\n", r > 0 ? "ticks since boot" : "failed",
	       tms[2] > 0 ? "counted" : "zero");
	show("getrusage SELF", sc(NR_getrusage, 0, (long)ru, 0, 0, 0));
	show("getrusage CHILDREN", sc(NR_getrusage, -1, (long)ru, 0, 0, 0));
	printf("children's ru_utime %s\n", ru[0] > 0 || ru[1] > 0 ? "counted" : "zero");
	show("getrusage 7", sc(NR_getrusage, 7, (long)ru, 0, 0, 0));
	show("sysinfo", sc(NR_sysinfo, (long)info, 0, 0, 0, 0));
	r = sc(NR_sched_getaffinity, 0, sizeof(mask), (long)mask, 0, 0);
	printf("sched_getaffinity = %s, %d CPUs\n", r == sizeof(long) ? "sizeof(long)" : "?",
	       __builtin_popcountl(mask[0]));
	show("sched_getaffinity odd size", sc(NR_sched_getaffinity, 0, 3, (long)mask, 0, 0));
	show("sched_getaffinity no such pid", sc(NR_sched_getaffinity, 9999, sizeof(mask), (long)mask, 0, 0));
}

static void group_timers(void)
{
	struct sigaction sa;
	long it[4] = { 0, 20000, 0, 20000 }, old[4];
	struct kernel_timespec ts = { 2, 0 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
#if defined(__x86_64__)
	show("alarm 5", sc(NR_alarm, 5, 0, 0, 0, 0));
	show("alarm 0 (returns what was left)", sc(NR_alarm, 0, 0, 0, 0, 0));
#endif
	show("setitimer 20ms every 20ms", sc(NR_setitimer, ITIMER_REAL, (long)it, 0, 0, 0));
	while (alarms < 3)
		sc(NR_nanosleep, (long)&ts, 0, 0, 0, 0);
	show("getitimer", sc(NR_getitimer, ITIMER_REAL, (long)old, 0, 0, 0));
	printf("interval %ld.%06ld\n", old[0], old[1]);
	show("setitimer off", sc(NR_setitimer, ITIMER_REAL, 0, (long)old, 0, 0));
	printf("SIGALRM count %d\n", alarms);
	it[1] = 1000000;
	show("setitimer bad usec", sc(NR_setitimer, ITIMER_REAL, (long)it, 0, 0, 0));
	it[1] = 0;
	it[2] = 0;
	it[3] = 50000;
	alarms = 0;
	sc(NR_setitimer, ITIMER_REAL, (long)it, 0, 0, 0);
	show("nanosleep interrupted", sc(NR_nanosleep, (long)&ts, 0, 0, 0, 0));
	printf("SIGALRM count %d\n", alarms);
}

static long now_ms(void)
{
	struct kernel_timespec ts;

	sc(NR_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0, 0);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void show_poll(const char *what, struct pollfd *fds, long nfds, long timeout)
{
	long r = sc(NR_poll, (long)fds, nfds, timeout, 0, 0);

	if (r < 0) {
		show(what, r);
		return;
	}
	printf("%s = %ld, revents", what, r);
	for (long i = 0; i < nfds; i++)
		printf(" %#x", (unsigned)(unsigned short)fds[i].revents);
	printf("\n");
}

static void group_poll(void)
{
	struct pollfd fds[2];
	unsigned long set[2];
	long tv[2], t0, r;
	int p[2], status;
	char c;
	pid_t child;

	pipe(p);
	fds[0] = (struct pollfd){ p[0], POLLIN, 0 };
	fds[1] = (struct pollfd){ p[1], POLLOUT, 0 };
	show_poll("poll empty pipe, no wait", fds, 1, 0);
	show_poll("poll write end", fds + 1, 1, 0);
	write(p[1], "x", 1);
	show_poll("poll after a write", fds, 2, -1);
	fds[1] = (struct pollfd){ 99, POLLIN, 0 };
	show_poll("poll bad fd", fds + 1, 1, 0);
	fds[1].fd = -1;
	show_poll("poll negative fd is skipped", fds + 1, 1, 0);
	show("poll too many", sc(NR_poll, (long)fds, 100000, 0, 0, 0));
	set[0] = 1ul << p[0];
	set[1] = 0;
	tv[0] = 0;
	tv[1] = 0;
	r = sc(NR_select, p[0] + 1, (long)set, 0, 0, (long)tv);
	printf("select readable = %ld, bit %s\n", r, set[0] == 1ul << p[0] ? "set" : "clear");
	read(p[0], &c, 1);
	set[0] = 1ul << p[0];
	tv[1] = 30000;
	t0 = now_ms();
	r = sc(NR_select, p[0] + 1, (long)set, 0, 0, (long)tv);
	printf("select timeout = %ld, bit %s, waited %s, left %ld.%06ld\n", r, set[0] ? "set" : "clear",
	       now_ms() - t0 >= 30 ? ">= 30 ms" : "too little", tv[0], tv[1]);
	set[0] = 1ul << 30;
	show("select bad fd", sc(NR_select, 31, (long)set, 0, 0, (long)tv));
	show("select negative nfds", sc(NR_select, -1, 0, 0, 0, (long)tv));
	t0 = now_ms();
	fds[0].revents = 0;
	show_poll("poll 40 ms on an empty pipe", fds, 1, 40);
	printf("waited %s\n", now_ms() - t0 >= 40 ? ">= 40 ms" : "too little");
	child = fork();
	if (child == 0) {
		struct kernel_timespec ts = { 0, 50000000 };

		sc(NR_nanosleep, (long)&ts, 0, 0, 0, 0);
		write(p[1], "y", 1);
		_exit(0);
	}
	show_poll("poll until the child writes", fds, 1, -1);
	waitpid(child, &status, 0);
	read(p[0], &c, 1);
	{
		struct kernel_timespec ts = { 0, 0 };
		uint64_t mask = 0;
		unsigned long sig[2] = { (unsigned long)&mask, 8 };

		show("ppoll sigsetsize 4", sc(NR_ppoll, (long)fds, 1, (long)&ts, (long)&mask, 4));
		show("ppoll no wait", sc(NR_ppoll, (long)fds, 1, (long)&ts, (long)&mask, 8));
		set[0] = 1ul << p[1];
		show("pselect6 writable", sc(NR_pselect6, p[1] + 1, 0, (long)set, 0, (long)&ts));
		show("pselect6 with a mask, nothing readable", (set[0] = 1ul << p[0],
		     syscall(NR_pselect6, (long)(p[0] + 1), (long)set, 0L, 0L, (long)&ts, (long)sig)));
	}
	close(p[1]);
	show_poll("poll read end, writer gone", fds, 1, -1);
	{
		long it[4] = { 0, 0, 0, 30000 };
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
		alarms = 0;
		sc(NR_setitimer, ITIMER_REAL, (long)it, 0, 0, 0);
		show("poll interrupted by SIGALRM", sc(NR_poll, (long)fds + sizeof(fds[0]), 0, -1, 0, 0));
		printf("SIGALRM count %d\n", alarms);
	}
	close(p[0]);
}

#if defined(__x86_64__)
/* SIGFPE from the CPU: a divide by zero (#DE) and an unmasked SSE
 * divide-by-zero (#XM), each in a child whose handler reports its siginfo
 * and exits, and one with no handler (the default action kills it). */
extern char fpe_intdiv_insn[], fpe_sse_insn[];

static void on_fpe(int sig, void *info, void *ctx)
{
	int *i = info;
	void *addr = *(void **)((char *)info + 16);

	printf("handler: si_signo %d si_code %d si_addr %s\n", i[0], i[2],
	       addr == fpe_intdiv_insn ? "at the divide" : addr == fpe_sse_insn ? "at the divss" : "elsewhere");
	fflush(stdout);
	_exit(0);
}

__attribute__((noinline)) static unsigned divide(unsigned a, unsigned b)
{
	unsigned q, d = 0;

	__asm__ __volatile__("fpe_intdiv_insn: divl %2" : "=a"(q), "+d"(d) : "r"(b), "a"(a));
	return q;
}

__attribute__((noinline)) static void sse_divide_by_zero(void)
{
	unsigned mxcsr = 0x1f80 & ~0x200u;    /* unmask ZE */
	float one = 1.0f, zero = 0.0f;

	__asm__ __volatile__("ldmxcsr %0" : : "m"(mxcsr));
	__asm__ __volatile__("fpe_sse_insn: divss %1, %0" : "+x"(one) : "x"(zero));
}

static void fpe_child(int which, int with_handler)
{
	int status;
	pid_t child = fork();

	if (child == 0) {
		if (with_handler) {
			struct sigaction sa;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = (sighandler_t)(void *)on_fpe;
			sa.sa_flags = 4;           /* SA_SIGINFO */
			sigaction(SIGFPE, &sa, NULL);
		}
		if (which == 0)
			printf("quotient %u\n", divide(7, 0));
		else
			sse_divide_by_zero();
		_exit(3);
	}
	waitpid(child, &status, 0);
	printf("child %s %d\n", WIFSIGNALED(status) ? "killed by signal" : "exited", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static void group_fpe(void)
{
	fpe_child(0, 1);
	fpe_child(1, 1);
	fpe_child(0, 0);
}
#endif

static void group_misc(void)
{
	char buf[64];

	show("prctl PR_SET_NAME", sc(NR_prctl, PR_SET_NAME, (long)"renamed", 0, 0, 0));
	read_file("/proc/self/comm", buf, sizeof(buf));
	printf("comm = %s", buf);
	show("prctl PR_GET_NAME", sc(NR_prctl, PR_GET_NAME, (long)buf, 0, 0, 0));
	printf("name = %s\n", buf);
	show("rseq", sc(NR_rseq, 0, 32, 0, 0, 0));
}

static const struct {
	const char *name;
	void (*fn)(void);
} groups[] = {
	{ "proc", group_proc }, { "links", group_links }, { "attrs", group_attrs },
	{ "size", group_size }, { "at", group_at }, { "limits", group_limits },
	{ "acct", group_acct }, { "timers", group_timers }, { "poll", group_poll },
	{ "misc", group_misc },
#if defined(__x86_64__)
	{ "fpe", group_fpe },
#endif
};

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		int wanted = argc == 1;

		for (int i = 1; i < argc; i++)
			wanted |= strcmp(argv[i], groups[g].name) == 0;
		if (!wanted)
			continue;
		printf("== %s\n", groups[g].name);
		groups[g].fn();
		fflush(stdout);
	}
	return 0;
}
