/*
 * Host-native harness for the kernel's machine-independent pieces: the page
 * allocator, kmalloc, the RAM file system, path lookup, the initrd unpacker
 * and descriptor tables are compiled unchanged for the host and driven here
 * (no CPU emulation involved). "Physical memory" is a host buffer; user
 * copies are plain copies. The scenario prints one line per check, which
 * the test compares.
 *
 * Usage: harness INITRD.cpio
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/time.h>

/* Host C library functions (declared here: no host headers in this file). */
extern long write(int fd, const void *buf, unsigned long n);
extern int open(const char *path, int flags, ...);
extern long read(int fd, void *buf, unsigned long n);
extern void *aligned_alloc(unsigned long align, unsigned long size);
extern void abort(void);
extern void exit(int status);

#define HOST_RAM_SIZE (64ul << 20)
static unsigned char *host_ram;

/* ---- the few kernel services the tested files call ---- */
void *phys_to_virt(paddr_t pa) { return host_ram + pa; }
paddr_t virt_to_phys(const void *va) { return (paddr_t)((const unsigned char *)va - host_ram); }
uint64_t ktime_get_real_ns(void) { return 1700000000ull * NSEC_PER_SEC; }
uint64_t ktime_get_ns(void) { return 0; }

static struct task_struct harness_task;
struct task_struct *get_current(void) { return &harness_task; }
/* The one task there is: /proc (fs/proc.c) finds it by its pid. */
LIST_HEAD(task_list);
struct cpu_info cpu_infos[NR_CPUS];
struct task_struct *find_task_by_pid(pid_t pid) { return pid == harness_task.pid ? &harness_task : NULL; }
unsigned smp_processor_id(void) { return 0; }

long copy_to_user(void *udst, const void *src, size_t n) { memcpy(udst, src, n); return 0; }
long copy_from_user(void *dst, const void *usrc, size_t n) { memcpy(dst, usrc, n); return 0; }
long clear_user(void *udst, size_t n) { memset(udst, 0, n); return 0; }

