/*
 * Creating tasks: task allocation, pid numbers, do_fork (fork, vfork and
 * clone, sharing or copying the address space, files, fs context and signal
 * handlers as the clone flags say) and kernel threads.
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/proc.h>
#include <kernel/sched.h>
#include <kernel/sdt.h>
#include <kernel/syscall.h>
#include <kernel/time.h>

LIST_HEAD(task_list);
struct task_struct *init_task;
static pid_t last_pid;

pid_t alloc_pid(void)
{
	for (;;) {
		if (++last_pid >= 32768)
			last_pid = 2;
		if (!find_task_by_pid(last_pid))
			return last_pid;
	}
}

struct task_struct *find_task_by_pid(pid_t pid)
{
	struct list_head *pos;

	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->pid == pid)
			return t;
	}
	return NULL;
}

struct task_struct *alloc_task(void)
{
	struct task_struct *t = kzalloc(sizeof(*t));
	paddr_t stack;

	if (!t)
		return NULL;
	stack = alloc_pages(KERNEL_STACK_SIZE / PAGE_SIZE);
	if (!stack) {
		kfree(t);
		return NULL;
	}
	t->kstack = (unsigned long)phys_to_virt(stack);
	t->on_cpu = -1;
	t->last_cpu = -1;
	t->rq_cpu = -1;
	t->timeslice = TIMESLICE_TICKS;
	t->start_time_ns = ktime_get_ns();
	INIT_LIST_HEAD(&t->children);
	INIT_LIST_HEAD(&t->sibling);
	INIT_LIST_HEAD(&t->run_list);
	INIT_LIST_HEAD(&t->sleep_list);
	INIT_LIST_HEAD(&t->tasks);
	return t;
}

void free_task(struct task_struct *t)
{
	list_del(&t->tasks);
	free_pages(virt_to_phys((void *)t->kstack), KERNEL_STACK_SIZE / PAGE_SIZE);
	exec_info_put(t->exec_info);
	kfree(t);
}

void set_task_comm(struct task_struct *t, const char *name)
{
	const char *base = strrchr(name, '/');

	strlcpy(t->comm, base ? base + 1 : name, sizeof(t->comm));
}

static int copy_process_resources(struct task_struct *child, struct task_struct *parent,
				  unsigned long flags)
{
	if (flags & CLONE_VM) {
		child->mm = parent->mm;
		child->mm->mm_users++;
	} else {
		child->mm = mm_dup(parent->mm);
		if (!child->mm)
			return -ENOMEM;
	}
	if (flags & CLONE_FILES) {
		child->files = parent->files;
		child->files->count++;
	} else {
		child->files = files_dup(parent->files);
		if (!child->files)
			return -ENOMEM;
	}
	if (flags & CLONE_FS) {
		child->fs = parent->fs;
		child->fs->count++;
	} else {
		child->fs = fs_dup(parent->fs);
		if (!child->fs)
			return -ENOMEM;
	}
	if (flags & CLONE_SIGHAND) {
		child->sighand = parent->sighand;
		child->sighand->count++;
	} else {
		child->sighand = sighand_dup(parent->sighand);
		if (!child->sighand)
			return -ENOMEM;
	}
	return 0;
}

static void release_process_resources(struct task_struct *t)
{
	if (t->mm)
		mmput(t->mm);
	if (t->files)
		files_put(t->files);
	if (t->fs)
		fs_put(t->fs);
	if (t->sighand)
		sighand_put(t->sighand);
	t->mm = NULL;
	t->files = NULL;
	t->fs = NULL;
	t->sighand = NULL;
}

long do_fork(unsigned long clone_flags, unsigned long new_sp, struct pt_regs *regs,
	     unsigned long parent_tid, unsigned long child_tid, unsigned long tls)
{
	struct task_struct *parent = current, *child;
	int err;

	if ((clone_flags & CLONE_THREAD) && !(clone_flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((clone_flags & CLONE_SIGHAND) && !(clone_flags & CLONE_VM))
		return -EINVAL;
	child = alloc_task();
	if (!child)
		return -ENOMEM;
	err = copy_process_resources(child, parent, clone_flags);
	if (err < 0) {
		release_process_resources(child);
		free_pages(virt_to_phys((void *)child->kstack), KERNEL_STACK_SIZE / PAGE_SIZE);
		kfree(child);
		return err;
	}
	child->pid = alloc_pid();
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	child->arch = parent->arch;
	child->blocked_signals = parent->blocked_signals;
	memcpy(child->rlim, parent->rlim, sizeof(child->rlim));
	child->exec_info = parent->exec_info;
	if (child->exec_info)
		child->exec_info->refs++;
	if (clone_flags & CLONE_THREAD) {
		child->tgid = parent->tgid;
		child->group_leader = parent->group_leader;
		child->parent = parent->parent;
		child->exit_signal = -1;
	} else {
		child->tgid = child->pid;
		child->group_leader = child;
		child->parent = parent;
		child->exit_signal = (int)(clone_flags & CSIGNAL);
	}
	list_add_tail(&child->sibling, &child->parent->children);
	list_add_tail(&child->tasks, &task_list);
	proc_task_created(child);
	arch_thread_setup_fork(child, regs, new_sp, (clone_flags & CLONE_SETTLS) ? tls : 0);
	if (clone_flags & CLONE_CHILD_CLEARTID)
		child->clear_child_tid = child_tid;
	if (clone_flags & CLONE_PARENT_SETTID)
		copy_to_user((void *)parent_tid, &child->pid, sizeof(pid_t));
	child->nice = parent->nice;
	DTRACE_PROC1(create, struct task_struct *, child);
	child->state = TASK_RUNNING;
	wake_up_process(child);
	if (clone_flags & CLONE_VFORK) {
		/* The parent waits until the child execs or exits. */
		while (child->mm == parent->mm && child->state != TASK_ZOMBIE &&
		       child->state != TASK_DEAD && !signal_pending(parent))
			sleep_on(child);
	}
	return child->pid;
}

