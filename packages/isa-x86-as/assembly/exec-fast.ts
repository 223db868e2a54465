// Building blocks of the specialised handlers (assembly/generated/fast.ts).
//
// The generic handlers of exec.ts serve a whole family of forms and branch on
// the operand size, the register/memory form and the operation every time
// they run. The run loop picks, once per decode (the choice is kept in the
// decoded-instruction cache record), a specialised handler for the forms
// compiled code executes most, when the instruction has no legacy prefix:
// operation, size and operand form are constants there, so the building
// blocks below fold to a few loads, the operation, and the flags.
// They compute exactly what the generic handlers compute (same flag rules).
import {
  rflags, setFlags, reg64, setReg64, readV, writeV, faultVector, nextRip, setNextRip, ZF, SF, OF, ARITH_FLAGS,
  lazyOp, lazyA, lazyB, lazyR, flushFlags, LAZY_NONE, LAZY_SUB8, LAZY_SUB32, LAZY_SUB64, LAZY_ADD32, LAZY_ADD64,
} from './cpu';
import { condition, push, imulTo } from './exec';
import { setInsn } from './insn';
import { parityFlag } from './flags';

// Fields of the decoded record `e` (layout in decode.ts, saveDecoded): the
// run loop passes the record, so the handlers read it through a local
// instead of the global `insn` (exec.ts helpers the handlers call still
// read `insn`, which the loop sets as well).
// @ts-ignore: decorator
@inline function fReg(e: usize): u32 { return <u32>load<u8>(e, 18); }
// @ts-ignore: decorator
@inline function fRm(e: usize): u32 { return <u32>load<u8>(e, 19); }
// @ts-ignore: decorator
@inline function fRex(e: usize): u32 { return <u32>load<u8>(e, 22); }
// @ts-ignore: decorator
@inline function fRipRel(e: usize): bool { return (load<u8>(e, 23) & 1) != 0; }
// @ts-ignore: decorator
@inline function fBase(e: usize): i32 { return <i32>load<i8>(e, 24); }
// @ts-ignore: decorator
@inline function fIndex(e: usize): i32 { return <i32>load<i8>(e, 25); }
// @ts-ignore: decorator
@inline function fScale(e: usize): u32 { return <u32>load<u8>(e, 26); }
// @ts-ignore: decorator
@inline function fOpReg(e: usize): u32 { return <u32>load<u8>(e, 28); }
// @ts-ignore: decorator
@inline function fOpcode(e: usize): u32 { return <u32>load<u8>(e, 15); }
// @ts-ignore: decorator
@inline function fImm(e: usize): i64 { return load<i64>(e, 32); }
// @ts-ignore: decorator
@inline function fDisp(e: usize): i64 { return load<i64>(e, 48); }

// @ts-ignore: decorator
@inline function maskOf(size: i32): u64 { return size == 8 ? <u64>-1 : size == 1 ? 0xff : 0xffffffff; }
// @ts-ignore: decorator
@inline function signOf(size: i32): u64 { return size == 8 ? <u64>0x8000000000000000 : size == 1 ? 0x80 : 0x80000000; }

// @ts-ignore: decorator
@inline function szpOf(r: u64, size: i32): u64 {
  let f: u64 = <u64>parityFlag(<u32>r);
  if (r == 0) f |= ZF;
  if ((r & signOf(size)) != 0) f |= SF;
  return f;
}

// @ts-ignore: decorator
@inline function sext(v: u64, size: i32): u64 { return size == 8 ? v : size == 1 ? <u64><i64><i8><u8>v : <u64><i64><i32><u32>v; }

/**
 * `op` (0 add 1 or 4 and 5 sub 6 xor 7 cmp 8 test) on `a` and `b` (already
 * `size` bytes, size 4 or 8; 1 for the subtractions); records the operation for the lazy arithmetic
 * flags (cpu.ts, flushFlags), returns the result.
 */
