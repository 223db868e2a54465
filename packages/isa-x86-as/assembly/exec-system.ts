// System architecture of long mode (SDM vol. 3): privileged instructions,
// MSRs, control registers, syscall/sysret, swapgs, IDT delivery of exceptions
// and interrupts with the CPL 3 -> 0 stack switch (TSS RSP0 / IST), iretq,
// cli/sti, rdtsc/cpuid. Selectors are kept only as far as 64-bit mode uses
// them: CS.RPL is the CPL, SS is reloaded by the transitions.
import { dReg, dRm, dMod, dModrm, dOpSize, dImm, dOpcode } from './insn';
import {
  rflags, setFlags, nextRip, setNextRip, reg64, setReg64, readV, writeV, raise, faultVector, clearFault, VEC_GP, VEC_UD,
  cpl, setCpl, cr0, cr2, cr3, cr4, setCr, efer, star, lstar, fmask, fsBase, gsBase, kernelGsBase, setMsrValue,
  IF, TF, tlbFlushPage, retired, tscOffset, rip, setRip, setHalted, mxcsr, setMxcsr,
} from './cpu';
import { effectiveAddress } from './exec';

export let csSel: u32 = 0x08;
export let ssSel: u32 = 0x10;
export let idtBase: u64 = 0;
export let idtLimit: u32 = 0;
export let gdtBase: u64 = 0;
export let gdtLimit: u32 = 0;
export let tssBase: u64 = 0;
export let trSel: u32 = 0;

export function setSelectors(cs: u32, ss: u32): void { csSel = cs; ssSel = ss; setCpl(cs & 3); }
export function setIdt(base: u64, limit: u32): void { idtBase = base; idtLimit = limit; }
export function setGdt(base: u64, limit: u32): void { gdtBase = base; gdtLimit = limit; }
export function setTssBase(base: u64): void { tssBase = base; }

// @ts-ignore: decorator
@inline function privileged(): bool {
  if (cpl != 0) { raise(VEC_GP, 0); return false; }
  return true;
}

// ---- MSRs (SDM vol. 4) ---------------------------------------------------------
const MSR_EFER: u32 = 0xc0000080;
const MSR_STAR: u32 = 0xc0000081;
const MSR_LSTAR: u32 = 0xc0000082;
const MSR_FMASK: u32 = 0xc0000084;
const MSR_FS_BASE: u32 = 0xc0000100;
const MSR_GS_BASE: u32 = 0xc0000101;
const MSR_KERNEL_GS_BASE: u32 = 0xc0000102;
const MSR_TSC: u32 = 0x10;

export let msrOk: bool = true;
export function readMsr(n: u32): u64 {
  msrOk = true;
  if (n == MSR_EFER) return efer;
  if (n == MSR_STAR) return star;
  if (n == MSR_LSTAR) return lstar;
  if (n == MSR_FMASK) return fmask;
  if (n == MSR_FS_BASE) return fsBase;
  if (n == MSR_GS_BASE) return gsBase;
  if (n == MSR_KERNEL_GS_BASE) return kernelGsBase;
  if (n == MSR_TSC) return retired + tscOffset;
  msrOk = false;
  return 0;
}
export function writeMsr(n: u32, v: u64): bool {
  if (n == MSR_EFER) setMsrValue(0, v & 0xd01);
  else if (n == MSR_FS_BASE) setMsrValue(1, v);
  else if (n == MSR_GS_BASE) setMsrValue(2, v);
  else if (n == MSR_KERNEL_GS_BASE) setMsrValue(3, v);
  else if (n == MSR_STAR) setMsrValue(4, v);
  else if (n == MSR_LSTAR) setMsrValue(5, v);
  else if (n == MSR_FMASK) setMsrValue(6, v);
  else return false;
  return true;
}

export function exec_rdmsr(): void {
  if (!privileged()) return;
  const v = readMsr(<u32>reg64(1));
  if (!msrOk) { raise(VEC_GP, 0); return; }
  setReg64(0, v & 0xffffffff);
  setReg64(2, v >> 32);
}
export function exec_wrmsr(): void {
  if (!privileged()) return;
  if (!writeMsr(<u32>reg64(1), (reg64(2) << 32) | (reg64(0) & 0xffffffff))) raise(VEC_GP, 0);
}

