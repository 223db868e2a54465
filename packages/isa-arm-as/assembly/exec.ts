// A32 instruction handlers: one per line of encodings/a32.decode, named
// exec_<NAME>, each taking the instruction word (its condition has already
// passed). A handler extracts its encoding's fields and calls the shared
// operation in semantics.ts; the generated dispatch table maps decoder ids
// to these handlers, and a line without a handler executes as UNDEFINED.
// Pseudocode references are to the ARM ARM (DDI 0406C) A8.8 pages.
import { reg, setRegRaw, st, FLAG_C, EXCL_OPEN, setSt } from './state';
import { read, write, aborted } from './memory';
import { expandImmediate } from './shifter';
import {
  raise, EXC_UNDEF, EXC_SVC, EXC_BKPT, EXC_DTRACE, EXC_WFI, curPc, shCarry, shiftImm, shiftReg, shiftNoCarry, dataProcessing, bxWritePc, branchWritePc,
  psrWrite, psrRead, bankedRead, bankedWrite, changeProcessorState, setEndianness, multiply, multiplySubtract, multiplyLong, multiplyAccumulateAccumulate,
  multiplyHalves, multiplyWordHalf, multiplyHalvesLong, multiplyDual, multiplyDualLong, multiplyMostSignificant, divide, saturatingArithmetic, saturate,
  saturateHalves, parallel, select, sumAbsoluteDifferences, pack, extend, reverse, bitfieldExtract, bitfieldInsert, transfer, transferDouble, blockTransfer,
  loadExclusive, storeExclusive, loadExclusiveDouble, storeExclusiveDouble, clearExclusive, storeReturnState, returnFromException, coprocessorTransfer,
  alignmentFault, LONG_UMULL, LONG_UMLAL, LONG_SMULL, LONG_SMLAL, EXTEND_SXTB, EXTEND_SXTH, EXTEND_UXTB, EXTEND_UXTH, EXTEND_SXTB16, EXTEND_UXTB16,
  REVERSE_REV, REVERSE_REV16, REVERSE_REVSH, REVERSE_RBIT, REVERSE_CLZ, BLOCK_NORMAL, BLOCK_USER, BLOCK_RETURN,
} from './semantics';
import * as V from './vfp';

/** The DTrace fbt breakpoint (NetBSD/FreeBSD FBT_BREAKPOINT, a UDF encoding) with the displaced condition in bits 3:0. */
export const DTRACE_BREAKPOINT: u32 = 0xe7f000f0;

// ---- Field extractors ----
@inline function fRd(w: u32): u32 { return (w >>> 12) & 15; }
@inline function fRn(w: u32): u32 { return (w >>> 16) & 15; }
@inline function fRm(w: u32): u32 { return w & 15; }
@inline function fRs(w: u32): u32 { return (w >>> 8) & 15; }
@inline function bit(w: u32, n: u32): u32 { return (w >>> n) & 1; }
@inline function flag(w: u32, n: u32): bool { return ((w >>> n) & 1) != 0; }

/** A32's write of a general register: r15 is ALUWritePC (interworking). */
@inline function setReg(n: u32, v: u32): void {
  if (n == 15) bxWritePc(v);
  else setRegRaw(n, v);
}

export function exec_UNDEFINED(w: u32): void {
  raise(EXC_UNDEF);
}

// ---- Data processing (A5.2.1-A5.2.3) ----
@inline function dpImm(op: u32, w: u32): void {
  const imm12 = w & 0xfff;
  const value = expandImmediate(imm12);
  const carry = (imm12 & 0xf00) == 0 ? st(FLAG_C) : value >>> 31;
  dataProcessing(op, fRd(w), reg(fRn(w)), value, carry, flag(w, 20));
}
@inline function dpReg(op: u32, w: u32): void {
  const b = shiftImm(reg(fRm(w)), (w >>> 5) & 3, (w >>> 7) & 31);
  dataProcessing(op, fRd(w), reg(fRn(w)), b, shCarry, flag(w, 20));
}
@inline function dpRsr(op: u32, w: u32): void {
  const b = shiftReg(reg(fRm(w)), (w >>> 5) & 3, reg(fRs(w)));
  dataProcessing(op, fRd(w), reg(fRn(w)), b, shCarry, flag(w, 20));
}

