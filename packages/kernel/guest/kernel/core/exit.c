/*
 * Ending tasks: do_exit releases what a task holds, hands its children to
 * init and leaves a zombie for the parent (threads leave none); wait4 reaps
 * zombies. proc:::exit fires with the reason (1 exited, 2 killed).
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/sdt.h>
#include <kernel/syscall.h>

#define CLD_EXITED 1
#define CLD_KILLED 2

static void reparent_children(struct task_struct *t)
{
	struct list_head *pos, *n;

	list_for_each_safe(pos, n, &t->children) {
		struct task_struct *child = list_entry(pos, struct task_struct, sibling);

		list_del(&child->sibling);
		child->parent = init_task;
		list_add_tail(&child->sibling, &init_task->children);
		if (child->state == TASK_ZOMBIE)
			wake_up(init_task);
	}
}

static void exit_resources(struct task_struct *t)
{
	if (t->clear_child_tid && t->mm) {
		int zero = 0;

		copy_to_user((void *)t->clear_child_tid, &zero, sizeof(zero));
	}
	if (t->mm) {
		struct mm_struct *mm = t->mm;

		t->mm = NULL;
		arch_switch_mm(NULL);
		mmput(mm);
	}
	if (t->files) {
		files_put(t->files);
		t->files = NULL;
	}
	if (t->fs) {
		fs_put(t->fs);
		t->fs = NULL;
	}
}

/* code is a wait status: exit status << 8, or the killing signal. */
__noreturn void do_exit(int code)
{
	struct task_struct *t = current;
	bool thread = t->exit_signal < 0;

	if (t == init_task)
		panic("init exited with status %#x", code);
	DTRACE_PROC1(exit, int, (code & 0x7f) ? CLD_KILLED : CLD_EXITED);
	exit_resources(t);
	reparent_children(t);
	t->exit_code = code;
	if (thread) {
		list_del(&t->sibling);
		if (t->sighand) {
			sighand_put(t->sighand);
			t->sighand = NULL;
		}
		t->state = TASK_DEAD;
	} else {
		t->state = TASK_ZOMBIE;
		if (t->exit_signal > 0 && t->parent)
			send_signal(t->parent, t->exit_signal);
		wake_up(t->parent);
	}
	wake_up(t);                 /* a vfork parent waits on the child */
	schedule();
	panic("do_exit: dead task %d scheduled again", t->pid);
}

/* Kill the other threads of the group, then exit. */
__noreturn void do_group_exit(int code)
{
	struct task_struct *self = current;
	struct list_head *pos;

	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t != self && t->tgid == self->tgid && t->state != TASK_ZOMBIE &&
		    t->state != TASK_DEAD) {
			t->pending_signals |= 1ull << (SIGKILL - 1);
			wake_up_process(t);
		}
	}
	do_exit(code);
}

static bool wait_matches(struct task_struct *child, pid_t pid)
{
	if (pid > 0)
		return child->pid == pid;
	return true;      /* -1, 0 and process groups: any child */
}

long do_wait4(pid_t pid, int *ustatus, int options)
{
	struct task_struct *self = current;

	for (;;) {
		struct list_head *pos;
		bool have_child = false;

		list_for_each(pos, &self->children) {
			struct task_struct *child = list_entry(pos, struct task_struct, sibling);
			pid_t child_pid;

			if (!wait_matches(child, pid) || child->exit_signal < 0)
				continue;
			have_child = true;
			if (child->state != TASK_ZOMBIE)
				continue;
			child_pid = child->pid;
			if (ustatus && copy_to_user(ustatus, &child->exit_code, sizeof(int)) < 0)
				return -EFAULT;
			/* times() and RUSAGE_CHILDREN count what was waited for. */
			self->group_leader->cutime_ticks += child->utime_ticks + child->cutime_ticks;
			self->group_leader->cstime_ticks += child->stime_ticks + child->cstime_ticks;
			release_task(child);
			return child_pid;
		}
		if (!have_child)
			return -ECHILD;
		if (options & WNOHANG)
			return 0;
		sleep_on(self);
		if (signal_pending(self))
			return -EINTR;
	}
}

long sys_wait4(long pid, long status, long options, long rusage, long a4, long a5)
{
	if (rusage)
		clear_user((void *)rusage, 18 * sizeof(long));   /* struct rusage */
	return do_wait4((pid_t)pid, (int *)status, (int)options);
}

long sys_exit(long code, long a1, long a2, long a3, long a4, long a5)
{
	do_exit(((int)code & 0xff) << 8);
}

long sys_exit_group(long code, long a1, long a2, long a3, long a4, long a5)
{
	do_group_exit(((int)code & 0xff) << 8);
}
