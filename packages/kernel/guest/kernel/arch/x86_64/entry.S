/*
 * x86-64 kernel entry and exit paths.
 *
 * Every way into the kernel builds the same struct pt_regs on the current
 * thread's kernel stack (see asm/arch.h) and leaves through trap_return,
 * which ends in iretq:
 *   - exceptions and interrupts: the IDT stubs push a zero error code when
 *     the CPU does not, then the vector, then jump to trap_common;
 *   - system calls: syscall_entry (LSTAR) switches to the kernel stack and
 *     pushes a frame that looks like an interrupt frame with vector 256.
 * GS: user GS base while in user mode, the cpu_info pointer in the kernel;
 * swapgs on every user<->kernel crossing (CS RPL decides).
 */
	.text

	.macro PUSH_GPRS
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %rax
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	.endm

	.macro POP_GPRS
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rax
	popq %rcx
	popq %rdx
	popq %rsi
	popq %rdi
	.endm

	/* Vectors where the CPU pushes an error code: 8, 10-14, 17, 21, 29, 30. */
	.macro TRAP_STUB vec
	.globl trap_stub_\vec
trap_stub_\vec:
	.if (\vec == 8) || ((\vec >= 10) && (\vec <= 14)) || (\vec == 17) || (\vec == 21) || (\vec == 29) || (\vec == 30)
	.else
	pushq $0
	.endif
	pushq $\vec
	jmp trap_common
	.endm

	.irp vec, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
	TRAP_STUB \vec
	.endr

	/* Table of stub addresses, read by idt_init(). */
	.section .rodata
	.globl trap_stub_table
	.balign 8
trap_stub_table:
	.irp vec, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
	.quad trap_stub_\vec
	.endr
	.text

	.globl trap_common
	.type trap_common, @function
trap_common:
	testb $3, 24(%rsp)          /* CS of the interrupted context */
	jz 1f
	swapgs
1:	PUSH_GPRS
	/* A frame record linking to the interrupted code, for stack walks. */
	movq %rsp, %rdi
	xorl %ebp, %ebp
	call trap_handler
	jmp trap_return
	.size trap_common, . - trap_common

	.globl trap_return
	.type trap_return, @function
trap_return:
	POP_GPRS
	testb $3, 24(%rsp)
	jz 2f
	swapgs
2:	addq $16, %rsp              /* vector, error code */
	iretq
	.size trap_return, . - trap_return

	.globl syscall_entry
	.type syscall_entry, @function
syscall_entry:
	swapgs
	movq %rsp, %gs:16           /* cpu_info.user_sp_scratch */
	movq %gs:8, %rsp            /* cpu_info.kernel_stack_top */
	pushq $0x1B                 /* ss */
	pushq %gs:16                /* rsp */
	pushq %r11                  /* rflags */
	pushq $0x23                 /* cs */
	pushq %rcx                  /* rip */
	pushq $0                    /* error code */
	pushq $256                  /* vector: system call */
	PUSH_GPRS
	movq %rsp, %rdi
	xorl %ebp, %ebp
	call syscall_handler
	jmp trap_return
	.size syscall_entry, . - syscall_entry

/* void __switch_to(unsigned long *prev_sp, unsigned long next_sp):
 * save the callee-saved registers on this stack, store the stack pointer,
 * load the next one and restore its registers. */
	.globl __switch_to
	.type __switch_to, @function
__switch_to:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size __switch_to, . - __switch_to

/* First return of a forked thread: its switch frame "returns" here with the
 * stack pointer at the child's pt_regs. */
	.globl ret_from_fork
	.type ret_from_fork, @function
ret_from_fork:
	movq %rsp, %rdi
	call schedule_tail
	jmp trap_return
	.size ret_from_fork, . - ret_from_fork

/* First run of a kernel thread: rbx = function, r12 = argument. */
	.globl kthread_trampoline
	.type kthread_trampoline, @function
kthread_trampoline:
	xorl %ebp, %ebp
	movq %rbx, %rdi
	movq %r12, %rsi
	call kthread_start
	ud2
	.size kthread_trampoline, . - kthread_trampoline
	.section .note.GNU-stack,"",@progbits

/* void arch_return_to_user(struct pt_regs *regs): leave the kernel through
 * the common exit path with regs as the frame (used once, to start init). */
	.text
	.globl arch_return_to_user
	.type arch_return_to_user, @function
arch_return_to_user:
	movq %rdi, %rsp
	jmp trap_return
	.size arch_return_to_user, . - arch_return_to_user
	.section .note.GNU-stack,"",@progbits
