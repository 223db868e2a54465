/* Processes, threads, per-CPU state and the scheduler. */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H
#include <kernel/types.h>
#include <kernel/arch.h>
#include <kernel/spinlock.h>
#include <uapi/abi.h>

#define NR_CPUS 8
#define KERNEL_STACK_SIZE (16 * 1024)
#define TASK_COMM_LEN 16
#define NR_OPEN 64
#define TIMESLICE_TICKS 2

enum task_state {
	TASK_RUNNING,         /* on a run queue or on a CPU */
	TASK_INTERRUPTIBLE,   /* sleeping; signals wake it */
	TASK_UNINTERRUPTIBLE,
	TASK_STOPPED,         /* stopped by SIGSTOP & co until SIGCONT */
	TASK_ZOMBIE,          /* exited; parent has not waited */
	TASK_DEAD,
};

struct files_struct;
struct fs_struct;
struct inode;

struct k_sigaction {
	unsigned long handler;
	unsigned long flags;
	unsigned long restorer;
	uint64_t mask;
};

struct signal_struct {
	int count;
	struct k_sigaction action[64];
};

struct task_struct {
	pid_t pid;                   /* thread id */
	pid_t tgid;                  /* process id (leader's pid) */
	enum task_state state;
	int on_cpu;                  /* CPU running it, -1 if none */
	int last_cpu;
	unsigned long kstack;        /* base of the kernel stack */
	unsigned long kernel_sp;     /* saved stack pointer while switched out */
	struct pt_regs *regs;        /* user frame at the top of the kstack */
	struct arch_thread arch;     /* arch extra state (TLS base ...) */
	struct mm_struct *mm;
	struct files_struct *files;
	struct fs_struct *fs;
	struct signal_struct *sighand;
	struct task_struct *parent;
	struct task_struct *group_leader;
	struct list_head children;
	struct list_head sibling;
	struct list_head tasks;      /* all tasks */
	struct list_head run_list;   /* run queue */
	struct list_head sleep_list; /* timed sleepers */
	const void *wait_channel;    /* what it sleeps on */
	uint64_t wake_time_ns;       /* for timed sleeps; 0 if none */
	uint64_t pending_signals;
	uint64_t blocked_signals;
	int exit_code;               /* wait status once a zombie */
	int exit_signal;             /* sent to the parent at exit */
	int timeslice;
	bool need_resched;
	bool is_idle;
	bool is_kthread;
	unsigned long clear_child_tid;
	uint64_t utime_ticks, stime_ticks;
	uint64_t start_time_ns;
	char comm[TASK_COMM_LEN];
	int nice;                    /* -20 (most favoured) to 19 */
	int rq_cpu;                  /* run queue it waits on, -1 if none */
	struct exec_info *exec_info; /* exe and arguments for /proc (proc.h) */
	uint64_t cutime_ticks, cstime_ticks; /* reaped children's, for times() */
	struct rlimit64 rlim[RLIM_NLIMITS];  /* inherited at fork */
	uint64_t itimer_real_ns;     /* ITIMER_REAL expiry (monotonic), 0 if off */
	uint64_t itimer_interval_ns;
	int fault_signo, fault_code; /* siginfo of a pending fault signal */
	unsigned long fault_addr;
	/* Posted by DTrace's raise() and stop() actions in probe context (as
	 * illumos's t_dtrace_sig and t_dtrace_stop): acted on by the thread
	 * itself on its way back to user mode. */
	uint8_t dtrace_sig;
	bool dtrace_stop;
};

struct cpu_info {
	struct cpu_info *self;
	unsigned long kernel_stack_top;  /* x86-64 syscall entry reads these two */
	unsigned long user_sp_scratch;
	unsigned cpu_id;
	struct task_struct *curr_task;
	struct task_struct *idle;
	uint64_t ticks;
	uint64_t context_switches;
	bool online;
	uint64_t migrations;             /* tasks that came here from another CPU */
};

/* A run queue (illumos's disp_t): the tasks waiting for a CPU. Each CPU
 * has one (rq_cpu is that CPU). The sched provider's enqueue and dequeue
 * sites pass it. */
struct run_queue {
	struct list_head rq_tasks;
	unsigned long rq_nr_running;
	struct cpu_info *rq_cpu;
};

extern struct cpu_info cpu_infos[NR_CPUS];
extern unsigned nr_cpus_online;
struct task_struct *get_current(void);
#define current get_current()
unsigned smp_processor_id(void);

/* sched.c */
void sched_init(void);
void sched_init_cpu(unsigned cpu);
void schedule(void);
void scheduler_tick(void);
void wake_up_process(struct task_struct *t);
void enqueue_task(struct task_struct *t);
void dequeue_task(struct task_struct *t);
void sleep_on(const void *channel);
void wake_up(const void *channel);
int sleep_until(uint64_t wake_time_ns);
void wake_sleepers(uint64_t now);
__noreturn void cpu_idle(void);
void resched_cpu(unsigned cpu);
void yield(void);
bool signal_pending(struct task_struct *t);
void dtrace_post_signals(struct task_struct *t);
void dtrace_continue_grabbed(void);
void preempt_return_to_user(struct pt_regs *regs);

/* fork.c / exit.c / exec.c */
struct task_struct *alloc_task(void);
void free_task(struct task_struct *t);
struct task_struct *find_task_by_pid(pid_t pid);
pid_t alloc_pid(void);
long do_fork(unsigned long clone_flags, unsigned long new_sp, struct pt_regs *regs,
	     unsigned long parent_tid, unsigned long child_tid, unsigned long tls);
struct task_struct *kernel_thread(void (*fn)(void *), void *arg, const char *name);
__noreturn void do_exit(int code);
__noreturn void do_group_exit(int code);
long do_wait4(pid_t pid, int *ustatus, int options);
long do_execve(const char *path, char *const *argv, char *const *envp, struct pt_regs *regs);
long kernel_execve(const char *path, const char *const *argv, const char *const *envp);
void release_task(struct task_struct *t);
void set_task_comm(struct task_struct *t, const char *name);
void rlimit_init(struct task_struct *t);
void itimer_tick(uint64_t now);

/* signal.c */
int send_signal(struct task_struct *t, int sig);
int kill_pid(pid_t pid, int sig);
void do_signal(struct pt_regs *regs);
void force_sig_fault(int sig, unsigned long addr);
void force_sig_fault_code(int sig, int code, unsigned long addr);
void siginfo_fill(int32_t info[32], int sig);
void flush_signal_handlers(struct task_struct *t);
struct signal_struct *sighand_alloc(void);
struct signal_struct *sighand_dup(struct signal_struct *old);
void sighand_put(struct signal_struct *s);

extern struct list_head task_list;
extern struct task_struct *init_task;
#endif
