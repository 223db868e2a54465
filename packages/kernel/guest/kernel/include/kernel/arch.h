/*
 * What each ISA must supply (arch/x86_64 and arch/arm implement these with
 * the same names). The machine-independent kernel uses nothing else of the
 * ISA. struct pt_regs and the constants below come from asm/arch.h.
 */
#ifndef KERNEL_ARCH_H
#define KERNEL_ARCH_H
#include <kernel/types.h>
#include <asm/arch.h>

struct task_struct;
struct mm_struct;

/* Boot: called first from the arch entry with the boot-info pointer. */
void arch_setup(void);
void arch_cpu_init(unsigned cpu);
void arch_start_secondary(unsigned cpu, void *stack_top);

/* Interrupt masking on the current CPU. */
unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long flags);
void arch_irq_enable(void);
void arch_irq_disable(void);
void arch_wait_for_interrupt(void);
void arch_memory_barrier(void);

/* Per-CPU data pointer. */
struct cpu_info;
void arch_set_cpu_info(struct cpu_info *ci);
struct cpu_info *arch_cpu_info(void);

/* Page tables: PTE_* flags are machine independent, arch translates. */
#define PTE_READ  1u
#define PTE_WRITE 2u
#define PTE_EXEC  4u
#define PTE_USER  8u
int arch_mm_init(struct mm_struct *mm);
void arch_mm_free(struct mm_struct *mm);
int arch_map_page(struct mm_struct *mm, vaddr_t va, paddr_t pa, unsigned flags);
void arch_unmap_page(struct mm_struct *mm, vaddr_t va);
bool arch_translate(struct mm_struct *mm, vaddr_t va, paddr_t *pa, unsigned *flags);
void arch_switch_mm(struct mm_struct *mm);
void arch_flush_tlb(void);
void *phys_to_virt(paddr_t pa);
paddr_t virt_to_phys(const void *va);

/* Threads: context switch and new-thread frames. */
void arch_switch_to(struct task_struct *prev, struct task_struct *next);
void arch_thread_setup_fork(struct task_struct *child, const struct pt_regs *parent_regs,
			    unsigned long new_sp, unsigned long tls);
void arch_thread_setup_kernel(struct task_struct *t, void (*fn)(void *), void *arg);
void arch_thread_setup_exec(struct pt_regs *regs, unsigned long entry, unsigned long sp);
void arch_set_kernel_stack(struct task_struct *t);
long arch_set_tls(struct task_struct *t, unsigned long value);
long arch_prctl_call(struct task_struct *t, int code, unsigned long addr);

/* Signal delivery: build the frame that runs a user handler and later
 * restores the interrupted state (rt_sigreturn). Both return 0 or -EFAULT;
 * restore stores the saved signal mask and the interrupted context's return
 * register value (what the system call must hand back). */
struct k_sigaction;
#define SA_RESTORER  0x04000000ul
#define SA_NODEFER   0x40000000ul
#define SA_RESETHAND 0x80000000ul
long arch_setup_signal_frame(struct pt_regs *regs, int sig, const struct k_sigaction *ka,
			     uint64_t saved_mask);
long arch_restore_signal_frame(struct pt_regs *regs, uint64_t *saved_mask, long *return_value);

/* Trap frames. */
unsigned long regs_syscall_nr(const struct pt_regs *regs);
unsigned long regs_syscall_arg(const struct pt_regs *regs, int n);
void regs_set_return(struct pt_regs *regs, long value);
bool regs_user_mode(const struct pt_regs *regs);
unsigned long regs_pc(const struct pt_regs *regs);
unsigned long regs_sp(const struct pt_regs *regs);
unsigned long regs_frame_pointer(const struct pt_regs *regs);
void regs_dump(const struct pt_regs *regs);
__noreturn void arch_return_to_user(struct pt_regs *regs);

/* ELF identity of user programs for this ISA. */
extern const unsigned arch_elf_machine;
extern const unsigned arch_elf_class;
extern const char arch_uname_machine[];
#endif