export function exec_AND_imm(w: u32): void { dpImm(0, w); }
export function exec_EOR_imm(w: u32): void { dpImm(1, w); }
export function exec_SUB_imm(w: u32): void { dpImm(2, w); }
export function exec_RSB_imm(w: u32): void { dpImm(3, w); }
export function exec_ADD_imm(w: u32): void { dpImm(4, w); }
export function exec_ADC_imm(w: u32): void { dpImm(5, w); }
export function exec_SBC_imm(w: u32): void { dpImm(6, w); }
export function exec_RSC_imm(w: u32): void { dpImm(7, w); }
export function exec_TST_imm(w: u32): void { dpImm(8, w); }
export function exec_TEQ_imm(w: u32): void { dpImm(9, w); }
export function exec_CMP_imm(w: u32): void { dpImm(10, w); }
export function exec_CMN_imm(w: u32): void { dpImm(11, w); }
export function exec_ORR_imm(w: u32): void { dpImm(12, w); }
export function exec_MOV_imm(w: u32): void { dpImm(13, w); }
export function exec_BIC_imm(w: u32): void { dpImm(14, w); }
export function exec_MVN_imm(w: u32): void { dpImm(15, w); }
export function exec_AND_reg(w: u32): void { dpReg(0, w); }
export function exec_EOR_reg(w: u32): void { dpReg(1, w); }
export function exec_SUB_reg(w: u32): void { dpReg(2, w); }
export function exec_RSB_reg(w: u32): void { dpReg(3, w); }
export function exec_ADD_reg(w: u32): void { dpReg(4, w); }
export function exec_ADC_reg(w: u32): void { dpReg(5, w); }
export function exec_SBC_reg(w: u32): void { dpReg(6, w); }
export function exec_RSC_reg(w: u32): void { dpReg(7, w); }
export function exec_TST_reg(w: u32): void { dpReg(8, w); }
export function exec_TEQ_reg(w: u32): void { dpReg(9, w); }
export function exec_CMP_reg(w: u32): void { dpReg(10, w); }
export function exec_CMN_reg(w: u32): void { dpReg(11, w); }
export function exec_ORR_reg(w: u32): void { dpReg(12, w); }
export function exec_MOV_reg(w: u32): void { dpReg(13, w); }
export function exec_BIC_reg(w: u32): void { dpReg(14, w); }
export function exec_MVN_reg(w: u32): void { dpReg(15, w); }
export function exec_AND_rsr(w: u32): void { dpRsr(0, w); }
export function exec_EOR_rsr(w: u32): void { dpRsr(1, w); }
export function exec_SUB_rsr(w: u32): void { dpRsr(2, w); }
export function exec_RSB_rsr(w: u32): void { dpRsr(3, w); }
export function exec_ADD_rsr(w: u32): void { dpRsr(4, w); }
export function exec_ADC_rsr(w: u32): void { dpRsr(5, w); }
export function exec_SBC_rsr(w: u32): void { dpRsr(6, w); }
export function exec_RSC_rsr(w: u32): void { dpRsr(7, w); }
export function exec_TST_rsr(w: u32): void { dpRsr(8, w); }
export function exec_TEQ_rsr(w: u32): void { dpRsr(9, w); }
export function exec_CMP_rsr(w: u32): void { dpRsr(10, w); }
export function exec_CMN_rsr(w: u32): void { dpRsr(11, w); }
export function exec_ORR_rsr(w: u32): void { dpRsr(12, w); }
export function exec_MOV_rsr(w: u32): void { dpRsr(13, w); }
export function exec_BIC_rsr(w: u32): void { dpRsr(14, w); }
export function exec_MVN_rsr(w: u32): void { dpRsr(15, w); }

export function exec_MOVW(w: u32): void {
  setReg(fRd(w), ((w >>> 4) & 0xf000) | (w & 0xfff));
}
export function exec_MOVT(w: u32): void {
  const d = fRd(w);
  setReg(d, (reg(d) & 0xffff) | (((w >>> 4) & 0xf000) | (w & 0xfff)) << 16);
}

