// T32 instruction handlers: one per line of encodings/t32.decode, named
// exec_<NAME>, each taking the instruction (a 16-bit one as the halfword, a
// 32-bit one as first halfword << 16 | second). The IT condition has already
// passed; a handler extracts its encoding's fields and calls the shared
// operation in semantics.ts, so A32 and T32 run the same code for the same
// operation. Thumb specifics live here: 16-bit data processing sets flags
// only outside an IT block, pc reads as the instruction's address + 4
// (Align(PC, 4) for literals and ADR), ThumbExpandImm, CBZ, TBB/TBH, IT.
// Pseudocode references are to the ARM ARM (DDI 0406C) A8.8 pages.
import { reg, setRegRaw, st, FLAG_C, IT_STATE, setItState } from './state';
import { read, aborted } from './memory';
import {
  raise, EXC_UNDEF, EXC_SVC, EXC_BKPT, EXC_DTRACE, EXC_WFI, curPc, nextPc, shCarry, shiftImm, shiftReg, shiftNoCarry, dataProcessing, bxWritePc,
  branchWritePc, aluExceptionReturn, conditionPassed, psrWrite, psrRead, bankedRead, bankedWrite, changeProcessorState, setEndianness, multiply,
  multiplySubtract, multiplyLong, multiplyAccumulateAccumulate, multiplyHalves, multiplyWordHalf, multiplyHalvesLong, multiplyDual, multiplyDualLong,
  multiplyMostSignificant, divide, saturatingArithmetic, saturate, saturateHalves, parallel, select, sumAbsoluteDifferences, pack, extend, reverse,
  bitfieldExtract, bitfieldInsert, transfer, transferDouble, blockTransfer, loadExclusive, storeExclusive, loadExclusiveDouble, storeExclusiveDouble,
  clearExclusive, storeReturnState, returnFromException, coprocessorTransfer,
  DP_AND, DP_EOR, DP_SUB, DP_RSB, DP_ADD, DP_ADC, DP_SBC, DP_TST, DP_TEQ, DP_CMP, DP_CMN, DP_ORR, DP_MOV, DP_BIC, DP_MVN, DP_ORN,
  LONG_UMULL, LONG_UMLAL, LONG_SMULL, LONG_SMLAL, EXTEND_SXTB, EXTEND_SXTH, EXTEND_UXTB, EXTEND_UXTH, EXTEND_SXTB16, EXTEND_UXTB16,
  REVERSE_REV, REVERSE_REV16, REVERSE_REVSH, REVERSE_RBIT, REVERSE_CLZ, BLOCK_NORMAL,
} from './semantics';
import * as V from './vfp';

/** The 16-bit DTrace breakpoint: `udf #0xf0`. */
export const DTRACE_BREAKPOINT_T16: u32 = 0xdef0;
/** The 32-bit DTrace breakpoint: `udf.w #0xf0` (first halfword << 16 | second). */
export const DTRACE_BREAKPOINT_T32: u32 = 0xf7f0a0f0;

// ---- Field extractors: 16-bit forms use bits of the halfword, 32-bit ones of first << 16 | second ----
@inline function bits(w: u32, lsb: u32, width: u32): u32 { return (w >>> lsb) & ((u32(1) << width) - 1); }
@inline function flag(w: u32, n: u32): bool { return ((w >>> n) & 1) != 0; }
/** Registers of a 32-bit form: Rn in the first halfword, Rt/Ra (15:12), Rd (11:8), Rm (3:0) in the second. */
@inline function wRn(w: u32): u32 { return (w >>> 16) & 15; }
@inline function wRt(w: u32): u32 { return (w >>> 12) & 15; }
@inline function wRd(w: u32): u32 { return (w >>> 8) & 15; }
@inline function wRm(w: u32): u32 { return w & 15; }

/** Whether the instruction sits in an IT block (16-bit data processing then leaves the flags alone). */
@inline function inITBlock(): bool { return (st(IT_STATE) & 0xf) != 0; }
/** Align(PC, 4): the base of literal loads and ADR. */
@inline function alignedPc(): u32 { return reg(15) & ~3; }

/** ThumbExpandImm_C (A6.3.2): the value of i:imm3:imm8, its carry out left in expandCarry. */
let expandCarry: u32 = 0;
@inline function thumbExpandImm(w: u32): u32 {
  const imm12 = (bits(w, 26, 1) << 11) | (bits(w, 12, 3) << 8) | (w & 0xff);
  const imm8 = imm12 & 0xff;
  if ((imm12 >>> 10) == 0) {
    expandCarry = st(FLAG_C);
    switch ((imm12 >>> 8) & 3) {
      case 0: return imm8;
      case 1: return (imm8 << 16) | imm8;
      case 2: return (imm8 << 24) | (imm8 << 8);
      default: return imm8 * 0x01010101;
    }
  }
  const v = rotr<u32>(0x80 | (imm12 & 0x7f), imm12 >>> 7);
  expandCarry = v >>> 31;
  return v;
}
/** i:imm3:imm8 as a plain 12-bit number (ADDW, SUBW, ADR). */
@inline function imm12Plain(w: u32): u32 { return (bits(w, 26, 1) << 11) | (bits(w, 12, 3) << 8) | (w & 0xff); }
/** imm3:imm2 (shift amounts, bit-field lsb). */
@inline function imm3imm2(w: u32): u32 { return (bits(w, 12, 3) << 2) | bits(w, 6, 2); }

export function exec_UNDEFINED(w: u32): void {
  raise(EXC_UNDEF);
}

// ---- A6.2.1 Shift (immediate), add, subtract, move, and compare ----
@inline function lowDp(op: u32, d: u32, a: u32, b: u32, carry: u32): void {
  dataProcessing(op, d, a, b, carry, !inITBlock());
}
export function exec_MOV_reg_T2(w: u32): void { lowDp(DP_MOV, w & 7, 0, reg(bits(w, 3, 3)), st(FLAG_C)); }
@inline function shiftByImm(w: u32, type: u32): void {
  const v = shiftImm(reg(bits(w, 3, 3)), type, bits(w, 6, 5));
  lowDp(DP_MOV, w & 7, 0, v, shCarry);
}
export function exec_LSL_imm_T1(w: u32): void { shiftByImm(w, 0); }
export function exec_LSR_imm_T1(w: u32): void { shiftByImm(w, 1); }
export function exec_ASR_imm_T1(w: u32): void { shiftByImm(w, 2); }
export function exec_ADD_reg_T1(w: u32): void { lowDp(DP_ADD, w & 7, reg(bits(w, 3, 3)), reg(bits(w, 6, 3)), 0); }
export function exec_SUB_reg_T1(w: u32): void { lowDp(DP_SUB, w & 7, reg(bits(w, 3, 3)), reg(bits(w, 6, 3)), 0); }
export function exec_ADD_imm_T1(w: u32): void { lowDp(DP_ADD, w & 7, reg(bits(w, 3, 3)), bits(w, 6, 3), 0); }
export function exec_SUB_imm_T1(w: u32): void { lowDp(DP_SUB, w & 7, reg(bits(w, 3, 3)), bits(w, 6, 3), 0); }
export function exec_MOV_imm_T1(w: u32): void { lowDp(DP_MOV, bits(w, 8, 3), 0, w & 0xff, st(FLAG_C)); }
export function exec_CMP_imm_T1(w: u32): void { dataProcessing(DP_CMP, 0, reg(bits(w, 8, 3)), w & 0xff, 0, true); }
export function exec_ADD_imm_T2(w: u32): void { const d = bits(w, 8, 3); lowDp(DP_ADD, d, reg(d), w & 0xff, 0); }
export function exec_SUB_imm_T2(w: u32): void { const d = bits(w, 8, 3); lowDp(DP_SUB, d, reg(d), w & 0xff, 0); }

