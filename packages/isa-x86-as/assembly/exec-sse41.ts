// SSE4.1 (SDM vol. 2, the instruction pages; vol. 1, 12.10): blends, PTEST,
// sign and zero extension, minimum/maximum and multiplies of every element
// size, rounding to integers, element insert/extract, dot products,
// MPSADBW, PHMINPOSUW, PACKUSDW, MOVNTDQA.
import { dReg, dRm, dMod, dRex, dImm } from './insn';
import { readV, writeV, readReg, writeReg, faultVector, rflags, setFlags, ARITH_FLAGS, ZF, CF } from './cpu';
import { effectiveAddress } from './exec';
import { xmm, readW128, readWLow, binop, put, dst, SCRATCH } from './sse-operands';
import { laneF64, laneF32, roundF64, roundF32, sseBegin, sseCommit } from './sse-float';

// ---- blends --------------------------------------------------------------------------------
// BLENDPS/BLENDPD/PBLENDW (66 0F3A 0C/0D/0E): element i from the source when imm8 bit i is set
function blendImmediate(size: i32): void {
  const b = binop();
  if (faultVector >= 0) return;
  const a = dst();
  const m = <u32>dImm();
  v128.store(SCRATCH, a);
  v128.store(SCRATCH + 16, b);
  const n = 16 / size;
  for (let i = 0; i < n; i++) {
    if (((m >> <u32>i) & 1) == 0) continue;
    const o = <usize>(i * size);
    if (size == 8) store<u64>(SCRATCH + o, load<u64>(SCRATCH + 16 + o));
    else if (size == 4) store<u32>(SCRATCH + o, load<u32>(SCRATCH + 16 + o));
    else store<u16>(SCRATCH + o, load<u16>(SCRATCH + 16 + o));
  }
  put(v128.load(SCRATCH));
}
export function exec_blendps(): void { blendImmediate(4); }
export function exec_blendpd(): void { blendImmediate(8); }
export function exec_pblendw(): void { blendImmediate(2); }
// PBLENDVB/BLENDVPS/BLENDVPD (66 0F38 10/14/15): by the sign bit of each element of xmm0
function blendVariable(size: i32): void {
  const b = binop();
  if (faultVector >= 0) return;
  const mask = v128.load(xmm(0));
  const sel = size == 1 ? i8x16.lt_s(mask, i8x16.splat(0)) : size == 4 ? i32x4.lt_s(mask, i32x4.splat(0)) : i64x2.lt_s(mask, i64x2.splat(0));
  put(v128.bitselect(b, dst(), sel));
}
export function exec_pblendvb(): void { blendVariable(1); }
export function exec_blendvps(): void { blendVariable(4); }
export function exec_blendvpd(): void { blendVariable(8); }

// PTEST (66 0F38 17): ZF = (d AND s) = 0, CF = (NOT d AND s) = 0; AF OF PF SF cleared
export function exec_ptest(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const a = dst();
  let f: u64 = 0;
  if (!v128.any_true(v128.and(a, b))) f |= ZF;
  if (!v128.any_true(v128.andnot(b, a))) f |= CF;
  setFlags((rflags & ~ARITH_FLAGS) | f);
}

