/*
 * The scheduler: one run queue shared by all CPUs (the big kernel lock
 * protects it), round robin with a time slice of TIMESLICE_TICKS timer
 * ticks. Each CPU has an idle task that waits for interrupts. Sleeping is
 * on "channels" (any address), Unix style: sleep_on(chan) / wake_up(chan).
 * The sched provider's sites: on-cpu, off-cpu, enqueue, dequeue, wakeup.
 */
#include <kernel/board.h>
#include <kernel/entry.h>
#include <kernel/irq.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/sdt.h>
#include <kernel/time.h>

struct cpu_info cpu_infos[NR_CPUS];
unsigned nr_cpus_online;
static struct run_queue run_queue = { LIST_HEAD_INIT(run_queue.rq_tasks), 0, NULL };
static LIST_HEAD(sleepers);

struct task_struct *get_current(void)
{
	return arch_cpu_info()->curr_task;
}

unsigned smp_processor_id(void)
{
	return arch_cpu_info()->cpu_id;
}

void enqueue_task(struct task_struct *t)
{
	if (t->is_idle)
		return;
	/* The last argument says whether t goes to the front (never here). */
	DTRACE_SCHED3(enqueue, struct task_struct *, t, struct run_queue *, &run_queue, int, 0);
	list_add_tail(&t->run_list, &run_queue.rq_tasks);
	run_queue.rq_nr_running++;
}

void dequeue_task(struct task_struct *t)
{
	DTRACE_SCHED2(dequeue, struct task_struct *, t, struct run_queue *, &run_queue);
	list_del(&t->run_list);
	run_queue.rq_nr_running--;
}

static bool task_on_run_queue(struct task_struct *t)
{
	return t->run_list.next != &t->run_list;
}

/* Wake an idle CPU (or this one) so a newly runnable task gets a CPU. */
static void kick_idle_cpu(void)
{
	unsigned self = smp_processor_id();

	for (unsigned cpu = 0; cpu < nr_cpus_online; cpu++) {
		struct cpu_info *ci = &cpu_infos[cpu];

		if (ci->online && ci->curr_task == ci->idle) {
			ci->idle->need_resched = true;
			if (cpu != self)
				send_ipi(cpu);
			return;
		}
	}
}

void resched_cpu(unsigned cpu)
{
	cpu_infos[cpu].curr_task->need_resched = true;
	if (cpu != smp_processor_id())
		send_ipi(cpu);
}

void wake_up_process(struct task_struct *t)
{
	if (t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
		return;
	DTRACE_SCHED1(wakeup, struct task_struct *, t);
	t->wait_channel = NULL;
	if (t->state != TASK_RUNNING || (!task_on_run_queue(t) && t->on_cpu < 0)) {
		t->state = TASK_RUNNING;
		if (!task_on_run_queue(t) && t->on_cpu < 0)
			enqueue_task(t);
		kick_idle_cpu();
	}
}

static struct task_struct *pick_next_task(struct task_struct *idle)
{
	struct list_head *pos;

	list_for_each(pos, &run_queue.rq_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, run_list);

		if (t->on_cpu < 0) {
			dequeue_task(t);
			return t;
		}
	}
	return idle;
}

/* Free the task that just left the CPU for good (its stack was in use until
 * the switch completed). */
static void finish_task_switch(struct task_struct *prev)
{
	if (prev && prev->state == TASK_DEAD)
		free_task(prev);
}

static struct task_struct *last_switched_from[NR_CPUS];

void schedule(void)
{
	struct task_struct *prev = current, *next;
	unsigned cpu = smp_processor_id();
	struct cpu_info *ci = &cpu_infos[cpu];

	BUG_ON(!kernel_locked_by_me());
	prev->need_resched = false;
	if (prev->state == TASK_RUNNING && !prev->is_idle && !task_on_run_queue(prev))
		enqueue_task(prev);
	next = pick_next_task(ci->idle);
	if (next == prev) {
		prev->timeslice = TIMESLICE_TICKS;
		return;
	}
	DTRACE_SCHED1(off__cpu, struct task_struct *, next);
	prev->on_cpu = -1;
	next->on_cpu = (int)cpu;
	next->last_cpu = (int)cpu;
	next->timeslice = TIMESLICE_TICKS;
	ci->curr_task = next;
	ci->context_switches++;
	if (next->mm != prev->mm || prev->is_kthread || next->is_kthread)
		arch_switch_mm(next->mm);
	last_switched_from[cpu] = prev;
	arch_switch_to(prev, next);
	/* Back on this task, possibly on another CPU. */
	cpu = smp_processor_id();
	finish_task_switch(last_switched_from[cpu]);
	last_switched_from[cpu] = NULL;
	DTRACE_SCHED(on__cpu);
}

/* First code a new task runs (from ret_from_fork or kthread_start). */
void schedule_tail(struct pt_regs *regs)
{
	unsigned cpu = smp_processor_id();

	finish_task_switch(last_switched_from[cpu]);
	last_switched_from[cpu] = NULL;
	DTRACE_SCHED(on__cpu);
	if (regs) {
		/* Returning to user mode for the first time. */
		current->regs = regs;
		exit_to_user_mode(regs);
	}
}

void scheduler_tick(void)
{
	struct task_struct *t = current;

	if (t->is_idle) {
		if (run_queue.rq_nr_running > 0)
			t->need_resched = true;
		return;
	}
	if (regs_user_mode(t->regs))
		t->utime_ticks++;
	else
		t->stime_ticks++;
	if (--t->timeslice <= 0)
		t->need_resched = true;
}

void yield(void)
{
	current->need_resched = true;
	schedule();
}

void sleep_on(const void *channel)
{
	struct task_struct *t = current;

	t->state = TASK_INTERRUPTIBLE;
	t->wait_channel = channel;
	schedule();
	t->wait_channel = NULL;
}

void wake_up(const void *channel)
{
	struct list_head *pos;

	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->state == TASK_INTERRUPTIBLE && t->wait_channel == channel)
			wake_up_process(t);
	}
}

/* Sleep until virtual time wake_time_ns; -EINTR if a signal came first. */
int sleep_until(uint64_t wake_time_ns)
{
	struct task_struct *t = current;

	t->wake_time_ns = wake_time_ns;
	list_add_tail(&t->sleep_list, &sleepers);
	while (ktime_get_ns() < wake_time_ns && !signal_pending(t))
		sleep_on(&t->wake_time_ns);
	list_del(&t->sleep_list);
	t->wake_time_ns = 0;
	return signal_pending(t) ? -EINTR : 0;
}

void wake_sleepers(uint64_t now)
{
	struct list_head *pos;

	list_for_each(pos, &sleepers) {
		struct task_struct *t = list_entry(pos, struct task_struct, sleep_list);

		if (t->wake_time_ns && t->wake_time_ns <= now)
			wake_up_process(t);
	}
}

void sched_init_cpu(unsigned cpu)
{
	struct cpu_info *ci = &cpu_infos[cpu];
	struct task_struct *idle = ci->curr_task;

	idle->is_idle = true;
	idle->on_cpu = (int)cpu;
	ci->idle = idle;
	ci->online = true;
}

__noreturn void cpu_idle(void)
{
	for (;;) {
		if (current->need_resched || run_queue.rq_nr_running > 0)
			schedule();
		unlock_kernel();
		arch_wait_for_interrupt();
		lock_kernel();
	}
}
