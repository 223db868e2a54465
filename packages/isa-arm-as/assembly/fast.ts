// Specialised forms of the commonest instructions, for both instruction
// sets. When an instruction enters a decoded-instruction cache, fastRecord()
// (A32) or thumbFastRecord() (T32) picks a kind for it if it is one of these
// forms and stores the operands pre-decoded next to it, so the run loops
// execute it inline (run.ts's inlineForm, a switch on the kind) from the
// record, without the indirect call to its exec_<NAME> handler or
// re-extracting fields. A T32 form gets the kind of the A32 form with the
// same effect; the few effects only T32 has (flag-setting moves, shifts and
// logical operations of the 16-bit encodings, conditional branches, literal
// loads, bx staying in Thumb state) have kinds of their own.
//
// Record, at entry + 16 of a decode-cache entry (assembly/memory.ts):
//   +16 u8  kind (K_*; 0 = none, the handler runs)
//   +17 u8  first register as a byte offset into the state block (n * 4)
//   +18 u8  second register (byte offset)
//   +19 u8  third register (byte offset)
//   +20 u32 immediate: expanded modified immediate, signed load/store offset,
//           or branch offset + 8
//   +24 u32 shift of a register operand (type | imm5 << 2; 0 = none) or a
//           kind-specific extra (see each kind)
//
// No specialised form but K_ADD_PC names r15 in a register field, and none
// writes the pc. Every form has the same architectural effect as its
// handler (which the exec tests compare with qemu-arm); loads and
// stores fall back to the handler whenever the inline access path does not
// apply (MMU walk, device, page crossing, alignment checking, abort).
import { Op } from './generated/a32-decoder';
import { TOp } from './generated/t32-decoder';
import { expandImmediate } from './shifter';
import { DP_AND, DP_EOR, DP_SUB, DP_RSB, DP_ADD, DP_ORR, DP_MOV, DP_BIC, DP_MVN } from './semantics';

