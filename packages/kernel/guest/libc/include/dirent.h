/* Directory streams over getdents64(2). */
#ifndef _DIRENT_H
#define _DIRENT_H
#include <sys/types.h>
#include <uapi/abi.h>
struct dirent {
	uint64_t d_ino;
	unsigned char d_type;
	char d_name[256];
};
typedef struct DIR DIR;
DIR *opendir(const char *path);
struct dirent *readdir(DIR *dir);
int closedir(DIR *dir);
#endif
