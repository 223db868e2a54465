// The guest-memory walk of the WebAssembly backend: one small module per
// machine (per GuestMemoryWindow) that imports the CPU core's memory, walks
// the guest's page tables in it and reads the word a DIF load names, so a
// load of mapped memory never leaves WebAssembly. Each DIFO's module
// (wasm.ts) imports its `walk` function; a call between two WebAssembly
// instances costs no JavaScript and no BigInt.
//
// DTrace Probe Context Functions: the walk only reads. It takes an address
// only when it is sure of the answer `load` would give: RAM outside the
// device window, reached through present entries that allow a privileged
// read, by an aligned access (so the word lies in one page). Everything else
// -- not present, not allowed, a table or page outside RAM, a device, an
// address past the ISA's (non-canonical on x86-64, above 2^32 on ARM), a
// misaligned word, the framework's own arena -- is a miss, and the DIFO
// calls `load`, which gives the value or DTRACEFLT_BADADDR / BADALIGN with
// the faulting address, as the interpreter does.
//
// The walks follow the machine's own NOFAULT translations (kernel's
// x86.ts / arm.ts), step for step:
//   x86-64 (Intel SDM vol. 3, 4.5): bits 63..47 equal; PML4, PDPT, PD, PT
//     entries present (bit 0); PS (bit 7) ends the walk at a 1 GiB (PDPT)
//     or 2 MiB (PD) page; entry address bits 51..12.
//   ARMv7-A short descriptors (ARM ARM B3.5): SCTLR.M clear means no
//     translation; TTBCR.N picks TTBR0 or TTBR1; first level section,
//     supersection or page table, second level large or small page; the
//     domain (DACR) is manager (no check) or client (AP[2:0] 0 and 4 forbid
//     a privileged read), no access and reserved miss.
//
// The signature of `walk`: (va i64, size i32, root i32 [, sctlr i32,
// ttbcr i32, ttbr1 i32, dacr i32 on ARM]) -> (value i64, hit i32), the value
// zero-extended from `size` bytes (1, 2, 4, 8), both 0 on a miss.

import { Code, Bytes, I32, I64, OP } from './wasm-encoding.js';
import type { GuestMemoryWindow, GuestTranslation } from './machine.js';

/** The walk's parameters after `va` and `size`: the translation words it takes (see GuestMemoryWindow). */
export function walkWords(translation: GuestTranslation): number {
  return translation === 'x86-64' ? 1 : 5;
}

// Parameters of `walk`.
const VA = 0, SIZE = 1, ROOT = 2, SCTLR = 3, TTBCR = 4, TTBR1 = 5, DACR = 6;

/** Misses when `va` is not a multiple of `size` (a misaligned word, which may also cross a page). */
function missUnlessAligned(c: Code): void {
  c.get(VA).get(SIZE).i32(1).u8(OP.i32_sub, OP.i64_extend_i32_u, OP.i64_and, OP.i64_eqz, OP.i32_eqz).brIf('miss');
}

/**
 * Reads the `size`-byte word at the physical address in local `paLocal`
 * (i32) and returns it with hit 1, after the RAM and device checks: the
 * word must lie in RAM and not start in the device window.
 */
function readAndReturn(c: Code, w: GuestMemoryWindow, paLocal: number): void {
  // pa + size <= ramBytes, in 64 bits so that nothing wraps.
  c.get(paLocal).u8(OP.i64_extend_i32_u).get(SIZE).u8(OP.i64_extend_i32_u, OP.i64_add).i64(w.ramBytes).u8(OP.i64_gt_u).brIf('miss');
  // pa - deviceStart < deviceEnd - deviceStart (unsigned): pa is a device.
  c.get(paLocal).i32(w.deviceStart).u8(OP.i32_sub).i32(w.deviceEnd - w.deviceStart).u8(OP.i32_lt_u).brIf('miss');
  const at = (): Code => c.get(paLocal);
  c.get(SIZE).i32(1).u8(OP.i32_eq).if_(I64);
  at().mem(OP.i64_load8_u, 0, w.ramOffset);
  c.else_().get(SIZE).i32(2).u8(OP.i32_eq).if_(I64);
  at().mem(OP.i64_load16_u, 1, w.ramOffset);
  c.else_().get(SIZE).i32(4).u8(OP.i32_eq).if_(I64);
  at().mem(OP.i64_load32_u, 2, w.ramOffset);
  c.else_();
  at().mem(OP.i64_load, 3, w.ramOffset);
  c.end().end().end();
  c.i32(1).u8(OP.return);
}

