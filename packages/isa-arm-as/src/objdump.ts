// ARM code in llvm-objdump -d's line layout, following ARM mapping
// symbols ($a A32, $t T32, $d data): what `wdtrace dis` prints for a file
// and what the live kernel text shows, in one place.
import { describeA32 } from './describe.js';
import { walkT32 } from './disassemble.js';
import type { ArmInstruction } from './arm-syntax.js';

/** Where the code changes kind, in address order: 'a' A32, 't' T32, 'd' data. */
export type ArmMapping = readonly { readonly address: bigint; readonly kind: string }[];

/** Width of a tab-expanded prefix, as llvm-objdump's column counting sees it. */
export function columnOf(text: string): number {
  let col = 0;
  for (const ch of text) col = ch === '\t' ? (col + 8) & ~7 : col + 1;
  return col;
}

/** llvm-objdump's line prefix: address, the bytes (padded to four), a tab. */
function linePrefix(address: bigint, bytes: Uint8Array): string {
  const hexBytes = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return `${address.toString(16).padStart(8, ' ')}: ${hexBytes.padEnd(11, ' ')}  \t`;
}

/** A line with llvm-objdump's comment, aligned 32 columns after the instruction's start. */
function withComment(prefix: string, text: string, comment: string | undefined): string {
  const line = prefix + text;
  return comment ? line + ' '.repeat(Math.max(1, columnOf(prefix) + 32 - columnOf(line))) + comment : line;
}

/** The text of an A32 or T32 instruction with llvm-objdump's branch-target symbol and comment. */
function annotated(insn: ArmInstruction, pcOffset: number, symbolize: (address: bigint) => string | undefined): { text: string; comment?: string } {
  let text = insn.text;
  if (insn.target !== undefined && insn.classes.has('branch')) {
    const sym = symbolize(BigInt(insn.target));
    if (sym) text += ` <${sym}>`;
    // BLX (immediate) from Thumb counts from Align(PC, 4); the offset is a
    // signed 32-bit value whatever half of the address space the code is in.
    const base = insn.mnemonic === 'blx' && pcOffset === 4 ? (insn.address + 4) & ~3 : insn.address + pcOffset;
    return { text, comment: `@ imm = #${(insn.target - base) | 0}` };
  }
  if (insn.literalAddress !== undefined) {
    const sym = symbolize(BigInt(insn.literalAddress));
    return { text, comment: `@ 0x${insn.literalAddress.toString(16)}${sym ? ` <${sym}>` : ''}` };
  }
  return { text };
}

/**
 * ARM lines in llvm-objdump's layout, following the mapping: A32 words,
 * T32 instructions (16 or 32 bits, IT blocks tracked from each Thumb run's
 * start), data as .word (.short, .byte for a tail); branch targets get
 * `<symbol+offset>` and an `@ imm = #N` comment, literal loads an
 * `@ address <symbol+offset>` comment.
 */
export function armObjdumpLines(code: Uint8Array, start: bigint, mapping: ArmMapping, symbolize: (address: bigint) => string | undefined): string[] {
  const view = new DataView(code.buffer, code.byteOffset, code.byteLength);
  const lines: string[] = [];
  const end = start + BigInt(code.length);
  const kindAt = (address: bigint): string => {
    let kind = 'a';
    for (const m of mapping) {
      if (m.address <= address) kind = m.kind;
      else break;
    }
    return kind;
  };
  const nextChange = (address: bigint): bigint => mapping.find((m) => m.address > address)?.address ?? end;
  for (let address = start; address < end; ) {
    const kind = kindAt(address);
    const stop = nextChange(address) < end ? nextChange(address) : end;
    const off = Number(address - start);
    const length = Number(stop - address);
    if (kind === 't') {
      for (const l of walkT32(code.subarray(off, off + length), Number(address))) {
        const at = BigInt(l.address);
        const { text, comment } = annotated(l.insn, 4, symbolize);
        lines.push(withComment(linePrefix(at, code.subarray(Number(at - start), Number(at - start) + l.size)), text, comment));
      }
    } else {
      for (let o = off; o < off + length; ) {
        const at = start + BigInt(o);
        const left = off + length - o;
        if (kind !== 'd' && left < 4) break; // a partial A32 word is not shown
        if (kind === 'd') {
          const size = left >= 4 ? 4 : left >= 2 ? 2 : 1;
          const bytes = code.subarray(o, o + size);
          const value = size === 4 ? view.getUint32(o, true) : size === 2 ? view.getUint16(o, true) : bytes[0]!;
          const directive = size === 4 ? '.word' : size === 2 ? '.short' : '.byte';
          // A data line's bytes are followed by a tab, and one more when they end short of the next stop.
          const shown = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
          lines.push(`${at.toString(16).padStart(8, ' ')}:\t${shown}\t${shown.length < 8 ? '\t' : ''}${directive}\t0x${value.toString(16).padStart(size * 2, '0')}`);
          o += size;
          continue;
        }
        const word = view.getUint32(o, true);
        const { text, comment } = annotated(describeA32(word, Number(at)), 8, symbolize);
        lines.push(withComment(linePrefix(at, code.subarray(o, o + 4)), text, comment));
        o += 4;
      }
    }
    address = stop;
  }
  return lines;
}
