/*
 * ARM exception vectors and the kernel entry/exit paths.
 *
 * Every exception saves a struct pt_regs (asm/arch.h) on the SVC stack and
 * runs its handler in SVC mode: srsdb stores the return address and SPSR
 * straight onto the SVC stack, cps switches to SVC, then r0-r12, the user
 * sp/lr (stm ^) and the SVC lr are stored. The exit path reverses this and
 * ends with rfeia. From user mode the SVC stack pointer is the top of the
 * current thread's kernel stack.
 *
 * Return-address adjustments (ARM ARM B1.8.3): undefined instruction and
 * svc: lr; prefetch abort and IRQ: lr - 4; data abort: lr - 8.
 */
	.syntax unified
	.arm
	.text

	.equ EXC_UNDEF, 1
	.equ EXC_SVC, 2
	.equ EXC_PABT, 3
	.equ EXC_DABT, 4
	.equ EXC_IRQ, 6
	.equ EXC_FIQ, 7

	.macro EXCEPTION_ENTRY kind, adjust
	.if \adjust
	sub lr, lr, #\adjust
	.endif
	srsdb sp!, #0x13
	cps #0x13
	sub sp, sp, #64
	stmia sp, {r0-r12}
	add r0, sp, #52
	stmia r0, {sp, lr}^
	str lr, [sp, #60]
	mov r0, sp
	mov r1, #\kind
	mov r11, #0
	bl arm_exception
	b exception_return
	.endm

	.balign 32
	.globl vectors
vectors:
	b vector_reset
	b vector_undef
	b vector_svc
	b vector_pabt
	b vector_dabt
	b vector_reset
	b vector_irq
	b vector_fiq

vector_reset:
	EXCEPTION_ENTRY 0, 0
vector_undef:
	EXCEPTION_ENTRY EXC_UNDEF, 0
vector_svc:
	EXCEPTION_ENTRY EXC_SVC, 0
vector_pabt:
	EXCEPTION_ENTRY EXC_PABT, 4
vector_dabt:
	EXCEPTION_ENTRY EXC_DABT, 8
vector_irq:
	EXCEPTION_ENTRY EXC_IRQ, 4
vector_fiq:
	EXCEPTION_ENTRY EXC_FIQ, 4

	.globl exception_return
	.type exception_return, %function
exception_return:
	ldr lr, [sp, #60]
	add r0, sp, #52
	ldmia r0, {sp, lr}^
	nop
	ldmia sp, {r0-r12}
	add sp, sp, #64
	rfeia sp!
	.size exception_return, . - exception_return

/* void __switch_to(unsigned long *prev_sp, unsigned long next_sp) */
	.globl __switch_to
	.type __switch_to, %function
__switch_to:
	push {r4-r11, lr}
	str sp, [r0]
	mov sp, r1
	pop {r4-r11, pc}
	.size __switch_to, . - __switch_to

/* First return of a forked thread: sp is at the child's pt_regs. */
	.globl ret_from_fork
	.type ret_from_fork, %function
ret_from_fork:
	mov r0, sp
	bl schedule_tail
	b exception_return
	.size ret_from_fork, . - ret_from_fork

/* First run of a kernel thread: r4 = function, r5 = argument. */
	.globl kthread_trampoline
	.type kthread_trampoline, %function
kthread_trampoline:
	mov r11, #0
	mov r0, r4
	mov r1, r5
	bl kthread_start
	udf #0xdead                  @ never reached (udf #0-#15 would be the DTrace breakpoint, conditional)
	.size kthread_trampoline, . - kthread_trampoline

/* void arch_return_to_user(struct pt_regs *regs) */
	.globl arch_return_to_user
	.type arch_return_to_user, %function
arch_return_to_user:
	mov sp, r0
	b exception_return
	.size arch_return_to_user, . - arch_return_to_user
