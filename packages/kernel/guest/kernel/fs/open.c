/* Opening and closing files, descriptors (dup, fcntl, pipe), and the
 * name-space system calls (stat, mkdir, unlink, rename, chdir, getcwd,
 * getdents64). Paths arrive from user space and are copied first. */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>

static long get_user_path(char *dst, long upath)
{
	long n = strncpy_from_user(dst, (const char *)upath, PATH_MAX);

	if (n < 0)
		return n;
	if (n == 0)
		return -ENOENT;
	return 0;
}

/* The path a file is opened by, made absolute (a relative one joined to the
 * cwd), kept in the file for the io provider's fileinfo_t; NULL when out of
 * memory (the file works the same without it). */
static char *file_path(const char *path)
{
	const char *cwd = path[0] == '/' || !current->fs ? "" : current->fs->cwd_path;
	size_t nc = strlen(cwd), np = strlen(path), n = nc;
	char *p = kmalloc(nc + 1 + np + 1);

	if (!p)
		return NULL;
	memcpy(p, cwd, nc);
	if (nc > 0 && cwd[nc - 1] != '/')
		p[n++] = '/';
	memcpy(p + n, path, np + 1);
	return p;
}

struct file *filp_open(const char *path, unsigned flags, mode_t mode, int *err)
{
	struct inode *inode = path_lookup(path, err);
	const struct file_operations *fop;
	struct file *file;

	if (!inode) {
		if (*err != -ENOENT || !(flags & O_CREAT))
			return NULL;
		inode = vfs_create(path, S_IFREG | (mode & ~current->fs->umask & 07777), err);
		if (!inode)
			return NULL;
	} else if ((flags & O_CREAT) && (flags & O_EXCL)) {
		*err = -EEXIST;
		return NULL;
	}
	if ((flags & O_DIRECTORY) && !S_ISDIR(inode->i_mode)) {
		*err = -ENOTDIR;
		return NULL;
	}
	if (S_ISDIR(inode->i_mode) && (flags & O_ACCMODE) != O_RDONLY) {
		*err = -EISDIR;
		return NULL;
	}
	fop = inode->i_fop;
	if (S_ISCHR(inode->i_mode)) {
		fop = chrdev_lookup(inode->i_rdev);
		if (!fop) {
			*err = -ENXIO;
			return NULL;
		}
	}
	file = alloc_file(inode, flags, fop);
	if (!file) {
		*err = -ENOMEM;
		return NULL;
	}
	file->f_path = file_path(path);
	if (fop && fop->open) {
		*err = fop->open(inode, file);
		if (*err < 0) {
			fput(file);
			return NULL;
		}
	}
	if (S_ISREG(inode->i_mode) && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)
		inode->i_size = 0;
	*err = 0;
	return file;
}

static long do_open(long dirfd, long upath, long flags, long mode)
{
	char path[PATH_MAX];
	struct file *file;
	int err, fd;
	long r = get_user_path(path, upath);

	if (r < 0)
		return r;
	/* dirfd is an int: only its low 32 bits count (glibc passes AT_FDCWD zero-extended). */
	if (path[0] != '/' && (int)dirfd != AT_FDCWD)
		return -EINVAL;     /* only AT_FDCWD-relative paths are supported */
	file = filp_open(path, (unsigned)flags, (mode_t)mode, &err);
	if (!file)
		return err;
	fd = fd_install(file, 0);
	if (fd < 0) {
		fput(file);
		return fd;
	}
	if (flags & O_CLOEXEC)
		current->files->close_on_exec |= 1ull << fd;
	return fd;
}

long sys_open(long path, long flags, long mode, long a3, long a4, long a5)
{
	return do_open(AT_FDCWD, path, flags, mode);
}

long sys_openat(long dirfd, long path, long flags, long mode, long a4, long a5)
{
	return do_open(dirfd, path, flags, mode);
}

long sys_close(long fd, long a1, long a2, long a3, long a4, long a5)
{
	return close_fd((int)fd);
}

long sys_dup(long fd, long a1, long a2, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);
	int nfd;

	if (!file)
		return -EBADF;
	nfd = fd_install(file, 0);
	if (nfd >= 0)
		fget(file);
	return nfd;
}

long sys_dup3(long oldfd, long newfd, long flags, long a3, long a4, long a5)
{
	struct file *file = fdget((int)oldfd);

	if (!file || newfd < 0 || newfd >= NR_OPEN)
		return -EBADF;
	if (oldfd == newfd)
		return -EINVAL;
	fget(file);
	if (current->files->fd[newfd])
		close_fd((int)newfd);
	current->files->fd[newfd] = file;
	if (flags & O_CLOEXEC)
		current->files->close_on_exec |= 1ull << newfd;
	else
		current->files->close_on_exec &= ~(1ull << newfd);
	return newfd;
}

long sys_dup2(long oldfd, long newfd, long a2, long a3, long a4, long a5)
{
	if (oldfd == newfd)
		return fdget((int)oldfd) ? newfd : -EBADF;
	return sys_dup3(oldfd, newfd, 0, 0, 0, 0);
}

