/* Pipes: a 4 KiB ring buffer shared by a read end and a write end. Readers
 * sleep while it is empty and writers exist; writers sleep while it is full
 * and get EPIPE (and SIGPIPE) once every reader is gone. */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

#define PIPE_SIZE 4096

struct pipe_inode_info {
	char buf[PIPE_SIZE];
	unsigned head, tail;
	int readers, writers;
};

static unsigned pipe_count(struct pipe_inode_info *p)
{
	return p->head - p->tail;
}

static ssize_t pipe_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	struct pipe_inode_info *p = file->private_data;
	size_t done = 0;

	while (pipe_count(p) == 0) {
		if (p->writers == 0)
			return 0;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		sleep_on(p);
		if (signal_pending(current))
			return -EINTR;
	}
	while (done < n && pipe_count(p) > 0) {
		unsigned off = p->tail % PIPE_SIZE;
		size_t len = MIN(n - done, MIN((size_t)pipe_count(p), (size_t)(PIPE_SIZE - off)));

		if (copy_to_user(ubuf + done, p->buf + off, len) < 0)
			return done ? (ssize_t)done : -EFAULT;
		p->tail += (unsigned)len;
		done += len;
	}
	wake_up(p);
	return (ssize_t)done;
}

static ssize_t pipe_write(struct file *file, const char *ubuf, size_t n, off_t *pos)
{
	struct pipe_inode_info *p = file->private_data;
	size_t done = 0;

	while (done < n) {
		unsigned off;
		size_t len;

		if (p->readers == 0) {
			send_signal(current, SIGPIPE);
			return done ? (ssize_t)done : -EPIPE;
		}
		if (pipe_count(p) == PIPE_SIZE) {
			if (file->f_flags & O_NONBLOCK)
				return done ? (ssize_t)done : -EAGAIN;
			wake_up(p);
			sleep_on(p);
			if (signal_pending(current))
				return done ? (ssize_t)done : -EINTR;
			continue;
		}
		off = p->head % PIPE_SIZE;
		len = MIN(n - done, MIN((size_t)(PIPE_SIZE - pipe_count(p)), (size_t)(PIPE_SIZE - off)));
		if (copy_from_user(p->buf + off, ubuf + done, len) < 0)
			return done ? (ssize_t)done : -EFAULT;
		p->head += (unsigned)len;
		done += len;
	}
	wake_up(p);
	return (ssize_t)done;
}

static void pipe_free_if_unused(struct pipe_inode_info *p)
{
	if (p->readers == 0 && p->writers == 0)
		kfree(p);
	else
		wake_up(p);
}

static int pipe_read_release(struct inode *inode, struct file *file)
{
	struct pipe_inode_info *p = file->private_data;

	p->readers--;
	pipe_free_if_unused(p);
	return 0;
}

static int pipe_write_release(struct inode *inode, struct file *file)
{
	struct pipe_inode_info *p = file->private_data;

	p->writers--;
	pipe_free_if_unused(p);
	return 0;
}

/* What poll and select see: data or a gone writer for the read end, room
 * or a gone reader for the write end (pipe_poll in Linux). */
static unsigned pipe_read_poll(struct file *file)
{
	struct pipe_inode_info *p = file->private_data;

	return (pipe_count(p) > 0 ? POLLIN | POLLRDNORM : 0) | (p->writers == 0 ? POLLHUP : 0);
}

static unsigned pipe_write_poll(struct file *file)
{
	struct pipe_inode_info *p = file->private_data;

	return (pipe_count(p) < PIPE_SIZE ? POLLOUT | POLLWRNORM : 0) | (p->readers == 0 ? POLLERR : 0);
}

static const struct file_operations pipe_read_fops = {
	.read = pipe_read,
	.poll = pipe_read_poll,
	.release = pipe_read_release,
};

static const struct file_operations pipe_write_fops = {
	.write = pipe_write,
	.poll = pipe_write_poll,
	.release = pipe_write_release,
};

int do_pipe(struct file **read_end, struct file **write_end)
{
	struct pipe_inode_info *p = kzalloc(sizeof(*p));
	struct inode *inode;

	if (!p)
		return -ENOMEM;
	inode = new_inode(S_IFIFO | 0600);
	if (!inode) {
		kfree(p);
		return -ENOMEM;
	}
	inode->i_nlink = 0;      /* anonymous: freed with its last file */
	*read_end = alloc_file(inode, O_RDONLY, &pipe_read_fops);
	*write_end = alloc_file(inode, O_WRONLY, &pipe_write_fops);
	if (!*read_end || !*write_end) {
		kfree(*read_end);
		kfree(*write_end);
		kfree(inode);
		kfree(p);
		return -ENOMEM;
	}
	(*read_end)->private_data = p;
	(*write_end)->private_data = p;
	p->readers = 1;
	p->writers = 1;
	return 0;
}
