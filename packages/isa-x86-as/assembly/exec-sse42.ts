// SSE4.2 (SDM vol. 2, the instruction pages, and 4.1 "Imm8 Control Byte
// Operation for PCMPESTRI / PCMPESTRM / PCMPISTRI / PCMPISTRM"): the packed
// string compares, PCMPGTQ and CRC32 (POPCNT is with the integer ones).
import { dReg, dRm, dMod, dRex, dImm, dOpcode, dOpSize } from './insn';
import { readV, readReg, writeReg, reg64, setReg64, faultVector, rflags, setFlags, ARITH_FLAGS, CF, ZF, SF, OF } from './cpu';
import { effectiveAddress } from './exec';
import { xmm, readW128, binop, put, dst, SCRATCH } from './sse-operands';

export function exec_pcmpgtq(): void { const b = binop(); put(i64x2.gt_s(dst(), b)); }

// ---- packed string compares (66 0F3A 60-63) --------------------------------------------------
// imm8: bits 1:0 element format (unsigned bytes, unsigned words, signed bytes,
// signed words); bits 3:2 aggregation (equal any, ranges, equal each, equal
// ordered); bits 5:4 polarity (+, -, masked +, masked -); bit 6 output
// selection (index: most significant instead of least; mask: expanded to
// elements instead of bits). Operand a is the register (ModRM.reg), b the
// register or memory source (no alignment requirement). Explicit lengths
// come from rax and rdx (eax/edx without REX.W), as absolute values
// saturated to the element count; implicit ones end at the first zero element.

let elementCount: i32 = 16;
/** Element i of the string in SCRATCH + base, as a signed or unsigned value. */
function element(base: usize, i: i32, imm: u32): i32 {
  const signed = (imm & 2) != 0;
  if ((imm & 1) != 0) return signed ? <i32>load<i16>(base + (<usize>i << 1)) : <i32>load<u16>(base + (<usize>i << 1));
  return signed ? <i32>load<i8>(base + <usize>i) : <i32>load<u8>(base + <usize>i);
}
function implicitLength(base: usize, imm: u32): i32 {
  for (let i = 0; i < elementCount; i++) if (element(base, i, imm) == 0) return i;
  return elementCount;
}
function explicitLength(reg: u32): i32 {
  const wide = (dRex() & 8) != 0;
  let v: i64 = wide ? <i64>reg64(reg) : <i64><i32><u32>reg64(reg);
  if (v < 0) v = -v;
  return v > <i64>elementCount || v < 0 ? elementCount : <i32>v;
}

/** IntRes2 of SDM 4.1.5-4.1.6 for a (SCRATCH) and b (SCRATCH + 16) with lengths la, lb. */
function compareStrings(imm: u32, la: i32, lb: i32): u32 {
  const n = elementCount;
  const aggregation = (imm >> 2) & 3;
  let res: u32 = 0;
  for (let i = 0; i < n; i++) {
    let bit = false;
    const bValid = i < lb;
    if (aggregation == 0) {
      // equal any: b[i] is one of a's valid elements
      if (bValid) for (let j = 0; j < la; j++) if (element(SCRATCH, j, imm) == element(SCRATCH + 16, i, imm)) { bit = true; break; }
    } else if (aggregation == 1) {
      // ranges: a holds pairs (low, high); b[i] falls in one of them
      if (bValid) {
        const x = element(SCRATCH + 16, i, imm);
        for (let j = 0; j + 1 < la; j += 2) {
          if (element(SCRATCH, j, imm) <= x && x <= element(SCRATCH, j + 1, imm)) { bit = true; break; }
        }
      }
    } else if (aggregation == 2) {
      // equal each: both invalid counts as equal, one invalid as different
      const aValid = i < la;
      bit = aValid && bValid ? element(SCRATCH, i, imm) == element(SCRATCH + 16, i, imm) : !aValid && !bValid;
    } else {
      // equal ordered: a (up to its length) occurs at b[i]; a past b's end does not match
      bit = true;
      for (let k = 0; k < la && i + k < n; k++) {
        if (i + k >= lb || element(SCRATCH, k, imm) != element(SCRATCH + 16, i + k, imm)) { bit = false; break; }
      }
    }
    if (bit) res |= <u32>1 << <u32>i;
  }
  const polarity = (imm >> 4) & 3;
  const all: u32 = (<u32>1 << <u32>n) - 1;
  if (polarity == 1) res = ~res & all;
  else if (polarity == 3) res ^= ((<u32>1 << <u32>lb) - 1) & all; // negate only where b is valid
  return res;
}