long sys_fcntl(long fd, long cmd, long arg, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);
	int nfd;

	if (!file)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case 1030: /* F_DUPFD_CLOEXEC */
		nfd = fd_install(file, (int)arg);
		if (nfd < 0)
			return nfd;
		fget(file);
		if (cmd == 1030)
			current->files->close_on_exec |= 1ull << nfd;
		return nfd;
	case F_GETFD:
		return (current->files->close_on_exec >> fd) & 1;
	case F_SETFD:
		if (arg & FD_CLOEXEC)
			current->files->close_on_exec |= 1ull << fd;
		else
			current->files->close_on_exec &= ~(1ull << fd);
		return 0;
	case F_GETFL:
		return file->f_flags;
	case F_SETFL:
		file->f_flags = (file->f_flags & ~(unsigned)(O_APPEND | O_NONBLOCK)) |
				((unsigned)arg & (O_APPEND | O_NONBLOCK));
		return 0;
	default:
		return -EINVAL;
	}
}

long sys_pipe2(long ufds, long flags, long a2, long a3, long a4, long a5)
{
	struct file *r, *w;
	int fds[2];
	int err = do_pipe(&r, &w);

	if (err < 0)
		return err;
	fds[0] = fd_install(r, 0);
	fds[1] = fds[0] < 0 ? -EMFILE : fd_install(w, 0);
	if (fds[1] < 0) {
		if (fds[0] >= 0)
			current->files->fd[fds[0]] = NULL;
		fput(r);
		fput(w);
		return -EMFILE;
	}
	if (flags & O_CLOEXEC)
		current->files->close_on_exec |= (1ull << fds[0]) | (1ull << fds[1]);
	if (copy_to_user((void *)ufds, fds, sizeof(fds)) < 0) {
		close_fd(fds[0]);
		close_fd(fds[1]);
		return -EFAULT;
	}
	return 0;
}

long sys_pipe(long ufds, long a1, long a2, long a3, long a4, long a5)
{
	return sys_pipe2(ufds, 0, 0, 0, 0, 0);
}

static long do_stat_path(long upath, long ustat)
{
	char path[PATH_MAX];
	struct stat st;
	struct inode *inode;
	int err;
	long r = get_user_path(path, upath);

	if (r < 0)
		return r;
	inode = path_lookup(path, &err);
	if (!inode)
		return err;
	fill_stat(inode, &st);
	return copy_to_user((void *)ustat, &st, sizeof(st)) < 0 ? -EFAULT : 0;
}

long sys_stat(long path, long st, long a2, long a3, long a4, long a5)
{
	return do_stat_path(path, st);
}

long sys_lstat(long path, long st, long a2, long a3, long a4, long a5)
{
	return do_stat_path(path, st);
}

long sys_fstat(long fd, long ustat, long a2, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);
	struct stat st;

	if (!file)
		return -EBADF;
	fill_stat(file->f_inode, &st);
	return copy_to_user((void *)ustat, &st, sizeof(st)) < 0 ? -EFAULT : 0;
}

long sys_stat64(long path, long st, long a2, long a3, long a4, long a5)
{
	return do_stat_path(path, st);
}

long sys_lstat64(long path, long st, long a2, long a3, long a4, long a5)
{
	return do_stat_path(path, st);
}

long sys_fstat64(long fd, long st, long a2, long a3, long a4, long a5)
{
	return sys_fstat(fd, st, 0, 0, 0, 0);
}

/* fstatat with AT_EMPTY_PATH (0x1000) on a descriptor, or a path. */
long sys_newfstatat(long dirfd, long path, long st, long flags, long a4, long a5)
{
	char first;

	if ((flags & 0x1000) && copy_from_user(&first, (void *)path, 1) == 0 && first == '\0')
		return sys_fstat(dirfd, st, 0, 0, 0, 0);
	return do_stat_path(path, st);
}

long sys_fstatat64(long dirfd, long path, long st, long flags, long a4, long a5)
{
	return sys_newfstatat(dirfd, path, st, flags, 0, 0);
}

long sys_access(long upath, long mode, long a2, long a3, long a4, long a5)
{
	char path[PATH_MAX];
	int err;
	long r = get_user_path(path, upath);

	if (r < 0)
		return r;
	return path_lookup(path, &err) ? 0 : err;
}

long sys_mkdir(long upath, long mode, long a2, long a3, long a4, long a5)
{
	char path[PATH_MAX];
	long r = get_user_path(path, upath);

	return r < 0 ? r : vfs_mkdir(path, (mode_t)mode);
}

long sys_mkdirat(long dirfd, long upath, long mode, long a3, long a4, long a5)
{
	return sys_mkdir(upath, mode, 0, 0, 0, 0);
}

long sys_rmdir(long upath, long a1, long a2, long a3, long a4, long a5)
{
	char path[PATH_MAX];
	long r = get_user_path(path, upath);

	return r < 0 ? r : vfs_rmdir(path);
}

