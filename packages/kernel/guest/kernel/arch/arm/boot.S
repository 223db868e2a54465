/*
 * ARM kernel entry (BOARD.md 6.2): the host starts CPU 0 in SVC mode with the
 * MMU off at the physical entry point, r2 = boot-info physical address. This
 * code runs at physical addresses until the MMU is on, so it only uses
 * pc-relative loads and subtracts KERNEL_BASE from link-time addresses.
 *
 * The boot translation table (kernel_l1, 1 MiB sections) maps:
 *   0x0000_0000-0x00FF_FFFF identity (to survive turning the MMU on),
 *   0xC000_0000 + phys       768 MiB of RAM, write-back cacheable,
 *   0xF000_0000              the 16 MiB device window, device memory, XN.
 * Section descriptor bits (ARM ARM B3.5.1): type 0b10, B=bit 2, C=bit 3,
 * XN=bit 4, AP[1:0]=bits 11:10 (01: privileged read/write), domain 0.
 */
	.syntax unified
	.arm
	.section .text.boot, "ax"

	.equ KERNEL_BASE, 0xC0000000
	.equ SECTION_RAM, 0x40E      @ section, C, B, AP=01
	.equ SECTION_DEVICE, 0x416   @ section, B (shared device), XN, AP=01

	.globl _start
	.type _start, %function
_start:
	cpsid if
	mov r10, r2                  @ boot-info physical address

	@ .bss is not cleared here: the host zero-fills it when it loads the
	@ kernel (BOARD.md 6), and it may already hold what krtld handed over
	@ before the start (kmod_arena and kmod_table, BOARD.md 8).

	@ Build kernel_l1 (in .bss, so already zero).
	ldr r4, =kernel_l1
	sub r4, r4, #KERNEL_BASE
	mov r0, #0
2:	ldr r3, =SECTION_RAM
	orr r3, r3, r0, lsl #20
	str r3, [r4, r0, lsl #2]
	add r0, r0, #1
	cmp r0, #16
	blo 2b
	mov r0, #0
3:	ldr r3, =SECTION_RAM
	orr r3, r3, r0, lsl #20
	add r5, r0, #0xC00
	str r3, [r4, r5, lsl #2]
	add r0, r0, #1
	cmp r0, #768
	blo 3b
	mov r0, #0
4:	add r5, r0, #0xF00
	ldr r3, =SECTION_DEVICE
	orr r3, r3, r5, lsl #20
	str r3, [r4, r5, lsl #2]
	add r0, r0, #1
	cmp r0, #16
	blo 4b

	bl enable_mmu
	ldr pc, =boot_high
boot_high:
	ldr sp, =boot_stack_top
	mov r11, #0
	add r0, r10, #KERNEL_BASE
	bl start_kernel
5:	wfi
	b 5b
	.size _start, . - _start

/* Turn the MMU on with kernel_l1 (physical address in r4) as TTBR0 and
 * TTBCR = 0; runs and returns at physical addresses (identity mapped). */
	.type enable_mmu, %function
enable_mmu:
	mov r0, #0
	mcr p15, 0, r0, c8, c7, 0    @ TLBIALL
	mcr p15, 0, r0, c7, c5, 0    @ ICIALLU
	mcr p15, 0, r0, c2, c0, 2    @ TTBCR = 0
	mcr p15, 0, r4, c2, c0, 0    @ TTBR0
	ldr r0, =0x55555555
	mcr p15, 0, r0, c3, c0, 0    @ DACR: every domain "client"
	dsb
	isb
	mrc p15, 0, r0, c1, c0, 0    @ SCTLR
	bic r0, r0, #0x2             @ A: no alignment faults
	bic r0, r0, #0x2000          @ V: low vectors (VBAR is used)
	bic r0, r0, #0x30000000      @ TRE, AFE off
	orr r0, r0, #0x1000          @ I
	orr r0, r0, #0x5             @ M, C
	mcr p15, 0, r0, c1, c0, 0
	isb
	bx lr
	.size enable_mmu, . - enable_mmu

/* Secondary CPUs (BOARD.md 7): r0 = CPU index, sp = physical stack top. */
	.globl secondary_entry
	.type secondary_entry, %function
secondary_entry:
	cpsid if
	mov r10, r0
	mov r9, sp
	ldr r4, =kernel_l1
	sub r4, r4, #KERNEL_BASE
	bl enable_mmu
	ldr pc, =secondary_high
secondary_high:
	add sp, r9, #KERNEL_BASE
	mov r11, #0
	mov r0, r10
	bl secondary_start_kernel
6:	wfi
	b 6b
	.size secondary_entry, . - secondary_entry

	.ltorg

	.bss
	.balign 16384
	.globl kernel_l1
kernel_l1:
	.skip 16384
	.balign 8
boot_stack:
	.skip 16384
boot_stack_top:
