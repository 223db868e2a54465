#!/usr/sbin/dtrace -s
#pragma D option quiet
BEGIN
{
	printf("%s %d\n", $$1, $2);
	exit(0);
}
