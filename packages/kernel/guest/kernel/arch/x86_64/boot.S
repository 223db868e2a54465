/*
 * x86-64 kernel entry (BOARD.md 6.1): the host starts CPU 0 in long mode on
 * its own page tables with RSP on the boot stack and RDI = boot-info physical
 * address. Call start_kernel(boot_info_virtual) on the
 * kernel's own boot stack. Secondary CPUs enter at secondary_entry with
 * RDI = CPU index and RSP = their stack.
 */
	.section .text.boot, "ax"
	.globl _start
	.type _start, @function
_start:
	cli
	cld
	movq %rdi, %r12
	/* .bss is not cleared here: the host zero-fills it when it loads the
	 * kernel (BOARD.md 6), and it may already hold what krtld handed over
	 * before the start (kmod_arena and kmod_table, BOARD.md 8). */
	leaq boot_stack_top(%rip), %rsp
	xorl %ebp, %ebp
	movabsq $0xFFFFFFFF80000000, %rdi
	addq %r12, %rdi
	call start_kernel
1:	hlt
	jmp 1b
	.size _start, . - _start

	.globl secondary_entry
	.type secondary_entry, @function
secondary_entry:
	cli
	cld
	xorl %ebp, %ebp
	call secondary_start_kernel
2:	hlt
	jmp 2b
	.size secondary_entry, . - secondary_entry

	.bss
	.balign 16
boot_stack:
	.skip 16384
boot_stack_top:
	.section .note.GNU-stack,"",@progbits
