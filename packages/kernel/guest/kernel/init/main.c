/*
 * Kernel start-up. CPU 0 arrives in start_kernel from the arch entry code
 * with the boot-information block; it brings up memory, the file system
 * from the initrd, devices, the scheduler and the other CPUs, starts init
 * (pid 1) and becomes CPU 0's idle task. Secondary CPUs arrive in
 * secondary_start_kernel and go idle.
 */
#include <kernel/arch.h>
#include <kernel/board.h>
#include <kernel/entry.h>
#include <kernel/fs.h>
#include <kernel/irq.h>
#include <kernel/kmod.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/proc.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/time.h>

#define MAX_INIT_ARGS 64

void arch_paging_init(uint64_t ram_size);
void mem_devices_init(void);
void tasks_device_init(void);
void kmod_init(void);

extern char __kernel_end[];
static struct task_struct boot_task;
static char init_path[128] = "/sbin/init";
static char init_arg_storage[sizeof(boot_params.cmdline)];
static const char *init_argv[MAX_INIT_ARGS + 2];
static const char *const init_envp[] = { "PATH=/bin:/sbin", "HOME=/", "TERM=dumb", NULL };

/* Split the command line: init=PATH, quiet, and "--" followed by the
 * arguments for init (double quotes group a word). Each word is unquoted in
 * place into init_arg_storage, which is as large as the whole command line,
 * so every argument fits; only the number of arguments is bounded. */
static void parse_cmdline(const char *cmdline)
{
	const char *p = cmdline;
	char *out = init_arg_storage;
	int argc = 1;
	bool after_dashes = false;
	unsigned dropped = 0;

	while (*p) {
		char *word = out;
		size_t n = 0;
		bool quoted = false;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		while (*p && (quoted || *p != ' ')) {
			if (*p == '"') {
				quoted = !quoted;
				p++;
				continue;
			}
			word[n++] = *p++;
		}
		word[n] = '\0';
		if (after_dashes) {
			if (argc < MAX_INIT_ARGS) {
				init_argv[argc++] = word;
				out += n + 1;
			} else {
				dropped++;
			}
		} else if (strcmp(word, "--") == 0) {
			after_dashes = true;
		} else if (strncmp(word, "init=", 5) == 0) {
			if (strlen(word + 5) < sizeof(init_path))
				strcpy(init_path, word + 5);
			else
				printk("cmdline: init= path longer than %u bytes ignored\n",
				       (unsigned)sizeof(init_path) - 1);
		} else if (strcmp(word, "quiet") == 0) {
			console_quiet = true;
		}
	}
	if (dropped)
		printk("cmdline: init takes at most %d arguments; %u more dropped\n", MAX_INIT_ARGS - 1,
		       dropped);
	init_argv[0] = init_path;
	init_argv[argc] = NULL;
}

static void open_console_fds(void)
{
	int err;
	struct file *console = filp_open("/dev/console", O_RDWR, 0, &err);

	if (!console) {
		printk("init: cannot open /dev/console (%d)\n", err);
		return;
	}
	fd_install(console, 0);
	fget(console);
	fd_install(console, 1);
	fget(console);
	fd_install(console, 2);
}

/* pid 1 starts as a kernel thread and becomes the init program. */
static void init_main(void *arg)
{
	long err;

	open_console_fds();
	err = kernel_execve(init_path, init_argv, init_envp);
	if (err < 0) {
		printk("init: cannot run %s (%ld), trying /bin/sh\n", init_path, err);
		init_argv[0] = "/bin/sh";
		init_argv[1] = NULL;
		err = kernel_execve("/bin/sh", init_argv, init_envp);
	}
	if (err < 0)
		panic("no init program found");
	exit_to_user_mode(current->regs);
	arch_return_to_user(current->regs);
}

static void ensure_device_nodes(void)
{
	int err;

	if (!path_lookup("/dev", &err))
		vfs_mkdir("/dev", 0755);
	if (!path_lookup("/dev/console", &err))
		vfs_mknod("/dev/console", S_IFCHR | 0600, MKDEV(5, 1));
	if (!path_lookup("/dev/null", &err))
		vfs_mknod("/dev/null", S_IFCHR | 0666, MKDEV(1, 3));
	if (!path_lookup("/dev/zero", &err))
		vfs_mknod("/dev/zero", S_IFCHR | 0666, MKDEV(1, 5));
	if (!path_lookup("/tmp", &err))
		vfs_mkdir("/tmp", 01777);
}

