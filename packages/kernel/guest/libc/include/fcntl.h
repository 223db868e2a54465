/* open(2) and fcntl(2). */
#ifndef _FCNTL_H
#define _FCNTL_H
#include <sys/types.h>
#include <uapi/abi.h>
int open(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int creat(const char *path, mode_t mode);
int fcntl(int fd, int cmd, ...);
#endif
