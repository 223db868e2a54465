/* Opening and closing files, descriptors (dup, fcntl, pipe), and the
 * name-space system calls (stat, mkdir, unlink, rename, chdir, getcwd,
 * getdents64). Paths arrive from user space and are copied first. */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/time.h>

static long get_user_path(char *dst, long upath)
{
	long n = strncpy_from_user(dst, (const char *)upath, PATH_MAX);

	if (n < 0)
		return n;
	if (n == 0)
		return -ENOENT;
	return 0;
}

/* A path relative to a directory descriptor (the *at calls), made into
 * one the walk can start from: dirfd's own path joined with it. AT_FDCWD
 * and absolute paths are taken as they are. */
static long get_user_path_at(long dirfd, char *dst, long upath)
{
	char rel[PATH_MAX];
	struct file *dir;
	long r = get_user_path(rel, upath);
	size_t nd;

	if (r < 0)
		return r;
	/* dirfd is an int: only its low 32 bits count (glibc passes AT_FDCWD zero-extended). */
	if (rel[0] == '/' || (int)dirfd == AT_FDCWD) {
		strcpy(dst, rel);
		return 0;
	}
	dir = fdget((int)dirfd);
	if (!dir)
		return -EBADF;
	if (!S_ISDIR(dir->f_inode->i_mode))
		return -ENOTDIR;
	if (!dir->f_path)
		return -ENOMEM;
	nd = strlen(dir->f_path);
	if (nd + 1 + strlen(rel) + 1 > PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(dst, dir->f_path, nd);
	dst[nd] = '/';
	strcpy(dst + nd + 1, rel);
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
	long r = get_user_path_at(dirfd, path, upath);

	if (r < 0)
		return r;
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

static long do_stat_path(long dirfd, long upath, long ustat, bool follow)
{
	char path[PATH_MAX];
	struct stat st;
	struct inode *inode;
	int err;
	long r = get_user_path_at(dirfd, path, upath);

	if (r < 0)
		return r;
	inode = path_lookup_flags(path, follow, &err);
	if (!inode)
		return err;
	fill_stat(inode, &st);
	return copy_to_user((void *)ustat, &st, sizeof(st)) < 0 ? -EFAULT : 0;
}

long sys_stat(long path, long st, long a2, long a3, long a4, long a5)
{
	return do_stat_path(AT_FDCWD, path, st, true);
}

long sys_lstat(long path, long st, long a2, long a3, long a4, long a5)
{
	return do_stat_path(AT_FDCWD, path, st, false);
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
	return do_stat_path(AT_FDCWD, path, st, true);
}

long sys_lstat64(long path, long st, long a2, long a3, long a4, long a5)
{
	return do_stat_path(AT_FDCWD, path, st, false);
}

long sys_fstat64(long fd, long st, long a2, long a3, long a4, long a5)
{
	return sys_fstat(fd, st, 0, 0, 0, 0);
}

/* fstatat with AT_EMPTY_PATH on a descriptor, or a path (relative to
 * dirfd; a last link is not followed under AT_SYMLINK_NOFOLLOW). */
long sys_newfstatat(long dirfd, long path, long st, long flags, long a4, long a5)
{
	char first;

	if (flags & ~(long)(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT))
		return -EINVAL;
	if ((flags & AT_EMPTY_PATH) && copy_from_user(&first, (void *)path, 1) == 0 && first == '\0')
		return sys_fstat(dirfd, st, 0, 0, 0, 0);
	return do_stat_path(dirfd, path, st, !(flags & AT_SYMLINK_NOFOLLOW));
}

/* statx: the basic fields (STATX_BASIC_STATS; no birth time), of a path
 * relative to dirfd or, with AT_EMPTY_PATH and "", of dirfd itself. */
long sys_statx(long dirfd, long upath, long flags, long mask, long ubuf, long a5)
{
	struct statx stx;
	struct stat st;
	struct inode *inode;
	char first = 1;
	int err;

	if (flags & ~(long)(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE) ||
	    (flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE || ((unsigned)mask & STATX__RESERVED))
		return -EINVAL;
	if ((flags & AT_EMPTY_PATH) && copy_from_user(&first, (void *)upath, 1) < 0)
		return -EFAULT;
	if (first == '\0') {
		struct file *file = fdget((int)dirfd);

		if (!file)
			return -EBADF;
		inode = file->f_inode;
	} else {
		char path[PATH_MAX];
		long r = get_user_path_at(dirfd, path, upath);

		if (r < 0)
			return r;
		inode = path_lookup_flags(path, !(flags & AT_SYMLINK_NOFOLLOW), &err);
		if (!inode)
			return err;
	}
	fill_stat(inode, &st);
	memset(&stx, 0, sizeof(stx));
	stx.stx_mask = STATX_BASIC_STATS;
	stx.stx_blksize = (uint32_t)st.st_blksize;
	stx.stx_nlink = (uint32_t)st.st_nlink;
	stx.stx_uid = st.st_uid;
	stx.stx_gid = st.st_gid;
	stx.stx_mode = (uint16_t)st.st_mode;
	stx.stx_ino = inode->i_ino;
	stx.stx_size = (uint64_t)st.st_size;
	stx.stx_blocks = (uint64_t)st.st_blocks;
	stx.stx_atime.tv_sec = (int64_t)(inode->i_atime_ns / NSEC_PER_SEC);
	stx.stx_atime.tv_nsec = (uint32_t)(inode->i_atime_ns % NSEC_PER_SEC);
	stx.stx_mtime.tv_sec = stx.stx_ctime.tv_sec = (int64_t)(inode->i_mtime_ns / NSEC_PER_SEC);
	stx.stx_mtime.tv_nsec = stx.stx_ctime.tv_nsec = (uint32_t)(inode->i_mtime_ns % NSEC_PER_SEC);
	stx.stx_rdev_major = MAJOR(inode->i_rdev);
	stx.stx_rdev_minor = MINOR(inode->i_rdev);
	stx.stx_dev_major = 0;
	stx.stx_dev_minor = 1;             /* st_dev 1 */
	return copy_to_user((void *)ubuf, &stx, sizeof(stx)) < 0 ? -EFAULT : 0;
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
	char path[PATH_MAX];
	long r = get_user_path_at(dirfd, path, upath);

	return r < 0 ? r : vfs_mkdir(path, (mode_t)mode);
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
	char path[PATH_MAX];
	long r;

	if (flags & ~(long)AT_REMOVEDIR)
		return -EINVAL;
	r = get_user_path_at(dirfd, path, upath);
	if (r < 0)
		return r;
	return (flags & AT_REMOVEDIR) ? vfs_rmdir(path) : vfs_unlink(path);
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

/* The absolute path of a directory from its names in its ancestors (a
 * directory has exactly one name), so the cwd is the directory's real
 * path once links on the way were followed, as getcwd reports it. */
static int dir_path(struct inode *dir, char *buf, size_t size)
{
	char tmp[PATH_MAX];
	size_t start = sizeof(tmp) - 1;

	tmp[start] = '\0';
	while (dir != root_inode) {
		struct inode *parent = dir->i_parent;
		struct dirent_node *e;
		size_t n;

		if (!parent || parent == dir)
			return -ENOENT;
		for (e = parent->i_entries; e && e->inode != dir; e = e->next)
			;
		if (!e)
			return -ENOENT;     /* removed while we stood in it */
		n = strlen(e->name);
		if (n + 1 > start)
			return -ENAMETOOLONG;
		start -= n;
		memcpy(tmp + start, e->name, n);
		tmp[--start] = '/';
		dir = parent;
	}
	if (start == sizeof(tmp) - 1)
		tmp[--start] = '/';
	if (sizeof(tmp) - start > size)
		return -ENAMETOOLONG;
	strcpy(buf, tmp + start);
	return 0;
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
	r = dir_path(inode, path, sizeof(path));
	if (r < 0)
		return r;
	iget(inode);
	iput(current->fs->cwd);
	current->fs->cwd = inode;
	strlcpy(current->fs->cwd_path, path, sizeof(current->fs->cwd_path));
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
	if (S_ISLNK(mode))
		return DT_LNK;
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

/* ---- links, modes, owners, times and sizes ---- */

static long do_readlink(long dirfd, long upath, long ubuf, long size)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct inode *inode;
	int err;
	long n, r;

	if (size <= 0)
		return -EINVAL;
	r = get_user_path_at(dirfd, path, upath);
	if (r < 0)
		return r;
	inode = path_lookup_flags(path, false, &err);
	if (!inode)
		return err;
	n = inode_readlink(inode, target, sizeof(target));
	if (n < 0)
		return n;
	if (n > size)
		n = size;           /* truncated, without a NUL, as Linux does */
	return copy_to_user((void *)ubuf, target, (size_t)n) < 0 ? -EFAULT : n;
}

long sys_readlink(long path, long buf, long size, long a3, long a4, long a5)
{
	return do_readlink(AT_FDCWD, path, buf, size);
}

long sys_readlinkat(long dirfd, long path, long buf, long size, long a4, long a5)
{
	return do_readlink(dirfd, path, buf, size);
}

static long do_symlink(long utarget, long dirfd, long upath)
{
	char target[PATH_MAX], path[PATH_MAX];
	struct inode *inode;
	int err;
	long r = get_user_path(target, utarget);

	if (r < 0)
		return r;
	r = get_user_path_at(dirfd, path, upath);
	if (r < 0)
		return r;
	inode = vfs_create(path, S_IFLNK | 0777, &err);
	if (!inode)
		return err;
	err = ramfs_resize(inode, strlen(target));
	if (err == 0) {
		memcpy(inode->i_data, target, strlen(target));
		inode->i_size = (off_t)strlen(target);
	}
	return err;
}

long sys_symlink(long target, long path, long a2, long a3, long a4, long a5)
{
	return do_symlink(target, AT_FDCWD, path);
}

long sys_symlinkat(long target, long dirfd, long path, long a3, long a4, long a5)
{
	return do_symlink(target, dirfd, path);
}

static long do_link(long olddirfd, long uold, long newdirfd, long unew, long flags)
{
	char old[PATH_MAX], new[PATH_MAX], last[NAME_MAX + 1];
	struct inode *inode, *dir;
	int err;
	long r;

	if (flags & ~(long)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	r = get_user_path_at(olddirfd, old, uold);
	if (r < 0)
		return r;
	r = get_user_path_at(newdirfd, new, unew);
	if (r < 0)
		return r;
	inode = path_lookup_flags(old, (flags & AT_SYMLINK_FOLLOW) != 0, &err);
	if (!inode)
		return err;
	if (S_ISDIR(inode->i_mode))
		return -EPERM;
	dir = path_lookup_parent(new, last, &err);
	if (!dir)
		return err;
	if (!last[0] || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
		return -EEXIST;
	err = dir_add_entry(dir, last, inode);
	if (err == 0)
		inode->i_nlink++;
	return err;
}

long sys_link(long old, long new, long a2, long a3, long a4, long a5)
{
	return do_link(AT_FDCWD, old, AT_FDCWD, new, 0);
}

long sys_linkat(long olddirfd, long old, long newdirfd, long new, long flags, long a5)
{
	return do_link(olddirfd, old, newdirfd, new, flags);
}

/* The inode a path (relative to dirfd) names, for the attribute calls. */
static struct inode *lookup_at(long dirfd, long upath, bool follow, int *err)
{
	char path[PATH_MAX];
	long r = get_user_path_at(dirfd, path, upath);

	if (r < 0) {
		*err = (int)r;
		return NULL;
	}
	return path_lookup_flags(path, follow, err);
}

static long set_mode(struct inode *inode, long mode)
{
	inode->i_mode = (inode->i_mode & S_IFMT) | ((mode_t)mode & 07777);
	return 0;
}

long sys_chmod(long path, long mode, long a2, long a3, long a4, long a5)
{
	int err;
	struct inode *inode = lookup_at(AT_FDCWD, path, true, &err);

	return inode ? set_mode(inode, mode) : err;
}

long sys_fchmod(long fd, long mode, long a2, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);

	if (!file)
		return -EBADF;
	return set_mode(file->f_inode, mode);
}

long sys_fchmodat(long dirfd, long path, long mode, long a3, long a4, long a5)
{
	int err;
	struct inode *inode = lookup_at(dirfd, path, true, &err);

	return inode ? set_mode(inode, mode) : err;
}

/* -1 (as the call's uid_t) leaves an id as it is. */
static long set_owner(struct inode *inode, long uid, long gid)
{
	if ((uint32_t)uid != 0xffffffffu)
		inode->i_uid = (unsigned)uid;
	if ((uint32_t)gid != 0xffffffffu)
		inode->i_gid = (unsigned)gid;
	if (!S_ISDIR(inode->i_mode))
		inode->i_mode &= ~(mode_t)06000;   /* chown clears set-id bits */
	return 0;
}

long sys_chown(long path, long uid, long gid, long a3, long a4, long a5)
{
	int err;
	struct inode *inode = lookup_at(AT_FDCWD, path, true, &err);

	return inode ? set_owner(inode, uid, gid) : err;
}

long sys_lchown(long path, long uid, long gid, long a3, long a4, long a5)
{
	int err;
	struct inode *inode = lookup_at(AT_FDCWD, path, false, &err);

	return inode ? set_owner(inode, uid, gid) : err;
}

long sys_fchown(long fd, long uid, long gid, long a3, long a4, long a5)
{
	struct file *file = fdget((int)fd);

	return file ? set_owner(file->f_inode, uid, gid) : -EBADF;
}

long sys_fchownat(long dirfd, long path, long uid, long gid, long flags, long a5)
{
	int err;
	struct inode *inode;

	if (flags & ~(long)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	inode = lookup_at(dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW), &err);
	return inode ? set_owner(inode, uid, gid) : err;
}

static bool valid_time(const struct kernel_timespec *ts)
{
	return ts->tv_nsec == UTIME_OMIT || ts->tv_nsec == UTIME_NOW ||
	       (ts->tv_nsec >= 0 && ts->tv_nsec < (long)NSEC_PER_SEC && ts->tv_sec >= 0);
}

/* One of utimensat's two times: now, left alone, or the given one. */
static void set_time(const struct kernel_timespec *ts, uint64_t *field, uint64_t now)
{
	if (ts->tv_nsec == UTIME_OMIT)
		return;
	*field = ts->tv_nsec == UTIME_NOW ? now : (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

long sys_utimensat(long dirfd, long upath, long utimes, long flags, long a4, long a5)
{
	struct kernel_timespec ts[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	uint64_t now = ktime_get_real_ns();
	struct inode *inode;
	int err;

	if (flags & ~(long)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (utimes && copy_from_user(ts, (void *)utimes, sizeof(ts)) < 0)
		return -EFAULT;
	if (!valid_time(&ts[0]) || !valid_time(&ts[1]))
		return -EINVAL;
	if (!upath) {
		/* Linux's futimens form: the descriptor itself. */
		struct file *file = fdget((int)dirfd);

		if (!file)
			return -EBADF;
		inode = file->f_inode;
	} else {
		inode = lookup_at(dirfd, upath, !(flags & AT_SYMLINK_NOFOLLOW), &err);
		if (!inode)
			return err;
	}
	set_time(&ts[0], &inode->i_atime_ns, now);
	set_time(&ts[1], &inode->i_mtime_ns, now);
	return 0;
}

static long set_size(struct inode *inode, long long length)
{
	int err;

	if (length < 0)
		return -EINVAL;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	if ((uint64_t)length > (size_t)-1 / 2)
		return -EFBIG;
	if ((size_t)length > (size_t)inode->i_size) {
		err = ramfs_resize(inode, (size_t)length);   /* zero-filled */
		if (err < 0)
			return err;
	}
	inode->i_size = (off_t)length;
	inode->i_mtime_ns = ktime_get_real_ns();
	return 0;
}

static long do_ftruncate(long fd, long long length)
{
	struct file *file = fdget((int)fd);

	if (!file)
		return -EBADF;
	if (!S_ISREG(file->f_inode->i_mode) || (file->f_flags & O_ACCMODE) == O_RDONLY)
		return -EINVAL;
	return set_size(file->f_inode, length);
}

static long do_truncate(long upath, long long length)
{
	int err;
	struct inode *inode = lookup_at(AT_FDCWD, upath, true, &err);

	return inode ? set_size(inode, length) : err;
}

long sys_ftruncate(long fd, long length, long a2, long a3, long a4, long a5)
{
	return do_ftruncate(fd, length);
}

long sys_truncate(long path, long length, long a2, long a3, long a4, long a5)
{
	return do_truncate(path, length);
}

/* ARM EABI: the 64-bit length is in an even register pair (r2, r3), low
 * word first; r1 is padding. */
long sys_ftruncate64(long fd, long pad, long lo, long hi, long a4, long a5)
{
	return do_ftruncate(fd, (long long)(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo));
}

long sys_truncate64(long path, long pad, long lo, long hi, long a4, long a5)
{
	return do_truncate(path, (long long)(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo));
}
