// DTrace support in the core: emulation of the instructions the fbt, kinst
// and fasttrap providers displace with the breakpoint (the DTrace
// breakpoint is exec.ts's DTRACE_BREAKPOINT, its low nibble carrying the
// displaced instruction's condition). Each emulation first checks that the
// word really is of its class, then executes it with the interpreter's own
// semantics as if at its original address, so emulated and native
// execution cannot drift apart. One exception, for the cost of entry
// probes: a push whose block lies in one RAM page this mode may already
// write is stored in place (pushInPlace); anything else about it (a page
// crossing, a TLB miss, a fault, a condition, an IT block) takes the
// interpreter's path, and tests compare both with native execution.
import { selectCpu, S, RETIRED, setSt, STOP_REASON, reg, setRegRaw, st, currentMode, MODE_USR, CP15_SCTLR, CPSR_CTL, PSR_T, IT_STATE } from './state';
import { ramAccess, ramBase, cpuTlb, invalidateCodeWord, P_PRIV_W, P_USER_W } from './memory';
import { decodeA32, Op } from './generated/a32-decoder';
import { TOp } from './generated/t32-decoder';
import { decodeThumbValue, executeDecoded, executeDecodedT32, STOP_UNDEFINED } from './run';
import { ArmEmulation } from '../src/emulation';

/** Whether the T32 `value` (a halfword, or first << 16 | second), decoded as `op`, belongs to the Thumb emulation class `code`. */
function thumbEmulationMatches(code: u32, value: u32, op: u32): bool {
  if (value <= 0xffff) {
    // a halfword that opens a 32-bit instruction is no 16-bit one
    if ((value >>> 11) >= 0x1d) return false;
    switch (code) {
      case ArmEmulation.T_PUSH: return op == TOp.PUSH_T1;
      case ArmEmulation.T_POP: return op == TOp.POP_T1;
      case ArmEmulation.T_BX_LR: return op == TOp.BX_T1 && ((value >>> 3) & 15) == 14;
      case ArmEmulation.T_MOV_FP_SP: return op == TOp.MOV_reg_T1 && (value & 0xff) == 0x6f; // D:rd = 7, rm = 13
      case ArmEmulation.T_ADD_FP_SP: return op == TOp.ADD_sp_imm_T1 && ((value >>> 8) & 7) == 7;
      case ArmEmulation.T_SUB_SP: return op == TOp.SUB_sp_imm_T1;
      case ArmEmulation.T_LDR_SP: return op == TOp.LDR_imm_T2;
      case ArmEmulation.T_STR_SP: return op == TOp.STR_imm_T2;
    }
    return false;
  }
  const rn = (value >>> 16) & 15;
  const rd = (value >>> 8) & 15;
  const rt = (value >>> 12) & 15;
  switch (code) {
    case ArmEmulation.T_PUSH:
      // push.w: stmdb sp!; str rX, [sp, #-4]!: P=1 U=0 W=1, imm8 = 4
      return (op == TOp.STMDB_T1 && rn == 13 && (value & (1 << 21)) != 0) || (op == TOp.STR_imm_T4 && rn == 13 && (value & 0xfff) == 0xd04);
    case ArmEmulation.T_POP:
      // pop.w: ldmia sp!; ldr rX, [sp], #4: P=0 U=1 W=1, imm8 = 4
      return (op == TOp.LDM_T2 && rn == 13 && (value & (1 << 21)) != 0) || (op == TOp.LDR_imm_T4 && rn == 13 && (value & 0xfff) == 0xb04);
    case ArmEmulation.T_ADD_FP_SP:
      return (op == TOp.ADD_imm_T3 || op == TOp.ADD_imm_T4) && rn == 13 && rd == 7 && (value & (1 << 20)) == 0;
    case ArmEmulation.T_SUB_SP:
      return (op == TOp.SUB_imm_T3 || op == TOp.SUB_imm_T4) && rn == 13 && rd == 13 && (value & (1 << 20)) == 0;
    case ArmEmulation.T_LDR_SP:
      return op == TOp.LDR_imm_T3 && rn == 13 && rt != 15;
    case ArmEmulation.T_STR_SP:
      return op == TOp.STR_imm_T3 && rn == 13;
  }
  return false;
}

