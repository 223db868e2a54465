/* The "virt" board as BOARD.md specifies it: device offsets, IRQ lines and
 * the boot-information block. Device registers are reached through
 * board_read32/board_write32 at the virtual address the arch maps the device
 * window to (DEVICE_VIRT_BASE from asm/arch.h). */
#ifndef KERNEL_BOARD_H
#define KERNEL_BOARD_H
#include <kernel/types.h>

#define BOOTINFO_PHYS   0x1000
#define BOOTINFO_MAGIC  0x57444254u
#define BOARD_ID        0x7764u
#define DEVICE_PHYS_BASE 0xF0000000ul
#define DEVICE_WINDOW_SIZE 0x01000000ul

#define CONSOLE_BASE 0x0000
#define   CONSOLE_TX         0x00
#define   CONSOLE_RX         0x04
#define   CONSOLE_STATUS     0x08
#define     CONSOLE_RX_READY 1u
#define     CONSOLE_TX_READY 2u
#define     CONSOLE_RX_EOF   4u
#define   CONSOLE_IRQ_ENABLE 0x0C
#define TIMER_BASE   0x1000
#define   TIMER_TIME_LO      0x00
#define   TIMER_TIME_HI      0x04
#define   TIMER_DEADLINE_LO  0x08
#define   TIMER_DEADLINE_HI  0x0C
#define   TIMER_CTRL         0x10
#define   TIMER_NS_PER_INSN  0x14
#define INTC_BASE    0x2000
#define   INTC_CPU_ID        0x00
#define   INTC_CPU_COUNT     0x04
#define   INTC_PENDING       0x08
#define   INTC_ENABLE        0x0C
#define   INTC_CLAIM         0x10
#define   INTC_ACK           0x14
#define   INTC_IPI_SEND      0x18
#define INITRD_WINDOW_BASE 0x3000
#define POWER_BASE   0x4000
#define   POWER_POWEROFF     0x00
#define   POWER_PANIC        0x04
#define SMP_BASE     0x5000
#define   SMP_ENTRY_LO       0x00
#define   SMP_ENTRY_HI       0x04
#define   SMP_STACK_LO       0x08
#define   SMP_STACK_HI       0x0C
#define   SMP_ARG_LO         0x10
#define   SMP_ARG_HI         0x14
#define   SMP_PAGE_TABLE_LO  0x18
#define   SMP_PAGE_TABLE_HI  0x1C
#define   SMP_START          0x20
#define   SMP_RUNNING        0x24

#define IRQ_TIMER   0
#define IRQ_CONSOLE 1
#define IRQ_IPI     2
#define IRQ_NONE    0xFFFFFFFFu

struct boot_info {
	uint32_t magic;
	uint32_t version;
	uint32_t board_id;
	uint32_t cpu_count;
	uint64_t ram_size;
	uint64_t initrd_base;
	uint64_t initrd_size;
	uint32_t ns_per_insn;
	uint32_t cmdline_len;
	uint64_t device_base;
	uint64_t epoch_seconds;
	uint64_t kernel_end;
	uint8_t reserved[0x100 - 0x48];
	char cmdline[0xF00];
};

/* What the kernel keeps of the boot information (copied early). */
struct boot_params {
	uint64_t ram_size;
	uint64_t initrd_base;
	uint64_t initrd_size;
	uint64_t kernel_end;
	uint64_t epoch_seconds;
	uint32_t cpu_count;
	uint32_t ns_per_insn;
	char cmdline[0xF00];   /* all of it: at most 3839 bytes and the NUL (BOARD.md 5) */
};
extern struct boot_params boot_params;

uint32_t board_read32(unsigned long offset);
void board_write32(unsigned long offset, uint32_t value);
void bootinfo_parse(const struct boot_info *info);
uint64_t board_time_ns(void);
unsigned board_cpu_id(void);
__noreturn void board_poweroff(int status);
__noreturn void board_panic_stop(int status);
#endif
