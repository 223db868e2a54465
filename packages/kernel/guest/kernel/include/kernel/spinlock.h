/* Spinlocks (atomic test-and-set with interrupts masked) and the big kernel
 * lock. Locking model: every entry into the kernel from user mode or from
 * the idle loop takes the big kernel lock and every return to user mode (or
 * idle) releases it; kernel code runs with interrupts masked, so inside the
 * kernel only one CPU runs at a time and nothing preempts kernel code.
 * Preemption happens on the way back to user mode. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H
#include <kernel/types.h>

typedef struct spinlock {
	volatile int locked;
	int owner_cpu;
} spinlock_t;

#define SPINLOCK_INIT { 0, -1 }
void spin_lock(spinlock_t *lock);
void spin_unlock(spinlock_t *lock);
bool spin_trylock(spinlock_t *lock);

extern spinlock_t kernel_lock;
void lock_kernel(void);
void unlock_kernel(void);
bool kernel_locked_by_me(void);
#endif
