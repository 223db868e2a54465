// Instruction decoder for 64-bit mode: prefixes (legacy, REX, VEX, EVEX, XOP),
// the one-byte, 0F, 0F38 and 0F3A maps, ModRM/SIB/displacement/immediates.
// It reads bytes from a linear buffer and leaves the decoded fields in the
// module globals below (read by the interpreter) and, on request, in a record
// the host reads (DECODE_RECORD). Form matching uses the generated tables
// from scripts/opcodes.mjs.
import { OPCODE_INDEX, FORMS } from './generated/decode-tables';

// Immediate kinds, as the generator writes them.
const IMM_NONE: u32 = 0;
const IMM_B: u32 = 1;
const IMM_W: u32 = 2;
const IMM_Z: u32 = 3;
const IMM_V: u32 = 4;
const IMM_ENTER: u32 = 5;
const IMM_MOFFS: u32 = 6;
const IMM_D: u32 = 7;

// Prefix bits in dPrefixes.
export const PFX_66: u32 = 1;
export const PFX_67: u32 = 2;
export const PFX_F2: u32 = 4;
export const PFX_F3: u32 = 8;
export const PFX_LOCK: u32 = 16;
export const PFX_FS: u32 = 32;
export const PFX_GS: u32 = 64;

// Encoding kinds in dVex.
export const ENC_LEGACY: u32 = 0;
export const ENC_VEX: u32 = 1;
export const ENC_EVEX: u32 = 2;
export const ENC_XOP: u32 = 3;

// Decode errors (negative lengths).
export const DECODE_TRUNCATED: i32 = -1;
export const DECODE_TOO_LONG: i32 = -2;

// ---- decoded fields -------------------------------------------------------
export let dLength: i32 = 0;
export let dPrefixes: u32 = 0;
export let dRex: u32 = 0; // 0x40..0x4f, or 0
export let dEncoding: u32 = 0;
export let dVexMap: u32 = 0;
export let dVexPP: u32 = 0;
export let dVexW: u32 = 0;
export let dVexL: u32 = 0;
export let dVexV: u32 = 0;
export let dMap: u32 = 0; // 0 one-byte, 1 0F, 2 0F38, 3 0F3A
export let dOpcode: u32 = 0;
export let dHasModrm: bool = false;
export let dModrm: u32 = 0;
export let dMod: u32 = 0;
export let dReg: u32 = 0; // ModRM.reg with REX.R
export let dRm: u32 = 0; // ModRM.rm with REX.B
export let dBase: i32 = -1; // base register of a memory operand, -1 none
export let dIndex: i32 = -1; // index register, -1 none
export let dScale: u32 = 0;
export let dRipRel: bool = false;
export let dDisp: i64 = 0;
export let dDispOffset: i32 = 0;
export let dDispSize: i32 = 0;
export let dImm: i64 = 0;
export let dImm2: i64 = 0;
export let dImmOffset: i32 = 0;
export let dImmSize: i32 = 0;
export let dOpSize: i32 = 4; // operation size in bytes (1, 2, 4, 8)
export let dAddr32: bool = false;
export let dForm: i32 = 0; // form id, 0 = no form in the table
export let dOpReg: u32 = 0; // register encoded in the opcode, with REX.B
export let dSeg: u32 = 0; // 0 none, 1 CS, 2 SS, 3 DS, 4 FS, 5 GS, 6 ES (only FS/GS add a base)

let buf: usize = 0;
let avail: i32 = 0;
let pos: i32 = 0;

// @ts-ignore: decorator
@inline function has(n: i32): bool { return pos + n <= avail; }

/**
 * Decodes one instruction from `src` (at most `available` bytes readable).
 * Returns its length, or DECODE_TRUNCATED / DECODE_TOO_LONG.
 */