// ---- A6.2.2 Data-processing (Rdn = Rdn op Rm) ----
@inline function lowDpReg(op: u32, w: u32): void {
  const d = w & 7;
  lowDp(op, d, reg(d), reg(bits(w, 3, 3)), st(FLAG_C));
}
@inline function shiftByReg(w: u32, type: u32): void {
  const d = w & 7;
  const v = shiftReg(reg(d), type, reg(bits(w, 3, 3)));
  lowDp(DP_MOV, d, 0, v, shCarry);
}
export function exec_AND_reg_T1(w: u32): void { lowDpReg(DP_AND, w); }
export function exec_EOR_reg_T1(w: u32): void { lowDpReg(DP_EOR, w); }
export function exec_LSL_reg_T1(w: u32): void { shiftByReg(w, 0); }
export function exec_LSR_reg_T1(w: u32): void { shiftByReg(w, 1); }
export function exec_ASR_reg_T1(w: u32): void { shiftByReg(w, 2); }
export function exec_ADC_reg_T1(w: u32): void { lowDpReg(DP_ADC, w); }
export function exec_SBC_reg_T1(w: u32): void { lowDpReg(DP_SBC, w); }
export function exec_ROR_reg_T1(w: u32): void { shiftByReg(w, 3); }
export function exec_TST_reg_T1(w: u32): void { dataProcessing(DP_TST, 0, reg(w & 7), reg(bits(w, 3, 3)), st(FLAG_C), true); }
export function exec_RSB_imm_T1(w: u32): void { lowDp(DP_RSB, w & 7, reg(bits(w, 3, 3)), 0, 0); }
export function exec_CMP_reg_T1(w: u32): void { dataProcessing(DP_CMP, 0, reg(w & 7), reg(bits(w, 3, 3)), 0, true); }
export function exec_CMN_reg_T1(w: u32): void { dataProcessing(DP_CMN, 0, reg(w & 7), reg(bits(w, 3, 3)), 0, true); }
export function exec_ORR_reg_T1(w: u32): void { lowDpReg(DP_ORR, w); }
export function exec_MUL_T1(w: u32): void { const d = w & 7; multiply(d, bits(w, 3, 3), d, 0, !inITBlock()); }
export function exec_BIC_reg_T1(w: u32): void { lowDpReg(DP_BIC, w); }
export function exec_MVN_reg_T1(w: u32): void { lowDp(DP_MVN, w & 7, 0, reg(bits(w, 3, 3)), st(FLAG_C)); }

// ---- A6.2.3 Special data instructions and branch and exchange (high registers) ----
export function exec_ADD_reg_T2(w: u32): void {
  const d = (bits(w, 7, 1) << 3) | (w & 7);
  dataProcessing(DP_ADD, d, reg(d), reg(bits(w, 3, 4)), 0, false);
}
export function exec_CMP_reg_T2(w: u32): void {
  dataProcessing(DP_CMP, 0, reg((bits(w, 7, 1) << 3) | (w & 7)), reg(bits(w, 3, 4)), 0, true);
}
export function exec_MOV_reg_T1(w: u32): void {
  dataProcessing(DP_MOV, (bits(w, 7, 1) << 3) | (w & 7), 0, reg(bits(w, 3, 4)), 0, false);
}
export function exec_BX_T1(w: u32): void { bxWritePc(reg(bits(w, 3, 4))); }
export function exec_BLX_reg_T1(w: u32): void {
  const target = reg(bits(w, 3, 4));
  setRegRaw(14, nextPc() | 1);
  bxWritePc(target);
}

// ---- A6.2.4 Load/store single data item ----
export function exec_LDR_lit_T1(w: u32): void { transfer(bits(w, 8, 3), 15, alignedPc(), (w & 0xff) << 2, true, true, false, 4, true, false, false); }
@inline function lowRegTransfer(w: u32, size: u32, load: bool, signed: bool): void {
  const n = bits(w, 3, 3);
  transfer(w & 7, n, reg(n), reg(bits(w, 6, 3)), true, true, false, size, load, signed, false);
}
export function exec_STR_reg_T1(w: u32): void { lowRegTransfer(w, 4, false, false); }
export function exec_STRH_reg_T1(w: u32): void { lowRegTransfer(w, 2, false, false); }
export function exec_STRB_reg_T1(w: u32): void { lowRegTransfer(w, 1, false, false); }
export function exec_LDRSB_reg_T1(w: u32): void { lowRegTransfer(w, 1, true, true); }
export function exec_LDR_reg_T1(w: u32): void { lowRegTransfer(w, 4, true, false); }
export function exec_LDRH_reg_T1(w: u32): void { lowRegTransfer(w, 2, true, false); }
export function exec_LDRB_reg_T1(w: u32): void { lowRegTransfer(w, 1, true, false); }
export function exec_LDRSH_reg_T1(w: u32): void { lowRegTransfer(w, 2, true, true); }
@inline function lowImmTransfer(w: u32, size: u32, load: bool): void {
  const n = bits(w, 3, 3);
  transfer(w & 7, n, reg(n), bits(w, 6, 5) * size, true, true, false, size, load, false, false);
}
export function exec_STR_imm_T1(w: u32): void { lowImmTransfer(w, 4, false); }
export function exec_LDR_imm_T1(w: u32): void { lowImmTransfer(w, 4, true); }
export function exec_STRB_imm_T1(w: u32): void { lowImmTransfer(w, 1, false); }
export function exec_LDRB_imm_T1(w: u32): void { lowImmTransfer(w, 1, true); }
export function exec_STRH_imm_T1(w: u32): void { lowImmTransfer(w, 2, false); }
export function exec_LDRH_imm_T1(w: u32): void { lowImmTransfer(w, 2, true); }
export function exec_STR_imm_T2(w: u32): void { transfer(bits(w, 8, 3), 13, reg(13), (w & 0xff) << 2, true, true, false, 4, false, false, false); }
export function exec_LDR_imm_T2(w: u32): void { transfer(bits(w, 8, 3), 13, reg(13), (w & 0xff) << 2, true, true, false, 4, true, false, false); }

