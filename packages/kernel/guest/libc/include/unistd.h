/* POSIX system-call wrappers of the libc. */
#ifndef _UNISTD_H
#define _UNISTD_H
#include <sys/types.h>
#include <uapi/abi.h>
#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2
extern char **environ;
long __syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
long syscall(long nr, ...);
ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
int close(int fd);
off_t lseek(int fd, off_t off, int whence);
int pipe(int fds[2]);
int dup(int fd);
int dup2(int oldfd, int newfd);
pid_t fork(void);
int execve(const char *path, char *const argv[], char *const envp[]);
int execv(const char *path, char *const argv[]);
int execvp(const char *file, char *const argv[]);
__attribute__((noreturn)) void _exit(int status);
pid_t getpid(void);
pid_t getppid(void);
pid_t gettid(void);
int chdir(const char *path);
char *getcwd(char *buf, size_t size);
int mkdir(const char *path, mode_t mode);
int rmdir(const char *path);
int unlink(const char *path);
ssize_t readlink(const char *path, char *buf, size_t size);
int symlink(const char *target, const char *path);
int link(const char *old, const char *new);
int access(const char *path, int mode);
int brk(void *addr);
void *sbrk(long incr);
unsigned int sleep(unsigned int seconds);
int usleep(unsigned long usec);
int isatty(int fd);
int sched_yield(void);
int getdents64(int fd, void *buf, size_t n);
int reboot_poweroff(int status);
#endif
