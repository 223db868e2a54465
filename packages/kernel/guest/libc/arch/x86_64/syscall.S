/* long __syscall(long nr, long a1, ..., long a6): the x86-64 Linux system-call
 * convention (number in rax; arguments in rdi, rsi, rdx, r10, r8, r9; result
 * in rax, -4095..-1 meaning -errno; rcx and r11 are clobbered). */
	.text
	.globl __syscall
	.type __syscall, @function
__syscall:
	pushq %rbp
	movq %rsp, %rbp
	movq %rdi, %rax
	movq %rsi, %rdi
	movq %rdx, %rsi
	movq %rcx, %rdx
	movq %r8, %r10
	movq %r9, %r8
	movq 16(%rbp), %r9
	syscall
	popq %rbp
	ret
	.size __syscall, . - __syscall
	.section .note.GNU-stack,"",@progbits

/* __restore_rt: where a signal handler returns; rt_sigreturn (15). */
	.text
	.globl __restore_rt
	.type __restore_rt, @function
__restore_rt:
	movq $15, %rax
	syscall
	hlt
	.size __restore_rt, . - __restore_rt
	.section .note.GNU-stack,"",@progbits
