/*
 * Inodes and names of the RAM file system, which is the only file system:
 * directories hold a linked list of (name, inode) entries, regular files a
 * kmalloc'd byte array, symbolic links their target. Path lookup walks
 * from the root or the current directory, handling "." and ".." and
 * following links.
 */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/proc.h>
#include <kernel/sched.h>
#include <kernel/time.h>

struct inode *root_inode;
static unsigned long next_ino = 1;

struct inode *new_inode(mode_t mode)
{
	struct inode *inode = kzalloc(sizeof(*inode));

	if (!inode)
		return NULL;
	inode->i_ino = next_ino++;
	inode->i_mode = mode;
	inode->i_nlink = S_ISDIR(mode) ? 2 : 1;
	inode->i_mtime_ns = inode->i_atime_ns = ktime_get_real_ns();
	if (S_ISDIR(mode))
		inode->i_fop = &ramfs_dir_operations;
	else if (S_ISREG(mode))
		inode->i_fop = &ramfs_file_operations;
	return inode;
}

void iget(struct inode *inode)
{
	inode->i_count++;
}

/* Drop a reference; an inode with no names and no users is freed. */
void iput(struct inode *inode)
{
	if (!inode)
		return;
	if (--inode->i_count > 0 || inode->i_nlink > 0)
		return;
	kfree(inode->i_data);
	kfree(inode);
}

void vfs_init(void)
{
	root_inode = new_inode(S_IFDIR | 0755);
	BUG_ON(!root_inode);
	root_inode->i_parent = root_inode;
	root_inode->i_count = 1;
}

struct inode *dir_lookup(struct inode *dir, const char *name)
{
	if (!S_ISDIR(dir->i_mode))
		return NULL;
	if (strcmp(name, ".") == 0)
		return dir;
	if (strcmp(name, "..") == 0)
		return dir->i_parent;
	for (struct dirent_node *e = dir->i_entries; e; e = e->next)
		if (strcmp(e->name, name) == 0)
			return e->inode;
	return NULL;
}

/* Entries are kept sorted by name, so listings are stable. */
int dir_add_entry(struct inode *dir, const char *name, struct inode *inode)
{
	struct dirent_node *e, **link = &dir->i_entries;

	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	if (dir_lookup(dir, name))
		return -EEXIST;
	e = kzalloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	strlcpy(e->name, name, sizeof(e->name));
	e->inode = inode;
	while (*link && strcmp((*link)->name, name) < 0)
		link = &(*link)->next;
	e->next = *link;
	*link = e;
	if (S_ISDIR(inode->i_mode)) {
		inode->i_parent = dir;
		dir->i_nlink++;
	}
	dir->i_mtime_ns = ktime_get_real_ns();
	return 0;
}

int dir_remove_entry(struct inode *dir, const char *name)
{
	for (struct dirent_node **link = &dir->i_entries; *link; link = &(*link)->next) {
		struct dirent_node *e = *link;

		if (strcmp(e->name, name) != 0)
			continue;
		*link = e->next;
		if (S_ISDIR(e->inode->i_mode))
			dir->i_nlink--;
		kfree(e);
		dir->i_mtime_ns = ktime_get_real_ns();
		return 0;
	}
	return -ENOENT;
}

static struct inode *lookup_start(const char *path)
{
	if (path[0] == '/' || !current || !current->fs)
		return root_inode;
	return current->fs->cwd;
}

/* Copy the next component of *path into name; returns false at the end. */
static bool next_component(const char **path, char *name, int *err)
{
	const char *p = *path;
	size_t n = 0;

	while (*p == '/')
		p++;
	if (!*p)
		return false;
	while (*p && *p != '/') {
		if (n == NAME_MAX) {
			*err = -ENAMETOOLONG;
			return false;
		}
		name[n++] = *p++;
	}
	name[n] = '\0';
	*path = p;
	return true;
}

/* The target of a symbolic link into buf (NUL-terminated); its length or
 * a negative errno. Links in /proc are computed; others are stored. */
long inode_readlink(struct inode *inode, char *buf, size_t size)
{
	size_t n;

	if (proc_is_link(inode))
		return proc_get_link(inode, buf, size);
	if (!S_ISLNK(inode->i_mode))
		return -EINVAL;
	n = (size_t)inode->i_size < size - 1 ? (size_t)inode->i_size : size - 1;
	memcpy(buf, inode->i_data, n);
	buf[n] = '\0';
	return (long)n;
}

#define MAX_LINK_DEPTH 8         /* nested links before ELOOP (Linux: 40) */

static struct inode *walk(struct inode *inode, const char *path, bool follow_last, int depth, int *err);

/* inode was found in dir: if it is a symbolic link, what it leads to. */
static struct inode *follow_link(struct inode *dir, struct inode *inode, int depth, int *err)
{
	struct inode *result;
	char *target;
	long n;

	if (!S_ISLNK(inode->i_mode))
		return inode;
	if (depth >= MAX_LINK_DEPTH) {
		*err = -ELOOP;
		return NULL;
	}
	target = kmalloc(PATH_MAX);
	if (!target) {
		*err = -ENOMEM;
		return NULL;
	}
	n = inode_readlink(inode, target, PATH_MAX);
	if (n <= 0) {
		*err = n < 0 ? (int)n : -ENOENT;
		kfree(target);
		return NULL;
	}
	result = walk(target[0] == '/' ? root_inode : dir, target, true, depth + 1, err);
	kfree(target);
	return result;
}

/* Walk path from inode. Links met on the way are followed; the last
 * component's only when follow_last (or a trailing slash) says so. */
static struct inode *walk(struct inode *inode, const char *path, bool follow_last, int depth, int *err)
{
	char name[NAME_MAX + 1];

	*err = 0;
	while (next_component(&path, name, err)) {
		struct inode *dir = inode;

		if (!S_ISDIR(dir->i_mode)) {
			*err = -ENOTDIR;
			return NULL;
		}
		inode = dir_lookup(dir, name);
		if (!inode) {
			*err = -ENOENT;
			return NULL;
		}
		if (S_ISLNK(inode->i_mode) && (follow_last || *path)) {
			inode = follow_link(dir, inode, depth, err);
			if (!inode)
				return NULL;
		}
	}
	return *err ? NULL : inode;
}

struct inode *path_lookup_flags(const char *path, bool follow, int *err)
{
	*err = 0;
	if (!*path) {
		*err = -ENOENT;
		return NULL;
	}
	return walk(lookup_start(path), path, follow, 0, err);
}

struct inode *path_lookup(const char *path, int *err)
{
	return path_lookup_flags(path, true, err);
}

/* Look up the directory that would hold path; its last component goes to
 * last (empty for "/"). */
struct inode *path_lookup_parent(const char *path, char *last, int *err)
{
	struct inode *dir = lookup_start(path);
	char name[NAME_MAX + 1];
	bool have = false;

	*err = 0;
	last[0] = '\0';
	if (!*path) {
		*err = -ENOENT;
		return NULL;
	}
	while (next_component(&path, name, err)) {
		if (have) {
			struct inode *next = dir_lookup(dir, last);

			if (!next) {
				*err = -ENOENT;
				return NULL;
			}
			next = follow_link(dir, next, 0, err);
			if (!next)
				return NULL;
			if (!S_ISDIR(next->i_mode)) {
				*err = -ENOTDIR;
				return NULL;
			}
			dir = next;
		}
		strcpy(last, name);
		have = true;
	}
	return *err ? NULL : dir;
}

struct inode *vfs_create(const char *path, mode_t mode, int *err)
{
	char last[NAME_MAX + 1];
	struct inode *dir = path_lookup_parent(path, last, err);
	struct inode *inode;