// ---- Hints, barriers ----
export function exec_NOP(w: u32): void {}
export function exec_YIELD(w: u32): void {}
export function exec_WFE(w: u32): void {}
export function exec_SEV(w: u32): void {}
export function exec_DBG(w: u32): void {}
export function exec_HINT(w: u32): void {}
export function exec_WFI(w: u32): void { raise(EXC_WFI); }
export function exec_DMB(w: u32): void {}
export function exec_DSB(w: u32): void {}
export function exec_ISB(w: u32): void {}
export function exec_PLD_imm(w: u32): void {}
export function exec_PLD_reg(w: u32): void {}
export function exec_PLI_imm(w: u32): void {}
export function exec_PLI_reg(w: u32): void {}
export function exec_CLREX(w: u32): void { clearExclusive(); }
export function exec_SETEND(w: u32): void { setEndianness(flag(w, 9)); }

// ---- Status registers (B9.3) ----
export function exec_MSR_imm(w: u32): void { psrWrite((w >>> 16) & 15, expandImmediate(w & 0xfff), flag(w, 22)); }
export function exec_MSR_reg(w: u32): void { psrWrite((w >>> 16) & 15, reg(fRm(w)), flag(w, 22)); }
export function exec_MRS(w: u32): void { psrRead(fRd(w), flag(w, 22)); }
export function exec_MRS_banked(w: u32): void { bankedRead(fRd(w), bit(w, 22), bit(w, 8), fRn(w)); }
export function exec_MSR_banked(w: u32): void { bankedWrite(fRm(w), bit(w, 22), bit(w, 8), fRn(w)); }
export function exec_CPS(w: u32): void { changeProcessorState((w >>> 18) & 3, flag(w, 17), flag(w, 8), flag(w, 7), flag(w, 6), w & 0x1f); }

// ---- Branches (A8.8.18, A8.8.25-27) ----
export function exec_B(w: u32): void {
  branchWritePc(reg(15) + u32(i32(w << 8) >> 6));
}
export function exec_BL(w: u32): void {
  setRegRaw(14, curPc + 4);
  branchWritePc(reg(15) + u32(i32(w << 8) >> 6));
}
export function exec_BLX_imm(w: u32): void {
  // Switches to Thumb: the target is executed in Thumb state.
  setRegRaw(14, curPc + 4);
  const target = reg(15) + u32(i32(w << 8) >> 6) + (bit(w, 24) << 1);
  bxWritePc(target | 1);
}
export function exec_BX(w: u32): void {
  bxWritePc(reg(fRm(w)));
}
export function exec_BLX_reg(w: u32): void {
  const target = reg(fRm(w));
  setRegRaw(14, curPc + 4);
  bxWritePc(target);
}
export function exec_BXJ(w: u32): void {
  // No Jazelle: BXJ behaves as BX (A8.8.28 with a trivial Jazelle implementation).
  bxWritePc(reg(fRm(w)));
}

// ---- Multiplies (A5.2.5, A5.2.7, A5.4.4): Rd 19:16, Ra 15:12, Rm 11:8, Rn 3:0 ----
export function exec_MUL(w: u32): void { multiply(fRn(w), fRm(w), fRs(w), 0, flag(w, 20)); }
export function exec_MLA(w: u32): void { multiply(fRn(w), fRm(w), fRs(w), reg(fRd(w)), flag(w, 20)); }
export function exec_MLS(w: u32): void { multiplySubtract(fRn(w), fRm(w), fRs(w), fRd(w)); }
export function exec_UMULL(w: u32): void { multiplyLong(LONG_UMULL, fRd(w), fRn(w), fRm(w), fRs(w), flag(w, 20)); }
export function exec_UMLAL(w: u32): void { multiplyLong(LONG_UMLAL, fRd(w), fRn(w), fRm(w), fRs(w), flag(w, 20)); }
export function exec_SMULL(w: u32): void { multiplyLong(LONG_SMULL, fRd(w), fRn(w), fRm(w), fRs(w), flag(w, 20)); }
export function exec_SMLAL(w: u32): void { multiplyLong(LONG_SMLAL, fRd(w), fRn(w), fRm(w), fRs(w), flag(w, 20)); }
export function exec_UMAAL(w: u32): void { multiplyAccumulateAccumulate(fRd(w), fRn(w), fRm(w), fRs(w)); }
export function exec_SMLAxy(w: u32): void { multiplyHalves(fRn(w), fRm(w), fRs(w), fRd(w), flag(w, 5), flag(w, 6), true); }
export function exec_SMULxy(w: u32): void { multiplyHalves(fRn(w), fRm(w), fRs(w), 0, flag(w, 5), flag(w, 6), false); }
export function exec_SMULWy(w: u32): void { multiplyWordHalf(fRn(w), fRm(w), fRs(w), 0, flag(w, 6), false); }
export function exec_SMLAWy(w: u32): void { multiplyWordHalf(fRn(w), fRm(w), fRs(w), fRd(w), flag(w, 6), true); }
export function exec_SMLALxy(w: u32): void { multiplyHalvesLong(fRd(w), fRn(w), fRm(w), fRs(w), flag(w, 5), flag(w, 6)); }
export function exec_SMLAD(w: u32): void { multiplyDual(fRn(w), fRm(w), fRs(w), fRd(w), flag(w, 5), false, true); }
export function exec_SMUAD(w: u32): void { multiplyDual(fRn(w), fRm(w), fRs(w), 0, flag(w, 5), false, false); }
export function exec_SMLSD(w: u32): void { multiplyDual(fRn(w), fRm(w), fRs(w), fRd(w), flag(w, 5), true, true); }
export function exec_SMUSD(w: u32): void { multiplyDual(fRn(w), fRm(w), fRs(w), 0, flag(w, 5), true, false); }
export function exec_SMLALD(w: u32): void { multiplyDualLong(fRd(w), fRn(w), fRm(w), fRs(w), flag(w, 5), false); }
export function exec_SMLSLD(w: u32): void { multiplyDualLong(fRd(w), fRn(w), fRm(w), fRs(w), flag(w, 5), true); }
export function exec_SMMUL(w: u32): void { multiplyMostSignificant(fRn(w), fRm(w), fRs(w), 0, false, false, flag(w, 5)); }
export function exec_SMMLA(w: u32): void { multiplyMostSignificant(fRn(w), fRm(w), fRs(w), fRd(w), true, false, flag(w, 5)); }
export function exec_SMMLS(w: u32): void { multiplyMostSignificant(fRn(w), fRm(w), fRs(w), fRd(w), true, true, flag(w, 5)); }
export function exec_SDIV(w: u32): void { divide(fRn(w), fRm(w), fRs(w), true); }
export function exec_UDIV(w: u32): void { divide(fRn(w), fRm(w), fRs(w), false); }

// ---- Saturation ----
export function exec_QADD(w: u32): void { saturatingArithmetic(fRd(w), fRm(w), fRn(w), false, false); }
export function exec_QSUB(w: u32): void { saturatingArithmetic(fRd(w), fRm(w), fRn(w), false, true); }
export function exec_QDADD(w: u32): void { saturatingArithmetic(fRd(w), fRm(w), fRn(w), true, false); }
export function exec_QDSUB(w: u32): void { saturatingArithmetic(fRd(w), fRm(w), fRn(w), true, true); }
export function exec_SSAT(w: u32): void { saturate(fRd(w), fRm(w), ((w >>> 16) & 31) + 1, bit(w, 6) << 1, (w >>> 7) & 31, true); }
export function exec_USAT(w: u32): void { saturate(fRd(w), fRm(w), (w >>> 16) & 31, bit(w, 6) << 1, (w >>> 7) & 31, false); }
export function exec_SSAT16(w: u32): void { saturateHalves(fRd(w), fRm(w), ((w >>> 16) & 15) + 1, true); }
export function exec_USAT16(w: u32): void { saturateHalves(fRd(w), fRm(w), (w >>> 16) & 15, false); }

