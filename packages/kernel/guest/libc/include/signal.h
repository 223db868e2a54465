/* Signals: kill(2) and the numbers. */
#ifndef _SIGNAL_H
#define _SIGNAL_H
#include <sys/types.h>
#include <uapi/abi.h>
int kill(pid_t pid, int sig);
int raise(int sig);
#endif
