// Interpreter: handlers for the general-purpose integer instructions, one per
// family of forms in scripts/opcodes.mjs (`@alu`, `@shift`, ...), each
// reading the decoded fields from decode.ts. Flags are computed exactly as
// SDM vol. 2 defines them for each instruction; where the SDM leaves a flag
// undefined we produce what current Intel cores produce where known, and the
// differential tests mask undefined flags.
//
// Every handler reads its operands (which may fault) before it writes
// anything, so a faulting instruction has no effect.
import { PFX_F2, PFX_F3 } from './decode';
import { dOpcode, dMap, dOpSize, dReg, dRm, dMod, dRex, dImm, dImm2, dBase, dIndex, dScale, dDisp, dRipRel, dAddr32, dSeg, dOpReg, dPrefixes, dModrm } from './insn';
import {
  rflags, setFlags, nextRip, setNextRip, readReg, writeReg, reg64, setReg64, readV, writeV, probeWrite,
  raise, faultVector, VEC_UD, VEC_DE, VEC_BP, VEC_GP, CF, PF, AF, ZF, SF, OF, DF, ARITH_FLAGS, fsBase, gsBase,
  setHalted, cpl,
} from './cpu';
import { parityFlag } from './flags';
import { mulHigh, mulHighSigned, divide128, divisionRemainder } from './u128';

// ---- operand helpers ------------------------------------------------------------

// @ts-ignore: decorator
@inline function rex(): bool { return dRex() != 0; }
// @ts-ignore: decorator
@inline function mask(size: i32): u64 { return size == 8 ? <u64>-1 : (<u64>1 << (<u64>size << 3)) - 1; }
// @ts-ignore: decorator
@inline function signBit(size: i32): u64 { return <u64>1 << ((<u64>size << 3) - 1); }
// @ts-ignore: decorator
@inline function sext(v: u64, size: i32): u64 {
  const s = 64 - (size << 3);
  return <u64>((<i64>(v << s)) >> s);
}

/**
 * The offset the ModRM memory operand computes, before any segment base: what
 * lea writes (SDM vol. 2, 2.2.1.6 RIP-relative; 32-bit address size wraps).
 */
// @ts-ignore: decorator
@inline function operandOffset(): u64 {
  let a: u64;
  if (dRipRel()) a = nextRip + <u64>dDisp();
  else {
    a = <u64>dDisp();
    if (dBase() >= 0) a += reg64(<u32>dBase());
    if (dIndex() >= 0) a += reg64(<u32>dIndex()) << <u64>dScale();
  }
  if (dAddr32()) a &= 0xffffffff;
  return a;
}

/** Effective address of the ModRM memory operand: its offset plus the FS or GS base. */
export function effectiveAddress(): u64 {
  const a = operandOffset();
  if (dSeg() == 4) return a + fsBase;
  if (dSeg() == 5) return a + gsBase;
  return a;
}

function readE(size: i32): u64 {
  if (dMod() == 3) return readReg(dRm(), size, rex());
  return readV(effectiveAddress(), size);
}
function writeE(size: i32, v: u64): void {
  if (dMod() == 3) writeReg(dRm(), size, rex(), v);
  else writeV(effectiveAddress(), size, v);
}
/** Reads a read-modify-write destination, checking first that it is writable. */
function readEforWrite(size: i32): u64 {
  if (dMod() == 3) return readReg(dRm(), size, rex());
  const a = effectiveAddress();
  if (!probeWrite(a, size)) return 0;
  return readV(a, size);
}
// @ts-ignore: decorator
@inline function readG(size: i32): u64 { return readReg(dReg(), size, rex()); }
// @ts-ignore: decorator
@inline function writeG(size: i32, v: u64): void { writeReg(dReg(), size, rex(), v); }

// ---- flags ----------------------------------------------------------------------

// @ts-ignore: decorator
@inline function szp(r: u64, size: i32): u64 {
  let f: u64 = <u64>parityFlag(<u32>r);
  if ((r & mask(size)) == 0) f |= ZF;
  if ((r & signBit(size)) != 0) f |= SF;
  return f;
}
function putArith(f: u64): void { setFlags((rflags & ~ARITH_FLAGS) | f); }

// @ts-ignore: decorator
@inline function flagsAdd(a: u64, b: u64, c: u64, r: u64, size: i32): u64 {
  const m = mask(size);
  let f = szp(r, size);
  const carry = size == 8 ? (r < a || (c != 0 && r == a)) : ((a + b + c) & ~m) != 0;
  if (carry) f |= CF;
  if (((a ^ r) & (b ^ r) & signBit(size)) != 0) f |= OF;
  if (((a ^ b ^ r) & 0x10) != 0) f |= AF;
  return f;
}
// @ts-ignore: decorator
@inline function flagsSub(a: u64, b: u64, c: u64, r: u64, size: i32): u64 {
  let f = szp(r, size);
  const borrow = a < b || (c != 0 && a == b);
  if (borrow) f |= CF;
  if (((a ^ b) & (a ^ r) & signBit(size)) != 0) f |= OF;
  if (((a ^ b ^ r) & 0x10) != 0) f |= AF;
  return f;
}

