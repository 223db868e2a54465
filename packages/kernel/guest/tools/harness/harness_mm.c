/*
 * Host-native harness for exec and address spaces: core/exec.c, mm/mmap.c
 * and mm/uaccess.c run unchanged on top of a software page table (below)
 * standing in for the x86-64 one. It execs /bin/echo from the initrd and
 * checks the loaded image and the initial stack, then brk, mmap, munmap,
 * mprotect and the fork copy of an address space.
 *
 * Usage: harness_mm INITRD.cpio x86_64|arm   (ISA the initrd was built for)
 */
#include <kernel/elf.h>
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/time.h>

extern long write(int fd, const void *buf, unsigned long n);
extern int open(const char *path, int flags, ...);
extern long read(int fd, void *buf, unsigned long n);
extern void *aligned_alloc(unsigned long align, unsigned long size);
extern void abort(void);

#define HOST_RAM_SIZE (64ul << 20)
static unsigned char *host_ram;

void *phys_to_virt(paddr_t pa) { return host_ram + pa; }
paddr_t virt_to_phys(const void *va) { return (paddr_t)((const unsigned char *)va - host_ram); }
uint64_t ktime_get_real_ns(void) { return 0; }
uint64_t ktime_get_ns(void) { return 0; }

static struct task_struct task;
static struct pt_regs user_regs;
struct task_struct *get_current(void) { return &task; }
/* The one task there is: /proc (fs/proc.c) finds it by its pid. */
LIST_HEAD(task_list);
struct cpu_info cpu_infos[NR_CPUS];
struct task_struct *find_task_by_pid(pid_t pid) { return pid == task.pid ? &task : NULL; }
unsigned smp_processor_id(void) { return 0; }

int printk(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	write(1, line, (unsigned long)MIN(n, (int)sizeof(line) - 1));
	return n;
}