// ---- sign and zero extension (66 0F38 20-25, 30-35): the low elements of the source, widened ----
export function exec_pmovsxbw(): void { const s = readWLow(8); if (faultVector < 0) put(i16x8.extend_low_i8x16_s(s)); }
export function exec_pmovsxbd(): void { const s = readWLow(4); if (faultVector < 0) put(i32x4.extend_low_i16x8_s(i16x8.extend_low_i8x16_s(s))); }
export function exec_pmovsxbq(): void { const s = readWLow(2); if (faultVector < 0) put(i64x2.extend_low_i32x4_s(i32x4.extend_low_i16x8_s(i16x8.extend_low_i8x16_s(s)))); }
export function exec_pmovsxwd(): void { const s = readWLow(8); if (faultVector < 0) put(i32x4.extend_low_i16x8_s(s)); }
export function exec_pmovsxwq(): void { const s = readWLow(4); if (faultVector < 0) put(i64x2.extend_low_i32x4_s(i32x4.extend_low_i16x8_s(s))); }
export function exec_pmovsxdq(): void { const s = readWLow(8); if (faultVector < 0) put(i64x2.extend_low_i32x4_s(s)); }
export function exec_pmovzxbw(): void { const s = readWLow(8); if (faultVector < 0) put(i16x8.extend_low_i8x16_u(s)); }
export function exec_pmovzxbd(): void { const s = readWLow(4); if (faultVector < 0) put(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(s))); }
export function exec_pmovzxbq(): void { const s = readWLow(2); if (faultVector < 0) put(i64x2.extend_low_i32x4_u(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(s)))); }
export function exec_pmovzxwd(): void { const s = readWLow(8); if (faultVector < 0) put(i32x4.extend_low_i16x8_u(s)); }
export function exec_pmovzxwq(): void { const s = readWLow(4); if (faultVector < 0) put(i64x2.extend_low_i32x4_u(i32x4.extend_low_i16x8_u(s))); }
export function exec_pmovzxdq(): void { const s = readWLow(8); if (faultVector < 0) put(i64x2.extend_low_i32x4_u(s)); }

// ---- arithmetic, compares, minimum and maximum -----------------------------------------------
// PMULDQ (66 0F38 28): signed products of doublewords 0 and 2
export function exec_pmuldq(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const a = dst();
  put(i64x2.extmul_low_i32x4_s(v128.shuffle<u32>(a, a, 0, 2, 0, 2), v128.shuffle<u32>(b, b, 0, 2, 0, 2)));
}
export function exec_pmulld(): void { const b = binop(); put(i32x4.mul(dst(), b)); }
export function exec_pcmpeqq(): void { const b = binop(); put(i64x2.eq(dst(), b)); }
export function exec_packusdw(): void { const b = binop(); put(i16x8.narrow_i32x4_u(dst(), b)); }
export function exec_pminsb(): void { const b = binop(); put(i8x16.min_s(dst(), b)); }
export function exec_pminsd(): void { const b = binop(); put(i32x4.min_s(dst(), b)); }
export function exec_pminuw(): void { const b = binop(); put(i16x8.min_u(dst(), b)); }
export function exec_pminud(): void { const b = binop(); put(i32x4.min_u(dst(), b)); }
export function exec_pmaxsb(): void { const b = binop(); put(i8x16.max_s(dst(), b)); }
export function exec_pmaxsd(): void { const b = binop(); put(i32x4.max_s(dst(), b)); }
export function exec_pmaxuw(): void { const b = binop(); put(i16x8.max_u(dst(), b)); }
export function exec_pmaxud(): void { const b = binop(); put(i32x4.max_u(dst(), b)); }
// MOVNTDQA (66 0F38 2A, memory only): an aligned load (the non-temporal hint has no effect here)
export function exec_movntdqa(): void { const b = binop(); put(b); }
// PHMINPOSUW (66 0F38 41): the smallest unsigned word (the first of equal ones) and its index; the rest zero
export function exec_phminposuw(): void {
  const b = binop();
  if (faultVector >= 0) return;
  v128.store(SCRATCH, b);
  let best: u32 = 0xffff + 1, at: u32 = 0;
  for (let i: u32 = 0; i < 8; i++) {
    const w = <u32>load<u16>(SCRATCH + (<usize>i << 1));
    if (w < best) { best = w; at = i; }
  }
  put(i32x4.replace_lane(i32x4.splat(0), 0, <i32>(best | (at << 16))));
}
// MPSADBW (66 0F3A 42): eight sums of absolute differences of a 4-byte source block
// (imm8 bits 1:0 pick it) against the destination's bytes from the offset imm8 bit 2 picks
export function exec_mpsadbw(): void {
  const b = binop();
  if (faultVector >= 0) return;
  v128.store(SCRATCH, dst());
  v128.store(SCRATCH + 16, b);
  const imm = <u32>dImm();
  const src = SCRATCH + 16 + (<usize>(imm & 3) << 2);
  const dOff = SCRATCH + (<usize>((imm >> 2) & 1) << 2);
  for (let i: usize = 0; i < 8; i++) {
    let sum: i32 = 0;
    for (let j: usize = 0; j < 4; j++) sum += abs<i32>(<i32>load<u8>(dOff + i + j) - <i32>load<u8>(src + j));
    store<u16>(SCRATCH + 32 + (i << 1), <u16>sum);
  }
  put(v128.load(SCRATCH + 32));
}

