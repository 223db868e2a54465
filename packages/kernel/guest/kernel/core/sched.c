/*
 * The scheduler: one run queue per CPU (the big kernel lock protects them
 * all), round robin with a time slice that depends on the task's nice value
 * (TIMESLICE_TICKS timer ticks at nice 0). Placement and balancing:
 *  - a new task goes to an idle CPU (searched round robin from the one after
 *    the last choice), else to the least loaded;
 *  - a woken task goes back to its last CPU if that CPU is idle, else to an
 *    idle CPU, else to its last CPU;
 *  - a CPU whose queue is empty steals a waiting task from the busiest
 *    queue (idle balancing), and every BALANCE_TICKS ticks a CPU pulls one
 *    waiting task from a queue at least two tasks longer than its own
 *    (periodic balancing). Both are migrations.
 * Each CPU has an idle task that waits for interrupts. Sleeping is on
 * "channels" (any address), Unix style: sleep_on(chan) / wake_up(chan).
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
#define RQ_INIT(i) { LIST_HEAD_INIT(run_queues[i].rq_tasks), 0, &cpu_infos[i] }
static struct run_queue run_queues[NR_CPUS] = {
	RQ_INIT(0), RQ_INIT(1), RQ_INIT(2), RQ_INIT(3), RQ_INIT(4), RQ_INIT(5), RQ_INIT(6), RQ_INIT(7),
};
#define BALANCE_TICKS 4
static unsigned fork_cursor;
static LIST_HEAD(sleepers);

struct task_struct *get_current(void)
{
	return arch_cpu_info()->curr_task;
}

unsigned smp_processor_id(void)
{
	return arch_cpu_info()->cpu_id;
}

/* Time slice in ticks for a nice value: 4 at -20, 2 at 0, 1 from 10 on. */
static int timeslice_for(const struct task_struct *t)
{
	int slice = (2 * TIMESLICE_TICKS * (20 - t->nice) + 20) / 40;

	return slice < 1 ? 1 : slice;
}

/* Put t at the back of CPU cpu's run queue. */
static void enqueue_on(struct task_struct *t, unsigned cpu)
{
	struct run_queue *rq = &run_queues[cpu];

	if (t->is_idle)
		return;
	/* The last argument says whether t goes to the front (never here). */
	DTRACE_SCHED3(enqueue, struct task_struct *, t, struct run_queue *, rq, int, 0);
	list_add_tail(&t->run_list, &rq->rq_tasks);
	rq->rq_nr_running++;
	t->rq_cpu = (int)cpu;
}

void enqueue_task(struct task_struct *t)
{
	enqueue_on(t, t->last_cpu >= 0 ? (unsigned)t->last_cpu : smp_processor_id());
}

void dequeue_task(struct task_struct *t)
{
	struct run_queue *rq = &run_queues[t->rq_cpu];

	DTRACE_SCHED2(dequeue, struct task_struct *, t, struct run_queue *, rq);
	list_del(&t->run_list);
	rq->rq_nr_running--;
	t->rq_cpu = -1;
}

static bool task_on_run_queue(struct task_struct *t)
{
	return t->run_list.next != &t->run_list;
}

static bool cpu_usable(unsigned cpu)
{
	return cpu < nr_cpus_online && cpu_infos[cpu].online;
}

/* Runnable tasks of a CPU: its queue and what it runs (idle counts 0). */
static unsigned long cpu_load(unsigned cpu)
{
	const struct cpu_info *ci = &cpu_infos[cpu];

	return run_queues[cpu].rq_nr_running + (ci->curr_task != ci->idle ? 1 : 0);
}

static bool cpu_idle_now(unsigned cpu)
{
	return cpu_usable(cpu) && cpu_load(cpu) == 0;
}

/* The CPU a task that becomes runnable should wait on. */
static unsigned select_cpu(struct task_struct *t)
{
	unsigned n = nr_cpus_online, best, self = smp_processor_id();

	if (n <= 1)
		return self;
	if (t->last_cpu < 0) {
		/* New task: an idle CPU round robin, else the least loaded. */
		best = self;
		for (unsigned k = 1; k <= n; k++) {
			unsigned cpu = (fork_cursor + k) % n;

			if (cpu_idle_now(cpu)) {
				fork_cursor = cpu;
				return cpu;
			}
		}
		for (unsigned k = 1; k <= n; k++) {
			unsigned cpu = (fork_cursor + k) % n;

			if (cpu_usable(cpu) && cpu_load(cpu) < cpu_load(best))
				best = cpu;
		}
		fork_cursor = best;
		return best;
	}
	if (cpu_idle_now((unsigned)t->last_cpu) || !cpu_usable((unsigned)t->last_cpu))
		return cpu_usable((unsigned)t->last_cpu) ? (unsigned)t->last_cpu : self;
	for (unsigned k = 1; k < n; k++) {
		unsigned cpu = ((unsigned)t->last_cpu + k) % n;

		if (cpu_idle_now(cpu))
			return cpu;
	}
	return (unsigned)t->last_cpu;
}