/** The x86-64 walk: locals after the parameters: table (i64), entry (i64), pa (i32). */
function x86Body(w: GuestMemoryWindow): Code {
  const TABLE = 3, ENTRY = 4, PA = 5;
  const c = new Code();
  c.uleb(2).uleb(2).u8(I64).uleb(1).u8(I32);
  const ADDRESS = 0x000f_ffff_ffff_f000n;
  c.block('miss');
  missUnlessAligned(c);
  // Canonical: (va >> 47) is 0 or -1, i.e. (va >> 47) + 1 <= 1 unsigned.
  c.get(VA).i64(47).u8(OP.i64_shr_s).i64(1).u8(OP.i64_add).i64(1).u8(OP.i64_gt_u).brIf('miss');
  c.get(ROOT).u8(OP.i64_extend_i32_u).set(TABLE);
  c.block('found');
  for (const [level, shift] of [[3, 39], [2, 30], [1, 21], [0, 12]] as const) {
    // The entry's address: table + index * 8; it must lie in RAM.
    c.get(TABLE).get(VA).i64(shift).u8(OP.i64_shr_u).i64(511).u8(OP.i64_and).i64(3).u8(OP.i64_shl, OP.i64_add).set(ENTRY);
    c.get(ENTRY).i64(w.ramBytes - 8).u8(OP.i64_gt_u).brIf('miss');
    c.get(ENTRY).u8(OP.i32_wrap_i64).mem(OP.i64_load, 3, w.ramOffset).set(ENTRY);
    c.get(ENTRY).i64(1).u8(OP.i64_and, OP.i64_eqz).brIf('miss');
    // The physical address, kept when it is below 2^32 (past that is no RAM here).
    const pageAt = (base: bigint, offset: bigint): void => {
      c.get(ENTRY).i64(base).u8(OP.i64_and).get(VA).i64(offset).u8(OP.i64_and, OP.i64_add).set(ENTRY);
      c.get(ENTRY).i64(0xffff_ffff).u8(OP.i64_gt_u).brIf('miss');
      c.get(ENTRY).u8(OP.i32_wrap_i64).set(PA).br('found');
    };
    if (level === 2 || level === 1) {
      c.get(ENTRY).i64(0x80).u8(OP.i64_and, OP.i64_eqz, OP.i32_eqz).if_();
      if (level === 2) pageAt(0x000f_ffff_c000_0000n, 0x3fff_ffffn);
      else pageAt(0x000f_ffff_ffe0_0000n, 0x1f_ffffn);
      c.end();
    }
    if (level === 0) pageAt(ADDRESS, 0xfffn);
    else c.get(ENTRY).i64(ADDRESS).u8(OP.i64_and).set(TABLE);
  }
  c.end(); // found
  readAndReturn(c, w, PA);
  c.end(); // miss
  c.i64(0).i32(0).u8(OP.end);
  return c;
}

