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
time_t time(time_t *t);
#endif
