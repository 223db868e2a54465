/*
 * The Linux user ABI this guest implements, shared by the kernel and libc:
 * errno values, open/mmap/wait/signal constants and the structures user
 * programs exchange with the kernel (stat, dirent64, timespec, utsname,
 * iovec). Values and layouts are Linux's for x86-64 and ARM EABI; where the
 * two ISAs differ the difference is spelled out here and nowhere else.
 */
#ifndef UAPI_ABI_H
#define UAPI_ABI_H

#include <stdint.h>
#include <stddef.h>

/* ---- errno (asm-generic/errno-base.h, errno.h) ---- */
#define EPERM    1
#define ENOENT   2
#define ESRCH    3
#define EINTR    4
#define EIO      5
#define ENXIO    6
#define E2BIG    7
#define ENOEXEC  8
#define EBADF    9
#define ECHILD  10
#define EAGAIN  11
#define ENOMEM  12
#define EACCES  13
#define EFAULT  14
#define EBUSY   16
#define EEXIST  17
#define EXDEV   18
#define ENODEV  19
#define ENOTDIR 20
#define EISDIR  21
#define EINVAL  22
#define ENFILE  23
#define EMFILE  24
#define ENOTTY  25
#define EFBIG   27
#define ENOSPC  28
#define ESPIPE  29
#define EROFS   30
#define EMLINK  31
#define EPIPE   32
#define EDOM    33
#define ERANGE  34
#define ENAMETOOLONG 36
#define ENOSYS  38
#define ENOTEMPTY 39
#define ELOOP   40
#define MAX_ERRNO 4095

/* ---- open(2) flags (asm-generic/fcntl.h; O_DIRECTORY differs on ARM) ---- */
#define O_RDONLY    0
#define O_WRONLY    1
#define O_RDWR      2
#define O_ACCMODE   3
#define O_CREAT     0100
#define O_EXCL      0200
#define O_NOCTTY    0400
#define O_TRUNC     01000
#define O_APPEND    02000
#define O_NONBLOCK  04000
#if defined(__arm__)
#define O_DIRECTORY 040000
#else
#define O_DIRECTORY 0200000
#endif
#define O_CLOEXEC   02000000
#define AT_FDCWD    (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_SYMLINK_FOLLOW 0x400
#define AT_NO_AUTOMOUNT 0x800
#define AT_EMPTY_PATH 0x1000
#define UTIME_NOW  ((1l << 30) - 1)
#define UTIME_OMIT ((1l << 30) - 2)

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define FD_CLOEXEC 1

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

/* ---- file modes ---- */
#define S_IFMT   0170000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000
#define S_IFREG  0100000
#define S_IFLNK  0120000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)

/* d_type values of getdents64 */
#define DT_UNKNOWN 0
#define DT_FIFO 1
#define DT_CHR  2
#define DT_DIR  4
#define DT_REG  8
#define DT_LNK  10

/* ---- mmap ---- */
#define PROT_NONE  0
#define PROT_READ  1
#define PROT_WRITE 2
#define PROT_EXEC  4
#define MAP_SHARED    0x01
#define MAP_PRIVATE   0x02
#define MAP_FIXED     0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FAILED ((void *)-1)

/* ---- wait ---- */
#define WNOHANG 1
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WTERMSIG(s)    ((s) & 0x7f)
#define WIFEXITED(s)   (WTERMSIG(s) == 0)
#define WIFSIGNALED(s) (((signed char)(((s) & 0x7f) + 1) >> 1) > 0)

/* ---- signals (same numbers on both ISAs) ---- */
#define SIGHUP   1
#define SIGINT   2
#define SIGQUIT  3
#define SIGILL   4
#define SIGTRAP  5
#define SIGABRT  6
#define SIGBUS   7
#define SIGFPE   8
#define SIGKILL  9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define NSIG    64
#define SIG_DFL ((void (*)(int))0)
#define SIG_IGN ((void (*)(int))1)

/* ---- clone flags ---- */
#define CSIGNAL       0x000000ff
#define CLONE_VM      0x00000100
#define CLONE_FS      0x00000200
#define CLONE_FILES   0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_VFORK   0x00004000
#define CLONE_THREAD  0x00010000
#define CLONE_SETTLS  0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID   0x01000000

/* ---- clocks ---- */
#define CLOCK_REALTIME  0
#define CLOCK_MONOTONIC 1

/* ---- reboot(2); this kernel takes the exit status in the 4th argument ---- */
#define LINUX_REBOOT_MAGIC1 0xfee1dead
#define LINUX_REBOOT_MAGIC2 672274793
#define LINUX_REBOOT_CMD_POWER_OFF 0x4321fedc

/* ---- ioctl ---- */
#define TCGETS     0x5401
#define TIOCGWINSZ 0x5413

