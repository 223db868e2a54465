// The "virt" board's fixed numbers (BOARD.md section 9). Everything that
// models or boots the board takes its addresses from here.

export const BOOTINFO_PHYS = 0x1000;
export const BOOTINFO_MAGIC = 0x5744_4254;
export const BOOTINFO_VERSION = 1;
export const BOARD_ID = 0x7764;
export const DEVICE_BASE = 0xf000_0000;
export const DEVICE_SIZE = 0x0100_0000;
export const DEVICE_PAGE = 0x1000;

export const CONSOLE_BASE = DEVICE_BASE + 0x0000;
export const TIMER_BASE = DEVICE_BASE + 0x1000;
export const INTC_BASE = DEVICE_BASE + 0x2000;
export const INITRD_BASE = DEVICE_BASE + 0x3000;
export const POWER_BASE = DEVICE_BASE + 0x4000;
export const SMP_BASE = DEVICE_BASE + 0x5000;

export const IRQ_TIMER = 0;
export const IRQ_CONSOLE = 1;
export const IRQ_IPI = 2;
/** x86-64 delivers external interrupt line n as IDT vector X86_IRQ_VECTOR_BASE + n. */
export const X86_IRQ_VECTOR_BASE = 32;

export const X86_KERNEL_BASE = 0xffff_ffff_8000_0000n;
export const ARM_KERNEL_BASE = 0xc000_0000;
export const KERNEL_LOAD_PHYS = 0x0010_0000;
export const MAX_CPUS = 8;
export const DEFAULT_EPOCH_SECONDS = 1_700_000_000;

/** Physical layout of the low pages the host fills before CPU 0 starts (BOARD.md section 2). */
export const X86_BOOT_PML4 = 0x2000;
export const X86_BOOT_PDPT_LOW = 0x3000;
export const X86_BOOT_PDPT_HIGH = 0x4000;
export const X86_BOOT_PD_RAM = 0x5000;
export const X86_BOOT_PD_DEVICES = 0x6000;
export const X86_BOOT_GDT = 0x7000;
export const BOOT_STACK_TOP = 0x0001_0000;
/** The initrd is placed to end at or below this physical address. */
export const INITRD_CEILING = 512 * 1024 * 1024;
/**
 * Virtual nanoseconds per instruction a CPU retires, unless configured: a
 * CPU of 100 MIPS, about the speed the cores emulate one at, so a second of
 * a busy guest takes about a second of real time per CPU.
 */
export const DEFAULT_NS_PER_INSN = 10;
