/*
 * /proc: the Linux files that ps, top and friends read, in the RAM file
 * system's /proc directory (the initrd makes it; /proc/tasks, the guest's
 * own table, is a character device beside them).
 *
 *   /proc/PID/{stat,status,cmdline,comm}   one directory per process
 *   /proc/PID/exe                          link to its executable
 *   /proc/self                             link to the caller's PID
 *   /proc/uptime, /proc/meminfo
 *
 * Directories are real directory entries, made when a process (a thread
 * group leader) is created and removed when it is reaped, so readdir, stat
 * and lookup need nothing special. A file's inode only names its process
 * and kind (i_private); opening it takes a snapshot of the text, as Linux's
 * seq files do, and reads are served from the snapshot. The formats are
 * Linux's (fs/proc/array.c, base.c, meminfo.c); fields this kernel does not
 * keep read as 0.
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/proc.h>
#include <kernel/sched.h>
#include <kernel/time.h>

#define USER_HZ 100              /* clock ticks of /proc and times() */

enum proc_kind {
	PROC_STAT = 1,
	PROC_STATUS,
	PROC_CMDLINE,
	PROC_COMM,
	PROC_EXE,
	PROC_SELF,
	PROC_UPTIME,
	PROC_MEMINFO,
};

static const struct {
	const char *name;
	enum proc_kind kind;
} pid_files[] = {
	{ "cmdline", PROC_CMDLINE },
	{ "comm", PROC_COMM },
	{ "exe", PROC_EXE },
	{ "stat", PROC_STAT },
	{ "status", PROC_STATUS },
};

static struct inode *proc_root;

#define PROC_KEY(pid, kind) ((void *)(uintptr_t)(((unsigned long)(pid) << 8) | (kind)))
#define PROC_PID(inode) ((pid_t)((uintptr_t)(inode)->i_private >> 8))
#define PROC_KIND(inode) ((enum proc_kind)((uintptr_t)(inode)->i_private & 0xff))

/* ---- exec info ---- */

/* The file a path names, when it names a symbolic link (as busybox runs
 * its applets through /proc/self/exe): the link's target, so the exe link
 * shows the executable itself, as Linux's does. */
static void resolve_exe(const char *path, char *out, size_t size)
{
	strlcpy(out, path, size);
	for (int depth = 0; depth < 8; depth++) {
		char target[PATH_MAX];
		int err;
		struct inode *inode = path_lookup_flags(out, false, &err);
		char *slash;

		if (!inode || !S_ISLNK(inode->i_mode) || inode_readlink(inode, target, sizeof(target)) <= 0)
			return;
		slash = strrchr(out, '/');
		if (target[0] == '/' || !slash)
			strlcpy(out, target, size);
		else if ((size_t)(slash + 1 - out) + strlen(target) < size)
			strcpy(slash + 1, target);
		else
			return;
	}
}

int exec_info_set(struct task_struct *t, const char *path, const char *args, size_t args_len)
{
	char exe[PATH_MAX];
	const char *cwd;
	size_t nc, ne, n = 0;
	struct exec_info *info;

	resolve_exe(path, exe, sizeof(exe));
	cwd = exe[0] == '/' || !t->fs ? "" : t->fs->cwd_path;
	nc = strlen(cwd);
	ne = strlen(exe);
	info = kmalloc(sizeof(*info) + nc + 1 + ne + 1 + args_len);
	if (!info)
		return -ENOMEM;
	info->refs = 1;
	info->exe = info->data;
	memcpy(info->data, cwd, nc);
	n = nc;
	if (nc > 0 && cwd[nc - 1] != '/')
		info->data[n++] = '/';
	memcpy(info->data + n, exe, ne + 1);
	n += ne + 1;
	memcpy(info->data + n, args, args_len);
	info->cmdline_len = args_len;
	exec_info_put(t->exec_info);
	t->exec_info = info;
	return 0;
}

void exec_info_put(struct exec_info *info)
{
	if (info && --info->refs == 0)
		kfree(info);
}