// @ts-ignore: decorator
@inline export function aluSized(e: usize, op: u32, size: i32, a: u64, b: u64): u64 {
  const m = maskOf(size);
  let r: u64;
  if (op == 0) {
    r = (a + b) & m;
    lazyOp = size == 8 ? LAZY_ADD64 : LAZY_ADD32;
    lazyA = sext(a, size); lazyB = sext(b, size);
  } else if (op == 5 || op == 7) {
    r = (a - b) & m;
    lazyOp = size == 8 ? LAZY_SUB64 : size == 1 ? LAZY_SUB8 : LAZY_SUB32;
    lazyA = sext(a, size); lazyB = sext(b, size);
  } else {
    r = op == 1 ? a | b : op == 6 ? a ^ b : a & b;
    // flags of r - 0: those of a logic operation
    lazyOp = size == 8 ? LAZY_SUB64 : size == 1 ? LAZY_SUB8 : LAZY_SUB32;
    lazyA = sext(r, size); lazyB = 0;
  }
  lazyR = sext(r, size);
  return r;
}

/** Condition `cc` (jcc/setcc numbering) with the flags possibly pending as lazy state. */
// @ts-ignore: decorator
@inline export function lazyCondition(cc: u32): bool {
  const op = lazyOp;
  if (op != LAZY_NONE) {
    const c = cc >> 1;
    let r: bool;
    if (c == 2) r = lazyR == 0; // e
    else if (c == 4) r = <i64>lazyR < 0; // s
    else if (op > LAZY_SUB64) { flushFlags(); return condition(cc); }
    else if (c == 1) r = lazyA < lazyB; // b
    else if (c == 3) r = lazyA <= lazyB; // be
    else if (c == 6) r = <i64>lazyA < <i64>lazyB; // l
    else if (c == 7) r = <i64>lazyA <= <i64>lazyB; // le
    else { flushFlags(); return condition(cc); } // o, p
    return (cc & 1) != 0 ? !r : r;
  }
  return condition(cc);
}

/** lazyCondition(cc) for a `cc` known only at run time: one jump to a specialised test. */
// @ts-ignore: decorator
@inline export function lazyConditionAny(cc: u32): bool {
  switch (cc) {
    case 0: return lazyCondition(0);
    case 1: return lazyCondition(1);
    case 2: return lazyCondition(2);
    case 3: return lazyCondition(3);
    case 4: return lazyCondition(4);
    case 5: return lazyCondition(5);
    case 6: return lazyCondition(6);
    case 7: return lazyCondition(7);
    case 8: return lazyCondition(8);
    case 9: return lazyCondition(9);
    case 10: return lazyCondition(10);
    case 11: return lazyCondition(11);
    case 12: return lazyCondition(12);
    case 13: return lazyCondition(13);
    case 14: return lazyCondition(14);
    default: return lazyCondition(15);
  }
}

/** lazyConditionAny as a call: setcc and cmov use it (one copy of the tests instead of one per handler). */
export function lazyConditionOf(cc: u32): bool { return lazyConditionAny(cc); }

/**
 * Effective address of the ModRM memory operand, inlined: specialised handlers
 * only run instructions without prefixes, so there is no FS/GS base and no
 * 32-bit address size (effectiveAddress() in exec.ts handles those).
 */
// @ts-ignore: decorator
@inline function ea(e: usize): u64 {
  let a: u64 = <u64>fDisp(e);
  if (fRipRel(e)) return nextRip + a;
  const base = fBase(e);
  if (base >= 0) a += reg64(<u32>base);
  const index = fIndex(e);
  if (index >= 0) a += reg64(<u32>index) << <u64>fScale(e);
  return a;
}

// @ts-ignore: decorator
@inline function regAt(n: u32, size: i32): u64 { return size == 8 ? reg64(n) : reg64(n) & 0xffffffff; }

