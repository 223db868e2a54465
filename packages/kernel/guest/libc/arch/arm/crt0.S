/* Program entry for ARM EABI: argc, argv[], NULL, envp[], NULL, auxv at sp.
 * Clear the frame pointer (r11) and link register so stack walks stop here and
 * pass the stack pointer to __libc_start, which never returns. */
	.syntax unified
	.arm
	.text
	.globl _start
	.type _start, %function
_start:
	mov r11, #0
	mov lr, #0
	mov r0, sp
	bic sp, sp, #7
	bl __libc_start
	udf #0xdead                  @ never reached (udf #0-#15 would be the DTrace breakpoint, conditional)
	.size _start, . - _start
