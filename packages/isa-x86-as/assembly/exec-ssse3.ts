// SSE3 and SSSE3 (SDM vol. 2, the instruction pages; vol. 1, 12.5-12.9):
// alternating and horizontal floating-point arithmetic, duplicating moves,
// LDDQU, and the supplemental integer instructions (PSHUFB, PALIGNR,
// PHADD/PHSUB, PMADDUBSW, PMULHRSW, PSIGN, PABS). The integer ones also
// serve their MMX forms through the MMX view of sse-operands.ts.
import { dReg, dRm, dMod, dImm } from './insn';
import { readV, faultVector } from './cpu';
import { effectiveAddress } from './exec';
import { xmm, readW128, binop, put, dst, SCRATCH, mmxOperands } from './sse-operands';
import { laneF64, laneF32, sseBegin, sseCommit } from './sse-float';

// ---- SSE3 floating point ----------------------------------------------------------------
// ADDSUBPD (66 0F D0): the low lane subtracts, the high lane adds; ADDSUBPS (F2 0F D0): even lanes subtract
export function exec_addsubpd(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  sseBegin();
  const r0 = laneF64(1, load<u64>(d), <u64>i64x2.extract_lane(b, 0));
  const r1 = laneF64(0, load<u64>(d, 8), <u64>i64x2.extract_lane(b, 1));
  if (sseCommit()) { store<u64>(d, r0); store<u64>(d, r1, 8); }
}
export function exec_addsubps(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  v128.store(SCRATCH, b);
  sseBegin();
  for (let i: usize = 0; i < 16; i += 4) store<u32>(SCRATCH + 16 + i, laneF32((i & 4) != 0 ? 0 : 1, load<u32>(d + i), load<u32>(SCRATCH + i)));
  if (sseCommit()) v128.store(d, v128.load(SCRATCH + 16));
}
// HADDPD/HSUBPD (66 0F 7C/7D): [d0 op d1, s0 op s1]; HADDPS/HSUBPS (F2 0F 7C/7D): the destination's pairs, then the source's
function horizontalPd(op: i32): void {
  const b = binop();
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  sseBegin();
  const lo = laneF64(op, load<u64>(d), load<u64>(d, 8));
  const hi = laneF64(op, <u64>i64x2.extract_lane(b, 0), <u64>i64x2.extract_lane(b, 1));
  if (sseCommit()) { store<u64>(d, lo); store<u64>(d, hi, 8); }
}
function horizontalPs(op: i32): void {
  const b = binop();
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  v128.store(SCRATCH, b);
  sseBegin();
  const r0 = laneF32(op, load<u32>(d), load<u32>(d, 4)), r1 = laneF32(op, load<u32>(d, 8), load<u32>(d, 12));
  const r2 = laneF32(op, load<u32>(SCRATCH), load<u32>(SCRATCH, 4)), r3 = laneF32(op, load<u32>(SCRATCH, 8), load<u32>(SCRATCH, 12));
  if (sseCommit()) { store<u32>(d, r0); store<u32>(d, r1, 4); store<u32>(d, r2, 8); store<u32>(d, r3, 12); }
}
export function exec_haddpd(): void { horizontalPd(0); }
export function exec_hsubpd(): void { horizontalPd(1); }
export function exec_haddps(): void { horizontalPs(0); }
export function exec_hsubps(): void { horizontalPs(1); }

// ---- SSE3 moves -------------------------------------------------------------------------
// LDDQU (F2 0F F0, memory only): an unaligned 128-bit load
export function exec_lddqu(): void { const v = readW128(false); put(v); }
// MOVDDUP (F2 0F 12): the low quadword twice (an m64 operand: no alignment)
export function exec_movddup(): void {
  const lo = dMod() == 3 ? load<u64>(xmm(dRm())) : readV(effectiveAddress(), 8);
  if (faultVector >= 0) return;
  v128.store(xmm(dReg()), i64x2.splat(<i64>lo));
}
// MOVSLDUP (F3 0F 12): the even doublewords twice; MOVSHDUP (F3 0F 16): the odd ones
export function exec_movsldup(): void { const s = binop(); put(v128.shuffle<u32>(s, s, 0, 0, 2, 2)); }
export function exec_movshdup(): void { const s = binop(); put(v128.shuffle<u32>(s, s, 1, 1, 3, 3)); }

