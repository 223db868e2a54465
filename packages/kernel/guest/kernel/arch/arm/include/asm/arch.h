/* ARMv7-A definitions the machine-independent kernel sees: the trap frame,
 * per-thread arch state and the virtual memory layout. */
#ifndef ASM_ARCH_H
#define ASM_ARCH_H
#include <stdint.h>

/*
 * Virtual memory layout (TTBCR.N = 2: TTBR0 translates the low 1 GiB,
 * TTBR1 the rest):
 *   0x0000_1000 ... 0x3FFF_F000   user space (per-process TTBR0 table)
 *   0xC000_0000 + phys            kernel image and all RAM (sections)
 *   0xF000_0000                   device window (identity, device memory)
 */
#define KERNEL_BASE      0xC0000000ul
#define DIRECT_MAP_BASE  0xC0000000ul
#define DEVICE_VIRT_BASE 0xF0000000ul
#define USER_TOP         0x3FFFF000ul
#define USER_STACK_TOP   0x3FFF0000ul
#define USER_MMAP_BASE   0x30000000ul
#define ARCH_MAX_RAM     (768ull << 20) /* RAM mapped at KERNEL_BASE */

#define PSR_MODE_USR 0x10
#define PSR_MODE_SVC 0x13
#define PSR_MODE_MASK 0x1F
#define PSR_T_BIT 0x20
#define PSR_I_BIT 0x80

/* Saved registers, in the order entry.S stores them (lowest address first):
 * r0-r12, the user-mode sp and lr, the SVC lr, then the return pc and cpsr
 * stored by srsdb. */
struct pt_regs {
	uint32_t r[13];
	uint32_t sp_usr;
	uint32_t lr_usr;
	uint32_t lr_svc;
	uint32_t pc;
	uint32_t cpsr;
};

struct arch_thread {
	uint32_t tls;          /* TPIDRURO, set by set_tls */
	/* A user thread's VFP registers while it is off the CPU (process.c):
	 * d0-d15 and FPSCR, valid once vfp_valid is set. */
	uint64_t vfp_d[16];
	uint32_t fpscr;
	uint32_t vfp_valid;
};

/* AT_HWCAP: what the core implements (Linux's HWCAP_* bits): swp, half,
 * thumb, fast_mult, vfp, edsp, tls, vfpv3, vfpv3d16, idiva, idivt. No
 * NEON, so C libraries choose their VFP-only routines. */
#define ARCH_ELF_HWCAP ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 4) | (1u << 6) | (1u << 7) | \
			(1u << 15) | (1u << 13) | (1u << 14) | (1u << 17) | (1u << 18))

/* Enables CP10/CP11 (CPACR) and the VFP (FPEXC.EN) on this CPU. */
void arm_vfp_init_cpu(void);
/* The VFP registers of the running user thread to and from memory (signal frames). */
void arm_vfp_store(uint64_t *d, uint32_t *fpscr);
void arm_vfp_load(const uint64_t *d, uint32_t fpscr);
#endif