// ---- PC- and SP-relative addresses, A6.2.5 miscellaneous ----
export function exec_ADR_T1(w: u32): void { setRegRaw(bits(w, 8, 3), alignedPc() + ((w & 0xff) << 2)); }
export function exec_ADD_sp_imm_T1(w: u32): void { setRegRaw(bits(w, 8, 3), reg(13) + ((w & 0xff) << 2)); }
export function exec_ADD_sp_imm_T2(w: u32): void { setRegRaw(13, reg(13) + ((w & 0x7f) << 2)); }
export function exec_SUB_sp_imm_T1(w: u32): void { setRegRaw(13, reg(13) - ((w & 0x7f) << 2)); }
export function exec_CBZ_T1(w: u32): void {
  const zero = reg(w & 7) == 0;
  if (zero != flag(w, 11)) branchWritePc(reg(15) + ((bits(w, 9, 1) << 6) | (bits(w, 3, 5) << 1)));
}
export function exec_SXTH_T1(w: u32): void { extend(w & 7, 15, bits(w, 3, 3), 0, EXTEND_SXTH); }
export function exec_SXTB_T1(w: u32): void { extend(w & 7, 15, bits(w, 3, 3), 0, EXTEND_SXTB); }
export function exec_UXTH_T1(w: u32): void { extend(w & 7, 15, bits(w, 3, 3), 0, EXTEND_UXTH); }
export function exec_UXTB_T1(w: u32): void { extend(w & 7, 15, bits(w, 3, 3), 0, EXTEND_UXTB); }
export function exec_PUSH_T1(w: u32): void { blockTransfer(13, (bits(w, 8, 1) << 14) | (w & 0xff), true, false, true, false, BLOCK_NORMAL); }
export function exec_SETEND_T1(w: u32): void { setEndianness(flag(w, 3)); }
export function exec_CPS_T1(w: u32): void { changeProcessorState(flag(w, 4) ? 3 : 2, false, flag(w, 2), flag(w, 1), flag(w, 0), 0); }
export function exec_REV_T1(w: u32): void { reverse(w & 7, bits(w, 3, 3), REVERSE_REV); }
export function exec_REV16_T1(w: u32): void { reverse(w & 7, bits(w, 3, 3), REVERSE_REV16); }
export function exec_REVSH_T1(w: u32): void { reverse(w & 7, bits(w, 3, 3), REVERSE_REVSH); }
export function exec_POP_T1(w: u32): void { blockTransfer(13, (bits(w, 8, 1) << 15) | (w & 0xff), false, true, true, true, BLOCK_NORMAL); }
export function exec_BKPT_T1(w: u32): void { raise(EXC_BKPT); }
/** IT (A8.8.54): the block's conditions and length become ITSTATE for the instructions that follow. */
export function exec_IT_T1(w: u32): void { setItState(w & 0xff); }
export function exec_NOP_T1(w: u32): void {}
export function exec_YIELD_T1(w: u32): void {}
export function exec_WFE_T1(w: u32): void {}
export function exec_WFI_T1(w: u32): void { raise(EXC_WFI); }
export function exec_SEV_T1(w: u32): void {}
export function exec_HINT_T1(w: u32): void {}

// ---- Load/store multiple, branches, exceptions (16-bit) ----
export function exec_STM_T1(w: u32): void { blockTransfer(bits(w, 8, 3), w & 0xff, false, true, true, false, BLOCK_NORMAL); }
export function exec_LDM_T1(w: u32): void {
  const n = bits(w, 8, 3);
  const list = w & 0xff;
  blockTransfer(n, list, false, true, (list & (1 << n)) == 0, true, BLOCK_NORMAL);
}
export function exec_B_T1(w: u32): void {
  if (conditionPassed(bits(w, 8, 4))) branchWritePc(reg(15) + u32(i32(w << 24) >> 23));
}
export function exec_UDF_T1(w: u32): void { raise(w == DTRACE_BREAKPOINT_T16 ? EXC_DTRACE : EXC_UNDEF); }
export function exec_SVC_T1(w: u32): void { raise(EXC_SVC); }
export function exec_B_T2(w: u32): void { branchWritePc(reg(15) + u32(i32(w << 21) >> 20)); }

// ---- A6.3.5 Load/store multiple ----
export function exec_SRS_T1(w: u32): void { storeReturnState(w & 0x1f, true, false, flag(w, 21)); }
export function exec_SRS_T2(w: u32): void { storeReturnState(w & 0x1f, false, true, flag(w, 21)); }
export function exec_RFE_T1(w: u32): void { returnFromException(wRn(w), true, false, flag(w, 21)); }
export function exec_RFE_T2(w: u32): void { returnFromException(wRn(w), false, true, flag(w, 21)); }
export function exec_STM_T2(w: u32): void { blockTransfer(wRn(w), w & 0xffff, false, true, flag(w, 21), false, BLOCK_NORMAL); }
export function exec_LDM_T2(w: u32): void { blockTransfer(wRn(w), w & 0xffff, false, true, flag(w, 21), true, BLOCK_NORMAL); }
export function exec_STMDB_T1(w: u32): void { blockTransfer(wRn(w), w & 0xffff, true, false, flag(w, 21), false, BLOCK_NORMAL); }
export function exec_LDMDB_T1(w: u32): void { blockTransfer(wRn(w), w & 0xffff, true, false, flag(w, 21), true, BLOCK_NORMAL); }

