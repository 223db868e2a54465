/* execv/execvp: execve with the current environment, execvp searching PATH
 * (default "/bin:/sbin") for names without a slash. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int execvp(const char *file, char *const argv[])
{
	const char *path = getenv("PATH");
	char candidate[512];
	int saved = ENOENT;

	if (strchr(file, '/'))
		return execve(file, argv, environ);
	if (!path || !*path)
		path = "/bin:/sbin";
	while (*path) {
		size_t dirlen = strcspn(path, ":");
		size_t flen = strlen(file);

		if (dirlen + flen + 2 <= sizeof(candidate)) {
			memcpy(candidate, path, dirlen);
			candidate[dirlen] = '/';
			memcpy(candidate + dirlen + 1, file, flen + 1);
			execve(candidate, argv, environ);
			if (errno != ENOENT)
				saved = errno;
		}
		path += dirlen;
		if (*path == ':')
			path++;
	}
	errno = saved;
	return -1;
}
