// CPU state of the ARMv7-A core: where every CPU's registers live in linear
// memory, the current-CPU pointer, the program status register with its
// banked copies, and processor mode changes (ARM ARM B1.3). Everything that
// reads or writes architectural register state goes through this module.
//
// Linear memory layout (set by configure()):
//
//   __heap_base
//   +------------------+  statesBase      CPU 0 state (STATE_SIZE bytes)
//   |  CPU state x n   |                  CPU 1 state ...
//   +------------------+  decodeBase      decoded-instruction cache (tags, words, ops)
//   |  decode cache    |
//   +------------------+  tlbBase         TLB entries, per CPU
//   |  TLBs            |
//   +------------------+  ramBase         guest physical RAM [0, ramSize)
//   |  guest RAM       |
//   +------------------+

// ---- Per-CPU state block (byte offsets) ----
export const R0: u32 = 0; // r0..r15, current mode's view; r15 = address of instruction + 8 while executing
export const FLAG_N: u32 = 64; // flags as 0/1 words
export const FLAG_Z: u32 = 68;
export const FLAG_C: u32 = 72;
export const FLAG_V: u32 = 76;
export const FLAG_Q: u32 = 80;
export const FLAG_GE: u32 = 84; // GE[3:0]
export const CPSR_CTL: u32 = 88; // CPSR bits other than NZCVQ/GE: M[4:0], T, F, I, A, E
export const BANK_USR: u32 = 96; // r8..r14 of USR/SYS (7 words)
export const BANK_FIQ: u32 = 128; // r8..r14 of FIQ (7 words)
export const BANK_IRQ: u32 = 160; // r13, r14
export const BANK_SVC: u32 = 168;
export const BANK_ABT: u32 = 176;
export const BANK_UND: u32 = 184;
export const SPSR_FIQ: u32 = 200;
export const SPSR_IRQ: u32 = 204;
export const SPSR_SVC: u32 = 208;
export const SPSR_ABT: u32 = 212;
export const SPSR_UND: u32 = 216;
// CP15
export const CP15_SCTLR: u32 = 224;
export const CP15_TTBR0: u32 = 228;
export const CP15_TTBR1: u32 = 232;
export const CP15_TTBCR: u32 = 236;
export const CP15_DACR: u32 = 240;
export const CP15_DFSR: u32 = 244;
export const CP15_DFAR: u32 = 248;
export const CP15_IFSR: u32 = 252;
export const CP15_IFAR: u32 = 256;
export const CP15_VBAR: u32 = 260;
export const CP15_CONTEXTIDR: u32 = 264;
export const CP15_TPIDRURW: u32 = 268;
export const CP15_TPIDRURO: u32 = 272;
export const CP15_TPIDRPRW: u32 = 276;
export const CP15_CPACR: u32 = 280;
export const CP15_PAR: u32 = 284;
// Local exclusive monitor
export const EXCL_ADDR: u32 = 288;
export const EXCL_OPEN: u32 = 292;
// Counters and host interface
export const RETIRED: u32 = 296; // u64 retired-instruction count
export const STOP_REASON: u32 = 304;
export const STOP_PC: u32 = 308; // address of the instruction that stopped
export const STOP_WORD: u32 = 312; // its encoding (when fetched)
export const FAULT_ADDR: u32 = 316; // faulting virtual address of an abort
export const FAULT_STATUS: u32 = 320; // FSR value the abort would report
export const IRQ_LINE: u32 = 324; // external IRQ level (0/1)
export const FIQ_LINE: u32 = 328;
export const WAITING: u32 = 332; // 1 after wfi until an interrupt arrives
export const STOP_MASK: u32 = 336; // which exceptions stop to the host (STOPS_* bits)
export const PENDING_EXC: u32 = 340; // exception the last stop would deliver
export const CPU_ID: u32 = 344;
export const IT_STATE: u32 = 348; // ITSTATE[7:0] of Thumb state (CPSR bits 15:10 and 26:25)
// VFPv3-D16 (ARM ARM A2.6, B1.11): d0..d15 (s0..s31 overlay them, s2n the
// low word of dn), then FPSCR and FPEXC
export const VFP_D: u32 = 352; // 16 x f64
export const VFP_FPSCR: u32 = 480;
export const VFP_FPEXC: u32 = 484;
export const STATE_SIZE: u32 = 512;

// ---- Modes (CPSR.M) ----
export const MODE_USR: u32 = 0x10;
export const MODE_FIQ: u32 = 0x11;
export const MODE_IRQ: u32 = 0x12;
export const MODE_SVC: u32 = 0x13;
export const MODE_MON: u32 = 0x16;
export const MODE_ABT: u32 = 0x17;
export const MODE_HYP: u32 = 0x1a;
export const MODE_UND: u32 = 0x1b;
export const MODE_SYS: u32 = 0x1f;

