// MMX (SDM vol. 1, chapter 9; vol. 2, the instruction pages): the eight
// 64-bit MMX registers are the significands of the x87 registers. Every MMX
// instruction but EMMS makes TOP 0 and every register valid, and a write to
// MMn sets the exponent field of Rn to all ones (x87-state.ts); with CR0.EM
// set it raises #UD, with CR0.TS #NM, and a pending x87 exception raises #MF
// first.
//
// Most MMX instructions are the SSE ones on 64 bits: exec_mmx runs the
// handler of the SSE form (MMX_HANDLERS, generated from the opcode table's
// `@mmx:NAME` entries) with the operands switched to the MMX view of
// sse-operands.ts. The handlers below are for what differs: the high-half
// unpacks, the packs, PSHUFW, PINSRW/PEXTRW, the moves, the shifts by an
// immediate, MASKMOVQ, EMMS and the conversions between MMX and XMM.
import { dReg, dRm, dMod, dRex, dImm, dForm } from './insn';
import { readV, writeV, readReg, writeReg, reg64, raise, faultVector, cr0, VEC_UD } from './cpu';
import { effectiveAddress } from './exec';
import { runMmxHandler } from './generated/dispatch';
import { exceptionPending, enterMmx, emms, mmxWritten } from './x87-state';
import { xmm, mmx, readW128, binop, put, dst, setMmxOperands, maskedStore, SCRATCH } from './sse-operands';
import { sseBegin, sseCommit, intToFloat, floatToInt } from './sse-float';

const VEC_NM: i32 = 7;
const VEC_MF: i32 = 16;

/** The checks every MMX instruction makes before it runs; false when it raised. */
function mmxAllowed(): bool {
  if ((cr0 & 4) != 0) { raise(VEC_UD, 0); return false; }
  if ((cr0 & 8) != 0) { raise(VEC_NM, 0); return false; }
  if (exceptionPending()) { raise(VEC_MF, 0); return false; }
  return true;
}

/** An MMX form: the handler of its SSE form on the MMX view (or an MMX-only handler below). */
export function exec_mmx(): void {
  if (!mmxAllowed()) return;
  setMmxOperands(true);
  runMmxHandler(dForm());
  setMmxOperands(false);
  if (faultVector < 0) enterMmx();
}

// EMMS (NP 0F 77): every x87 register empty
export function exec_emms(): void { if (mmxAllowed()) emms(); }

