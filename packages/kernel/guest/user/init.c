/*
 * init: the first user process. Makes sure fds 0-2 are the console, sets a
 * default environment, runs the program given on the kernel command line
 * after "--" (its arguments are ours) or else /bin/sh, reaps every orphan,
 * and when that program exits powers the machine off with its exit status
 * (128 + signal if it was killed).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *default_shell[] = { "/bin/sh", NULL };

int main(int argc, char **argv)
{
	char **program = argc > 1 ? argv + 1 : default_shell;
	pid_t child;
	int status = 0;

	if (fcntl(0, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR);

		if (fd >= 0) {
			if (fd != 0)
				dup2(fd, 0);
			dup2(0, 1);
			dup2(0, 2);
			if (fd > 2)
				close(fd);
		}
	}
	setenv("PATH", "/bin:/sbin", 0);
	setenv("HOME", "/", 0);
	setenv("TERM", "dumb", 0);
	chdir("/");

	child = fork();
	if (child < 0) {
		perror("init: fork");
		reboot_poweroff(1);
		return 1;
	}
	if (child == 0) {
		execvp(program[0], program);
		fprintf(stderr, "init: cannot run %s\n", program[0]);
		_exit(127);
	}
	for (;;) {
		int ws;
		pid_t pid = wait(&ws);

		if (pid < 0)
			break;
		if (pid == child) {
			status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
			break;
		}
	}
	/* Let other processes finish writing, then collect the stragglers. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	fflush(stdout);
	reboot_poweroff(status);
	return status;
}
