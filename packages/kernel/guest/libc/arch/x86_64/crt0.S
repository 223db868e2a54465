/* Program entry for x86-64: the kernel leaves argc, argv[], NULL, envp[],
 * NULL, auxv at %rsp. Clear the frame pointer so stack walks stop here, pass
 * the stack pointer to __libc_start, which never returns. */
	.text
	.globl _start
	.type _start, @function
_start:
	xorl %ebp, %ebp
	movq %rsp, %rdi
	andq $-16, %rsp
	call __libc_start
	hlt
	.size _start, . - _start
	.section .note.GNU-stack,"",@progbits
