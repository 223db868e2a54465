// A32 instruction semantics: one handler per line of encodings/a32.decode,
// named exec_<NAME>, each taking the instruction word (its condition has
// already passed). The generated dispatch table maps decoder ids to these
// handlers; a line without a handler executes as UNDEFINED. Pseudocode
// references are to the ARM ARM (DDI 0406C) A8.8 instruction pages.
//
// Handlers read registers with r15 = address of the instruction + 8, write
// the pc only through the *WritePc helpers (which set pcWritten), and must
// not change registers after a memory access aborted (`aborted`).
import {
  reg, setRegRaw, st, setSt, FLAG_N, FLAG_Z, FLAG_C, FLAG_V, FLAG_Q, FLAG_GE, CPSR_CTL, PSR_T, PSR_I, PSR_F, PSR_A, PSR_E,
  readCpsr, writeFlags, writeControl, writeCpsr, currentMode, privileged, spsrOf, bankedReg, setBankedReg, validMode,
  MODE_USR, MODE_FIQ, MODE_IRQ, MODE_SVC, MODE_ABT, MODE_UND, MODE_SYS, MODE_MON, MODE_HYP,
  CP15_SCTLR, CP15_TTBR0, CP15_TTBR1, CP15_TTBCR, CP15_DACR, CP15_DFSR, CP15_DFAR, CP15_IFSR, CP15_IFAR, CP15_VBAR,
  CP15_CONTEXTIDR, CP15_TPIDRURW, CP15_TPIDRURO, CP15_TPIDRPRW, CP15_CPACR, CP15_PAR, EXCL_ADDR, EXCL_OPEN, CPU_ID, WAITING,
  FAULT_ADDR, FAULT_STATUS, invalidateFetch,
} from './state';
import { read, write, aborted, alignmentAbort, setForceUser, translate, tlbFlush, tlbFlushPage, ACC_READ, ACC_WRITE, clearAbort, probeWrite } from './memory';
import { expandImmediate } from './shifter';

// ---- Execution context shared with the run loop ----
/** Address of the executing instruction. */
export let curPc: u32 = 0;
/** Set when the instruction wrote the pc. */
export let pcWritten: bool = false;
/** Exception the instruction raised (EXC_*), 0 for none. */
export let raised: u32 = 0;

export const EXC_UNDEF: u32 = 1;
export const EXC_SVC: u32 = 2;
export const EXC_PABT: u32 = 3;
export const EXC_DABT: u32 = 4;
export const EXC_IRQ: u32 = 5;
export const EXC_FIQ: u32 = 6;
export const EXC_BKPT: u32 = 7;
export const EXC_DTRACE: u32 = 8;
export const EXC_WFI: u32 = 9;

export function clearRaised(): void {
  raised = 0;
}

export function beginInstruction(pc: u32): void {
  curPc = pc;
  pcWritten = false;
  raised = 0;
  setRegRaw(15, pc + 8);
}

/** The DTrace fbt breakpoint (NetBSD/FreeBSD FBT_BREAKPOINT, a UDF encoding) with the displaced condition in bits 3:0. */
export const DTRACE_BREAKPOINT: u32 = 0xe7f000f0;

// ---- Field extractors ----
@inline function fRd(w: u32): u32 { return (w >>> 12) & 15; }
@inline function fRn(w: u32): u32 { return (w >>> 16) & 15; }
@inline function fRm(w: u32): u32 { return w & 15; }
@inline function fRs(w: u32): u32 { return (w >>> 8) & 15; }
@inline function bit(w: u32, n: u32): u32 { return (w >>> n) & 1; }

// ---- pc writes ----
/** BranchWritePC: no change of instruction set. */
@inline function branchWritePc(v: u32): void {
  setRegRaw(15, v & ~3);
  pcWritten = true;
}
/** BXWritePC (also LoadWritePC and ALUWritePC in ARM state, v7): bit 0 selects Thumb. */
function bxWritePc(v: u32): void {
  if (v & 1) {
    setSt(CPSR_CTL, st(CPSR_CTL) | PSR_T);
    invalidateFetch();
    setRegRaw(15, v & ~1);
  } else setRegRaw(15, v & ~3);
  pcWritten = true;
}
@inline function setReg(n: u32, v: u32): void {
  if (n == 15) bxWritePc(v);
  else setRegRaw(n, v);
}

export function undefinedInstruction(): void {
  raised = EXC_UNDEF;
}
export function exec_UNDEFINED(w: u32): void {
  raised = EXC_UNDEF;
}

// ---- Conditions (A8.3) ----
@inline export function conditionPassed(cond: u32): bool {
  let r: bool;
  switch (cond >>> 1) {
    case 0: r = st(FLAG_Z) != 0; break;
    case 1: r = st(FLAG_C) != 0; break;
    case 2: r = st(FLAG_N) != 0; break;
    case 3: r = st(FLAG_V) != 0; break;
    case 4: r = st(FLAG_C) != 0 && st(FLAG_Z) == 0; break;
    case 5: r = st(FLAG_N) == st(FLAG_V); break;
    case 6: r = st(FLAG_N) == st(FLAG_V) && st(FLAG_Z) == 0; break;
    default: return true;
  }
  return (cond & 1) ? !r : r;
}

// ---- Barrel shifter (A8.4.3) ----
let shCarry: u32 = 0;

/** Shift_C with an immediate amount as encoded (type, imm5). */
@inline function shiftImm(v: u32, type: u32, imm5: u32): u32 {
  switch (type) {
    case 0:
      if (imm5 == 0) { shCarry = st(FLAG_C); return v; }
      shCarry = (v >>> (32 - imm5)) & 1;
      return v << imm5;
    case 1:
      if (imm5 == 0) { shCarry = v >>> 31; return 0; }
      shCarry = (v >>> (imm5 - 1)) & 1;
      return v >>> imm5;
    case 2:
      if (imm5 == 0) { shCarry = v >>> 31; return u32(i32(v) >> 31); }
      shCarry = (v >>> (imm5 - 1)) & 1;
      return u32(i32(v) >> imm5);
    default:
      if (imm5 == 0) { shCarry = v & 1; return (st(FLAG_C) << 31) | (v >>> 1); }
      shCarry = (v >>> (imm5 - 1)) & 1;
      return rotr<u32>(v, imm5);
  }
}

/** Shift_C by a register amount (bottom byte of Rs). */
@inline function shiftReg(v: u32, type: u32, amount: u32): u32 {
  const n = amount & 0xff;
  if (n == 0) { shCarry = st(FLAG_C); return v; }
  switch (type) {
    case 0:
      if (n < 32) { shCarry = (v >>> (32 - n)) & 1; return v << n; }
      shCarry = n == 32 ? v & 1 : 0;
      return 0;
    case 1:
      if (n < 32) { shCarry = (v >>> (n - 1)) & 1; return v >>> n; }
      shCarry = n == 32 ? v >>> 31 : 0;
      return 0;
    case 2:
      if (n < 32) { shCarry = (v >>> (n - 1)) & 1; return u32(i32(v) >> n); }
      shCarry = v >>> 31;
      return u32(i32(v) >> 31);
    default: {
      const r = n & 31;
      const res = rotr<u32>(v, r);
      shCarry = res >>> 31;
      return res;
    }
  }
}

@inline function shiftedRegOperand(w: u32): u32 {
  return shiftImm(reg(fRm(w)), (w >>> 5) & 3, (w >>> 7) & 31);
}

/** Shift without carry (addressing offsets, ssat). */
@inline function shiftNoCarry(v: u32, type: u32, imm5: u32): u32 {
  const c = shCarry;
  const r = shiftImm(v, type, imm5);
  shCarry = c;
  return r;
}

// ---- Data processing (A8.4) ----
@inline function setNZ(r: u32): void {
  setSt(FLAG_N, r >>> 31);
  setSt(FLAG_Z, u32(r == 0));
}

/** Exception return through a flag-setting data-processing write of the pc (SUBS PC, LR and friends). */
function aluExceptionReturn(result: u32): void {
  const spsr = spsrOf(currentMode());
  if (spsr == 0) {
    // UNPREDICTABLE in User/System mode: treat as a plain branch.
    bxWritePc(result);
    return;
  }
  writeCpsr(st(spsr));
  if (st(CPSR_CTL) & PSR_T) setRegRaw(15, result & ~1);
  else setRegRaw(15, result & ~3);
  pcWritten = true;
}

