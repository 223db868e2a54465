/* The 64-bit ARM EABI division entry points return quotient and remainder in
 * r0-r3, which C cannot express; these wrappers call the C helpers with a
 * remainder slot on the stack and load it into r2:r3. */
	.syntax unified
	.arm
	.text
	.globl __aeabi_uldivmod
	.type __aeabi_uldivmod, %function
__aeabi_uldivmod:
	push {r11, lr}
	mov r11, sp
	sub sp, sp, #24
	add r12, sp, #8
	str r12, [sp]
	bl __udivmoddi4
	ldr r2, [sp, #8]
	ldr r3, [sp, #12]
	mov sp, r11
	pop {r11, pc}
	.size __aeabi_uldivmod, . - __aeabi_uldivmod

	.globl __aeabi_ldivmod
	.type __aeabi_ldivmod, %function
__aeabi_ldivmod:
	push {r11, lr}
	mov r11, sp
	sub sp, sp, #24
	add r12, sp, #8
	str r12, [sp]
	bl __divmoddi4
	ldr r2, [sp, #8]
	ldr r3, [sp, #12]
	mov sp, r11
	pop {r11, pc}
	.size __aeabi_ldivmod, . - __aeabi_ldivmod

	/* memcpy/memset/memmove entry points the EABI lets a compiler call. */
	.globl __aeabi_memcpy
	.globl __aeabi_memcpy4
	.globl __aeabi_memcpy8
__aeabi_memcpy:
__aeabi_memcpy4:
__aeabi_memcpy8:
	b memcpy
	.globl __aeabi_memmove
	.globl __aeabi_memmove4
	.globl __aeabi_memmove8
__aeabi_memmove:
__aeabi_memmove4:
__aeabi_memmove8:
	b memmove
	/* __aeabi_memset(dest, n, c) has memset's last two arguments swapped. */
	.globl __aeabi_memset
	.globl __aeabi_memset4
	.globl __aeabi_memset8
__aeabi_memset:
__aeabi_memset4:
__aeabi_memset8:
	mov r3, r1
	mov r1, r2
	mov r2, r3
	b memset
	.globl __aeabi_memclr
	.globl __aeabi_memclr4
	.globl __aeabi_memclr8
__aeabi_memclr:
__aeabi_memclr4:
__aeabi_memclr8:
	mov r2, r1
	mov r1, #0
	b memset

#ifdef __thumb__
	/* Thumb callers (the arm-thumb image set) reach these A32 entry points
	 * through `bl`, which the linker turns into `blx` only for function
	 * symbols. The A32 build keeps them untyped, as it always had them. */
	.type __aeabi_memcpy, %function
	.type __aeabi_memcpy4, %function
	.type __aeabi_memcpy8, %function
	.type __aeabi_memmove, %function
	.type __aeabi_memmove4, %function
	.type __aeabi_memmove8, %function
	.type __aeabi_memset, %function
	.type __aeabi_memset4, %function
	.type __aeabi_memset8, %function
	.type __aeabi_memclr, %function
	.type __aeabi_memclr4, %function
	.type __aeabi_memclr8, %function
#endif