// ---- Parallel add/subtract (A5.4.1): kind S Q SH U UQ UH, op ADD16 ASX SAX SUB16 ADD8 - - SUB8 ----
export function exec_SADD16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 0, 0); }
export function exec_SASX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 0, 1); }
export function exec_SSAX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 0, 2); }
export function exec_SSUB16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 0, 3); }
export function exec_SADD8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 0, 4); }
export function exec_SSUB8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 0, 7); }
export function exec_QADD16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 1, 0); }
export function exec_QASX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 1, 1); }
export function exec_QSAX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 1, 2); }
export function exec_QSUB16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 1, 3); }
export function exec_QADD8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 1, 4); }
export function exec_QSUB8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 1, 7); }
export function exec_SHADD16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 2, 0); }
export function exec_SHASX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 2, 1); }
export function exec_SHSAX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 2, 2); }
export function exec_SHSUB16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 2, 3); }
export function exec_SHADD8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 2, 4); }
export function exec_SHSUB8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 2, 7); }
export function exec_UADD16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 3, 0); }
export function exec_UASX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 3, 1); }
export function exec_USAX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 3, 2); }
export function exec_USUB16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 3, 3); }
export function exec_UADD8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 3, 4); }
export function exec_USUB8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 3, 7); }
export function exec_UQADD16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 4, 0); }
export function exec_UQASX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 4, 1); }
export function exec_UQSAX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 4, 2); }
export function exec_UQSUB16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 4, 3); }
export function exec_UQADD8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 4, 4); }
export function exec_UQSUB8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 4, 7); }
export function exec_UHADD16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 5, 0); }
export function exec_UHASX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 5, 1); }
export function exec_UHSAX(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 5, 2); }
export function exec_UHSUB16(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 5, 3); }
export function exec_UHADD8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 5, 4); }
export function exec_UHSUB8(w: u32): void { parallel(fRd(w), fRn(w), fRm(w), 5, 7); }

export function exec_SEL(w: u32): void { select(fRd(w), fRn(w), fRm(w)); }
export function exec_USAD8(w: u32): void { sumAbsoluteDifferences(fRn(w), fRm(w), fRs(w), 0, false); }
export function exec_USADA8(w: u32): void { sumAbsoluteDifferences(fRn(w), fRm(w), fRs(w), fRd(w), true); }

// ---- Packing, extends, reversal, bit fields ----
export function exec_PKHBT(w: u32): void { pack(fRd(w), fRn(w), fRm(w), false, (w >>> 7) & 31); }
export function exec_PKHTB(w: u32): void { pack(fRd(w), fRn(w), fRm(w), true, (w >>> 7) & 31); }
@inline function rotation(w: u32): u32 { return ((w >>> 10) & 3) << 3; }
export function exec_SXTB(w: u32): void { extend(fRd(w), 15, fRm(w), rotation(w), EXTEND_SXTB); }
export function exec_SXTH(w: u32): void { extend(fRd(w), 15, fRm(w), rotation(w), EXTEND_SXTH); }
export function exec_UXTB(w: u32): void { extend(fRd(w), 15, fRm(w), rotation(w), EXTEND_UXTB); }
export function exec_UXTH(w: u32): void { extend(fRd(w), 15, fRm(w), rotation(w), EXTEND_UXTH); }
export function exec_SXTAB(w: u32): void { extend(fRd(w), fRn(w), fRm(w), rotation(w), EXTEND_SXTB); }
export function exec_SXTAH(w: u32): void { extend(fRd(w), fRn(w), fRm(w), rotation(w), EXTEND_SXTH); }
export function exec_UXTAB(w: u32): void { extend(fRd(w), fRn(w), fRm(w), rotation(w), EXTEND_UXTB); }
export function exec_UXTAH(w: u32): void { extend(fRd(w), fRn(w), fRm(w), rotation(w), EXTEND_UXTH); }
export function exec_SXTB16(w: u32): void { extend(fRd(w), 15, fRm(w), rotation(w), EXTEND_SXTB16); }
export function exec_UXTB16(w: u32): void { extend(fRd(w), 15, fRm(w), rotation(w), EXTEND_UXTB16); }
export function exec_SXTAB16(w: u32): void { extend(fRd(w), fRn(w), fRm(w), rotation(w), EXTEND_SXTB16); }
export function exec_UXTAB16(w: u32): void { extend(fRd(w), fRn(w), fRm(w), rotation(w), EXTEND_UXTB16); }
export function exec_REV(w: u32): void { reverse(fRd(w), fRm(w), REVERSE_REV); }
export function exec_REV16(w: u32): void { reverse(fRd(w), fRm(w), REVERSE_REV16); }
export function exec_REVSH(w: u32): void { reverse(fRd(w), fRm(w), REVERSE_REVSH); }
export function exec_RBIT(w: u32): void { reverse(fRd(w), fRm(w), REVERSE_RBIT); }
export function exec_CLZ(w: u32): void { reverse(fRd(w), fRm(w), REVERSE_CLZ); }
export function exec_SBFX(w: u32): void { bitfieldExtract(fRd(w), fRm(w), (w >>> 7) & 31, ((w >>> 16) & 31) + 1, true); }
export function exec_UBFX(w: u32): void { bitfieldExtract(fRd(w), fRm(w), (w >>> 7) & 31, ((w >>> 16) & 31) + 1, false); }
export function exec_BFC(w: u32): void { bitfieldInsert(fRd(w), 0, (w >>> 7) & 31, (w >>> 16) & 31); }
export function exec_BFI(w: u32): void { bitfieldInsert(fRd(w), reg(fRm(w)), (w >>> 7) & 31, (w >>> 16) & 31); }

