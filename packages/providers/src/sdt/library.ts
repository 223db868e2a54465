// The D library of the guest kernel, as libdtrace's /usr/lib/dtrace holds
// proc.d, sched.d and io.d for illumos: translators from what the guest's
// proc, sched and io probe sites pass (struct task_struct *, struct
// run_queue *, struct io_buf *) to the stable types D programs see
// (psinfo_t, lwpsinfo_t, cpuinfo_t, bufinfo_t, devinfo_t, fileinfo_t,
// defined by dtrace-core's D type dictionary), and io.d's B_* flags.
// Compile every program for the guest with these (d-lang's `libraries`
// option); they need the guest kernel's types (its DWARF).
//
// Where the guest has no notion of an illumos field, the translator gives
// the nearest equivalent or 0, and the comment at the member says which.

/** One D library file: its name (for messages) and its text. */
export interface GuestDLibrary {
  readonly name: string;
  readonly text: string;
}

const PROC_D = `/*
 * proc.d: psinfo_t and lwpsinfo_t of a guest task (struct task_struct, the
 * guest's thread; its process is the thread group, tgid).
 */
translator psinfo_t < struct task_struct *T > {
	pr_flag = 0;			/* no process flags are kept: 0 */
	pr_nlwp = 0;			/* threads of the group are not counted: 0 */
	pr_pid = T->tgid;
	pr_ppid = T->group_leader == 0 || T->group_leader->parent == 0 ? 0 :
	    T->group_leader->parent->tgid;
	pr_pgid = T->tgid;		/* every process is its own group ... */
	pr_sid = T->tgid;		/* ... and session (sys_getpgrp, sys_setsid) */
	pr_uid = 0;			/* the guest has one user, root */
	pr_euid = 0;
	pr_gid = 0;
	pr_egid = 0;
	pr_addr = (uintptr_t)T;
	pr_size = 0;			/* the mappings are not summed: 0 */
	pr_rssize = T->mm == 0 ? 0 : T->mm->rss_pages * 4;	/* KB, 4 KiB pages */
	pr_ttydev = 0;			/* no terminal devices: 0 */
	pr_fname = T->comm;
	pr_psargs = T->comm;		/* arguments are not kept: the name */
	pr_wstat = T->exit_code;	/* the wait status once a zombie */
	pr_argc = 0;			/* not kept: 0 */
	pr_argv = 0;
	pr_envp = 0;
	pr_dmodel = sizeof (long) == 8 ? 2 : 1;	/* PR_MODEL_LP64 : PR_MODEL_ILP32 */
	pr_taskid = 0;			/* no tasks, projects, pools, zones or contracts: 0 */
	pr_projid = 0;
	pr_nzomb = 0;
	pr_poolid = 0;
	pr_zoneid = 0;
	pr_contract = 0;
};

translator lwpsinfo_t < struct task_struct *T > {
	pr_flag = 0;			/* no thread flags are kept: 0 */
	pr_lwpid = T->pid;
	pr_addr = (uintptr_t)T;
	pr_wchan = (uintptr_t)T->wait_channel;
	pr_stype = 0;			/* sleeps are on plain channels: SOBJ_NONE */
	/* TASK_RUNNING on a CPU: SONPROC; TASK_RUNNING: SRUN; asleep: SSLEEP; TASK_STOPPED: SSTOP; exited: SZOMB */
	pr_state = T->state == 0 ? (T->on_cpu >= 0 ? 6 : 2) : T->state <= 2 ? 1 : T->state == 3 ? 5 : 3;
	pr_sname = T->state == 0 ? (T->on_cpu >= 0 ? 'O' : 'R') : T->state <= 2 ? 'S' : T->state == 3 ? 'T' : 'Z';
	pr_nice = 0;			/* no priorities: round robin */
	pr_syscall = 0;			/* not kept: 0 */
	pr_oldpri = 0;
	pr_cpu = 0;
	pr_pri = 0;
	pr_name = T->comm;
	pr_onpro = T->last_cpu;		/* the CPU it runs or last ran on */
	pr_bindpro = -1;		/* PBIND_NONE */
	pr_bindpset = -1;		/* PS_NONE */
	pr_lgrp = 0;			/* one locality group */
};
`;