// CPSR bits kept in CPSR_CTL
export const PSR_T: u32 = 1 << 5;
export const PSR_F: u32 = 1 << 6;
export const PSR_I: u32 = 1 << 7;
export const PSR_A: u32 = 1 << 8;
export const PSR_E: u32 = 1 << 9;
export const PSR_CTL_MASK: u32 = 0x3ff; // M, T, F, I, A, E

/**
 * The run loop's cached code page (virtual page -> physical page) is valid
 * only while translation, privilege and instruction set stay the same;
 * everything that changes them clears this flag.
 */
export let fetchValid: bool = false;
export function invalidateFetch(): void {
  fetchValid = false;
}
export function setFetchValid(): void {
  fetchValid = true;
}

/**
 * The current CPU's state lives at a fixed address, so every register and
 * flag access is a load or store with a constant address. Each CPU also has
 * a home block (statesBase + cpu * STATE_SIZE); selecting another CPU writes
 * the active block back home and loads the new one.
 */
export const S: usize = memory.data(STATE_SIZE, 64);
export let statesBase: usize = 0;
export let cpuCount: u32 = 0;
let activeCpu: u32 = 0;

export function setStatesBase(base: usize, count: u32): void {
  statesBase = base;
  cpuCount = count;
  activeCpu = 0;
  memory.fill(S, 0, STATE_SIZE);
  fetchValid = false;
}

/** Set while run() executes: host calls from MMIO callbacks must not switch CPUs then. */
let running: bool = false;
export function setRunning(v: bool): void {
  running = v;
  liveDone = 0;
}
export function isRunning(): bool {
  return running;
}

/**
 * Instructions the running CPU has completed in the current run() call and
 * not yet added to RETIRED (the run loop publishes its count before each
 * instruction that can reach a device), so a device read during run() sees
 * the exact retired count.
 */
export let liveDone: u32 = 0;
@inline export function setLiveDone(v: u32): void {
  liveDone = v;
}

/** Set by the host from a device callback: run() returns after the current instruction. */
export let stopRequested: bool = false;
export function setStopRequested(v: bool): void {
  stopRequested = v;
}

/** Where `cpu`'s live state is: the active block or its home block. */
export function stateBlock(cpu: u32): usize {
  return cpu == activeCpu ? S : statesBase + usize(cpu) * STATE_SIZE;
}

/**
 * Makes `cpu` the current CPU. An index out of range keeps the current
 * one, and so does a switch requested while run() is executing (from an
 * MMIO callback); such callbacks may only use setIrqLine/setFiqLine.
 */
export function selectCpu(cpu: u32): void {
  if (cpu == activeCpu || cpu >= cpuCount || running) return;
  memory.copy(statesBase + usize(activeCpu) * STATE_SIZE, S, STATE_SIZE);
  memory.copy(S, statesBase + usize(cpu) * STATE_SIZE, STATE_SIZE);
  activeCpu = cpu;
  fetchValid = false;
}

/** Writes the active CPU's state back to its home block (before the host reads home blocks). */
export function syncStates(): void {
  if (cpuCount != 0) memory.copy(statesBase + usize(activeCpu) * STATE_SIZE, S, STATE_SIZE);
}

@inline export function reg(n: u32): u32 {
  return load<u32>(S + (usize(n) << 2));
}
@inline export function setRegRaw(n: u32, v: u32): void {
  store<u32>(S + (usize(n) << 2), v);
}
@inline export function st(off: u32): u32 {
  return load<u32>(S + off);
}
@inline export function setSt(off: u32, v: u32): void {
  store<u32>(S + off, v);
}

@inline export function currentMode(): u32 {
  return load<u32>(S + CPSR_CTL) & 0x1f;
}

/** Whether the mode is a valid ARMv7-A (no Security/Virtualization extensions) mode. */
export function validMode(m: u32): bool {
  return m == MODE_USR || m == MODE_FIQ || m == MODE_IRQ || m == MODE_SVC || m == MODE_ABT || m == MODE_UND || m == MODE_SYS;
}

@inline export function privileged(): bool {
  return currentMode() != MODE_USR;
}

/** Offset of the r13/r14 bank of a mode (USR and SYS share the USR bank, whose r13 is word 5). */
function bankOf(mode: u32): u32 {
  switch (mode) {
    case MODE_FIQ: return BANK_FIQ + 20;
    case MODE_IRQ: return BANK_IRQ;
    case MODE_SVC: return BANK_SVC;
    case MODE_ABT: return BANK_ABT;
    case MODE_UND: return BANK_UND;
    default: return BANK_USR + 20;
  }
}

/** Offset of a mode's SPSR, or 0 for modes without one. */
export function spsrOf(mode: u32): u32 {
  switch (mode) {
    case MODE_FIQ: return SPSR_FIQ;
    case MODE_IRQ: return SPSR_IRQ;
    case MODE_SVC: return SPSR_SVC;
    case MODE_ABT: return SPSR_ABT;
    case MODE_UND: return SPSR_UND;
    default: return 0;
  }
}

