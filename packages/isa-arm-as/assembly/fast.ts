// Specialised forms of the commonest A32 instructions. When an instruction
// enters the decoded-instruction cache, fastRecord() picks a kind for it if it
// is one of these forms and stores the operands pre-decoded next to it, so the
// run loop executes it inline (a switch on the kind) from the record, without
// the indirect call to its exec_<NAME> handler or re-extracting fields.
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
// No specialised form names r15 in any register field, so none reads or
// writes the pc. Every form has the same architectural effect as its
// handler in exec.ts (which the exec tests compare with qemu-arm); loads and
// stores fall back to the handler whenever the inline access path does not
// apply (MMU walk, device, page crossing, alignment checking, abort).
import { Op } from './generated/a32-decoder';
import { expandImmediate } from './shifter';

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
// Flag setting.
export const K_CMP_I: u8 = 20;
export const K_CMN_I: u8 = 21;
export const K_CMP_R: u8 = 22;
export const K_CMN_R: u8 = 23;
export const K_TST_I: u8 = 24; // extra: 1 when the immediate's rotation sets C
export const K_TST_R: u8 = 25; // unshifted Rm only (C unchanged)
export const K_ADDS_I: u8 = 26;
export const K_SUBS_I: u8 = 27;
export const K_ADDS_R: u8 = 28;
export const K_SUBS_R: u8 = 29;
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
// Branches. imm = offset + 8 (the target is pc + imm).
export const K_B: u8 = 50;
export const K_BL: u8 = 51;
export const K_BX: u8 = 52; // rm; a Thumb target (bit 0) takes the handler

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
        if (s == 0) {
          switch (op) {
            case Op.MOV_imm: kind = K_MOV_I; break;
            case Op.MVN_imm: kind = K_MOV_I; imm = ~imm; break;
            case Op.ADD_imm: kind = K_ADD_I; break;
            case Op.SUB_imm: kind = K_ADD_I; imm = 0 - imm; break;
            case Op.RSB_imm: kind = K_RSB_I; break;
            case Op.AND_imm: kind = K_AND_I; break;
            case Op.BIC_imm: kind = K_AND_I; imm = ~imm; break;
            case Op.ORR_imm: kind = K_ORR_I; break;
            case Op.EOR_imm: kind = K_EOR_I; break;
          }
        } else if (op == Op.ADD_imm) kind = K_ADDS_I;
        else if (op == Op.SUB_imm) kind = K_SUBS_I;
      }
    }
  } else if (op >= Op.AND_reg && op <= Op.MVN_reg) {
    // Data processing (register, shifted by an immediate), A5.2.3.
    a = regAt(word, 12);
    b = regAt(word, 16);
    c = regAt(word, 0);
    extra = immShift(word);
    const noRn = op == Op.MOV_reg || op == Op.MVN_reg;
    if (!rmPc && (!rnPc || noRn)) {
      if (op == Op.CMP_reg) kind = K_CMP_R;
      else if (op == Op.CMN_reg) kind = K_CMN_R;
      else if (op == Op.TST_reg) kind = extra == 0 ? K_TST_R : 0;
      else if (!rdPc) {
        if (s == 0) {
          switch (op) {
            case Op.MOV_reg: kind = K_MOV_R; break;
            case Op.MVN_reg: kind = K_MVN_R; break;
            case Op.ADD_reg: kind = K_ADD_R; break;
            case Op.SUB_reg: kind = K_SUB_R; break;
            case Op.RSB_reg: kind = K_RSB_R; break;
            case Op.AND_reg: kind = K_AND_R; break;
            case Op.ORR_reg: kind = K_ORR_R; break;
            case Op.EOR_reg: kind = K_EOR_R; break;
            case Op.BIC_reg: kind = K_BIC_R; break;
          }
        } else if (op == Op.ADD_reg) kind = K_ADDS_R;
        else if (op == Op.SUB_reg) kind = K_SUBS_R;
      }
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
  store<u8>(rec, kind);
  store<u8>(rec, u8(a), 1);
  store<u8>(rec, u8(b), 2);
  store<u8>(rec, u8(c), 3);
  store<u32>(rec, imm, 4);
  store<u32>(rec, extra, 8);
}