@inline function dataProcessing(op: u32, w: u32, b: u32, logicalCarry: u32): void {
  const a = reg(fRn(w));
  const d = fRd(w);
  const s = bit(w, 20);
  let res: u32 = 0;
  let c = logicalCarry;
  let v = st(FLAG_V);
  let arith = true;
  switch (op) {
    case 0: case 8: res = a & b; arith = false; break; // AND, TST
    case 1: case 9: res = a ^ b; arith = false; break; // EOR, TEQ
    case 2: case 10: res = a - b; c = u32(a >= b); v = ((a ^ b) & (a ^ res)) >>> 31; break; // SUB, CMP
    case 3: res = b - a; c = u32(b >= a); v = ((b ^ a) & (b ^ res)) >>> 31; break; // RSB
    case 4: case 11: res = a + b; c = u32(res < a); v = (~(a ^ b) & (a ^ res)) >>> 31; break; // ADD, CMN
    case 5: { // ADC
      const cin = st(FLAG_C);
      res = a + b + cin;
      c = cin ? u32(res <= a) : u32(res < a);
      v = (~(a ^ b) & (a ^ res)) >>> 31;
      break;
    }
    case 6: { // SBC
      const cin = st(FLAG_C);
      res = a + ~b + cin;
      c = cin ? u32(a >= b) : u32(a > b);
      v = ((a ^ b) & (a ^ res)) >>> 31;
      break;
    }
    case 7: { // RSC
      const cin = st(FLAG_C);
      res = b + ~a + cin;
      c = cin ? u32(b >= a) : u32(b > a);
      v = ((b ^ a) & (b ^ res)) >>> 31;
      break;
    }
    case 12: res = a | b; arith = false; break; // ORR
    case 13: res = b; arith = false; break; // MOV
    case 14: res = a & ~b; arith = false; break; // BIC
    default: res = ~b; arith = false; break; // MVN
  }
  const writes = op < 8 || op >= 12;
  if (writes && d == 15) {
    if (s) aluExceptionReturn(res);
    else bxWritePc(res);
    return;
  }
  if (writes) setRegRaw(d, res);
  if (s) {
    setNZ(res);
    setSt(FLAG_C, c);
    if (arith) setSt(FLAG_V, v);
  }
}

@inline function dpImm(op: u32, w: u32): void {
  const imm12 = w & 0xfff;
  const value = expandImmediate(imm12);
  const carry = (imm12 & 0xf00) == 0 ? st(FLAG_C) : value >>> 31;
  dataProcessing(op, w, value, carry);
}
@inline function dpReg(op: u32, w: u32): void {
  const b = shiftedRegOperand(w);
  dataProcessing(op, w, b, shCarry);
}
@inline function dpRsr(op: u32, w: u32): void {
  const b = shiftReg(reg(fRm(w)), (w >>> 5) & 3, reg(fRs(w)));
  dataProcessing(op, w, b, shCarry);
}

export function exec_AND_imm(w: u32): void { dpImm(0, w); }
export function exec_EOR_imm(w: u32): void { dpImm(1, w); }
export function exec_SUB_imm(w: u32): void { dpImm(2, w); }
export function exec_RSB_imm(w: u32): void { dpImm(3, w); }
export function exec_ADD_imm(w: u32): void { dpImm(4, w); }
export function exec_ADC_imm(w: u32): void { dpImm(5, w); }
export function exec_SBC_imm(w: u32): void { dpImm(6, w); }
export function exec_RSC_imm(w: u32): void { dpImm(7, w); }
export function exec_TST_imm(w: u32): void { dpImm(8, w); }
export function exec_TEQ_imm(w: u32): void { dpImm(9, w); }
export function exec_CMP_imm(w: u32): void { dpImm(10, w); }
export function exec_CMN_imm(w: u32): void { dpImm(11, w); }
export function exec_ORR_imm(w: u32): void { dpImm(12, w); }
export function exec_MOV_imm(w: u32): void { dpImm(13, w); }
export function exec_BIC_imm(w: u32): void { dpImm(14, w); }
export function exec_MVN_imm(w: u32): void { dpImm(15, w); }
export function exec_AND_reg(w: u32): void { dpReg(0, w); }
export function exec_EOR_reg(w: u32): void { dpReg(1, w); }
export function exec_SUB_reg(w: u32): void { dpReg(2, w); }
export function exec_RSB_reg(w: u32): void { dpReg(3, w); }
export function exec_ADD_reg(w: u32): void { dpReg(4, w); }
export function exec_ADC_reg(w: u32): void { dpReg(5, w); }
export function exec_SBC_reg(w: u32): void { dpReg(6, w); }
export function exec_RSC_reg(w: u32): void { dpReg(7, w); }
export function exec_TST_reg(w: u32): void { dpReg(8, w); }
export function exec_TEQ_reg(w: u32): void { dpReg(9, w); }
export function exec_CMP_reg(w: u32): void { dpReg(10, w); }
export function exec_CMN_reg(w: u32): void { dpReg(11, w); }
export function exec_ORR_reg(w: u32): void { dpReg(12, w); }
export function exec_MOV_reg(w: u32): void { dpReg(13, w); }
export function exec_BIC_reg(w: u32): void { dpReg(14, w); }
export function exec_MVN_reg(w: u32): void { dpReg(15, w); }
export function exec_AND_rsr(w: u32): void { dpRsr(0, w); }
export function exec_EOR_rsr(w: u32): void { dpRsr(1, w); }
export function exec_SUB_rsr(w: u32): void { dpRsr(2, w); }
export function exec_RSB_rsr(w: u32): void { dpRsr(3, w); }
export function exec_ADD_rsr(w: u32): void { dpRsr(4, w); }
export function exec_ADC_rsr(w: u32): void { dpRsr(5, w); }
export function exec_SBC_rsr(w: u32): void { dpRsr(6, w); }
export function exec_RSC_rsr(w: u32): void { dpRsr(7, w); }
export function exec_TST_rsr(w: u32): void { dpRsr(8, w); }
export function exec_TEQ_rsr(w: u32): void { dpRsr(9, w); }
export function exec_CMP_rsr(w: u32): void { dpRsr(10, w); }
export function exec_CMN_rsr(w: u32): void { dpRsr(11, w); }
export function exec_ORR_rsr(w: u32): void { dpRsr(12, w); }
export function exec_MOV_rsr(w: u32): void { dpRsr(13, w); }
export function exec_BIC_rsr(w: u32): void { dpRsr(14, w); }
export function exec_MVN_rsr(w: u32): void { dpRsr(15, w); }

export function exec_MOVW(w: u32): void {
  setReg(fRd(w), ((w >>> 4) & 0xf000) | (w & 0xfff));
}
export function exec_MOVT(w: u32): void {
  const d = fRd(w);
  setReg(d, (reg(d) & 0xffff) | (((w >>> 4) & 0xf000) | (w & 0xfff)) << 16);
}

// ---- Hints, barriers ----
export function exec_NOP(w: u32): void {}
export function exec_YIELD(w: u32): void {}
export function exec_WFE(w: u32): void {}
export function exec_SEV(w: u32): void {}
export function exec_DBG(w: u32): void {}
export function exec_HINT(w: u32): void {}
export function exec_WFI(w: u32): void { raised = EXC_WFI; }
export function exec_DMB(w: u32): void {}
export function exec_DSB(w: u32): void {}
export function exec_ISB(w: u32): void {}
export function exec_PLD_imm(w: u32): void {}
export function exec_PLD_reg(w: u32): void {}
export function exec_PLI_imm(w: u32): void {}
export function exec_PLI_reg(w: u32): void {}
export function exec_CLREX(w: u32): void { setSt(EXCL_OPEN, 0); }
export function exec_SETEND(w: u32): void {
  // Big-endian data is not modelled: SETEND BE is undefined here.
  if (bit(w, 9)) raised = EXC_UNDEF;
}