export function exec_mov_from_cr(): void {
  if (!privileged()) return;
  const n = dReg();
  let v: u64;
  if (n == 0) v = cr0; else if (n == 2) v = cr2; else if (n == 3) v = cr3; else if (n == 4) v = cr4;
  else { raise(VEC_UD, 0); return; }
  setReg64(dRm(), v);
}
export function exec_mov_to_cr(): void {
  if (!privileged()) return;
  const n = dReg();
  if (n != 0 && n != 2 && n != 3 && n != 4) { raise(VEC_UD, 0); return; }
  setCr(n, reg64(dRm()));
}
/** CLTS: clears CR0.TS (a kernel that switches FPU state lazily does, on the #NM TS raised). */
export function exec_clts(): void {
  if (!privileged()) return;
  setCr(0, cr0 & ~<u64>8);
}
export function exec_invlpg(): void {
  if (!privileged()) return;
  tlbFlushPage(effectiveAddress());
}
export function exec_nop_priv(): void { privileged(); }
export function exec_lgdt(): void {
  if (!privileged()) return;
  const a = effectiveAddress();
  const limit = readV(a, 2);
  const base = readV(a + 2, 8);
  if (faultVector >= 0) return;
  if (((dModrm() >> 3) & 7) == 3) { idtLimit = <u32>limit; idtBase = base; } else { gdtLimit = <u32>limit; gdtBase = base; }
}

export function exec_swapgs(): void {
  if (!privileged()) return;
  const g = gsBase;
  setMsrValue(2, kernelGsBase);
  setMsrValue(3, g);
}

// SYSCALL (SDM vol. 2): RCX = rip, R11 = rflags, CS/SS from STAR[47:32],
// rip = LSTAR, rflags &= ~FMASK, CPL 0.
export function exec_syscall(): void {
  if ((efer & 1) == 0) { raise(VEC_UD, 0); return; }
  setReg64(1, nextRip);
  setReg64(11, rflags);
  setFlags(rflags & ~fmask & ~<u64>0x10000);
  const sel = <u32>(star >> 32) & 0xffff;
  csSel = sel & 0xfffc; ssSel = (sel + 8) & 0xfffc;
  setCpl(0);
  setNextRip(lstar);
}
// SYSRET (64-bit form with REX.W): rip = RCX, rflags = R11, CS = STAR[63:48]+16, CPL 3.
export function exec_sysret(): void {
  if ((efer & 1) == 0) { raise(VEC_UD, 0); return; }
  if (!privileged()) return;
  const target = reg64(1);
  const top = <i64>target >> 47;
  if (top != 0 && top != -1) { raise(VEC_GP, 0); return; }
  const sel = <u32>(star >> 48) & 0xffff;
  csSel = (dOpSize() == 8 ? sel + 16 : sel) | 3;
  ssSel = (sel + 8) | 3;
  setFlags((reg64(11) & 0x3c7fd7) | 2);
  setCpl(3);
  setNextRip(dOpSize() == 8 ? target : target & 0xffffffff);
}

export function exec_iret(): void {
  // 64-bit IRET pops RIP, CS, RFLAGS, RSP, SS (SDM vol. 3, 6.14.3)
  const sp = reg64(4);
  const newRip = readV(sp, 8);
  const cs = <u32>readV(sp + 8, 8) & 0xffff;
  const fl = readV(sp + 16, 8);
  const newSp = readV(sp + 24, 8);
  const ss = <u32>readV(sp + 32, 8) & 0xffff;
  if (faultVector >= 0) return;
  const newCpl = cs & 3;
  if (newCpl < cpl) { raise(VEC_GP, <i32>cs & 0xfffc); return; }
  let changeable: u64 = 0x3f7fd5;
  if (cpl != 0) changeable &= ~<u64>0x3000; // IOPL kept
  if (cpl != 0) changeable &= ~IF;
  setFlags((rflags & ~changeable) | (fl & changeable));
  csSel = cs; ssSel = ss;
  setCpl(newCpl);
  setReg64(4, newSp);
  setNextRip(newRip);
}

export function exec_cli(): void { if (privileged()) setFlags(rflags & ~IF); }
/** STI blocks interrupts for one more instruction when it sets IF (so `sti; hlt` cannot lose a wakeup). */
export let interruptShadow: bool = false;
export function clearInterruptShadow(): void { interruptShadow = false; }
export function exec_sti(): void {
  if (!privileged()) return;
  if ((rflags & IF) == 0) interruptShadow = true;
  setFlags(rflags | IF);
}