export function decodeInstruction(src: usize, available: i32): i32 {
  buf = src;
  avail = available < 15 ? available : 15;
  pos = 0;
  dPrefixes = 0;
  dRex = 0;
  dEncoding = ENC_LEGACY;
  dVexW = 0; dVexL = 0; dVexV = 0; dVexPP = 0; dVexMap = 0;
  dHasModrm = false; dModrm = 0; dMod = 0; dReg = 0; dRm = 0;
  dBase = -1; dIndex = -1; dScale = 0; dRipRel = false;
  dDisp = 0; dDispOffset = 0; dDispSize = 0;
  dImm = 0; dImm2 = 0; dImmOffset = 0; dImmSize = 0;
  dAddr32 = false; dForm = 0; dSeg = 0;
  let lastRep: u32 = 0;
  // legacy prefixes and REX (a REX followed by another prefix is ignored)
  while (true) {
    if (!has(1)) return pos >= 15 ? DECODE_TOO_LONG : DECODE_TRUNCATED;
    const b = <u32>load<u8>(buf + pos);
    if (b == 0x66) dPrefixes |= PFX_66;
    else if (b == 0x67) dPrefixes |= PFX_67;
    else if (b == 0xf2) { dPrefixes |= PFX_F2; lastRep = PFX_F2; }
    else if (b == 0xf3) { dPrefixes |= PFX_F3; lastRep = PFX_F3; }
    else if (b == 0xf0) dPrefixes |= PFX_LOCK;
    else if (b == 0x64) { dPrefixes |= PFX_FS; dSeg = 4; }
    else if (b == 0x65) { dPrefixes |= PFX_GS; dSeg = 5; }
    // ES/CS/SS/DS overrides have no effect in 64-bit mode; kept for the disassembler
    else if (b == 0x2e) dSeg = 1;
    else if (b == 0x36) dSeg = 2;
    else if (b == 0x3e) dSeg = 3;
    else if (b == 0x26) dSeg = 6;
    else if ((b & 0xf0) == 0x40) { dRex = b; pos++; continue; }
    else break;
    dRex = 0;
    pos++;
  }
  // only the last of F2/F3 counts as the mandatory/rep prefix
  if (lastRep == PFX_F2) dPrefixes &= ~PFX_F3;
  else if (lastRep == PFX_F3) dPrefixes &= ~PFX_F2;
  dAddr32 = (dPrefixes & PFX_67) != 0;
  let b = <u32>load<u8>(buf + pos++);
  let map: u32 = 0;
  let layout: u32 = 0xffffffff; // set for VEX-family: 1 = ModRM, imm kind in bits 1-3
  if (b == 0x0f) {
    if (!has(1)) return DECODE_TRUNCATED;
    b = <u32>load<u8>(buf + pos++);
    map = 1;
    if (b == 0x38 || b == 0x3a) {
      if (!has(1)) return DECODE_TRUNCATED;
      map = b == 0x38 ? 2 : 3;
      b = <u32>load<u8>(buf + pos++);
    }
  } else if (b == 0xc5 || b == 0xc4 || b == 0x62 || (b == 0x8f && has(1) && ((<u32>load<u8>(buf + pos) >> 3) & 7) != 0)) {
    const kind = b;
    if (!has(kind == 0xc5 ? 2 : kind == 0x62 ? 4 : 3)) return DECODE_TRUNCATED;
    const p0 = <u32>load<u8>(buf + pos);
    let rexBits: u32 = 0;
    if (kind == 0xc5) {
      dEncoding = ENC_VEX;
      rexBits = ((p0 >> 7) ^ 1) << 2; // R
      dVexV = (~p0 >> 3) & 15; dVexL = (p0 >> 2) & 1; dVexPP = p0 & 3; dVexMap = 1;
      pos += 1;
    } else if (kind == 0x62) {
      dEncoding = ENC_EVEX;
      const p1 = <u32>load<u8>(buf + pos + 1);
      const p2 = <u32>load<u8>(buf + pos + 2);
      rexBits = ((~p0 >> 5) & 7) | (((p1 >> 7) & 1) << 3);
      dVexMap = p0 & 7; dVexW = p1 >> 7; dVexV = (~p1 >> 3) & 15; dVexPP = p1 & 3; dVexL = (p2 >> 5) & 3;
      pos += 3;
    } else {
      dEncoding = kind == 0xc4 ? ENC_VEX : ENC_XOP;
      const p1 = <u32>load<u8>(buf + pos + 1);
      rexBits = (~p0 >> 5) & 7; dVexMap = p0 & 31;
      dVexW = p1 >> 7; dVexV = (~p1 >> 3) & 15; dVexL = (p1 >> 2) & 1; dVexPP = p1 & 3;
      rexBits |= dVexW << 3;
      pos += 2;
    }
    // REX-equivalent bits: W R X B
    dRex = 0x40 | (rexBits & 8) | ((rexBits >> 2) & 1) << 2 | ((rexBits >> 1) & 1) << 1 | (rexBits & 1);
    if (dEncoding == ENC_VEX || dEncoding == ENC_EVEX) dRex = (dRex & ~8) | (dVexW << 3);
    if (!has(1)) return DECODE_TRUNCATED;
    b = <u32>load<u8>(buf + pos++);
    if (dEncoding == ENC_XOP) {
      layout = 1 | ((dVexMap == 8 ? IMM_B : dVexMap == 10 ? IMM_D : IMM_NONE) << 1);
      map = 0xff;
    } else {
      map = dVexMap == 1 ? 1 : dVexMap == 2 ? 2 : dVexMap == 3 ? 3 : 0xff;
      let imm = IMM_NONE;
      if (map == 3) imm = IMM_B;
      else if (map == 1) {
        const l = <u32>load<u8>(OPCODE_INDEX + ((256 + b) << 2) + 3);
        imm = (l >> 1) & 7;
      }
      layout = (dEncoding == ENC_VEX && map == 1 && b == 0x77 ? 0 : 1) | (imm << 1);
    }
  }
  dMap = map;
  dOpcode = b;
  dOpReg = (b & 7) | ((dRex & 1) << 3);

  // operand size before form flags: REX.W, then 66
  const rexW = (dRex & 8) != 0;
  let opSize: i32 = rexW ? 8 : (dPrefixes & PFX_66) != 0 ? 2 : 4;

  let hasModrm: bool;
  let immKind: u32;
  let formFlags: u32 = 0;
  if (layout != 0xffffffff) {
    hasModrm = (layout & 1) != 0;
    immKind = (layout >> 1) & 7;
  } else {
    const ix = OPCODE_INDEX + ((map * 256 + b) << 2);
    const first = <i32>load<u16>(ix);
    const count = <i32>load<u8>(ix + 2);
    const l = <u32>load<u8>(ix + 3);
    hasModrm = (l & 1) != 0;
    immKind = (l >> 1) & 7;
    if (hasModrm && !has(1)) return DECODE_TRUNCATED;
    const modrm: u32 = hasModrm ? <u32>load<u8>(buf + pos) : 0;
    const mandatory: u32 = (dPrefixes & PFX_F3) != 0 ? 3 : (dPrefixes & PFX_F2) != 0 ? 4 : (dPrefixes & PFX_66) != 0 ? 2 : 1;
    for (let i = 0; i < count; i++) {
      const f = FORMS + ((first + i) << 3);
      const pfx = <u32>load<u8>(f);
      if (pfx != 0 && pfx != mandatory) continue;
      const reg = <u32>load<u8>(f + 1);
      if (reg != 0xff && reg != ((modrm >> 3) & 7)) continue;
      const mod = <u32>load<u8>(f + 2);
      if (mod == 1 && (modrm >> 6) == 3) continue;
      if (mod == 2 && (modrm >> 6) != 3) continue;
      const rm = <u32>load<u8>(f + 3);
      if (rm != 0xff && rm != (modrm & 7)) continue;
      const sz = <u32>load<u8>(f + 4);
      if (sz != 0) {
        if (sz == 1 && rexW) continue;
        if (sz == 2 && !rexW) continue;
        const eff: i32 = rexW ? 8 : (dPrefixes & PFX_66) != 0 ? 2 : 4;
        if (sz == 3 && eff != 2) continue;
        if (sz == 4 && eff != 4) continue;
        if (sz == 5 && eff != 8) continue;
        if (sz == 6 && (dRex & 1) == 0) continue;
      }
      dForm = first + i;
      immKind = <u32>load<u8>(f + 5);
      formFlags = <u32>load<u8>(f + 6);
      hasModrm = (formFlags & 1) != 0;
      break;
    }
  }
  if ((formFlags & 2) != 0 && !rexW) opSize = (dPrefixes & PFX_66) != 0 ? 2 : 8;
  if ((formFlags & 4) != 0) opSize = 1;
  dOpSize = opSize;

  if (hasModrm) {
    if (!has(1)) return DECODE_TRUNCATED;
    const m = <u32>load<u8>(buf + pos++);
    dHasModrm = true;
    dModrm = m;
    dMod = m >> 6;
    dReg = ((m >> 3) & 7) | ((dRex & 4) << 1);
    dRm = (m & 7) | ((dRex & 1) << 3);
    if (dMod != 3) {
      const rm = m & 7;
      if (rm == 4) {
        if (!has(1)) return DECODE_TRUNCATED;
        const sib = <u32>load<u8>(buf + pos++);
        dScale = sib >> 6;
        const idx = ((sib >> 3) & 7) | ((dRex & 2) << 2);
        dIndex = idx == 4 ? -1 : <i32>idx;
        const base = sib & 7;
        if (base == 5 && dMod == 0) { dBase = -1; dDispSize = 4; }
        else dBase = <i32>(base | ((dRex & 1) << 3));
      } else if (rm == 5 && dMod == 0) {
        dRipRel = true;
        dDispSize = 4;
      } else {
        dBase = <i32>dRm;
      }
      if (dMod == 1) dDispSize = 1;
      else if (dMod == 2) dDispSize = 4;
      if (dDispSize != 0) {
        if (!has(dDispSize)) return DECODE_TRUNCATED;
        dDispOffset = pos;
        dDisp = dDispSize == 1 ? <i64>load<i8>(buf + pos) : <i64>load<i32>(buf + pos);
        pos += dDispSize;
      }
    }
  }
  // immediates
  let n: i32 = 0;
  if (immKind == IMM_B) n = 1;
  else if (immKind == IMM_W) n = 2;
  else if (immKind == IMM_Z) n = opSize == 2 ? 2 : 4;
  else if (immKind == IMM_V) n = opSize == 8 ? 8 : opSize == 2 ? 2 : 4;
  else if (immKind == IMM_ENTER) n = 3;
  else if (immKind == IMM_MOFFS) n = dAddr32 ? 4 : 8;
  else if (immKind == IMM_D) n = 4;
  if (n != 0) {
    if (!has(n)) return pos + n > 15 ? DECODE_TOO_LONG : DECODE_TRUNCATED;
    dImmOffset = pos;
    dImmSize = n;
    const p = buf + pos;
    if (immKind == IMM_ENTER) { dImm = <i64>load<u16>(p); dImm2 = <i64>load<u8>(p + 2); }
    else if (n == 1) dImm = <i64>load<i8>(p);
    else if (n == 2) dImm = immKind == IMM_W ? <i64>load<u16>(p) : <i64>load<i16>(p);
    else if (n == 4) dImm = immKind == IMM_MOFFS ? <i64>load<u32>(p) : <i64>load<i32>(p);
    else dImm = load<i64>(p);
    pos += n;
  }
  dLength = pos;
  return pos;
}