// ---- Status registers (B9.3) ----
function psrWrite(w: u32, value: u32, spsr: bool): void {
  const mask = (w >>> 16) & 0xf;
  let bytes: u32 = 0;
  if (mask & 1) bytes |= 0x000000ff;
  if (mask & 2) bytes |= 0x0000ff00;
  if (mask & 4) bytes |= 0x00ff0000;
  if (mask & 8) bytes |= 0xff000000;
  if (spsr) {
    const at = spsrOf(currentMode());
    if (at == 0) return; // UNPREDICTABLE without an SPSR: ignore
    setSt(at, (st(at) & ~bytes) | (value & bytes));
    return;
  }
  const old = readCpsr();
  // User mode may only write the flags (NZCVQ) and GE.
  let writable: u32 = privileged() ? bytes : bytes & 0xf80f0000;
  writable &= 0xf80f03df | 0x200; // never the IT/J bits; T only through exception return
  writable &= ~u32(PSR_T);
  const v = (old & ~writable) | (value & writable);
  writeFlags(v);
  if (writable & 0xff) writeControl(v);
  else if (writable & 0x200) setSt(CPSR_CTL, (st(CPSR_CTL) & ~PSR_E) | (v & PSR_E));
}
export function exec_MSR_imm(w: u32): void {
  psrWrite(w, expandImmediate(w & 0xfff), bit(w, 22) != 0);
}
export function exec_MSR_reg(w: u32): void {
  psrWrite(w, reg(fRm(w)), bit(w, 22) != 0);
}
export function exec_MRS(w: u32): void {
  let v: u32;
  if (bit(w, 22)) {
    const at = spsrOf(currentMode());
    if (at == 0) { raised = EXC_UNDEF; return; }
    v = st(at);
  } else {
    v = readCpsr();
    if (!privileged()) v &= 0xf80f0000;
  }
  setRegRaw(fRd(w), v);
}

/** B9.2.3 banked register encodings: returns mode << 8 | register (16 = SPSR), or 0xffff. */
function bankedTarget(r: u32, m: u32, m1: u32): u32 {
  const sysm = (r << 5) | (m << 4) | m1;
  if (sysm <= 0x06) return (MODE_USR << 8) | (8 + sysm);
  if (sysm >= 0x08 && sysm <= 0x0e) return (MODE_FIQ << 8) | (sysm);
  switch (sysm) {
    case 0x10: return (MODE_IRQ << 8) | 14;
    case 0x11: return (MODE_IRQ << 8) | 13;
    case 0x12: return (MODE_SVC << 8) | 14;
    case 0x13: return (MODE_SVC << 8) | 13;
    case 0x14: return (MODE_ABT << 8) | 14;
    case 0x15: return (MODE_ABT << 8) | 13;
    case 0x16: return (MODE_UND << 8) | 14;
    case 0x17: return (MODE_UND << 8) | 13;
    case 0x2e: return (MODE_FIQ << 8) | 16;
    case 0x30: return (MODE_IRQ << 8) | 16;
    case 0x32: return (MODE_SVC << 8) | 16;
    case 0x34: return (MODE_ABT << 8) | 16;
    case 0x36: return (MODE_UND << 8) | 16;
  }
  return 0xffff;
}
export function exec_MRS_banked(w: u32): void {
  const t = bankedTarget(bit(w, 22), bit(w, 8), fRn(w));
  if (t == 0xffff || !privileged()) { raised = EXC_UNDEF; return; }
  const mode = t >>> 8;
  const n = t & 0xff;
  setRegRaw(fRd(w), n == 16 ? st(spsrOf(mode)) : bankedReg(mode, n));
}
export function exec_MSR_banked(w: u32): void {
  const t = bankedTarget(bit(w, 22), bit(w, 8), fRn(w));
  if (t == 0xffff || !privileged()) { raised = EXC_UNDEF; return; }
  const mode = t >>> 8;
  const n = t & 0xff;
  if (n == 16) setSt(spsrOf(mode), reg(fRm(w)));
  else setBankedReg(mode, n, reg(fRm(w)));
}

export function exec_CPS(w: u32): void {
  if (!privileged()) return; // NOP in User mode
  let ctl = st(CPSR_CTL);
  const imod = (w >>> 18) & 3;
  let flags: u32 = 0;
  if (bit(w, 8)) flags |= PSR_A;
  if (bit(w, 7)) flags |= PSR_I;
  if (bit(w, 6)) flags |= PSR_F;
  if (imod == 2) ctl &= ~flags;
  else if (imod == 3) ctl |= flags;
  if (bit(w, 17)) {
    const mode = w & 0x1f;
    if (validMode(mode)) ctl = (ctl & ~0x1f) | mode;
  }
  writeControl(ctl);
}

// ---- Branches (A8.8.18, A8.8.25-27) ----
export function exec_B(w: u32): void {
  branchWritePc(reg(15) + u32(i32(w << 8) >> 6));
}
export function exec_BL(w: u32): void {
  setRegRaw(14, curPc + 4);
  branchWritePc(reg(15) + u32(i32(w << 8) >> 6));
}
export function exec_BLX_imm(w: u32): void {
  // Switches to Thumb: the target is executed in Thumb state.
  setRegRaw(14, curPc + 4);
  const target = reg(15) + u32(i32(w << 8) >> 6) + (bit(w, 24) << 1);
  bxWritePc(target | 1);
}
export function exec_BX(w: u32): void {
  bxWritePc(reg(fRm(w)));
}
export function exec_BLX_reg(w: u32): void {
  const target = reg(fRm(w));
  setRegRaw(14, curPc + 4);
  bxWritePc(target);
}
export function exec_BXJ(w: u32): void {
  // No Jazelle: BXJ behaves as BX (A8.8.28 with a trivial Jazelle implementation).
  bxWritePc(reg(fRm(w)));
}

// ---- Multiplies (A8.8.100-..., A4.4) ----
export function exec_MUL(w: u32): void {
  const r = reg(fRm(w)) * reg(fRs(w));
  setRegRaw(fRn(w), r);
  if (bit(w, 20)) setNZ(r);
}
export function exec_MLA(w: u32): void {
  const r = reg(fRm(w)) * reg(fRs(w)) + reg(fRd(w));
  setRegRaw(fRn(w), r);
  if (bit(w, 20)) setNZ(r);
}
export function exec_MLS(w: u32): void {
  setRegRaw(fRn(w), reg(fRd(w)) - reg(fRm(w)) * reg(fRs(w)));
}
@inline function setLong(w: u32, r: u64): void {
  setRegRaw(fRd(w), u32(r));
  setRegRaw(fRn(w), u32(r >>> 32));
  if (bit(w, 20)) {
    setSt(FLAG_N, u32(r >>> 63));
    setSt(FLAG_Z, u32(r == 0));
  }
}
@inline function accumulator(w: u32): u64 {
  return (u64(reg(fRn(w))) << 32) | u64(reg(fRd(w)));
}
export function exec_UMULL(w: u32): void { setLong(w, u64(reg(fRm(w))) * u64(reg(fRs(w)))); }
export function exec_UMLAL(w: u32): void { setLong(w, u64(reg(fRm(w))) * u64(reg(fRs(w))) + accumulator(w)); }
export function exec_SMULL(w: u32): void { setLong(w, u64(i64(i32(reg(fRm(w)))) * i64(i32(reg(fRs(w)))))); }
export function exec_SMLAL(w: u32): void { setLong(w, u64(i64(i32(reg(fRm(w)))) * i64(i32(reg(fRs(w))))) + accumulator(w)); }
export function exec_UMAAL(w: u32): void {
  const r = u64(reg(fRm(w))) * u64(reg(fRs(w))) + u64(reg(fRd(w))) + u64(reg(fRn(w)));
  setRegRaw(fRd(w), u32(r));
  setRegRaw(fRn(w), u32(r >>> 32));
}

@inline function half(v: u32, top: u32): i32 {
  return top ? i32(v) >> 16 : i32(i16(v));
}
@inline function setQIfOverflow(r: i64): u32 {
  if (r != i64(i32(r))) setSt(FLAG_Q, 1);
  return u32(r);
}
export function exec_SMLAxy(w: u32): void {
  const p = i64(half(reg(fRm(w)), bit(w, 5))) * i64(half(reg(fRs(w)), bit(w, 6)));
  setRegRaw(fRn(w), setQIfOverflow(p + i64(i32(reg(fRd(w))))));
}
export function exec_SMULxy(w: u32): void {
  setRegRaw(fRn(w), u32(half(reg(fRm(w)), bit(w, 5)) * half(reg(fRs(w)), bit(w, 6))));
}
export function exec_SMULWy(w: u32): void {
  const p = i64(i32(reg(fRm(w)))) * i64(half(reg(fRs(w)), bit(w, 6)));
  setRegRaw(fRn(w), u32(p >> 16));
}
export function exec_SMLAWy(w: u32): void {
  const p = (i64(i32(reg(fRm(w)))) * i64(half(reg(fRs(w)), bit(w, 6)))) >> 16;
  setRegRaw(fRn(w), setQIfOverflow(p + i64(i32(reg(fRd(w))))));
}
export function exec_SMLALxy(w: u32): void {
  const p = i64(half(reg(fRm(w)), bit(w, 5))) * i64(half(reg(fRs(w)), bit(w, 6)));
  const r = u64(p) + accumulator(w);
  setRegRaw(fRd(w), u32(r));
  setRegRaw(fRn(w), u32(r >>> 32));
}

