// The DTrace emulation codes of the ARM core, defined once: the core's
// `emulate` (assembly/dtrace.ts) switches on them and the providers store one
// per patched site. This file is read by both compilers — AssemblyScript for
// the core, TypeScript for the host — so it holds the enum and nothing else.

/** What `emulate(cpu, code, word, address)` performs; each code first checks that the word is of its class. */
export enum ArmEmulation {
  /** push {...} / stmdb sp!, {...} / str rX, [sp, #-4]! */
  PUSHM = 1,
  /** pop / ldm sp(!), {...} with or without pc / ldr rX, [sp], #4 */
  POPM = 2,
  /** b / bl (tail calls included) */
  B = 3,
  /** bx lr */
  BX_LR = 4,
  /** mov pc, lr */
  MOV_PC_LR = 5,
  /** any ldm (e.g. ldmdb r11, {..., sp, pc} epilogues) */
  LDM = 6,
  /** ldr rX, [rN, #imm], pc-relative literal loads included */
  LDR_IMM = 7,
  /** movw */
  MOVW = 8,
  /** mov / mvn with an immediate */
  MOV_IMM = 9,
  /** cmp with an immediate */
  CMP_IMM = 10,
  /** mov ip, sp */
  MOV_IP_SP = 11,
  /** sub sp, sp, #imm */
  SUB_SP = 12,
  /** add r11, sp, #imm (frame pointer set-up) */
  ADD_FP = 13,
  /** str rX, [rN, #imm] */
  STR_IMM = 14,
  /** any other instruction: general displaced execution */
  ANY = 15,
  // T32 (Thumb-2) codes: the word is a T32 value (a halfword, or first << 16 | second)
  /** push {..., lr} / push.w / str rX, [sp, #-4]! */
  T_PUSH = 16,
  /** pop {..., pc} / pop.w / ldr rX, [sp], #4 */
  T_POP = 17,
  /** bx lr */
  T_BX_LR = 18,
  /** mov r7, sp (Thumb frame pointer set-up) */
  T_MOV_FP_SP = 19,
  /** add r7, sp, #imm (16-bit, add.w or addw) */
  T_ADD_FP_SP = 20,
  /** sub sp, #imm (16-bit, sub.w or subw) */
  T_SUB_SP = 21,
  /** ldr rX, [sp, #imm] (16-bit or ldr.w) */
  T_LDR_SP = 22,
  /** str rX, [sp, #imm] (16-bit or str.w) */
  T_STR_SP = 23,
}
