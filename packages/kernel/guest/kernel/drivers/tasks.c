/*
 * /proc/tasks (character device, major TASKS_MAJOR, minor 0): a read-only
 * text view of the task table for ps. Opening it takes a snapshot, one line
 * per task after a header:
 *
 *   PID TGID PPID STATE CPU NICE UTIME STIME COMM
 *
 * STATE is R (on a CPU or a run queue), S (sleeping), D (uninterruptible)
 * or Z (zombie); CPU is the CPU it runs on or last ran on (-1: never ran);
 * UTIME and STIME are timer ticks in user and kernel mode. Idle tasks are
 * left out.
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

#define TASKS_MAJOR 60 /* Linux's range for local use is 60-63 */
#define LINE_MAX_LEN 96

struct snapshot {
	size_t len;
	char text[];
};

static char state_letter(const struct task_struct *t)
{
	switch (t->state) {
	case TASK_RUNNING: return 'R';
	case TASK_INTERRUPTIBLE: return 'S';
	case TASK_UNINTERRUPTIBLE: return 'D';
	case TASK_STOPPED: return 'T';
	default: return 'Z';
	}
}

static int tasks_open(struct inode *inode, struct file *file)
{
	struct list_head *pos;
	size_t count = 1, cap, len;
	struct snapshot *s;

	if (MINOR(inode->i_rdev) != 0)
		return -ENXIO;
	if (file->f_flags & (O_WRONLY | O_RDWR))
		return -EACCES;
	list_for_each(pos, &task_list)
		count++;
	cap = count * LINE_MAX_LEN;
	s = kmalloc(sizeof(*s) + cap);
	if (!s)
		return -ENOMEM;
	len = (size_t)snprintf(s->text, cap, "PID TGID PPID STATE CPU NICE UTIME STIME COMM\n");
	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);
		int cpu = t->on_cpu >= 0 ? t->on_cpu : t->last_cpu;

		if (t->is_idle || t->state == TASK_DEAD || len + LINE_MAX_LEN > cap)
			continue;
		len += (size_t)snprintf(s->text + len, cap - len, "%d %d %d %c %d %d %lu %lu %s\n", t->pid, t->tgid,
					t->parent ? t->parent->tgid : 0, state_letter(t), cpu, t->nice,
					(unsigned long)t->utime_ticks, (unsigned long)t->stime_ticks,
					t->comm[0] ? t->comm : "?");
	}
	s->len = len;
	file->private_data = s;
	return 0;
}

static ssize_t tasks_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	struct snapshot *s = file->private_data;
	size_t left;

	if (*pos < 0 || (size_t)*pos >= s->len)
		return 0;
	left = s->len - (size_t)*pos;
	if (n > left)
		n = left;
	if (copy_to_user(ubuf, s->text + *pos, n) < 0)
		return -EFAULT;
	*pos += (off_t)n;
	return (ssize_t)n;
}

static int tasks_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	file->private_data = NULL;
	return 0;
}

static const struct file_operations tasks_fops = {
	.open = tasks_open,
	.read = tasks_read,
	.release = tasks_release,
};

void tasks_device_init(void)
{
	register_chrdev(TASKS_MAJOR, "tasks", &tasks_fops);
}