// Dual 16-bit multiplies: Rn = bits 3:0, Rm = bits 11:8 (swapped halves when M), Ra = 15:12, Rd = 19:16.
@inline function dualProducts(w: u32): i64 {
  let m = reg(fRs(w));
  if (bit(w, 5)) m = rotr<u32>(m, 16);
  const n = reg(fRm(w));
  dualHigh = i64(half(n, 1)) * i64(half(m, 1));
  return i64(half(n, 0)) * i64(half(m, 0));
}
let dualHigh: i64 = 0;
export function exec_SMLAD(w: u32): void {
  const lo = dualProducts(w);
  setRegRaw(fRn(w), setQIfOverflow(lo + dualHigh + i64(i32(reg(fRd(w))))));
}
export function exec_SMUAD(w: u32): void {
  const lo = dualProducts(w);
  setRegRaw(fRn(w), setQIfOverflow(lo + dualHigh));
}
export function exec_SMLSD(w: u32): void {
  const lo = dualProducts(w);
  setRegRaw(fRn(w), setQIfOverflow(lo - dualHigh + i64(i32(reg(fRd(w))))));
}
export function exec_SMUSD(w: u32): void {
  const lo = dualProducts(w);
  setRegRaw(fRn(w), u32(lo - dualHigh));
}
export function exec_SMLALD(w: u32): void {
  const lo = dualProducts(w);
  const r = u64(lo + dualHigh) + accumulator(w);
  setRegRaw(fRd(w), u32(r));
  setRegRaw(fRn(w), u32(r >>> 32));
}
export function exec_SMLSLD(w: u32): void {
  const lo = dualProducts(w);
  const r = u64(lo - dualHigh) + accumulator(w);
  setRegRaw(fRd(w), u32(r));
  setRegRaw(fRn(w), u32(r >>> 32));
}
@inline function mostSignificant(w: u32, acc: i64, negate: bool): void {
  const p = i64(i32(reg(fRm(w)))) * i64(i32(reg(fRs(w))));
  let r = negate ? acc - p : acc + p;
  if (bit(w, 5)) r += 0x80000000;
  setRegRaw(fRn(w), u32(r >> 32));
}
export function exec_SMMUL(w: u32): void { mostSignificant(w, 0, false); }
export function exec_SMMLA(w: u32): void { mostSignificant(w, i64(reg(fRd(w))) << 32, false); }
export function exec_SMMLS(w: u32): void { mostSignificant(w, i64(reg(fRd(w))) << 32, true); }

export function exec_SDIV(w: u32): void {
  const n = i32(reg(fRm(w)));
  const m = i32(reg(fRs(w)));
  let r: i32;
  if (m == 0) r = 0;
  else if (n == i32.MIN_VALUE && m == -1) r = n;
  else r = n / m;
  setRegRaw(fRn(w), u32(r));
}
export function exec_UDIV(w: u32): void {
  const m = reg(fRs(w));
  setRegRaw(fRn(w), m == 0 ? 0 : reg(fRm(w)) / m);
}

// ---- Saturation (A2.2.1) ----
@inline function signedSat(v: i64, bits: u32): u32 {
  const max = (i64(1) << (bits - 1)) - 1;
  const min = -(i64(1) << (bits - 1));
  if (v > max) { satFlag = true; return u32(max); }
  if (v < min) { satFlag = true; return u32(min); }
  return u32(v);
}
@inline function unsignedSat(v: i64, bits: u32): u32 {
  const max = (i64(1) << bits) - 1;
  if (v > max) { satFlag = true; return u32(max); }
  if (v < 0) { satFlag = true; return 0; }
  return u32(v);
}
let satFlag: bool = false;

@inline function qArith(w: u32, double: bool, subtract: bool): void {
  satFlag = false;
  let b = i64(i32(reg(fRn(w))));
  if (double) b = i64(i32(signedSat(b * 2, 32)));
  const a = i64(i32(reg(fRm(w))));
  const r = signedSat(subtract ? a - b : a + b, 32);
  setRegRaw(fRd(w), r);
  if (satFlag) setSt(FLAG_Q, 1);
}
export function exec_QADD(w: u32): void { qArith(w, false, false); }
export function exec_QSUB(w: u32): void { qArith(w, false, true); }
export function exec_QDADD(w: u32): void { qArith(w, true, false); }
export function exec_QDSUB(w: u32): void { qArith(w, true, true); }

export function exec_SSAT(w: u32): void {
  satFlag = false;
  const operand = shiftNoCarry(reg(fRm(w)), bit(w, 6) << 1, (w >>> 7) & 31);
  setRegRaw(fRd(w), signedSat(i64(i32(operand)), ((w >>> 16) & 31) + 1));
  if (satFlag) setSt(FLAG_Q, 1);
}
export function exec_USAT(w: u32): void {
  satFlag = false;
  const operand = shiftNoCarry(reg(fRm(w)), bit(w, 6) << 1, (w >>> 7) & 31);
  setRegRaw(fRd(w), unsignedSat(i64(i32(operand)), (w >>> 16) & 31));
  if (satFlag) setSt(FLAG_Q, 1);
}
export function exec_SSAT16(w: u32): void {
  satFlag = false;
  const v = reg(fRm(w));
  const bits = ((w >>> 16) & 15) + 1;
  const lo = signedSat(i64(half(v, 0)), bits) & 0xffff;
  const hi = signedSat(i64(half(v, 1)), bits) & 0xffff;
  setRegRaw(fRd(w), lo | (hi << 16));
  if (satFlag) setSt(FLAG_Q, 1);
}
export function exec_USAT16(w: u32): void {
  satFlag = false;
  const v = reg(fRm(w));
  const bits = (w >>> 16) & 15;
  const lo = unsignedSat(i64(half(v, 0)), bits) & 0xffff;
  const hi = unsignedSat(i64(half(v, 1)), bits) & 0xffff;
  setRegRaw(fRd(w), lo | (hi << 16));
  if (satFlag) setSt(FLAG_Q, 1);
}