// ---- A6.3.6 Load/store dual, load/store exclusive, table branch ----
export function exec_STREX_T1(w: u32): void { storeExclusive(wRd(w), wRt(w), reg(wRn(w)) + ((w & 0xff) << 2), 4); }
export function exec_LDREX_T1(w: u32): void { loadExclusive(wRt(w), reg(wRn(w)) + ((w & 0xff) << 2), 4); }
@inline function dual(w: u32, load: bool): void {
  const index = flag(w, 24);
  const wback = flag(w, 21);
  if (!index && !wback) { raise(EXC_UNDEF); return; } // the exclusive and table-branch space
  const n = wRn(w);
  transferDouble(wRt(w), wRd(w), n, n == 15 ? alignedPc() : reg(n), (w & 0xff) << 2, flag(w, 23), index, wback, load);
}
export function exec_STRD_imm_T1(w: u32): void { dual(w, false); }
export function exec_LDRD_imm_T1(w: u32): void { dual(w, true); }
export function exec_STREXB_T1(w: u32): void { storeExclusive(wRm(w), wRt(w), reg(wRn(w)), 1); }
export function exec_STREXH_T1(w: u32): void { storeExclusive(wRm(w), wRt(w), reg(wRn(w)), 2); }
export function exec_STREXD_T1(w: u32): void { storeExclusiveDouble(wRm(w), wRt(w), wRd(w), wRn(w)); }
export function exec_LDREXB_T1(w: u32): void { loadExclusive(wRt(w), reg(wRn(w)), 1); }
export function exec_LDREXH_T1(w: u32): void { loadExclusive(wRt(w), reg(wRn(w)), 2); }
export function exec_LDREXD_T1(w: u32): void { loadExclusiveDouble(wRt(w), wRd(w), wRn(w)); }
/** TBB/TBH (A8.8.217): branch forward by twice the byte or halfword at Rn + Rm (x2 for TBH). */
@inline function tableBranch(w: u32, half: bool): void {
  const address = reg(wRn(w)) + (half ? reg(wRm(w)) << 1 : reg(wRm(w)));
  const entry = read(address, half ? 2 : 1);
  if (aborted) return;
  branchWritePc(reg(15) + (entry << 1));
}
export function exec_TBB_T1(w: u32): void { tableBranch(w, false); }
export function exec_TBH_T1(w: u32): void { tableBranch(w, true); }

// ---- A6.3.11 Data-processing (shifted register) ----
@inline function dpShifted(op: u32, w: u32, d: u32): void {
  const b = shiftImm(reg(wRm(w)), bits(w, 4, 2), imm3imm2(w));
  dataProcessing(op, d, reg(wRn(w)), b, shCarry, flag(w, 20));
}
export function exec_AND_reg_T2(w: u32): void { dpShifted(DP_AND, w, wRd(w)); }
export function exec_TST_reg_T2(w: u32): void { dpShifted(DP_TST, w, 0); }
export function exec_BIC_reg_T2(w: u32): void { dpShifted(DP_BIC, w, wRd(w)); }
export function exec_ORR_reg_T2(w: u32): void { dpShifted(DP_ORR, w, wRd(w)); }
export function exec_MOV_reg_T3(w: u32): void { dpShifted(DP_MOV, w, wRd(w)); }
export function exec_ORN_reg_T1(w: u32): void { dpShifted(DP_ORN, w, wRd(w)); }
export function exec_MVN_reg_T2(w: u32): void { dpShifted(DP_MVN, w, wRd(w)); }
export function exec_EOR_reg_T2(w: u32): void { dpShifted(DP_EOR, w, wRd(w)); }
export function exec_TEQ_reg_T1(w: u32): void { dpShifted(DP_TEQ, w, 0); }
export function exec_PKH_T1(w: u32): void { pack(wRd(w), wRn(w), wRm(w), flag(w, 5), imm3imm2(w)); }
export function exec_ADD_reg_T3(w: u32): void { dpShifted(DP_ADD, w, wRd(w)); }
export function exec_CMN_reg_T2(w: u32): void { dpShifted(DP_CMN, w, 0); }
export function exec_ADC_reg_T2(w: u32): void { dpShifted(DP_ADC, w, wRd(w)); }
export function exec_SBC_reg_T2(w: u32): void { dpShifted(DP_SBC, w, wRd(w)); }
export function exec_SUB_reg_T2(w: u32): void { dpShifted(DP_SUB, w, wRd(w)); }
export function exec_CMP_reg_T3(w: u32): void { dpShifted(DP_CMP, w, 0); }
export function exec_RSB_reg_T1(w: u32): void { dpShifted(DP_RSB, w, wRd(w)); }

// ---- A6.3.1 Data-processing (modified immediate) ----
@inline function dpModified(op: u32, w: u32, d: u32): void {
  const value = thumbExpandImm(w);
  dataProcessing(op, d, reg(wRn(w)), value, expandCarry, flag(w, 20));
}
export function exec_AND_imm_T1(w: u32): void { dpModified(DP_AND, w, wRd(w)); }
export function exec_TST_imm_T1(w: u32): void { dpModified(DP_TST, w, 0); }
export function exec_BIC_imm_T1(w: u32): void { dpModified(DP_BIC, w, wRd(w)); }
export function exec_ORR_imm_T1(w: u32): void { dpModified(DP_ORR, w, wRd(w)); }
export function exec_MOV_imm_T2(w: u32): void { dpModified(DP_MOV, w, wRd(w)); }
export function exec_ORN_imm_T1(w: u32): void { dpModified(DP_ORN, w, wRd(w)); }
export function exec_MVN_imm_T1(w: u32): void { dpModified(DP_MVN, w, wRd(w)); }
export function exec_EOR_imm_T1(w: u32): void { dpModified(DP_EOR, w, wRd(w)); }
export function exec_TEQ_imm_T1(w: u32): void { dpModified(DP_TEQ, w, 0); }
export function exec_ADD_imm_T3(w: u32): void { dpModified(DP_ADD, w, wRd(w)); }
export function exec_CMN_imm_T1(w: u32): void { dpModified(DP_CMN, w, 0); }
export function exec_ADC_imm_T1(w: u32): void { dpModified(DP_ADC, w, wRd(w)); }
export function exec_SBC_imm_T1(w: u32): void { dpModified(DP_SBC, w, wRd(w)); }
export function exec_SUB_imm_T3(w: u32): void { dpModified(DP_SUB, w, wRd(w)); }
export function exec_CMP_imm_T2(w: u32): void { dpModified(DP_CMP, w, 0); }
export function exec_RSB_imm_T2(w: u32): void { dpModified(DP_RSB, w, wRd(w)); }

