/* Clocks and sleeping. */
#ifndef _TIME_H
#define _TIME_H
#include <sys/types.h>
#include <uapi/abi.h>
struct timespec {
	time_t tv_sec;
	long tv_nsec;
};
typedef int clockid_t;
int clock_gettime(clockid_t clk, struct timespec *ts);
int nanosleep(const struct timespec *req, struct timespec *rem);
#define TIMER_ABSTIME 1
/* Returns the error number (0 on success), as POSIX says. */
int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem);
time_t time(time_t *t);
#endif
