// SSE and SSE2 (SDM vol. 1, chapters 10 and 11): moves, logic, packed
// integer arithmetic, compares, shuffles and unpacks, and the scalar and
// packed floating-point arithmetic, compares and conversions. XMM registers
// live in XMM (16 x 16 bytes). Floating-point lanes go through sse-float.ts:
// NaN rules, MXCSR's rounding control, FTZ/DAZ and exceptions (flags, #XM);
// out-of-range conversions give the integer indefinite value.
import { dReg, dRm, dMod, dRex, dImm, dAddr32, dOpcode } from './insn';
import { XMM, readV, writeV, readReg, writeReg, faultVector, rflags, setFlags, ARITH_FLAGS, ZF, PF, CF, reg64 } from './cpu';
import { effectiveAddress } from './exec';
import { xmm, readW128, writeW128, binop, put, dst, maskedStore, SCRATCH } from './sse-operands';
import { laneF64, laneF32, isNaN32, sseBegin, sseCommit, compareLanes, comparedA, comparedB, f32ToF64, f64ToF32, intToFloat, floatToInt } from './sse-float';


// ---- moves ----------------------------------------------------------------------------
export function exec_movups(): void { const v = readW128(false); if (faultVector < 0) v128.store(xmm(dReg()), v); }
export function exec_movaps(): void { const v = readW128(true); if (faultVector < 0) v128.store(xmm(dReg()), v); }
export function exec_movups_st(): void { writeW128(v128.load(xmm(dReg())), false); }
export function exec_movaps_st(): void { writeW128(v128.load(xmm(dReg())), true); }

export function exec_movss_load(): void {
  if (dMod() == 3) { store<u32>(xmm(dReg()), load<u32>(xmm(dRm()))); return; }
  const v = readV(effectiveAddress(), 4);
  if (faultVector >= 0) return;
  v128.store(xmm(dReg()), i32x4.replace_lane(i32x4.splat(0), 0, <i32>v));
}
export function exec_movsd_load(): void {
  if (dMod() == 3) { store<u64>(xmm(dReg()), load<u64>(xmm(dRm()))); return; }
  const v = readV(effectiveAddress(), 8);
  if (faultVector >= 0) return;
  v128.store(xmm(dReg()), i64x2.replace_lane(i64x2.splat(0), 0, <i64>v));
}
export function exec_movss_store(): void {
  if (dMod() == 3) store<u32>(xmm(dRm()), load<u32>(xmm(dReg())));
  else writeV(effectiveAddress(), 4, <u64>load<u32>(xmm(dReg())));
}
export function exec_movsd_store(): void {
  if (dMod() == 3) store<u64>(xmm(dRm()), load<u64>(xmm(dReg())));
  else writeV(effectiveAddress(), 8, load<u64>(xmm(dReg())));
}
export function exec_movlpd_load(): void { const v = readV(effectiveAddress(), 8); if (faultVector < 0) store<u64>(xmm(dReg()), v); }
export function exec_movhpd_load(): void { const v = readV(effectiveAddress(), 8); if (faultVector < 0) store<u64>(xmm(dReg()), v, 8); }
export function exec_movlpd_store(): void { writeV(effectiveAddress(), 8, load<u64>(xmm(dReg()))); }
export function exec_movhpd_store(): void { writeV(effectiveAddress(), 8, load<u64>(xmm(dReg()), 8)); }

// 66 0F 6E movd/movq xmm, r/m; 66 0F 7E movd/movq r/m, xmm; F3 0F 7E movq xmm, xmm/m64; 66 0F D6 movq xmm/m64, xmm
export function exec_movd_to_xmm(): void {
  const size = (dRex() & 8) != 0 ? 8 : 4;
  const v = dMod() == 3 ? readReg(dRm(), size, true) : readV(effectiveAddress(), size);
  if (faultVector >= 0) return;
  v128.store(xmm(dReg()), i64x2.replace_lane(i64x2.splat(0), 0, <i64>v));
}
export function exec_movd_from_xmm(): void {
  const size = (dRex() & 8) != 0 ? 8 : 4;
  const v = load<u64>(xmm(dReg()));
  if (dMod() == 3) writeReg(dRm(), size, true, size == 8 ? v : v & 0xffffffff);
  else writeV(effectiveAddress(), size, v);
}
export function exec_movq_load(): void {
  const v = dMod() == 3 ? load<u64>(xmm(dRm())) : readV(effectiveAddress(), 8);
  if (faultVector >= 0) return;
  v128.store(xmm(dReg()), i64x2.replace_lane(i64x2.splat(0), 0, <i64>v));
}
export function exec_movq_store(): void {
  const v = load<u64>(xmm(dReg()));
  if (dMod() == 3) v128.store(xmm(dRm()), i64x2.replace_lane(i64x2.splat(0), 0, <i64>v));
  else writeV(effectiveAddress(), 8, v);
}

