/*
 * hello: a sample loadable module. It registers a character device and
 * creates /dev/hello. Reading it returns a greeting with a counter, writing
 * it stores a name used in the next greeting. Its open, read and write paths
 * carry sdt probes (provider "sdt", module "hello"): hello-open,
 * hello-read-start, hello-read-done, hello-write, hello-release.
 * krtld calls _init after linking the module and _fini before unloading.
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/sdt.h>

#define HELLO_NAME_MAX 32

struct hello_state {
	unsigned long reads;
	unsigned long opens;
	char name[HELLO_NAME_MAX];
};

static struct hello_state hello_state = { 0, 0, "world" };
static int hello_major;

static int hello_open(struct inode *inode, struct file *file)
{
	hello_state.opens++;
	DTRACE_PROBE2(hello__open, struct file *, file, unsigned long, hello_state.opens);
	return 0;
}

/* The greeting is generated afresh per read position 0, so `cat` sees one
 * line and then end of file. */
static ssize_t hello_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	char text[96];
	int len;
	size_t avail;

	DTRACE_PROBE3(hello__read__start, struct file *, file, size_t, n, off_t, *pos);
	len = snprintf(text, sizeof(text), "Hello, %s! (read %lu, pid %d)\n", hello_state.name,
		       hello_state.reads + 1, current->pid);
	if (*pos >= len) {
		DTRACE_PROBE2(hello__read__done, struct file *, file, ssize_t, 0);
		return 0;
	}
	avail = MIN(n, (size_t)(len - *pos));
	if (copy_to_user(ubuf, text + *pos, avail) < 0)
		return -EFAULT;
	*pos += (off_t)avail;
	if (*pos >= len)
		hello_state.reads++;
	DTRACE_PROBE2(hello__read__done, struct file *, file, ssize_t, (ssize_t)avail);
	return (ssize_t)avail;
}

static ssize_t hello_write(struct file *file, const char *ubuf, size_t n, off_t *pos)
{
	size_t len = MIN(n, (size_t)HELLO_NAME_MAX - 1);

	if (copy_from_user(hello_state.name, ubuf, len) < 0)
		return -EFAULT;
	while (len > 0 && (hello_state.name[len - 1] == '\n' || hello_state.name[len - 1] == ' '))
		len--;
	hello_state.name[len] = '\0';
	DTRACE_PROBE2(hello__write, const char *, hello_state.name, size_t, n);
	return (ssize_t)n;
}

static int hello_release(struct inode *inode, struct file *file)
{
	DTRACE_PROBE1(hello__release, struct file *, file);
	return 0;
}

static const struct file_operations hello_fops = {
	.open = hello_open,
	.read = hello_read,
	.write = hello_write,
	.release = hello_release,
};

int _init(void)
{
	int major = register_chrdev(0, "hello", &hello_fops);
	int err;

	if (major < 0)
		return major;
	err = devfs_create("hello", MKDEV(major, 0), 0666);
	if (err < 0) {
		unregister_chrdev((unsigned)major, "hello");
		return err;
	}
	hello_major = major;
	printk("hello: /dev/hello ready (major %d)\n", major);
	return 0;
}

int _fini(void)
{
	devfs_remove("hello");
	unregister_chrdev((unsigned)hello_major, "hello");
	printk("hello: unloaded after %lu reads\n", hello_state.reads);
	return 0;
}