const SCHED_D = `/*
 * sched.d: cpuinfo_t of a guest CPU (struct cpu_info) and of a run queue
 * (struct run_queue, illumos's disp_t). Each guest CPU has its own run
 * queue (rq_cpu is that CPU), whose cpuinfo_t is that CPU's; a queue of no
 * CPU (rq_cpu NULL) gives -1, as illumos gives for a partition-wide queue.
 */
translator cpuinfo_t < struct cpu_info *C > {
	cpu_id = C->cpu_id;
	cpu_pset = -1;			/* no processor sets: PS_NONE */
	cpu_chip = 0;			/* one chip */
	cpu_lgrp = 0;			/* one locality group */
	cpu_info = (uintptr_t)C;	/* the guest's own per-CPU structure */
};

translator cpuinfo_t < struct run_queue *D > {
	cpu_id = D->rq_cpu == 0 ? -1 : D->rq_cpu->cpu_id;
	cpu_pset = -1;
	cpu_chip = D->rq_cpu == 0 ? -1 : 0;
	cpu_lgrp = D->rq_cpu == 0 ? -1 : 0;
	cpu_info = (uintptr_t)D->rq_cpu;
};
`;

const IO_D = `/*
 * io.d: bufinfo_t, devinfo_t and fileinfo_t of a guest transfer (struct
 * io_buf, illumos's buf_t, made by vfs_read and vfs_write). The guest's
 * files are in RAM (file system "ramfs", mounted on /), its devices are
 * character devices (file system "specfs"), and pipes are "fifofs".
 */
inline int B_READ = 0x0040;
inline int B_WRITE = 0x0100;

translator bufinfo_t < struct io_buf *B > {
	b_flags = B->b_flags;
	b_bcount = B->b_bcount;
	b_addr = (caddr_t)B->b_addr;
	b_blkno = B->b_offset / 512;	/* the file offset in DEV_BSIZE blocks */
	b_lblkno = B->b_offset / 512;
	b_resid = B->b_resid;
	b_bufsize = B->b_bcount;
	b_iodone = 0;			/* no completion routines: 0 */
	b_error = B->b_error;
	b_edev = B->b_edev;		/* 0 for RAM files and pipes */
};

translator devinfo_t < struct io_buf *B > {
	dev_major = B->b_edev >> 8;
	dev_minor = B->b_edev & 0xff;
	dev_instance = B->b_edev & 0xff;	/* one instance per minor */
	dev_name = stringof(B->b_devname);	/* the driver, or "ramfs", "pipe" */
	dev_statname = B->b_edev == 0 ? stringof(B->b_devname) :
	    strjoin(stringof(B->b_devname), lltostr(B->b_edev & 0xff));
	dev_pathname = B->b_edev == 0 || B->b_file->f_path == 0 ? "<none>" :
	    cleanpath(B->b_file->f_path);	/* the device node */
};

translator fileinfo_t < struct io_buf *B > {
	fi_name = B->b_file == 0 ? "<none>" : B->b_file->f_path == 0 ?
	    "<unknown>" : basename(cleanpath(B->b_file->f_path));
	fi_dirname = B->b_file == 0 ? "<none>" : B->b_file->f_path == 0 ?
	    "<unknown>" : dirname(cleanpath(B->b_file->f_path));
	fi_pathname = B->b_file == 0 ? "<none>" : B->b_file->f_path == 0 ?
	    "<unknown>" : cleanpath(B->b_file->f_path);
	fi_offset = B->b_offset;
	fi_fs = B->b_edev != 0 ? "specfs" : B->b_file->f_path == 0 ? "fifofs" : "ramfs";
	fi_mount = B->b_file->f_path == 0 ? "<none>" : "/";
	fi_oflags = B->b_file->f_flags;
};
`;

/** The guest kernel's D libraries, in the order they are compiled. */
export const GUEST_D_LIBRARIES: readonly GuestDLibrary[] = [
  { name: 'proc.d', text: PROC_D },
  { name: 'sched.d', text: SCHED_D },
  { name: 'io.d', text: IO_D },
];