/** The ARM walk: locals after the parameters: va32, n, t, d, domain, ap, pa (all i32). */
function armBody(w: GuestMemoryWindow): Code {
  const V = 7, N = 8, T = 9, D = 10, DOMAIN = 11, AP = 12, PA = 13;
  const c = new Code();
  c.uleb(1).uleb(7).u8(I32);
  /** A translation-table word at physical `T` (must lie in RAM) into D. */
  const tableWord = (): void => {
    c.get(T).i32(w.ramBytes - 4).u8(OP.i32_gt_u).brIf('miss');
    c.get(T).mem(OP.i32_load, 2, w.ramOffset).set(D);
  };
  c.block('miss');
  missUnlessAligned(c);
  c.get(VA).i64(0xffff_ffff).u8(OP.i64_gt_u).brIf('miss');
  c.get(VA).u8(OP.i32_wrap_i64).set(V);
  c.block('pa');
  // SCTLR.M clear: no translation.
  c.get(V).set(PA);
  c.get(SCTLR).i32(1).u8(OP.i32_and, OP.i32_eqz).brIf('pa');
  c.get(TTBCR).i32(7).u8(OP.i32_and).set(N);
  // TTBR0 when N is 0 or va's top N bits are 0, else TTBR1.
  c.get(N).u8(OP.i32_eqz).if_(I32).i32(1).else_().get(V).i32(32).get(N).u8(OP.i32_sub, OP.i32_shr_u, OP.i32_eqz).end();
  c.if_();
  c.get(ROOT).i32(-1).i32(14).get(N).u8(OP.i32_sub, OP.i32_shl, OP.i32_and);
  c.get(V).i32(20).u8(OP.i32_shr_u).i32(0xfff).get(N).u8(OP.i32_shr_u, OP.i32_and).i32(2).u8(OP.i32_shl, OP.i32_or).set(T);
  c.else_();
  c.get(TTBR1).i32(0xffff_c000).u8(OP.i32_and).get(V).i32(20).u8(OP.i32_shr_u).i32(2).u8(OP.i32_shl, OP.i32_or).set(T);
  c.end();
  tableWord();
  c.get(D).i32(3).u8(OP.i32_and).set(T);
  c.get(T).i32(2).u8(OP.i32_eq).if_();
  {
    // Section (domain from the descriptor) or supersection (domain 0).
    c.get(D).i32(1 << 18).u8(OP.i32_and).if_();
    c.i32(0).set(DOMAIN);
    c.get(D).i32(0xff00_0000).u8(OP.i32_and).get(V).i32(0x00ff_ffff).u8(OP.i32_and, OP.i32_or).set(PA);
    c.else_();
    c.get(D).i32(5).u8(OP.i32_shr_u).i32(15).u8(OP.i32_and).set(DOMAIN);
    c.get(D).i32(0xfff0_0000).u8(OP.i32_and).get(V).i32(0x000f_ffff).u8(OP.i32_and, OP.i32_or).set(PA);
    c.end();
    c.get(D).i32(10).u8(OP.i32_shr_u).i32(3).u8(OP.i32_and).get(D).i32(13).u8(OP.i32_shr_u).i32(4).u8(OP.i32_and, OP.i32_or).set(AP);
  }
  c.else_();
  {
    // A page table (type 1); a fault entry (0) or reserved (3) misses.
    c.get(T).i32(1).u8(OP.i32_ne).brIf('miss');
    c.get(D).i32(5).u8(OP.i32_shr_u).i32(15).u8(OP.i32_and).set(DOMAIN);
    c.get(D).i32(0xffff_fc00).u8(OP.i32_and).get(V).i32(12).u8(OP.i32_shr_u).i32(0xff).u8(OP.i32_and).i32(2).u8(OP.i32_shl, OP.i32_or).set(T);
    tableWord();
    c.get(D).i32(3).u8(OP.i32_and).set(T);
    c.get(T).u8(OP.i32_eqz).brIf('miss');
    c.get(T).i32(1).u8(OP.i32_eq).if_();
    c.get(D).i32(0xffff_0000).u8(OP.i32_and).get(V).i32(0xffff).u8(OP.i32_and, OP.i32_or).set(PA);
    c.else_();
    c.get(D).i32(0xffff_f000).u8(OP.i32_and).get(V).i32(0xfff).u8(OP.i32_and, OP.i32_or).set(PA);
    c.end();
    c.get(D).i32(4).u8(OP.i32_shr_u).i32(3).u8(OP.i32_and).get(D).i32(7).u8(OP.i32_shr_u).i32(4).u8(OP.i32_and, OP.i32_or).set(AP);
  }
  c.end();
  // The domain's access: 3 manager (no check), 1 client (AP), 0 and 2 miss.
  c.get(DACR).get(DOMAIN).i32(1).u8(OP.i32_shl, OP.i32_shr_u).i32(3).u8(OP.i32_and).set(T);
  c.get(T).i32(3).u8(OP.i32_eq).brIf('pa');
  c.get(T).i32(1).u8(OP.i32_ne).brIf('miss');
  // AP[2:0] 0 and 4 forbid a privileged read.
  c.get(AP).i32(3).u8(OP.i32_and, OP.i32_eqz).brIf('miss');
  c.end(); // pa
  readAndReturn(c, w, PA);
  c.end(); // miss
  c.i64(0).i32(0).u8(OP.end);
  return c;
}