// Data processing without flags: Rd = f(Rn, operand). Record: rd, rn, rm.
export const K_MOV_I: u8 = 1; // Rd = imm (MOV, MVN with the inverted immediate, MOVW)
export const K_ADD_I: u8 = 2; // Rd = Rn + imm (SUB with the negated immediate)
export const K_RSB_I: u8 = 3;
export const K_AND_I: u8 = 4; // (BIC with the inverted immediate)
export const K_ORR_I: u8 = 5;
export const K_EOR_I: u8 = 6;
export const K_MOV_R: u8 = 7; // Rd = shift(Rm)
export const K_MVN_R: u8 = 8;
export const K_ADD_R: u8 = 9;
export const K_SUB_R: u8 = 10;
export const K_RSB_R: u8 = 11;
export const K_AND_R: u8 = 12;
export const K_ORR_R: u8 = 13;
export const K_EOR_R: u8 = 14;
export const K_BIC_R: u8 = 15;
export const K_MOVT: u8 = 16; // Rd = Rd[15:0] | imm
// Flag setting. The first K_FUSABLE_COUNT, from K_FUSABLE, are the compares
// an A32 b<cond> that follows runs with in one step.
export const K_FUSABLE: u8 = 20;
export const K_FUSABLE_COUNT: u8 = 3;
export const K_CMP_I: u8 = 20;
export const K_CMP_R: u8 = 21;
export const K_SUBS_I: u8 = 22;
export const K_CMN_I: u8 = 23;
export const K_CMN_R: u8 = 24;
export const K_TST_I: u8 = 25; // extra: 1 when the immediate's rotation sets C
export const K_TST_R: u8 = 26; // unshifted Rm only (C unchanged)
export const K_ADDS_I: u8 = 27;
export const K_ADDS_R: u8 = 28;
export const K_SUBS_R: u8 = 29;
// Flag-setting moves and logical operations with an unshifted register or a
// plain immediate (the 16-bit T32 encodings): N and Z, C and V unchanged.
export const K_MOVS_I: u8 = 36;
export const K_MOVS_R: u8 = 37;
export const K_MVNS_R: u8 = 38;
export const K_ANDS_R: u8 = 39;
export const K_ORRS_R: u8 = 55;
export const K_EORS_R: u8 = 56;
export const K_BICS_R: u8 = 57;
// Multiplies and extends. MUL/MLA record: rd = Rd (19:16), rn = Rn (3:0), rm = Rm (11:8), extra = Ra (15:12) * 4.
export const K_MUL: u8 = 30;
export const K_MLA: u8 = 31;
export const K_UXTB: u8 = 32; // rd, rm, extra = rotation
export const K_UXTH: u8 = 33;
export const K_SXTB: u8 = 34;
export const K_SXTH: u8 = 35;
// Single loads/stores, offset addressing (no writeback). Record: rd = Rt, rn, rm; imm = signed offset.
export const K_LDR_I: u8 = 40;
export const K_STR_I: u8 = 41;
export const K_LDRB_I: u8 = 42;
export const K_STRB_I: u8 = 43;
export const K_LDR_R: u8 = 44; // extra = shift | 0x80 when the offset is subtracted
export const K_STR_R: u8 = 45;
export const K_LDRB_R: u8 = 46;
export const K_STRB_R: u8 = 47;
// Immediate-offset forms with writeback (pre- or post-indexed, Rn != Rt): Rn = Rn + imm after
// the access, which is at Rn + imm when extra = 1 (pre-indexed), else at Rn (post-indexed).
export const K_LDR_IW: u8 = 48;
export const K_STR_IW: u8 = 49;
export const K_LDRB_IW: u8 = 53;
export const K_STRB_IW: u8 = 54;
// Branches. imm = offset + 8 in A32, + 4 in T32 (the target is pc + imm).
export const K_B: u8 = 50;
export const K_BL: u8 = 51;
export const K_BX: u8 = 52; // rm; a Thumb target (bit 0) takes the handler
export const K_BX_T: u8 = 58; // T32 bx rm; an ARM target (bit 0 clear) takes the handler
export const K_BCOND: u8 = 59; // T32 16-bit b<cond>: extra = cond
export const K_BCOND_W: u8 = 63; // T32 32-bit b<cond>.w: extra = cond
// T32 literal load: Rt = [Align(pc + 4, 4) + imm] (imm signed).
export const K_LDR_PC: u8 = 60;
// Rd = pc + imm + shift(Rm): position-independent code's `add rd, pc, rm`
// (A32, imm = 8) and `add rdn, pc` (T32, imm = 4), Rd and Rm not r15. The
// one form that reads the pc: as the instruction's address plus imm.
export const K_ADD_PC: u8 = 61;
// T32 16-bit lsls/lsrs/asrs by an immediate (outside IT blocks): N, Z and C,
// V unchanged. Record: rd, rm, extra = type | amount << 2 (amount 1-32).
export const K_SHIFTS_I: u8 = 62;

/** Register field at bit `at` of `w` as a state-block byte offset. */
@inline function regAt(w: u32, at: u32): u32 {
  return ((w >>> at) & 15) << 2;
}

@inline function isPc(w: u32, at: u32): bool {
  return ((w >>> at) & 15) == 15;
}

/** Shift of a register operand with an immediate amount, as the record holds it. */
@inline function immShift(w: u32): u32 {
  return ((w >>> 5) & 3) | (((w >>> 7) & 31) << 2);
}

/** Stores a record (layout at the head of this file). */
@inline function writeRecord(rec: usize, kind: u8, a: u32, b: u32, c: u32, imm: u32, extra: u32): void {
  store<u8>(rec, kind);
  store<u8>(rec, u8(a), 1);
  store<u8>(rec, u8(b), 2);
  store<u8>(rec, u8(c), 3);
  store<u32>(rec, imm, 4);
  store<u32>(rec, extra, 8);
}

