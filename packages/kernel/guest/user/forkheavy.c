/*
 * forkheavy: a process-creation workload. N times (argument, default 50) fork
 * a child that exits with i % 256 and wait for it; optionally (second
 * argument "exec") the child execs /bin/true instead. Prints the sum of the
 * exit statuses so the result is checkable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50, sum = 0;
	int do_exec = argc > 2 && strcmp(argv[2], "exec") == 0;

	for (long i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("forkheavy: fork");
			return 1;
		}
		if (pid == 0) {
			if (do_exec) {
				char *args[] = { "true", NULL };

				execv("/bin/true", args);
				_exit(127);
			}
			_exit((int)(i % 256));
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
			fprintf(stderr, "forkheavy: child %d did not exit normally\n", pid);
			return 1;
		}
		sum += WEXITSTATUS(status);
	}
	printf("forkheavy children=%ld status_sum=%ld\n", n, sum);
	return 0;
}