/** op: 0 add 1 or 2 adc 3 sbb 4 and 5 sub 6 xor 7 cmp 8 test; returns the result, sets flags. */
function alu(op: u32, a: u64, b: u64, size: i32): u64 {
  const m = mask(size);
  a &= m; b &= m;
  let r: u64 = 0;
  const c: u64 = rflags & CF;
  if (op == 0) { r = (a + b) & m; putArith(flagsAdd(a, b, 0, r, size)); }
  else if (op == 2) { r = (a + b + c) & m; putArith(flagsAdd(a, b, c, r, size)); }
  else if (op == 5 || op == 7) { r = (a - b) & m; putArith(flagsSub(a, b, 0, r, size)); }
  else if (op == 3) { r = (a - b - c) & m; putArith(flagsSub(a, b, c, r, size)); }
  else {
    r = op == 1 ? a | b : op == 6 ? a ^ b : a & b;
    putArith(szp(r, size));
  }
  return r;
}

/** Condition codes tttn (SDM vol. 1, appendix B); inlined so a constant `cc` folds. */
// @ts-ignore: decorator
@inline export function condition(cc: u32): bool {
  const f = rflags;
  let r: bool;
  const c = cc >> 1;
  if (c == 0) r = (f & OF) != 0;
  else if (c == 1) r = (f & CF) != 0;
  else if (c == 2) r = (f & ZF) != 0;
  else if (c == 3) r = (f & (CF | ZF)) != 0;
  else if (c == 4) r = (f & SF) != 0;
  else if (c == 5) r = (f & PF) != 0;
  else if (c == 6) r = ((f & SF) != 0) != ((f & OF) != 0);
  else r = (f & ZF) != 0 || (((f & SF) != 0) != ((f & OF) != 0));
  return (cc & 1) != 0 ? !r : r;
}

// ---- stack --------------------------------------------------------------------------

export function push(v: u64, size: i32): void {
  const sp = reg64(4) - <u64>size;
  writeV(sp, size, v);
  if (faultVector < 0) setReg64(4, sp);
}
/** Reads the top of the stack without moving rsp (call popCommit after). */
function peek(size: i32): u64 { return readV(reg64(4), size); }
function popCommit(size: i32): void { setReg64(4, reg64(4) + <u64>size); }

// ---- handlers ---------------------------------------------------------------------------

export function exec_ud(): void { raise(VEC_UD, 0); }
export function exec_nop(): void {}

// 00-3F, 80-83, 84/85, A8/A9, F6/F7 /0-1: ALU rows
export function exec_alu(): void {
  const size = dOpSize();
  const op = dOpcode();
  let kind: u32; // 0 E,G  1 G,E  2 acc,I  3 E,I
  let aluOp: u32;
  if (dMap() == 0 && op < 0x40) { aluOp = op >> 3; kind = op & 7; if (kind == 5) kind = 4; kind = kind == 0 || kind == 1 ? 0 : kind == 2 || kind == 3 ? 1 : 2; }
  else if (op >= 0x80 && op <= 0x83) { aluOp = (dModrm() >> 3) & 7; kind = 3; }
  else if (op == 0x84 || op == 0x85) { aluOp = 8; kind = 0; }
  else if (op == 0xa8 || op == 0xa9) { aluOp = 8; kind = 2; }
  else { aluOp = 8; kind = 3; } // F6/F7 /0 /1
  const writes = aluOp != 7 && aluOp != 8;
  if (kind == 0) {
    const a = writes ? readEforWrite(size) : readE(size);
    if (faultVector >= 0) return;
    const r = alu(aluOp, a, readG(size), size);
    if (writes) writeE(size, r);
  } else if (kind == 1) {
    const b = readE(size);
    if (faultVector >= 0) return;
    const r = alu(aluOp, readG(size), b, size);
    if (writes) writeG(size, r);
  } else if (kind == 2) {
    const r = alu(aluOp, readReg(0, size, false), <u64>dImm(), size);
    if (writes) writeReg(0, size, false, r);
  } else {
    const a = writes ? readEforWrite(size) : readE(size);
    if (faultVector >= 0) return;
    const r = alu(aluOp, a, <u64>dImm(), size);
    if (writes) writeE(size, r);
  }
}

