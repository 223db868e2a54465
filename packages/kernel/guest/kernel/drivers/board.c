/*
 * The virt board's fixed devices (BOARD.md): register access through the
 * device window, boot information, CPU identity, time, power-off.
 */
#include <kernel/arch.h>
#include <kernel/board.h>
#include <kernel/lib.h>

struct boot_params boot_params;

uint32_t board_read32(unsigned long offset)
{
	return *(volatile uint32_t *)(DEVICE_VIRT_BASE + offset);
}

void board_write32(unsigned long offset, uint32_t value)
{
	*(volatile uint32_t *)(DEVICE_VIRT_BASE + offset) = value;
}

/* Copy what the kernel needs out of the boot-information block. */
void bootinfo_parse(const struct boot_info *info)
{
	size_t len;

	if (info->magic != BOOTINFO_MAGIC || info->version < 1)
		panic("boot information block: bad magic %#x or version %u", info->magic,
		      info->version);
	boot_params.ram_size = info->ram_size;
	boot_params.initrd_base = info->initrd_base;
	boot_params.initrd_size = info->initrd_size;
	boot_params.kernel_end = info->kernel_end;
	boot_params.epoch_seconds = info->epoch_seconds;
	boot_params.cpu_count = info->cpu_count ? info->cpu_count : 1;
	boot_params.ns_per_insn = info->ns_per_insn ? info->ns_per_insn : 1;
	len = info->cmdline_len < sizeof(boot_params.cmdline) - 1 ? info->cmdline_len
								  : sizeof(boot_params.cmdline) - 1;
	memcpy(boot_params.cmdline, info->cmdline, len);
	boot_params.cmdline[len] = '\0';
}

uint64_t board_time_ns(void)
{
	uint32_t lo = board_read32(TIMER_BASE + TIMER_TIME_LO);
	uint32_t hi = board_read32(TIMER_BASE + TIMER_TIME_HI);

	return ((uint64_t)hi << 32) | lo;
}

unsigned board_cpu_id(void)
{
	return board_read32(INTC_BASE + INTC_CPU_ID);
}

__noreturn void board_poweroff(int status)
{
	board_write32(POWER_BASE + POWER_POWEROFF, (uint32_t)status & 0xff);
	for (;;)
		arch_wait_for_interrupt();
}

__noreturn void board_panic_stop(int status)
{
	board_write32(POWER_BASE + POWER_PANIC, (uint32_t)status & 0xff);
	for (;;)
		arch_wait_for_interrupt();
}