// Data-processing forms by operation (semantics.ts DP_*, the A32 opcode):
// the kind of the register form and of the immediate form, without flags and
// with them. The immediate forms fold SUB, BIC and MVN into ADD, AND and MOV
// by negating or inverting the immediate (immediateOperand).
@inline function registerKind(dp: u32, s: u32): u8 {
  if (s != 0) return dp == DP_ADD ? K_ADDS_R : dp == DP_SUB ? K_SUBS_R : 0;
  switch (dp) {
    case DP_MOV: return K_MOV_R;
    case DP_MVN: return K_MVN_R;
    case DP_ADD: return K_ADD_R;
    case DP_SUB: return K_SUB_R;
    case DP_RSB: return K_RSB_R;
    case DP_AND: return K_AND_R;
    case DP_ORR: return K_ORR_R;
    case DP_EOR: return K_EOR_R;
    case DP_BIC: return K_BIC_R;
  }
  return 0;
}
@inline function immediateKind(dp: u32, s: u32): u8 {
  if (s != 0) return dp == DP_ADD ? K_ADDS_I : dp == DP_SUB ? K_SUBS_I : 0;
  switch (dp) {
    case DP_MOV: case DP_MVN: return K_MOV_I;
    case DP_ADD: case DP_SUB: return K_ADD_I;
    case DP_RSB: return K_RSB_I;
    case DP_AND: case DP_BIC: return K_AND_I;
    case DP_ORR: return K_ORR_I;
    case DP_EOR: return K_EOR_I;
  }
  return 0;
}
@inline function immediateOperand(dp: u32, s: u32, imm: u32): u32 {
  if (s != 0) return imm;
  return dp == DP_SUB ? 0 - imm : dp == DP_BIC || dp == DP_MVN ? ~imm : imm;
}

/**
 * Fills the specialised record at `rec` (entry + 16) for `word` decoded as
 * `op`: its kind and operands, or kind 0 when it has no specialised form.
 */
