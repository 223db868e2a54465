/*
 * ps: list the tasks, from the kernel's /proc/tasks view.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: ps [-e] [-L] [-o wide]\n"
	"Lists processes from /proc/tasks: PID, parent, state (R running or\n"
	"runnable, S sleeping, D uninterruptible, Z zombie), the CPU it runs or last\n"
	"ran on, nice value, CPU time in ticks (10 ms) and command name.\n"
	"  -e   every process (the default: all of them anyway)\n"
	"  -L   one line per thread, with its thread id (LWP)\n";

int main(int argc, char **argv)
{
	int threads = 0;
	FILE *f;
	char line[256];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "-L") == 0)
			threads = 1;
		else if (strcmp(argv[i], "-e") == 0 || strcmp(argv[i], "-A") == 0 || strcmp(argv[i], "aux") == 0)
			;
		else {
			fprintf(stderr, "ps: unknown option '%s'\n%s", argv[i], usage);
			return 1;
		}
	}
	f = fopen("/proc/tasks", "r");
	if (!f) {
		perror("ps: /proc/tasks");
		return 1;
	}
	if (!fgets(line, sizeof(line), f)) {
		fputs("ps: /proc/tasks is empty\n", stderr);
		return 1;
	}
	if (threads)
		printf("  PID   LWP  PPID S CPU  NI     TIME CMD\n");
	else
		printf("  PID  PPID S CPU  NI     TIME CMD\n");
	while (fgets(line, sizeof(line), f)) {
		int pid, tgid, ppid, cpu, ni;
		unsigned long ut, st;
		char state[4], comm[64];
		char *p = line, *end;
		long fields[8];

		for (int k = 0; k < 3; k++) {
			fields[k] = strtol(p, &end, 10);
			p = end;
		}
		pid = (int)fields[0];
		tgid = (int)fields[1];
		ppid = (int)fields[2];
		while (*p == ' ')
			p++;
		state[0] = *p++;
		state[1] = '\0';
		cpu = (int)strtol(p, &end, 10);
		p = end;
		ni = (int)strtol(p, &end, 10);
		p = end;
		ut = strtoul(p, &end, 10);
		p = end;
		st = strtoul(p, &end, 10);
		p = end;
		while (*p == ' ')
			p++;
		strncpy(comm, p, sizeof(comm) - 1);
		comm[sizeof(comm) - 1] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		if (!threads && pid != tgid)
			continue;
		{
			unsigned long ticks = ut + st, secs = ticks / 100;
			char time[16];

			snprintf(time, sizeof(time), "%lu:%02lu.%02lu", secs / 60, secs % 60, ticks % 100);
			if (threads)
				printf("%5d %5d %5d %s %3d %3d %8s %s\n", tgid, pid, ppid, state, cpu, ni, time, comm);
			else
				printf("%5d %5d %s %3d %3d %8s %s\n", pid, ppid, state, cpu, ni, time, comm);
		}
	}
	fclose(f);
	return 0;
}
