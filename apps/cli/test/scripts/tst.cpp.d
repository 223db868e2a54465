#include <greeting.h>
#pragma D option quiet
BEGIN
{
	printf("%s %d\n", GREETING, VALUE);
	exit(0);
}