/** Switches the visible r8-r14 from mode `from`'s banks to mode `to`'s. */
function swapBanks(from: u32, to: u32): void {
  if (from == to) return;
  // Save
  if (from == MODE_FIQ) {
    for (let i: u32 = 8; i <= 14; i++) store<u32>(S + BANK_FIQ + (i - 8) * 4, reg(i));
  } else {
    for (let i: u32 = 8; i <= 12; i++) store<u32>(S + BANK_USR + (i - 8) * 4, reg(i));
    const b = bankOf(from);
    store<u32>(S + b, reg(13));
    store<u32>(S + b + 4, reg(14));
  }
  // Load
  if (to == MODE_FIQ) {
    for (let i: u32 = 8; i <= 14; i++) setRegRaw(i, load<u32>(S + BANK_FIQ + (i - 8) * 4));
  } else {
    for (let i: u32 = 8; i <= 12; i++) setRegRaw(i, load<u32>(S + BANK_USR + (i - 8) * 4));
    const b = bankOf(to);
    setRegRaw(13, load<u32>(S + b));
    setRegRaw(14, load<u32>(S + b + 4));
  }
}

/** Reads a register of another mode's bank (for ldm/stm user-bank forms, banked mrs/msr, srs). */
export function bankedReg(mode: u32, n: u32): u32 {
  const cur = currentMode();
  const curIsFiq = cur == MODE_FIQ;
  const tgtIsFiq = mode == MODE_FIQ;
  if (n < 8 || n == 15) return reg(n);
  if (n <= 12) {
    if (curIsFiq == tgtIsFiq) return reg(n);
    return load<u32>(S + (tgtIsFiq ? BANK_FIQ : BANK_USR) + (n - 8) * 4);
  }
  if (bankOf(mode) == bankOf(cur)) return reg(n);
  return load<u32>(S + bankOf(mode) + (n - 13) * 4);
}

export function setBankedReg(mode: u32, n: u32, v: u32): void {
  const cur = currentMode();
  const curIsFiq = cur == MODE_FIQ;
  const tgtIsFiq = mode == MODE_FIQ;
  if (n < 8 || n == 15) {
    setRegRaw(n, v);
    return;
  }
  if (n <= 12) {
    if (curIsFiq == tgtIsFiq) setRegRaw(n, v);
    else store<u32>(S + (tgtIsFiq ? BANK_FIQ : BANK_USR) + (n - 8) * 4, v);
    return;
  }
  if (bankOf(mode) == bankOf(cur)) setRegRaw(n, v);
  else store<u32>(S + bankOf(mode) + (n - 13) * 4, v);
}

/** The CPSR as one word (ITSTATE in bits 15:10 and 26:25, A2.5.2). */
export function readCpsr(): u32 {
  const it = st(IT_STATE);
  return (st(FLAG_N) << 31) | (st(FLAG_Z) << 30) | (st(FLAG_C) << 29) | (st(FLAG_V) << 28) | (st(FLAG_Q) << 27) | (st(FLAG_GE) << 16) | st(CPSR_CTL) |
    ((it >>> 2) << 10) | ((it & 3) << 25);
}

/**
 * Set when something other than the Thumb run loop's own advance wrote
 * ITSTATE during the current instruction (IT, an exception return), so the
 * loop does not advance it past what was written.
 */
export let itWritten: bool = false;
export function clearItWritten(): void {
  itWritten = false;
}
/** Writes ITSTATE (IT instruction, exception return, host). */
export function setItState(it: u32): void {
  setSt(IT_STATE, it & 0xff);
  itWritten = true;
}
/** ITAdvance() (A2.5.2): the state for the next instruction of an IT block. */
@inline export function itAdvance(it: u32): u32 {
  return (it & 7) == 0 ? 0 : (it & 0xe0) | ((it << 1) & 0x1f);
}

/** Writes the flag part (NZCVQ, GE) of a PSR value. */
export function writeFlags(v: u32): void {
  setSt(FLAG_N, v >>> 31);
  setSt(FLAG_Z, (v >>> 30) & 1);
  setSt(FLAG_C, (v >>> 29) & 1);
  setSt(FLAG_V, (v >>> 28) & 1);
  setSt(FLAG_Q, (v >>> 27) & 1);
  setSt(FLAG_GE, (v >>> 16) & 0xf);
}

/** Writes the control part (mode, T, F, I, A, E), switching banks; invalid modes are ignored. */
export function writeControl(v: u32): void {
  const newMode = v & 0x1f;
  const oldMode = currentMode();
  if (!validMode(newMode)) v = (v & ~0x1f) | oldMode;
  swapBanks(oldMode, v & 0x1f);
  setSt(CPSR_CTL, v & PSR_CTL_MASK);
  fetchValid = false;
}

/** Writes the whole CPSR (exception return, reset), ITSTATE included. */
export function writeCpsr(v: u32): void {
  writeFlags(v);
  writeControl(v);
  setItState((((v >>> 10) & 0x3f) << 2) | ((v >>> 25) & 3));
}

export function changeMode(mode: u32): void {
  writeControl((st(CPSR_CTL) & ~0x1f) | mode);
}