// ---- logic and packed integer -------------------------------------------------------------

export function exec_pand(): void { const b = binop(); put(v128.and(dst(), b)); }
export function exec_pandn(): void { const b = binop(); put(v128.andnot(b, dst())); }
export function exec_por(): void { const b = binop(); put(v128.or(dst(), b)); }
export function exec_pxor(): void { const b = binop(); put(v128.xor(dst(), b)); }
export function exec_paddb(): void { const b = binop(); put(i8x16.add(dst(), b)); }
export function exec_paddw(): void { const b = binop(); put(i16x8.add(dst(), b)); }
export function exec_paddd(): void { const b = binop(); put(i32x4.add(dst(), b)); }
export function exec_paddq(): void { const b = binop(); put(i64x2.add(dst(), b)); }
export function exec_psubb(): void { const b = binop(); put(i8x16.sub(dst(), b)); }
export function exec_psubw(): void { const b = binop(); put(i16x8.sub(dst(), b)); }
export function exec_psubd(): void { const b = binop(); put(i32x4.sub(dst(), b)); }
export function exec_psubq(): void { const b = binop(); put(i64x2.sub(dst(), b)); }
export function exec_pcmpeqb(): void { const b = binop(); put(i8x16.eq(dst(), b)); }
export function exec_pcmpeqw(): void { const b = binop(); put(i16x8.eq(dst(), b)); }
export function exec_pcmpeqd(): void { const b = binop(); put(i32x4.eq(dst(), b)); }
export function exec_pcmpgtb(): void { const b = binop(); put(i8x16.gt_s(dst(), b)); }
export function exec_pcmpgtw(): void { const b = binop(); put(i16x8.gt_s(dst(), b)); }
export function exec_pcmpgtd(): void { const b = binop(); put(i32x4.gt_s(dst(), b)); }
export function exec_pminub(): void { const b = binop(); put(i8x16.min_u(dst(), b)); }
export function exec_pmaxub(): void { const b = binop(); put(i8x16.max_u(dst(), b)); }
export function exec_punpcklbw(): void { const b = binop(); put(v128.shuffle<u8>(dst(), b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23)); }
export function exec_punpckhbw(): void { const b = binop(); put(v128.shuffle<u8>(dst(), b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31)); }
export function exec_punpcklwd(): void { const b = binop(); put(v128.shuffle<u16>(dst(), b, 0, 8, 1, 9, 2, 10, 3, 11)); }
export function exec_punpckhwd(): void { const b = binop(); put(v128.shuffle<u16>(dst(), b, 4, 12, 5, 13, 6, 14, 7, 15)); }
export function exec_punpckldq(): void { const b = binop(); put(v128.shuffle<u32>(dst(), b, 0, 4, 1, 5)); }
export function exec_punpckhdq(): void { const b = binop(); put(v128.shuffle<u32>(dst(), b, 2, 6, 3, 7)); }
export function exec_punpcklqdq(): void { const b = binop(); put(v128.shuffle<u64>(dst(), b, 0, 2)); }
export function exec_punpckhqdq(): void { const b = binop(); put(v128.shuffle<u64>(dst(), b, 1, 3)); }
export function exec_pmovmskb(): void { writeReg(dReg(), 4, true, <u64>i8x16.bitmask(v128.load(xmm(dRm())))); }

