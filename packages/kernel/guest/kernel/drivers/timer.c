/* Virtual-time clock and the per-CPU scheduler tick (board timer, one-shot
 * deadline re-armed every TICK_NS). */
#include <kernel/board.h>
#include <kernel/irq.h>
#include <kernel/kmod.h>
#include <kernel/lib.h>
#include <kernel/sched.h>
#include <kernel/time.h>

volatile uint64_t jiffies;

uint64_t ktime_get_ns(void)
{
	return board_time_ns();
}

uint64_t ktime_get_real_ns(void)
{
	return boot_params.epoch_seconds * NSEC_PER_SEC + board_time_ns();
}

void timer_arm_next_tick(void)
{
	uint64_t deadline = board_time_ns() + TICK_NS;

	board_write32(TIMER_BASE + TIMER_DEADLINE_LO, (uint32_t)deadline);
	board_write32(TIMER_BASE + TIMER_DEADLINE_HI, (uint32_t)(deadline >> 32));
	board_write32(TIMER_BASE + TIMER_CTRL, 1);
}

void timer_interrupt(unsigned irq)
{
	unsigned cpu = smp_processor_id();

	timer_arm_next_tick();
	cpu_infos[cpu].ticks++;
	if (cpu == 0) {
		jiffies++;
		kmod_poll();
		console_tick();
		itimer_tick(board_time_ns());
	}
	wake_sleepers(board_time_ns());
	scheduler_tick();
}

void timer_init_cpu(void)
{
	if (smp_processor_id() == 0)
		request_irq(IRQ_TIMER, timer_interrupt, "timer");
	timer_arm_next_tick();
}
