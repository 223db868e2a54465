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
}
