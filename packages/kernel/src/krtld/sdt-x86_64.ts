// SDT sites on x86-64: a `call` to an SDT symbol becomes a 5-byte nop, a
// tail `jmp` a `ret` and a 4-byte nop.
import type { PatchedSdtSite } from './sdt-patch.js';

/** x86-64 5-byte nop (0f 1f 44 00 00) over `call rel32`. */
export const X86_SDT_NOP = Uint8Array.of(0x0f, 0x1f, 0x44, 0x00, 0x00);
/** x86-64 `ret` followed by a 4-byte nop, over a tail `jmp rel32`. */
export const X86_SDT_RET = Uint8Array.of(0xc3, 0x0f, 0x1f, 0x40, 0x00);

/** Patches the x86-64 site whose `call`/`jmp rel32` relocation is at `relocAt` (the instruction starts one byte earlier). */
export function patchX86SdtSite(code: Uint8Array, codeAddress: bigint, relocAt: bigint, symbol: string): PatchedSdtSite {
  const insn = relocAt - 1n;
  const off = Number(insn - codeAddress);
  if (off < 0 || off + 5 > code.length) throw new Error(`SDT call to ${symbol} at 0x${insn.toString(16)} lies outside its section`);
  const op = code[off];
  if (op !== 0xe8 && op !== 0xe9) {
    throw new Error(`reference to ${symbol} at 0x${insn.toString(16)} is not a call (opcode 0x${(op ?? 0).toString(16)})`);
  }
  const original = code.slice(off, off + 5);
  const patch = op === 0xe8 ? X86_SDT_NOP : X86_SDT_RET;
  code.set(patch, off);
  return { address: insn, patch, original, tailCall: op === 0xe9 };
}