static const char *exec_cmdline(const struct exec_info *info)
{
	return info->exe + strlen(info->exe) + 1;
}

/* ---- directory entries ---- */

static const struct file_operations proc_file_operations;

static struct inode *proc_new_file(mode_t mode, pid_t pid, enum proc_kind kind)
{
	struct inode *inode = new_inode(mode);

	if (!inode)
		return NULL;
	inode->i_fop = &proc_file_operations;
	inode->i_private = PROC_KEY(pid, kind);
	return inode;
}

static void proc_add(struct inode *dir, const char *name, mode_t mode, pid_t pid, enum proc_kind kind)
{
	struct inode *inode = proc_new_file(mode, pid, kind);

	if (inode && dir_add_entry(dir, name, inode) < 0)
		kfree(inode);
}

bool proc_is_link(const struct inode *inode)
{
	return inode->i_fop == &proc_file_operations && S_ISLNK(inode->i_mode);
}

void proc_task_created(struct task_struct *t)
{
	char name[16];
	struct inode *dir;

	if (!proc_root || t->is_idle || t->group_leader != t)
		return;
	snprintf(name, sizeof(name), "%d", t->pid);
	dir = new_inode(S_IFDIR | 0555);
	if (!dir)
		return;
	if (dir_add_entry(proc_root, name, dir) < 0) {
		kfree(dir);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(pid_files); i++)
		proc_add(dir, pid_files[i].name,
			 pid_files[i].kind == PROC_EXE ? S_IFLNK | 0777 : S_IFREG | 0444,
			 t->pid, pid_files[i].kind);
}

void proc_task_released(struct task_struct *t)
{
	char name[16];
	struct inode *dir;

	if (!proc_root || t->group_leader != t)
		return;
	snprintf(name, sizeof(name), "%d", t->pid);
	dir = dir_lookup(proc_root, name);
	if (!dir || dir == proc_root || !S_ISDIR(dir->i_mode))
		return;
	while (dir->i_entries) {
		struct inode *inode = dir->i_entries->inode;

		dir_remove_entry(dir, dir->i_entries->name);
		inode->i_nlink = 0;
		inode->i_count++;
		iput(inode);
	}
	dir_remove_entry(proc_root, name);
	dir->i_nlink = 0;
	dir->i_count++;
	iput(dir);
}

void proc_init(void)
{
	int err;
	struct list_head *pos;

	proc_root = path_lookup("/proc", &err);
	if (!proc_root) {
		if (vfs_mkdir("/proc", 0555) < 0)
			return;
		proc_root = path_lookup("/proc", &err);
		if (!proc_root)
			return;
	}
	proc_add(proc_root, "self", S_IFLNK | 0777, 0, PROC_SELF);
	proc_add(proc_root, "uptime", S_IFREG | 0444, 0, PROC_UPTIME);
	proc_add(proc_root, "meminfo", S_IFREG | 0444, 0, PROC_MEMINFO);
	list_for_each(pos, &task_list)
		proc_task_created(list_entry(pos, struct task_struct, tasks));
}

/* ---- links ---- */

long proc_get_link(struct inode *inode, char *buf, size_t size)
{
	struct task_struct *t;
	int n;

	if (PROC_KIND(inode) == PROC_SELF) {
		if (!current)
			return -ENOENT;
		n = snprintf(buf, size, "%d", current->tgid);
		return n < (int)size ? n : -ENAMETOOLONG;
	}
	t = find_task_by_pid(PROC_PID(inode));
	if (!t || !t->exec_info)
		return -ENOENT;
	n = snprintf(buf, size, "%s", t->exec_info->exe);
	return n < (int)size ? n : -ENAMETOOLONG;
}

/* ---- file contents ---- */

struct proc_snapshot {
	size_t len, cap;
	char text[];
};

