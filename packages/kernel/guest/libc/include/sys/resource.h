/* Scheduling priorities: getpriority(2), setpriority(2), nice(3). */
#ifndef _SYS_RESOURCE_H
#define _SYS_RESOURCE_H
#include <sys/types.h>
#define PRIO_PROCESS 0
#define PRIO_PGRP 1
#define PRIO_USER 2
/* getpriority returns the nice value (-20..19); -1 with errno set on error. */
int getpriority(int which, int who);
int setpriority(int which, int who, int prio);
int nice(int incr);
#endif