// ---- A6.3.3 Data-processing (plain binary immediate) ----
export function exec_ADD_imm_T4(w: u32): void { setRegRaw(wRd(w), reg(wRn(w)) + imm12Plain(w)); }
export function exec_ADR_T3(w: u32): void { setRegRaw(wRd(w), alignedPc() + imm12Plain(w)); }
export function exec_SUB_imm_T4(w: u32): void { setRegRaw(wRd(w), reg(wRn(w)) - imm12Plain(w)); }
export function exec_ADR_T2(w: u32): void { setRegRaw(wRd(w), alignedPc() - imm12Plain(w)); }
@inline function imm16(w: u32): u32 { return (bits(w, 16, 4) << 12) | imm12Plain(w); }
export function exec_MOVW_T3(w: u32): void { setRegRaw(wRd(w), imm16(w)); }
export function exec_MOVT_T1(w: u32): void { const d = wRd(w); setRegRaw(d, (reg(d) & 0xffff) | (imm16(w) << 16)); }
export function exec_SSAT_T1(w: u32): void { saturate(wRd(w), wRn(w), (w & 31) + 1, bits(w, 21, 1) << 1, imm3imm2(w), true); }
export function exec_USAT_T1(w: u32): void { saturate(wRd(w), wRn(w), w & 31, bits(w, 21, 1) << 1, imm3imm2(w), false); }
export function exec_SSAT16_T1(w: u32): void { saturateHalves(wRd(w), wRn(w), (w & 15) + 1, true); }
export function exec_USAT16_T1(w: u32): void { saturateHalves(wRd(w), wRn(w), w & 15, false); }
export function exec_SBFX_T1(w: u32): void { bitfieldExtract(wRd(w), wRn(w), imm3imm2(w), (w & 31) + 1, true); }
export function exec_UBFX_T1(w: u32): void { bitfieldExtract(wRd(w), wRn(w), imm3imm2(w), (w & 31) + 1, false); }
export function exec_BFI_T1(w: u32): void { bitfieldInsert(wRd(w), reg(wRn(w)), imm3imm2(w), w & 31); }
export function exec_BFC_T1(w: u32): void { bitfieldInsert(wRd(w), 0, imm3imm2(w), w & 31); }

// ---- A6.3.4 Branches and miscellaneous control ----
/** I1:I2 = NOT(J1 XOR S):NOT(J2 XOR S), the sign S: the branch offset's top bits (B T4, BL, BLX). */
@inline function longOffset(w: u32, low: u32, lowBits: u32): u32 {
  const s = bits(w, 26, 1);
  const i1 = 1 ^ bits(w, 13, 1) ^ s;
  const i2 = 1 ^ bits(w, 11, 1) ^ s;
  const v = (s << 24) | (i1 << 23) | (i2 << 22) | (bits(w, 16, 10) << 12) | (low << (12 - lowBits));
  return u32(i32(v << 7) >> 7);
}
export function exec_B_T3(w: u32): void {
  const cond = bits(w, 22, 4);
  if (cond >= 14) { raise(EXC_UNDEF); return; } // the miscellaneous-control space
  const v = (bits(w, 26, 1) << 20) | (bits(w, 11, 1) << 19) | (bits(w, 13, 1) << 18) | (bits(w, 16, 6) << 12) | ((w & 0x7ff) << 1);
  if (conditionPassed(cond)) branchWritePc(reg(15) + u32(i32(v << 11) >> 11));
}
export function exec_B_T4(w: u32): void { branchWritePc(reg(15) + longOffset(w, w & 0x7ff, 11)); }
export function exec_BL_T1(w: u32): void {
  setRegRaw(14, nextPc() | 1);
  branchWritePc(reg(15) + longOffset(w, w & 0x7ff, 11));
}
export function exec_BLX_imm_T2(w: u32): void {
  if (w & 1) { raise(EXC_UNDEF); return; } // H = 1
  setRegRaw(14, nextPc() | 1);
  bxWritePc(alignedPc() + longOffset(w, bits(w, 1, 10), 10)); // bit 0 clear: the target is ARM code
}
export function exec_MSR_reg_T1(w: u32): void { psrWrite(bits(w, 8, 4), reg(wRn(w)), flag(w, 20)); }
export function exec_MSR_banked_T1(w: u32): void { bankedWrite(wRn(w), bits(w, 20, 1), bits(w, 4, 1), bits(w, 8, 4)); }
export function exec_CPS_T2(w: u32): void {
  changeProcessorState(bits(w, 9, 2), flag(w, 8), flag(w, 7), flag(w, 6), flag(w, 5), w & 0x1f);
}
export function exec_NOP_T2(w: u32): void {}
export function exec_YIELD_T2(w: u32): void {}
export function exec_WFE_T2(w: u32): void {}
export function exec_WFI_T2(w: u32): void { raise(EXC_WFI); }
export function exec_SEV_T2(w: u32): void {}
export function exec_DBG_T1(w: u32): void {}
export function exec_HINT_T2(w: u32): void {}
export function exec_CLREX_T1(w: u32): void { clearExclusive(); }
export function exec_DSB_T1(w: u32): void {}
export function exec_DMB_T1(w: u32): void {}
export function exec_ISB_T1(w: u32): void {}
export function exec_BXJ_T1(w: u32): void { bxWritePc(reg(wRn(w))); }
/** SUBS PC, LR, #imm8 (ERET when imm8 = 0): exception return. */
export function exec_SUBS_pc_lr_T1(w: u32): void { aluExceptionReturn(reg(14) - (w & 0xff)); }
export function exec_MRS_T1(w: u32): void { psrRead(wRd(w), flag(w, 20)); }
export function exec_MRS_banked_T1(w: u32): void { bankedRead(wRd(w), bits(w, 20, 1), bits(w, 4, 1), bits(w, 16, 4)); }
export function exec_UDF_T2(w: u32): void { raise(w == DTRACE_BREAKPOINT_T32 ? EXC_DTRACE : EXC_UNDEF); }