long strncpy_from_user(char *dst, const char *usrc, size_t max)
{
	size_t n = strnlen(usrc, max);

	if (n == max)
		return -ENAMETOOLONG;
	memcpy(dst, usrc, n + 1);
	return (long)n;
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

/* Scheduler services used by pipes: the harness is single-threaded, so a
 * sleep would never end; the scenario never blocks. */
void sleep_on(const void *channel) { panic("sleep_on in the harness"); }
void wake_up(const void *channel) {}
bool signal_pending(struct task_struct *t) { return false; }
int send_signal(struct task_struct *t, int sig) { return 0; }

/* The SDT sites of the compiled files: krtld turns them into no-ops in the
 * guest; here they are empty functions. */
void __dtrace_probe___io_start(void) {}
void __dtrace_probe___io_done(void) {}
void __dtrace_probe_file__read__start(void) {}
void __dtrace_probe_file__read__done(void) {}
void __dtrace_probe_file__write__start(void) {}
void __dtrace_probe_file__write__done(void) {}
void __dtrace_probe_hello__open(void) {}
void __dtrace_probe_hello__read__start(void) {}
void __dtrace_probe_hello__read__done(void) {}
void __dtrace_probe_hello__write(void) {}
void __dtrace_probe_hello__release(void) {}

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

/* ---- checks ---- */
static int failures;

static void check(bool ok, const char *what)
{
	printk("%s %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failures++;
}

static void check_page_allocator(void)
{
	unsigned long before;
	paddr_t a, b, run;

	page_alloc_init(1ul << 20, HOST_RAM_SIZE);
	before = nr_free_pages();
	check(before == (HOST_RAM_SIZE - (1ul << 20)) / PAGE_SIZE, "page_alloc_init counts free pages above 1 MiB");
	a = alloc_page();
	b = alloc_page();
	check(a >= (1ul << 20) && b != a && ((a | b) & (PAGE_SIZE - 1)) == 0, "alloc_page returns distinct aligned pages");
	run = alloc_pages(8);
	check(run && nr_free_pages() == before - 10, "alloc_pages takes a contiguous run");
	free_pages(run, 8);
	free_page(a);
	free_page(b);
	check(nr_free_pages() == before, "freeing restores the count");
	page_reserve(2ul << 20, 3ul << 20);
	check(nr_free_pages() == before - 256, "page_reserve removes a range");
}

static void check_kmalloc(void)
{
	void *blocks[200];
	bool ok = true;
	unsigned long free_before;

	kmalloc_init();
	free_before = nr_free_pages();
	for (int i = 0; i < 200; i++) {
		size_t size = (size_t)(i * 37 % 5000) + 1;

		blocks[i] = kmalloc(size);
		if (!blocks[i]) {
			ok = false;
			break;
		}
		memset(blocks[i], i & 0xff, size);
	}
	for (int i = 0; ok && i < 200; i++) {
		size_t size = (size_t)(i * 37 % 5000) + 1;
		unsigned char *p = blocks[i];

		for (size_t k = 0; k < size; k++)
			if (p[k] != (unsigned char)(i & 0xff))
				ok = false;
	}
	check(ok, "kmalloc blocks of many sizes do not overlap");
	for (int i = 0; i < 200; i++)
		kfree(blocks[i]);
	{
		char *p = kmalloc(10);

		strcpy(p, "grow me");
		p = krealloc(p, 3000);
		check(strcmp(p, "grow me") == 0, "krealloc keeps the contents");
		kfree(p);
	}
	check(nr_free_pages() <= free_before, "big blocks go back to the page allocator");
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

static void check_vfs(const char *initrd_path)
{
	size_t size = 0;
	char *cpio = read_host_file(initrd_path, &size);
	struct inode *inode, *dir;
	struct file *file;
	int err, files;
	char buf[64];
	ssize_t n;

	vfs_init();
	harness_task.fs = fs_alloc();
	harness_task.files = files_alloc();
	check(cpio != NULL && size > 0, "initrd read from the host");
	if (!cpio || size == 0)
		return;
	files = populate_rootfs(cpio, size);
	printk("info unpacked %d entries\n", files);
	check(files > 20, "populate_rootfs unpacks the initrd");
	inode = path_lookup("/sbin/init", &err);
	check(inode && S_ISREG(inode->i_mode) && inode->i_size > 1000 &&
	      memcmp(inode->i_data, "\177ELF", 4) == 0, "/sbin/init is an ELF file");
	inode = path_lookup("/dev/null", &err);
	check(inode && S_ISCHR(inode->i_mode) && inode->i_rdev == MKDEV(1, 3), "/dev/null is char 1:3");
	check(path_lookup("/bin/../etc/./passwd", &err) != NULL, "lookup handles . and ..");
	check(!path_lookup("/nope/x", &err) && err == -ENOENT, "missing path gives ENOENT");
	check(!path_lookup("/etc/passwd/x", &err) && err == -ENOTDIR, "file used as directory gives ENOTDIR");

	check(vfs_mkdir("/tmp/d", 0755) == 0, "mkdir /tmp/d");
	check(vfs_mkdir("/tmp/d", 0755) == -EEXIST, "mkdir again gives EEXIST");
	file = filp_open("/tmp/d/f.txt", O_CREAT | O_RDWR, 0644, &err);
	check(file != NULL, "open with O_CREAT");
	n = vfs_write(file, "hello ramfs", 11, &file->f_pos);
	check(n == 11 && file->f_inode->i_size == 11, "write grows the file");
	file->f_pos = 6;
	n = vfs_read(file, buf, sizeof(buf), &file->f_pos);
	check(n == 5 && memcmp(buf, "ramfs", 5) == 0, "read from an offset");
	check(vfs_llseek(file, 0, SEEK_END) == 11, "lseek to the end");
	fput(file);
	check(vfs_rename("/tmp/d/f.txt", "/tmp/g.txt") == 0 && path_lookup("/tmp/g.txt", &err), "rename moves a file");
	check(vfs_rmdir("/tmp/d") == 0, "rmdir of an empty directory");
	check(vfs_rmdir("/etc") == -ENOTEMPTY, "rmdir of a full directory gives ENOTEMPTY");
	check(vfs_unlink("/tmp/g.txt") == 0 && !path_lookup("/tmp/g.txt", &err), "unlink removes the name");
	dir = path_lookup("/bin", &err);
	{
		const char *prev = "";
		bool sorted = true;
		int count = 0;

		for (struct dirent_node *e = dir->i_entries; e; e = e->next) {
			if (strcmp(prev, e->name) >= 0)
				sorted = false;
			prev = e->name;
			count++;
		}
		check(sorted && count >= 15, "directory entries are kept sorted");
	}
	{
		struct file *f = filp_open("/etc/hostname", O_RDONLY, 0, &err);
		int fd = fd_install(f, 0), fd2;

		fget(f);
		fd2 = fd_install(f, 0);
		check(fd == 0 && fd2 == 1 && fdget(1) == f, "fd_install takes the lowest free slots");
		check(close_fd(0) == 0 && close_fd(0) == -EBADF, "close_fd frees a slot once");
		close_fd(1);
	}
}

static void check_syscalls(void)
{
	char buf[32];
	int fds[2];
	long fd;

	fd = sys_open((long)"/tmp/s.txt", O_CREAT | O_WRONLY | O_TRUNC, 0600, 0, 0, 0);
	check(fd >= 0 && sys_write(fd, (long)"abc\n", 4, 0, 0, 0) == 4, "sys_open + sys_write");
	check(sys_dup2(fd, 9, 0, 0, 0, 0) == 9 && sys_close(fd, 0, 0, 0, 0, 0) == 0, "sys_dup2 keeps the file open");
	check(sys_lseek(9, 0, SEEK_SET, 0, 0, 0) == 0, "sys_lseek");
	check(sys_read(9, (long)buf, sizeof(buf), 0, 0, 0) == -EBADF, "read on a write-only fd gives EBADF");
	sys_close(9, 0, 0, 0, 0, 0);
	check(sys_pipe2((long)fds, 0, 0, 0, 0, 0) == 0, "sys_pipe2");
	check(sys_write(fds[1], (long)"through the pipe", 16, 0, 0, 0) == 16, "write into a pipe");
	check(sys_read(fds[0], (long)buf, 7, 0, 0, 0) == 7 && memcmp(buf, "through", 7) == 0, "read from a pipe");
	sys_close(fds[1], 0, 0, 0, 0, 0);
	check(sys_read(fds[0], (long)buf, sizeof(buf), 0, 0, 0) == 9, "rest of the pipe after the writer closed");
	check(sys_read(fds[0], (long)buf, sizeof(buf), 0, 0, 0) == 0, "end of file on an empty widowed pipe");
	sys_close(fds[0], 0, 0, 0, 0, 0);
	check(sys_chdir((long)"/usr/../bin", 0, 0, 0, 0, 0) == -ENOENT, "chdir through a missing directory fails");
	check(sys_chdir((long)"/tmp/../bin", 0, 0, 0, 0, 0) == 0 &&
	      sys_getcwd((long)buf, sizeof(buf), 0, 0, 0, 0) == 5 && strcmp(buf, "/bin") == 0, "chdir and getcwd");
	check(sys_symlink((long)"../bin", (long)"/tmp/bin-link", 0, 0, 0, 0) == 0 &&
	      sys_readlink((long)"/tmp/bin-link", (long)buf, sizeof(buf), 0, 0, 0) == 6 &&
	      memcmp(buf, "../bin", 6) == 0, "symlink and readlink");
	check(sys_chdir((long)"/tmp/bin-link/.", 0, 0, 0, 0, 0) == 0 &&
	      sys_getcwd((long)buf, sizeof(buf), 0, 0, 0, 0) == 5 && strcmp(buf, "/bin") == 0,
	      "chdir through a link: getcwd gives the directory's own path");
	check(sys_symlink((long)"loop", (long)"/tmp/loop", 0, 0, 0, 0) == 0 &&
	      sys_open((long)"/tmp/loop", O_RDONLY, 0, 0, 0, 0) == -ELOOP, "a link to itself gives ELOOP");
	check(sys_unlink((long)"/tmp/bin-link", 0, 0, 0, 0, 0) == 0 && sys_unlink((long)"/tmp/loop", 0, 0, 0, 0, 0) == 0,
	      "unlink removes links, not what they name");
	{
		char dents[4096];
		long n;
		int count = 0;
		bool has_sh = false;

		fd = sys_open((long)".", O_RDONLY | O_DIRECTORY, 0, 0, 0, 0);
		while ((n = sys_getdents64(fd, (long)dents, sizeof(dents), 0, 0, 0)) > 0) {
			for (long off = 0; off < n;) {
				struct linux_dirent64 *d = (struct linux_dirent64 *)(dents + off);

				count++;
				if (strcmp(d->d_name, "sh") == 0 && d->d_type == DT_REG)
					has_sh = true;
				off += d->d_reclen;
			}
		}
		check(n == 0 && has_sh && count >= 17, "getdents64 lists /bin with . and ..");
		sys_close(fd, 0, 0, 0, 0, 0);
	}
}

/* The sample module, linked in directly (krtld's job in the guest). Its
 * _init/_fini are renamed when compiled for the host (-D_init=...), since a
 * hosted program's start files already define those names. */
int hello_module_init(void);
int hello_module_fini(void);
#define _init hello_module_init
#define _fini hello_module_fini

static void check_hello_module(void)
{
	struct file *file;
	struct inode *node;
	char buf[128];
	ssize_t n;
	int err;

	harness_task.pid = 42;
	check(_init() == 0, "hello: _init succeeds");
	node = path_lookup("/dev/hello", &err);
	check(node && S_ISCHR(node->i_mode), "hello: /dev/hello is a character device");
	file = filp_open("/dev/hello", O_RDWR, 0, &err);
	check(file != NULL, "hello: open /dev/hello");
	if (!file)
		return;
	n = vfs_read(file, buf, sizeof(buf) - 1, &file->f_pos);
	buf[n > 0 ? n : 0] = '\0';
	check(strcmp(buf, "Hello, world! (read 1, pid 42)\n") == 0, "hello: first read greets the world");
	check(vfs_read(file, buf, sizeof(buf), &file->f_pos) == 0, "hello: then end of file");
	check(vfs_write(file, "dtrace\n", 7, &file->f_pos) == 7, "hello: write a name");
	file->f_pos = 0;
	n = vfs_read(file, buf, 10, &file->f_pos);
	n += vfs_read(file, buf + n, sizeof(buf) - 1 - (size_t)n, &file->f_pos);
	buf[n] = '\0';
	check(strcmp(buf, "Hello, dtrace! (read 2, pid 42)\n") == 0, "hello: short reads continue the greeting");
	fput(file);
	check(_fini() == 0 && !path_lookup("/dev/hello", &err), "hello: _fini removes /dev/hello");
	check(_init() == 0 && _fini() == 0, "hello: loads again after unloading");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		printk("usage: harness INITRD\n");
		return 2;
	}
	host_ram = aligned_alloc(PAGE_SIZE, HOST_RAM_SIZE);
	check_page_allocator();
	check_kmalloc();
	check_vfs(argv[1]);
	if (failures == 0) {
		check_syscalls();
		check_hello_module();
	}
	printk("%s %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
	return failures ? 1 : 0;
}
