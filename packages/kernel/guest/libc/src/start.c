/*
 * Process start-up: __libc_start is called by crt0's _start with the initial
 * stack pointer (argc, argv[], NULL, envp[], NULL, auxv). It records the
 * environment, runs main and exits with its result.
 */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv, char **envp);

char **environ;

__attribute__((noreturn, used)) void __libc_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);

	environ = argv + argc + 1;
	exit(main(argc, argv, environ));
}