// ---- A6.3.7-10 Single loads and stores ----
/** A byte or halfword load to r15 is a memory hint (PLD/PLI or unallocated): a NOP. */
@inline function isHint(w: u32, size: u32, load: bool): bool {
  return load && size < 4 && wRt(w) == 15;
}
/** imm12 forms: offset addressing, positive offset; Rn = 15 is the literal form (loads) or UNDEFINED (stores). */
@inline function imm12Transfer(w: u32, size: u32, load: bool, signed: bool): void {
  if (isHint(w, size, load)) return;
  const n = wRn(w);
  if (n == 15 && !load) { raise(EXC_UNDEF); return; }
  transfer(wRt(w), n, n == 15 ? alignedPc() : reg(n), w & 0xfff, true, true, false, size, load, signed, false);
}
/** Literal forms: Align(PC, 4) +/- imm12. */
@inline function literalTransfer(w: u32, size: u32, signed: bool): void {
  if (isHint(w, size, true)) return;
  transfer(wRt(w), 15, alignedPc(), w & 0xfff, flag(w, 23), true, false, size, true, signed, false);
}
/** imm8 forms with P, U, W (bits 10, 9, 8): P = W = 0 is UNDEFINED; a load from Rn = 15 is the literal form. */
@inline function imm8Transfer(w: u32, size: u32, load: bool, signed: bool): void {
  if (isHint(w, size, load)) return;
  const n = wRn(w);
  if (n == 15 && load) { literalTransfer(w, size, signed); return; }
  const index = flag(w, 10);
  const wback = flag(w, 8);
  if ((!index && !wback) || n == 15) { raise(EXC_UNDEF); return; }
  transfer(wRt(w), n, reg(n), w & 0xff, flag(w, 9), index, wback, size, load, signed, false);
}
/** The unprivileged forms (LDRT and friends): Rn + imm8, no writeback, User permissions. */
@inline function unprivilegedTransfer(w: u32, size: u32, load: bool, signed: bool): void {
  const n = wRn(w);
  if (n == 15 && load) { literalTransfer(w, size, signed); return; }
  if (n == 15) { raise(EXC_UNDEF); return; }
  transfer(wRt(w), n, reg(n), w & 0xff, true, true, false, size, load, signed, true);
}
/** Register forms: Rn + (Rm << imm2). */
@inline function regTransfer(w: u32, size: u32, load: bool, signed: bool): void {
  if (isHint(w, size, load)) return;
  const n = wRn(w);
  if (n == 15 && load) { literalTransfer(w, size, signed); return; }
  if (n == 15) { raise(EXC_UNDEF); return; }
  transfer(wRt(w), n, reg(n), reg(wRm(w)) << bits(w, 4, 2), true, true, false, size, load, signed, false);
}
export function exec_STRB_imm_T2(w: u32): void { imm12Transfer(w, 1, false, false); }
export function exec_STRB_imm_T3(w: u32): void { imm8Transfer(w, 1, false, false); }
export function exec_STRBT_T1(w: u32): void { unprivilegedTransfer(w, 1, false, false); }
export function exec_STRB_reg_T2(w: u32): void { regTransfer(w, 1, false, false); }
export function exec_STRH_imm_T2(w: u32): void { imm12Transfer(w, 2, false, false); }
export function exec_STRH_imm_T3(w: u32): void { imm8Transfer(w, 2, false, false); }
export function exec_STRHT_T1(w: u32): void { unprivilegedTransfer(w, 2, false, false); }
export function exec_STRH_reg_T2(w: u32): void { regTransfer(w, 2, false, false); }
export function exec_STR_imm_T3(w: u32): void { imm12Transfer(w, 4, false, false); }
export function exec_STR_imm_T4(w: u32): void { imm8Transfer(w, 4, false, false); }
export function exec_STRT_T1(w: u32): void { unprivilegedTransfer(w, 4, false, false); }
export function exec_STR_reg_T2(w: u32): void { regTransfer(w, 4, false, false); }
export function exec_LDRB_lit_T1(w: u32): void { literalTransfer(w, 1, false); }
export function exec_LDRB_imm_T2(w: u32): void { imm12Transfer(w, 1, true, false); }
export function exec_LDRB_imm_T3(w: u32): void { imm8Transfer(w, 1, true, false); }
export function exec_LDRBT_T1(w: u32): void { unprivilegedTransfer(w, 1, true, false); }
export function exec_LDRB_reg_T2(w: u32): void { regTransfer(w, 1, true, false); }
export function exec_LDRSB_lit_T1(w: u32): void { literalTransfer(w, 1, true); }
export function exec_LDRSB_imm_T1(w: u32): void { imm12Transfer(w, 1, true, true); }
export function exec_LDRSB_imm_T2(w: u32): void { imm8Transfer(w, 1, true, true); }
export function exec_LDRSBT_T1(w: u32): void { unprivilegedTransfer(w, 1, true, true); }
export function exec_LDRSB_reg_T2(w: u32): void { regTransfer(w, 1, true, true); }
export function exec_PLD_lit_T1(w: u32): void {}
export function exec_PLD_imm_T1(w: u32): void {}
export function exec_PLD_imm_T2(w: u32): void {}
export function exec_PLD_reg_T1(w: u32): void {}
export function exec_PLI_lit_T3(w: u32): void {}
export function exec_PLI_imm_T1(w: u32): void {}
export function exec_PLI_imm_T2(w: u32): void {}
export function exec_PLI_reg_T1(w: u32): void {}
export function exec_LDRH_lit_T1(w: u32): void { literalTransfer(w, 2, false); }
export function exec_LDRH_imm_T2(w: u32): void { imm12Transfer(w, 2, true, false); }
export function exec_LDRH_imm_T3(w: u32): void { imm8Transfer(w, 2, true, false); }
export function exec_LDRHT_T1(w: u32): void { unprivilegedTransfer(w, 2, true, false); }
export function exec_LDRH_reg_T2(w: u32): void { regTransfer(w, 2, true, false); }
export function exec_LDRSH_lit_T1(w: u32): void { literalTransfer(w, 2, true); }
export function exec_LDRSH_imm_T1(w: u32): void { imm12Transfer(w, 2, true, true); }
export function exec_LDRSH_imm_T2(w: u32): void { imm8Transfer(w, 2, true, true); }
export function exec_LDRSHT_T1(w: u32): void { unprivilegedTransfer(w, 2, true, true); }
export function exec_LDRSH_reg_T2(w: u32): void { regTransfer(w, 2, true, true); }
export function exec_LDR_lit_T2(w: u32): void { literalTransfer(w, 4, false); }
export function exec_LDR_imm_T3(w: u32): void { imm12Transfer(w, 4, true, false); }
export function exec_LDR_imm_T4(w: u32): void { imm8Transfer(w, 4, true, false); }
export function exec_LDRT_T1(w: u32): void { unprivilegedTransfer(w, 4, true, false); }
export function exec_LDR_reg_T2(w: u32): void { regTransfer(w, 4, true, false); }

// ---- A6.3.12 Data-processing (register): shifts by a register, extends ----
@inline function shiftByRegWide(w: u32, type: u32): void {
  const v = shiftReg(reg(wRn(w)), type, reg(wRm(w)));
  dataProcessing(DP_MOV, wRd(w), 0, v, shCarry, flag(w, 20));
}
export function exec_LSL_reg_T2(w: u32): void { shiftByRegWide(w, 0); }
export function exec_LSR_reg_T2(w: u32): void { shiftByRegWide(w, 1); }
export function exec_ASR_reg_T2(w: u32): void { shiftByRegWide(w, 2); }
export function exec_ROR_reg_T2(w: u32): void { shiftByRegWide(w, 3); }
@inline function extendWide(w: u32, kind: u32): void { extend(wRd(w), wRn(w), wRm(w), bits(w, 4, 2) << 3, kind); }
export function exec_SXTAH_T1(w: u32): void { extendWide(w, EXTEND_SXTH); }
export function exec_SXTH_T2(w: u32): void { extendWide(w, EXTEND_SXTH); }
export function exec_UXTAH_T1(w: u32): void { extendWide(w, EXTEND_UXTH); }
export function exec_UXTH_T2(w: u32): void { extendWide(w, EXTEND_UXTH); }
export function exec_SXTAB16_T1(w: u32): void { extendWide(w, EXTEND_SXTB16); }
export function exec_SXTB16_T1(w: u32): void { extendWide(w, EXTEND_SXTB16); }
export function exec_UXTAB16_T1(w: u32): void { extendWide(w, EXTEND_UXTB16); }
export function exec_UXTB16_T1(w: u32): void { extendWide(w, EXTEND_UXTB16); }
export function exec_SXTAB_T1(w: u32): void { extendWide(w, EXTEND_SXTB); }
export function exec_SXTB_T2(w: u32): void { extendWide(w, EXTEND_SXTB); }
export function exec_UXTAB_T1(w: u32): void { extendWide(w, EXTEND_UXTB); }
export function exec_UXTB_T2(w: u32): void { extendWide(w, EXTEND_UXTB); }

