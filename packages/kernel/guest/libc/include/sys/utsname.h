/* uname(2). */
#ifndef _SYS_UTSNAME_H
#define _SYS_UTSNAME_H
#include <uapi/abi.h>
int uname(struct utsname *u);
#endif
