/* Character devices: a table from major number to file operations, and
 * /dev nodes created for them (also used by loadable modules). */
#include <kernel/fs.h>
#include <kernel/lib.h>

#define MAX_CHRDEV 64

struct chrdev_entry {
	const char *name;
	const struct file_operations *fops;
};

static struct chrdev_entry chrdevs[MAX_CHRDEV];

/* major 0 asks for a free number (from the top down, as Linux does). */
int register_chrdev(unsigned major, const char *name, const struct file_operations *fops)
{
	if (major == 0) {
		for (major = MAX_CHRDEV - 1; major > 0 && chrdevs[major].fops; major--)
			;
		if (major == 0)
			return -EBUSY;
	}
	if (major >= MAX_CHRDEV)
		return -EINVAL;
	if (chrdevs[major].fops)
		return -EBUSY;
	chrdevs[major].name = name;
	chrdevs[major].fops = fops;
	return (int)major;
}

int unregister_chrdev(unsigned major, const char *name)
{
	if (major >= MAX_CHRDEV || !chrdevs[major].fops || strcmp(chrdevs[major].name, name) != 0)
		return -EINVAL;
	chrdevs[major].fops = NULL;
	chrdevs[major].name = NULL;
	return 0;
}

const struct file_operations *chrdev_lookup(dev_t dev)
{
	unsigned major = MAJOR(dev);

	return major < MAX_CHRDEV ? chrdevs[major].fops : NULL;
}

const char *chrdev_name(dev_t dev)
{
	unsigned major = MAJOR(dev);

	return major < MAX_CHRDEV && chrdevs[major].name ? chrdevs[major].name : "chrdev";
}

int devfs_create(const char *name, dev_t dev, mode_t mode)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", name);
	return vfs_mknod(path, S_IFCHR | (mode & 07777), dev);
}

int devfs_remove(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", name);
	return vfs_unlink(path);
}