export function exec_pshufd(): void {
  const s = readW128(true);
  if (faultVector >= 0) return;
  const order = <u32>dImm();
  const t = SCRATCH;
  v128.store(t, s);
  let r = i32x4.splat(0);
  r = i32x4.replace_lane(r, 0, load<i32>(t + ((order & 3) << 2)));
  r = i32x4.replace_lane(r, 1, load<i32>(t + (((order >> 2) & 3) << 2)));
  r = i32x4.replace_lane(r, 2, load<i32>(t + (((order >> 4) & 3) << 2)));
  r = i32x4.replace_lane(r, 3, load<i32>(t + (((order >> 6) & 3) << 2)));
  v128.store(xmm(dReg()), r);
}
function shuffleWords(high: bool): void {
  const s = readW128(true);
  if (faultVector >= 0) return;
  const t = SCRATCH;
  v128.store(t, s);
  const order = <u32>dImm();
  const base: usize = high ? 8 : 0;
  const w0 = load<u16>(t + base + ((order & 3) << 1)), w1 = load<u16>(t + base + (((order >> 2) & 3) << 1));
  const w2 = load<u16>(t + base + (((order >> 4) & 3) << 1)), w3 = load<u16>(t + base + (((order >> 6) & 3) << 1));
  store<u16>(t + base, w0); store<u16>(t + base + 2, w1); store<u16>(t + base + 4, w2); store<u16>(t + base + 6, w3);
  v128.store(xmm(dReg()), v128.load(t));
}
export function exec_pshufhw(): void { shuffleWords(true); }
export function exec_pshuflw(): void { shuffleWords(false); }
export function exec_shufps(): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  const t = SCRATCH;
  v128.store(t, dst());
  v128.store(t + 16, b);
  const o = <u32>dImm();
  const r0 = load<u32>(t + ((o & 3) << 2)), r1 = load<u32>(t + (((o >> 2) & 3) << 2));
  const r2 = load<u32>(t + 16 + (((o >> 4) & 3) << 2)), r3 = load<u32>(t + 16 + (((o >> 6) & 3) << 2));
  const d = xmm(dReg());
  store<u32>(d, r0); store<u32>(d, r1, 4); store<u32>(d, r2, 8); store<u32>(d, r3, 12);
}
export function exec_shufpd(): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  const o = <u32>dImm();
  const d = xmm(dReg());
  const lo = load<u64>(d + ((o & 1) << 3));
  const t = SCRATCH;
  v128.store(t, b);
  const hi = load<u64>(t + (((o >> 1) & 1) << 3));
  store<u64>(d, lo); store<u64>(d, hi, 8);
}
// 66 0F 73 /3 psrldq, /7 pslldq (byte shifts of the whole register)
export function exec_psrldq(): void {
  const n = <u32>dImm() > 16 ? 16 : <u32>dImm();
  const d = xmm(dRm());
  const t = SCRATCH;
  v128.store(t, i64x2.splat(0)); v128.store(t + 16, i64x2.splat(0));
  v128.store(t, v128.load(d));
  v128.store(d, v128.load(t + n));
}
export function exec_pslldq(): void {
  const n = <u32>dImm() > 16 ? 16 : <u32>dImm();
  const d = xmm(dRm());
  const t = SCRATCH;
  v128.store(t, i64x2.splat(0)); v128.store(t + 16, v128.load(d));
  v128.store(d, v128.load(t + 16 - n));
}
// shifts by immediate (66 0F 71/72/73)
export function exec_psrlw_i(): void { const c = <u32>dImm(); v128.store(xmm(dRm()), c > 15 ? i64x2.splat(0) : i16x8.shr_u(v128.load(xmm(dRm())), c)); }
export function exec_psllw_i(): void { const c = <u32>dImm(); v128.store(xmm(dRm()), c > 15 ? i64x2.splat(0) : i16x8.shl(v128.load(xmm(dRm())), c)); }
export function exec_psraw_i(): void { const c = <u32>dImm(); v128.store(xmm(dRm()), i16x8.shr_s(v128.load(xmm(dRm())), c > 15 ? 15 : c)); }
export function exec_psrld_i(): void { const c = <u32>dImm(); v128.store(xmm(dRm()), c > 31 ? i64x2.splat(0) : i32x4.shr_u(v128.load(xmm(dRm())), c)); }
export function exec_pslld_i(): void { const c = <u32>dImm(); v128.store(xmm(dRm()), c > 31 ? i64x2.splat(0) : i32x4.shl(v128.load(xmm(dRm())), c)); }
export function exec_psrad_i(): void { const c = <u32>dImm(); v128.store(xmm(dRm()), i32x4.shr_s(v128.load(xmm(dRm())), c > 31 ? 31 : c)); }
export function exec_psrlq_i(): void { const c = <u32>dImm(); v128.store(xmm(dRm()), c > 63 ? i64x2.splat(0) : i64x2.shr_u(v128.load(xmm(dRm())), c)); }
export function exec_psllq_i(): void { const c = <u32>dImm(); v128.store(xmm(dRm()), c > 63 ? i64x2.splat(0) : i64x2.shl(v128.load(xmm(dRm())), c)); }