__noreturn void panic(const char *fmt, ...)
{
	printk("panic: %s\n", fmt);
	abort();
	for (;;)
		;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

/* ---- a software page table standing in for the arch one ---- */
struct soft_pte {
	vaddr_t va;
	paddr_t pa;
	unsigned flags;
};

struct soft_table {
	size_t count, cap;
	struct soft_pte *entries;
};

static struct soft_table *table_of(struct mm_struct *mm)
{
	return (struct soft_table *)(uintptr_t)mm->pgd;
}

int arch_mm_init(struct mm_struct *mm)
{
	struct soft_table *t = kzalloc(sizeof(*t));

	if (!t)
		return -ENOMEM;
	mm->pgd = (paddr_t)(uintptr_t)t;
	return 0;
}

void arch_mm_free(struct mm_struct *mm)
{
	kfree(table_of(mm)->entries);
	kfree(table_of(mm));
}

static struct soft_pte *soft_find(struct mm_struct *mm, vaddr_t va)
{
	struct soft_table *t = table_of(mm);

	for (size_t i = 0; i < t->count; i++)
		if (t->entries[i].va == (va & PAGE_MASK))
			return &t->entries[i];
	return NULL;
}

int arch_map_page(struct mm_struct *mm, vaddr_t va, paddr_t pa, unsigned flags)
{
	struct soft_table *t = table_of(mm);
	struct soft_pte *e = soft_find(mm, va);

	if (!e) {
		if (t->count == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 64;
			t->entries = krealloc(t->entries, t->cap * sizeof(*t->entries));
		}
		e = &t->entries[t->count++];
	}
	e->va = va & PAGE_MASK;
	e->pa = pa & ~(paddr_t)(PAGE_SIZE - 1);
	e->flags = flags;
	return 0;
}

void arch_unmap_page(struct mm_struct *mm, vaddr_t va)
{
	struct soft_table *t = table_of(mm);
	struct soft_pte *e = soft_find(mm, va);

	if (e)
		*e = t->entries[--t->count];
}

bool arch_translate(struct mm_struct *mm, vaddr_t va, paddr_t *pa, unsigned *flags)
{
	struct soft_pte *e = soft_find(mm, va);

	if (!e)
		return false;
	if (pa)
		*pa = e->pa | (va & (PAGE_SIZE - 1));
	if (flags)
		*flags = e->flags;
	return true;
}

void arch_switch_mm(struct mm_struct *mm) {}

void arch_thread_setup_exec(struct pt_regs *regs, unsigned long entry, unsigned long sp)
{
	memset(regs, 0, sizeof(*regs));
	regs->rip = entry;
	regs->rsp = sp;
}

unsigned long regs_sp(const struct pt_regs *regs) { return regs->rsp; }
const unsigned arch_elf_machine = 62;
const unsigned arch_elf_class = 2;

/* ---- process services exec touches ---- */
void flush_signal_handlers(struct task_struct *t) {}
void wake_up(const void *channel) {}
void sleep_on(const void *channel) { panic("sleep_on in the harness"); }
bool signal_pending(struct task_struct *t) { return false; }
int send_signal(struct task_struct *t, int sig) { return 0; }
void set_task_comm(struct task_struct *t, const char *name)
{
	const char *base = strrchr(name, '/');

	strlcpy(t->comm, base ? base + 1 : name, sizeof(t->comm));
}
void __dtrace_probe___proc_exec(void) {}
void __dtrace_probe___proc_exec__success(void) {}
void __dtrace_probe___proc_exec__failure(void) {}
void __dtrace_probe___io_start(void) {}
void __dtrace_probe___io_done(void) {}
void __dtrace_probe_file__read__start(void) {}
void __dtrace_probe_file__read__done(void) {}
void __dtrace_probe_file__write__start(void) {}
void __dtrace_probe_file__write__done(void) {}

/* ---- checks ---- */
static int failures;

static void check(bool ok, const char *what)
{
	printk("%s %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failures++;
}

static uint64_t user_word(vaddr_t va)
{
	uint64_t v = ~0ull;

	copy_from_user(&v, (void *)va, sizeof(v));
	return v;
}

static bool user_string_is(vaddr_t va, const char *expect)
{
	char buf[64];

	return strncpy_from_user(buf, (const char *)va, sizeof(buf)) >= 0 && strcmp(buf, expect) == 0;
}

static void check_exec(bool native)
{
	static const char *const argv[] = { "echo", "hi", NULL };
	static const char *const envp[] = { "PATH=/bin", NULL };
	int err;
	struct inode *echo = path_lookup("/bin/echo", &err);
	const struct elf64_ehdr *eh = (const void *)echo->i_data;
	long r = kernel_execve("/bin/echo", argv, envp);
	vaddr_t sp = user_regs.rsp, envp0, auxv;
	uint64_t entry_seen = 0, pagesz = 0, phdr = 0, random = 0;

	if (!native) {
		check(r == -ENOEXEC, "exec of another ISA's program gives ENOEXEC");
		check(task.mm == NULL, "a failed exec leaves the caller unchanged");
		return;
	}
	if (r != 0)
		printk("info exec returned %ld\n", r);
	check(r == 0, "exec /bin/echo");
	if (r != 0)
		return;
	check(user_regs.rip == eh->e_entry, "entry point from the ELF header");
	check((sp & 15) == 0 && user_word(sp) == 2, "argc on a 16-byte aligned stack");
	check(user_string_is(user_word(sp + 8), "echo") && user_string_is(user_word(sp + 16), "hi") &&
	      user_word(sp + 24) == 0, "argv strings and terminator");
	envp0 = user_word(sp + 32);
	check(user_string_is(envp0, "PATH=/bin") && user_word(sp + 40) == 0, "envp strings and terminator");
	for (auxv = sp + 48; user_word(auxv) != AT_NULL && auxv < sp + 48 + 64 * 16; auxv += 16) {
		uint64_t key = user_word(auxv), value = user_word(auxv + 8);

		if (key == AT_ENTRY)
			entry_seen = value;
		else if (key == AT_PAGESZ)
			pagesz = value;
		else if (key == AT_PHDR)
			phdr = value;
		else if (key == AT_RANDOM)
			random = value;
	}
	check(entry_seen == eh->e_entry && pagesz == 4096 && phdr != 0 && random != 0, "auxiliary vector");
	check(*(const uint64_t *)(echo->i_data + eh->e_phoff) == user_word(phdr),
	      "AT_PHDR points at the program headers");
	{
		const struct elf64_phdr *ph = (const void *)(echo->i_data + eh->e_phoff);
		bool same = true;

		for (unsigned i = 0; i < eh->e_phnum; i++, ph++) {
			unsigned char buf[256];
			size_t n = MIN(sizeof(buf), (size_t)ph->p_filesz);

			if (ph->p_type != PT_LOAD)
				continue;
			if (copy_from_user(buf, (void *)ph->p_vaddr, n) < 0 ||
			    memcmp(buf, echo->i_data + ph->p_offset, n) != 0)
				same = false;
		}
		check(same, "every PT_LOAD segment holds the file's bytes");
	}
	check(strcmp(task.comm, "echo") == 0, "comm is the program name");
}

static void check_memory_calls(void)
{
	long start = sys_brk(0, 0, 0, 0, 0, 0), addr;
	char byte = 'x', back = 0;
	struct mm_struct *copy;

	check(start > 0 && sys_brk(start + 10000, 0, 0, 0, 0, 0) == start + 10000, "brk grows the heap");
	check(copy_to_user((void *)(start + 9000), &byte, 1) == 0, "the new heap is writable");
	check(copy_to_user((void *)(start + 3 * 4096 + 100), &byte, 1) == -EFAULT, "past the break is not");
	addr = sys_mmap(0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check(addr > 0 && (addr & 4095) == 0, "anonymous mmap");
	check(copy_to_user((void *)(addr + 2 * 4096), "data", 4) == 0, "mapped pages fault in on write");
	check(copy_from_user(&back, (void *)(addr + 4096), 1) == 0 && back == 0, "untouched pages read as zero");
	check(sys_munmap(addr + 4096, 4096, 0, 0, 0, 0) == 0, "munmap of the middle page");
	check(copy_from_user(&back, (void *)(addr + 4096), 1) == -EFAULT &&
	      copy_from_user(&back, (void *)(addr + 2 * 4096), 1) == 0 && back == 'd', "munmap split the mapping");
	check(sys_mprotect(addr, 4096, PROT_READ, 0, 0, 0) == 0 &&
	      copy_to_user((void *)addr, &byte, 1) == -EFAULT && copy_from_user(&back, (void *)addr, 1) == 0,
	      "mprotect makes a page read-only");
	check(sys_mmap(0, 4096, PROT_READ, MAP_PRIVATE, 3, 0) == -ENODEV, "file mappings are refused");
	copy = mm_dup(task.mm);
	{
		paddr_t a, b;
		bool distinct = arch_translate(task.mm, (vaddr_t)addr + 2 * 4096, &a, NULL) &&
				arch_translate(copy, (vaddr_t)addr + 2 * 4096, &b, NULL) && a != b;

		check(distinct && memcmp(phys_to_virt(a), phys_to_virt(b), 4096) == 0, "fork copies pages");
	}
	mmput(copy);
}

static char *read_host_file(const char *path, size_t *size)
{
	int fd = open(path, 0);
	size_t cap = 1 << 20, len = 0;
	char *buf;
	long n;

	if (fd < 0)
		return NULL;
	buf = kmalloc(cap);
	while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			buf = krealloc(buf, cap * 2);
			cap *= 2;
		}
	}
	*size = len;
	return buf;
}

int main(int argc, char **argv)
{
	size_t size = 0;
	char *cpio;
	bool native;

	if (argc != 3) {
		printk("usage: harness_mm INITRD x86_64|arm\n");
		return 2;
	}
	native = strcmp(argv[2], "x86_64") == 0;
	host_ram = aligned_alloc(PAGE_SIZE, HOST_RAM_SIZE);
	page_alloc_init(1ul << 20, HOST_RAM_SIZE);
	kmalloc_init();
	vfs_init();
	task.fs = fs_alloc();
	task.files = files_alloc();
	task.regs = &user_regs;
	task.is_kthread = true;
	cpio = read_host_file(argv[1], &size);
	check(cpio && populate_rootfs(cpio, size) > 20, "initrd unpacked");
	if (failures)
		return 1;
	check_exec(native);
	if (native && failures == 0)
		check_memory_calls();
	printk("%s %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
	return failures ? 1 : 0;
}
