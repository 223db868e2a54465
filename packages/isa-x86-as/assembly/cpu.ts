// CPU state of the running x86-64 core and guest memory access.
//
// The running CPU's general registers live in REGS (16 x u64, in the order of
// their encoding numbers: rax rcx rdx rbx rsp rbp rsi rdi r8..r15); rip and
// rflags are module globals. Guest physical RAM is a block of the linear
// memory starting at ramBase. Virtual addresses go through 4-level paging
// when CR0.PG is set (SDM vol. 3, 4.5), with a direct-mapped TLB; with paging
// off, virtual = physical (used by bare-metal tests and the bench).
//
// Faults never throw: they set `faultVector` (and CR2 / error code); each
// instruction handler reads its memory operands before it changes any state,
// so an instruction that faults leaves the CPU as it was.

import { initCodeCache, noteWrite, pageCount } from './code-cache';
import { parityFlag } from './flags';

export const REGS: usize = memory.data(16 * 8, 16);
export const XMM: usize = memory.data(18 * 16, 16); // xmm0-15 + a 32-byte scratch
/** Code bytes are copied here before decoding (15 bytes + slack). */
export const FETCH: usize = memory.data(32, 16);

export let rip: u64 = 0;
export let nextRip: u64 = 0;
export let rflags: u64 = 0x2;
export let cpl: u32 = 0;
export let cr0: u64 = 0;
export let cr2: u64 = 0;
export let cr3: u64 = 0;
export let cr4: u64 = 0;
export let efer: u64 = 0;
export let fsBase: u64 = 0;
export let gsBase: u64 = 0;
export let kernelGsBase: u64 = 0;
export let star: u64 = 0;
export let lstar: u64 = 0;
export let fmask: u64 = 0;
export let mxcsr: u32 = 0x1f80;
export let halted: bool = false;
export let retired: u64 = 0;
export let tscOffset: u64 = 0;

// pending fault of the current instruction: -1 none
export let faultVector: i32 = -1;
export let faultError: i32 = 0;

export let ramBase: usize = 0;
export let ramSize: u64 = 0;

export const CF: u64 = 1;
export const PF: u64 = 4;
export const AF: u64 = 16;
export const ZF: u64 = 64;
export const SF: u64 = 128;
export const TF: u64 = 256;
export const IF: u64 = 512;
export const DF: u64 = 1024;
export const OF: u64 = 2048;
export const ARITH_FLAGS: u64 = CF | PF | AF | ZF | SF | OF;

export const VEC_DE: i32 = 0;
export const VEC_BP: i32 = 3;
export const VEC_UD: i32 = 6;
export const VEC_GP: i32 = 13;
export const VEC_PF: i32 = 14;

// Device window: physical addresses here are not RAM (host mmio imports).
export const MMIO_BASE: u64 = 0xf000_0000;
export const MMIO_END: u64 = 0xf100_0000;

// @ts-ignore: decorator
@external("env", "mmioRead")
declare function mmioRead(cpu: i32, paddr: i32, size: i32): i32;
// @ts-ignore: decorator
@external("env", "mmioWrite")
declare function mmioWrite(cpu: i32, paddr: i32, size: i32, value: i32): void;

export let cpuIndex: i32 = 0;

export function setRip(v: u64): void { rip = v; }
export function setNextRip(v: u64): void { nextRip = v; }
/** Sets RFLAGS; the arithmetic flags written this way replace any pending lazy ones. */
export function setFlags(v: u64): void { rflags = (v & 0x3f7fd5) | 2; lazyOp = LAZY_NONE; }

// ---- lazy arithmetic flags ---------------------------------------------------
// The specialised ALU handlers (exec-fast.ts) do not compute CF/PF/AF/ZF/SF/OF:
// they record the operation, its operands and result, and the specialised jcc
// evaluates its condition from them. The arithmetic flags in `rflags` are
// stale while `lazyOp` != LAZY_NONE; flushFlags() computes them. Lazy state
// exists only inside the straight-line path of the run loop, which flushes
// before a generic handler runs and when it leaves; host reads flush too.
// Operands and result are kept sign-extended from the operation size, which
// keeps both the unsigned and the signed order of 32-bit values, so the
// conditions compare them as 64-bit values whatever the size. A logic
// operation (and, or, xor, test) with result r is recorded as r - 0, which
// sets every flag as the logic operation does (CF = OF = AF = 0).
export const LAZY_NONE: u32 = 0;
export const LAZY_SUB8: u32 = 1;
export const LAZY_SUB32: u32 = 2;
export const LAZY_SUB64: u32 = 3; // the subtractions are 1..LAZY_SUB64
export const LAZY_ADD32: u32 = 4;
export const LAZY_ADD64: u32 = 5;
export let lazyOp: u32 = LAZY_NONE;
export let lazyA: u64 = 0;
export let lazyB: u64 = 0;
export let lazyR: u64 = 0;