/* ---- resource limits (getrlimit, prlimit64) ---- */
#define RLIMIT_CPU      0
#define RLIMIT_FSIZE    1
#define RLIMIT_DATA     2
#define RLIMIT_STACK    3
#define RLIMIT_CORE     4
#define RLIMIT_NPROC    6
#define RLIMIT_NOFILE   7
#define RLIM_NLIMITS   16
#define RLIM64_INFINITY (~0ull)

struct rlimit64 {
	uint64_t rlim_cur;
	uint64_t rlim_max;
};

struct kernel_timeval {
	long tv_sec;
	long tv_usec;
};

struct itimerval {
	struct kernel_timeval it_interval;
	struct kernel_timeval it_value;
};
#define ITIMER_REAL    0
#define ITIMER_VIRTUAL 1
#define ITIMER_PROF    2

/* getrusage(2): who, and the structure (two timevals, then 14 longs) */
#define RUSAGE_SELF     0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD   1
struct rusage {
	struct kernel_timeval ru_utime;
	struct kernel_timeval ru_stime;
	long ru_maxrss, ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ru_nswap;
	long ru_inblock, ru_oublock, ru_msgsnd, ru_msgrcv, ru_nsignals, ru_nvcsw, ru_nivcsw;
};

struct tms {
	long tms_utime, tms_stime, tms_cutime, tms_cstime;
};

/* sysinfo(2): 112 bytes on x86-64, 64 on ARM */
struct sysinfo {
	long uptime;
	unsigned long loads[3];
	unsigned long totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	unsigned short procs;
	unsigned short pad;
	unsigned long totalhigh, freehigh;
	unsigned int mem_unit;
	char _f[20 - 2 * sizeof(long) - sizeof(int)];
};

/* prctl(2) options */
#define PR_SET_NAME 15
#define PR_GET_NAME 16

/* ---- statx(2): 256 bytes on both ISAs ---- */
#define STATX_BASIC_STATS 0x000007ffu
#define STATX__RESERVED   0x80000000u
#define AT_STATX_SYNC_TYPE 0x6000

struct statx_timestamp {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t __reserved;
};

struct statx {
	uint32_t stx_mask;
	uint32_t stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink;
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t __spare0;
	uint64_t stx_ino;
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;
	struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor;
	uint32_t stx_dev_major, stx_dev_minor;
	uint64_t __spare2[14];
};

/* ---- poll(2) events ---- */
#define POLLIN     0x001
#define POLLPRI    0x002
#define POLLOUT    0x004
#define POLLERR    0x008
#define POLLHUP    0x010
#define POLLNVAL   0x020
#define POLLRDNORM 0x040
#define POLLWRNORM 0x100

struct pollfd {
	int fd;
	short events;
	short revents;
};

/* ---- structures ---- */
struct kernel_timespec {
	long tv_sec;
	long tv_nsec;
};

struct iovec {
	void *iov_base;
	size_t iov_len;
};

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

struct utsname {
	char sysname[65];
	char nodename[65];
	char release[65];
	char version[65];
	char machine[65];
	char domainname[65];
};

#if defined(__x86_64__)
/* struct stat of x86-64 stat/fstat/lstat/newfstatat: 144 bytes */
struct stat {
	uint64_t st_dev;
	uint64_t st_ino;
	uint64_t st_nlink;
	uint32_t st_mode;
	uint32_t st_uid;
	uint32_t st_gid;
	uint32_t __pad0;
	uint64_t st_rdev;
	int64_t st_size;
	int64_t st_blksize;
	int64_t st_blocks;
	uint64_t st_atime_sec;
	uint64_t st_atime_nsec;
	uint64_t st_mtime_sec;
	uint64_t st_mtime_nsec;
	uint64_t st_ctime_sec;
	uint64_t st_ctime_nsec;
	int64_t __unused[3];
};
#else
/* struct stat64 of ARM EABI stat64/fstat64/lstat64/fstatat64: 104 bytes */
struct stat {
	uint64_t st_dev;
	uint8_t __pad0[4];
	uint32_t __st_ino;
	uint32_t st_mode;
	uint32_t st_nlink;
	uint32_t st_uid;
	uint32_t st_gid;
	uint64_t st_rdev;
	uint8_t __pad3[4];
	int64_t st_size;
	uint32_t st_blksize;
	uint64_t st_blocks;
	uint32_t st_atime_sec;
	uint32_t st_atime_nsec;
	uint32_t st_mtime_sec;
	uint32_t st_mtime_nsec;
	uint32_t st_ctime_sec;
	uint32_t st_ctime_nsec;
	uint64_t st_ino;
};
#endif

#endif /* UAPI_ABI_H */