// Segment registers: in 64-bit mode only the selectors are kept (bases of
// FS/GS come from the MSRs); SS is what the privilege transitions reload.
export let dsSel: u32 = 0;
export let esSel: u32 = 0;
export let fsSel: u32 = 0;
export let gsSel: u32 = 0;
export function exec_mov_to_sreg(): void {
  const v = <u32>(dMod() == 3 ? reg64(dRm()) : readV(effectiveAddress(), 2)) & 0xffff;
  if (faultVector >= 0) return;
  const n = dReg() & 7;
  if (n == 1 || n > 5) { raise(VEC_UD, 0); return; }
  if (n == 2 && (v & 3) != cpl && !(v == 0 && cpl == 0)) { raise(VEC_GP, <i32>(v & 0xfffc)); return; }
  if (n == 0) esSel = v; else if (n == 2) ssSel = v; else if (n == 3) dsSel = v; else if (n == 4) fsSel = v; else gsSel = v;
}
export function exec_mov_from_sreg(): void {
  const n = dReg() & 7;
  const v: u32 = n == 0 ? esSel : n == 1 ? csSel : n == 2 ? ssSel : n == 3 ? dsSel : n == 4 ? fsSel : n == 5 ? gsSel : 0;
  if (n > 5) { raise(VEC_UD, 0); return; }
  if (dMod() == 3) setReg64(dRm(), dOpSize() == 4 || dOpSize() == 8 ? <u64>v : (reg64(dRm()) & ~<u64>0xffff) | v);
  else writeV(effectiveAddress(), 2, v);
}
/** LTR: TSS base from the 16-byte system descriptor in the GDT (SDM vol. 3, 7.2.3). */
export function exec_ltr(): void {
  if (!privileged()) return;
  const sel = <u32>(dMod() == 3 ? reg64(dRm()) : readV(effectiveAddress(), 2)) & 0xffff;
  if (faultVector >= 0) return;
  if ((sel & 0xfff8) == 0 || (sel | 15) > gdtLimit) { raise(VEC_GP, <i32>(sel & 0xfffc)); return; }
  const d = gdtBase + <u64>(sel & 0xfff8);
  const lo = readV(d, 8);
  const hi = readV(d + 8, 8);
  if (faultVector >= 0) return;
  tssBase = ((lo >> 16) & 0xffffff) | (((lo >> 56) & 0xff) << 24) | ((hi & 0xffffffff) << 32);
  trSel = sel;
}
export function exec_str(): void {
  if (dMod() == 3) setReg64(dRm(), <u64>trSel); else writeV(effectiveAddress(), 2, trSel);
}
/** LRETQ to the same privilege level (used to reload CS at boot). */
export function exec_lret(): void {
  const sp = reg64(4);
  const newRip = readV(sp, 8);
  const cs = <u32>readV(sp + 8, 8) & 0xffff;
  if (faultVector >= 0) return;
  if ((cs & 3) != cpl) { raise(VEC_GP, <i32>(cs & 0xfffc)); return; }
  csSel = cs;
  setReg64(4, sp + 16 + <u64>(dOpcode() == 0xca ? dImm() & 0xffff : 0));
  setNextRip(newRip);
}

export function exec_rdtsc(): void {
  if ((cr4 & 4) != 0 && cpl != 0) { raise(VEC_GP, 0); return; }
  const t = retired + tscOffset;
  setReg64(0, t & 0xffffffff);
  setReg64(2, t >> 32);
}
export function exec_rdtscp(): void {
  exec_rdtsc();
  setReg64(1, 0);
}

// CPUID: only what this core executes (SDM vol. 2, CPUID tables).
export function exec_cpuid(): void {
  const leaf = <u32>reg64(0);
  let a: u32 = 0, b: u32 = 0, c: u32 = 0, d: u32 = 0;
  if (leaf == 0) { a = 1; b = 0x756e6547; d = 0x49656e69; c = 0x6c65746e; } // "GenuineIntel"
  else if (leaf == 1) {
    a = 0x000306a9;
    // EDX: FPU 0, TSC 4, MSR 5, PAE 6, CX8 8, CMOV 15 (with FPU: FCMOVcc), CLFSH 19, MMX 23, FXSR 24, SSE 25, SSE2 26
    d = 1 | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 8) | (1 << 15) | (1 << 19) | (1 << 23) | (1 << 24) | (1 << 25) | (1 << 26);
    // ECX: SSE3 0, SSSE3 9, CX16 13, SSE4.1 19, SSE4.2 20, MOVBE 22, POPCNT 23 (no MONITOR, PCLMULQDQ, XSAVE, AVX)
    c = 1 | (1 << 9) | (1 << 13) | (1 << 19) | (1 << 20) | (1 << 22) | (1 << 23);
    b = 8 << 8; // clflush line 64 bytes
  } else if (leaf == 0x80000000) a = 0x80000001;
  else if (leaf == 0x80000001) {
    c = 1 | (1 << 5); // LAHF/SAHF in 64-bit mode, LZCNT
    d = (1 << 11) | (1 << 20) | (1 << 27) | (1 << 29); // SYSCALL, NX, RDTSCP, LM
  }
  setReg64(0, a); setReg64(3, b); setReg64(1, c); setReg64(2, d);
}

export function exec_ldmxcsr(): void {
  const v = readV(effectiveAddress(), 4);
  if (faultVector >= 0) return;
  if ((v & 0xffff0000) != 0) { raise(VEC_GP, 0); return; }
  setMxcsr(<u32>v);
}
export function exec_stmxcsr(): void { writeV(effectiveAddress(), 4, mxcsr); }