// ---- Parallel add/subtract (A4.4.3) ----
// kind: 0 S, 1 Q, 2 SH, 3 U, 4 UQ, 5 UH; op: 0 ADD16, 1 ASX, 2 SAX, 3 SUB16, 4 ADD8, 7 SUB8
function parallel(w: u32, kind: u32, op: u32): void {
  const a = reg(fRn(w));
  const b = reg(fRm(w));
  const signed = kind < 3;
  const lanes: u32 = op >= 4 ? 4 : 2;
  const width: u32 = op >= 4 ? 8 : 16;
  const laneMask: u32 = (u32(1) << width) - 1;
  let result: u32 = 0;
  let ge: u32 = 0;
  for (let i: u32 = 0; i < lanes; i++) {
    // Which halves pair up: ASX/SAX cross them.
    const ai = i;
    let bi = i;
    let add = true;
    if (op == 0 || op == 4) add = true;
    else if (op == 3 || op == 7) add = false;
    else if (op == 1) { bi = 1 - i; add = i == 1; } // ASX: lo = a.lo - b.hi, hi = a.hi + b.lo
    else { bi = 1 - i; add = i == 0; } // SAX: lo = a.lo + b.hi, hi = a.hi - b.lo
    const ra = (a >>> (ai * width)) & laneMask;
    const rb = (b >>> (bi * width)) & laneMask;
    const x: i32 = signed ? (i32(ra << (32 - width)) >> (32 - width)) : i32(ra);
    const y: i32 = signed ? (i32(rb << (32 - width)) >> (32 - width)) : i32(rb);
    const r: i32 = add ? x + y : x - y;
    let lane: u32;
    let geBit: bool;
    switch (kind) {
      case 0: lane = u32(r); geBit = r >= 0; break;
      case 1: lane = signedSat(i64(r), width); geBit = false; break;
      case 2: lane = u32(r >> 1); geBit = false; break;
      case 3: lane = u32(r); geBit = add ? r >= i32(1 << width) : r >= 0; break;
      case 4: lane = unsignedSat(i64(r), width); geBit = false; break;
      default: lane = u32(r >> 1); geBit = false; break;
    }
    result |= (lane & laneMask) << (i * width);
    if (geBit) ge |= width == 16 ? (u32(3) << (i * 2)) : (u32(1) << i);
  }
  setRegRaw(fRd(w), result);
  if (kind == 0 || kind == 3) setSt(FLAG_GE, ge);
}
export function exec_SADD16(w: u32): void { parallel(w, 0, 0); }
export function exec_SASX(w: u32): void { parallel(w, 0, 1); }
export function exec_SSAX(w: u32): void { parallel(w, 0, 2); }
export function exec_SSUB16(w: u32): void { parallel(w, 0, 3); }
export function exec_SADD8(w: u32): void { parallel(w, 0, 4); }
export function exec_SSUB8(w: u32): void { parallel(w, 0, 7); }
export function exec_QADD16(w: u32): void { parallel(w, 1, 0); }
export function exec_QASX(w: u32): void { parallel(w, 1, 1); }
export function exec_QSAX(w: u32): void { parallel(w, 1, 2); }
export function exec_QSUB16(w: u32): void { parallel(w, 1, 3); }
export function exec_QADD8(w: u32): void { parallel(w, 1, 4); }
export function exec_QSUB8(w: u32): void { parallel(w, 1, 7); }
export function exec_SHADD16(w: u32): void { parallel(w, 2, 0); }
export function exec_SHASX(w: u32): void { parallel(w, 2, 1); }
export function exec_SHSAX(w: u32): void { parallel(w, 2, 2); }
export function exec_SHSUB16(w: u32): void { parallel(w, 2, 3); }
export function exec_SHADD8(w: u32): void { parallel(w, 2, 4); }
export function exec_SHSUB8(w: u32): void { parallel(w, 2, 7); }
export function exec_UADD16(w: u32): void { parallel(w, 3, 0); }
export function exec_UASX(w: u32): void { parallel(w, 3, 1); }
export function exec_USAX(w: u32): void { parallel(w, 3, 2); }
export function exec_USUB16(w: u32): void { parallel(w, 3, 3); }
export function exec_UADD8(w: u32): void { parallel(w, 3, 4); }
export function exec_USUB8(w: u32): void { parallel(w, 3, 7); }
export function exec_UQADD16(w: u32): void { parallel(w, 4, 0); }
export function exec_UQASX(w: u32): void { parallel(w, 4, 1); }
export function exec_UQSAX(w: u32): void { parallel(w, 4, 2); }
export function exec_UQSUB16(w: u32): void { parallel(w, 4, 3); }
export function exec_UQADD8(w: u32): void { parallel(w, 4, 4); }
export function exec_UQSUB8(w: u32): void { parallel(w, 4, 7); }
export function exec_UHADD16(w: u32): void { parallel(w, 5, 0); }
export function exec_UHASX(w: u32): void { parallel(w, 5, 1); }
export function exec_UHSAX(w: u32): void { parallel(w, 5, 2); }
export function exec_UHSUB16(w: u32): void { parallel(w, 5, 3); }
export function exec_UHADD8(w: u32): void { parallel(w, 5, 4); }
export function exec_UHSUB8(w: u32): void { parallel(w, 5, 7); }

export function exec_SEL(w: u32): void {
  const ge = st(FLAG_GE);
  const a = reg(fRn(w));
  const b = reg(fRm(w));
  let r: u32 = 0;
  for (let i: u32 = 0; i < 4; i++) r |= (((ge >>> i) & 1) ? a : b) & (u32(0xff) << (i * 8));
  setRegRaw(fRd(w), r);
}
@inline function absDiffSum(w: u32): u32 {
  const a = reg(fRm(w));
  const b = reg(fRs(w));
  let s: u32 = 0;
  for (let i: u32 = 0; i < 32; i += 8) {
    const x = i32((a >>> i) & 0xff) - i32((b >>> i) & 0xff);
    s += u32(x < 0 ? -x : x);
  }
  return s;
}
export function exec_USAD8(w: u32): void { setRegRaw(fRn(w), absDiffSum(w)); }
export function exec_USADA8(w: u32): void { setRegRaw(fRn(w), absDiffSum(w) + reg(fRd(w))); }

// ---- Packing, extends, reversal, bit fields ----
export function exec_PKHBT(w: u32): void {
  const sh = (w >>> 7) & 31;
  setRegRaw(fRd(w), (reg(fRn(w)) & 0xffff) | ((reg(fRm(w)) << sh) & 0xffff0000));
}
export function exec_PKHTB(w: u32): void {
  const sh = (w >>> 7) & 31;
  const m = u32(i32(reg(fRm(w))) >> (sh == 0 ? 31 : sh));
  setRegRaw(fRd(w), (reg(fRn(w)) & 0xffff0000) | (m & 0xffff));
}
@inline function rotated(w: u32): u32 {
  return rotr<u32>(reg(fRm(w)), ((w >>> 10) & 3) << 3);
}
export function exec_SXTB(w: u32): void { setRegRaw(fRd(w), u32(i32(i8(rotated(w))))); }
export function exec_SXTH(w: u32): void { setRegRaw(fRd(w), u32(i32(i16(rotated(w))))); }
export function exec_UXTB(w: u32): void { setRegRaw(fRd(w), rotated(w) & 0xff); }
export function exec_UXTH(w: u32): void { setRegRaw(fRd(w), rotated(w) & 0xffff); }
export function exec_SXTAB(w: u32): void { setRegRaw(fRd(w), reg(fRn(w)) + u32(i32(i8(rotated(w))))); }
export function exec_SXTAH(w: u32): void { setRegRaw(fRd(w), reg(fRn(w)) + u32(i32(i16(rotated(w))))); }
export function exec_UXTAB(w: u32): void { setRegRaw(fRd(w), reg(fRn(w)) + (rotated(w) & 0xff)); }
export function exec_UXTAH(w: u32): void { setRegRaw(fRd(w), reg(fRn(w)) + (rotated(w) & 0xffff)); }
@inline function extend16(v: u32, signed: bool, add: u32): u32 {
  const lo = signed ? u32(i32(i8(v))) : v & 0xff;
  const hi = signed ? u32(i32(i8(v >>> 16))) : (v >>> 16) & 0xff;
  return ((lo + add) & 0xffff) | (((hi + (add >>> 16)) & 0xffff) << 16);
}
export function exec_SXTB16(w: u32): void { setRegRaw(fRd(w), extend16(rotated(w), true, 0)); }
export function exec_UXTB16(w: u32): void { setRegRaw(fRd(w), extend16(rotated(w), false, 0)); }
export function exec_SXTAB16(w: u32): void { setRegRaw(fRd(w), extend16(rotated(w), true, reg(fRn(w)))); }
export function exec_UXTAB16(w: u32): void { setRegRaw(fRd(w), extend16(rotated(w), false, reg(fRn(w)))); }

export function exec_REV(w: u32): void { setRegRaw(fRd(w), bswap<u32>(reg(fRm(w)))); }
export function exec_REV16(w: u32): void {
  const v = reg(fRm(w));
  setRegRaw(fRd(w), ((v & 0x00ff00ff) << 8) | ((v >>> 8) & 0x00ff00ff));
}
export function exec_REVSH(w: u32): void {
  const v = reg(fRm(w));
  setRegRaw(fRd(w), u32(i32(i16(((v & 0xff) << 8) | ((v >>> 8) & 0xff)))));
}
export function exec_RBIT(w: u32): void {
  let v = reg(fRm(w));
  let r: u32 = 0;
  for (let i = 0; i < 32; i++) {
    r = (r << 1) | (v & 1);
    v >>>= 1;
  }
  setRegRaw(fRd(w), r);
}
export function exec_CLZ(w: u32): void { setRegRaw(fRd(w), clz<u32>(reg(fRm(w)))); }

