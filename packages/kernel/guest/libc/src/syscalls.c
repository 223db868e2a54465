/*
 * System-call wrappers: each turns a POSIX call into the Linux system call of
 * this ISA (numbers from uapi/syscalls.h) and maps a -errno result to
 * errno + -1. Where the ISAs differ (stat vs stat64, mmap vs mmap2) the
 * choice is made here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* __NR_<name> for this ISA, from the one table. */
enum {
#if defined(__x86_64__)
#define SYSCALL(name, x86, arm, nargs) __NR_##name = x86,
#else
#define SYSCALL(name, x86, arm, nargs) __NR_##name = arm,
#endif
#include <uapi/syscalls.h>
#undef SYSCALL
};

int errno;

static long syscall_result(long r)
{
	if (r < 0 && r >= -MAX_ERRNO) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

#define SC0(n) syscall_result(__syscall(n, 0, 0, 0, 0, 0, 0))
#define SC1(n, a) syscall_result(__syscall(n, (long)(a), 0, 0, 0, 0, 0))
#define SC2(n, a, b) syscall_result(__syscall(n, (long)(a), (long)(b), 0, 0, 0, 0))
#define SC3(n, a, b, c) \
	syscall_result(__syscall(n, (long)(a), (long)(b), (long)(c), 0, 0, 0))
#define SC4(n, a, b, c, d) \
	syscall_result(__syscall(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0))

long syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return syscall_result(__syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}

ssize_t read(int fd, void *buf, size_t n) { return SC3(__NR_read, fd, buf, n); }
ssize_t write(int fd, const void *buf, size_t n) { return SC3(__NR_write, fd, buf, n); }
int close(int fd) { return SC1(__NR_close, fd); }
ssize_t readv(int fd, const struct iovec *iov, int n) { return SC3(__NR_readv, fd, iov, n); }
ssize_t writev(int fd, const struct iovec *iov, int n) { return SC3(__NR_writev, fd, iov, n); }
int pipe(int fds[2]) { return SC2(__NR_pipe2, fds, 0); }
int dup(int fd) { return SC1(__NR_dup, fd); }
int dup2(int oldfd, int newfd) { return SC2(__NR_dup2, oldfd, newfd); }
pid_t getpid(void) { return SC0(__NR_getpid); }
pid_t getppid(void) { return SC0(__NR_getppid); }
pid_t gettid(void) { return SC0(__NR_gettid); }
int chdir(const char *path) { return SC1(__NR_chdir, path); }
int mkdir(const char *path, mode_t mode) { return SC2(__NR_mkdir, path, mode); }
int rmdir(const char *path) { return SC1(__NR_rmdir, path); }
mode_t umask(mode_t mask) { return (mode_t)__syscall(__NR_umask, (long)mask, 0, 0, 0, 0, 0); }
int unlink(const char *path) { return SC1(__NR_unlink, path); }
ssize_t readlink(const char *path, char *buf, size_t size) { return SC3(__NR_readlink, path, buf, size); }
int symlink(const char *target, const char *path) { return SC2(__NR_symlink, target, path); }
int link(const char *old, const char *new) { return SC2(__NR_link, old, new); }
int rename(const char *from, const char *to) { return SC2(__NR_rename, from, to); }
int access(const char *path, int mode) { return SC2(__NR_access, path, mode); }
int kill(pid_t pid, int sig) { return SC2(__NR_kill, pid, sig); }
int raise(int sig) { return kill(getpid(), sig); }
int uname(struct utsname *u) { return SC1(__NR_uname, u); }
int sched_yield(void) { return SC0(__NR_sched_yield); }
int getdents64(int fd, void *buf, size_t n) { return SC3(__NR_getdents64, fd, buf, n); }
int munmap(void *addr, size_t len) { return SC2(__NR_munmap, addr, len); }
int mprotect(void *addr, size_t len, int prot) { return SC3(__NR_mprotect, addr, len, prot); }
int execve(const char *path, char *const argv[], char *const envp[])
{
	return SC3(__NR_execve, path, argv, envp);
}
pid_t wait4(pid_t pid, int *status, int options, void *rusage)
{
	return SC4(__NR_wait4, pid, status, options, rusage);
}
pid_t waitpid(pid_t pid, int *status, int options) { return wait4(pid, status, options, 0); }
pid_t wait(int *status) { return wait4(-1, status, 0, 0); }

pid_t fork(void)
{
	/* clone(SIGCHLD) is fork on both ISAs; it exercises the general path. */
	return SC2(__NR_clone, SIGCHLD, 0);
}

__attribute__((noreturn)) void _exit(int status)
{
	for (;;)
		__syscall(__NR_exit_group, status, 0, 0, 0, 0, 0);
}

off_t lseek(int fd, off_t off, int whence) { return SC3(__NR_lseek, fd, off, whence); }

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	return SC4(__NR_openat, AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	return SC4(__NR_openat, dirfd, path, flags, mode);
}

int creat(const char *path, mode_t mode) { return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode); }

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return SC3(__NR_fcntl, fd, cmd, arg);
}