// ---- rounding (66 0F3A 08-0B) ------------------------------------------------------------------
// imm8 bits 1:0: nearest (even), down, up, toward zero; bit 2: MXCSR.RC instead; bit 3: no
// precision exception (sse-float.ts roundF64/roundF32). NaNs come back quieted.
export function exec_roundpd(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const imm = <u32>dImm();
  sseBegin();
  const r0 = roundF64(<u64>i64x2.extract_lane(b, 0), imm), r1 = roundF64(<u64>i64x2.extract_lane(b, 1), imm);
  if (sseCommit()) put(i64x2.replace_lane(i64x2.splat(<i64>r0), 1, <i64>r1));
}
export function exec_roundps(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const imm = <u32>dImm();
  v128.store(SCRATCH, b);
  sseBegin();
  for (let i: usize = 0; i < 16; i += 4) store<u32>(SCRATCH + i, roundF32(load<u32>(SCRATCH + i), imm));
  if (sseCommit()) put(v128.load(SCRATCH));
}
export function exec_roundsd(): void {
  const b = dMod() == 3 ? load<u64>(xmm(dRm())) : readV(effectiveAddress(), 8);
  if (faultVector >= 0) return;
  sseBegin();
  const r = roundF64(b, <u32>dImm());
  if (sseCommit()) store<u64>(xmm(dReg()), r);
}
export function exec_roundss(): void {
  const b = dMod() == 3 ? load<u32>(xmm(dRm())) : <u32>readV(effectiveAddress(), 4);
  if (faultVector >= 0) return;
  sseBegin();
  const r = roundF32(b, <u32>dImm());
  if (sseCommit()) store<u32>(xmm(dReg()), r);
}

// ---- dot products (66 0F3A 40/41) -----------------------------------------------------------------
// The products of the lanes imm8 bits 7:4 (DPPD: 5:4) select, the others +0, summed
// (lane 0 + 1, lane 2 + 3, then the two), into the lanes imm8 bits 3:0 (1:0) select.
export function exec_dpps(): void {
  const b = binop();
  if (faultVector >= 0) return;
  v128.store(SCRATCH, dst());
  v128.store(SCRATCH + 16, b);
  const imm = <u32>dImm();
  sseBegin();
  const p0 = ((imm >> 4) & 1) != 0 ? laneF32(2, load<u32>(SCRATCH), load<u32>(SCRATCH + 16)) : 0;
  const p1 = ((imm >> 5) & 1) != 0 ? laneF32(2, load<u32>(SCRATCH + 4), load<u32>(SCRATCH + 20)) : 0;
  const p2 = ((imm >> 6) & 1) != 0 ? laneF32(2, load<u32>(SCRATCH + 8), load<u32>(SCRATCH + 24)) : 0;
  const p3 = ((imm >> 7) & 1) != 0 ? laneF32(2, load<u32>(SCRATCH + 12), load<u32>(SCRATCH + 28)) : 0;
  const sum = laneF32(0, laneF32(0, p0, p1), laneF32(0, p2, p3));
  for (let i: u32 = 0; i < 4; i++) store<u32>(SCRATCH + 32 + (<usize>i << 2), ((imm >> i) & 1) != 0 ? sum : 0);
  if (sseCommit()) put(v128.load(SCRATCH + 32));
}
export function exec_dppd(): void {
  const b = binop();
  if (faultVector >= 0) return;
  const a = dst();
  const imm = <u32>dImm();
  sseBegin();
  const p0 = ((imm >> 4) & 1) != 0 ? laneF64(2, <u64>i64x2.extract_lane(a, 0), <u64>i64x2.extract_lane(b, 0)) : 0;
  const p1 = ((imm >> 5) & 1) != 0 ? laneF64(2, <u64>i64x2.extract_lane(a, 1), <u64>i64x2.extract_lane(b, 1)) : 0;
  const sum = laneF64(0, p0, p1);
  if (sseCommit()) put(i64x2.replace_lane(i64x2.splat((imm & 1) != 0 ? <i64>sum : 0), 1, (imm & 2) != 0 ? <i64>sum : 0));
}