static void start_secondary_cpus(void)
{
	unsigned count = MIN(boot_params.cpu_count, (unsigned)NR_CPUS);

	for (unsigned cpu = 1; cpu < count; cpu++) {
		struct task_struct *idle = alloc_task();

		if (!idle) {
			printk("smp: no memory for CPU %u\n", cpu);
			break;
		}
		snprintf(idle->comm, sizeof(idle->comm), "idle/%u", cpu);
		idle->is_kthread = true;
		cpu_infos[cpu].cpu_id = cpu;
		cpu_infos[cpu].curr_task = idle;
		nr_cpus_online++;
		arch_start_secondary(cpu, (void *)(idle->kstack + KERNEL_STACK_SIZE));
		/* Wait until the CPU is online, as kernels bring up one CPU at a
		 * time: it takes the big kernel lock to get there, so let go of it
		 * meanwhile. Otherwise the new CPU only gets the lock whenever
		 * this one happens to be outside the kernel when it tries. */
		unlock_kernel();
		while (!__atomic_load_n(&cpu_infos[cpu].online, __ATOMIC_ACQUIRE))
			;
		lock_kernel();
	}
}

__noreturn void start_kernel(const struct boot_info *info)
{
	paddr_t kernel_end, ram_end;

	bootinfo_parse(info);
	arch_paging_init(boot_params.ram_size);
	cpu_infos[0].cpu_id = 0;
	cpu_infos[0].curr_task = &boot_task;
	strcpy(boot_task.comm, "idle/0");
	boot_task.is_kthread = true;
	arch_cpu_init(0);
	nr_cpus_online = 1;
	lock_kernel();

	/* Trust the image itself as well as the host's kernel_end. */
	kernel_end = MAX(PAGE_ALIGN(boot_params.kernel_end), PAGE_ALIGN(virt_to_phys(__kernel_end)));
	ram_end = MIN(boot_params.ram_size, (uint64_t)ARCH_MAX_RAM);
	if (ram_end < boot_params.ram_size)
		printk("memory: only the first %lu MiB of RAM are usable\n", (unsigned long)(ram_end >> 20));
	page_alloc_init(kernel_end, ram_end);
	page_reserve(boot_params.initrd_base, boot_params.initrd_base + boot_params.initrd_size);
	kmalloc_init();
	parse_cmdline(boot_params.cmdline);
	printk("wdtrace guest kernel (%s), %u CPU(s), %lu MiB RAM, %lu pages free\n",
	       arch_uname_machine, boot_params.cpu_count,
	       (unsigned long)(boot_params.ram_size >> 20), nr_free_pages());

	arch_setup();
	syscall_init();
	vfs_init();
	mem_devices_init();
	tasks_device_init();
	console_irq_init();
	if (boot_params.initrd_size) {
		int files = populate_rootfs(phys_to_virt(boot_params.initrd_base),
					    (size_t)boot_params.initrd_size);

		printk("initramfs: %d entries unpacked\n", files);
	} else {
		printk("initramfs: no initrd\n");
	}
	ensure_device_nodes();
	proc_init();

	sched_init_cpu(0);
	irq_init_cpu();
	timer_init_cpu();
	kmod_init();
	/* Every CPU is online before init exists, so none of them can be
	 * busy running init while another is still being brought up. */
	start_secondary_cpus();
	init_task = kernel_thread(init_main, NULL, "init");
	if (!init_task)
		panic("cannot create init");
	cpu_idle();
}

__noreturn void secondary_start_kernel(unsigned long cpu)
{
	arch_cpu_init((unsigned)cpu);
	arch_set_kernel_stack(cpu_infos[cpu].curr_task);
	lock_kernel();
	sched_init_cpu((unsigned)cpu);
	irq_init_cpu();
	timer_init_cpu();
	printk("smp: CPU %lu online\n", cpu);
	cpu_idle();
}
