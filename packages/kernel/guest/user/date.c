/*
 * date: print the date and time (UTC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
	"usage: date [-u] [+FORMAT]\n"
	"Prints the current time in UTC (the guest has no time zones), by default\n"
	"as 'Tue Dec  1 18:00:00 UTC 2026'. FORMAT may use %Y %m %d %H %M %S %j\n"
	"%a %b %e %s %T %D %F %y %Z %n %t and %%.\n";

static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

struct civil {
	long year;
	int month, day, hour, min, sec, wday, yday;
};

/* Days since 1970-01-01 to a proleptic Gregorian date (Hinnant's algorithm). */
static struct civil to_civil(long long t)
{
	struct civil c;
	long long days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
	long long secs = t - days * 86400;
	long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;
	static const int cum[] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	int leap;

	c.day = (int)(doy - (153 * mp + 2) / 5 + 1);
	c.month = (int)(mp < 10 ? mp + 3 : mp - 9);
	c.year = (long)(yoe + era * 400 + (c.month <= 2));
	c.hour = (int)(secs / 3600);
	c.min = (int)(secs / 60 % 60);
	c.sec = (int)(secs % 60);
	c.wday = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday */
	leap = (c.year % 4 == 0 && c.year % 100 != 0) || c.year % 400 == 0;
	c.yday = cum[c.month - 1] + c.day - 1 + (leap && c.month > 2);
	return c;
}

static void format(const char *fmt, long long t, const struct civil *c)
{
	for (const char *p = fmt; *p; p++) {
		if (*p != '%' || !p[1]) {
			putchar(*p);
			continue;
		}
		switch (*++p) {
		case 'Y': printf("%ld", c->year); break;
		case 'y': printf("%02ld", c->year % 100); break;
		case 'm': printf("%02d", c->month); break;
		case 'd': printf("%02d", c->day); break;
		case 'e': printf("%2d", c->day); break;
		case 'H': printf("%02d", c->hour); break;
		case 'M': printf("%02d", c->min); break;
		case 'S': printf("%02d", c->sec); break;
		case 'j': printf("%03d", c->yday + 1); break;
		case 'a': fputs(days[c->wday], stdout); break;
		case 'b': fputs(months[c->month - 1], stdout); break;
		case 's': printf("%lld", t); break;
		case 'T': printf("%02d:%02d:%02d", c->hour, c->min, c->sec); break;
		case 'D': printf("%02d/%02d/%02ld", c->month, c->day, c->year % 100); break;
		case 'F': printf("%ld-%02d-%02d", c->year, c->month, c->day); break;
		case 'Z': fputs("UTC", stdout); break;
		case 'n': putchar('\n'); break;
		case 't': putchar('\t'); break;
		case '%': putchar('%'); break;
		default: putchar('%'); putchar(*p);
		}
	}
}

int main(int argc, char **argv)
{
	long long t = (long long)time(NULL);
	const char *fmt = "%a %b %e %H:%M:%S %Z %Y";
	struct civil c;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "-u") == 0)
			continue;
		if (argv[i][0] == '+')
			fmt = argv[i] + 1;
		else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc && argv[i + 1][0] == '@')
			t = strtoll(argv[++i] + 1, NULL, 10);
		else {
			fprintf(stderr, "date: invalid argument '%s'\n%s", argv[i], usage);
			return 1;
		}
	}
	c = to_civil(t);
	format(fmt, t, &c);
	putchar('\n');
	return 0;
}