// 88-8B, C6/C7 /0, 0F C3 movnti
export function exec_mov(): void {
  const size = dOpSize();
  const op = dOpcode();
  if (dMap() == 0 && (op == 0x8a || op == 0x8b)) {
    const v = readE(size);
    if (faultVector < 0) writeG(size, v);
  } else if (dMap() == 0 && (op == 0xc6 || op == 0xc7)) {
    writeE(size, <u64>dImm() & mask(size));
  } else writeE(size, readG(size));
}

// 89/8B specialised by ModRM.mod: the most frequent instructions of compiled code
export function exec_mov_rr(): void { writeReg(dRm(), dOpSize(), true, readReg(dReg(), dOpSize(), true)); }
export function exec_mov_rr_load(): void { writeReg(dReg(), dOpSize(), true, readReg(dRm(), dOpSize(), true)); }
export function exec_mov_store(): void { writeV(effectiveAddress(), dOpSize(), readReg(dReg(), dOpSize(), true)); }
export function exec_mov_load(): void {
  const v = readV(effectiveAddress(), dOpSize());
  if (faultVector < 0) writeReg(dReg(), dOpSize(), true, v);
}

export function exec_mov_Z_I(): void { writeReg(dOpReg(), dOpSize(), rex(), <u64>dImm()); }

export function exec_mov_moffs(): void {
  let a = <u64>dImm();
  if (dSeg() == 4) a += fsBase; else if (dSeg() == 5) a += gsBase;
  const size = dOpSize();
  if (dOpcode() <= 0xa1) { const v = readV(a, size); if (faultVector < 0) writeReg(0, size, false, v); }
  else writeV(a, size, readReg(0, size, false));
}

// the segment base does not take part in lea
export function exec_lea(): void { writeG(dOpSize(), operandOffset()); }

export function exec_movzx(): void {
  const src = dOpcode() == 0xb6 ? 1 : 2;
  const v = readE(src);
  if (faultVector < 0) writeG(dOpSize(), v);
}
export function exec_movsx(): void {
  const src = dOpcode() == 0xbe ? 1 : 2;
  const v = readE(src);
  if (faultVector < 0) writeG(dOpSize(), sext(v, src));
}
export function exec_movsxd(): void {
  const v = readE(4);
  if (faultVector < 0) writeG(dOpSize(), dOpSize() == 8 ? sext(v, 4) : v);
}

export function exec_push_Z(): void { push(reg64(dOpReg()) & mask(dOpSize()), dOpSize()); }
export function exec_pop_Z(): void {
  const v = peek(dOpSize());
  if (faultVector >= 0) return;
  popCommit(dOpSize());
  writeReg(dOpReg(), dOpSize(), true, v);
}
export function exec_push_I(): void { push(<u64>dImm() & mask(dOpSize()), dOpSize()); }
export function exec_push_E(): void {
  const v = readE(dOpSize());
  if (faultVector < 0) push(v, dOpSize());
}
export function exec_pop_E(): void {
  const v = peek(dOpSize());
  if (faultVector >= 0) return;
  // the address of a pop to memory is computed with the incremented rsp
  const old = reg64(4);
  setReg64(4, old + <u64>dOpSize());
  writeE(dOpSize(), v);
  if (faultVector >= 0) setReg64(4, old);
}

export function exec_jcc(): void {
  const cc = dOpcode() & 15;
  if (condition(cc)) setNextRip(nextRip + <u64>dImm());
}
export function exec_jmp_J(): void { setNextRip(nextRip + <u64>dImm()); }
export function exec_jmp_E(): void {
  const t = readE(8);
  if (faultVector < 0) setNextRip(t);
}
export function exec_call_J(): void {
  push(nextRip, 8);
  if (faultVector < 0) setNextRip(nextRip + <u64>dImm());
}
export function exec_call_E(): void {
  const t = readE(8);
  if (faultVector >= 0) return;
  push(nextRip, 8);
  if (faultVector < 0) setNextRip(t);
}
export function exec_ret(): void {
  const t = peek(8);
  if (faultVector >= 0) return;
  popCommit(8);
  if (dOpcode() == 0xc2) setReg64(4, reg64(4) + <u64>(dImm() & 0xffff));
  setNextRip(t);
}
export function exec_loop(): void {
  const op = dOpcode();
  const asz = dAddr32() ? 4 : 8;
  if (op == 0xe3) { if ((reg64(1) & mask(asz)) == 0) setNextRip(nextRip + <u64>dImm()); return; }
  const c = (reg64(1) - 1) & mask(asz);
  writeReg(1, asz, true, c);
  let take = c != 0;
  if (op == 0xe0) take = take && (rflags & ZF) == 0;
  else if (op == 0xe1) take = take && (rflags & ZF) != 0;
  if (take) setNextRip(nextRip + <u64>dImm());
}
export function exec_leave(): void {
  const v = readV(reg64(5), 8);
  if (faultVector >= 0) return;
  setReg64(4, reg64(5) + 8);
  setReg64(5, v);
}
export function exec_enter(): void {
  const frame = <u64>(dImm() & 0xffff);
  const level = <u32>(dImm2() & 31);
  const rbp = reg64(5);
  let sp = reg64(4) - 8;
  if (!probeWrite(sp - <u64>level * 8, 8 + level * 8)) return;
  writeV(sp, 8, rbp);
  const frameTemp = sp;
  for (let i: u32 = 1; i < level; i++) { sp -= 8; writeV(sp, 8, readV(rbp - <u64>i * 8, 8)); }
  if (level > 0) { sp -= 8; writeV(sp, 8, frameTemp); }
  setReg64(5, frameTemp);
  setReg64(4, sp - frame);
}

