/* The memory character devices (major 1): /dev/null (minor 3) discards
 * writes and reads as end of file; /dev/zero (minor 5) reads as zeros. */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>

#define MEM_MAJOR 1
#define NULL_MINOR 3
#define ZERO_MINOR 5

static ssize_t null_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	return 0;
}

static ssize_t null_write(struct file *file, const char *ubuf, size_t n, off_t *pos)
{
	return (ssize_t)n;
}

static ssize_t zero_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	return clear_user(ubuf, n) < 0 ? -EFAULT : (ssize_t)n;
}

static const struct file_operations null_fops = {
	.read = null_read,
	.write = null_write,
};

static const struct file_operations zero_fops = {
	.read = zero_read,
	.write = null_write,
};

static int mem_open(struct inode *inode, struct file *file)
{
	switch (MINOR(inode->i_rdev)) {
	case NULL_MINOR:
		file->f_op = &null_fops;
		return 0;
	case ZERO_MINOR:
		file->f_op = &zero_fops;
		return 0;
	default:
		return -ENXIO;
	}
}

static const struct file_operations mem_fops = {
	.open = mem_open,
};

void mem_devices_init(void)
{
	register_chrdev(MEM_MAJOR, "mem", &mem_fops);
}