// ---- more SSE2 packed integer (66-prefixed forms; SDM vol. 2 PACKSSWB ... PSADBW) ----------
// Saturating packs: the destination's elements fill the low half, the source's the high half.
export function exec_packsswb(): void { const b = binop(); put(i8x16.narrow_i16x8_s(dst(), b)); }
export function exec_packuswb(): void { const b = binop(); put(i8x16.narrow_i16x8_u(dst(), b)); }
export function exec_packssdw(): void { const b = binop(); put(i16x8.narrow_i32x4_s(dst(), b)); }
// Saturating add/subtract, averages, signed word min/max, low multiply.
export function exec_paddsb(): void { const b = binop(); put(i8x16.add_sat_s(dst(), b)); }
export function exec_paddsw(): void { const b = binop(); put(i16x8.add_sat_s(dst(), b)); }
export function exec_paddusb(): void { const b = binop(); put(i8x16.add_sat_u(dst(), b)); }
export function exec_paddusw(): void { const b = binop(); put(i16x8.add_sat_u(dst(), b)); }
export function exec_psubsb(): void { const b = binop(); put(i8x16.sub_sat_s(dst(), b)); }
export function exec_psubsw(): void { const b = binop(); put(i16x8.sub_sat_s(dst(), b)); }
export function exec_psubusb(): void { const b = binop(); put(i8x16.sub_sat_u(dst(), b)); }
export function exec_psubusw(): void { const b = binop(); put(i16x8.sub_sat_u(dst(), b)); }
export function exec_pavgb(): void { const b = binop(); put(i8x16.avgr_u(dst(), b)); }
export function exec_pavgw(): void { const b = binop(); put(i16x8.avgr_u(dst(), b)); }
export function exec_pminsw(): void { const b = binop(); put(i16x8.min_s(dst(), b)); }
export function exec_pmaxsw(): void { const b = binop(); put(i16x8.max_s(dst(), b)); }
export function exec_pmullw(): void { const b = binop(); put(i16x8.mul(dst(), b)); }
// High halves of the 32-bit word products.
export function exec_pmulhw(): void {
  const b = binop();
  const a = dst();
  put(v128.shuffle<u16>(i32x4.extmul_low_i16x8_s(a, b), i32x4.extmul_high_i16x8_s(a, b), 1, 3, 5, 7, 9, 11, 13, 15));
}
export function exec_pmulhuw(): void {
  const b = binop();
  const a = dst();
  put(v128.shuffle<u16>(i32x4.extmul_low_i16x8_u(a, b), i32x4.extmul_high_i16x8_u(a, b), 1, 3, 5, 7, 9, 11, 13, 15));
}
// Unsigned products of doublewords 0 and 2 into quadwords.
export function exec_pmuludq(): void {
  const b = binop();
  const a = dst();
  put(i64x2.extmul_low_i32x4_u(v128.shuffle<u32>(a, a, 0, 2, 0, 2), v128.shuffle<u32>(b, b, 0, 2, 0, 2)));
}
export function exec_pmaddwd(): void { const b = binop(); put(i32x4.dot_i16x8_s(dst(), b)); }
// Sum of absolute byte differences of each quadword, into its low word.
export function exec_psadbw(): void {
  const b = binop();
  const a = dst();
  const d = i8x16.sub(i8x16.max_u(a, b), i8x16.min_u(a, b));
  const s = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(d));
  const lo = <i64>(i32x4.extract_lane(s, 0) + i32x4.extract_lane(s, 1));
  const hi = <i64>(i32x4.extract_lane(s, 2) + i32x4.extract_lane(s, 3));
  put(i64x2.replace_lane(i64x2.splat(lo), 1, hi));
}
// Shifts by the count in the source's low quadword: logical shifts past the
// element width give 0, arithmetic ones fill with the sign.
// @ts-ignore: decorator
@inline function shiftCount(): u64 {
  // the operand is 128 bits (aligned like the other forms); only its low quadword counts
  return <u64>i64x2.extract_lane(readW128(true), 0);
}
export function exec_psrlw(): void { const c = shiftCount(); if (faultVector >= 0) return; put(c > 15 ? i64x2.splat(0) : i16x8.shr_u(dst(), <i32>c)); }
export function exec_psrld(): void { const c = shiftCount(); if (faultVector >= 0) return; put(c > 31 ? i64x2.splat(0) : i32x4.shr_u(dst(), <i32>c)); }
export function exec_psrlq(): void { const c = shiftCount(); if (faultVector >= 0) return; put(c > 63 ? i64x2.splat(0) : i64x2.shr_u(dst(), <i32>c)); }
export function exec_psllw(): void { const c = shiftCount(); if (faultVector >= 0) return; put(c > 15 ? i64x2.splat(0) : i16x8.shl(dst(), <i32>c)); }
export function exec_pslld(): void { const c = shiftCount(); if (faultVector >= 0) return; put(c > 31 ? i64x2.splat(0) : i32x4.shl(dst(), <i32>c)); }
export function exec_psllq(): void { const c = shiftCount(); if (faultVector >= 0) return; put(c > 63 ? i64x2.splat(0) : i64x2.shl(dst(), <i32>c)); }
export function exec_psraw(): void { const c = shiftCount(); if (faultVector >= 0) return; put(i16x8.shr_s(dst(), c > 15 ? 15 : <i32>c)); }
export function exec_psrad(): void { const c = shiftCount(); if (faultVector >= 0) return; put(i32x4.shr_s(dst(), c > 31 ? 31 : <i32>c)); }
// 66 0F C4 pinsrw xmm, r32/m16, imm8; 66 0F C5 pextrw r32, xmm, imm8
export function exec_pinsrw(): void {
  const v = dMod() == 3 ? reg64(dRm()) : readV(effectiveAddress(), 2);
  if (faultVector >= 0) return;
  store<u16>(xmm(dReg()) + ((<usize>dImm() & 7) << 1), <u16>v);
}
export function exec_pextrw(): void { writeReg(dReg(), 4, true, <u64>load<u16>(xmm(dRm()) + ((<usize>dImm() & 7) << 1))); }