/** Computes the arithmetic flags of the pending lazy operation into rflags. */
export function flushFlags(): void {
  const op = lazyOp;
  if (op == LAZY_NONE) return;
  const wide = op == LAZY_SUB64 || op == LAZY_ADD64;
  const m: u64 = wide ? <u64>-1 : op == LAZY_SUB8 ? 0xff : 0xffffffff;
  const sb: u64 = wide ? <u64>0x8000000000000000 : op == LAZY_SUB8 ? 0x80 : 0x80000000;
  const a = lazyA & m, b = lazyB & m, r = lazyR & m;
  let f: u64 = <u64>parityFlag(<u32>r);
  if (r == 0) f |= ZF;
  if ((r & sb) != 0) f |= SF;
  f |= (a ^ b ^ r) & AF;
  if (op <= LAZY_SUB64) {
    if (a < b) f |= CF;
    if (((a ^ b) & (a ^ r) & sb) != 0) f |= OF;
  } else {
    if (r < a) f |= CF;
    if (((a ^ r) & (b ^ r) & sb) != 0) f |= OF;
  }
  rflags = (rflags & ~ARITH_FLAGS) | f;
  lazyOp = LAZY_NONE;
}
export function setCpl(v: u32): void { cpl = v; dataTlbUser = v == 3 ? 4096 : 0; }
export function setHalted(v: bool): void { halted = v; }
export function countRetired(): void { retired++; }
/** CR0.EM or CR0.TS is set: SSE and MMX instructions raise #UD or #NM (run.ts checks; x87 handlers check their own). */
export let simdGate: bool = false;
export function setCr(n: i32, v: u64): void {
  if (n == 0) { cr0 = v; simdGate = (v & 0xc) != 0; } else if (n == 2) cr2 = v; else if (n == 3) { cr3 = v; tlbFlush(); } else if (n == 4) cr4 = v;
  if (n == 0 || n == 4) tlbFlush();
}
export function setMsrValue(which: i32, v: u64): void {
  if (which == 0) efer = v; else if (which == 1) fsBase = v; else if (which == 2) gsBase = v; else if (which == 3) kernelGsBase = v;
  else if (which == 4) star = v; else if (which == 5) lstar = v; else if (which == 6) fmask = v;
}
export function setMxcsr(v: u32): void { mxcsr = v; }
export function setTscOffset(v: u64): void { tscOffset = v; }

export function raise(vector: i32, error: i32): void {
  if (faultVector < 0) { faultVector = vector; faultError = error; }
}
export function clearFault(): void { faultVector = -1; faultError = 0; }

/** Grows the linear memory to hold `bytes` of guest RAM (page aligned); returns its offset. */
export function initRam(bytes: u64): usize {
  const pages = <i32>((bytes + 0xffff) >> 16);
  const old = memory.grow(pages);
  if (old < 0) return 0;
  ramBase = <usize>old << 16;
  ramSize = bytes;
  tlbFlush();
  if (!initCodeCache(<u32>((bytes + 0xfff) >> 12))) return 0;
  return ramBase;
}

// ---- registers --------------------------------------------------------------

// @ts-ignore: decorator
@inline export function reg64(n: u32): u64 { return load<u64>(REGS + (<usize>n << 3)); }
// @ts-ignore: decorator
@inline export function setReg64(n: u32, v: u64): void { store<u64>(REGS + (<usize>n << 3), v); }

/** Reads register `n` at `size` bytes; `rex` selects spl..dil over ah..bh for bytes. */
// @ts-ignore: decorator
@inline export function readReg(n: u32, size: i32, rex: bool): u64 {
  if (size == 8) return reg64(n);
  if (size == 4) return reg64(n) & 0xffffffff;
  if (size == 2) return reg64(n) & 0xffff;
  if (!rex && n >= 4 && n < 8) return (reg64(n - 4) >> 8) & 0xff;
  return reg64(n) & 0xff;
}