// ---- SSSE3 -------------------------------------------------------------------------------
// PSHUFB: each destination byte becomes the destination byte the source byte
// selects (bits 3:0; 2:0 for MMX), or 0 when the source byte's bit 7 is set
export function exec_pshufb(): void {
  const b = binop();
  if (faultVector >= 0) return;
  put(i8x16.swizzle(dst(), v128.and(b, i8x16.splat(<i8>(mmxOperands ? 0x87 : 0x8f)))));
}
// PALIGNR: destination:source (the destination the high half) shifted right by
// imm8 bytes, the low half kept; bytes past the pair read as zero
export function exec_palignr(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const n = <u32>dImm() & 0xff;
  const width: u32 = mmxOperands ? 8 : 16;
  v128.store(SCRATCH, i64x2.splat(0)); v128.store(SCRATCH + 16, i64x2.splat(0));
  v128.store(SCRATCH + 32, i64x2.splat(0)); v128.store(SCRATCH + 48, i64x2.splat(0));
  v128.store(SCRATCH, b);
  if (mmxOperands) store<u64>(SCRATCH + 8, <u64>i64x2.extract_lane(dst(), 0));
  else v128.store(SCRATCH + 16, dst());
  put(n < 2 * width ? v128.load(SCRATCH + n) : i64x2.splat(0));
}

/**
 * PHADD/PHSUB: adjacent words (doublewords) of the destination, then of the
 * source, added or subtracted in pairs (saturating for PHADDSW/PHSUBSW).
 * MMX: the two quadwords make one 128-bit sequence.
 */
function horizontalInt(size: i32, subtract: bool, saturate: bool): void {
  const b = binop();
  if (faultVector >= 0) return;
  const a = dst();
  const x = mmxOperands ? v128.shuffle<u64>(a, b, 0, 2) : a;
  const y = mmxOperands ? x : b;
  if (size == 2) {
    const evens = v128.shuffle<u16>(x, y, 0, 2, 4, 6, 8, 10, 12, 14);
    const odds = v128.shuffle<u16>(x, y, 1, 3, 5, 7, 9, 11, 13, 15);
    put(subtract ? (saturate ? i16x8.sub_sat_s(evens, odds) : i16x8.sub(evens, odds)) : (saturate ? i16x8.add_sat_s(evens, odds) : i16x8.add(evens, odds)));
  } else {
    const evens = v128.shuffle<u32>(x, y, 0, 2, 4, 6);
    const odds = v128.shuffle<u32>(x, y, 1, 3, 5, 7);
    put(subtract ? i32x4.sub(evens, odds) : i32x4.add(evens, odds));
  }
}
export function exec_phaddw(): void { horizontalInt(2, false, false); }
export function exec_phaddd(): void { horizontalInt(4, false, false); }
export function exec_phaddsw(): void { horizontalInt(2, false, true); }
export function exec_phsubw(): void { horizontalInt(2, true, false); }
export function exec_phsubd(): void { horizontalInt(4, true, false); }
export function exec_phsubsw(): void { horizontalInt(2, true, true); }

// PMADDUBSW: unsigned destination bytes times signed source bytes; the two products of a word summed, saturated
export function exec_pmaddubsw(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const a = dst();
  const aEven = v128.and(a, i16x8.splat(0xff)), bEven = i16x8.shr_s(i16x8.shl(b, 8), 8);
  const aOdd = i16x8.shr_u(a, 8), bOdd = i16x8.shr_s(b, 8);
  put(i16x8.add_sat_s(i16x8.mul(aEven, bEven), i16x8.mul(aOdd, bOdd)));
}
// PMULHRSW: signed words multiplied, rounded and scaled: bits 16:1 of (a * b >> 14) + 1
export function exec_pmulhrsw(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const a = dst();
  const lo = i32x4.shr_s(i32x4.add(i32x4.extmul_low_i16x8_s(a, b), i32x4.splat(0x4000)), 15);
  const hi = i32x4.shr_s(i32x4.add(i32x4.extmul_high_i16x8_s(a, b), i32x4.splat(0x4000)), 15);
  put(v128.shuffle<u16>(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14));
}
// PSIGNB/W/D: each destination element negated, kept or zeroed as the source element is negative, positive or zero
function sign(size: i32): void {
  const b = binop();
  if (faultVector >= 0) return;
  const a = dst();
  if (size == 1) put(v128.bitselect(i8x16.neg(a), v128.andnot(a, i8x16.eq(b, i8x16.splat(0))), i8x16.lt_s(b, i8x16.splat(0))));
  else if (size == 2) put(v128.bitselect(i16x8.neg(a), v128.andnot(a, i16x8.eq(b, i16x8.splat(0))), i16x8.lt_s(b, i16x8.splat(0))));
  else put(v128.bitselect(i32x4.neg(a), v128.andnot(a, i32x4.eq(b, i32x4.splat(0))), i32x4.lt_s(b, i32x4.splat(0))));
}
export function exec_psignb(): void { sign(1); }
export function exec_psignw(): void { sign(2); }
export function exec_psignd(): void { sign(4); }
// PABSB/W/D: absolute values (the most negative value stays as it is)
export function exec_pabsb(): void { const b = binop(); put(i8x16.abs(b)); }
export function exec_pabsw(): void { const b = binop(); put(i16x8.abs(b)); }
export function exec_pabsd(): void { const b = binop(); put(i32x4.abs(b)); }