export function exec_SBFX(w: u32): void {
  const lsb = (w >>> 7) & 31;
  const width = ((w >>> 16) & 31) + 1;
  if (lsb + width > 32) { raised = EXC_UNDEF; return; } // UNPREDICTABLE
  setRegRaw(fRd(w), u32(i32(reg(fRm(w)) << (32 - lsb - width)) >> (32 - width)));
}
export function exec_UBFX(w: u32): void {
  const lsb = (w >>> 7) & 31;
  const width = ((w >>> 16) & 31) + 1;
  if (lsb + width > 32) { raised = EXC_UNDEF; return; }
  setRegRaw(fRd(w), (reg(fRm(w)) << (32 - lsb - width)) >>> (32 - width));
}
@inline function bitfieldInsert(w: u32, source: u32): void {
  const lsb = (w >>> 7) & 31;
  const msb = (w >>> 16) & 31;
  if (msb < lsb) { raised = EXC_UNDEF; return; }
  const width = msb - lsb + 1;
  const mask: u32 = (width == 32 ? 0xffffffff : ((u32(1) << width) - 1)) << lsb;
  const d = fRd(w);
  setRegRaw(d, (reg(d) & ~mask) | ((source << lsb) & mask));
}
export function exec_BFC(w: u32): void { bitfieldInsert(w, 0); }
export function exec_BFI(w: u32): void { bitfieldInsert(w, reg(fRm(w))); }

// ---- Loads and stores (A8.6) ----
/** An alignment fault: reported like any other data abort. */
@inline function alignmentFault(va: u32): void {
  alignmentAbort(va, false);
}

/** Offset address, access address and writeback for single loads/stores. */
@inline function singleTransfer(w: u32, offset: u32, size: u32, load: bool, signed: bool, translated: bool): void {
  const n = fRn(w);
  const t = fRd(w);
  const base = reg(n);
  const p = translated ? 0 : bit(w, 24);
  const wb = translated ? 1 : (p == 0 ? 1 : bit(w, 21));
  const offsetAddr = bit(w, 23) ? base + offset : base - offset;
  const addr = p ? offsetAddr : base;
  // Unaligned word and halfword accesses are allowed unless SCTLR.A is set (A3.5.5).
  if ((addr & (size - 1)) != 0 && (st(CP15_SCTLR) & 2) != 0) {
    alignmentAbort(addr, !load);
    return;
  }
  if (translated) setForceUser(true);
  if (load) {
    let v = read(addr, size);
    setForceUser(false);
    if (aborted) return;
    if (signed) v = size == 1 ? u32(i32(i8(v))) : u32(i32(i16(v)));
    if (wb) setRegRaw(n, offsetAddr);
    if (t == 15) {
      if (size == 4) bxWritePc(v);
      else raised = EXC_UNDEF; // UNPREDICTABLE
    } else setRegRaw(t, v);
  } else {
    let v = reg(t);
    write(addr, size, v);
    setForceUser(false);
    if (aborted) return;
    if (wb) setRegRaw(n, offsetAddr);
  }
}

@inline function imm12(w: u32): u32 { return w & 0xfff; }
@inline function regOffset(w: u32): u32 { return shiftNoCarry(reg(fRm(w)), (w >>> 5) & 3, (w >>> 7) & 31); }
@inline function imm8split(w: u32): u32 { return ((w >>> 4) & 0xf0) | (w & 0xf); }

export function exec_LDR_imm(w: u32): void { singleTransfer(w, imm12(w), 4, true, false, false); }
export function exec_LDR_reg(w: u32): void { singleTransfer(w, regOffset(w), 4, true, false, false); }
export function exec_STR_imm(w: u32): void { singleTransfer(w, imm12(w), 4, false, false, false); }
export function exec_STR_reg(w: u32): void { singleTransfer(w, regOffset(w), 4, false, false, false); }
export function exec_LDRB_imm(w: u32): void { singleTransfer(w, imm12(w), 1, true, false, false); }
export function exec_LDRB_reg(w: u32): void { singleTransfer(w, regOffset(w), 1, true, false, false); }
export function exec_STRB_imm(w: u32): void { singleTransfer(w, imm12(w), 1, false, false, false); }
export function exec_STRB_reg(w: u32): void { singleTransfer(w, regOffset(w), 1, false, false, false); }
export function exec_LDRT_imm(w: u32): void { singleTransfer(w, imm12(w), 4, true, false, true); }
export function exec_LDRT_reg(w: u32): void { singleTransfer(w, regOffset(w), 4, true, false, true); }
export function exec_STRT_imm(w: u32): void { singleTransfer(w, imm12(w), 4, false, false, true); }
export function exec_STRT_reg(w: u32): void { singleTransfer(w, regOffset(w), 4, false, false, true); }
export function exec_LDRBT_imm(w: u32): void { singleTransfer(w, imm12(w), 1, true, false, true); }
export function exec_LDRBT_reg(w: u32): void { singleTransfer(w, regOffset(w), 1, true, false, true); }
export function exec_STRBT_imm(w: u32): void { singleTransfer(w, imm12(w), 1, false, false, true); }
export function exec_STRBT_reg(w: u32): void { singleTransfer(w, regOffset(w), 1, false, false, true); }
export function exec_LDRH_imm(w: u32): void { singleTransfer(w, imm8split(w), 2, true, false, false); }
export function exec_LDRH_reg(w: u32): void { singleTransfer(w, reg(fRm(w)), 2, true, false, false); }
export function exec_STRH_imm(w: u32): void { singleTransfer(w, imm8split(w), 2, false, false, false); }
export function exec_STRH_reg(w: u32): void { singleTransfer(w, reg(fRm(w)), 2, false, false, false); }
export function exec_LDRSB_imm(w: u32): void { singleTransfer(w, imm8split(w), 1, true, true, false); }
export function exec_LDRSB_reg(w: u32): void { singleTransfer(w, reg(fRm(w)), 1, true, true, false); }
export function exec_LDRSH_imm(w: u32): void { singleTransfer(w, imm8split(w), 2, true, true, false); }
export function exec_LDRSH_reg(w: u32): void { singleTransfer(w, reg(fRm(w)), 2, true, true, false); }
export function exec_LDRHT_imm(w: u32): void { singleTransfer(w, imm8split(w), 2, true, false, true); }
export function exec_LDRHT_reg(w: u32): void { singleTransfer(w, reg(fRm(w)), 2, true, false, true); }
export function exec_STRHT_imm(w: u32): void { singleTransfer(w, imm8split(w), 2, false, false, true); }
export function exec_STRHT_reg(w: u32): void { singleTransfer(w, reg(fRm(w)), 2, false, false, true); }
export function exec_LDRSBT_imm(w: u32): void { singleTransfer(w, imm8split(w), 1, true, true, true); }
export function exec_LDRSBT_reg(w: u32): void { singleTransfer(w, reg(fRm(w)), 1, true, true, true); }
export function exec_LDRSHT_imm(w: u32): void { singleTransfer(w, imm8split(w), 2, true, true, true); }
export function exec_LDRSHT_reg(w: u32): void { singleTransfer(w, reg(fRm(w)), 2, true, true, true); }

@inline function doubleTransfer(w: u32, offset: u32, load: bool): void {
  const t = fRd(w);
  if (t & 1 || t == 14) { raised = EXC_UNDEF; return; } // UNPREDICTABLE
  const n = fRn(w);
  const base = reg(n);
  const p = bit(w, 24);
  const wb = p == 0 || bit(w, 21) != 0;
  const offsetAddr = bit(w, 23) ? base + offset : base - offset;
  const addr = p ? offsetAddr : base;
  if (addr & 3) { alignmentFault(addr); return; }
  if (load) {
    const lo = read(addr, 4);
    if (aborted) return;
    const hi = read(addr + 4, 4);
    if (aborted) return;
    if (wb) setRegRaw(n, offsetAddr);
    setRegRaw(t, lo);
    setRegRaw(t + 1, hi);
  } else {
    if (!probeWrite(addr + 4)) return;
    write(addr, 4, reg(t));
    if (aborted) return;
    write(addr + 4, 4, reg(t + 1));
    if (aborted) return;
    if (wb) setRegRaw(n, offsetAddr);
  }
}
export function exec_LDRD_imm(w: u32): void { doubleTransfer(w, imm8split(w), true); }
export function exec_LDRD_reg(w: u32): void { doubleTransfer(w, reg(fRm(w)), true); }
export function exec_STRD_imm(w: u32): void { doubleTransfer(w, imm8split(w), false); }
export function exec_STRD_reg(w: u32): void { doubleTransfer(w, reg(fRm(w)), false); }