export function fastRecord(op: u32, word: u32, rec: usize): void {
  let kind: u8 = 0;
  let a: u32 = 0;
  let b: u32 = 0;
  let c: u32 = 0;
  let imm: u32 = 0;
  let extra: u32 = 0;
  const s = (word >>> 20) & 1;
  const rdPc = isPc(word, 12);
  const rnPc = isPc(word, 16);
  const rmPc = isPc(word, 0);
  if (op >= Op.AND_imm && op <= Op.MVN_imm) {
    // Data processing (immediate), A5.2.3.
    imm = expandImmediate(word & 0xfff);
    a = regAt(word, 12);
    b = regAt(word, 16);
    if (!rnPc || op == Op.MOV_imm || op == Op.MVN_imm) {
      if (op == Op.CMP_imm) kind = K_CMP_I;
      else if (op == Op.CMN_imm) kind = K_CMN_I;
      else if (op == Op.TST_imm) {
        kind = K_TST_I;
        extra = (word & 0xf00) != 0 ? 1 : 0;
      } else if (!rdPc) {
        // Op ids AND_imm .. MVN_imm follow the opcode order.
        kind = immediateKind(op - Op.AND_imm, s);
        imm = immediateOperand(op - Op.AND_imm, s, imm);
      }
    }
  } else if (op >= Op.AND_reg && op <= Op.MVN_reg) {
    // Data processing (register, shifted by an immediate), A5.2.3.
    a = regAt(word, 12);
    b = regAt(word, 16);
    c = regAt(word, 0);
    extra = immShift(word);
    const noRn = op == Op.MOV_reg || op == Op.MVN_reg;
    if (op == Op.ADD_reg && s == 0 && rnPc && !rdPc && !rmPc) {
      kind = K_ADD_PC;
      imm = 8;
    } else if (!rmPc && (!rnPc || noRn)) {
      if (op == Op.CMP_reg) kind = K_CMP_R;
      else if (op == Op.CMN_reg) kind = K_CMN_R;
      else if (op == Op.TST_reg) kind = extra == 0 ? K_TST_R : 0;
      else if (!rdPc) kind = registerKind(op - Op.AND_reg, s); // AND_reg .. MVN_reg follow the opcode order
    }
  } else if (op == Op.MOVW || op == Op.MOVT) {
    if (!rdPc) {
      a = regAt(word, 12);
      imm = ((word >>> 4) & 0xf000) | (word & 0xfff);
      if (op == Op.MOVW) kind = K_MOV_I;
      else {
        kind = K_MOVT;
        imm <<= 16;
      }
    }
  } else if (op == Op.MUL || op == Op.MLA) {
    if (s == 0 && !isPc(word, 16) && !isPc(word, 0) && !isPc(word, 8) && (op == Op.MUL || !isPc(word, 12))) {
      kind = op == Op.MUL ? K_MUL : K_MLA;
      a = regAt(word, 16);
      b = regAt(word, 0);
      c = regAt(word, 8);
      extra = regAt(word, 12);
    }
  } else if (op == Op.UXTB || op == Op.UXTH || op == Op.SXTB || op == Op.SXTH) {
    if (!rdPc && !rmPc) {
      kind = op == Op.UXTB ? K_UXTB : op == Op.UXTH ? K_UXTH : op == Op.SXTB ? K_SXTB : K_SXTH;
      a = regAt(word, 12);
      c = regAt(word, 0);
      extra = ((word >>> 10) & 3) << 3;
    }
  } else if (op == Op.LDR_imm || op == Op.STR_imm || op == Op.LDRB_imm || op == Op.STRB_imm) {
    // Offset addressing (P = 1, W = 0), or pre-indexed (P = 1, W = 1) or
    // post-indexed (P = 0, W = 0) with writeback to a base other than Rt.
    // (P = 0, W = 1 are the unprivileged ldrt/strt forms, decoded apart.)
    const pw = word & 0x01200000;
    if (!rdPc && !rnPc) {
      a = regAt(word, 12);
      b = regAt(word, 16);
      imm = word & 0xfff;
      if ((word & (1 << 23)) == 0) imm = 0 - imm;
      if (pw == 0x01000000) {
        kind = op == Op.LDR_imm ? K_LDR_I : op == Op.STR_imm ? K_STR_I : op == Op.LDRB_imm ? K_LDRB_I : K_STRB_I;
      } else if ((pw == 0x01200000 || pw == 0) && a != b) {
        kind = op == Op.LDR_imm ? K_LDR_IW : op == Op.STR_imm ? K_STR_IW : op == Op.LDRB_imm ? K_LDRB_IW : K_STRB_IW;
        extra = pw != 0 ? 1 : 0;
      }
    }
  } else if (op == Op.LDR_reg || op == Op.STR_reg || op == Op.LDRB_reg || op == Op.STRB_reg) {
    if ((word & 0x01200000) == 0x01000000 && !rdPc && !rnPc && !rmPc) {
      kind = op == Op.LDR_reg ? K_LDR_R : op == Op.STR_reg ? K_STR_R : op == Op.LDRB_reg ? K_LDRB_R : K_STRB_R;
      a = regAt(word, 12);
      b = regAt(word, 16);
      c = regAt(word, 0);
      extra = immShift(word) | ((word & (1 << 23)) == 0 ? 0x80 : 0);
    }
  } else if (op == Op.B || op == Op.BL) {
    kind = op == Op.B ? K_B : K_BL;
    imm = u32(i32(word << 8) >> 6) + 8;
  } else if (op == Op.BX) {
    if (!rmPc) {
      kind = K_BX;
      c = regAt(word, 0);
    }
  }
  writeRecord(rec, kind, a, b, c, imm, extra);
}

/** ThumbExpandImm of i:imm3:imm8 in a 32-bit T32 value (A6.3.2). */
function thumbImmediate(value: u32): u32 {
  const imm12 = (((value >>> 26) & 1) << 11) | (((value >>> 12) & 7) << 8) | (value & 0xff);
  const imm8 = imm12 & 0xff;
  if ((imm12 >>> 10) == 0) {
    switch ((imm12 >>> 8) & 3) {
      case 0: return imm8;
      case 1: return (imm8 << 16) | imm8;
      case 2: return (imm8 << 24) | (imm8 << 8);
      default: return imm8 * 0x01010101;
    }
  }
  return rotr<u32>(0x80 | (imm12 & 0x7f), imm12 >>> 7);
}

/** The shift of a 32-bit T32 shifted-register operand (type, imm3:imm2) in the record's form. */
@inline function thumbShift(v: u32): u32 {
  return ((v >>> 4) & 3) | (((((v >>> 12) & 7) << 2) | ((v >>> 6) & 3)) << 2);
}