/** Writes register `n` at `size` bytes (32-bit writes zero the upper half). */
// @ts-ignore: decorator
@inline export function writeReg(n: u32, size: i32, rex: bool, v: u64): void {
  if (size == 8) setReg64(n, v);
  else if (size == 4) setReg64(n, v & 0xffffffff);
  else if (size == 2) setReg64(n, (reg64(n) & ~<u64>0xffff) | (v & 0xffff));
  else if (!rex && n >= 4 && n < 8) setReg64(n - 4, (reg64(n - 4) & ~<u64>0xff00) | ((v & 0xff) << 8));
  else setReg64(n, (reg64(n) & ~<u64>0xff) | (v & 0xff));
}

// ---- paging -------------------------------------------------------------------
// TLB: 512 direct-mapped entries of 16 bytes: u64 tag (virtual page | 1 valid),
// u32 physical page number, u32 permissions (1 write, 2 user, 4 exec).
// Instruction fetches use entries 256-511 and data accesses 0-255, so code
// and the data it works on never evict each other (a loop over an array
// 3 MiB away from its code thrashed a single shared set: a page walk per
// instruction fetch).
const TLB: usize = memory.data(512 * 16, 16);
const TLB_W: u32 = 1;
const TLB_U: u32 = 2;
const TLB_X: u32 = 4;

export function tlbFlush(): void { memory.fill(TLB, 0, 512 * 16); memory.fill(DATA_TLB, 0, 4 * 4096); }
export function tlbFlushPage(va: u64): void {
  const e = TLB + (<usize>((va >> 12) & 255) << 4);
  store<u64>(e, 0);
  store<u64>(e + 256 * 16, 0);
  const d = DATA_TLB + (<usize>((va >> 12) & 255) << 4);
  store<u64>(d, 0); store<u64>(d + 4096, 0); store<u64>(d + 8192, 0); store<u64>(d + 12288, 0);
}

// Data TLB of the loads and stores that stay within a RAM page: four tables
// of 256 direct-mapped entries (reads at CPL 0, reads at CPL 3, writes at
// CPL 0, writes at CPL 3), each a u64 tag (virtual page << 1 | 1) and a u64
// offset that turns the virtual address into the host address of the byte.
// An entry is made only after translate() granted that access at that
// privilege (so a write entry means the page is writable and dirty, with
// paging off every RAM page qualifies), and is dropped with the TLB
// (CR0/CR3/CR4 writes, invlpg, a CPU switch). A hit needs no permission,
// paging-mode or RAM-bounds test.
const DATA_TLB: usize = memory.data(4 * 4096, 16);
/** 4096 at CPL 3, else 0: selects the data TLB tables of the current privilege. */
let dataTlbUser: usize = 0;

/** Records a granted access of the RAM page holding `pa` for virtual `va` (write: the write tables). */
function dataTlbFill(va: u64, pa: u64, write: bool): void {
  if ((pa | 0xfff) >= ramSize || probeOnly) return;
  const vpn = va >> 12;
  const d = DATA_TLB + (write ? 8192 : 0) + dataTlbUser + (<usize>(vpn & 255) << 4);
  store<u64>(d, (vpn << 1) | 1);
  store<u64>(d, (<u64>ramBase + (pa & ~<u64>0xfff)) - (vpn << 12), 8);
}
/** The TLB entry for virtual page `vpn` and an access kind (fetches have their own half). */
// @ts-ignore: decorator
@inline function tlbEntry(vpn: u64, access: u32): usize {
  return TLB + (<usize>(vpn & 255) << 4) + (access == ACC_EXEC ? 256 * 16 : 0);
}

// access kinds
export const ACC_READ: u32 = 0;
export const ACC_WRITE: u32 = 1;
export const ACC_EXEC: u32 = 2;

/** Set when translate() is called for a host probe: no A/D updates and no fault state. */
export let probeOnly: bool = false;
export let probeFaultAddress: u64 = 0;
export function setProbeOnly(v: bool): void { probeOnly = v; }

function pageFault(va: u64, access: u32, present: bool): u64 {
  if (probeOnly) { probeFaultAddress = va; return <u64>-1; }
  let err: i32 = present ? 1 : 0;
  if (access == ACC_WRITE) err |= 2;
  if (cpl == 3) err |= 4;
  if (access == ACC_EXEC && (efer & 0x800) != 0) err |= 16;
  if (faultVector < 0) { cr2 = va; }
  raise(VEC_PF, err);
  return <u64>-1;
}

function physLoad64(pa: u64): u64 {
  if (pa + 8 > ramSize) return 0;
  return load<u64>(ramBase + <usize>pa);
}

