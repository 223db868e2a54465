/*
 * syscallheavy: a system-call-bound workload. Each of N iterations (argument,
 * default 1000) calls getpid, writes a byte to /dev/null, reads one from
 * /dev/zero and asks the time; prints how many calls succeeded.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, ok = 0;
	int null_fd = open("/dev/null", O_WRONLY);
	int zero_fd = open("/dev/zero", O_RDONLY);
	char byte = 'x';
	struct timespec ts;

	if (null_fd < 0 || zero_fd < 0) {
		perror("syscallheavy: open");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		ok += getpid() > 0;
		ok += write(null_fd, &byte, 1) == 1;
		ok += read(zero_fd, &byte, 1) == 1 && byte == 0;
		ok += clock_gettime(CLOCK_MONOTONIC, &ts) == 0;
		byte = 'x';
	}
	printf("syscallheavy iterations=%ld calls_ok=%ld\n", n, ok);
	return ok == 4 * n ? 0 : 1;
}