// ---- MMX-only handlers (run by exec_mmx, so in the MMX view) ----------------------------------
// PUNPCKHBW/WD/DQ: the high halves of the two quadwords interleaved
export function exec_punpckhbw_mmx(): void { const b = binop(); put(v128.shuffle<u8>(dst(), b, 4, 20, 5, 21, 6, 22, 7, 23, 0, 0, 0, 0, 0, 0, 0, 0)); }
export function exec_punpckhwd_mmx(): void { const b = binop(); put(v128.shuffle<u16>(dst(), b, 2, 10, 3, 11, 0, 0, 0, 0)); }
export function exec_punpckhdq_mmx(): void { const b = binop(); put(v128.shuffle<u32>(dst(), b, 1, 5, 0, 0)); }
// PACKSSWB/PACKUSWB/PACKSSDW: the destination's elements, then the source's, narrowed with saturation
function pair(): v128 { const b = binop(); return v128.shuffle<u64>(dst(), b, 0, 2); }
export function exec_packsswb_mmx(): void { const x = pair(); put(i8x16.narrow_i16x8_s(x, x)); }
export function exec_packuswb_mmx(): void { const x = pair(); put(i8x16.narrow_i16x8_u(x, x)); }
export function exec_packssdw_mmx(): void { const x = pair(); put(i16x8.narrow_i32x4_s(x, x)); }
// PSHUFW (NP 0F 70): word i of the result is the source word imm8 bits 2i+1:2i select
export function exec_pshufw(): void {
  const b = binop();
  if (faultVector >= 0) return;
  v128.store(SCRATCH, b);
  const o = <u32>dImm();
  for (let i: u32 = 0; i < 4; i++) store<u16>(SCRATCH + 16 + (<usize>i << 1), load<u16>(SCRATCH + (<usize>((o >> (2 * i)) & 3) << 1)));
  put(v128.load(SCRATCH + 16));
}
// PINSRW (NP 0F C4): a word from a register or memory into word imm8 & 3; PEXTRW (NP 0F C5): word imm8 & 3 into a register
export function exec_pinsrw_mmx(): void {
  const v = dMod() == 3 ? reg64(dRm()) : readV(effectiveAddress(), 2);
  if (faultVector >= 0) return;
  store<u16>(mmx(dReg()) + ((<usize>dImm() & 3) << 1), <u16>v);
  mmxWritten(dReg());
}
export function exec_pextrw_mmx(): void { writeReg(dReg(), 4, true, <u64>load<u16>(mmx(dRm()) + ((<usize>dImm() & 3) << 1))); }
// PMOVMSKB (NP 0F D7): the sign bits of the eight bytes
export function exec_pmovmskb_mmx(): void { writeReg(dReg(), 4, true, <u64>(i8x16.bitmask(v128.load(mmx(dRm()))) & 0xff)); }
// MOVD/MOVQ mm, r/m32 (r/m64 with REX.W) (NP 0F 6E), and back (NP 0F 7E)
export function exec_movd_to_mmx(): void {
  const size = (dRex() & 8) != 0 ? 8 : 4;
  const v = dMod() == 3 ? readReg(dRm(), size, true) : readV(effectiveAddress(), size);
  if (faultVector >= 0) return;
  store<u64>(mmx(dReg()), v);
  mmxWritten(dReg());
}
export function exec_movd_from_mmx(): void {
  const size = (dRex() & 8) != 0 ? 8 : 4;
  const v = load<u64>(mmx(dReg()));
  if (dMod() == 3) writeReg(dRm(), size, true, size == 8 ? v : v & 0xffffffff);
  else writeV(effectiveAddress(), size, v);
}
// MOVQ mm, mm/m64 (NP 0F 6F); MOVQ mm/m64, mm (NP 0F 7F) and MOVNTQ m64, mm (NP 0F E7)
export function exec_movq_to_mmx(): void { const b = binop(); put(b); }
export function exec_movq_from_mmx(): void {
  const v = load<u64>(mmx(dReg()));
  if (dMod() == 3) { store<u64>(mmx(dRm()), v); mmxWritten(dRm()); }
  else writeV(effectiveAddress(), 8, v);
}
// Shifts by an immediate (NP 0F 71-73 /2 /4 /6): the register in ModRM.rm
function shiftImmediate(size: i32, kind: u32): void {
  const r = mmx(dRm());
  const v = i64x2.replace_lane(i64x2.splat(0), 0, load<i64>(r));
  const c = <u32>dImm() & 0xff;
  const bits = <u32>size * 8;
  let out: v128;
  if (kind == 2) out = c >= bits ? i64x2.splat(0) : size == 2 ? i16x8.shr_u(v, c) : size == 4 ? i32x4.shr_u(v, c) : i64x2.shr_u(v, c);
  else if (kind == 6) out = c >= bits ? i64x2.splat(0) : size == 2 ? i16x8.shl(v, c) : size == 4 ? i32x4.shl(v, c) : i64x2.shl(v, c);
  else out = size == 2 ? i16x8.shr_s(v, c > 15 ? 15 : c) : i32x4.shr_s(v, c > 31 ? 31 : c);
  store<u64>(r, <u64>i64x2.extract_lane(out, 0));
  mmxWritten(dRm());
}
export function exec_psrlw_mmx_i(): void { shiftImmediate(2, 2); }
export function exec_psraw_mmx_i(): void { shiftImmediate(2, 4); }
export function exec_psllw_mmx_i(): void { shiftImmediate(2, 6); }
export function exec_psrld_mmx_i(): void { shiftImmediate(4, 2); }
export function exec_psrad_mmx_i(): void { shiftImmediate(4, 4); }
export function exec_pslld_mmx_i(): void { shiftImmediate(4, 6); }
export function exec_psrlq_mmx_i(): void { shiftImmediate(8, 2); }
export function exec_psllq_mmx_i(): void { shiftImmediate(8, 6); }
// MASKMOVQ (NP 0F F7): the bytes of mm (ModRM.reg) whose mask byte (ModRM.rm) has bit 7 set, stored at [rdi]
export function exec_maskmovq(): void { maskedStore(mmx(dReg()), mmx(dRm()), 8); }