/** The operation (semantics.ts DP_*) of the 32-bit T32 data-processing encodings the records cover. */
function thumbOperation(op: u32): u32 {
  switch (op) {
    case TOp.AND_imm_T1: case TOp.AND_reg_T2: return DP_AND;
    case TOp.BIC_imm_T1: case TOp.BIC_reg_T2: return DP_BIC;
    case TOp.ORR_imm_T1: case TOp.ORR_reg_T2: return DP_ORR;
    case TOp.EOR_imm_T1: case TOp.EOR_reg_T2: return DP_EOR;
    case TOp.ADD_imm_T3: case TOp.ADD_reg_T3: return DP_ADD;
    case TOp.SUB_imm_T3: case TOp.SUB_reg_T2: return DP_SUB;
    case TOp.RSB_imm_T2: case TOp.RSB_reg_T1: return DP_RSB;
    case TOp.MOV_imm_T2: case TOp.MOV_reg_T3: return DP_MOV;
    default: return DP_MVN;
  }
}

/** A 3-bit (low) register field of a 16-bit T32 instruction as a state-block byte offset. */
@inline function lowAt(v: u32, at: u32): u32 {
  return ((v >>> at) & 7) << 2;
}

/**
 * Fills the specialised record at `rec` for the T32 instruction `value`
 * decoded as `op` (run only outside IT blocks, so 16-bit data processing
 * sets flags), or kind 0. As for A32, no form names r15.
 */
