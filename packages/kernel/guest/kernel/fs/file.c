/* Open files and per-process tables: file reference counting, descriptor
 * allocation, close-on-exec, and the shared fs context (cwd, umask). */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

struct file *alloc_file(struct inode *inode, unsigned flags, const struct file_operations *fop)
{
	struct file *file = kzalloc(sizeof(*file));

	if (!file)
		return NULL;
	file->f_count = 1;
	file->f_flags = flags;
	file->f_inode = inode;
	file->f_op = fop;
	if (inode)
		iget(inode);
	return file;
}

void fget(struct file *file)
{
	file->f_count++;
}

void fput(struct file *file)
{
	if (--file->f_count > 0)
		return;
	if (file->f_op && file->f_op->release)
		file->f_op->release(file->f_inode, file);
	iput(file->f_inode);
	kfree(file->f_path);
	kfree(file);
}

struct file *fdget(int fd)
{
	struct files_struct *files = current->files;

	if (fd < 0 || fd >= NR_OPEN || !files)
		return NULL;
	return files->fd[fd];
}

/* Install file at the lowest free descriptor >= min_fd. */
int fd_install(struct file *file, int min_fd)
{
	struct files_struct *files = current->files;

	for (int fd = min_fd < 0 ? 0 : min_fd; fd < NR_OPEN; fd++) {
		if (!files->fd[fd]) {
			files->fd[fd] = file;
			files->close_on_exec &= ~(1ull << fd);
			return fd;
		}
	}
	return -EMFILE;
}

int close_fd(int fd)
{
	struct file *file = fdget(fd);

	if (!file)
		return -EBADF;
	current->files->fd[fd] = NULL;
	current->files->close_on_exec &= ~(1ull << fd);
	fput(file);
	return 0;
}

struct files_struct *files_alloc(void)
{
	struct files_struct *files = kzalloc(sizeof(*files));

	if (files)
		files->count = 1;
	return files;
}

struct files_struct *files_dup(struct files_struct *old)
{
	struct files_struct *files = files_alloc();

	if (!files)
		return NULL;
	for (int fd = 0; fd < NR_OPEN; fd++) {
		files->fd[fd] = old->fd[fd];
		if (files->fd[fd])
			fget(files->fd[fd]);
	}
	files->close_on_exec = old->close_on_exec;
	return files;
}

void files_put(struct files_struct *files)
{
	if (--files->count > 0)
		return;
	for (int fd = 0; fd < NR_OPEN; fd++)
		if (files->fd[fd])
			fput(files->fd[fd]);
	kfree(files);
}

void files_close_on_exec(struct files_struct *files)
{
	for (int fd = 0; fd < NR_OPEN; fd++) {
		if ((files->close_on_exec >> fd) & 1 && files->fd[fd]) {
			fput(files->fd[fd]);
			files->fd[fd] = NULL;
		}
	}
	files->close_on_exec = 0;
}

struct fs_struct *fs_alloc(void)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs));

	if (!fs)
		return NULL;
	fs->count = 1;
	fs->cwd = root_inode;
	iget(root_inode);
	strcpy(fs->cwd_path, "/");
	fs->umask = 022;
	return fs;
}

struct fs_struct *fs_dup(struct fs_struct *old)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs));

	if (!fs)
		return NULL;
	*fs = *old;
	fs->count = 1;
	iget(fs->cwd);
	return fs;
}

void fs_put(struct fs_struct *fs)
{
	if (--fs->count > 0)
		return;
	iput(fs->cwd);
	kfree(fs);
}
