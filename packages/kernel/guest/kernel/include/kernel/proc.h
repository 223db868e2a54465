/* /proc (fs/proc.c): a Linux-like view of the processes and the machine,
 * kept in the RAM file system's /proc directory. Each process (thread-group
 * leader) gets a /proc/PID directory when it is created and loses it when
 * it is reaped; its files are generated when opened. */
#ifndef KERNEL_PROC_H
#define KERNEL_PROC_H
#include <kernel/types.h>

struct task_struct;
struct inode;

/* What exec recorded about a process: its executable (absolute path) and
 * its argument strings back to back, as /proc/PID/exe and cmdline show
 * them. Shared by fork, replaced by exec. */
struct exec_info {
	int refs;
	size_t cmdline_len;
	char *exe;                       /* points into data */
	char data[];                     /* exe path, NUL, then the arguments */
};

void proc_init(void);
void proc_task_created(struct task_struct *t);
void proc_task_released(struct task_struct *t);
int exec_info_set(struct task_struct *t, const char *exe, const char *args, size_t args_len);
void exec_info_put(struct exec_info *info);
/* The target of a /proc symbolic link (self, PID/exe) into buf;
 * its length, or a negative errno. */
long proc_get_link(struct inode *inode, char *buf, size_t size);
bool proc_is_link(const struct inode *inode);
#endif