/** op Ev,Gv with a register destination (ModRM.mod = 3). */
// @ts-ignore: decorator
@inline export function aluEG(e: usize, op: u32, size: i32): void {
  const r = aluSized(e, op, size, regAt(fRm(e), size), regAt(fReg(e), size));
  if (op != 7 && op != 8) setReg64(fRm(e), r);
}
/** op Gv,Ev with a register source (ModRM.mod = 3). */
// @ts-ignore: decorator
@inline export function aluGE(e: usize, op: u32, size: i32): void {
  const r = aluSized(e, op, size, regAt(fReg(e), size), regAt(fRm(e), size));
  if (op != 7) setReg64(fReg(e), r);
}
/** op Ev,Iz / Ev,Ib (81, 83) with a register destination. */
// @ts-ignore: decorator
@inline export function aluEI(e: usize, op: u32, size: i32): void {
  const r = aluSized(e, op, size, regAt(fRm(e), size), <u64>fImm(e) & maskOf(size));
  if (op != 7) setReg64(fRm(e), r);
}

/** jcc with a constant condition code. */
// @ts-ignore: decorator
@inline export function jccSized(e: usize, cc: u32): void {
  if (lazyCondition(cc)) setNextRip(nextRip + <u64>fImm(e));
}

// 89 / 8B, register and memory forms
// @ts-ignore: decorator
@inline export function movRR(e: usize, size: i32, load: bool): void {
  if (load) setReg64(fReg(e), regAt(fRm(e), size)); else setReg64(fRm(e), regAt(fReg(e), size));
}
// @ts-ignore: decorator
@inline export function movStore(e: usize, size: i32): void { writeV(ea(e), size, regAt(fReg(e), size)); }
// @ts-ignore: decorator
@inline export function movLoad(e: usize, size: i32): void {
  const v = readV(ea(e), size);
  if (faultVector < 0) setReg64(fReg(e), v);
}
/** 63 with REX.W: movslq, register or memory source. */
// @ts-ignore: decorator
@inline export function movsxdSized(e: usize, mem: bool): void {
  if (!mem) { setReg64(fReg(e), <u64><i64><i32>reg64(fRm(e))); return; }
  const v = readV(ea(e), 4);
  if (faultVector < 0) setReg64(fReg(e), <u64><i64><i32>v);
}
/** 0F B6 movzbl to a 32-bit register (a byte register without REX is ah..bh). */
// @ts-ignore: decorator
@inline export function movzxByte(e: usize, mem: bool): void {
  if (mem) {
    const v = readV(ea(e), 1);
    if (faultVector < 0) setReg64(fReg(e), v);
    return;
  }
  const n = fRm(e);
  if (fRex(e) == 0 && n >= 4 && n < 8) setReg64(fReg(e), (reg64(n - 4) >> 8) & 0xff);
  else setReg64(fReg(e), reg64(n) & 0xff);
}
/** 8D lea without a 67 prefix or rip-relative operand. */
// @ts-ignore: decorator
@inline export function leaSized(e: usize, size: i32): void {
  const a = ea(e);
  setReg64(fReg(e), size == 8 ? a : a & 0xffffffff);
}
// 50+r / 58+r / C3 / E8 / E9 / EB with the 64-bit operand size
// @ts-ignore: decorator
@inline export function push64(e: usize): void { push(reg64(fOpReg(e)), 8); }
// @ts-ignore: decorator
@inline export function pop64(e: usize): void {
  const sp = reg64(4);
  const v = readV(sp, 8);
  if (faultVector >= 0) return;
  setReg64(4, sp + 8);
  setReg64(fOpReg(e), v);
}
// @ts-ignore: decorator
@inline export function ret64(e: usize): void {
  const sp = reg64(4);
  const t = readV(sp, 8);
  if (faultVector >= 0) return;
  setReg64(4, sp + 8);
  setNextRip(t);
}
// @ts-ignore: decorator
@inline export function callRel(e: usize): void {
  push(nextRip, 8);
  if (faultVector < 0) setNextRip(nextRip + <u64>fImm(e));
}
// @ts-ignore: decorator
@inline export function jmpRel(e: usize): void { setNextRip(nextRip + <u64>fImm(e)); }