// ---- Loads and stores (A5.2.8, A5.2.9, A5.3): P = bit 24, U = 23, W = 21 ----
/** Single transfer: P = 0 or W = 1 writes back; the T forms are post-indexed with User permissions. */
@inline function single(w: u32, offset: u32, size: u32, load: bool, signed: bool, translated: bool): void {
  const n = fRn(w);
  const index = translated ? false : flag(w, 24);
  const wback = translated ? true : !index || flag(w, 21);
  transfer(fRd(w), n, reg(n), offset, flag(w, 23), index, wback, size, load, signed, translated);
}

@inline function imm12(w: u32): u32 { return w & 0xfff; }
@inline function regOffset(w: u32): u32 { return shiftNoCarry(reg(fRm(w)), (w >>> 5) & 3, (w >>> 7) & 31); }
@inline function imm8split(w: u32): u32 { return ((w >>> 4) & 0xf0) | (w & 0xf); }

export function exec_LDR_imm(w: u32): void { single(w, imm12(w), 4, true, false, false); }
export function exec_LDR_reg(w: u32): void { single(w, regOffset(w), 4, true, false, false); }
export function exec_STR_imm(w: u32): void { single(w, imm12(w), 4, false, false, false); }
export function exec_STR_reg(w: u32): void { single(w, regOffset(w), 4, false, false, false); }
export function exec_LDRB_imm(w: u32): void { single(w, imm12(w), 1, true, false, false); }
export function exec_LDRB_reg(w: u32): void { single(w, regOffset(w), 1, true, false, false); }
export function exec_STRB_imm(w: u32): void { single(w, imm12(w), 1, false, false, false); }
export function exec_STRB_reg(w: u32): void { single(w, regOffset(w), 1, false, false, false); }
export function exec_LDRT_imm(w: u32): void { single(w, imm12(w), 4, true, false, true); }
export function exec_LDRT_reg(w: u32): void { single(w, regOffset(w), 4, true, false, true); }
export function exec_STRT_imm(w: u32): void { single(w, imm12(w), 4, false, false, true); }
export function exec_STRT_reg(w: u32): void { single(w, regOffset(w), 4, false, false, true); }
export function exec_LDRBT_imm(w: u32): void { single(w, imm12(w), 1, true, false, true); }
export function exec_LDRBT_reg(w: u32): void { single(w, regOffset(w), 1, true, false, true); }
export function exec_STRBT_imm(w: u32): void { single(w, imm12(w), 1, false, false, true); }
export function exec_STRBT_reg(w: u32): void { single(w, regOffset(w), 1, false, false, true); }
export function exec_LDRH_imm(w: u32): void { single(w, imm8split(w), 2, true, false, false); }
export function exec_LDRH_reg(w: u32): void { single(w, reg(fRm(w)), 2, true, false, false); }
export function exec_STRH_imm(w: u32): void { single(w, imm8split(w), 2, false, false, false); }
export function exec_STRH_reg(w: u32): void { single(w, reg(fRm(w)), 2, false, false, false); }
export function exec_LDRSB_imm(w: u32): void { single(w, imm8split(w), 1, true, true, false); }
export function exec_LDRSB_reg(w: u32): void { single(w, reg(fRm(w)), 1, true, true, false); }
export function exec_LDRSH_imm(w: u32): void { single(w, imm8split(w), 2, true, true, false); }
export function exec_LDRSH_reg(w: u32): void { single(w, reg(fRm(w)), 2, true, true, false); }
export function exec_LDRHT_imm(w: u32): void { single(w, imm8split(w), 2, true, false, true); }
export function exec_LDRHT_reg(w: u32): void { single(w, reg(fRm(w)), 2, true, false, true); }
export function exec_STRHT_imm(w: u32): void { single(w, imm8split(w), 2, false, false, true); }
export function exec_STRHT_reg(w: u32): void { single(w, reg(fRm(w)), 2, false, false, true); }
export function exec_LDRSBT_imm(w: u32): void { single(w, imm8split(w), 1, true, true, true); }
export function exec_LDRSBT_reg(w: u32): void { single(w, reg(fRm(w)), 1, true, true, true); }
export function exec_LDRSHT_imm(w: u32): void { single(w, imm8split(w), 2, true, true, true); }
export function exec_LDRSHT_reg(w: u32): void { single(w, reg(fRm(w)), 2, true, true, true); }