// ---- Block transfers (A8.8.58-..., B9.3.5-6) ----
/** kind: 0 normal, 1 user registers (^ without pc), 2 exception return (ldm ^ with pc). */
function blockTransfer(w: u32, isLoad: bool, kind: u32): void {
  const n = fRn(w);
  const list = w & 0xffff;
  const count = popcnt<u32>(list);
  const base = reg(n);
  const before = bit(w, 24);
  const up = bit(w, 23);
  let start: u32;
  let end: u32;
  if (up) {
    start = before ? base + 4 : base;
    end = base + count * 4;
  } else {
    start = before ? base - count * 4 : base - count * 4 + 4;
    end = base - count * 4;
  }
  if (count == 0) { raised = EXC_UNDEF; return; } // UNPREDICTABLE
  if (start & 3) { alignmentFault(start); return; }
  const wb = bit(w, 21) != 0;
  if (kind == 1 && !privileged()) { raised = EXC_UNDEF; return; }
  if (isLoad) {
    // Load everything first so an abort leaves the registers unchanged.
    let addr = start;
    let saved = changetype<usize>(loadBuffer);
    for (let i: u32 = 0; i < 16; i++) {
      if (list & (1 << i)) {
        const v = read(addr, 4);
        if (aborted) return;
        store<u32>(saved + (usize(i) << 2), v);
        addr += 4;
      }
    }
    if (wb && (kind != 1)) setRegRaw(n, end);
    for (let i: u32 = 0; i < 15; i++) {
      if (list & (1 << i)) {
        const v = load<u32>(saved + (usize(i) << 2));
        if (kind == 1) setBankedReg(MODE_USR, i, v);
        else setRegRaw(i, v);
      }
    }
    if (list & 0x8000) {
      const pcv = load<u32>(saved + 60);
      if (kind == 2) aluExceptionReturn(pcv);
      else bxWritePc(pcv);
    }
  } else {
    let addr = start;
    // Check the last word first: a fault then leaves memory unchanged in the common case.
    if (!probeWrite(start + (count - 1) * 4)) return;
    for (let i: u32 = 0; i < 16; i++) {
      if (list & (1 << i)) {
        const v = kind == 1 ? bankedReg(MODE_USR, i) : reg(i);
        write(addr, 4, v);
        if (aborted) return;
        addr += 4;
      }
    }
    if (wb) setRegRaw(n, end);
  }
}
const loadBuffer = memory.data(64);
export function exec_LDM(w: u32): void { blockTransfer(w, true, 0); }
export function exec_LDMDA(w: u32): void { blockTransfer(w, true, 0); }
export function exec_LDMDB(w: u32): void { blockTransfer(w, true, 0); }
export function exec_LDMIB(w: u32): void { blockTransfer(w, true, 0); }
export function exec_STM(w: u32): void { blockTransfer(w, false, 0); }
export function exec_STMDA(w: u32): void { blockTransfer(w, false, 0); }
export function exec_STMDB(w: u32): void { blockTransfer(w, false, 0); }
export function exec_STMIB(w: u32): void { blockTransfer(w, false, 0); }
export function exec_STM_user(w: u32): void { blockTransfer(w, false, 1); }
export function exec_LDM_user(w: u32): void { blockTransfer(w, true, 1); }
export function exec_LDM_eret(w: u32): void { blockTransfer(w, true, 2); }

// ---- Exclusive access and swap (A8.8.75-, A3.4) ----
@inline function exclusiveLoad(w: u32, size: u32): void {
  const addr = reg(fRn(w));
  if (addr & (size - 1)) { alignmentFault(addr); return; }
  const v = read(addr, size);
  if (aborted) return;
  setSt(EXCL_ADDR, addr);
  setSt(EXCL_OPEN, 1);
  setRegRaw(fRd(w), v);
}
@inline function exclusiveStore(w: u32, size: u32): void {
  const addr = reg(fRn(w));
  if (addr & (size - 1)) { alignmentFault(addr); return; }
  const ok = st(EXCL_OPEN) != 0 && st(EXCL_ADDR) == addr;
  if (ok) {
    write(addr, size, reg(fRm(w)));
    if (aborted) return;
  }
  setSt(EXCL_OPEN, 0);
  setRegRaw(fRd(w), ok ? 0 : 1);
}
export function exec_LDREX(w: u32): void { exclusiveLoad(w, 4); }
export function exec_LDREXB(w: u32): void { exclusiveLoad(w, 1); }
export function exec_LDREXH(w: u32): void { exclusiveLoad(w, 2); }
export function exec_STREX(w: u32): void { exclusiveStore(w, 4); }
export function exec_STREXB(w: u32): void { exclusiveStore(w, 1); }
export function exec_STREXH(w: u32): void { exclusiveStore(w, 2); }
export function exec_LDREXD(w: u32): void {
  const t = fRd(w);
  if (t & 1 || t == 14) { raised = EXC_UNDEF; return; }
  const addr = reg(fRn(w));
  if (addr & 7) { alignmentFault(addr); return; }
  const lo = read(addr, 4);
  if (aborted) return;
  const hi = read(addr + 4, 4);
  if (aborted) return;
  setSt(EXCL_ADDR, addr);
  setSt(EXCL_OPEN, 1);
  setRegRaw(t, lo);
  setRegRaw(t + 1, hi);
}
export function exec_STREXD(w: u32): void {
  const t = fRm(w);
  if (t & 1 || t == 14) { raised = EXC_UNDEF; return; }
  const addr = reg(fRn(w));
  if (addr & 7) { alignmentFault(addr); return; }
  const ok = st(EXCL_OPEN) != 0 && st(EXCL_ADDR) == addr;
  if (ok) {
    if (!probeWrite(addr + 4)) return;
    write(addr, 4, reg(t));
    if (aborted) return;
    write(addr + 4, 4, reg(t + 1));
    if (aborted) return;
  }
  setSt(EXCL_OPEN, 0);
  setRegRaw(fRd(w), ok ? 0 : 1);
}
@inline function swap(w: u32, size: u32): void {
  const addr = reg(fRn(w));
  if (size == 4 && (addr & 3)) { alignmentFault(addr); return; }
  const old = read(addr, size);
  if (aborted) return;
  write(addr, size, reg(fRm(w)));
  if (aborted) return;
  setRegRaw(fRd(w), old);
}
export function exec_SWP(w: u32): void { swap(w, 4); }
export function exec_SWPB(w: u32): void { swap(w, 1); }

// ---- Exceptions generated by instructions ----
export function exec_SVC(w: u32): void { raised = EXC_SVC; }
export function exec_BKPT(w: u32): void { raised = EXC_BKPT; }
export function exec_UDF(w: u32): void {
  raised = (w & ~0xf) == DTRACE_BREAKPOINT ? EXC_DTRACE : EXC_UNDEF;
}

export function exec_SRS(w: u32): void {
  if (!privileged()) { raised = EXC_UNDEF; return; }
  const mode = w & 0x1f;
  if (!validMode(mode) || mode == MODE_USR || mode == MODE_SYS) { raised = EXC_UNDEF; return; }
  const spsrAt = spsrOf(currentMode());
  if (spsrAt == 0) { raised = EXC_UNDEF; return; }
  const base = bankedReg(mode, 13);
  const up = bit(w, 23);
  const before = bit(w, 24);
  const addr = up ? (before ? base + 4 : base) : (before ? base - 8 : base - 4);
  if (addr & 3) { alignmentFault(addr); return; }
  if (!probeWrite(addr + 4)) return;
  write(addr, 4, reg(14));
  if (aborted) return;
  write(addr + 4, 4, st(spsrAt));
  if (aborted) return;
  if (bit(w, 21)) setBankedReg(mode, 13, up ? base + 8 : base - 8);
}
export function exec_RFE(w: u32): void {
  if (!privileged()) { raised = EXC_UNDEF; return; }
  const n = fRn(w);
  const base = reg(n);
  const up = bit(w, 23);
  const before = bit(w, 24);
  const addr = up ? (before ? base + 4 : base) : (before ? base - 8 : base - 4);
  if (addr & 3) { alignmentFault(addr); return; }
  const pcv = read(addr, 4);
  if (aborted) return;
  const psr = read(addr + 4, 4);
  if (aborted) return;
  if (bit(w, 21)) setRegRaw(n, up ? base + 8 : base - 8);
  writeCpsr(psr);
  setRegRaw(15, (psr & PSR_T) ? pcv & ~1 : pcv & ~3);
  pcWritten = true;
}

