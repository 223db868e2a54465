// Guest memory of the ARMv7-A core: linear-memory layout, guest physical RAM,
// the board's device window (host MMIO imports), the short-descriptor
// translation table walk (ARM ARM B3.5) with a per-CPU TLB, and the guest
// virtual loads/stores the interpreter uses. Aborts are recorded here
// (fault address and FSR) and raised by the run loop.
import {
  S, STATE_SIZE, setStatesBase, currentMode, MODE_USR, st, setSt,
  CP15_SCTLR, CP15_TTBR0, CP15_TTBR1, CP15_TTBCR, CP15_DACR, FAULT_ADDR, FAULT_STATUS, EXCL_OPEN, EXCL_ADDR, CPU_ID, invalidateFetch,
} from './state';

// Host device window: loads/stores here go to the host.
export const DEVICE_BASE: u32 = 0xf0000000;
export const DEVICE_END: u32 = 0xf1000000;

@external('env', 'mmioRead')
declare function mmioRead(cpu: i32, paddr: i32, size: i32): i32;
@external('env', 'mmioWrite')
declare function mmioWrite(cpu: i32, paddr: i32, size: i32, value: i32): void;

// Fixed addresses make the hottest accesses constant-offset loads:
//   [0, 1 MiB)   static data of the module (checked in configureMemory)
//   [1, 3 MiB)   decoded-instruction cache, A32
//   [3, 5 MiB)   decoded-instruction cache, T32
//   [5 MiB, ...) guest RAM, then the CPUs' state home blocks and TLBs, and
//                the bitmap of pages holding decoded T32 code
export const DECODE_BASE: usize = 0x100000;
export const THUMB_DECODE_BASE: usize = 0x300000;
/** Guest physical address 0 in linear memory. */
export const ramBase: usize = 0x500000;
export let ramSize: u32 = 0;

// Decoded-instruction cache, direct mapped by physical address. Entry (32 bytes):
//   +0 tag = paddr | 1 when valid, +4 the word, +8 the handler's function-table
//   index, +12 the Op id | run-loop class << 30, +16 the pre-decoded record of
//   a specialised form (assembly/fast.ts: kind, register offsets, immediate).
export const DECODE_ENTRIES: u32 = 1 << 16;
export const DECODE_ENTRY_SIZE: u32 = 32;
export const DECODE_SHIFT: u32 = 5;
export const decodeTags: usize = DECODE_BASE;

// The T32 cache has the same entries, direct mapped by halfword (paddr >> 1).
// A 32-bit instruction covers two halfwords, so a store invalidates the
// entries of its halfwords and of the one before; to keep A32 stores cheap
// it does so only on pages where T32 code was decoded (thumbPages, a byte
// per 4 KiB page, set when a T32 entry is filled and cleared only by init).
export const THUMB_DECODE_ENTRIES: u32 = 1 << 16;
export const thumbDecodeTags: usize = THUMB_DECODE_BASE;
export let thumbPages: usize = 0;

// TLB: direct mapped by virtual page, per CPU. Entry: tag (vpn << 12 | valid), page base, permissions.
export const TLB_ENTRIES: u32 = 256;
const TLB_ENTRY_SIZE: u32 = 16;
export let tlbBase: usize = 0;

// Permission bits cached in a TLB entry.
export const P_PRIV_R: u32 = 1;
export const P_PRIV_W: u32 = 2;
export const P_USER_R: u32 = 4;
export const P_USER_W: u32 = 8;
const P_PRIV_X: u32 = 16;
const P_USER_X: u32 = 32;

// Access kinds.
export const ACC_READ: u32 = 0;
export const ACC_WRITE: u32 = 1;
export const ACC_FETCH: u32 = 2;

/** Set when the last access aborted: 1 = data abort, 2 = prefetch abort. */
export let aborted: u32 = 0;
/** Virtual accesses made by privileged code as if unprivileged (ldrt/strt). */
export let forceUser: bool = false;
export function setForceUser(v: bool): void {
  forceUser = v;
}
export function clearAbort(): void {
  aborted = 0;
}

/** Records an alignment fault (FSR status 0b00001) for an access at `va`. */
export function alignmentAbort(va: u32, isWrite: bool): void {
  fault(va, 0x01, 0, isWrite ? ACC_WRITE : ACC_READ);
}

/**
 * Lays out linear memory for `cpus` CPUs and `bytes` of guest RAM, growing
 * memory as needed. Returns 0, or -1 when the request cannot be met.
 */