/** Whether `word` belongs to the emulation class `code`. */
export function emulationMatches(code: u32, word: u32): bool {
  if (code >= u32(ArmEmulation.T_PUSH)) return thumbEmulationMatches(code, word, decodeThumbValue(word));
  return a32EmulationMatches(code, word, decodeA32(word));
}

/** Whether the A32 `word`, decoded as `op`, belongs to the emulation class `code`. */
function a32EmulationMatches(code: u32, word: u32, op: u32): bool {
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
  // The word is decoded once: the class check and the execution share it.
  if (code >= u32(ArmEmulation.T_PUSH)) {
    const op = decodeThumbValue(word);
    if (!thumbEmulationMatches(code, word, op)) return refuse();
    if (code == u32(ArmEmulation.T_PUSH) && st(IT_STATE) == 0 && (st(CPSR_CTL) & PSR_T) != 0) {
      // push {..} (T1: M is lr) and push.w (stmdb sp!), neither listing sp or pc
      const list = op == TOp.PUSH_T1 ? (word & 0xff) | ((word & 0x100) << 6) : op == TOp.STMDB_T1 && (word & 0xa000) == 0 ? word & 0xffff : 0;
      if (list != 0 && pushInPlace(list, address & ~1, word > 0xffff ? 4 : 2)) return 0;
    }
    // T32 codes run in Thumb state, under the CPU's ITSTATE (a breakpoint
    // in an IT block carried its condition, so the instruction's slot passed)
    return executeDecodedT32(word, address, op);
  }
  const op = decodeA32(word);
  if (!a32EmulationMatches(code, word, op)) return refuse();
  // stmdb sp!, {..} unconditional, neither user registers (S) nor sp or pc listed
  if (code == u32(ArmEmulation.PUSHM) && op == Op.STMDB && (word & 0xf0600000) == 0xe0200000 && (word & 0xa000) == 0 && (word & 0xffff) != 0) {
    if (pushInPlace(word & 0xffff, address, 4)) return 0;
  }
  return executeDecoded(word, address, op);
}

/**
 * The commonest emulation, an entry probe's push, without the interpreter's
 * general block transfer: the registers of `list` stored below sp, lowest
 * first, and sp written back, when the whole block is word aligned and in
 * one RAM page this mode may already write (the MMU off, or a TLB hit
 * granting it). Otherwise it returns false having changed nothing, and the
 * general path runs the instruction (and reports its faults). Each word
 * stored drops decoded code there as every guest store does; the pc moves
 * past the instruction (`size` bytes at `address`), which retires.
 */
function pushInPlace(list: u32, address: u32, size: u32): bool {
  const bytes = popcnt<u32>(list) << 2;
  const start = reg(13) - bytes;
  if ((start & 3) != 0) return false;
  const p = ramAccess(start, bytes, (st(CP15_SCTLR) & 1) != 0, cpuTlb(), currentMode() == MODE_USR ? P_USER_W : P_PRIV_W);
  if (p == 0) return false;
  let at = p;
  for (let i: u32 = 0; i < 15; i++) {
    if (list & (1 << i)) {
      store<u32>(at, reg(i));
      invalidateCodeWord(u32(at - ramBase));
      at += 4;
    }
  }
  setRegRaw(13, start);
  setRegRaw(15, address + size);
  setSt(STOP_REASON, 0);
  store<u64>(S + RETIRED, load<u64>(S + RETIRED) + 1);
  return true;
}

/** A word not of the emulation's class: nothing changes but the stop reason. */
function refuse(): u32 {
  setSt(STOP_REASON, STOP_UNDEFINED);
  return STOP_UNDEFINED;
}