// ---- Coprocessors: CP15 system control (B4.1), everything else undefined ----
const MIDR: u32 = 0x410fc075; // Cortex-A7 r0p5
const CTR: u32 = 0x84448003;

/** Called after any change that affects translation. */
function translationChanged(): void {
  tlbFlush();
}

function cp15Read(opc1: u32, crn: u32, crm: u32, opc2: u32): u32 {
  const user = !privileged();
  if (crn == 13 && opc1 == 0 && crm == 0) {
    if (opc2 == 2) return st(CP15_TPIDRURW);
    if (opc2 == 3) return st(CP15_TPIDRURO);
    if (user) { raised = EXC_UNDEF; return 0; }
    if (opc2 == 4) return st(CP15_TPIDRPRW);
    if (opc2 == 1) return st(CP15_CONTEXTIDR);
    if (opc2 == 0) return 0; // FCSEIDR
  }
  if (user) { raised = EXC_UNDEF; return 0; }
  if (opc1 == 0) {
    if (crn == 0 && crm == 0) {
      if (opc2 == 0 || opc2 == 4 || opc2 == 6 || opc2 == 7) return MIDR;
      if (opc2 == 1) return CTR;
      if (opc2 == 5) return 0x80000000 | st(CPU_ID);
      return 0;
    }
    if (crn == 0) return 0; // feature registers: nothing optional implemented
    if (crn == 1 && crm == 0) {
      if (opc2 == 0) return st(CP15_SCTLR);
      if (opc2 == 1) return 0; // ACTLR
      if (opc2 == 2) return st(CP15_CPACR);
    }
    if (crn == 2 && crm == 0) {
      if (opc2 == 0) return st(CP15_TTBR0);
      if (opc2 == 1) return st(CP15_TTBR1);
      if (opc2 == 2) return st(CP15_TTBCR);
    }
    if (crn == 3 && crm == 0 && opc2 == 0) return st(CP15_DACR);
    if (crn == 5 && crm == 0) {
      if (opc2 == 0) return st(CP15_DFSR);
      if (opc2 == 1) return st(CP15_IFSR);
    }
    if (crn == 5 && crm == 1) return 0; // ADFSR/AIFSR
    if (crn == 6 && crm == 0) {
      if (opc2 == 0) return st(CP15_DFAR);
      if (opc2 == 2) return st(CP15_IFAR);
    }
    if (crn == 7 && crm == 4 && opc2 == 0) return st(CP15_PAR);
    if (crn == 10) return 0; // PRRR/NMRR: memory attributes are not modelled
    if (crn == 12 && crm == 0 && opc2 == 0) return st(CP15_VBAR);
    if (crn == 12 && crm == 1 && opc2 == 0) return 0; // ISR
  }
  if (opc1 == 1 && crn == 0 && crm == 0) return 0; // CCSIDR, CLIDR, AIDR
  if (opc1 == 2 && crn == 0 && crm == 0 && opc2 == 0) return 0; // CSSELR
  raised = EXC_UNDEF;
  return 0;
}

function cp15Write(opc1: u32, crn: u32, crm: u32, opc2: u32, v: u32): void {
  const user = !privileged();
  if (crn == 13 && opc1 == 0 && crm == 0 && opc2 == 2) { setSt(CP15_TPIDRURW, v); return; }
  // User-mode CP15 barrier operations (deprecated but available).
  if (opc1 == 0 && crn == 7 && ((crm == 10 && (opc2 == 4 || opc2 == 5)) || (crm == 5 && opc2 == 4))) return;
  if (user) { raised = EXC_UNDEF; return; }
  if (opc1 != 0) {
    if (opc1 == 2 && crn == 0 && crm == 0 && opc2 == 0) return; // CSSELR
    raised = EXC_UNDEF;
    return;
  }
  switch (crn) {
    case 1:
      if (crm == 0 && opc2 == 0) {
        // Supported SCTLR bits: M(0) A(1) C(2) Z(11) I(12) V(13) plus RES1 bits.
        setSt(CP15_SCTLR, (v & 0x00003807) | 0x00c50078);
        translationChanged();
        return;
      }
      if (crm == 0 && opc2 == 1) return; // ACTLR
      if (crm == 0 && opc2 == 2) { setSt(CP15_CPACR, v & 0x00f00000 & 0); return; } // no coprocessors
      break;
    case 2:
      if (crm == 0 && opc2 == 0) { setSt(CP15_TTBR0, v); translationChanged(); return; }
      if (crm == 0 && opc2 == 1) { setSt(CP15_TTBR1, v); translationChanged(); return; }
      if (crm == 0 && opc2 == 2) { setSt(CP15_TTBCR, v & 7); translationChanged(); return; }
      break;
    case 3:
      if (crm == 0 && opc2 == 0) { setSt(CP15_DACR, v); translationChanged(); return; }
      break;
    case 5:
      if (crm == 0 && opc2 == 0) { setSt(CP15_DFSR, v); return; }
      if (crm == 0 && opc2 == 1) { setSt(CP15_IFSR, v); return; }
      if (crm == 1) return;
      break;
    case 6:
      if (crm == 0 && opc2 == 0) { setSt(CP15_DFAR, v); return; }
      if (crm == 0 && opc2 == 2) { setSt(CP15_IFAR, v); return; }
      break;
    case 7:
      if (crm == 4 && opc2 == 0) { setSt(CP15_PAR, v); return; }
      if (crm == 8) { addressTranslate(opc2, v); return; }
      // Cache and branch-predictor maintenance: the decode cache is always coherent.
      if (crm == 0 || crm == 1 || crm == 5 || crm == 6 || crm == 10 || crm == 11 || crm == 14) return;
      break;
    case 8:
      // TLB maintenance (B4.2.2): by MVA flushes one page, everything else all.
      if (opc2 == 1 || opc2 == 3) tlbFlushPage(v);
      else tlbFlush();
      return;
    case 10:
      return; // PRRR/NMRR, memory attributes are not modelled
    case 12:
      if (crm == 0 && opc2 == 0) { setSt(CP15_VBAR, v & ~0x1f); return; }
      break;
    case 13:
      if (crm == 0 && opc2 == 0) return; // FCSEIDR (FCSE not implemented, RAZ/WI)
      if (crm == 0 && opc2 == 1) { setSt(CP15_CONTEXTIDR, v); translationChanged(); return; }
      if (crm == 0 && opc2 == 3) { setSt(CP15_TPIDRURO, v); return; }
      if (crm == 0 && opc2 == 4) { setSt(CP15_TPIDRPRW, v); return; }
      break;
  }
  raised = EXC_UNDEF;
}

/** ATS1C{P,U}{R,W}: translate and report the result in PAR (B4.2.6). */
function addressTranslate(opc2: u32, va: u32): void {
  if (opc2 > 3) { raised = EXC_UNDEF; return; }
  const savedAddr = st(FAULT_ADDR);
  const savedStatus = st(FAULT_STATUS);
  if (opc2 >= 2) setForceUser(true);
  const pa = translate(va, (opc2 & 1) ? ACC_WRITE : ACC_READ);
  setForceUser(false);
  if (aborted) {
    const fsr = st(FAULT_STATUS);
    setSt(CP15_PAR, 1 | ((fsr & 0xf) << 1) | (((fsr >>> 10) & 1) << 5));
    clearAbort();
    setSt(FAULT_ADDR, savedAddr);
    setSt(FAULT_STATUS, savedStatus);
  } else setSt(CP15_PAR, pa & 0xfffff000);
}

export function exec_MCR(w: u32): void {
  if (((w >>> 8) & 15) != 15) { raised = EXC_UNDEF; return; }
  cp15Write((w >>> 21) & 7, fRn(w), fRm(w), (w >>> 5) & 7, reg(fRd(w)));
}
export function exec_MRC(w: u32): void {
  if (((w >>> 8) & 15) != 15) { raised = EXC_UNDEF; return; }
  const v = cp15Read((w >>> 21) & 7, fRn(w), fRm(w), (w >>> 5) & 7);
  if (raised) return;
  const t = fRd(w);
  if (t == 15) {
    // APSR_nzcv form
    setSt(FLAG_N, v >>> 31);
    setSt(FLAG_Z, (v >>> 30) & 1);
    setSt(FLAG_C, (v >>> 29) & 1);
    setSt(FLAG_V, (v >>> 28) & 1);
  } else setRegRaw(t, v);
}