static void emit(struct proc_snapshot *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(struct proc_snapshot *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->len >= s->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->text + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	s->len += (size_t)n < s->cap - s->len ? (size_t)n : s->cap - s->len - 1;
}

static char state_letter(const struct task_struct *t)
{
	switch (t->state) {
	case TASK_RUNNING: return 'R';
	case TASK_INTERRUPTIBLE: return 'S';
	case TASK_UNINTERRUPTIBLE: return 'D';
	case TASK_STOPPED: return 'T';
	case TASK_ZOMBIE: return 'Z';
	default: return 'X';
	}
}

static const char *state_name(char letter)
{
	switch (letter) {
	case 'R': return "running";
	case 'S': return "sleeping";
	case 'D': return "disk sleep";
	case 'T': return "stopped";
	case 'Z': return "zombie";
	default: return "dead";
	}
}

static unsigned long ns_to_clock_t(uint64_t ns)
{
	return (unsigned long)(ns / (NSEC_PER_SEC / USER_HZ));
}

/* Ticks of the scheduler are 10 ms: one tick is one clock_t. */
struct group_times {
	uint64_t utime, stime;
	int threads;
};

static struct group_times group_times(const struct task_struct *leader)
{
	struct group_times g = { 0, 0, 0 };
	struct list_head *pos;

	list_for_each(pos, &task_list) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->tgid != leader->tgid || t->is_idle || t->state == TASK_DEAD)
			continue;
		g.utime += t->utime_ticks;
		g.stime += t->stime_ticks;
		g.threads++;
	}
	return g;
}

static unsigned long vm_bytes(const struct mm_struct *mm)
{
	unsigned long total = 0;

	for (const struct vm_area_struct *v = mm ? mm->mmap : NULL; v; v = v->vm_next)
		total += v->vm_end - v->vm_start;
	return total;
}

static void show_stat(struct proc_snapshot *s, struct task_struct *t)
{
	struct group_times g = group_times(t);
	char state = state_letter(t);
	pid_t ppid = t->parent ? t->parent->tgid : 0;
	int cpu = t->on_cpu >= 0 ? t->on_cpu : (t->last_cpu >= 0 ? t->last_cpu : 0);
	struct mm_struct *mm = t->mm;

	/* pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice num_threads
	 * itrealvalue starttime vsize rss rsslim ... */
	emit(s, "%d (%s) %c %d %d %d 0 -1 %u 0 0 0 0 %lu %lu %lu %lu %d %d %d 0 %lu %lu %lu %llu",
	     t->pid, t->comm, state, ppid, t->tgid, t->tgid, t->is_kthread ? 0x00200040u : 0x00400000u,
	     (unsigned long)g.utime, (unsigned long)g.stime, (unsigned long)t->cutime_ticks,
	     (unsigned long)t->cstime_ticks, 20 + t->nice, t->nice, g.threads,
	     ns_to_clock_t(t->start_time_ns), vm_bytes(mm), mm ? mm->rss_pages : 0ul,
	     (unsigned long long)t->rlim[5].rlim_cur);
	/* startcode endcode startstack kstkesp kstkeip signal blocked sigignore
	 * sigcatch wchan nswap cnswap exit_signal processor rt_priority policy
	 * delayacct_blkio_ticks guest_time cguest_time start_data end_data
	 * start_brk arg_start arg_end env_start env_end exit_code */
	emit(s, " 0 0 %lu 0 0 %llu %llu 0 0 0 0 0 %d %d 0 0 0 0 0 0 0 %lu 0 0 0 0 %d\n",
	     mm ? (unsigned long)mm->stack_top : 0ul, (unsigned long long)t->pending_signals,
	     (unsigned long long)t->blocked_signals, t->exit_signal, cpu,
	     mm ? (unsigned long)mm->start_brk : 0ul, state == 'Z' ? t->exit_code : 0);
}