export function configureMemory(cpus: u32, bytes: u32): i32 {
  if (usize(__heap_base) > DECODE_BASE) return -1; // static data outgrew its megabyte
  // RAM first (fixed base), then CPU state blocks and TLBs.
  let at = u64(ramBase) + u64(bytes);
  at = (at + 63) & ~u64(63);
  const states = usize(at);
  at += u64(cpus) * STATE_SIZE;
  const tlbs = usize(at);
  at += u64(cpus) * TLB_ENTRIES * TLB_ENTRY_SIZE;
  const pages = usize(at);
  at += (u64(bytes) + 0xfff) >> 12;
  if (at > 0xffff0000) return -1;
  const needPages = i32((at + 0xffff) >> 16);
  const have = memory.size();
  if (needPages > have && memory.grow(needPages - have) < 0) return -1;
  memory.fill(ramBase, 0, usize(at) - ramBase);
  memory.fill(decodeTags, 0, usize(DECODE_ENTRIES) * DECODE_ENTRY_SIZE);
  memory.fill(thumbDecodeTags, 0, usize(THUMB_DECODE_ENTRIES) * DECODE_ENTRY_SIZE);
  tlbBase = tlbs;
  thumbPages = pages;
  ramSize = bytes;
  setStatesBase(states, cpus);
  return 0;
}

// ---- Code cache invalidation ----

/** Invalidates decoded instructions covering [paddr, paddr + len). Exact: called for every write. */
@inline export function invalidateCodeWord(paddr: u32): void {
  const idx = usize((paddr >>> 2) & (DECODE_ENTRIES - 1)) << DECODE_SHIFT;
  if (load<u32>(decodeTags + idx) == ((paddr & ~3) | 1)) store<u32>(decodeTags + idx, 0);
  if (load<u8>(thumbPages + usize(paddr >>> 12)) != 0) invalidateThumbWord(paddr & ~3);
}

/** Drops T32 entries for the halfwords of the word at `word` and a 32-bit instruction starting 2 bytes before it. */
function invalidateThumbWord(word: u32): void {
  invalidateThumbAt(word - 2);
  invalidateThumbAt(word);
  invalidateThumbAt(word + 2);
}
@inline function invalidateThumbAt(paddr: u32): void {
  const idx = usize((paddr >>> 1) & (THUMB_DECODE_ENTRIES - 1)) << DECODE_SHIFT;
  if (load<u32>(thumbDecodeTags + idx) == (paddr | 1)) store<u32>(thumbDecodeTags + idx, 0);
}
/** Marks the page of `paddr` as holding decoded T32 code (stores there then check the T32 cache). */
@inline export function markThumbPage(paddr: u32): void {
  store<u8>(thumbPages + usize(paddr >>> 12), 1);
}

export function invalidateCode(paddr: u32, len: u32): void {
  if (len == 0) return;
  if (len >= DECODE_ENTRIES * 2) {
    memory.fill(decodeTags, 0, usize(DECODE_ENTRIES) * DECODE_ENTRY_SIZE);
    memory.fill(thumbDecodeTags, 0, usize(THUMB_DECODE_ENTRIES) * DECODE_ENTRY_SIZE);
    return;
  }
  const first = paddr & ~3;
  const last = (paddr + len - 1) & ~3;
  for (let a = first; ; a += 4) {
    invalidateCodeWord(a);
    if (a == last) break;
  }
}

// ---- TLB ----

export function tlbFlush(): void {
  invalidateFetch();
  memory.fill(tlbBase + usize(cpuIndex()) * TLB_ENTRIES * TLB_ENTRY_SIZE, 0, usize(TLB_ENTRIES) * TLB_ENTRY_SIZE);
}

/** Invalidates the entry for one virtual address (TLBIMVA). */
export function tlbFlushPage(va: u32): void {
  invalidateFetch();
  const e = tlbEntry(va);
  if ((load<u32>(e) & ~0xfff) == (va & ~0xfff)) store<u32>(e, 0);
}

@inline function cpuIndex(): u32 {
  return st(CPU_ID);
}

/** The current CPU's first TLB entry. */
@inline export function cpuTlb(): usize {
  return tlbBase + usize(st(CPU_ID) * TLB_ENTRIES) * TLB_ENTRY_SIZE;
}