// ---- floating point ---------------------------------------------------------------------------
// Every lane goes through sse-float.ts (NaN rules, MXCSR rounding and
// exceptions); results are written only after sseCommit, so an unmasked
// exception leaves the destination as it was.
function srcSd(): u64 { return dMod() == 3 ? load<u64>(xmm(dRm())) : readV(effectiveAddress(), 8); }
function srcSs(): u32 { return dMod() == 3 ? load<u32>(xmm(dRm())) : <u32>readV(effectiveAddress(), 4); }

/** Scalar forms (F2/F3 0F 51, 58-5F): the low lane; op as laneF64's. */
function arithSd(op: i32): void {
  const b = srcSd();
  if (faultVector >= 0) return;
  sseBegin();
  const r = laneF64(op, load<u64>(xmm(dReg())), b);
  if (sseCommit()) store<u64>(xmm(dReg()), r);
}
function arithSs(op: i32): void {
  const b = srcSs();
  if (faultVector >= 0) return;
  sseBegin();
  const r = laneF32(op, load<u32>(xmm(dReg())), b);
  if (sseCommit()) store<u32>(xmm(dReg()), r);
}
// packed forms (NP 0F 51/58-5F ps, 66 pd): every lane as the scalar form
function arithPd(op: i32): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  sseBegin();
  const r0 = laneF64(op, load<u64>(d), <u64>i64x2.extract_lane(b, 0));
  const r1 = laneF64(op, load<u64>(d, 8), <u64>i64x2.extract_lane(b, 1));
  if (sseCommit()) { store<u64>(d, r0); store<u64>(d, r1, 8); }
}
function arithPs(op: i32): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  v128.store(SCRATCH, b);
  sseBegin();
  for (let i: usize = 0; i < 16; i += 4) store<u32>(SCRATCH + 16 + i, laneF32(op, load<u32>(d + i), load<u32>(SCRATCH + i)));
  if (sseCommit()) v128.store(d, v128.load(SCRATCH + 16));
}
export function exec_addpd(): void { arithPd(0); }
export function exec_subpd(): void { arithPd(1); }
export function exec_mulpd(): void { arithPd(2); }
export function exec_divpd(): void { arithPd(3); }
export function exec_minpd(): void { arithPd(4); }
export function exec_maxpd(): void { arithPd(5); }
export function exec_sqrtpd(): void { arithPd(6); }
export function exec_addps(): void { arithPs(0); }
export function exec_subps(): void { arithPs(1); }
export function exec_mulps(): void { arithPs(2); }
export function exec_divps(): void { arithPs(3); }
export function exec_minps(): void { arithPs(4); }
export function exec_maxps(): void { arithPs(5); }
export function exec_sqrtps(): void { arithPs(6); }
export function exec_addsd(): void { arithSd(0); }
export function exec_subsd(): void { arithSd(1); }
export function exec_mulsd(): void { arithSd(2); }
export function exec_divsd(): void { arithSd(3); }
export function exec_minsd(): void { arithSd(4); }
export function exec_maxsd(): void { arithSd(5); }
export function exec_sqrtsd(): void { arithSd(6); }
export function exec_addss(): void { arithSs(0); }
export function exec_subss(): void { arithSs(1); }
export function exec_mulss(): void { arithSs(2); }
export function exec_divss(): void { arithSs(3); }
export function exec_minss(): void { arithSs(4); }
export function exec_maxss(): void { arithSs(5); }
export function exec_sqrtss(): void { arithSs(6); }