export function exec_int3(): void { raise(VEC_BP, 0); }
export function exec_hlt(): void {
  if (cpl != 0) { raise(VEC_GP, 0); return; }
  setHalted(true);
}

export function exec_cmov(): void {
  const v = readE(dOpSize());
  if (faultVector >= 0) return;
  // a 32-bit cmov writes (zero-extends) its destination even when false
  if (condition(dOpcode() & 15)) writeG(dOpSize(), v);
  else if (dOpSize() == 4) writeG(4, readG(4));
}
export function exec_setcc(): void { writeE(1, condition(dOpcode() & 15) ? 1 : 0); }

export function exec_xchg(): void {
  const size = dOpSize();
  const a = readEforWrite(size);
  if (faultVector >= 0) return;
  const b = readG(size);
  writeE(size, b);
  writeG(size, a);
}
export function exec_xchg_Z(): void {
  const size = dOpSize();
  const a = readReg(dOpReg(), size, rex());
  writeReg(dOpReg(), size, rex(), readReg(0, size, false));
  writeReg(0, size, false, a);
}

export function exec_cbw(): void {
  const s = dOpSize();
  writeReg(0, s, false, sext(readReg(0, s >> 1, false), s >> 1));
}
export function exec_cwd(): void {
  const s = dOpSize();
  const neg = (readReg(0, s, false) & signBit(s)) != 0;
  writeReg(2, s, false, neg ? <u64>-1 : 0);
}

// F6/F7 /2 not, /3 neg; FE/FF /0 inc, /1 dec
export function exec_unary(): void {
  const size = dOpSize();
  const sub = (dModrm() >> 3) & 7;
  const a = readEforWrite(size);
  if (faultVector >= 0) return;
  const m = mask(size);
  let r: u64;
  if (dOpcode() == 0xf6 || dOpcode() == 0xf7) {
    if (sub == 2) { writeE(size, ~a & m); return; }
    r = (0 - a) & m;
    let f = flagsSub(0, a, 0, r, size) & ~CF;
    if (a != 0) f |= CF;
    putArith(f);
  } else {
    const cf = rflags & CF;
    if (sub == 0) { r = (a + 1) & m; putArith((flagsAdd(a, 1, 0, r, size) & ~CF) | cf); }
    else { r = (a - 1) & m; putArith((flagsSub(a, 1, 0, r, size) & ~CF) | cf); }
  }
  writeE(size, r);
}

// F6/F7 /4 mul /5 imul /6 div /7 idiv
export function exec_muldiv(): void {
  const size = dOpSize();
  const sub = (dModrm() >> 3) & 7;
  const src = readE(size);
  if (faultVector >= 0) return;
  const m = mask(size);
  const bits = <u64>size << 3;
  if (sub == 4 || sub == 5) {
    let lo: u64, hi: u64;
    const a = size == 1 ? readReg(0, 1, false) : readReg(0, size, false);
    if (sub == 4) {
      if (size == 8) { lo = a * src; hi = mulHigh(a, src); }
      else { const p = a * src; lo = p & m; hi = (p >> bits) & m; }
    } else {
      if (size == 8) { lo = a * src; hi = mulHighSigned(a, src); }
      else { const p = <u64>(<i64>sext(a, size) * <i64>sext(src, size)); lo = p & m; hi = (p >> bits) & m; }
    }
    let over: bool;
    if (sub == 4) over = hi != 0;
    else over = hi != ((lo & signBit(size)) != 0 ? m : 0);
    if (size == 1) writeReg(0, 2, false, (hi << 8) | lo);
    else { writeReg(0, size, false, lo); writeReg(2, size, false, hi); }
    // SF/ZF/AF/PF are undefined; Intel cores set SF/ZF/PF from the low half
    let f = szp(lo, size);
    if (over) f |= CF | OF;
    putArith(f);
    return;
  }
  if (src == 0) { raise(VEC_DE, 0); return; }
  if (size == 8) {
    const hi = reg64(2), lo = reg64(0);
    if (sub == 6) {
      if (hi >= src) { raise(VEC_DE, 0); return; }
      const q = divide128(hi, lo, src);
      setReg64(0, q); setReg64(2, divisionRemainder);
    } else {
      if (!divs128(hi, lo, src)) { raise(VEC_DE, 0); return; }
      setReg64(0, divQuot); setReg64(2, divRem);
    }
    return;
  }
  let dividend: u64;
  if (size == 1) dividend = readReg(0, 2, false);
  else dividend = (readReg(2, size, false) << bits) | readReg(0, size, false);
  let q: u64, r: u64;
  if (sub == 6) {
    q = dividend / src; r = dividend % src;
    if (q > m) { raise(VEC_DE, 0); return; }
  } else {
    const dv = <i64>sext(dividend, size * 2);
    const sv = <i64>sext(src, size);
    const qs = dv / sv;
    const lim = <i64>signBit(size);
    if (qs >= lim || qs < -lim) { raise(VEC_DE, 0); return; }
    q = <u64>qs & m; r = <u64>(dv % sv) & m;
  }
  if (size == 1) writeReg(0, 2, false, (r << 8) | q);
  else { writeReg(0, size, false, q); writeReg(2, size, false, r); }
}

