// DTrace support in the core: emulation of the instructions the fbt, kinst
// and fasttrap providers displace with the breakpoint (the DTrace
// breakpoint is exec.ts's DTRACE_BREAKPOINT, its low nibble carrying the
// displaced instruction's condition). Each emulation first checks that the
// word really is of its class, then executes it with the interpreter's own
// semantics as if at its original address, so emulated and native
// execution cannot drift apart.
import { selectCpu, S, RETIRED, setSt, STOP_REASON } from './state';
import { decodeA32, Op } from './generated/a32-decoder';
import { executeDisplaced, STOP_UNDEFINED } from './run';

// Emulation codes (the host's probe table stores one per patched site).
export const EMUL_PUSHM: u32 = 1; // push {...} / stmdb sp!, {...} / str rX, [sp, #-4]!
export const EMUL_POPM: u32 = 2; // pop / ldm sp(!), {...} with or without pc / ldr rX, [sp], #4
export const EMUL_B: u32 = 3; // b / bl (tail calls included)
export const EMUL_BX_LR: u32 = 4;
export const EMUL_MOV_PC_LR: u32 = 5;
export const EMUL_LDM: u32 = 6; // any ldm (e.g. ldmdb r11, {..., sp, pc} epilogues)
export const EMUL_LDR_IMM: u32 = 7; // ldr rX, [rN, #imm] including pc-relative literal loads
export const EMUL_MOVW: u32 = 8;
export const EMUL_MOV_IMM: u32 = 9;
export const EMUL_CMP_IMM: u32 = 10;
export const EMUL_MOV_IP_SP: u32 = 11;
export const EMUL_SUB_SP: u32 = 12; // sub sp, sp, #imm
export const EMUL_ADD_FP: u32 = 13; // add r11, sp, #imm (frame pointer setup)
export const EMUL_STR_IMM: u32 = 14; // str rX, [rN, #imm]
export const EMUL_ANY: u32 = 15; // any other instruction: general displaced execution

/** Whether `word` belongs to the emulation class `code`. */
export function emulationMatches(code: u32, word: u32): bool {
  const op = decodeA32(word);
  const rd = (word >>> 12) & 15;
  const rn = (word >>> 16) & 15;
  switch (code) {
    case EMUL_PUSHM:
      return (op == Op.STMDB && rn == 13) || (op == Op.STR_imm && rn == 13 && (word & 0x01f00fff) == 0x01200004);
    case EMUL_POPM:
      return ((op == Op.LDM || op == Op.LDM_eret) && rn == 13 && (word & (1 << 22)) == 0) || (op == Op.LDR_imm && rn == 13 && (word & 0x01f00fff) == 0x00900004);
    case EMUL_B:
      return op == Op.B || op == Op.BL;
    case EMUL_BX_LR:
      return op == Op.BX && (word & 15) == 14;
    case EMUL_MOV_PC_LR:
      return op == Op.MOV_reg && rd == 15 && (word & 0xfff) == 14;
    case EMUL_LDM:
      return op == Op.LDM || op == Op.LDMDA || op == Op.LDMDB || op == Op.LDMIB;
    case EMUL_LDR_IMM:
      return op == Op.LDR_imm;
    case EMUL_MOVW:
      return op == Op.MOVW;
    case EMUL_MOV_IMM:
      return op == Op.MOV_imm || op == Op.MVN_imm;
    case EMUL_CMP_IMM:
      return op == Op.CMP_imm;
    case EMUL_MOV_IP_SP:
      return op == Op.MOV_reg && rd == 12 && (word & 0xfff) == 13;
    case EMUL_SUB_SP:
      return op == Op.SUB_imm && rd == 13 && rn == 13;
    case EMUL_ADD_FP:
      return op == Op.ADD_imm && rd == 11 && rn == 13;
    case EMUL_STR_IMM:
      return op == Op.STR_imm;
    case EMUL_ANY:
      return true;
  }
  return false;
}

/**
 * Emulates the displaced instruction `word` of class `code` as if at
 * `address`: registers, memory, flags and pc end exactly as after native
 * execution. Returns 0 when done, or a stop reason (an abort in the
 * emulated access; STOP_UNDEFINED when the word is not of the class).
 */
export function emulate(cpu: u32, code: u32, word: u32, address: u32): u32 {
  selectCpu(cpu);
  if (!emulationMatches(code, word)) {
    setSt(STOP_REASON, STOP_UNDEFINED);
    return STOP_UNDEFINED;
  }
  return executeDisplaced(cpu, word, address);
}