long sys_unlink(long upath, long a1, long a2, long a3, long a4, long a5)
{
	char path[PATH_MAX];
	long r = get_user_path(path, upath);

	return r < 0 ? r : vfs_unlink(path);
}

long sys_unlinkat(long dirfd, long upath, long flags, long a3, long a4, long a5)
{
	if (flags & AT_REMOVEDIR)
		return sys_rmdir(upath, 0, 0, 0, 0, 0);
	return sys_unlink(upath, 0, 0, 0, 0, 0);
}

long sys_rename(long ufrom, long uto, long a2, long a3, long a4, long a5)
{
	char from[PATH_MAX], to[PATH_MAX];
	long r = get_user_path(from, ufrom);

	if (r < 0)
		return r;
	r = get_user_path(to, uto);
	return r < 0 ? r : vfs_rename(from, to);
}

long sys_umask(long mask, long a1, long a2, long a3, long a4, long a5)
{
	unsigned old = current->fs->umask;

	current->fs->umask = (unsigned)mask & 0777;
	return old;
}

/* Make cwd_path canonical after a chdir to path (handles . and ..). */
static void update_cwd_path(struct fs_struct *fs, const char *path)
{
	char result[PATH_MAX];
	const char *p = path;

	if (path[0] == '/')
		strcpy(result, "/");
	else
		strlcpy(result, fs->cwd_path, sizeof(result));
	while (*p) {
		char name[NAME_MAX + 1];
		size_t n = 0;

		while (*p == '/')
			p++;
		while (*p && *p != '/' && n < NAME_MAX)
			name[n++] = *p++;
		name[n] = '\0';
		if (n == 0 || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			char *slash = strrchr(result, '/');

			if (slash == result)
				result[1] = '\0';
			else if (slash)
				*slash = '\0';
			continue;
		}
		if (strlen(result) + n + 2 >= sizeof(result))
			break;
		if (strcmp(result, "/") != 0)
			strcpy(result + strlen(result), "/");
		strcpy(result + strlen(result), name);
	}
	strlcpy(fs->cwd_path, result, sizeof(fs->cwd_path));
}

long sys_chdir(long upath, long a1, long a2, long a3, long a4, long a5)
{
	char path[PATH_MAX];
	struct inode *inode;
	int err;
	long r = get_user_path(path, upath);

	if (r < 0)
		return r;
	inode = path_lookup(path, &err);
	if (!inode)
		return err;
	if (!S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	iget(inode);
	iput(current->fs->cwd);
	current->fs->cwd = inode;
	update_cwd_path(current->fs, path);
	return 0;
}

long sys_getcwd(long ubuf, long size, long a2, long a3, long a4, long a5)
{
	size_t n = strlen(current->fs->cwd_path) + 1;

	if ((size_t)size < n)
		return -ERANGE;
	if (copy_to_user((void *)ubuf, current->fs->cwd_path, n) < 0)
		return -EFAULT;
	return (long)n;
}

static uint8_t dirent_type(mode_t mode)
{
	if (S_ISDIR(mode))
		return DT_DIR;
	if (S_ISCHR(mode))
		return DT_CHR;
	if (S_ISFIFO(mode))
		return DT_FIFO;
	if (S_ISREG(mode))
		return DT_REG;
	return DT_UNKNOWN;
}

/* getdents64: f_pos counts entries, with "." and ".." first. */
long sys_getdents64(long fd, long ubuf, long count, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);
	struct inode *dir;
	long written = 0;
	off_t index = 0;

	if (!file)
		return -EBADF;
	dir = file->f_inode;
	if (!S_ISDIR(dir->i_mode))
		return -ENOTDIR;
	for (int pass = 0;; pass++) {
		const char *name;
		struct inode *inode;
		struct dirent_node *e = NULL;
		char record[sizeof(struct linux_dirent64) + NAME_MAX + 8];
		struct linux_dirent64 *d = (struct linux_dirent64 *)record;
		size_t reclen;

		if (pass == 0) {
			name = ".";
			inode = dir;
		} else if (pass == 1) {
			name = "..";
			inode = dir->i_parent ? dir->i_parent : dir;
		} else {
			int k = pass - 2;

			for (e = dir->i_entries; e && k > 0; e = e->next)
				k--;
			if (!e)
				break;
			name = e->name;
			inode = e->inode;
		}
		if (index++ < file->f_pos)
			continue;
		reclen = ALIGN_UP(offsetof(struct linux_dirent64, d_name) + strlen(name) + 1, 8);
		if (written + (long)reclen > count)
			return written ? written : -EINVAL;
		memset(record, 0, reclen);
		d->d_ino = inode->i_ino;
		d->d_off = index;
		d->d_reclen = (uint16_t)reclen;
		d->d_type = dirent_type(inode->i_mode);
		strcpy(d->d_name, name);
		if (copy_to_user((char *)ubuf + written, record, reclen) < 0)
			return -EFAULT;
		written += (long)reclen;
		file->f_pos = index;
	}
	return written;
}
