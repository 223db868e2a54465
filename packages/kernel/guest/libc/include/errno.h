/* errno: set by the system-call wrappers when the kernel returns -errno. */
#ifndef _ERRNO_H
#define _ERRNO_H
#include <uapi/abi.h>
extern int errno;
#endif
