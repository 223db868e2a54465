/*
 * uname: print system information.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

static const char usage[] =
	"usage: uname [-asnrvm]\n"
	"Prints the kernel name (-s, the default), node name (-n), release (-r),\n"
	"version (-v), machine (-m), or all of them (-a).\n";

int main(int argc, char **argv)
{
	struct utsname u;
	int s = 0, n = 0, r = 0, v = 0, m = 0, first = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (argv[i][0] != '-') {
			fprintf(stderr, "uname: extra operand '%s'\n%s", argv[i], usage);
			return 1;
		}
		for (const char *p = argv[i] + 1; *p; p++) {
			switch (*p) {
			case 'a': s = n = r = v = m = 1; break;
			case 's': s = 1; break;
			case 'n': n = 1; break;
			case 'r': r = 1; break;
			case 'v': v = 1; break;
			case 'm': m = 1; break;
			default:
				fprintf(stderr, "uname: invalid option -- '%c'\n%s", *p, usage);
				return 1;
			}
		}
	}
	if (!(s || n || r || v || m))
		s = 1;
	if (uname(&u) < 0) {
		perror("uname");
		return 1;
	}
#define FIELD(flag, value) if (flag) { printf("%s%s", first ? "" : " ", value); first = 0; }
	FIELD(s, u.sysname)
	FIELD(n, u.nodename)
	FIELD(r, u.release)
	FIELD(v, u.version)
	FIELD(m, u.machine)
	putchar('\n');
	return 0;
}