/** The module of the walk of `w`: imports g.m (the core's memory), exports walk. */
export function walkModuleBytes(w: GuestMemoryWindow): Uint8Array<ArrayBuffer> {
  const words = walkWords(w.translation);
  const m = new Bytes().u8(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  const type = new Bytes().uleb(1).u8(0x60).uleb(2 + words).u8(I64);
  for (let i = 0; i <= words; i++) type.u8(I32);
  type.uleb(2).u8(I64, I32);
  m.section(1, type);
  m.section(2, new Bytes().uleb(1).name('g').name('m').u8(0x02, 0x00).uleb(0));
  m.section(3, new Bytes().uleb(1).uleb(0));
  m.section(7, new Bytes().uleb(1).name('walk').u8(0x00).uleb(0));
  m.section(10, new Bytes().uleb(1).bytes(w.translation === 'x86-64' ? x86Body(w) : armBody(w)));
  return Uint8Array.from(m.b);
}

/** The walk of each window, made once. */
const walks = new WeakMap<GuestMemoryWindow, WebAssembly.ExportValue | null>();

/**
 * The `walk` function of window `w`, to import into a DIFO's module;
 * undefined when WebAssembly cannot read it (no WebAssembly, a shared
 * memory, RAM the walk cannot address).
 */
export function guestWalk(w: GuestMemoryWindow): WebAssembly.ExportValue | undefined {
  let f = walks.get(w);
  if (f === undefined) {
    f = null;
    const usable =
      typeof WebAssembly !== 'undefined' &&
      !(typeof SharedArrayBuffer !== 'undefined' && w.memory.buffer instanceof SharedArrayBuffer) &&
      Number.isInteger(w.ramOffset) && Number.isInteger(w.ramBytes) && w.ramOffset >= 0 && w.ramBytes >= 8 &&
      w.ramOffset + w.ramBytes <= 0x1_0000_0000 &&
      Number.isInteger(w.deviceStart) && Number.isInteger(w.deviceEnd) && w.deviceStart >= 0 && w.deviceEnd >= w.deviceStart && w.deviceEnd <= 0x1_0000_0000;
    if (usable) {
      const instance = new WebAssembly.Instance(new WebAssembly.Module(walkModuleBytes(w)), { g: { m: w.memory } });
      f = instance.exports['walk']!;
    }
    walks.set(w, f);
  }
  return f ?? undefined;
}

/**
 * The walk of window `w` callable from JavaScript, for tools and tests that
 * hold it against the machine's own loads: the `size`-byte word (1, 2, 4, 8)
 * at `va`, zero-extended, as a kernel load (`user` false) or a user load
 * reads it with the translation registers `w` gives now, or undefined when
 * the walk leaves the address to `load`.
 */
export function guestMemoryReader(w: GuestMemoryWindow): ((va: bigint, size: number, user: boolean) => bigint | undefined) | undefined {
  const walk = guestWalk(w) as ((va: bigint, size: number, ...words: number[]) => [bigint, number]) | undefined;
  if (walk === undefined) return undefined;
  const words = new Uint32Array(6);
  return (va, size, user) => {
    w.translationRegisters(words, 0, user);
    const [value, hit] = walk(BigInt.asIntN(64, va), size, user ? words[1]! : words[0]!, words[2]!, words[3]!, words[4]!, words[5]!);
    return hit === 0 ? undefined : BigInt.asUintN(64, value);
  };
}