/**
 * shl (4), shr (5), sar (7) of a 32/64-bit register by an immediate (C1) or
 * by 1 (D1), with exec_shift's flags: a count of 0 (after masking) changes no
 * flag but still zero-extends a 32-bit register.
 */
// @ts-ignore: decorator
@inline export function shiftR(e: usize, sub: u32, size: i32, one: bool): void {
  const n = fRm(e);
  const a = regAt(n, size);
  const count: u32 = (one ? 1 : <u32>fImm(e) & 0xff) & (size == 8 ? 63 : 31);
  if (count == 0) { setReg64(n, a); return; }
  const bits: u32 = <u32>size << 3;
  const sb = signOf(size);
  let r: u64;
  let cf: u64;
  let f: u64;
  if (sub == 4) {
    r = (a << <u64>count) & maskOf(size);
    cf = (a >> <u64>(bits - count)) & 1;
    f = szpOf(r, size) | cf;
    if ((((r & sb) != 0) ? <u64>1 : 0) != cf) f |= OF;
  } else if (sub == 5) {
    r = a >> <u64>count;
    cf = (a >> <u64>(count - 1)) & 1;
    f = szpOf(r, size) | cf;
    if ((a & sb) != 0 && count == 1) f |= OF;
  } else {
    const sa: i64 = size == 8 ? <i64>a : <i64><i32><u32>a;
    r = <u64>(sa >> <i64>count) & maskOf(size);
    cf = <u64>(sa >> <i64>(count - 1)) & 1;
    f = szpOf(r, size) | cf;
  }
  setReg64(n, r);
  setFlags((rflags & ~ARITH_FLAGS) | f);
}

/** imul Gv,Ev,Iz / Gv,Ev,Ib (69, 6B) with a register source. */
// @ts-ignore: decorator
@inline export function imulRI(e: usize, size: i32): void { setInsn(e); imulTo(regAt(fRm(e), size), <u64>fImm(e), size); }
/** imul Gv,Ev (0F AF) with a register source. */
// @ts-ignore: decorator
@inline export function imulRR(e: usize, size: i32): void { setInsn(e); imulTo(regAt(fReg(e), size), regAt(fRm(e), size), size); }