// RCPPS/RCPSS, RSQRTPS/RSQRTSS (0F 53, 0F 52): approximations the SDM bounds to a
// relative error of 1.5 * 2^-12, here the correctly rounded single. No
// exceptions: a denormal source is read as zero (giving infinity), a result
// below 2^-126 in magnitude is flushed to zero, and the reciprocal square
// root of a negative number is the default NaN.
function approximate(b: u32, root: bool): u32 {
  if (isNaN32(b)) return b | 0x400000;
  const sign = b & 0x80000000;
  if ((b & 0x7f800000) == 0) return sign | 0x7f800000;
  if ((b & 0x7fffffff) == 0x7f800000) return root && sign != 0 ? 0xffc00000 : sign;
  if (root && sign != 0) return 0xffc00000;
  const x = <f64>reinterpret<f32>(b);
  const r = reinterpret<u32>(<f32>(root ? 1.0 / Math.sqrt(x) : 1.0 / x));
  return (r & 0x7f800000) == 0 ? r & 0x80000000 : r;
}
function approximatePs(root: bool): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  v128.store(SCRATCH, b);
  for (let i: usize = 0; i < 16; i += 4) store<u32>(SCRATCH + i, approximate(load<u32>(SCRATCH + i), root));
  put(v128.load(SCRATCH));
}
export function exec_rcpps(): void { approximatePs(false); }
export function exec_rsqrtps(): void { approximatePs(true); }
export function exec_rcpss(): void { const b = srcSs(); if (faultVector < 0) store<u32>(xmm(dReg()), approximate(b, false)); }
export function exec_rsqrtss(): void { const b = srcSs(); if (faultVector < 0) store<u32>(xmm(dReg()), approximate(b, true)); }

// cmpps/cmppd/cmpss/cmpsd (0F C2 /r ib): predicate imm8[2:0] = eq lt le unord neq nlt nle ord; all ones or zero
// (lt, le, nlt, nle signal invalid for a QNaN too)
// @ts-ignore: decorator
@inline function predicate(p: u32, unordered: bool, less: bool, equal: bool): bool {
  const q = p & 3;
  const r = q == 0 ? (!unordered && equal) : q == 1 ? (!unordered && less) : q == 2 ? (!unordered && (less || equal)) : unordered;
  return (p & 4) != 0 ? !r : r;
}
function cmpF64(a: u64, b: u64): u64 {
  const p = <u32>dImm() & 7;
  compareLanes(a, b, (p & 3) == 1 || (p & 3) == 2, false);
  const x = comparedA, y = comparedB;
  return predicate(p, x != x || y != y, x < y, x == y) ? <u64>-1 : 0;
}
function cmpF32(a: u32, b: u32): u32 {
  const p = <u32>dImm() & 7;
  compareLanes(<u64>a, <u64>b, (p & 3) == 1 || (p & 3) == 2, true);
  const x = comparedA, y = comparedB;
  return predicate(p, x != x || y != y, x < y, x == y) ? <u32>-1 : 0;
}
export function exec_cmppd(): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  sseBegin();
  const r0 = cmpF64(load<u64>(d), <u64>i64x2.extract_lane(b, 0));
  const r1 = cmpF64(load<u64>(d, 8), <u64>i64x2.extract_lane(b, 1));
  if (sseCommit()) { store<u64>(d, r0); store<u64>(d, r1, 8); }
}
export function exec_cmpps(): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  v128.store(SCRATCH, b);
  sseBegin();
  for (let i: usize = 0; i < 16; i += 4) store<u32>(SCRATCH + 16 + i, cmpF32(load<u32>(d + i), load<u32>(SCRATCH + i)));
  if (sseCommit()) v128.store(d, v128.load(SCRATCH + 16));
}
function compareScalar(single: bool): void {
  const b = single ? <u64>srcSs() : srcSd();
  if (faultVector >= 0) return;
  sseBegin();
  const r = single ? <u64>cmpF32(load<u32>(xmm(dReg())), <u32>b) : cmpF64(load<u64>(xmm(dReg())), b);
  if (!sseCommit()) return;
  if (single) store<u32>(xmm(dReg()), <u32>r); else store<u64>(xmm(dReg()), r);
}
export function exec_cmpsd(): void { compareScalar(false); }
export function exec_cmpss(): void { compareScalar(true); }