let divRem: u64 = 0;
let divQuot: u64 = 0;
function divs128(hi: u64, lo: u64, d: u64): bool {
  const negN = <i64>hi < 0;
  const negD = <i64>d < 0;
  let nh = hi, nl = lo;
  if (negN) { nl = ~lo + 1; nh = ~hi + (nl == 0 ? 1 : 0); }
  const ad = negD ? 0 - d : d;
  if (nh >= ad) return false;
  let q = divide128(nh, nl, ad);
  let r = divisionRemainder;
  const negQ = negN != negD;
  if (negQ ? q > 0x8000000000000000 : q > 0x7fffffffffffffff) return false;
  if (negQ) q = 0 - q;
  if (negN) r = 0 - r;
  divQuot = q; divRem = r;
  return true;
}

export function exec_imul2(): void {
  const size = dOpSize();
  const b = readE(size);
  if (faultVector >= 0) return;
  imulTo(readG(size), b, size);
}
export function exec_imul3(): void {
  const size = dOpSize();
  const b = readE(size);
  if (faultVector >= 0) return;
  imulTo(b, <u64>dImm(), size);
}
// @ts-ignore: decorator
@inline export function imulTo(a: u64, b: u64, size: i32): void {
  const m = mask(size);
  let lo: u64, over: bool;
  if (size == 8) { lo = a * b; const hi = mulHighSigned(a, b); over = hi != (<i64>lo < 0 ? <u64>-1 : 0); }
  else {
    const p = <i64>sext(a & m, size) * <i64>sext(b & m, size);
    lo = <u64>p & m;
    over = <i64>sext(lo, size) != p;
  }
  writeG(size, lo);
  let f = szp(lo, size);
  if (over) f |= CF | OF;
  putArith(f);
}

// C0/C1/D0-D3: rol ror rcl rcr shl shr sal sar
export function exec_shift(): void {
  const size = dOpSize();
  const sub = (dModrm() >> 3) & 7;
  const op = dOpcode();
  let count: u32 = op == 0xd0 || op == 0xd1 ? 1 : op == 0xd2 || op == 0xd3 ? <u32>reg64(1) & 0xff : <u32>dImm() & 0xff;
  count &= size == 8 ? 63 : 31;
  const a = readEforWrite(size);
  if (faultVector >= 0) return;
  if (count == 0) {
    // no flags change; a 32-bit register destination is still zero-extended
    if (size == 4 && dMod() == 3) writeE(4, a);
    return;
  }
  const bits = <u32>size << 3;
  const m = mask(size);
  let r: u64 = 0;
  let f = rflags & ARITH_FLAGS;
  const sb = signBit(size);
  if (sub == 0 || sub == 1) {
    const c = count % bits;
    if (sub == 0) { r = c == 0 ? a : ((a << <u64>c) | (a >> <u64>(bits - c))) & m; f = (f & ~(CF | OF)) | (r & 1); if (((r & sb) != 0) != ((r & 1) != 0)) f |= OF; }
    else { r = c == 0 ? a : ((a >> <u64>c) | (a << <u64>(bits - c))) & m; f &= ~(CF | OF); if ((r & sb) != 0) f |= CF; if ((((r << 1) ^ r) & sb) != 0) f |= OF; }
  } else if (sub == 2 || sub == 3) {
    const c = count % (bits + 1);
    let cf = rflags & CF;
    r = a;
    for (let i: u32 = 0; i < c; i++) {
      if (sub == 2) { const out = (r & sb) != 0 ? 1 : 0; r = ((r << 1) | cf) & m; cf = <u64>out; }
      else { const out = r & 1; r = (r >> 1) | (cf != 0 ? sb : 0); cf = out; }
    }
    f = (f & ~(CF | OF)) | cf;
    if (sub == 2) { if ((((r & sb) != 0) ? 1 : 0) != <i32>cf) f |= OF; }
    else if ((((r << 1) ^ r) & sb) != 0) f |= OF;
  } else {
    if (sub == 4 || sub == 6) {
      r = count >= bits ? 0 : (a << <u64>count) & m;
      const cf: u64 = count > bits ? 0 : (a >> <u64>(bits - count)) & 1;
      f = szp(r, size) | cf;
      if ((((r & sb) != 0) ? 1 : 0) != <i32>cf) f |= OF;
    } else if (sub == 5) {
      r = count >= bits ? 0 : a >> <u64>count;
      const cf = (a >> <u64>(count - 1)) & 1;
      f = szp(r, size) | cf;
      if ((a & sb) != 0 && count == 1) f |= OF;
    } else {
      const s = <i64>sext(a, size);
      r = <u64>(s >> <i64>(count >= bits ? bits - 1 : count)) & m;
      const cf = <u64>(s >> <i64>(count - 1 >= bits ? bits - 1 : count - 1)) & 1;
      f = szp(r, size) | cf;
    }
  }
  writeE(size, r);
  putArith(f);
}