#if defined(__x86_64__)
int stat(const char *path, struct stat *st) { return SC2(__NR_stat, path, st); }
int lstat(const char *path, struct stat *st) { return SC2(__NR_lstat, path, st); }
int fstat(int fd, struct stat *st) { return SC2(__NR_fstat, fd, st); }
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall_result(__syscall(__NR_mmap, (long)addr, len, prot, flags, fd, off));
}
#else
int stat(const char *path, struct stat *st) { return SC2(__NR_stat64, path, st); }
int lstat(const char *path, struct stat *st) { return SC2(__NR_lstat64, path, st); }
int fstat(int fd, struct stat *st) { return SC2(__NR_fstat64, fd, st); }
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	/* mmap2 takes the offset in 4 KiB units. */
	return (void *)syscall_result(
		__syscall(__NR_mmap2, (long)addr, len, prot, flags, fd, off >> 12));
}
#endif

char *getcwd(char *buf, size_t size)
{
	return SC2(__NR_getcwd, buf, size) < 0 ? NULL : buf;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	return SC2(__NR_clock_gettime, clk, ts);
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	long r = __syscall(__NR_clock_nanosleep, clk, flags, (long)req, (long)rem, 0, 0);

	return r < 0 ? (int)-r : 0;
}

int getpriority(int which, int who)
{
	long r = SC2(__NR_getpriority, which, who);

	return r < 0 ? -1 : 20 - (int)r;
}

int setpriority(int which, int who, int prio) { return SC3(__NR_setpriority, which, who, prio); }

int nice(int incr)
{
	int now;

	errno = 0;
	now = getpriority(PRIO_PROCESS, 0);
	if (now == -1 && errno)
		return -1;
	if (setpriority(PRIO_PROCESS, 0, now + incr) < 0)
		return -1;
	return getpriority(PRIO_PROCESS, 0);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return SC2(__NR_nanosleep, req, rem);
}

time_t time(time_t *t)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return -1;
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

unsigned int sleep(unsigned int seconds)
{
	struct timespec ts = { seconds, 0 };

	return nanosleep(&ts, 0) < 0 ? seconds : 0;
}

int usleep(unsigned long usec)
{
	struct timespec ts = { (time_t)(usec / 1000000), (long)(usec % 1000000) * 1000 };

	return nanosleep(&ts, 0);
}

int isatty(int fd)
{
	char termios[64];

	return SC3(__NR_ioctl, fd, TCGETS, termios) == 0;
}

/* The program break, as brk(2) reports it; 0 until first asked. */
static char *current_break;

int brk(void *addr)
{
	long r = __syscall(__NR_brk, (long)addr, 0, 0, 0, 0, 0);

	current_break = (char *)r;
	if ((char *)r < (char *)addr) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void *sbrk(long incr)
{
	char *old;

	if (!current_break)
		current_break = (char *)__syscall(__NR_brk, 0, 0, 0, 0, 0, 0);
	old = current_break;
	if (incr != 0 && brk(old + incr) < 0)
		return (void *)-1;
	return old;
}

int reboot_poweroff(int status)
{
	return SC4(__NR_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
		   LINUX_REBOOT_CMD_POWER_OFF, status);
}