struct task_struct *kernel_thread(void (*fn)(void *), void *arg, const char *name)
{
	struct task_struct *t = alloc_task();

	if (!t)
		return NULL;
	t->pid = alloc_pid();
	t->tgid = t->pid;
	t->group_leader = t;
	t->parent = init_task ? init_task : current;
	t->is_kthread = true;
	t->sighand = sighand_alloc();
	t->fs = fs_alloc();
	t->files = files_alloc();
	set_task_comm(t, name);
	rlimit_init(t);
	list_add_tail(&t->tasks, &task_list);
	proc_task_created(t);
	arch_thread_setup_kernel(t, fn, arg);
	t->state = TASK_RUNNING;
	wake_up_process(t);
	return t;
}

long sys_fork(long a0, long a1, long a2, long a3, long a4, long a5)
{
	return do_fork(SIGCHLD, 0, current->regs, 0, 0, 0);
}

long sys_vfork(long a0, long a1, long a2, long a3, long a4, long a5)
{
	return do_fork(CLONE_VFORK | CLONE_VM | SIGCHLD, 0, current->regs, 0, 0, 0);
}

/* clone's argument order differs: x86-64 (flags, sp, ptid, ctid, tls),
 * ARM (flags, sp, ptid, tls, ctid). */
long sys_clone(long flags, long sp, long ptid, long a3, long a4, long a5)
{
#if defined(__x86_64__)
	return do_fork((unsigned long)flags, (unsigned long)sp, current->regs,
		       (unsigned long)ptid, (unsigned long)a3, (unsigned long)a4);
#else
	return do_fork((unsigned long)flags, (unsigned long)sp, current->regs,
		       (unsigned long)ptid, (unsigned long)a4, (unsigned long)a3);
#endif
}

/* Only exit reaches here for a kernel thread's resources; user tasks go
 * through do_exit. */
void release_task(struct task_struct *t)
{
	list_del(&t->sibling);
	proc_task_released(t);
	release_process_resources(t);
	t->state = TASK_DEAD;
	free_task(t);
}