// INT n: a software interrupt, delivered in the guest (gate DPL checked).
export function exec_int(): void {
  const v = <i32>(dImm() & 0xff);
  deliverInterrupt(v, 0, false, true, nextRip);
  // delivery sets the new rip itself; keep run-loop commit consistent
  if (faultVector < 0) setNextRip(rip);
}

// ---- IDT delivery (SDM vol. 3, 6.14) ------------------------------------------------
// Gate (16 bytes): offset 15:0 | selector | IST (bits 2:0) | type/DPL/P |
// offset 31:16 | offset 63:32 | reserved. Returns false if delivery faulted
// (the fault is left pending in faultVector).
export function deliverInterrupt(vector: i32, error: i32, hasError: bool, software: bool, returnRip: u64): bool {
  if (<u32>(vector * 16 + 15) > idtLimit) { raise(VEC_GP, vector * 8 + 2); return false; }
  // IDT, TSS and the new stack are supervisor accesses
  const callerCpl = cpl;
  setCpl(0);
  const g = idtBase + <u64>vector * 16;
  const lo = readV(g, 8);
  const hi = readV(g + 8, 8);
  setCpl(callerCpl);
  if (faultVector >= 0) return false;
  const type = <u32>(lo >> 40) & 15;
  const dpl = <u32>(lo >> 45) & 3;
  const present = ((lo >> 47) & 1) != 0;
  if (!present || (type != 14 && type != 15)) { raise(VEC_GP, vector * 8 + 2); return false; }
  if (software && dpl < cpl) { raise(VEC_GP, vector * 8 + 2); return false; }
  const target = (lo & 0xffff) | ((lo >> 32) & 0xffff0000) | (hi << 32);
  const sel = <u32>(lo >> 16) & 0xffff;
  const ist = <u32>(lo >> 32) & 7;
  const newCpl = sel & 3;
  const oldSs = ssSel, oldSp = reg64(4), oldCs = csSel, oldFlags = rflags;
  let sp = oldSp;
  setCpl(0);
  if (ist != 0) sp = readV(tssBase + 0x24 + <u64>(ist - 1) * 8, 8);
  else if (newCpl < callerCpl) sp = readV(tssBase + 4, 8);
  setCpl(callerCpl);
  if (faultVector >= 0) return false;
  sp &= ~<u64>15;
  const frame: i32 = hasError ? 48 : 40;
  const savedCpl = cpl;
  setCpl(newCpl);
  // the frame is written with the new privilege level
  let p = sp - <u64>frame;
  if (hasError) { writeV(p, 8, <u64><u32>error); p += 8; }
  writeV(p, 8, returnRip);
  writeV(p + 8, 8, oldCs);
  writeV(p + 16, 8, oldFlags);
  writeV(p + 24, 8, oldSp);
  writeV(p + 32, 8, oldSs);
  if (faultVector >= 0) { setCpl(savedCpl); return false; }
  setReg64(4, sp - <u64>frame);
  if (newCpl < savedCpl) ssSel = 0;
  csSel = sel;
  let f = rflags & ~(TF | <u64>0x14000); // TF, NT, RF
  if (type == 14) f &= ~IF;
  setFlags(f);
  setRip(target);
  setHalted(false);
  return true;
}

/** Host call: deliver `vector` through the IDT at the current rip (faults) or `returnRip`; 0 ok, 1 double fault delivered, 2 triple fault. */
export function deliverException(vector: i32, error: i32, hasError: bool, returnRip: u64): i32 {
  clearFault();
  if (deliverInterrupt(vector, error, hasError, false, returnRip)) return 0;
  clearFault();
  if (deliverInterrupt(8, 0, true, false, returnRip)) return 1;
  clearFault();
  return 2;
}


// per-CPU part of the system state (CPU_AREA slot offsets 520..)
import { cpuSlot } from './cpu';
export function parkSystem(n: i32): void {
  const s = cpuSlot(n);
  store<u32>(s, csSel, 520); store<u32>(s, ssSel, 524); store<u64>(s, idtBase, 528); store<u32>(s, idtLimit, 536);
  store<u64>(s, gdtBase, 544); store<u32>(s, gdtLimit, 552); store<u64>(s, tssBase, 560);
}
export function loadSystem(n: i32): void {
  const s = cpuSlot(n);
  csSel = load<u32>(s, 520); ssSel = load<u32>(s, 524); idtBase = load<u64>(s, 528); idtLimit = load<u32>(s, 536);
  gdtBase = load<u64>(s, 544); gdtLimit = load<u32>(s, 552); tssBase = load<u64>(s, 560);
}