/**
 * The run loop's inline access path: the linear-memory address of a
 * `size`-byte access at `va` when it is plain RAM that needs no walk (MMU
 * off, or a TLB hit in `tlb` granting `need` on a RAM page without crossing
 * it), else 0 (the caller takes the full path, which also reports faults).
 */
@inline export function ramAccess(va: u32, size: u32, mmu: bool, tlb: usize, need: u32): usize {
  if (!mmu) return u64(va) + u64(size) <= u64(ramSize) ? ramBase + usize(va) : 0;
  if ((va & 0xfff) > 0x1000 - size) return 0;
  const e = tlb + usize((va >>> 12) & (TLB_ENTRIES - 1)) * TLB_ENTRY_SIZE;
  if (load<u32>(e) != ((va & 0xfffff000) | 1)) return 0;
  const page = load<u32>(e, 4);
  if ((load<u32>(e, 8) & need) == 0 || (page | 0xfff) >= ramSize) return 0;
  return ramBase + usize(page | (va & 0xfff));
}

@inline function tlbEntry(va: u32): usize {
  return tlbBase + usize(st(CPU_ID) * TLB_ENTRIES + ((va >>> 12) & (TLB_ENTRIES - 1))) * TLB_ENTRY_SIZE;
}

// ---- Translation ----

/** Records an abort: FSR value built from a 5-bit fault status, domain and write flag. */
function fault(va: u32, status: u32, domain: u32, kind: u32): void {
  aborted = kind == ACC_FETCH ? 2 : 1;
  let fsr = (status & 0xf) | ((status & 0x10) << 6) | ((domain & 0xf) << 4);
  if (kind == ACC_WRITE) fsr |= 1 << 11;
  setSt(FAULT_ADDR, va);
  setSt(FAULT_STATUS, fsr);
}

/** Physical 32-bit read used by the table walk; out-of-RAM reads return a fault descriptor. */
function walkRead(pa: u32): u32 {
  if (pa < ramSize - 3 && ramSize >= 4) return load<u32>(ramBase + usize(pa));
  return 0;
}

/**
 * Walks the short-descriptor tables for `va` (ARM ARM B3.5.1). On success
 * fills the TLB entry and returns true; on failure records the fault.
 */
function walk(va: u32, kind: u32): bool {
  const ttbcr = st(CP15_TTBCR);
  const n = ttbcr & 7;
  let l1: u32;
  // B3.5.4: TTBR0 translates the bottom 2^(32-N) bytes, TTBR1 the rest.
  if (n == 0 || (va >>> (32 - n)) == 0) {
    const base = st(CP15_TTBR0) & ~((u32(1) << (14 - n)) - 1);
    l1 = base | (((va >>> 20) & (0xfff >>> n)) << 2);
  } else {
    l1 = (st(CP15_TTBR1) & 0xffffc000) | ((va >>> 20) << 2);
  }
  const d1 = walkRead(l1);
  const type1 = d1 & 3;
  if (type1 == 0 || type1 == 3) {
    fault(va, 0x05, 0, kind); // translation fault, section
    return false;
  }
  let domain: u32;
  let pageBase: u32;
  let ap: u32;
  let xn: u32;
  let isSection = true;
  if (type1 == 2) {
    // Section or supersection
    if (d1 & (1 << 18)) {
      domain = 0;
      pageBase = (d1 & 0xff000000) | (va & 0x00fff000);
    } else {
      domain = (d1 >>> 5) & 0xf;
      pageBase = (d1 & 0xfff00000) | (va & 0x000ff000);
    }
    ap = ((d1 >>> 10) & 3) | ((d1 >>> 13) & 4);
    xn = (d1 >>> 4) & 1;
  } else {
    // Page table
    isSection = false;
    domain = (d1 >>> 5) & 0xf;
    const l2 = (d1 & 0xfffffc00) | (((va >>> 12) & 0xff) << 2);
    const d2 = walkRead(l2);
    const type2 = d2 & 3;
    if (type2 == 0) {
      fault(va, 0x07, domain, kind); // translation fault, page
      return false;
    }
    if (type2 == 1) {
      pageBase = (d2 & 0xffff0000) | (va & 0x0000f000);
      xn = (d2 >>> 15) & 1;
    } else {
      pageBase = d2 & 0xfffff000;
      xn = d2 & 1;
    }
    ap = ((d2 >>> 4) & 3) | ((d2 >>> 7) & 4);
  }
  // B3.12.3 domains: 00 no access, 01 client (check AP), 11 manager (no checks)
  const dac = (st(CP15_DACR) >>> (domain << 1)) & 3;
  if (dac == 0 || dac == 2) {
    fault(va, isSection ? 0x09 : 0x0b, domain, kind);
    return false;
  }
  let perms: u32;
  if (dac == 3) perms = 0x3f;
  else {
    // B3.7.1 access permissions, AP[2:0] (SCTLR.AFE = 0)
    switch (ap) {
      case 1: perms = P_PRIV_R | P_PRIV_W; break;
      case 2: perms = P_PRIV_R | P_PRIV_W | P_USER_R; break;
      case 3: perms = P_PRIV_R | P_PRIV_W | P_USER_R | P_USER_W; break;
      case 5: perms = P_PRIV_R; break;
      case 6:
      case 7: perms = P_PRIV_R | P_USER_R; break;
      default: perms = 0;
    }
    if (!xn) perms |= ((perms & P_PRIV_R) << 4) | ((perms & P_USER_R) << 3);
  }
  const e = tlbEntry(va);
  store<u32>(e, (va & 0xfffff000) | 1);
  store<u32>(e + 4, pageBase);
  store<u32>(e + 8, perms | (domain << 8) | (isSection ? 0x1000 : 0));
  return true;
}

