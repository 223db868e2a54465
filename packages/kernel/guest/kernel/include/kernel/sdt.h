/*
 * Statically defined tracing sites (illumos convention). A site is a call to
 * an external function __dtrace_probe_<name> that no object defines. The core
 * kernel is linked with --emit-relocs and unresolved symbols allowed, so the
 * host-side krtld finds each call from its relocation, replaces the call with
 * the ISA's no-op and records the site. Provider macros prefix the name with
 * __<provider>_; plain DTRACE_PROBE* sites belong to provider "sdt". In the
 * probe part, "__" stands for '-' (on__cpu is probe on-cpu).
 *
 * The empty asm after each call keeps the call out of tail position, so a
 * site is always a call instruction (x86-64 `call rel32`, ARM `bl`), never a
 * tail jump.
 */
#ifndef KERNEL_SDT_H
#define KERNEL_SDT_H

#define __DTRACE_STR(x) #x

/*
 * Argument-type record of a site (README.md, "Static tracing sites"): a
 * static, unreferenced char array in the allocated section .dtrace_argtypes
 * holding NUL-terminated strings: the probe symbol, the number of arguments
 * in decimal, one C type per argument exactly as written at the site (#t),
 * then an empty string (the array's own terminating NUL ends it). The array
 * is data only: nothing refers to it, so the code around the site is the
 * same as without it.
 */
#define __DTRACE_ARGTYPES(sym, rec)                                              \
	static const char __dtrace_argtypes[]                                    \
	__attribute__((section(".dtrace_argtypes"), used, aligned(1))) =         \
		__DTRACE_STR(sym) "\0" rec "\0"

#define __DTRACE_SITE(fn, rec, ...) do {                 \
		__DTRACE_ARGTYPES(fn, rec);              \
		extern void fn();                        \
		fn(__VA_ARGS__);                         \
		__asm__ __volatile__("" ::: "memory");   \
	} while (0)

#define DTRACE_PROBE(name) __DTRACE_SITE(__dtrace_probe_##name, "0")
#define DTRACE_PROBE1(name, t1, a1) \
	__DTRACE_SITE(__dtrace_probe_##name, "1\0" #t1, (unsigned long)(a1))
#define DTRACE_PROBE2(name, t1, a1, t2, a2) \
	__DTRACE_SITE(__dtrace_probe_##name, "2\0" #t1 "\0" #t2, \
		      (unsigned long)(a1), (unsigned long)(a2))
#define DTRACE_PROBE3(name, t1, a1, t2, a2, t3, a3) \
	__DTRACE_SITE(__dtrace_probe_##name, "3\0" #t1 "\0" #t2 "\0" #t3, \
		      (unsigned long)(a1), (unsigned long)(a2), (unsigned long)(a3))
#define DTRACE_PROBE4(name, t1, a1, t2, a2, t3, a3, t4, a4) \
	__DTRACE_SITE(__dtrace_probe_##name, "4\0" #t1 "\0" #t2 "\0" #t3 "\0" #t4, \
		      (unsigned long)(a1), (unsigned long)(a2), (unsigned long)(a3), \
		      (unsigned long)(a4))
#define DTRACE_PROBE5(name, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5) \
	__DTRACE_SITE(__dtrace_probe_##name, "5\0" #t1 "\0" #t2 "\0" #t3 "\0" #t4 "\0" #t5, \
		      (unsigned long)(a1), (unsigned long)(a2), (unsigned long)(a3), \
		      (unsigned long)(a4), (unsigned long)(a5))

#define DTRACE_PROC(name) DTRACE_PROBE(__proc_##name)
#define DTRACE_PROC1(name, t1, a1) DTRACE_PROBE1(__proc_##name, t1, a1)
#define DTRACE_PROC2(name, t1, a1, t2, a2) DTRACE_PROBE2(__proc_##name, t1, a1, t2, a2)
#define DTRACE_PROC3(name, t1, a1, t2, a2, t3, a3) \
	DTRACE_PROBE3(__proc_##name, t1, a1, t2, a2, t3, a3)
#define DTRACE_SCHED(name) DTRACE_PROBE(__sched_##name)
#define DTRACE_SCHED1(name, t1, a1) DTRACE_PROBE1(__sched_##name, t1, a1)
#define DTRACE_SCHED2(name, t1, a1, t2, a2) DTRACE_PROBE2(__sched_##name, t1, a1, t2, a2)
#define DTRACE_SCHED3(name, t1, a1, t2, a2, t3, a3) \
	DTRACE_PROBE3(__sched_##name, t1, a1, t2, a2, t3, a3)
#define DTRACE_IO1(name, t1, a1) DTRACE_PROBE1(__io_##name, t1, a1)
#define DTRACE_IO2(name, t1, a1, t2, a2) DTRACE_PROBE2(__io_##name, t1, a1, t2, a2)
#define DTRACE_IO3(name, t1, a1, t2, a2, t3, a3) DTRACE_PROBE3(__io_##name, t1, a1, t2, a2, t3, a3)
#endif
