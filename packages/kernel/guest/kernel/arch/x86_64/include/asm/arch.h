/* x86-64 definitions the machine-independent kernel sees: the trap frame,
 * per-thread arch state and the virtual memory layout. */
#ifndef ASM_ARCH_H
#define ASM_ARCH_H
#include <stdint.h>

/*
 * Virtual memory layout:
 *   0x0000_0000_0040_0000 ... 0x0000_7FFF_FFFF_F000   user space
 *   0xFFFF_8880_0000_0000 + phys                       direct map of RAM
 *   0xFFFF_FFFF_8000_0000 + phys                       kernel image (1 GiB)
 *   0xFFFF_FFFF_F000_0000                              device window
 */
#define KERNEL_BASE      0xFFFFFFFF80000000ul
#define DIRECT_MAP_BASE  0xFFFF888000000000ul
#define DEVICE_VIRT_BASE 0xFFFFFFFFF0000000ul
#define USER_TOP         0x00007FFFFFFFF000ul
#define USER_STACK_TOP   0x00007FFFFFFFE000ul
#define USER_MMAP_BASE   0x00007F0000000000ul
#define ARCH_MAX_RAM     (4ull << 30)   /* what the direct map covers */

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define USER_DS   0x1B
#define USER_CS   0x23
#define TSS_SEL   0x28

#define SYSCALL_VECTOR 256   /* marker in pt_regs.vector for syscall entry */

/* Saved registers, in the order entry.S pushes them (lowest address first). */
struct pt_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;   /* hardware interrupt frame */
};

struct arch_thread {
	uint64_t fs_base;
	uint64_t gs_base;
	/* x87/MMX/SSE state while the thread is switched out, as FXSAVE
	 * writes it (512 bytes, 16-byte aligned inside the buffer); fpu_valid
	 * is false until the thread's state was first saved (it then starts
	 * from FNINIT and the default MXCSR). */
	uint8_t fpu_buf[512 + 16];
	bool fpu_valid;
};
/* AT_HWCAP: x86-64 programs read features from cpuid, not the auxiliary vector. */
#define ARCH_ELF_HWCAP 0
#endif
