/* The virtual file system: inodes, directory entries, open files, file
 * descriptor tables, the RAM file system and character devices. */
#ifndef KERNEL_FS_H
#define KERNEL_FS_H
#include <kernel/types.h>
#include <uapi/abi.h>

#define NAME_MAX 255
#define PATH_MAX 1024

struct file;
struct inode;

struct file_operations {
	int (*open)(struct inode *inode, struct file *file);
	ssize_t (*read)(struct file *file, char *ubuf, size_t n, off_t *pos);
	ssize_t (*write)(struct file *file, const char *ubuf, size_t n, off_t *pos);
	int (*release)(struct inode *inode, struct file *file);
	long (*ioctl)(struct file *file, unsigned cmd, unsigned long arg);
	off_t (*llseek)(struct file *file, off_t off, int whence);
	unsigned (*poll)(struct file *file);   /* POLL* mask now ready; NULL: always */
};

struct dirent_node {                 /* one name in a directory */
	char name[NAME_MAX + 1];
	struct inode *inode;
	struct dirent_node *next;
};

struct inode {
	unsigned long i_ino;
	mode_t i_mode;
	unsigned i_nlink;
	int i_count;                     /* references from files/cwd */
	off_t i_size;
	dev_t i_rdev;
	uint64_t i_mtime_ns;
	uint64_t i_atime_ns;
	unsigned i_uid, i_gid;
	char *i_data;                    /* regular file contents */
	size_t i_capacity;
	struct dirent_node *i_entries;   /* directory entries */
	struct inode *i_parent;          /* directory: its parent */
	const struct file_operations *i_fop;
	void *i_private;
};

struct file {
	int f_count;
	unsigned f_flags;
	off_t f_pos;
	struct inode *f_inode;
	const struct file_operations *f_op;
	void *private_data;
	char *f_path;                    /* path it was opened by (absolute, as
					    given: not cleaned); NULL for pipes */
};

/* One transfer as the io provider's start and done sites describe it
 * (illumos's buf_t): what was asked for, what came of it, and where. */
#define B_READ  0x0040
#define B_WRITE 0x0100
struct io_buf {
	int b_flags;                     /* B_READ or B_WRITE */
	size_t b_bcount;                 /* bytes asked for */
	size_t b_resid;                  /* bytes not transferred (at done) */
	int b_error;                     /* errno at done, 0 if none */
	char *b_addr;                    /* the user buffer */
	off_t b_offset;                  /* file offset at start */
	dev_t b_edev;                    /* the character device, 0 if none */
	const char *b_devname;           /* its driver, "ramfs" or "pipe" */
	struct file *b_file;
};

struct files_struct {
	int count;
	struct file *fd[64];
	uint64_t close_on_exec;
};

struct fs_struct {
	int count;
	struct inode *cwd;
	char cwd_path[PATH_MAX];
	unsigned umask;
};

/* vfs core (fs/inode.c, fs/namei.c) */
void vfs_init(void);
struct inode *new_inode(mode_t mode);
void iget(struct inode *inode);
void iput(struct inode *inode);
extern struct inode *root_inode;
struct inode *path_lookup(const char *path, int *err);
struct inode *path_lookup_flags(const char *path, bool follow_links, int *err);
long inode_readlink(struct inode *inode, char *buf, size_t size);
struct inode *path_lookup_parent(const char *path, char *last, int *err);
struct inode *dir_lookup(struct inode *dir, const char *name);
int dir_add_entry(struct inode *dir, const char *name, struct inode *inode);
int dir_remove_entry(struct inode *dir, const char *name);
int vfs_mkdir(const char *path, mode_t mode);
int vfs_unlink(const char *path);
int vfs_rmdir(const char *path);
int vfs_rename(const char *from, const char *to);
struct inode *vfs_create(const char *path, mode_t mode, int *err);
int vfs_mknod(const char *path, mode_t mode, dev_t dev);
void fill_stat(struct inode *inode, struct stat *st);

/* open files (fs/file.c, fs/open.c, fs/read_write.c) */
struct file *alloc_file(struct inode *inode, unsigned flags, const struct file_operations *fop);
void fget(struct file *file);
void fput(struct file *file);
struct file *fdget(int fd);
int fd_install(struct file *file, int min_fd);
int close_fd(int fd);
struct files_struct *files_alloc(void);
struct files_struct *files_dup(struct files_struct *old);
void files_put(struct files_struct *files);
void files_close_on_exec(struct files_struct *files);
struct fs_struct *fs_alloc(void);
struct fs_struct *fs_dup(struct fs_struct *old);
void fs_put(struct fs_struct *fs);
struct file *filp_open(const char *path, unsigned flags, mode_t mode, int *err);
ssize_t vfs_read(struct file *file, char *ubuf, size_t n, off_t *pos);
ssize_t vfs_write(struct file *file, const char *ubuf, size_t n, off_t *pos);
ssize_t kernel_read(struct file *file, void *buf, size_t n, off_t *pos);
off_t vfs_llseek(struct file *file, off_t off, int whence);

/* ramfs (fs/ramfs.c) */
extern const struct file_operations ramfs_file_operations;
extern const struct file_operations ramfs_dir_operations;
int ramfs_resize(struct inode *inode, size_t size);

/* character devices (fs/char_dev.c, drivers/) */
int register_chrdev(unsigned major, const char *name, const struct file_operations *fops);
int unregister_chrdev(unsigned major, const char *name);
const struct file_operations *chrdev_lookup(dev_t dev);
const char *chrdev_name(dev_t dev);
int devfs_create(const char *name, dev_t dev, mode_t mode);
int devfs_remove(const char *name);
#define MKDEV(ma, mi) (((ma) << 8) | (mi))
#define MAJOR(dev) ((dev) >> 8)
#define MINOR(dev) ((dev) & 0xff)

/* pipes (fs/pipe.c) */
int do_pipe(struct file **read_end, struct file **write_end);

/* initrd (fs/initramfs.c) */
int populate_rootfs(const void *cpio, size_t size);
#endif