/** LDRD/STRD: Rt even and not r14 (else UNPREDICTABLE: undefined here), Rt2 = Rt + 1. */
@inline function double(w: u32, offset: u32, load: bool): void {
  const t = fRd(w);
  if (t & 1 || t == 14) { raise(EXC_UNDEF); return; }
  const n = fRn(w);
  const index = flag(w, 24);
  transferDouble(t, t + 1, n, reg(n), offset, flag(w, 23), index, !index || flag(w, 21), load);
}
export function exec_LDRD_imm(w: u32): void { double(w, imm8split(w), true); }
export function exec_LDRD_reg(w: u32): void { double(w, reg(fRm(w)), true); }
export function exec_STRD_imm(w: u32): void { double(w, imm8split(w), false); }
export function exec_STRD_reg(w: u32): void { double(w, reg(fRm(w)), false); }

// ---- Block transfers (A8.8.58-, B9.3.5-6) ----
@inline function block(w: u32, isLoad: bool, kind: u32): void {
  blockTransfer(fRn(w), w & 0xffff, flag(w, 24), flag(w, 23), flag(w, 21), isLoad, kind);
}
export function exec_LDM(w: u32): void { block(w, true, BLOCK_NORMAL); }
export function exec_LDMDA(w: u32): void { block(w, true, BLOCK_NORMAL); }
export function exec_LDMDB(w: u32): void { block(w, true, BLOCK_NORMAL); }
export function exec_LDMIB(w: u32): void { block(w, true, BLOCK_NORMAL); }
export function exec_STM(w: u32): void { block(w, false, BLOCK_NORMAL); }
export function exec_STMDA(w: u32): void { block(w, false, BLOCK_NORMAL); }
export function exec_STMDB(w: u32): void { block(w, false, BLOCK_NORMAL); }
export function exec_STMIB(w: u32): void { block(w, false, BLOCK_NORMAL); }
export function exec_STM_user(w: u32): void { block(w, false, BLOCK_USER); }
export function exec_LDM_user(w: u32): void { block(w, true, BLOCK_USER); }
export function exec_LDM_eret(w: u32): void { block(w, true, BLOCK_RETURN); }

// ---- Exclusive access and swap (A8.8.75-, A3.4) ----
export function exec_LDREX(w: u32): void { loadExclusive(fRd(w), reg(fRn(w)), 4); }
export function exec_LDREXB(w: u32): void { loadExclusive(fRd(w), reg(fRn(w)), 1); }
export function exec_LDREXH(w: u32): void { loadExclusive(fRd(w), reg(fRn(w)), 2); }
export function exec_STREX(w: u32): void { storeExclusive(fRd(w), fRm(w), reg(fRn(w)), 4); }
export function exec_STREXB(w: u32): void { storeExclusive(fRd(w), fRm(w), reg(fRn(w)), 1); }
export function exec_STREXH(w: u32): void { storeExclusive(fRd(w), fRm(w), reg(fRn(w)), 2); }
export function exec_LDREXD(w: u32): void {
  const t = fRd(w);
  if (t & 1 || t == 14) { raise(EXC_UNDEF); return; }
  loadExclusiveDouble(t, t + 1, fRn(w));
}
export function exec_STREXD(w: u32): void {
  const t = fRm(w);
  if (t & 1 || t == 14) { raise(EXC_UNDEF); return; }
  storeExclusiveDouble(fRd(w), t, t + 1, fRn(w));
}
/** SWP/SWPB (A32 only): exchange Rt2 into [Rn], the old value to Rt. */
@inline function swap(w: u32, size: u32): void {
  const addr = reg(fRn(w));
  if (size == 4 && (addr & 3)) { alignmentFault(addr); return; }
  const old = read(addr, size);
  if (aborted) return;
  write(addr, size, reg(fRm(w)));
  if (aborted) return;
  setRegRaw(fRd(w), old);
}
export function exec_SWP(w: u32): void { swap(w, 4); }
export function exec_SWPB(w: u32): void { swap(w, 1); }