/**
 * Translates a virtual address for an access; returns the physical address or
 * u64(-1) after raising #PF (or recording probeFaultAddress in probe mode).
 * SDM vol. 3, 4.5.4: walk PML4E -> PDPTE -> PDE -> PTE; 1 GiB and 2 MiB pages
 * end the walk early (PS bit). Access rights combine over all levels: writes
 * need R/W at every level (CR0.WP applies at CPL 0), user accesses need U/S at
 * every level, fetches fail on XD when EFER.NXE.
 */
export function translate(va: u64, access: u32): u64 {
  if ((cr0 & 0x80000000) == 0) {
    // flat mode (paging off): addresses are physical, at most 52 bits
    if ((va >> 52) == 0) return va;
    if (probeOnly) { probeFaultAddress = va; return <u64>-1; }
    raise(VEC_GP, 0);
    return <u64>-1;
  }
  const vpn = va >> 12;
  const e = tlbEntry(vpn, access);
  if (load<u64>(e) == ((vpn << 1) | 1)) {
    const perm = load<u32>(e, 12);
    const ok = (access != ACC_WRITE || (perm & TLB_W) != 0) && (cpl != 3 || (perm & TLB_U) != 0) && (access != ACC_EXEC || (perm & TLB_X) != 0);
    if (ok) return (<u64>load<u32>(e, 8) << 12) | (va & 0xfff);
  }
  // canonical check
  const top = <i64>va >> 47;
  if (top != 0 && top != -1) {
    if (probeOnly) { probeFaultAddress = va; return <u64>-1; }
    raise(VEC_GP, 0);
    return <u64>-1;
  }
  let table = cr3 & 0x000ffffffffff000;
  let writable = true;
  let user = true;
  let exec = true;
  let pageSize: u64 = 0;
  let entry: u64 = 0;
  let entryAddr: u64 = 0;
  for (let level = 3; level >= 0; level--) {
    const idx = (va >> (12 + 9 * <u64>level)) & 511;
    entryAddr = table + (idx << 3);
    entry = physLoad64(entryAddr);
    if ((entry & 1) == 0) return pageFault(va, access, false);
    if ((entry & 2) == 0) writable = false;
    if ((entry & 4) == 0) user = false;
    if ((entry & 0x8000000000000000) != 0 && (efer & 0x800) != 0) exec = false;
    if (!probeOnly && (entry & 0x20) == 0) store<u64>(ramBase + <usize>entryAddr, entry | 0x20);
    if (level == 0 || (level <= 2 && (entry & 0x80) != 0)) {
      pageSize = <u64>1 << (12 + 9 * <u64>level);
      break;
    }
    table = entry & 0x000ffffffffff000;
  }
  const wpApplies = cpl == 3 || (cr0 & 0x10000) != 0;
  if (access == ACC_WRITE && !writable && wpApplies) return pageFault(va, access, true);
  if (cpl == 3 && !user) return pageFault(va, access, true);
  if (access == ACC_EXEC && !exec) return pageFault(va, access, true);
  if (access == ACC_WRITE && !probeOnly && (entry & 0x40) == 0) store<u64>(ramBase + <usize>entryAddr, entry | 0x60);
  const frame = entry & 0x000ffffffffff000 & ~(pageSize - 1);
  const pa = frame | (va & (pageSize - 1));
  // cache the 4 KiB piece; dirty pages only get the write bit once D is set
  let perm: u32 = 0;
  if (writable && (access == ACC_WRITE || (entry & 0x40) != 0)) perm |= TLB_W;
  if (user) perm |= TLB_U;
  if (exec) perm |= TLB_X;
  if (!probeOnly) {
    store<u64>(e, (vpn << 1) | 1);
    store<u32>(e, <u32>(pa >> 12), 8);
    store<u32>(e, perm, 12);
  }
  return pa;
}

// ---- physical and virtual access ----------------------------------------------

function physRead(pa: u64, size: i32): u64 {
  if (pa + <u64>size <= ramSize) {
    const p = ramBase + <usize>pa;
    if (size == 8) return load<u64>(p);
    if (size == 4) return <u64>load<u32>(p);
    if (size == 2) return <u64>load<u16>(p);
    return <u64>load<u8>(p);
  }
  if (pa >= MMIO_BASE && pa < MMIO_END) {
    if (size == 8) return <u64><u32>mmioRead(cpuIndex, <i32>pa, 4) | (<u64><u32>mmioRead(cpuIndex, <i32>(pa + 4), 4) << 32);
    return <u64><u32>mmioRead(cpuIndex, <i32>pa, size);
  }
  return size == 8 ? <u64>-1 : (<u64>1 << (<u64>size * 8)) - 1; // open bus
}

