/* Time keeping on the board's virtual clock, and the per-CPU tick. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H
#include <kernel/types.h>

#define NSEC_PER_SEC 1000000000ull
#define TICK_NS 10000000ull    /* 10 ms: 100 Hz */

uint64_t ktime_get_ns(void);
uint64_t ktime_get_real_ns(void);
void timer_init_cpu(void);
void timer_arm_next_tick(void);
void timer_interrupt(unsigned irq);
extern volatile uint64_t jiffies;
#endif