// 0F A4/A5 shld, AC/AD shrd
export function exec_shld(): void {
  const size = dOpSize();
  const left = dOpcode() == 0xa4 || dOpcode() == 0xa5;
  let count: u32 = (dOpcode() & 1) != 0 ? <u32>reg64(1) & 0xff : <u32>dImm() & 0xff;
  count &= size == 8 ? 63 : 31;
  const a = readEforWrite(size);
  if (faultVector >= 0) return;
  if (count == 0) { if (size == 4 && dMod() == 3) writeE(4, a); return; }
  const bits = <u32>size << 3;
  const b = readG(size);
  const m = mask(size);
  let r: u64, cf: u64;
  if (size == 2 && count > 16) {
    // undefined result for 16-bit counts above 16; follow the 32-bit pattern
    const wide: u64 = left ? (a << 16) | b | (a << 32) : a | (b << 16) | (a << 32);
    if (left) { r = (wide << <u64>count >> 32) & m; cf = (wide >> <u64>(48 - count)) & 1; }
    else { r = (wide >> <u64>count) & m; cf = (wide >> <u64>(count - 1)) & 1; }
  } else if (left) {
    r = ((a << <u64>count) | (count == bits ? 0 : b >> <u64>(bits - count))) & m;
    cf = (a >> <u64>(bits - count)) & 1;
  } else {
    r = ((a >> <u64>count) | (count == bits ? 0 : b << <u64>(bits - count))) & m;
    cf = (a >> <u64>(count - 1)) & 1;
  }
  let f = szp(r, size) | cf;
  if (((r ^ a) & signBit(size)) != 0) f |= OF;
  writeE(size, r);
  putArith(f);
}

// bt/bts/btr/btc: 0F A3 AB B3 BB (register offset), 0F BA /4-7 (immediate)
export function exec_bt(): void {
  const size = dOpSize();
  let op: u32;
  let off: i64;
  if (dOpcode() == 0xba) { op = ((dModrm() >> 3) & 7) - 4; off = dImm() & <i64>((size << 3) - 1); }
  else {
    op = dOpcode() == 0xa3 ? 0 : dOpcode() == 0xab ? 1 : dOpcode() == 0xb3 ? 2 : 3;
    off = <i64>sext(readG(size), size);
  }
  const bits = <i64>(size << 3);
  let v: u64;
  let addr: u64 = 0;
  let bit: u64;
  if (dMod() == 3) { v = readReg(dRm(), size, rex()); bit = <u64>(off & (bits - 1)); }
  else {
    // a register bit offset addresses memory beyond the operand (SDM: BT)
    const wordIndex = dOpcode() == 0xba ? 0 : off >> (size == 8 ? 6 : size == 4 ? 5 : 4);
    addr = effectiveAddress() + <u64>(wordIndex * <i64>size);
    bit = <u64>(off & (bits - 1));
    if (op != 0 && !probeWrite(addr, size)) return;
    v = readV(addr, size);
    if (faultVector >= 0) return;
  }
  const cf = (v >> bit) & 1;
  let r = v;
  if (op == 1) r = v | (<u64>1 << bit);
  else if (op == 2) r = v & ~(<u64>1 << bit);
  else if (op == 3) r = v ^ (<u64>1 << bit);
  if (op != 0) {
    if (dMod() == 3) writeReg(dRm(), size, rex(), r); else writeV(addr, size, r);
  }
  setFlags((rflags & ~CF) | cf);
}