function physWrite(pa: u64, size: i32, v: u64): void {
  if (pa + <u64>size <= ramSize) {
    const p = ramBase + <usize>pa;
    if (size == 8) store<u64>(p, v);
    else if (size == 4) store<u32>(p, <u32>v);
    else if (size == 2) store<u16>(p, <u16>v);
    else store<u8>(p, <u8>v);
    noteCodeWrite(pa, size);
    return;
  }
  if (pa >= MMIO_BASE && pa < MMIO_END) {
    if (size == 8) { mmioWrite(cpuIndex, <i32>pa, 4, <i32>v); mmioWrite(cpuIndex, <i32>(pa + 4), 4, <i32>(v >> 32)); }
    else mmioWrite(cpuIndex, <i32>pa, size, <i32>v);
  }
}

/** Every RAM write reaches the decoded-instruction cache. */
// @ts-ignore: decorator
@inline function noteCodeWrite(pa: u64, size: i32): void { if (pageCount != 0) noteWrite(pa, size); }

/** TLB hit path of translate(): the physical address, or u64(-1) to take the full walk. */
// @ts-ignore: decorator
@inline export function tlbHit(va: u64, access: u32): u64 {
  if ((cr0 & 0x80000000) == 0) return (va >> 52) == 0 ? va : <u64>-1;
  const vpn = va >> 12;
  const e = tlbEntry(vpn, access);
  if (load<u64>(e) != ((vpn << 1) | 1)) return <u64>-1;
  const perm = load<u32>(e, 12);
  if (access == ACC_WRITE && (perm & TLB_W) == 0) return <u64>-1;
  if (cpl == 3 && (perm & TLB_U) == 0) return <u64>-1;
  if (access == ACC_EXEC && (perm & TLB_X) == 0) return <u64>-1;
  return (<u64>load<u32>(e, 8) << 12) | (va & 0xfff);
}

/** Reads `size` bytes at virtual `va` (little-endian, any alignment); 0 after a fault. */
// @ts-ignore: decorator
@inline export function readV(va: u64, size: i32, access: u32 = ACC_READ): u64 {
  if (((va & 0xfff) + <u64>size) <= 0x1000) {
    if (access == ACC_READ) {
      const vpn = va >> 12;
      const d = DATA_TLB + dataTlbUser + (<usize>(vpn & 255) << 4);
      if (load<u64>(d) == ((vpn << 1) | 1)) {
        const p = <usize>(va + load<u64>(d, 8));
        if (size == 8) return load<u64>(p);
        if (size == 4) return <u64>load<u32>(p);
        if (size == 2) return <u64>load<u16>(p);
        return <u64>load<u8>(p);
      }
    } else {
      const pa = tlbHit(va, access);
      if (pa != <u64>-1 && pa + <u64>size <= ramSize) {
        const p = ramBase + <usize>pa;
        if (size == 8) return load<u64>(p);
        if (size == 4) return <u64>load<u32>(p);
        if (size == 2) return <u64>load<u16>(p);
        return <u64>load<u8>(p);
      }
    }
  }
  return readVSlow(va, size, access);
}

function readVSlow(va: u64, size: i32, access: u32): u64 {
  if (((va & 0xfff) + <u64>size) <= 0x1000) {
    const pa = translate(va, access);
    if (pa == <u64>-1) return 0;
    if (access == ACC_READ) dataTlbFill(va, pa, false);
    return physRead(pa, size);
  }
  // crosses a page: byte by byte (both pages checked first)
  const pa0 = translate(va, access);
  if (pa0 == <u64>-1) return 0;
  const pa1 = translate((va | 0xfff) + 1, access);
  if (pa1 == <u64>-1) return 0;
  let v: u64 = 0;
  for (let i = 0; i < size; i++) {
    const a = va + <u64>i;
    const pa = (a & 0xfff) < (va & 0xfff) || i >= <i32>(0x1000 - (va & 0xfff)) ? pa1 + (a & 0xfff) : pa0 + <u64>i;
    v |= physRead(pa, 1) << (<u64>i * 8);
  }
  return v;
}

/** Checks that `size` bytes at `va` are writable (raises the fault if not). */
export function probeWrite(va: u64, size: i32): bool {
  if (translate(va, ACC_WRITE) == <u64>-1) return false;
  if (((va & 0xfff) + <u64>size) > 0x1000 && translate((va | 0xfff) + 1, ACC_WRITE) == <u64>-1) return false;
  return true;
}

