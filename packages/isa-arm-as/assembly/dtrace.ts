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
import { ArmEmulation } from '../src/emulation';

/** Whether `word` belongs to the emulation class `code`. */
export function emulationMatches(code: u32, word: u32): bool {
  const op = decodeA32(word);
  const rd = (word >>> 12) & 15;
  const rn = (word >>> 16) & 15;
  switch (code) {
    case ArmEmulation.PUSHM:
      return (op == Op.STMDB && rn == 13) || (op == Op.STR_imm && rn == 13 && (word & 0x01f00fff) == 0x01200004);
    case ArmEmulation.POPM:
      return ((op == Op.LDM || op == Op.LDM_eret) && rn == 13 && (word & (1 << 22)) == 0) || (op == Op.LDR_imm && rn == 13 && (word & 0x01f00fff) == 0x00900004);
    case ArmEmulation.B:
      return op == Op.B || op == Op.BL;
    case ArmEmulation.BX_LR:
      return op == Op.BX && (word & 15) == 14;
    case ArmEmulation.MOV_PC_LR:
      return op == Op.MOV_reg && rd == 15 && (word & 0xfff) == 14;
    case ArmEmulation.LDM:
      return op == Op.LDM || op == Op.LDMDA || op == Op.LDMDB || op == Op.LDMIB;
    case ArmEmulation.LDR_IMM:
      return op == Op.LDR_imm;
    case ArmEmulation.MOVW:
      return op == Op.MOVW;
    case ArmEmulation.MOV_IMM:
      return op == Op.MOV_imm || op == Op.MVN_imm;
    case ArmEmulation.CMP_IMM:
      return op == Op.CMP_imm;
    case ArmEmulation.MOV_IP_SP:
      return op == Op.MOV_reg && rd == 12 && (word & 0xfff) == 13;
    case ArmEmulation.SUB_SP:
      return op == Op.SUB_imm && rd == 13 && rn == 13;
    case ArmEmulation.ADD_FP:
      return op == Op.ADD_imm && rd == 11 && rn == 13;
    case ArmEmulation.STR_IMM:
      return op == Op.STR_imm;
    case ArmEmulation.ANY:
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
