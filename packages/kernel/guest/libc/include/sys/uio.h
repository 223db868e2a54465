/* Vectored I/O. */
#ifndef _SYS_UIO_H
#define _SYS_UIO_H
#include <sys/types.h>
#include <uapi/abi.h>
ssize_t readv(int fd, const struct iovec *iov, int n);
ssize_t writev(int fd, const struct iovec *iov, int n);
#endif