// ---- conversions between MMX and XMM (generic handlers: the MMX checks only with an MMX operand) --------------
/** An MMX register operand: the MMX checks, then the transition (TOP 0, every register valid). */
function mmxTransition(): bool {
  if (!mmxAllowed()) return false;
  enterMmx();
  return true;
}
// MOVQ2DQ (F3 0F D6): xmm = mm zero-extended; MOVDQ2Q (F2 0F D6): mm = the low quadword of xmm
export function exec_movq2dq(): void {
  if (!mmxTransition()) return;
  v128.store(xmm(dReg()), i64x2.replace_lane(i64x2.splat(0), 0, load<i64>(mmx(dRm()))));
}
export function exec_movdq2q(): void {
  if (!mmxTransition()) return;
  store<u64>(mmx(dReg()), load<u64>(xmm(dRm())));
  mmxWritten(dReg());
}
/** The Q operand of a conversion: an MMX register (with its transition) or 8 bytes of memory. */
function readQ(): u64 {
  if (dMod() == 3) return mmxTransition() ? load<u64>(mmx(dRm())) : 0;
  return readV(effectiveAddress(), 8);
}
// CVTPI2PS (NP 0F 2A): two doublewords to singles (MXCSR.RC) in the low half; CVTPI2PD (66 0F 2A): to doubles (exact)
export function exec_cvtpi2ps(): void {
  const q = readQ();
  if (faultVector >= 0) return;
  sseBegin();
  const lo = <u32>intToFloat(<i64><i32><u32>q, true), hi = <u32>intToFloat(<i64><i32><u32>(q >> 32), true);
  if (!sseCommit()) return;
  const d = xmm(dReg());
  store<u32>(d, lo);
  store<u32>(d + 4, hi);
}
export function exec_cvtpi2pd(): void {
  const q = readQ();
  if (faultVector >= 0) return;
  const d = xmm(dReg());
  store<f64>(d, <f64><i32><u32>q);
  store<f64>(d + 8, <f64><i32><u32>(q >> 32));
}
/** Two doubles (a pair of singles widened) to doublewords in mm: truncated or with MXCSR.RC, invalid giving the indefinite. */
function toMmx(x0: f64, x1: f64, denormal0: bool, denormal1: bool, truncate: bool): void {
  sseBegin();
  const lo = floatToInt(x0, 4, truncate, denormal0), hi = floatToInt(x1, 4, truncate, denormal1);
  if (!sseCommit() || !mmxTransition()) return;
  store<u64>(mmx(dReg()), (lo & 0xffffffff) | (hi << 32));
  mmxWritten(dReg());
}
// CVTPS2PI/CVTTPS2PI (NP 0F 2D/2C): two singles (xmm low half or m64)
function singlesToMmx(truncate: bool): void {
  const q = dMod() == 3 ? load<u64>(xmm(dRm())) : readV(effectiveAddress(), 8);
  if (faultVector >= 0) return;
  const a = <u32>q, b = <u32>(q >> 32);
  toMmx(<f64>reinterpret<f32>(a), <f64>reinterpret<f32>(b), (a & 0x7f800000) == 0 && (a << 1) != 0, (b & 0x7f800000) == 0 && (b << 1) != 0, truncate);
}
export function exec_cvtps2pi(): void { singlesToMmx(false); }
export function exec_cvttps2pi(): void { singlesToMmx(true); }
// CVTPD2PI/CVTTPD2PI (66 0F 2D/2C): two doubles (xmm or m128, aligned)
function doublesToMmx(truncate: bool): void {
  const v = readW128(true);
  if (faultVector >= 0) return;
  const a = <u64>i64x2.extract_lane(v, 0), b = <u64>i64x2.extract_lane(v, 1);
  toMmx(reinterpret<f64>(a), reinterpret<f64>(b), (a & 0x7ff0000000000000) == 0 && (a << 1) != 0, (b & 0x7ff0000000000000) == 0 && (b << 1) != 0, truncate);
}
export function exec_cvtpd2pi(): void { doublesToMmx(false); }
export function exec_cvttpd2pi(): void { doublesToMmx(true); }