// ---- host-facing record -----------------------------------------------------
// DECODE_RECORD layout (all little-endian):
//   0 i32 length   4 i32 form     8 u32 prefixes  12 u32 rex
//  16 u32 encoding 20 u32 map    24 u32 opcode    28 u32 modrm (0x100 = present)
//  32 i32 base     36 i32 index  40 u32 scale     44 u32 ripRel
//  48 i64 disp     56 i32 dispOffset 60 i32 dispSize
//  64 i64 imm      72 i64 imm2   80 i32 immOffset 84 i32 immSize
//  88 i32 opSize   92 u32 addr32 96 u32 reg      100 u32 rm
// 104 u32 vexMap  108 u32 vexPP  112 u32 vexW    116 u32 vexL   120 u32 vexV
// 124 u32 opReg   128 u32 seg
export const DECODE_RECORD: usize = memory.data(160, 16);
export const DECODE_INPUT: usize = memory.data(16, 16);

export function writeDecodeRecord(): void {
  const r = DECODE_RECORD;
  store<i32>(r, dLength); store<i32>(r, dForm, 4); store<u32>(r, dPrefixes, 8); store<u32>(r, dRex, 12);
  store<u32>(r, dEncoding, 16); store<u32>(r, dMap, 20); store<u32>(r, dOpcode, 24);
  store<u32>(r, dHasModrm ? 0x100 | dModrm : 0, 28);
  store<i32>(r, dBase, 32); store<i32>(r, dIndex, 36); store<u32>(r, dScale, 40); store<u32>(r, dRipRel ? 1 : 0, 44);
  store<i64>(r, dDisp, 48); store<i32>(r, dDispOffset, 56); store<i32>(r, dDispSize, 60);
  store<i64>(r, dImm, 64); store<i64>(r, dImm2, 72); store<i32>(r, dImmOffset, 80); store<i32>(r, dImmSize, 84);
  store<i32>(r, dOpSize, 88); store<u32>(r, dAddr32 ? 1 : 0, 92); store<u32>(r, dReg, 96); store<u32>(r, dRm, 100);
  store<u32>(r, dVexMap, 104); store<u32>(r, dVexPP, 108); store<u32>(r, dVexW, 112); store<u32>(r, dVexL, 116); store<u32>(r, dVexV, 120);
  store<u32>(r, dOpReg, 124); store<u32>(r, dSeg, 128);
}

