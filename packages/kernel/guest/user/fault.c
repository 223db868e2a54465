/* fault: store through a null pointer, so the kernel kills the process with
 * SIGSEGV (used to test that a faulting program dies while the system goes on). */
#include <stdio.h>

int main(void)
{
	volatile int *null_pointer = (volatile int *)0;

	printf("fault: writing to address 0\n");
	fflush(stdout);
	*null_pointer = 42;
	printf("fault: still alive (should not happen)\n");
	return 0;
}