// @ts-ignore: decorator
@inline export function writeV(va: u64, size: i32, v: u64): void {
  if (((va & 0xfff) + <u64>size) <= 0x1000) {
    const vpn = va >> 12;
    const d = DATA_TLB + 8192 + dataTlbUser + (<usize>(vpn & 255) << 4);
    if (load<u64>(d) == ((vpn << 1) | 1)) {
      const p = <usize>(va + load<u64>(d, 8));
      if (size == 8) store<u64>(p, v);
      else if (size == 4) store<u32>(p, <u32>v);
      else if (size == 2) store<u16>(p, <u16>v);
      else store<u8>(p, <u8>v);
      noteCodeWrite(<u64>(p - ramBase), size);
      return;
    }
  }
  writeVSlow(va, size, v);
}

function writeVSlow(va: u64, size: i32, v: u64): void {
  if (((va & 0xfff) + <u64>size) <= 0x1000) {
    const pa = translate(va, ACC_WRITE);
    if (pa == <u64>-1) return;
    dataTlbFill(va, pa, true);
    physWrite(pa, size, v);
    return;
  }
  if (!probeWrite(va, size)) return;
  for (let i = 0; i < size; i++) {
    const a = va + <u64>i;
    const pa = translate(a, ACC_WRITE);
    physWrite(pa, 1, (v >> (<u64>i * 8)) & 0xff);
  }
}

// ---- several CPUs ---------------------------------------------------------------
// The running CPU's state lives in the globals above; selectCpu() parks it in
// its CPU_AREA slot and loads another one. Layout of a slot (1 KiB):
//   0 regs[16]  128 xmm[16]  384 rip  392 rflags  400 cr0  408 cr2  416 cr3  424 cr4
//   432 efer  440 fs  448 gs  456 kgs  464 star  472 lstar  480 fmask  488 retired
//   496 tscOffset  504 u32 cpl  508 u32 halted  512 u32 mxcsr  516.. owned by other modules
export const MAX_CPUS: i32 = 16;
export const CPU_AREA: usize = memory.data(MAX_CPUS * 1024, 16);
export function cpuSlot(n: i32): usize { return CPU_AREA + (<usize>n << 10); }

export function parkCpu(): void {
  flushFlags();
  const s = cpuSlot(cpuIndex);
  memory.copy(s, REGS, 128);
  memory.copy(s + 128, XMM, 256);
  store<u64>(s, rip, 384); store<u64>(s, rflags, 392); store<u64>(s, cr0, 400); store<u64>(s, cr2, 408);
  store<u64>(s, cr3, 416); store<u64>(s, cr4, 424); store<u64>(s, efer, 432); store<u64>(s, fsBase, 440);
  store<u64>(s, gsBase, 448); store<u64>(s, kernelGsBase, 456); store<u64>(s, star, 464); store<u64>(s, lstar, 472);
  store<u64>(s, fmask, 480); store<u64>(s, retired, 488); store<u64>(s, tscOffset, 496);
  store<u32>(s, cpl, 504); store<u32>(s, halted ? 1 : 0, 508); store<u32>(s, mxcsr, 512);
}
export function loadCpu(n: i32): void {
  cpuIndex = n;
  const s = cpuSlot(n);
  memory.copy(REGS, s, 128);
  memory.copy(XMM, s + 128, 256);
  rip = load<u64>(s, 384); rflags = load<u64>(s, 392) | 2; cr0 = load<u64>(s, 400); cr2 = load<u64>(s, 408);
  simdGate = (cr0 & 0xc) != 0;
  cr3 = load<u64>(s, 416); cr4 = load<u64>(s, 424); efer = load<u64>(s, 432); fsBase = load<u64>(s, 440);
  gsBase = load<u64>(s, 448); kernelGsBase = load<u64>(s, 456); star = load<u64>(s, 464); lstar = load<u64>(s, 472);
  fmask = load<u64>(s, 480); retired = load<u64>(s, 488); tscOffset = load<u64>(s, 496);
  cpl = load<u32>(s, 504); halted = load<u32>(s, 508) != 0; mxcsr = load<u32>(s, 512);
  dataTlbUser = cpl == 3 ? 4096 : 0;
  if (mxcsr == 0) mxcsr = 0x1f80;
  tlbFlush(); // the TLB is not kept per CPU: refilled after a switch
}
