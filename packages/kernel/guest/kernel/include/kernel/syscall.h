/* System-call dispatch: the table comes from uapi/syscalls.h. */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H
#include <kernel/types.h>
#include <kernel/arch.h>

void syscall_init(void);
void do_syscall(struct pt_regs *regs);

/* Every handler, declared from the table with the generic signature the
 * dispatcher uses. */
#define SYSCALL(name, x86, arm, nargs) \
	long sys_##name(long, long, long, long, long, long);
#include <uapi/syscalls.h>
#undef SYSCALL
#endif
