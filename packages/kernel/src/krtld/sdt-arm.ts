// SDT sites on ARM: an A32 `bl` to an SDT symbol becomes a nop, a tail `b`
// a `bx lr` with the branch's condition; Thumb `bl`/`b.w` likewise with T32
// encodings (R_ARM_THM_CALL / R_ARM_THM_JUMP24 relocations).
import type { PatchedSdtSite } from './sdt-patch.js';

/** ARM nop (0xe320f000) over `bl`. */
export const ARM_SDT_NOP = 0xe320f000;
/** ARM `bx lr` (condition bits taken from the replaced branch) over a tail `b`. */
export const ARM_BX_LR = 0x012fff1e;
/** T32 `nop.w` (halfwords f3af 8000) over a Thumb `bl`. */
export const THUMB_SDT_NOP = Uint8Array.of(0xaf, 0xf3, 0x00, 0x80);
/** T32 `bx lr` then `nop` (halfwords 4770 bf00) over a Thumb tail `b.w`. */
export const THUMB_SDT_BX_LR = Uint8Array.of(0x70, 0x47, 0x00, 0xbf);
/** The relocation types of the Thumb `bl` and `b.w` (R_ARM_THM_CALL, R_ARM_THM_JUMP24). */
export const R_ARM_THM_CALL = 10;
export const R_ARM_THM_JUMP24 = 30;

/** Patches the ARM site whose branch relocation (of type `relocType`) is at `relocAt`. */
export function patchArmSdtSite(code: Uint8Array, codeAddress: bigint, relocAt: bigint, symbol: string, relocType?: number): PatchedSdtSite {
  if (relocType === R_ARM_THM_CALL || relocType === R_ARM_THM_JUMP24) return patchThumbSdtSite(code, codeAddress, relocAt, symbol);
  const off = Number(relocAt - codeAddress);
  if (off < 0 || off + 4 > code.length || off % 4 !== 0) throw new Error(`SDT call to ${symbol} at 0x${relocAt.toString(16)} lies outside its section or is misaligned`);
  const dv = new DataView(code.buffer, code.byteOffset, code.byteLength);
  const insn = dv.getUint32(off, true);
  const original = code.slice(off, off + 4);
  const cond = insn >>> 28;
  const isBranch = ((insn >>> 25) & 7) === 5 && cond !== 0xf;
  if (!isBranch) throw new Error(`reference to ${symbol} at 0x${relocAt.toString(16)} is not a branch (0x${insn.toString(16).padStart(8, '0')})`);
  const link = (insn >>> 24) & 1;
  const word = link ? ARM_SDT_NOP : ((cond << 28) | ARM_BX_LR) >>> 0;
  dv.setUint32(off, word, true);
  return { address: relocAt, patch: code.slice(off, off + 4), original, tailCall: !link };
}

/**
 * A Thumb site: `bl` (T1) becomes `nop.w`, a tail `b.w` (T4) `bx lr; nop`.
 * A tail `b.w` can only be the last instruction of an IT block, whose
 * condition then applies to the `bx lr` in its place.
 */
function patchThumbSdtSite(code: Uint8Array, codeAddress: bigint, at: bigint, symbol: string): PatchedSdtSite {
  const off = Number(at - codeAddress);
  if (off < 0 || off + 4 > code.length || off % 2 !== 0) throw new Error(`SDT call to ${symbol} at 0x${at.toString(16)} lies outside its section or is misaligned`);
  const hw0 = code[off]! | (code[off + 1]! << 8);
  const hw1 = code[off + 2]! | (code[off + 3]! << 8);
  const original = code.slice(off, off + 4);
  const hex = `${hw0.toString(16).padStart(4, '0')} ${hw1.toString(16).padStart(4, '0')}`;
  if ((hw0 & 0xf800) !== 0xf000) throw new Error(`reference to ${symbol} at 0x${at.toString(16)} is not a Thumb branch (${hex})`);
  const link = (hw1 & 0xd000) === 0xd000 || (hw1 & 0xd000) === 0xc000;
  const tail = (hw1 & 0xd000) === 0x9000;
  if (!link && !tail) throw new Error(`reference to ${symbol} at 0x${at.toString(16)} is not a Thumb bl or b.w (${hex})`);
  const patch = link ? THUMB_SDT_NOP : THUMB_SDT_BX_LR;
  code.set(patch, off);
  return { address: at, patch: patch.slice(), original, tailCall: tail };
}

