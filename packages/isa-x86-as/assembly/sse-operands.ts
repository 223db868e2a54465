// Operands of the SSE instructions: the XMM registers (16 x 16 bytes in
// XMM) and the ModRM W operand, a register or 16 bytes of memory (legacy
// SSE requires 16-byte alignment of most 128-bit memory operands: #GP
// otherwise).
//
// The MMX view: while `mmxOperands` is set (exec-mmx.ts runs an MMX form
// through the handler of its SSE form), dst/binop/put work on the 64-bit
// MMX registers instead (the significands of the x87 registers, FPR in
// x87-state.ts): values are zero-extended to 128 bits, a memory operand is
// 8 bytes with no alignment requirement, and a result keeps its low
// quadword and marks the register's exponent all ones (SDM vol. 1, 9.5).
import { dReg, dRm, dMod, dAddr32 } from './insn';
import { XMM, readV, writeV, probeWrite, reg64, raise, faultVector, VEC_GP } from './cpu';
import { effectiveAddress } from './exec';
import { FPR, mmxWritten } from './x87-state';

/** Scratch space for shuffles through memory (64 bytes). */
export const SCRATCH: usize = memory.data(64, 16);

/** Set while an MMX form runs: the operands are MMX registers. */
export let mmxOperands: bool = false;
export function setMmxOperands(on: bool): void { mmxOperands = on; }
/** MMX register n (the low quadword of the x87 register R n). */
// @ts-ignore: decorator
@inline export function mmx(n: u32): usize { return FPR + (<usize>(n & 7) << 4); }

// @ts-ignore: decorator
@inline export function xmm(n: u32): usize { return XMM + (<usize>n << 4); }

/** Reads the W operand: register or 16 bytes of memory (aligned if `aligned`); in the MMX view the Q operand, zero-extended. */
export function readW128(aligned: bool): v128 {
  if (mmxOperands) {
    const q = dMod() == 3 ? load<u64>(mmx(dRm())) : readV(effectiveAddress(), 8);
    return i64x2.replace_lane(i64x2.splat(0), 0, <i64>q);
  }
  if (dMod() == 3) return v128.load(xmm(dRm()));
  const a = effectiveAddress();
  if (aligned && (a & 15) != 0) { raise(VEC_GP, 0); return i64x2.splat(0); }
  const lo = readV(a, 8);
  const hi = readV(a + 8, 8);
  return i64x2.replace_lane(i64x2.splat(<i64>lo), 1, <i64>hi);
}
/** Reads the low `size` bytes (2, 4, 8) of the W operand, zero-extended: memory operands of that size have no alignment requirement. */
export function readWLow(size: i32): v128 {
  if (dMod() == 3) {
    const v = v128.load(xmm(dRm()));
    return size == 8 ? i64x2.replace_lane(v, 1, 0) : size == 4 ? i64x2.splat(<i64><u32>i32x4.extract_lane(v, 0)) : i64x2.splat(<i64><u16>i16x8.extract_lane_u(v, 0));
  }
  return i64x2.replace_lane(i64x2.splat(0), 0, <i64>readV(effectiveAddress(), size));
}
// @ts-ignore: decorator
@inline export function writeW128(v: v128, aligned: bool): void {
  if (dMod() == 3) { v128.store(xmm(dRm()), v); return; }
  const a = effectiveAddress();
  if (aligned && (a & 15) != 0) { raise(VEC_GP, 0); return; }
  // check both halves before writing either
  readV(a, 1); readV(a + 15, 1);
  if (faultVector >= 0) return;
  writeV(a, 8, <u64>i64x2.extract_lane(v, 0));
  writeV(a + 8, 8, <u64>i64x2.extract_lane(v, 1));
}

/** The W operand of a two-operand packed instruction (aligned). */
// @ts-ignore: decorator
@inline export function binop(): v128 { return readW128(true); }
/** Writes the destination register unless reading an operand faulted. */
// @ts-ignore: decorator
@inline export function put(v: v128): void {
  if (faultVector >= 0) return;
  if (mmxOperands) { store<u64>(mmx(dReg()), <u64>i64x2.extract_lane(v, 0)); mmxWritten(dReg()); return; }
  v128.store(xmm(dReg()), v);
}
/** The destination register's value (the first source of two-operand forms). */
export function dst(): v128 {
  if (mmxOperands) return i64x2.replace_lane(i64x2.splat(0), 0, load<i64>(mmx(dReg())));
  return v128.load(xmm(dReg()));
}

/**
 * MASKMOVDQU/MASKMOVQ: the `n` bytes at `data` whose byte at `mask` has bit 7
 * set are stored at [rdi] (edi with a 32-bit address size); every selected
 * byte is checked writable before any is written.
 */
export function maskedStore(data: usize, mask: usize, n: i32): void {
  const base = dAddr32() ? reg64(7) & 0xffffffff : reg64(7);
  for (let i = 0; i < n; i++) if ((load<u8>(mask + <usize>i) & 0x80) != 0 && !probeWrite(base + <u64>i, 1)) return;
  for (let i = 0; i < n; i++) if ((load<u8>(mask + <usize>i) & 0x80) != 0) writeV(base + <u64>i, 1, <u64>load<u8>(data + <usize>i));
}