/**
 * Translates a virtual address for an access of `kind`; returns the
 * physical address, or records an abort (check `aborted`) and returns 0.
 */
export function translate(va: u32, kind: u32): u32 {
  if ((st(CP15_SCTLR) & 1) == 0) return va;
  const e = tlbEntry(va);
  if (load<u32>(e) != ((va & 0xfffff000) | 1)) {
    if (!walk(va, kind)) return 0;
  }
  const info = load<u32>(e + 8);
  const user = forceUser || currentMode() == MODE_USR;
  let need: u32;
  if (kind == ACC_FETCH) need = user ? P_USER_X : P_PRIV_X;
  else if (kind == ACC_WRITE) need = user ? P_USER_W : P_PRIV_W;
  else need = user ? P_USER_R : P_PRIV_R;
  if ((info & need) == 0) {
    fault(va, info & 0x1000 ? 0x0d : 0x0f, (info >>> 8) & 0xf, kind);
    return 0;
  }
  return load<u32>(e + 4) | (va & 0xfff);
}

// ---- Physical access ----

function externalAbort(va: u32, kind: u32): void {
  fault(va, 0x08, 0, kind); // synchronous external abort
}

function physRead(pa: u32, size: u32, va: u32): u32 {
  if (pa <= ramSize - size && ramSize >= size) {
    const p = ramBase + usize(pa);
    if (size == 4) return load<u32>(p);
    if (size == 2) return load<u16>(p);
    return load<u8>(p);
  }
  if (pa >= DEVICE_BASE && pa < DEVICE_END) return u32(mmioRead(i32(st(CPU_ID)), i32(pa), i32(size)));
  externalAbort(va, ACC_READ);
  return 0;
}

function physWrite(pa: u32, size: u32, v: u32, va: u32): void {
  if (pa <= ramSize - size && ramSize >= size) {
    const p = ramBase + usize(pa);
    if (size == 4) store<u32>(p, v);
    else if (size == 2) store<u16>(p, u16(v));
    else store<u8>(p, u8(v));
    invalidateCodeWord(pa);
    if ((pa & 3) + size > 4) invalidateCodeWord(pa + 4);
    return;
  }
  if (pa >= DEVICE_BASE && pa < DEVICE_END) {
    mmioWrite(i32(st(CPU_ID)), i32(pa), i32(size), i32(v));
    return;
  }
  externalAbort(va, ACC_WRITE);
}

// ---- Virtual access (what instructions use) ----

