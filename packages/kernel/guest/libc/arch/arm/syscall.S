/* long __syscall(long nr, long a1, ..., long a6): the ARM EABI Linux
 * system-call convention (number in r7; arguments in r0-r5; `svc #0`; result
 * in r0, -4095..-1 meaning -errno). a4..a6 arrive on the stack (AAPCS). */
	.syntax unified
	.arm
	.text
	.globl __syscall
	.type __syscall, %function
__syscall:
	push {r4, r5, r7, r11, lr}
	add r11, sp, #12
	mov r7, r0
	mov r0, r1
	mov r1, r2
	mov r2, r3
	ldr r3, [sp, #20]
	ldr r4, [sp, #24]
	ldr r5, [sp, #28]
	svc #0
	pop {r4, r5, r7, r11, pc}
	.size __syscall, . - __syscall

/* __restore_rt: where a signal handler returns; rt_sigreturn (173). */
	.text
	.globl __restore_rt
	.type __restore_rt, %function
__restore_rt:
	mov r7, #173
	svc #0
	.size __restore_rt, . - __restore_rt