	if (!dir)
		return NULL;
	if (!last[0] || strcmp(last, ".") == 0 || strcmp(last, "..") == 0) {
		*err = -EEXIST;
		return NULL;
	}
	inode = new_inode(mode);
	if (!inode) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = dir_add_entry(dir, last, inode);
	if (*err < 0) {
		kfree(inode);
		return NULL;
	}
	return inode;
}

int vfs_mkdir(const char *path, mode_t mode)
{
	int err;
	unsigned umask = current && current->fs ? current->fs->umask : 0;

	vfs_create(path, S_IFDIR | (mode & ~umask & 07777), &err);
	return err;
}

int vfs_mknod(const char *path, mode_t mode, dev_t dev)
{
	int err;
	struct inode *inode = vfs_create(path, mode, &err);

	if (inode)
		inode->i_rdev = dev;
	return err;
}

int vfs_unlink(const char *path)
{
	char last[NAME_MAX + 1];
	int err;
	struct inode *dir = path_lookup_parent(path, last, &err);
	struct inode *inode;

	if (!dir)
		return err;
	inode = dir_lookup(dir, last);
	if (!inode)
		return -ENOENT;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	dir_remove_entry(dir, last);
	inode->i_nlink--;
	inode->i_count++;
	iput(inode);
	return 0;
}

int vfs_rmdir(const char *path)
{
	char last[NAME_MAX + 1];
	int err;
	struct inode *dir = path_lookup_parent(path, last, &err);
	struct inode *inode;

	if (!dir)
		return err;
	if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0 || !last[0])
		return -EINVAL;
	inode = dir_lookup(dir, last);
	if (!inode)
		return -ENOENT;
	if (!S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	if (inode->i_entries)
		return -ENOTEMPTY;
	if (inode == root_inode || (current && current->fs && current->fs->cwd == inode))
		return -EBUSY;
	dir_remove_entry(dir, last);
	inode->i_nlink = 0;
	inode->i_count++;
	iput(inode);
	return 0;
}

int vfs_rename(const char *from, const char *to)
{
	char from_last[NAME_MAX + 1], to_last[NAME_MAX + 1];
	int err;
	struct inode *from_dir = path_lookup_parent(from, from_last, &err);
	struct inode *to_dir, *inode, *existing;

	if (!from_dir)
		return err;
	to_dir = path_lookup_parent(to, to_last, &err);
	if (!to_dir)
		return err;
	inode = dir_lookup(from_dir, from_last);
	if (!inode)
		return -ENOENT;
	existing = dir_lookup(to_dir, to_last);
	if (existing == inode)
		return 0;
	if (existing) {
		if (S_ISDIR(existing->i_mode))
			return -EISDIR;
		dir_remove_entry(to_dir, to_last);
		existing->i_nlink--;
		existing->i_count++;
		iput(existing);
	}
	dir_remove_entry(from_dir, from_last);
	return dir_add_entry(to_dir, to_last, inode);
}

void fill_stat(struct inode *inode, struct stat *st)
{
	uint64_t sec = inode->i_mtime_ns / NSEC_PER_SEC;
	uint64_t nsec = inode->i_mtime_ns % NSEC_PER_SEC;

	memset(st, 0, sizeof(*st));
	st->st_dev = 1;
	st->st_ino = inode->i_ino;
#if defined(__arm__)
	st->__st_ino = (uint32_t)inode->i_ino;
#endif
	st->st_mode = inode->i_mode;
	st->st_nlink = inode->i_nlink;
	st->st_rdev = inode->i_rdev;
	st->st_size = inode->i_size;
	st->st_blksize = 4096;
	st->st_blocks = (inode->i_size + 511) / 512;
	st->st_uid = inode->i_uid;
	st->st_gid = inode->i_gid;
	st->st_mtime_sec = st->st_ctime_sec = sec;
	st->st_mtime_nsec = st->st_ctime_nsec = nsec;
	st->st_atime_sec = inode->i_atime_ns / NSEC_PER_SEC;
	st->st_atime_nsec = inode->i_atime_ns % NSEC_PER_SEC;
}