// ---- A6.3.13-14 Parallel addition and subtraction: kind S Q SH U UQ UH, op as A32 ----
@inline function parallelWide(w: u32, kind: u32, op: u32): void { parallel(wRd(w), wRn(w), wRm(w), kind, op); }
export function exec_SADD8_T1(w: u32): void { parallelWide(w, 0, 4); }
export function exec_SADD16_T1(w: u32): void { parallelWide(w, 0, 0); }
export function exec_SASX_T1(w: u32): void { parallelWide(w, 0, 1); }
export function exec_SSUB8_T1(w: u32): void { parallelWide(w, 0, 7); }
export function exec_SSUB16_T1(w: u32): void { parallelWide(w, 0, 3); }
export function exec_SSAX_T1(w: u32): void { parallelWide(w, 0, 2); }
export function exec_QADD8_T1(w: u32): void { parallelWide(w, 1, 4); }
export function exec_QADD16_T1(w: u32): void { parallelWide(w, 1, 0); }
export function exec_QASX_T1(w: u32): void { parallelWide(w, 1, 1); }
export function exec_QSUB8_T1(w: u32): void { parallelWide(w, 1, 7); }
export function exec_QSUB16_T1(w: u32): void { parallelWide(w, 1, 3); }
export function exec_QSAX_T1(w: u32): void { parallelWide(w, 1, 2); }
export function exec_SHADD8_T1(w: u32): void { parallelWide(w, 2, 4); }
export function exec_SHADD16_T1(w: u32): void { parallelWide(w, 2, 0); }
export function exec_SHASX_T1(w: u32): void { parallelWide(w, 2, 1); }
export function exec_SHSUB8_T1(w: u32): void { parallelWide(w, 2, 7); }
export function exec_SHSUB16_T1(w: u32): void { parallelWide(w, 2, 3); }
export function exec_SHSAX_T1(w: u32): void { parallelWide(w, 2, 2); }
export function exec_UADD8_T1(w: u32): void { parallelWide(w, 3, 4); }
export function exec_UADD16_T1(w: u32): void { parallelWide(w, 3, 0); }
export function exec_UASX_T1(w: u32): void { parallelWide(w, 3, 1); }
export function exec_USUB8_T1(w: u32): void { parallelWide(w, 3, 7); }
export function exec_USUB16_T1(w: u32): void { parallelWide(w, 3, 3); }
export function exec_USAX_T1(w: u32): void { parallelWide(w, 3, 2); }
export function exec_UQADD8_T1(w: u32): void { parallelWide(w, 4, 4); }
export function exec_UQADD16_T1(w: u32): void { parallelWide(w, 4, 0); }
export function exec_UQASX_T1(w: u32): void { parallelWide(w, 4, 1); }
export function exec_UQSUB8_T1(w: u32): void { parallelWide(w, 4, 7); }
export function exec_UQSUB16_T1(w: u32): void { parallelWide(w, 4, 3); }
export function exec_UQSAX_T1(w: u32): void { parallelWide(w, 4, 2); }
export function exec_UHADD8_T1(w: u32): void { parallelWide(w, 5, 4); }
export function exec_UHADD16_T1(w: u32): void { parallelWide(w, 5, 0); }
export function exec_UHASX_T1(w: u32): void { parallelWide(w, 5, 1); }
export function exec_UHSUB8_T1(w: u32): void { parallelWide(w, 5, 7); }
export function exec_UHSUB16_T1(w: u32): void { parallelWide(w, 5, 3); }
export function exec_UHSAX_T1(w: u32): void { parallelWide(w, 5, 2); }

// ---- A6.3.15 Miscellaneous operations ----
export function exec_QADD_T1(w: u32): void { saturatingArithmetic(wRd(w), wRm(w), wRn(w), false, false); }
export function exec_QDADD_T1(w: u32): void { saturatingArithmetic(wRd(w), wRm(w), wRn(w), true, false); }
export function exec_QSUB_T1(w: u32): void { saturatingArithmetic(wRd(w), wRm(w), wRn(w), false, true); }
export function exec_QDSUB_T1(w: u32): void { saturatingArithmetic(wRd(w), wRm(w), wRn(w), true, true); }
export function exec_REV_T2(w: u32): void { reverse(wRd(w), wRm(w), REVERSE_REV); }
export function exec_REV16_T2(w: u32): void { reverse(wRd(w), wRm(w), REVERSE_REV16); }
export function exec_RBIT_T1(w: u32): void { reverse(wRd(w), wRm(w), REVERSE_RBIT); }
export function exec_REVSH_T2(w: u32): void { reverse(wRd(w), wRm(w), REVERSE_REVSH); }
export function exec_SEL_T1(w: u32): void { select(wRd(w), wRn(w), wRm(w)); }
export function exec_CLZ_T1(w: u32): void { reverse(wRd(w), wRm(w), REVERSE_CLZ); }