/* Make sure CPU cpu looks at its run queue soon. */
static void kick_cpu(unsigned cpu)
{
	struct cpu_info *ci = &cpu_infos[cpu];

	if (ci->curr_task == ci->idle) {
		ci->idle->need_resched = true;
		if (cpu != smp_processor_id())
			send_ipi(cpu);
	}
}

/* A waiting (not running) task of CPU cpu's queue, or NULL. */
static struct task_struct *waiting_task(unsigned cpu)
{
	struct list_head *pos;

	list_for_each(pos, &run_queues[cpu].rq_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, run_list);

		if (t->on_cpu < 0)
			return t;
	}
	return NULL;
}

/* Move one waiting task from the busiest other queue to CPU self's, if
 * that queue has at least min_excess more runnable tasks than self. */
static bool pull_task(unsigned self, unsigned long min_excess)
{
	unsigned busiest = self;
	unsigned long most = 0;
	struct task_struct *t;

	for (unsigned cpu = 0; cpu < nr_cpus_online; cpu++) {
		if (cpu == self || !cpu_usable(cpu) || run_queues[cpu].rq_nr_running == 0)
			continue;
		if (cpu_load(cpu) > most) {
			most = cpu_load(cpu);
			busiest = cpu;
		}
	}
	if (busiest == self || most < cpu_load(self) + min_excess)
		return false;
	t = waiting_task(busiest);
	if (!t)
		return false;
	dequeue_task(t);
	enqueue_on(t, self);
	return true;
}

static bool any_waiting_elsewhere(unsigned self)
{
	for (unsigned cpu = 0; cpu < nr_cpus_online; cpu++)
		if (cpu != self && run_queues[cpu].rq_nr_running > 0 && cpu_load(cpu) > 1)
			return true;
	return false;
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
		if (!task_on_run_queue(t) && t->on_cpu < 0) {
			unsigned cpu = select_cpu(t);

			enqueue_on(t, cpu);
			kick_cpu(cpu);
		}
	}
}

/* The task CPU cpu runs next: a waiting task of its queue, else prev again
 * when it is still runnable (schedule() queued it at the tail, so any other
 * waiting task goes first; waiting_task skips it because it is still on the
 * CPU), else one pulled from a busier queue, else the idle task. */
static struct task_struct *pick_next_task(unsigned cpu, struct task_struct *prev, struct task_struct *idle)
{
	struct task_struct *t = waiting_task(cpu);

	if (!t && task_on_run_queue(prev) && prev->rq_cpu == (int)cpu)
		t = prev;
	if (!t && pull_task(cpu, 1))
		t = waiting_task(cpu);
	if (t) {
		dequeue_task(t);
		return t;
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
		enqueue_on(prev, cpu);
	next = pick_next_task(cpu, prev, ci->idle);
	if (next == prev) {
		prev->timeslice = timeslice_for(prev);
		return;
	}
	DTRACE_SCHED1(off__cpu, struct task_struct *, next);
	prev->on_cpu = -1;
	next->on_cpu = (int)cpu;
	if (next->last_cpu >= 0 && next->last_cpu != (int)cpu && !next->is_idle)
		ci->migrations++;
	next->last_cpu = (int)cpu;
	next->timeslice = timeslice_for(next);
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
	unsigned cpu = smp_processor_id();

	dtrace_continue_grabbed();
	if (t->is_idle) {
		t->stime_ticks++;       /* idle time, for /proc/uptime */
		if (run_queues[cpu].rq_nr_running > 0 || any_waiting_elsewhere(cpu))
			t->need_resched = true;
		return;
	}
	if ((cpu_infos[cpu].ticks + cpu) % BALANCE_TICKS == 0)
		pull_task(cpu, 2);
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
		unsigned cpu = smp_processor_id();

		/* Look again after running something: work that came while this
		 * CPU was busy must not wait for the next interrupt. */
		if (current->need_resched || run_queues[cpu].rq_nr_running > 0 || any_waiting_elsewhere(cpu)) {
			uint64_t switches = cpu_infos[cpu].context_switches;

			schedule();
			if (cpu_infos[cpu].context_switches != switches)
				continue;
		}
		unlock_kernel();
		arch_wait_for_interrupt();
		lock_kernel();
	}
}
