/* RAM file system file operations: regular files are byte arrays grown on
 * write; directories are read with getdents64 (see fs/readdir.c). */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/time.h>

int ramfs_resize(struct inode *inode, size_t size)
{
	if (size > inode->i_capacity) {
		size_t cap = inode->i_capacity ? inode->i_capacity : 256;
		char *data;

		while (cap < size)
			cap *= 2;
		data = krealloc(inode->i_data, cap);
		if (!data)
			return -ENOMEM;
		inode->i_data = data;
		inode->i_capacity = cap;
	}
	if (size > (size_t)inode->i_size)
		memset(inode->i_data + inode->i_size, 0, size - (size_t)inode->i_size);
	inode->i_size = (off_t)size;
	return 0;
}

static ssize_t ramfs_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	struct inode *inode = file->f_inode;
	size_t avail;

	if (*pos >= inode->i_size)
		return 0;
	avail = MIN(n, (size_t)(inode->i_size - *pos));
	if (copy_to_user(ubuf, inode->i_data + *pos, avail) < 0)
		return -EFAULT;
	*pos += (off_t)avail;
	return (ssize_t)avail;
}

static ssize_t ramfs_write(struct file *file, const char *ubuf, size_t n, off_t *pos)
{
	struct inode *inode = file->f_inode;
	int err;

	if (file->f_flags & O_APPEND)
		*pos = inode->i_size;
	if ((size_t)*pos + n > (size_t)inode->i_size) {
		err = ramfs_resize(inode, (size_t)*pos + n);
		if (err < 0)
			return err;
	}
	if (copy_from_user(inode->i_data + *pos, ubuf, n) < 0)
		return -EFAULT;
	*pos += (off_t)n;
	inode->i_mtime_ns = ktime_get_real_ns();
	return (ssize_t)n;
}

static off_t ramfs_llseek(struct file *file, off_t off, int whence)
{
	off_t base;

	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = file->f_pos; break;
	case SEEK_END: base = file->f_inode->i_size; break;
	default: return -EINVAL;
	}
	if (base + off < 0)
		return -EINVAL;
	file->f_pos = base + off;
	return file->f_pos;
}

const struct file_operations ramfs_file_operations = {
	.read = ramfs_read,
	.write = ramfs_write,
	.llseek = ramfs_llseek,
};

static ssize_t ramfs_dir_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	return -EISDIR;
}

static off_t ramfs_dir_llseek(struct file *file, off_t off, int whence)
{
	if (whence != SEEK_SET || off < 0)
		return -EINVAL;
	file->f_pos = off;
	return off;
}

const struct file_operations ramfs_dir_operations = {
	.read = ramfs_dir_read,
	.llseek = ramfs_dir_llseek,
};