// ---- A6.3.16 Multiply, multiply accumulate, absolute difference: Ra 15:12, Rd 11:8 ----
export function exec_MLA_T1(w: u32): void { multiply(wRd(w), wRn(w), wRm(w), reg(wRt(w)), false); }
export function exec_MUL_T2(w: u32): void { multiply(wRd(w), wRn(w), wRm(w), 0, false); }
export function exec_MLS_T1(w: u32): void { multiplySubtract(wRd(w), wRn(w), wRm(w), wRt(w)); }
export function exec_SMLAxy_T1(w: u32): void { multiplyHalves(wRd(w), wRn(w), wRm(w), wRt(w), flag(w, 5), flag(w, 4), true); }
export function exec_SMULxy_T1(w: u32): void { multiplyHalves(wRd(w), wRn(w), wRm(w), 0, flag(w, 5), flag(w, 4), false); }
export function exec_SMLAD_T1(w: u32): void { multiplyDual(wRd(w), wRn(w), wRm(w), wRt(w), flag(w, 4), false, true); }
export function exec_SMUAD_T1(w: u32): void { multiplyDual(wRd(w), wRn(w), wRm(w), 0, flag(w, 4), false, false); }
export function exec_SMLAWy_T1(w: u32): void { multiplyWordHalf(wRd(w), wRn(w), wRm(w), wRt(w), flag(w, 4), true); }
export function exec_SMULWy_T1(w: u32): void { multiplyWordHalf(wRd(w), wRn(w), wRm(w), 0, flag(w, 4), false); }
export function exec_SMLSD_T1(w: u32): void { multiplyDual(wRd(w), wRn(w), wRm(w), wRt(w), flag(w, 4), true, true); }
export function exec_SMUSD_T1(w: u32): void { multiplyDual(wRd(w), wRn(w), wRm(w), 0, flag(w, 4), true, false); }
export function exec_SMMLA_T1(w: u32): void { multiplyMostSignificant(wRd(w), wRn(w), wRm(w), wRt(w), true, false, flag(w, 4)); }
export function exec_SMMUL_T1(w: u32): void { multiplyMostSignificant(wRd(w), wRn(w), wRm(w), 0, false, false, flag(w, 4)); }
export function exec_SMMLS_T1(w: u32): void { multiplyMostSignificant(wRd(w), wRn(w), wRm(w), wRt(w), true, true, flag(w, 4)); }
export function exec_USADA8_T1(w: u32): void { sumAbsoluteDifferences(wRd(w), wRn(w), wRm(w), wRt(w), true); }
export function exec_USAD8_T1(w: u32): void { sumAbsoluteDifferences(wRd(w), wRn(w), wRm(w), 0, false); }

// ---- A6.3.17 Long multiply, long multiply accumulate, divide: RdLo 15:12, RdHi 11:8 ----
export function exec_SMULL_T1(w: u32): void { multiplyLong(LONG_SMULL, wRt(w), wRd(w), wRn(w), wRm(w), false); }
export function exec_SDIV_T1(w: u32): void { divide(wRd(w), wRn(w), wRm(w), true); }
export function exec_UMULL_T1(w: u32): void { multiplyLong(LONG_UMULL, wRt(w), wRd(w), wRn(w), wRm(w), false); }
export function exec_UDIV_T1(w: u32): void { divide(wRd(w), wRn(w), wRm(w), false); }
export function exec_SMLAL_T1(w: u32): void { multiplyLong(LONG_SMLAL, wRt(w), wRd(w), wRn(w), wRm(w), false); }
export function exec_SMLALxy_T1(w: u32): void { multiplyHalvesLong(wRt(w), wRd(w), wRn(w), wRm(w), flag(w, 5), flag(w, 4)); }
export function exec_SMLALD_T1(w: u32): void { multiplyDualLong(wRt(w), wRd(w), wRn(w), wRm(w), flag(w, 4), false); }
export function exec_SMLSLD_T1(w: u32): void { multiplyDualLong(wRt(w), wRd(w), wRn(w), wRm(w), flag(w, 4), true); }
export function exec_UMLAL_T1(w: u32): void { multiplyLong(LONG_UMLAL, wRt(w), wRd(w), wRn(w), wRm(w), false); }
export function exec_UMAAL_T1(w: u32): void { multiplyAccumulateAccumulate(wRt(w), wRd(w), wRn(w), wRm(w)); }

// ---- A6.3.18 Coprocessors: CP15 only ----
export function exec_MCR_T1(w: u32): void { coprocessorTransfer(w, true); }
export function exec_MRC_T1(w: u32): void { coprocessorTransfer(w, false); }

// ---- VFP (A7): the fields sit at the same bits in both sets; see vfp.ts ----
export function exec_VSTMIA_T1(w: u32): void { V.VSTMIA(w); }
export function exec_VSTMDB_T1(w: u32): void { V.VSTMDB(w); }
export function exec_VSTR_T1(w: u32): void { V.VSTR(w); }
export function exec_VLDMIA_T1(w: u32): void { V.VLDMIA(w); }
export function exec_VLDMDB_T1(w: u32): void { V.VLDMDB(w); }
export function exec_VLDR_T1(w: u32): void { V.VLDR(w); }
export function exec_VMOV_2s_T1(w: u32): void { V.VMOV_2s(w); }
export function exec_VMOV_d_T1(w: u32): void { V.VMOV_d(w); }
export function exec_VMOV_s_T1(w: u32): void { V.VMOV_s(w); }
export function exec_VMSR_T1(w: u32): void { V.VMSR(w); }
export function exec_VMRS_T1(w: u32): void { V.VMRS(w); }
export function exec_VMOV_to_scalar_T1(w: u32): void { V.VMOV_to_scalar(w); }
export function exec_VMOV_from_scalar_T1(w: u32): void { V.VMOV_from_scalar(w); }
export function exec_VMLA_T1(w: u32): void { V.VMLA(w); }
export function exec_VMLS_T1(w: u32): void { V.VMLS(w); }
export function exec_VNMLS_T1(w: u32): void { V.VNMLS(w); }
export function exec_VNMLA_T1(w: u32): void { V.VNMLA(w); }
export function exec_VMUL_T1(w: u32): void { V.VMUL(w); }
export function exec_VNMUL_T1(w: u32): void { V.VNMUL(w); }
export function exec_VADD_T1(w: u32): void { V.VADD(w); }
export function exec_VSUB_T1(w: u32): void { V.VSUB(w); }
export function exec_VDIV_T1(w: u32): void { V.VDIV(w); }
export function exec_VMOV_imm_T1(w: u32): void { V.VMOV_imm(w); }
export function exec_VMOV_reg_T1(w: u32): void { V.VMOV_reg(w); }
export function exec_VABS_T1(w: u32): void { V.VABS(w); }
export function exec_VNEG_T1(w: u32): void { V.VNEG(w); }
export function exec_VSQRT_T1(w: u32): void { V.VSQRT(w); }
export function exec_VCMP_T1(w: u32): void { V.VCMP(w); }
export function exec_VCMP_zero_T1(w: u32): void { V.VCMP_zero(w); }
export function exec_VCVT_ds_T1(w: u32): void { V.VCVT_ds(w); }
export function exec_VCVT_from_int_T1(w: u32): void { V.VCVT_from_int(w); }
export function exec_VCVT_fixed_T1(w: u32): void { V.VCVT_fixed(w); }
export function exec_VCVT_to_int_T1(w: u32): void { V.VCVT_to_int(w); }
