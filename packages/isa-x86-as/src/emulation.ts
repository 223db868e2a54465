// The DTrace emulation codes of the x86-64 core, defined once: the core's
// `emulate` (assembly/dtrace.ts) performs them and the providers store one
// per patched site. This file is read by both compilers — AssemblyScript for
// the core, TypeScript for the host — so it holds the enum and nothing else.

/** What `emulate(code)` performs for the one-byte instruction an int3 replaced (illumos fbt's emulations). */
export enum X86Emulation {
  nop = 0,
  /** push %rbp: the first instruction of every C function */
  pushRbp = 1,
  /** pop %rbp before a ret */
  popRbp = 2,
  /** leave before a ret */
  leave = 3,
  /** ret */
  ret = 4,
}
