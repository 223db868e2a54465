/* Reading and writing open files: vfs_read/vfs_write (with the io
 * provider's start/done sites) and the read, write, readv, writev, lseek
 * system calls. */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/sdt.h>
#include <kernel/syscall.h>

/* The io provider's description of a transfer about to start (out of line,
 * so vfs_read and vfs_write stay small enough to inline into their callers). */
static __attribute__((noinline)) void io_start(struct io_buf *bp, int flags, struct file *file, char *ubuf, size_t n, off_t *pos)
{
	struct inode *inode = file->f_inode;

	bp->b_flags = flags;
	bp->b_bcount = n;
	bp->b_resid = n;
	bp->b_error = 0;
	bp->b_addr = ubuf;
	bp->b_offset = pos ? *pos : file->f_pos;
	bp->b_edev = S_ISCHR(inode->i_mode) ? inode->i_rdev : 0;
	bp->b_devname = S_ISCHR(inode->i_mode) ? chrdev_name(inode->i_rdev) : S_ISFIFO(inode->i_mode) ? "pipe" : "ramfs";
	bp->b_file = file;
}

/* ... and its outcome: r bytes transferred, or -errno. */
static __attribute__((noinline)) void io_done(struct io_buf *bp, ssize_t r)
{
	bp->b_resid = r < 0 ? bp->b_bcount : bp->b_bcount - (size_t)r;
	bp->b_error = r < 0 ? (int)-r : 0;
}

ssize_t vfs_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	struct io_buf bp;
	ssize_t r;

	if ((file->f_flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (!file->f_op || !file->f_op->read)
		return -EINVAL;
	io_start(&bp, B_READ, file, ubuf, n, pos);
	DTRACE_IO1(start, struct io_buf *, &bp);
	r = file->f_op->read(file, ubuf, n, pos);
	io_done(&bp, r);
	DTRACE_IO1(done, struct io_buf *, &bp);
	return r;
}

ssize_t vfs_write(struct file *file, const char *ubuf, size_t n, off_t *pos)
{
	struct io_buf bp;
	ssize_t r;

	if ((file->f_flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	if (!file->f_op || !file->f_op->write)
		return -EINVAL;
	io_start(&bp, B_WRITE, file, (char *)ubuf, n, pos);
	DTRACE_IO1(start, struct io_buf *, &bp);
	r = file->f_op->write(file, ubuf, n, pos);
	io_done(&bp, r);
	DTRACE_IO1(done, struct io_buf *, &bp);
	return r;
}

/* Read into a kernel buffer (used by exec): only for RAM files. */
ssize_t kernel_read(struct file *file, void *buf, size_t n, off_t *pos)
{
	struct inode *inode = file->f_inode;
	size_t avail;

	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	if (*pos >= inode->i_size)
		return 0;
	avail = MIN(n, (size_t)(inode->i_size - *pos));
	memcpy(buf, inode->i_data + *pos, avail);
	*pos += (off_t)avail;
	return (ssize_t)avail;
}

off_t vfs_llseek(struct file *file, off_t off, int whence)
{
	if (!file->f_op || !file->f_op->llseek)
		return -ESPIPE;
	return file->f_op->llseek(file, off, whence);
}

long sys_read(long fd, long buf, long count, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);
	ssize_t r;

	if (!file)
		return -EBADF;
	if (count < 0)
		return -EINVAL;
	DTRACE_PROBE3(file__read__start, int, fd, void *, buf, size_t, count);
	r = vfs_read(file, (char *)buf, (size_t)count, &file->f_pos);
	DTRACE_PROBE2(file__read__done, int, fd, ssize_t, r);
	return r;
}

long sys_write(long fd, long buf, long count, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);
	ssize_t r;

	if (!file)
		return -EBADF;
	if (count < 0)
		return -EINVAL;
	DTRACE_PROBE3(file__write__start, int, fd, const void *, buf, size_t, count);
	r = vfs_write(file, (const char *)buf, (size_t)count, &file->f_pos);
	DTRACE_PROBE2(file__write__done, int, fd, ssize_t, r);
	return r;
}

static long do_iov(long fd, long uiov, long iovcnt, bool write)
{
	struct file *file = fdget((int)fd);
	long total = 0;

	if (!file)
		return -EBADF;
	if (iovcnt < 0 || iovcnt > 1024)
		return -EINVAL;
	for (long i = 0; i < iovcnt; i++) {
		struct iovec iov;
		ssize_t r;

		if (copy_from_user(&iov, (struct iovec *)uiov + i, sizeof(iov)) < 0)
			return -EFAULT;
		if (iov.iov_len == 0)
			continue;
		r = write ? vfs_write(file, iov.iov_base, iov.iov_len, &file->f_pos)
			  : vfs_read(file, iov.iov_base, iov.iov_len, &file->f_pos);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((size_t)r < iov.iov_len)
			break;
	}
	return total;
}

long sys_readv(long fd, long iov, long iovcnt, long a3, long a4, long a5)
{
	return do_iov(fd, iov, iovcnt, false);
}

long sys_writev(long fd, long iov, long iovcnt, long a3, long a4, long a5)
{
	return do_iov(fd, iov, iovcnt, true);
}

long sys_lseek(long fd, long off, long whence, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);

	if (!file)
		return -EBADF;
	return vfs_llseek(file, off, (int)whence);
}

long sys_ioctl(long fd, long cmd, long arg, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);

	if (!file)
		return -EBADF;
	if (!file->f_op || !file->f_op->ioctl)
		return -ENOTTY;
	return file->f_op->ioctl(file, (unsigned)cmd, (unsigned long)arg);
}
