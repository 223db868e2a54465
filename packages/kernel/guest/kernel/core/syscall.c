/*
 * System-call dispatch. The table is generated from uapi/syscalls.h (the
 * same list libc uses), so the numbers of both ISAs come from one place.
 * An unknown number returns -ENOSYS and is logged once. The sdt sites
 * syscall-entry and syscall-return bracket every call.
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/sched.h>
#include <kernel/sdt.h>
#include <kernel/syscall.h>

typedef long (*syscall_fn)(long, long, long, long, long, long);

struct syscall_entry {
	long nr;
	const char *name;
	syscall_fn fn;
	int nargs;
};

#if defined(__x86_64__)
#define SYSCALL_NR(x86, arm) (x86)
#else
#define SYSCALL_NR(x86, arm) (arm)
#endif

static const struct syscall_entry syscall_list[] = {
#define SYSCALL(name, x86, arm, nargs) { SYSCALL_NR(x86, arm), #name, sys_##name, nargs },
#include <uapi/syscalls.h>
#undef SYSCALL
};

#define SYSCALL_TABLE_SIZE 512
static const struct syscall_entry *syscall_table[SYSCALL_TABLE_SIZE];
static uint32_t unknown_logged[SYSCALL_TABLE_SIZE / 32];

/* ARM private calls (0xf0000 + n) are looked up in the list directly. */
static const struct syscall_entry *syscall_lookup(unsigned long nr)
{
	if (nr < SYSCALL_TABLE_SIZE)
		return syscall_table[nr];
	for (size_t i = 0; i < ARRAY_SIZE(syscall_list); i++)
		if (syscall_list[i].nr == (long)nr)
			return &syscall_list[i];
	return NULL;
}

void syscall_init(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(syscall_list); i++) {
		long nr = syscall_list[i].nr;

		if (nr >= 0 && nr < SYSCALL_TABLE_SIZE)
			syscall_table[nr] = &syscall_list[i];
	}
}

static void log_unknown_syscall(unsigned long nr)
{
	unsigned long slot = nr < SYSCALL_TABLE_SIZE ? nr : SYSCALL_TABLE_SIZE - 1;

	if (unknown_logged[slot / 32] & (1u << (slot % 32)))
		return;
	unknown_logged[slot / 32] |= 1u << (slot % 32);
	printk("%s[%d]: unknown system call %lu (ENOSYS)\n", current->comm, current->pid, nr);
}

void do_syscall(struct pt_regs *regs)
{
	unsigned long nr = regs_syscall_nr(regs);
	const struct syscall_entry *entry = syscall_lookup(nr);
	long ret;

	if (!entry) {
		log_unknown_syscall(nr);
		regs_set_return(regs, -ENOSYS);
		return;
	}
	DTRACE_PROBE2(syscall__entry, unsigned long, nr, const char *, entry->name);
	ret = entry->fn((long)regs_syscall_arg(regs, 0), (long)regs_syscall_arg(regs, 1),
			(long)regs_syscall_arg(regs, 2), (long)regs_syscall_arg(regs, 3),
			(long)regs_syscall_arg(regs, 4), (long)regs_syscall_arg(regs, 5));
	DTRACE_PROBE3(syscall__return, unsigned long, nr, const char *, entry->name, long, ret);
	/* execve replaced the frame; its return value is the new program's
	 * initial register, which exec already set. */
	if (!(ret == 0 && entry->fn == sys_execve))
		regs_set_return(regs, ret);
}
