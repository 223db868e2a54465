/* long __syscall(long nr, long a1, ..., long a6) for the Thumb-2 build of
 * the libc (build.sh --arch arm-thumb): the same A32 stub as syscall.S, but
 * its frame record holds the caller's r7, the frame pointer of Thumb code,
 * so a stack walk from this frame continues into the Thumb callers. (The
 * stub cannot be Thumb code with an r7 frame: r7 carries the system-call
 * number.) a4..a6 arrive on the stack (AAPCS), 20 bytes above sp here. */
	.syntax unified
	.arm
	.text
	.globl __syscall
	.type __syscall, %function
__syscall:
	push {r4, r5, r11}
	push {r7, lr}
	mov r11, sp
	mov r7, r0
	mov r0, r1
	mov r1, r2
	mov r2, r3
	ldr r3, [sp, #20]
	ldr r4, [sp, #24]
	ldr r5, [sp, #28]
	svc #0
	pop {r7, lr}
	pop {r4, r5, r11}
	bx lr
	.size __syscall, . - __syscall