export function read(va: u32, size: u32): u32 {
  if ((st(CP15_SCTLR) & 1) == 0 && va <= ramSize - size) {
    // MMU off, plain RAM: the common case without translation.
    const p = ramBase + usize(va);
    if (size == 4) return load<u32>(p);
    if (size == 2) return load<u16>(p);
    return load<u8>(p);
  }
  if (((va & 0xfff) + size) <= 0x1000 && (st(CP15_SCTLR) & 1) != 0) {
    // MMU on, TLB hit with permission, RAM page: no walk, no device check.
    const e = tlbEntry(va);
    if (load<u32>(e) == ((va & 0xfffff000) | 1)) {
      const need = forceUser || currentMode() == MODE_USR ? P_USER_R : P_PRIV_R;
      const page = load<u32>(e, 4);
      if ((load<u32>(e, 8) & need) != 0 && (page | 0xfff) < ramSize) {
        const p = ramBase + usize(page | (va & 0xfff));
        if (size == 4) return load<u32>(p);
        if (size == 2) return load<u16>(p);
        return load<u8>(p);
      }
    }
  }
  if (((va & 0xfff) + size) > 0x1000 && (st(CP15_SCTLR) & 1)) {
    // Crosses a page: byte by byte, each translated.
    let v: u32 = 0;
    for (let i: u32 = 0; i < size; i++) {
      const pa = translate(va + i, ACC_READ);
      if (aborted) return 0;
      v |= physRead(pa, 1, va + i) << (i * 8);
      if (aborted) return 0;
    }
    return v;
  }
  const pa = translate(va, ACC_READ);
  if (aborted) return 0;
  return physRead(pa, size, va);
}

export function write(va: u32, size: u32, v: u32): void {
  if ((st(CP15_SCTLR) & 1) == 0 && va <= ramSize - size) {
    const p = ramBase + usize(va);
    if (size == 4) store<u32>(p, v);
    else if (size == 2) store<u16>(p, u16(v));
    else store<u8>(p, u8(v));
    invalidateCodeWord(va);
    if ((va & 3) + size > 4) invalidateCodeWord(va + 4);
    return;
  }
  if (((va & 0xfff) + size) <= 0x1000 && (st(CP15_SCTLR) & 1) != 0) {
    const e = tlbEntry(va);
    if (load<u32>(e) == ((va & 0xfffff000) | 1)) {
      const need = forceUser || currentMode() == MODE_USR ? P_USER_W : P_PRIV_W;
      const page = load<u32>(e, 4);
      if ((load<u32>(e, 8) & need) != 0 && (page | 0xfff) < ramSize) {
        const pa = page | (va & 0xfff);
        const p = ramBase + usize(pa);
        if (size == 4) store<u32>(p, v);
        else if (size == 2) store<u16>(p, u16(v));
        else store<u8>(p, u8(v));
        invalidateCodeWord(pa);
        if ((pa & 3) + size > 4) invalidateCodeWord(pa + 4);
        return;
      }
    }
  }
  if (((va & 0xfff) + size) > 0x1000 && (st(CP15_SCTLR) & 1)) {
    // Check every byte first so a fault leaves memory unchanged.
    for (let i: u32 = 0; i < size; i++) {
      translate(va + i, ACC_WRITE);
      if (aborted) return;
    }
    for (let i: u32 = 0; i < size; i++) physWrite(translate(va + i, ACC_WRITE), 1, v >>> (i * 8), va + i);
    return;
  }
  const pa = translate(va, ACC_WRITE);
  if (aborted) return;
  physWrite(pa, size, v, va);
}

/** Checks that a write would succeed without doing it (ldm/stm/strd use this for atomicity). */
export function probeWrite(va: u32): bool {
  translate(va, ACC_WRITE);
  return aborted == 0;
}

/** Side-effect-free read used by the host: 0 and the faulting address in FAULT_ADDR on failure. */
export function peek(va: u32, size: u32): u32 {
  const savedStatus = st(FAULT_STATUS);
  const savedAddr = st(FAULT_ADDR);
  aborted = 0;
  let pa: u32 = 0;
  let v: u32 = 0;
  for (let i: u32 = 0; i < size; i++) {
    const a = va + i;
    pa = translate(a, ACC_READ);
    if (aborted) break;
    if (pa < ramSize) v |= u32(load<u8>(ramBase + usize(pa))) << (i * 8);
    else {
      fault(a, 0x08, 0, ACC_READ);
      break;
    }
  }
  if (aborted) {
    peekFaultAddr = st(FAULT_ADDR);
    setSt(FAULT_STATUS, savedStatus);
    setSt(FAULT_ADDR, savedAddr);
    aborted = 0;
    peekFailed = true;
    return 0;
  }
  peekFailed = false;
  return v;
}
export let peekFailed: bool = false;
export let peekFaultAddr: u32 = 0;

export function monitorAddress(): u32 {
  return st(EXCL_ADDR);
}
export function monitorOpen(): bool {
  return st(EXCL_OPEN) != 0;
}