// ucomisd/comisd (66 0F 2E/2F), ucomiss/comiss: ZF PF CF = 111 unordered, 100 equal, 001 less, 000 greater;
// COMISx signals invalid for a QNaN too (opcode 2F)
function compareFlags(unordered: bool, less: bool, equal: bool): void {
  let f: u64 = 0;
  if (unordered) f = ZF | PF | CF;
  else if (equal) f = ZF;
  else if (less) f = CF;
  setFlags((rflags & ~ARITH_FLAGS) | f);
}
export function exec_ucomisd(): void {
  const b = srcSd();
  if (faultVector >= 0) return;
  sseBegin();
  compareLanes(load<u64>(xmm(dReg())), b, dOpcode() == 0x2f, false);
  const x = comparedA, y = comparedB;
  if (sseCommit()) compareFlags(x != x || y != y, x < y, x == y);
}
export function exec_ucomiss(): void {
  const b = srcSs();
  if (faultVector >= 0) return;
  sseBegin();
  compareLanes(<u64>load<u32>(xmm(dReg())), <u64>b, dOpcode() == 0x2f, true);
  const x = comparedA, y = comparedB;
  if (sseCommit()) compareFlags(x != x || y != y, x < y, x == y);
}

// ---- conversions ----------------------------------------------------------------------------------
// integers to floating point (F2/F3 0F 2A): rounded with MXCSR.RC
function intToScalar(single: bool): void {
  const size = (dRex() & 8) != 0 ? 8 : 4;
  const v = dMod() == 3 ? readReg(dRm(), size, true) : readV(effectiveAddress(), size);
  if (faultVector >= 0) return;
  sseBegin();
  const r = intToFloat(size == 8 ? <i64>v : <i64><i32><u32>v, single);
  if (!sseCommit()) return;
  if (single) store<u32>(xmm(dReg()), <u32>r); else store<u64>(xmm(dReg()), r);
}
export function exec_cvtsi2sd(): void { intToScalar(false); }
export function exec_cvtsi2ss(): void { intToScalar(true); }
// floating point to integers (F2/F3 0F 2C truncating, 2D with MXCSR.RC)
function toInt(x: f64, truncate: bool, denormal: bool): void {
  const size = (dRex() & 8) != 0 ? 8 : 4;
  sseBegin();
  const r = floatToInt(x, size, truncate, denormal);
  if (sseCommit()) writeReg(dReg(), size, true, r);
}
function isDenormal64(b: u64): bool { return (b & 0x7ff0000000000000) == 0 && (b << 1) != 0; }
function isDenormal32(b: u32): bool { return (b & 0x7f800000) == 0 && (b << 1) != 0; }
export function exec_cvttsd2si(): void { const b = srcSd(); if (faultVector < 0) toInt(reinterpret<f64>(b), true, isDenormal64(b)); }
export function exec_cvtsd2si(): void { const b = srcSd(); if (faultVector < 0) toInt(reinterpret<f64>(b), false, isDenormal64(b)); }
export function exec_cvttss2si(): void { const b = srcSs(); if (faultVector < 0) toInt(<f64>reinterpret<f32>(b), true, isDenormal32(b)); }
export function exec_cvtss2si(): void { const b = srcSs(); if (faultVector < 0) toInt(<f64>reinterpret<f32>(b), false, isDenormal32(b)); }
export function exec_cvtss2sd(): void {
  const b = srcSs();
  if (faultVector >= 0) return;
  sseBegin();
  const r = f32ToF64(b);
  if (sseCommit()) store<u64>(xmm(dReg()), r);
}
export function exec_cvtsd2ss(): void {
  const b = srcSd();
  if (faultVector >= 0) return;
  sseBegin();
  const r = f64ToF32(b);
  if (sseCommit()) store<u32>(xmm(dReg()), r);
}
// unpcklps/unpckhps (NP 0F 14/15): interleave the low / high doublewords
export function exec_unpcklps(): void { const b = binop(); put(v128.shuffle<u32>(dst(), b, 0, 4, 1, 5)); }
export function exec_unpckhps(): void { const b = binop(); put(v128.shuffle<u32>(dst(), b, 2, 6, 3, 7)); }
// movhlps (NP 0F 12, reg): low quadword <- source's high; movlhps (NP 0F 16, reg): high <- source's low
export function exec_movhlps(): void { store<u64>(xmm(dReg()), load<u64>(xmm(dRm()), 8)); }
export function exec_movlhps(): void { store<u64>(xmm(dReg()), load<u64>(xmm(dRm())), 8); }
// movmskps / movmskpd (0F 50): sign bits into a general register
export function exec_movmskps(): void { writeReg(dReg(), 4, true, <u64>i32x4.bitmask(v128.load(xmm(dRm())))); }
export function exec_movmskpd(): void { writeReg(dReg(), 4, true, <u64>i64x2.bitmask(v128.load(xmm(dRm())))); }