// ---- insert and extract -------------------------------------------------------------------------
/** Writes the low `size` bytes of v to the E operand: a register gets it zero-extended (64 bits with REX.W, else 32). */
function extractTo(v: u64, size: i32): void {
  if (dMod() == 3) writeReg(dRm(), (dRex() & 8) != 0 ? 8 : 4, true, v);
  else writeV(effectiveAddress(), size, v);
}
// PEXTRB/PEXTRW/PEXTRD/PEXTRQ (66 0F3A 14/15/16), EXTRACTPS (17): element imm8 of xmm (the ModRM.reg operand)
export function exec_pextrb(): void { extractTo(<u64>load<u8>(xmm(dReg()) + (<usize>dImm() & 15)), 1); }
export function exec_pextrw_e(): void { extractTo(<u64>load<u16>(xmm(dReg()) + ((<usize>dImm() & 7) << 1)), 2); }
export function exec_pextrd(): void {
  if ((dRex() & 8) != 0) extractTo(load<u64>(xmm(dReg()) + ((<usize>dImm() & 1) << 3)), 8);
  else extractTo(<u64>load<u32>(xmm(dReg()) + ((<usize>dImm() & 3) << 2)), 4);
}
export function exec_extractps(): void { extractTo(<u64>load<u32>(xmm(dReg()) + ((<usize>dImm() & 3) << 2)), 4); }
// PINSRB/PINSRD/PINSRQ (66 0F3A 20/22): a byte, doubleword or quadword from a register or memory into element imm8
export function exec_pinsrb(): void {
  const v = dMod() == 3 ? readReg(dRm(), 4, true) : readV(effectiveAddress(), 1);
  if (faultVector < 0) store<u8>(xmm(dReg()) + (<usize>dImm() & 15), <u8>v);
}
export function exec_pinsrd(): void {
  const wide = (dRex() & 8) != 0;
  const v = dMod() == 3 ? readReg(dRm(), wide ? 8 : 4, true) : readV(effectiveAddress(), wide ? 8 : 4);
  if (faultVector >= 0) return;
  if (wide) store<u64>(xmm(dReg()) + ((<usize>dImm() & 1) << 3), v);
  else store<u32>(xmm(dReg()) + ((<usize>dImm() & 3) << 2), <u32>v);
}
// INSERTPS (66 0F3A 21): a single (imm8 bits 7:6 pick it from a register source) into
// element imm8 bits 5:4, then the elements imm8 bits 3:0 mark zeroed
export function exec_insertps(): void {
  const imm = <u32>dImm() & 0xff;
  const v = dMod() == 3 ? load<u32>(xmm(dRm()) + (<usize>(imm >> 6) << 2)) : <u32>readV(effectiveAddress(), 4);
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  store<u32>(d + (<usize>((imm >> 4) & 3) << 2), v);
  for (let i: u32 = 0; i < 4; i++) if (((imm >> i) & 1) != 0) store<u32>(d + (<usize>i << 2), 0);
}