export function thumbFastRecord(op: u32, value: u32, rec: usize): void {
  let kind: u8 = 0;
  let a: u32 = 0;
  let b: u32 = 0;
  let c: u32 = 0;
  let imm: u32 = 0;
  let extra: u32 = 0;
  const v = value;
  const s = (v >>> 20) & 1;
  // 32-bit forms: Rn in the first halfword, Rt (15:12), Rd (11:8), Rm (3:0).
  const wRnPc = isPc(v, 16);
  const wRdPc = isPc(v, 8);
  const wRmPc = isPc(v, 0);
  const wRtPc = isPc(v, 12);
  switch (op) {
    // ---- 16-bit data processing ----
    case TOp.MOV_imm_T1: kind = K_MOVS_I; a = lowAt(v, 8); imm = v & 0xff; break;
    case TOp.CMP_imm_T1: kind = K_CMP_I; b = lowAt(v, 8); imm = v & 0xff; break;
    case TOp.ADD_imm_T1: case TOp.SUB_imm_T1:
      kind = op == TOp.ADD_imm_T1 ? K_ADDS_I : K_SUBS_I; a = lowAt(v, 0); b = lowAt(v, 3); imm = (v >>> 6) & 7; break;
    case TOp.ADD_imm_T2: case TOp.SUB_imm_T2:
      kind = op == TOp.ADD_imm_T2 ? K_ADDS_I : K_SUBS_I; a = lowAt(v, 8); b = a; imm = v & 0xff; break;
    case TOp.ADD_reg_T1: case TOp.SUB_reg_T1:
      kind = op == TOp.ADD_reg_T1 ? K_ADDS_R : K_SUBS_R; a = lowAt(v, 0); b = lowAt(v, 3); c = lowAt(v, 6); break;
    case TOp.CMP_reg_T1: kind = K_CMP_R; b = lowAt(v, 0); c = lowAt(v, 3); break;
    case TOp.CMN_reg_T1: kind = K_CMN_R; b = lowAt(v, 0); c = lowAt(v, 3); break;
    case TOp.TST_reg_T1: kind = K_TST_R; b = lowAt(v, 0); c = lowAt(v, 3); break;
    case TOp.MOV_reg_T2: kind = K_MOVS_R; a = lowAt(v, 0); c = lowAt(v, 3); break;
    case TOp.MVN_reg_T1: kind = K_MVNS_R; a = lowAt(v, 0); c = lowAt(v, 3); break;
    case TOp.AND_reg_T1: case TOp.ORR_reg_T1: case TOp.EOR_reg_T1: case TOp.BIC_reg_T1:
      kind = op == TOp.AND_reg_T1 ? K_ANDS_R : op == TOp.ORR_reg_T1 ? K_ORRS_R : op == TOp.EOR_reg_T1 ? K_EORS_R : K_BICS_R;
      a = lowAt(v, 0); b = a; c = lowAt(v, 3); break;
    case TOp.ADD_reg_T2: {
      const d = (((v >>> 7) & 1) << 3) | (v & 7);
      const m = (v >>> 3) & 15;
      if (d != 15 && m != 15) { kind = K_ADD_R; a = d << 2; b = a; c = m << 2; }
      else if (d != 15 && d != 13) { kind = K_ADD_PC; a = d << 2; c = a; imm = 4; } // add rdn, pc
      break;
    }
    case TOp.CMP_reg_T2: {
      const n = (((v >>> 7) & 1) << 3) | (v & 7);
      const m = (v >>> 3) & 15;
      if (n != 15 && m != 15) { kind = K_CMP_R; b = n << 2; c = m << 2; }
      break;
    }
    case TOp.MOV_reg_T1: {
      const d = (((v >>> 7) & 1) << 3) | (v & 7);
      const m = (v >>> 3) & 15;
      if (d != 15 && m != 15) { kind = K_MOV_R; a = d << 2; c = m << 2; }
      break;
    }
    case TOp.LSL_imm_T1: case TOp.LSR_imm_T1: case TOp.ASR_imm_T1: {
      // imm5 = 0 is movs (MOV_reg_T2) for lsl, a shift by 32 for lsr and asr.
      const type: u32 = op == TOp.LSL_imm_T1 ? 0 : op == TOp.LSR_imm_T1 ? 1 : 2;
      const amount = (v >>> 6) & 31;
      kind = K_SHIFTS_I; a = lowAt(v, 0); c = lowAt(v, 3); extra = type | ((amount == 0 ? 32 : amount) << 2);
      break;
    }
    case TOp.UXTB_T1: kind = K_UXTB; a = lowAt(v, 0); c = lowAt(v, 3); break;
    case TOp.UXTH_T1: kind = K_UXTH; a = lowAt(v, 0); c = lowAt(v, 3); break;
    case TOp.SXTB_T1: kind = K_SXTB; a = lowAt(v, 0); c = lowAt(v, 3); break;
    case TOp.SXTH_T1: kind = K_SXTH; a = lowAt(v, 0); c = lowAt(v, 3); break;
    // ---- 16-bit loads and stores ----
    case TOp.LDR_reg_T1: case TOp.STR_reg_T1: case TOp.LDRB_reg_T1: case TOp.STRB_reg_T1:
      kind = op == TOp.LDR_reg_T1 ? K_LDR_R : op == TOp.STR_reg_T1 ? K_STR_R : op == TOp.LDRB_reg_T1 ? K_LDRB_R : K_STRB_R;
      a = lowAt(v, 0); b = lowAt(v, 3); c = lowAt(v, 6); break;
    case TOp.LDR_imm_T1: case TOp.STR_imm_T1:
      kind = op == TOp.LDR_imm_T1 ? K_LDR_I : K_STR_I; a = lowAt(v, 0); b = lowAt(v, 3); imm = ((v >>> 6) & 31) << 2; break;
    case TOp.LDRB_imm_T1: case TOp.STRB_imm_T1:
      kind = op == TOp.LDRB_imm_T1 ? K_LDRB_I : K_STRB_I; a = lowAt(v, 0); b = lowAt(v, 3); imm = (v >>> 6) & 31; break;
    case TOp.LDR_imm_T2: case TOp.STR_imm_T2:
      kind = op == TOp.LDR_imm_T2 ? K_LDR_I : K_STR_I; a = lowAt(v, 8); b = 13 << 2; imm = (v & 0xff) << 2; break;
    case TOp.LDR_lit_T1: kind = K_LDR_PC; a = lowAt(v, 8); imm = (v & 0xff) << 2; break;
    // ---- 16-bit branches ----
    case TOp.B_T1: {
      const cond = (v >>> 8) & 15;
      if (cond < 14) { kind = K_BCOND; extra = cond; imm = u32(i32(v << 24) >> 23) + 4; }
      break;
    }
    case TOp.B_T2: kind = K_B; imm = u32(i32(v << 21) >> 20) + 4; break;
    case TOp.BX_T1: if (((v >>> 3) & 15) != 15) { kind = K_BX_T; c = ((v >>> 3) & 15) << 2; } break;
    // ---- 32-bit branches ----
    case TOp.B_T3: {
      const cond = (v >>> 22) & 15;
      const off = (((v >>> 26) & 1) << 20) | (((v >>> 11) & 1) << 19) | (((v >>> 13) & 1) << 18) | (((v >>> 16) & 0x3f) << 12) | ((v & 0x7ff) << 1);
      if (cond < 14) { kind = K_BCOND_W; extra = cond; imm = u32(i32(off << 11) >> 11) + 4; }
      break;
    }
    case TOp.B_T4: case TOp.BL_T1: {
      const sign = (v >>> 26) & 1;
      const i1 = 1 ^ ((v >>> 13) & 1) ^ sign;
      const i2 = 1 ^ ((v >>> 11) & 1) ^ sign;
      const off = (sign << 24) | (i1 << 23) | (i2 << 22) | (((v >>> 16) & 0x3ff) << 12) | ((v & 0x7ff) << 1);
      kind = op == TOp.B_T4 ? K_B : K_BL;
      imm = u32(i32(off << 7) >> 7) + 4;
      break;
    }
    // ---- 32-bit data processing ----
    case TOp.MOVW_T3: case TOp.MOVT_T1:
      if (!wRdPc) {
        a = regAt(v, 8);
        imm = (((v >>> 16) & 15) << 12) | (((v >>> 26) & 1) << 11) | (((v >>> 12) & 7) << 8) | (v & 0xff);
        if (op == TOp.MOVW_T3) kind = K_MOV_I;
        else { kind = K_MOVT; imm <<= 16; }
      }
      break;
    case TOp.ADD_imm_T4: case TOp.SUB_imm_T4:
      if (!wRdPc && !wRnPc) {
        kind = K_ADD_I; a = regAt(v, 8); b = regAt(v, 16);
        imm = (((v >>> 26) & 1) << 11) | (((v >>> 12) & 7) << 8) | (v & 0xff);
        if (op == TOp.SUB_imm_T4) imm = 0 - imm;
      }
      break;
    case TOp.CMP_imm_T2: case TOp.CMN_imm_T1:
      if (!wRnPc) { kind = op == TOp.CMP_imm_T2 ? K_CMP_I : K_CMN_I; b = regAt(v, 16); imm = thumbImmediate(v); }
      break;
    case TOp.TST_imm_T1:
      if (!wRnPc) { kind = K_TST_I; b = regAt(v, 16); imm = thumbImmediate(v); extra = ((v >>> 26) & 1) != 0 || ((v >>> 14) & 1) != 0 ? 1 : 0; }
      break;
    case TOp.AND_imm_T1: case TOp.ORR_imm_T1: case TOp.EOR_imm_T1: case TOp.BIC_imm_T1: case TOp.ADD_imm_T3: case TOp.SUB_imm_T3:
    case TOp.RSB_imm_T2: case TOp.MOV_imm_T2: case TOp.MVN_imm_T1:
      // mov and mvn have 1111 in the Rn field (they are orr and orn without Rn).
      if (!wRdPc && (!wRnPc || op == TOp.MOV_imm_T2 || op == TOp.MVN_imm_T1)) {
        a = regAt(v, 8);
        b = regAt(v, 16);
        const dp = thumbOperation(op);
        kind = immediateKind(dp, s);
        imm = immediateOperand(dp, s, thumbImmediate(v));
      }
      break;
    case TOp.AND_reg_T2: case TOp.ORR_reg_T2: case TOp.EOR_reg_T2: case TOp.BIC_reg_T2: case TOp.ADD_reg_T3: case TOp.SUB_reg_T2:
    case TOp.RSB_reg_T1: case TOp.MOV_reg_T3: case TOp.MVN_reg_T2:
      if (!wRdPc && !wRmPc && (!wRnPc || op == TOp.MOV_reg_T3 || op == TOp.MVN_reg_T2)) {
        a = regAt(v, 8);
        b = regAt(v, 16);
        c = regAt(v, 0);
        extra = thumbShift(v);
        kind = registerKind(thumbOperation(op), s);
      }
      break;
    case TOp.CMP_reg_T3: case TOp.CMN_reg_T2:
      if (!wRnPc && !wRmPc) {
        kind = op == TOp.CMP_reg_T3 ? K_CMP_R : K_CMN_R;
        b = regAt(v, 16);
        c = regAt(v, 0);
        extra = thumbShift(v);
      }
      break;
    case TOp.MUL_T2: case TOp.MLA_T1:
      if (!wRdPc && !wRnPc && !wRmPc && (op == TOp.MUL_T2 || !wRtPc)) {
        kind = op == TOp.MUL_T2 ? K_MUL : K_MLA;
        a = regAt(v, 8);
        b = regAt(v, 16);
        c = regAt(v, 0);
        extra = regAt(v, 12);
      }
      break;
    case TOp.UXTB_T2: case TOp.UXTH_T2: case TOp.SXTB_T2: case TOp.SXTH_T2:
      if (!wRdPc && !wRmPc) {
        kind = op == TOp.UXTB_T2 ? K_UXTB : op == TOp.UXTH_T2 ? K_UXTH : op == TOp.SXTB_T2 ? K_SXTB : K_SXTH;
        a = regAt(v, 8);
        c = regAt(v, 0);
        extra = ((v >>> 4) & 3) << 3;
      }
      break;
    // ---- 32-bit loads and stores ----
    case TOp.LDR_imm_T3: case TOp.STR_imm_T3: case TOp.LDRB_imm_T2: case TOp.STRB_imm_T2:
      if (!wRtPc && !wRnPc) {
        kind = op == TOp.LDR_imm_T3 ? K_LDR_I : op == TOp.STR_imm_T3 ? K_STR_I : op == TOp.LDRB_imm_T2 ? K_LDRB_I : K_STRB_I;
        a = regAt(v, 12);
        b = regAt(v, 16);
        imm = v & 0xfff;
      }
      break;
    case TOp.LDR_imm_T4: case TOp.STR_imm_T4: case TOp.LDRB_imm_T3: case TOp.STRB_imm_T3: {
      // P U W (bits 10, 9, 8): offset (1x0) or pre-/post-indexed with writeback to a base other than Rt.
      const puw = (v >>> 8) & 7;
      if (!wRtPc && !wRnPc && (puw & 5) != 0) {
        a = regAt(v, 12);
        b = regAt(v, 16);
        imm = v & 0xff;
        if ((puw & 2) == 0) imm = 0 - imm;
        if ((puw & 5) == 4) kind = op == TOp.LDR_imm_T4 ? K_LDR_I : op == TOp.STR_imm_T4 ? K_STR_I : op == TOp.LDRB_imm_T3 ? K_LDRB_I : K_STRB_I;
        else if ((puw & 1) != 0 && a != b) {
          kind = op == TOp.LDR_imm_T4 ? K_LDR_IW : op == TOp.STR_imm_T4 ? K_STR_IW : op == TOp.LDRB_imm_T3 ? K_LDRB_IW : K_STRB_IW;
          extra = (puw & 4) != 0 ? 1 : 0;
        }
      }
      break;
    }
    case TOp.LDR_reg_T2: case TOp.STR_reg_T2: case TOp.LDRB_reg_T2: case TOp.STRB_reg_T2:
      if (!wRtPc && !wRnPc && !wRmPc) {
        kind = op == TOp.LDR_reg_T2 ? K_LDR_R : op == TOp.STR_reg_T2 ? K_STR_R : op == TOp.LDRB_reg_T2 ? K_LDRB_R : K_STRB_R;
        a = regAt(v, 12);
        b = regAt(v, 16);
        c = regAt(v, 0);
        extra = ((v >>> 4) & 3) << 2; // lsl #imm2
      }
      break;
  }
  writeRecord(rec, kind, a, b, c, imm, extra);
}