export function exec_bsf(): void {
  const size = dOpSize();
  const v = readE(size) & mask(size);
  if (faultVector >= 0) return;
  if (v == 0) { setFlags((rflags & ~ARITH_FLAGS) | ZF); return; }
  writeG(size, ctz(v));
  putArith(0);
}
export function exec_bsr(): void {
  const size = dOpSize();
  const v = readE(size) & mask(size);
  if (faultVector >= 0) return;
  if (v == 0) { setFlags((rflags & ~ARITH_FLAGS) | ZF); return; }
  writeG(size, <u64>(63 - <i32>clz(v)));
  putArith(0);
}
export function exec_tzcnt(): void {
  const size = dOpSize();
  const v = readE(size) & mask(size);
  if (faultVector >= 0) return;
  const r: u64 = v == 0 ? <u64>(size << 3) : ctz(v);
  writeG(size, r);
  putArith((v == 0 ? CF : 0) | (r == 0 ? ZF : 0));
}
export function exec_lzcnt(): void {
  const size = dOpSize();
  const v = readE(size) & mask(size);
  if (faultVector >= 0) return;
  const r: u64 = v == 0 ? <u64>(size << 3) : clz(v) - <u64>(64 - (size << 3));
  writeG(size, r);
  putArith((v == 0 ? CF : 0) | (r == 0 ? ZF : 0));
}
export function exec_popcnt(): void {
  const size = dOpSize();
  const v = readE(size) & mask(size);
  if (faultVector >= 0) return;
  writeG(size, popcnt(v));
  putArith(v == 0 ? ZF : 0);
}
export function exec_bswap(): void {
  const size = dOpSize();
  const v = reg64(dOpReg());
  if (size == 8) setReg64(dOpReg(), bswap<u64>(v));
  else if (size == 4) setReg64(dOpReg(), <u64>bswap<u32>(<u32>v));
  else writeReg(dOpReg(), 2, true, 0); // 16-bit bswap: undefined, zero on Intel
}
export function exec_movbe(): void {
  const size = dOpSize();
  if (dOpcode() == 0xf0) {
    const v = readE(size);
    if (faultVector >= 0) return;
    writeG(size, size == 8 ? bswap<u64>(v) : size == 4 ? <u64>bswap<u32>(<u32>v) : <u64>bswap<u16>(<u16>v));
  } else {
    const v = readG(size);
    writeE(size, size == 8 ? bswap<u64>(v) : size == 4 ? <u64>bswap<u32>(<u32>v) : <u64>bswap<u16>(<u16>v));
  }
}

export function exec_cmpxchg(): void {
  const size = dOpSize();
  const d = readEforWrite(size);
  if (faultVector >= 0) return;
  const acc = readReg(0, size, false);
  alu(7, acc, d, size);
  if (acc == d) writeE(size, readG(size));
  else {
    // the destination is written back unchanged on failure (SDM: CMPXCHG)
    if (dMod() != 3) writeE(size, d);
    writeReg(0, size, false, d);
  }
}
export function exec_xadd(): void {
  const size = dOpSize();
  const d = readEforWrite(size);
  if (faultVector >= 0) return;
  const s = readG(size);
  const r = alu(0, d, s, size);
  // SDM order is SRC = DEST then DEST = sum (same register: the sum wins);
  // with memory, the store goes first because the register may be its base
  if (dMod() == 3) { writeG(size, d); writeE(size, r); }
  else { writeE(size, r); writeG(size, d); }
}
export function exec_cmpxchg16b(): void {
  const a = effectiveAddress();
  if ((a & 15) != 0) { raise(VEC_GP, 0); return; }
  if (!probeWrite(a, 16)) return;
  const lo = readV(a, 8), hi = readV(a + 8, 8);
  if (lo == reg64(0) && hi == reg64(2)) { writeV(a, 8, reg64(3)); writeV(a + 8, 8, reg64(1)); setFlags(rflags | ZF); }
  else { writeV(a, 8, lo); writeV(a + 8, 8, hi); setReg64(0, lo); setReg64(2, hi); setFlags(rflags & ~ZF); }
}
export function exec_cmpxchg8b(): void {
  const a = effectiveAddress();
  if (!probeWrite(a, 8)) return;
  const v = readV(a, 8);
  const cmp = (reg64(2) << 32) | (reg64(0) & 0xffffffff);
  if (v == cmp) { writeV(a, 8, (reg64(1) << 32) | (reg64(3) & 0xffffffff)); setFlags(rflags | ZF); }
  else { writeV(a, 8, v); setReg64(0, v & 0xffffffff); setReg64(2, v >> 32); setFlags(rflags & ~ZF); }
}