// packed conversions (0F 5A, 5B, E6)
export function exec_cvtps2pd(): void {
  // source: two floats (xmm low quadword or m64)
  const v = dMod() == 3 ? load<u64>(xmm(dRm())) : readV(effectiveAddress(), 8);
  if (faultVector >= 0) return;
  sseBegin();
  const r0 = f32ToF64(<u32>v), r1 = f32ToF64(<u32>(v >> 32));
  if (sseCommit()) { const d = xmm(dReg()); store<u64>(d, r0); store<u64>(d, r1, 8); }
}
export function exec_cvtpd2ps(): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  sseBegin();
  const r0 = f64ToF32(<u64>i64x2.extract_lane(b, 0)), r1 = f64ToF32(<u64>i64x2.extract_lane(b, 1));
  if (sseCommit()) { const d = xmm(dReg()); store<u32>(d, r0); store<u32>(d, r1, 4); store<u64>(d, 0, 8); }
}
export function exec_cvtdq2ps(): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  v128.store(SCRATCH, b);
  sseBegin();
  for (let i: usize = 0; i < 16; i += 4) store<u32>(SCRATCH + 16 + i, <u32>intToFloat(<i64>load<i32>(SCRATCH + i), true));
  if (sseCommit()) v128.store(xmm(dReg()), v128.load(SCRATCH + 16));
}
function psToDq(truncate: bool): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  v128.store(SCRATCH, b);
  sseBegin();
  for (let i: usize = 0; i < 16; i += 4) {
    const f = load<u32>(SCRATCH + i);
    store<u32>(SCRATCH + 16 + i, <u32>floatToInt(<f64>reinterpret<f32>(f), 4, truncate, isDenormal32(f)));
  }
  if (sseCommit()) v128.store(xmm(dReg()), v128.load(SCRATCH + 16));
}
export function exec_cvtps2dq(): void { psToDq(false); }
export function exec_cvttps2dq(): void { psToDq(true); }
function pdToDq(truncate: bool): void {
  const b = readW128(true);
  if (faultVector >= 0) return;
  const x0 = <u64>i64x2.extract_lane(b, 0), x1 = <u64>i64x2.extract_lane(b, 1);
  sseBegin();
  const r0 = floatToInt(reinterpret<f64>(x0), 4, truncate, isDenormal64(x0));
  const r1 = floatToInt(reinterpret<f64>(x1), 4, truncate, isDenormal64(x1));
  if (sseCommit()) { const d = xmm(dReg()); store<u32>(d, <u32>r0); store<u32>(d, <u32>r1, 4); store<u64>(d, 0, 8); }
}
export function exec_cvtpd2dq(): void { pdToDq(false); }
export function exec_cvttpd2dq(): void { pdToDq(true); }
export function exec_cvtdq2pd(): void {
  // source: two doublewords (xmm low quadword or m64): exact
  const v = dMod() == 3 ? load<u64>(xmm(dRm())) : readV(effectiveAddress(), 8);
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  store<f64>(d, <f64><i32><u32>v);
  store<f64>(d, <f64><i32><u32>(v >> 32), 8);
}

// MASKMOVDQU (66 0F F7): the bytes of xmm (ModRM.reg) whose mask byte (ModRM.rm) has bit 7 set, stored at [rdi]
export function exec_maskmovdqu(): void { maskedStore(xmm(dReg()), xmm(dRm()), 16); }
