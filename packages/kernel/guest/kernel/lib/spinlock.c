/* Spinlocks and the big kernel lock (locking model in kernel/spinlock.h). */
#include <kernel/arch.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>

spinlock_t kernel_lock = SPINLOCK_INIT;

bool spin_trylock(spinlock_t *lock)
{
	if (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE) == 0) {
		lock->owner_cpu = (int)smp_processor_id();
		return true;
	}
	return false;
}

void spin_lock(spinlock_t *lock)
{
	while (!spin_trylock(lock)) {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			;
	}
}

void spin_unlock(spinlock_t *lock)
{
	lock->owner_cpu = -1;
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

void lock_kernel(void)
{
	spin_lock(&kernel_lock);
}

void unlock_kernel(void)
{
	spin_unlock(&kernel_lock);
}

bool kernel_locked_by_me(void)
{
	return kernel_lock.locked && kernel_lock.owner_cpu == (int)smp_processor_id();
}