export function exec_clc(): void { setFlags(rflags & ~CF); }
export function exec_stc(): void { setFlags(rflags | CF); }
export function exec_cmc(): void { setFlags(rflags ^ CF); }
export function exec_cld(): void { setFlags(rflags & ~DF); }
export function exec_std(): void { setFlags(rflags | DF); }
export function exec_sahf(): void { setFlags((rflags & ~<u64>0xd5) | ((reg64(0) >> 8) & 0xd5)); }
export function exec_lahf(): void { writeReg(4, 1, false, (rflags & 0xd5) | 2); }
export function exec_pushf(): void { push(rflags & 0xfcffff & mask(dOpSize()), dOpSize()); }
export function exec_popf(): void {
  const v = peek(dOpSize());
  if (faultVector >= 0) return;
  popCommit(dOpSize());
  // at CPL 3, IF and IOPL are kept (IOPL 0 assumed)
  let keep: u64 = cpl == 3 ? 0x3200 : 0;
  if (dOpSize() == 2) keep |= <u64>0xffff0000;
  const changeable: u64 = 0x244fd5 & ~keep;
  setFlags((rflags & ~changeable) | (v & changeable));
}
export function exec_xlat(): void {
  const a = reg64(3) + (reg64(0) & 0xff);
  const v = readV(dAddr32() ? a & 0xffffffff : a, 1);
  if (faultVector < 0) writeReg(0, 1, false, v);
}

// ---- string instructions (A4-AF), with REP/REPE/REPNE --------------------------------
// One iteration per call when a REP prefix is present: the instruction stays
// at the same rip until rcx reaches 0, so interrupts and faults land between
// iterations exactly as on hardware, and the budget counts iterations.

function stringStep(size: i32): u64 { return (rflags & DF) != 0 ? <u64>(0 - size) : <u64>size; }
function addrReg(n: u32): u64 { return dAddr32() ? reg64(n) & 0xffffffff : reg64(n); }
function advanceReg(n: u32, step: u64): void {
  if (dAddr32()) setReg64(n, (reg64(n) + step) & 0xffffffff); else setReg64(n, reg64(n) + step);
}
function srcBase(): u64 { return dSeg() == 4 ? fsBase : dSeg() == 5 ? gsBase : 0; }
/** With a REP prefix: returns false if rcx is 0 (instruction done). */
function repStart(): bool {
  if ((dPrefixes() & (PFX_F2 | PFX_F3)) == 0) return true;
  return (dAddr32() ? reg64(1) & 0xffffffff : reg64(1)) != 0;
}
/** With a REP prefix: counts down and repeats the instruction unless done. */
function repEnd(cmp: bool): void {
  if ((dPrefixes() & (PFX_F2 | PFX_F3)) == 0) return;
  advanceReg(1, <u64>-1);
  const left = (dAddr32() ? reg64(1) & 0xffffffff : reg64(1)) != 0;
  let again = left;
  if (cmp) {
    const zf = (rflags & ZF) != 0;
    if ((dPrefixes() & PFX_F3) != 0) again = again && zf; else again = again && !zf;
  }
  if (again) setNextRip(rip_of_insn);
}
export let rip_of_insn: u64 = 0;
export function setInsnRip(v: u64): void { rip_of_insn = v; }

export function exec_movs(): void {
  if (!repStart()) return;
  const size = dOpSize();
  const v = readV(srcBase() + addrReg(6), size);
  if (faultVector >= 0) return;
  writeV(addrReg(7), size, v);
  if (faultVector >= 0) return;
  const st = stringStep(size);
  advanceReg(6, st); advanceReg(7, st);
  repEnd(false);
}
export function exec_stos(): void {
  if (!repStart()) return;
  const size = dOpSize();
  writeV(addrReg(7), size, readReg(0, size, false));
  if (faultVector >= 0) return;
  advanceReg(7, stringStep(size));
  repEnd(false);
}
export function exec_lods(): void {
  if (!repStart()) return;
  const size = dOpSize();
  const v = readV(srcBase() + addrReg(6), size);
  if (faultVector >= 0) return;
  writeReg(0, size, false, v);
  advanceReg(6, stringStep(size));
  repEnd(false);
}
export function exec_cmps(): void {
  if (!repStart()) return;
  const size = dOpSize();
  const a = readV(srcBase() + addrReg(6), size);
  const b = readV(addrReg(7), size);
  if (faultVector >= 0) return;
  alu(7, a, b, size);
  const st = stringStep(size);
  advanceReg(6, st); advanceReg(7, st);
  repEnd(true);
}
export function exec_scas(): void {
  if (!repStart()) return;
  const size = dOpSize();
  const b = readV(addrReg(7), size);
  if (faultVector >= 0) return;
  alu(7, readReg(0, size, false), b, size);
  advanceReg(7, stringStep(size));
  repEnd(true);
}