// ---- Exceptions generated by instructions ----
export function exec_SVC(w: u32): void { raise(EXC_SVC); }
export function exec_BKPT(w: u32): void { raise(EXC_BKPT); }
export function exec_UDF(w: u32): void {
  raise((w & ~0xf) == DTRACE_BREAKPOINT ? EXC_DTRACE : EXC_UNDEF);
}
export function exec_SRS(w: u32): void { storeReturnState(w & 0x1f, flag(w, 24), flag(w, 23), flag(w, 21)); }
export function exec_RFE(w: u32): void { returnFromException(fRn(w), flag(w, 24), flag(w, 23), flag(w, 21)); }

// ---- Coprocessors: CP15 only ----
export function exec_MCR(w: u32): void { coprocessorTransfer(w, true); }
export function exec_MRC(w: u32): void { coprocessorTransfer(w, false); }

// ---- VFP (A7): the fields sit at the same bits in both sets; see vfp.ts ----
export function exec_VSTMIA(w: u32): void { V.VSTMIA(w); }
export function exec_VSTMDB(w: u32): void { V.VSTMDB(w); }
export function exec_VSTR(w: u32): void { V.VSTR(w); }
export function exec_VLDMIA(w: u32): void { V.VLDMIA(w); }
export function exec_VLDMDB(w: u32): void { V.VLDMDB(w); }
export function exec_VLDR(w: u32): void { V.VLDR(w); }
export function exec_VMOV_2s(w: u32): void { V.VMOV_2s(w); }
export function exec_VMOV_d(w: u32): void { V.VMOV_d(w); }
export function exec_VMOV_s(w: u32): void { V.VMOV_s(w); }
export function exec_VMSR(w: u32): void { V.VMSR(w); }
export function exec_VMRS(w: u32): void { V.VMRS(w); }
export function exec_VMOV_to_scalar(w: u32): void { V.VMOV_to_scalar(w); }
export function exec_VMOV_from_scalar(w: u32): void { V.VMOV_from_scalar(w); }
export function exec_VMLA(w: u32): void { V.VMLA(w); }
export function exec_VMLS(w: u32): void { V.VMLS(w); }
export function exec_VNMLS(w: u32): void { V.VNMLS(w); }
export function exec_VNMLA(w: u32): void { V.VNMLA(w); }
export function exec_VMUL(w: u32): void { V.VMUL(w); }
export function exec_VNMUL(w: u32): void { V.VNMUL(w); }
export function exec_VADD(w: u32): void { V.VADD(w); }
export function exec_VSUB(w: u32): void { V.VSUB(w); }
export function exec_VDIV(w: u32): void { V.VDIV(w); }
export function exec_VMOV_imm(w: u32): void { V.VMOV_imm(w); }
export function exec_VMOV_reg(w: u32): void { V.VMOV_reg(w); }
export function exec_VABS(w: u32): void { V.VABS(w); }
export function exec_VNEG(w: u32): void { V.VNEG(w); }
export function exec_VSQRT(w: u32): void { V.VSQRT(w); }
export function exec_VCMP(w: u32): void { V.VCMP(w); }
export function exec_VCMP_zero(w: u32): void { V.VCMP_zero(w); }
export function exec_VCVT_ds(w: u32): void { V.VCVT_ds(w); }
export function exec_VCVT_from_int(w: u32): void { V.VCVT_from_int(w); }
export function exec_VCVT_fixed(w: u32): void { V.VCVT_fixed(w); }
export function exec_VCVT_to_int(w: u32): void { V.VCVT_to_int(w); }
