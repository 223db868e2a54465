/*
 * pipeserver: a multi-process server and clients over pipes. The server
 * forks CLIENTS client processes; each sends REQUESTS requests ("ADD a b")
 * on its own request pipe and reads the reply ("SUM n") from its own reply
 * pipe. The server serves the clients round robin, then reaps them and
 * prints totals, so the result is checkable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
	"usage: pipeserver [CLIENTS [REQUESTS]]\n"
	"Starts CLIENTS (default 3, at most 16) client processes that each send\n"
	"REQUESTS (default 20) requests to this server over pipes and check the\n"
	"replies; prints 'pipeserver clients=C requests=R sum=S errors=E'. Exercises\n"
	"fork, pipes, read/write, wakeups and wait (proc, sched, syscall, io).\n";

static int read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, 1);

		if (r <= 0)
			return -1;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return (int)n;
}

static int client(int id, int requests, int req_fd, int reply_fd)
{
	int errors = 0;

	for (int i = 0; i < requests; i++) {
		char line[64];
		long a = id * 1000 + i, b = i * 7;

		dprintf(req_fd, "ADD %ld %ld\n", a, b);
		if (read_line(reply_fd, line, sizeof(line)) < 0)
			return 2;
		if (strncmp(line, "SUM ", 4) != 0 || strtol(line + 4, NULL, 10) != a + b)
			errors++;
	}
	dprintf(req_fd, "BYE\n");
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	int clients = 3, requests = 20, req[16][2], reply[16][2], open_clients, errors = 0;
	pid_t pids[16];
	long sum = 0, served = 0;
	int alive[16];

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 1)
		clients = atoi(argv[1]);
	if (argc > 2)
		requests = atoi(argv[2]);
	if (clients < 1 || clients > 16 || requests < 0) {
		fprintf(stderr, "pipeserver: bad arguments\n%s", usage);
		return 1;
	}
	for (int c = 0; c < clients; c++) {
		if (pipe(req[c]) < 0 || pipe(reply[c]) < 0) {
			perror("pipeserver: pipe");
			return 1;
		}
		pids[c] = fork();
		if (pids[c] < 0) {
			perror("pipeserver: fork");
			return 1;
		}
		if (pids[c] == 0) {
			close(req[c][0]);
			close(reply[c][1]);
			/* The server's ends of the earlier clients' pipes. */
			for (int k = 0; k < c; k++) {
				close(req[k][0]);
				close(reply[k][1]);
			}
			_exit(client(c, requests, req[c][1], reply[c][0]));
		}
		close(req[c][1]);
		close(reply[c][0]);
		alive[c] = 1;
	}
	open_clients = clients;
	while (open_clients > 0) {
		for (int c = 0; c < clients; c++) {
			char line[64];
			char *p;
			long a, b;

			if (!alive[c])
				continue;
			if (read_line(req[c][0], line, sizeof(line)) < 0 || strcmp(line, "BYE") == 0) {
				alive[c] = 0;
				open_clients--;
				close(req[c][0]);
				close(reply[c][1]);
				continue;
			}
			if (strncmp(line, "ADD ", 4) != 0) {
				errors++;
				dprintf(reply[c][1], "ERR\n");
				continue;
			}
			a = strtol(line + 4, &p, 10);
			b = strtol(p, NULL, 10);
			sum += a + b;
			served++;
			dprintf(reply[c][1], "SUM %ld\n", a + b);
		}
	}
	for (int c = 0; c < clients; c++) {
		int status;

		if (waitpid(pids[c], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			errors++;
	}
	printf("pipeserver clients=%d requests=%ld sum=%ld errors=%d\n", clients, served, sum, errors);
	return errors ? 1 : 0;
}
