/* Unpack the initrd (newc cpio, as BOARD.md says the host places it) into
 * the RAM file system: directories, regular files and device nodes. */
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>

static unsigned long cpio_hex(const char *p)
{
	unsigned long v = 0;

	for (int i = 0; i < 8; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned long)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned long)(c - 'A' + 10);
	}
	return v;
}

static int unpack_entry(const char *name, unsigned long mode, const char *data,
			unsigned long size, unsigned long rmajor, unsigned long rminor)
{
	char path[PATH_MAX];
	int err;
	struct inode *inode;

	snprintf(path, sizeof(path), "/%s", name);
	if (strcmp(name, ".") == 0)
		return 0;
	if (S_ISDIR(mode)) {
		err = vfs_mkdir(path, mode & 07777);
		if (err == -EEXIST)
			err = 0;
		if (err == 0) {
			int lookup_err;
			struct inode *dir = path_lookup(path, &lookup_err);

			if (dir)
				dir->i_mode = (mode_t)mode;
		}
		return err;
	}
	if (S_ISCHR(mode))
		return vfs_mknod(path, (mode_t)mode, MKDEV(rmajor, rminor));
	if (!S_ISREG(mode))
		return 0;     /* symlinks and others are not supported; skip */
	inode = vfs_create(path, (mode_t)mode, &err);
	if (!inode)
		return err;
	err = ramfs_resize(inode, size);
	if (err < 0)
		return err;
	memcpy(inode->i_data, data, size);
	return 0;
}

int populate_rootfs(const void *cpio, size_t size)
{
	const char *p = cpio, *end = p + size;
	int files = 0;

	while (p + 110 <= end) {
		unsigned long mode, filesize, namesize, rmajor, rminor;
		const char *name, *data;

		if (memcmp(p, "070701", 6) != 0 && memcmp(p, "070702", 6) != 0) {
			printk("initramfs: bad cpio header at offset %lu\n", (unsigned long)(p - (const char *)cpio));
			return -EINVAL;
		}
		mode = cpio_hex(p + 14);
		filesize = cpio_hex(p + 54);
		rmajor = cpio_hex(p + 78);
		rminor = cpio_hex(p + 86);
		namesize = cpio_hex(p + 94);
		name = p + 110;
		data = (const char *)ALIGN_UP((uintptr_t)(name + namesize), 4);
		if (name + namesize > end || data + filesize > end) {
			printk("initramfs: truncated archive\n");
			return -EINVAL;
		}
		if (strcmp(name, "TRAILER!!!") == 0)
			break;
		if (unpack_entry(name, mode, data, filesize, rmajor, rminor) < 0)
			printk("initramfs: cannot unpack %s\n", name);
		else
			files++;
		p = (const char *)ALIGN_UP((uintptr_t)(data + filesize), 4);
	}
	return files;
}