static void show_status(struct proc_snapshot *s, struct task_struct *t)
{
	struct group_times g = group_times(t);
	char state = state_letter(t);

	emit(s, "Name:\t%s\nUmask:\t%04o\nState:\t%c (%s)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\n"
	     "TracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t%d\nGroups:\t\n",
	     t->comm, t->fs ? t->fs->umask : 022, state, state_name(state), t->tgid, t->pid,
	     t->parent ? t->parent->tgid : 0, NR_OPEN);
	if (t->mm)
		emit(s, "VmSize:\t%8lu kB\nVmRSS:\t%8lu kB\n", vm_bytes(t->mm) >> 10,
		     (t->mm->rss_pages * PAGE_SIZE) >> 10);
	emit(s, "Threads:\t%d\nSigPnd:\t%016llx\nSigBlk:\t%016llx\n", g.threads,
	     (unsigned long long)t->pending_signals, (unsigned long long)t->blocked_signals);
}

static void show_uptime(struct proc_snapshot *s)
{
	uint64_t up = ktime_get_ns(), idle = 0;

	for (unsigned c = 0; c < NR_CPUS; c++)
		if (cpu_infos[c].online && cpu_infos[c].idle)
			idle += cpu_infos[c].idle->utime_ticks + cpu_infos[c].idle->stime_ticks;
	emit(s, "%lu.%02lu %lu.%02lu\n", (unsigned long)(up / NSEC_PER_SEC),
	     (unsigned long)(up % NSEC_PER_SEC / (NSEC_PER_SEC / 100)),
	     (unsigned long)(idle / USER_HZ), (unsigned long)(idle % USER_HZ));
}

static void show_meminfo(struct proc_snapshot *s)
{
	unsigned long total = nr_total_pages() * (PAGE_SIZE / 1024);
	unsigned long free = nr_free_pages() * (PAGE_SIZE / 1024);
	static const char *const zero[] = { "Buffers:", "Cached:", "SwapCached:", "SwapTotal:", "SwapFree:" };

	emit(s, "%-16s%8lu kB\n%-16s%8lu kB\n%-16s%8lu kB\n", "MemTotal:", total, "MemFree:", free,
	     "MemAvailable:", free);
	for (size_t i = 0; i < ARRAY_SIZE(zero); i++)
		emit(s, "%-16s%8lu kB\n", zero[i], 0ul);
}

#define SNAPSHOT_CAP 1024

static int proc_open(struct inode *inode, struct file *file)
{
	enum proc_kind kind = PROC_KIND(inode);
	struct task_struct *t = NULL;
	struct proc_snapshot *s;
	size_t cap = SNAPSHOT_CAP;

	if (file->f_flags & (O_WRONLY | O_RDWR))
		return -EACCES;
	if (PROC_PID(inode)) {
		t = find_task_by_pid(PROC_PID(inode));
		if (!t)
			return -ENOENT;
		if (kind == PROC_CMDLINE && t->exec_info)
			cap = t->exec_info->cmdline_len + 1;
	}
	s = kmalloc(sizeof(*s) + cap);
	if (!s)
		return -ENOMEM;
	s->len = 0;
	s->cap = cap;
	switch (kind) {
	case PROC_STAT: show_stat(s, t); break;
	case PROC_STATUS: show_status(s, t); break;
	case PROC_COMM: emit(s, "%s\n", t->comm); break;
	case PROC_CMDLINE:
		/* Kernel threads and zombies have none: the file is empty. */
		if (t->exec_info && t->mm && !t->is_kthread) {
			memcpy(s->text, exec_cmdline(t->exec_info), t->exec_info->cmdline_len);
			s->len = t->exec_info->cmdline_len;
		}
		break;
	case PROC_UPTIME: show_uptime(s); break;
	case PROC_MEMINFO: show_meminfo(s); break;
	default:
		kfree(s);
		return -ELOOP;      /* links are followed, never opened */
	}
	file->private_data = s;
	return 0;
}

static ssize_t proc_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	struct proc_snapshot *s = file->private_data;
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

static ssize_t proc_write(struct file *file, const char *ubuf, size_t n, off_t *pos)
{
	return -EBADF;
}

static int proc_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	file->private_data = NULL;
	return 0;
}

static const struct file_operations proc_file_operations = {
	.open = proc_open,
	.read = proc_read,
	.write = proc_write,
	.release = proc_release,
};