// ---- decoded-instruction cache records ---------------------------------------------
// A 64-byte record holds everything the handlers read; they read it in place
// through assembly/insn.ts, so a cached instruction runs without decoding or
// copying again (see assembly/code-cache.ts).
//   0 u64 tag  8 u32 generation  12 u16 form  14 u8 length  15 u8 opcode
//  16 u8 map  17 u8 opSize  18 u8 reg  19 u8 rm  20 u8 mod  21 u8 modrm  22 u8 rex
//  23 u8 bits (1 ripRel, 2 addr32, 4 hasModrm)  24 i8 base  25 i8 index  26 u8 scale
//  27 u8 seg  28 u8 opReg  29 u8 prefixes  30 u8 specialised handler (run.ts)
//  32 i64 imm  40 i64 imm2  48 i64 disp
export function saveDecoded(e: usize): void {
  store<u16>(e, <u16>dForm, 12); store<u8>(e, <u8>dLength, 14); store<u8>(e, <u8>dOpcode, 15);
  store<u8>(e, <u8>dMap, 16); store<u8>(e, <u8>dOpSize, 17); store<u8>(e, <u8>dReg, 18); store<u8>(e, <u8>dRm, 19);
  store<u8>(e, <u8>dMod, 20); store<u8>(e, <u8>dModrm, 21); store<u8>(e, <u8>dRex, 22);
  store<u8>(e, <u8>((dRipRel ? 1 : 0) | (dAddr32 ? 2 : 0) | (dHasModrm ? 4 : 0)), 23);
  store<i8>(e, <i8>dBase, 24); store<i8>(e, <i8>dIndex, 25); store<u8>(e, <u8>dScale, 26);
  store<u8>(e, <u8>dSeg, 27); store<u8>(e, <u8>dOpReg, 28); store<u8>(e, <u8>dPrefixes, 29);
  store<i64>(e, dImm, 32); store<i64>(e, dImm2, 40); store<i64>(e, dDisp, 48);
}
