#pragma D option quiet

BEGIN
{
	printf("[%d] [%5d] [%-5d] [%05d] [%x] [%#X] [%o]\n", 42, 42, 42, 42, 255, 255, 8);
	printf("[%s] [%10s] [%-10s] [%.3s] [%c]\n", "dtrace", "dtrace", "dtrace", "dtrace", 'z');
	printf("[%u] [%lld] [%%] [%S]\n", -1, 1LL << 40, "tab\there");
	printf("%s %s %s:%s\n", probeprov, probemod == "" ? "-" : probemod, probefunc == "" ? "-" : probefunc, probename);
	printf("%s %s %s %d\n", strjoin("foo", "bar"), substr("dtrace", 1, 3), basename("/usr/lib/libc.so"), strlen("hello"));
	exit(0);
}
