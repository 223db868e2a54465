/* Native oracle for the differential tests: reads cases (initial registers,
 * flags, data block, code) from stdin, runs each on the host CPU at the same
 * addresses the core uses, and writes the final registers, flags, data block
 * and fault (signal, and the trap number for SIGFPE) to stdout. Every case
 * starts from the same FPU and SSE state: the x87 registers hold +0 and are
 * empty after FNINIT, MXCSR is 0x1f80, the XMM registers are zero (the core
 * runs the same prologue, test/exec-case.mjs). Built with clang by
 * scripts/gen-exec-vectors.mjs. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define DATA_ADDR 0x1000000UL
#define DATA_SIZE 0x1000
#define CODE_ADDR 0x1100000UL

struct state { uint64_t regs[16]; uint64_t flags; };
struct state g_in, g_out;
uint64_t g_saved_rsp;
static sigjmp_buf recover;
static volatile int fault_signal;
static volatile int fault_trapno;

void run_case(void);
void back_from_case(void);
__asm__(
  ".text\n.globl run_case\nrun_case:\n"
  "push %rbx\npush %rbp\npush %r12\npush %r13\npush %r14\npush %r15\n"
  "mov %rsp, g_saved_rsp(%rip)\n"
  "fninit\nfldz\nfldz\nfldz\nfldz\nfldz\nfldz\nfldz\nfldz\nfninit\nldmxcsr mxcsr_default(%rip)\n"
  "pxor %xmm0, %xmm0\npxor %xmm1, %xmm1\npxor %xmm2, %xmm2\npxor %xmm3, %xmm3\n"
  "pxor %xmm4, %xmm4\npxor %xmm5, %xmm5\npxor %xmm6, %xmm6\npxor %xmm7, %xmm7\n"
  "pxor %xmm8, %xmm8\npxor %xmm9, %xmm9\npxor %xmm10, %xmm10\npxor %xmm11, %xmm11\n"
  "pxor %xmm12, %xmm12\npxor %xmm13, %xmm13\npxor %xmm14, %xmm14\npxor %xmm15, %xmm15\n"
  "pushq g_in+128(%rip)\npopfq\n"
  "mov g_in+0(%rip), %rax\nmov g_in+8(%rip), %rcx\nmov g_in+16(%rip), %rdx\nmov g_in+24(%rip), %rbx\n"
  "mov g_in+32(%rip), %rsp\nmov g_in+40(%rip), %rbp\nmov g_in+48(%rip), %rsi\nmov g_in+56(%rip), %rdi\n"
  "mov g_in+64(%rip), %r8\nmov g_in+72(%rip), %r9\nmov g_in+80(%rip), %r10\nmov g_in+88(%rip), %r11\n"
  "mov g_in+96(%rip), %r12\nmov g_in+104(%rip), %r13\nmov g_in+112(%rip), %r14\nmov g_in+120(%rip), %r15\n"
  "jmp *code_addr(%rip)\n"
  ".globl back_from_case\nback_from_case:\n"
  "mov %rax, g_out+0(%rip)\nmov %rcx, g_out+8(%rip)\nmov %rdx, g_out+16(%rip)\nmov %rbx, g_out+24(%rip)\n"
  "mov %rsp, g_out+32(%rip)\nmov %rbp, g_out+40(%rip)\nmov %rsi, g_out+48(%rip)\nmov %rdi, g_out+56(%rip)\n"
  "mov %r8, g_out+64(%rip)\nmov %r9, g_out+72(%rip)\nmov %r10, g_out+80(%rip)\nmov %r11, g_out+88(%rip)\n"
  "mov %r12, g_out+96(%rip)\nmov %r13, g_out+104(%rip)\nmov %r14, g_out+112(%rip)\nmov %r15, g_out+120(%rip)\n"
  "mov g_saved_rsp(%rip), %rsp\n"
  "pushfq\npopq g_out+128(%rip)\n"
  "pop %r15\npop %r14\npop %r13\npop %r12\npop %rbp\npop %rbx\nret\n"
  ".data\ncode_addr: .quad 0x1100000\nmxcsr_default: .long 0x1f80\n.text\n");

static void on_signal(int sig, siginfo_t *si, void *ctx) {
  (void)si;
  fault_signal = sig;
  fault_trapno = (int)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_TRAPNO];
  siglongjmp(recover, 1);
}

static int read_all(void *p, size_t n) { return fread(p, 1, n, stdin) == n; }

int main(void) {
  uint8_t *data = mmap((void *)DATA_ADDR, DATA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  uint8_t *code = mmap((void *)CODE_ADDR, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (data != (void *)DATA_ADDR || code != (void *)CODE_ADDR) { fprintf(stderr, "native-harness: cannot map fixed addresses\n"); return 2; }
  /* signals run on their own stack: a case may leave rsp anywhere */
  static uint8_t alt[65536];
  stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0 };
  sigaltstack(&ss, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigaction(SIGFPE, &sa, 0);
  sigaction(SIGSEGV, &sa, 0);
  sigaction(SIGBUS, &sa, 0);
  sigaction(SIGILL, &sa, 0);
  sigaction(SIGTRAP, &sa, 0);
  uint32_t n;
  while (read_all(&n, 4)) {
    uint8_t buf[256];
    if (!read_all(&g_in, sizeof g_in) || !read_all(data, DATA_SIZE) || n > 255 || !read_all(buf, n)) return 3;
    memcpy(code, buf, n);
    /* jmp *0(%rip); .quad back_from_case */
    uint8_t *p = code + n;
    p[0] = 0xff; p[1] = 0x25; p[2] = p[3] = p[4] = p[5] = 0;
    uint64_t back = (uint64_t)&back_from_case;
    memcpy(p + 6, &back, 8);
    __builtin___clear_cache((char *)code, (char *)code + n + 14);
    fault_signal = 0;
    fault_trapno = 0;
    memset(&g_out, 0, sizeof g_out);
    if (sigsetjmp(recover, 1) == 0) run_case();
    /* the signal, with the x86 trap number in bits 8-15 (SIGFPE: #DE 0, #MF 16, #XM 19) */
    uint32_t sig = fault_signal | (fault_signal ? (uint32_t)(fault_trapno & 0xff) << 8 : 0);
    fwrite(&sig, 4, 1, stdout);
    fwrite(&g_out, sizeof g_out, 1, stdout);
    fwrite(data, DATA_SIZE, 1, stdout);
  }
  return 0;
}