// Byte forms. Without a REX prefix, byte registers 4-7 are ah, ch, dh, bh.
// @ts-ignore: decorator
@inline function byteReg(e: usize, n: u32): u64 {
  if (fRex(e) == 0 && n >= 4 && n < 8) return (reg64(n - 4) >> 8) & 0xff;
  return reg64(n) & 0xff;
}
// @ts-ignore: decorator
@inline function setByteReg(e: usize, n: u32, v: u64): void {
  if (fRex(e) == 0 && n >= 4 && n < 8) setReg64(n - 4, (reg64(n - 4) & ~<u64>0xff00) | ((v & 0xff) << 8));
  else setReg64(n, (reg64(n) & ~<u64>0xff) | (v & 0xff));
}
/** C6 /0 movb $imm8, Eb. */
// @ts-ignore: decorator
@inline export function movbImm(e: usize, mem: bool): void {
  if (mem) writeV(ea(e), 1, <u64>fImm(e) & 0xff); else setByteReg(e, fRm(e), <u64>fImm(e));
}
/** 88 movb Gb, Eb. */
// @ts-ignore: decorator
@inline export function movbStore(e: usize, mem: bool): void {
  const v = byteReg(e, fReg(e));
  if (mem) writeV(ea(e), 1, v); else setByteReg(e, fRm(e), v);
}
/** 8A movb Eb, Gb. */
// @ts-ignore: decorator
@inline export function movbLoad(e: usize, mem: bool): void {
  let v: u64;
  if (mem) {
    v = readV(ea(e), 1);
    if (faultVector >= 0) return;
  } else v = byteReg(e, fRm(e));
  setByteReg(e, fReg(e), v);
}
/** 80 /7 cmpb $imm8, Eb. */
// @ts-ignore: decorator
@inline export function cmpbImm(e: usize, mem: bool): void {
  let a: u64;
  if (mem) {
    a = readV(ea(e), 1);
    if (faultVector >= 0) return;
  } else a = byteReg(e, fRm(e));
  aluSized(e, 7, 1, a, <u64>fImm(e) & 0xff);
}
/** 0F 90-9F setcc Eb. */
// @ts-ignore: decorator
@inline export function setccAny(e: usize, mem: bool): void {
  const v: u64 = lazyConditionOf(fOpcode(e) & 15) ? 1 : 0;
  if (mem) writeV(ea(e), 1, v); else setByteReg(e, fRm(e), v);
}
/** 0F 40-4F cmovcc Gv, Ev: the source is read (and may fault) either way; a 32-bit destination is zero-extended either way. */
// @ts-ignore: decorator
@inline export function cmovAny(e: usize, size: i32, mem: bool): void {
  let v: u64;
  if (mem) {
    v = readV(ea(e), size);
    if (faultVector >= 0) return;
  } else v = regAt(fRm(e), size);
  const d = fReg(e);
  if (lazyConditionOf(fOpcode(e) & 15)) setReg64(d, v);
  else if (size == 4) setReg64(d, reg64(d) & 0xffffffff);
}

/** B8+r mov $imm, register: 32-bit (zero-extended) or, with REX.W, the 64-bit immediate. */
// @ts-ignore: decorator
@inline export function movRegImm(e: usize, size: i32): void {
  setReg64(fOpReg(e), size == 8 ? <u64>fImm(e) : <u64>fImm(e) & 0xffffffff);
}
/** C7 /0 mov $imm32, Ev (sign-extended at 64 bits). */
// @ts-ignore: decorator
@inline export function movImmE(e: usize, size: i32, mem: bool): void {
  const v = <u64>fImm(e) & maskOf(size);
  if (mem) writeV(ea(e), size, v); else setReg64(fRm(e), v);
}
/** F6 /0 testb $imm8, Eb (imm) and 84 testb Gb, Eb. */
// @ts-ignore: decorator
@inline export function testb(e: usize, imm: bool, mem: bool): void {
  let a: u64;
  if (mem) {
    a = readV(ea(e), 1);
    if (faultVector >= 0) return;
  } else a = byteReg(e, fRm(e));
  aluSized(e, 8, 1, a, imm ? <u64>fImm(e) & 0xff : byteReg(e, fReg(e)));
}
/** op eAX/rAX, Iz (05 0D 25 2D 35 3D, A9 test). */
// @ts-ignore: decorator
@inline export function aluAI(e: usize, op: u32, size: i32): void {
  const r = aluSized(e, op, size, regAt(0, size), <u64>fImm(e) & maskOf(size));
  if (op != 7 && op != 8) setReg64(0, r);
}

/** FF /4 jmp *Ev and FF /2 call *Ev (64-bit target, register or memory). */
// @ts-ignore: decorator
@inline export function branchE(e: usize, call: bool, mem: bool): void {
  let t: u64;
  if (mem) {
    t = readV(ea(e), 8);
    if (faultVector >= 0) return;
  } else t = reg64(fRm(e));
  if (call) {
    push(nextRip, 8);
    if (faultVector >= 0) return;
  }
  setNextRip(t);
}
/** 6A / 68 push $imm (sign-extended to 64 bits). */
// @ts-ignore: decorator
@inline export function pushImm(e: usize): void { push(<u64>fImm(e), 8); }