function stringCompare(explicit: bool, index: bool): void {
  const b = readW128(false);
  if (faultVector >= 0) return;
  const imm = <u32>dImm() & 0xff;
  elementCount = (imm & 1) != 0 ? 8 : 16;
  v128.store(SCRATCH, v128.load(xmm(dReg())));
  v128.store(SCRATCH + 16, b);
  const la = explicit ? explicitLength(0) : implicitLength(SCRATCH, imm);
  const lb = explicit ? explicitLength(2) : implicitLength(SCRATCH + 16, imm);
  const res = compareStrings(imm, la, lb);
  if (index) {
    // ECX: the least (imm8 bit 6 clear) or most significant set bit, else the element count
    let i: u32 = <u32>elementCount;
    if (res != 0) i = (imm & 0x40) != 0 ? 31 - clz<u32>(res) : ctz<u32>(res);
    setReg64(1, <u64>i);
  } else {
    let m: v128 = i64x2.splat(0);
    if ((imm & 0x40) == 0) m = i32x4.replace_lane(m, 0, <i32>res);
    else {
      for (let i = 0; i < elementCount; i++) {
        const on = ((res >> <u32>i) & 1) != 0;
        if (elementCount == 16) store<u8>(SCRATCH + 32 + <usize>i, on ? 0xff : 0);
        else store<u16>(SCRATCH + 32 + (<usize>i << 1), on ? 0xffff : 0);
      }
      m = v128.load(SCRATCH + 32);
    }
    v128.store(xmm(0), m);
  }
  let f: u64 = 0;
  if (res != 0) f |= CF;
  if (lb < elementCount) f |= ZF;
  if (la < elementCount) f |= SF;
  if ((res & 1) != 0) f |= OF;
  setFlags((rflags & ~ARITH_FLAGS) | f);
}
export function exec_pcmpestrm(): void { stringCompare(true, false); }
export function exec_pcmpestri(): void { stringCompare(true, true); }
export function exec_pcmpistrm(): void { stringCompare(false, false); }
export function exec_pcmpistri(): void { stringCompare(false, true); }

// ---- CRC32 (F2 0F38 F0/F1) ------------------------------------------------------------------
// The CRC-32C (Castagnoli) of the source's bytes, least significant first,
// accumulated into the low 32 bits of the destination (reflected polynomial
// 0x82F63B78; the register holds the CRC without the final inversion).
const CRC32C_TABLE: usize = crcTable();
function crcTable(): usize {
  const t = memory.data(256 * 4, 4);
  for (let i: u32 = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = (c & 1) != 0 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
    store<u32>(t + (<usize>i << 2), c);
  }
  return t;
}
export function exec_crc32(): void {
  const size = dOpcode() == 0xf0 ? 1 : dOpSize();
  const v = dMod() == 3 ? readReg(dRm(), size, dRex() != 0) : readV(effectiveAddress(), size);
  if (faultVector >= 0) return;
  let c = <u32>reg64(dReg());
  for (let i = 0; i < size; i++) c = load<u32>(CRC32C_TABLE + (<usize>((c ^ <u32>(v >> (<u64>i * 8))) & 0xff) << 2)) ^ (c >> 8);
  writeReg(dReg(), (dRex() & 8) != 0 ? 8 : 4, true, <u64>c);
}
