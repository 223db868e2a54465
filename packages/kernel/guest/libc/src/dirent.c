/* Directory streams: opendir/readdir/closedir over getdents64(2). */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct DIR {
	int fd;
	int pos, len;
	struct dirent current;
	char buf[2048];
};

DIR *opendir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		return NULL;
	}
	d->fd = fd;
	return d;
}

struct dirent *readdir(DIR *d)
{
	struct linux_dirent64 *e;

	if (d->pos >= d->len) {
		int n = getdents64(d->fd, d->buf, sizeof(d->buf));

		if (n <= 0)
			return NULL;
		d->len = n;
		d->pos = 0;
	}
	e = (struct linux_dirent64 *)(d->buf + d->pos);
	d->pos += e->d_reclen;
	d->current.d_ino = e->d_ino;
	d->current.d_type = e->d_type;
	strncpy(d->current.d_name, e->d_name, sizeof(d->current.d_name) - 1);
	d->current.d_name[sizeof(d->current.d_name) - 1] = '\0';
	return &d->current;
}

int closedir(DIR *d)
{
	int r = close(d->fd);

	free(d);
	return r;
}
