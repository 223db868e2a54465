// ARM disassembler over raw bytes and ELF32 ARM files, in llvm-objdump -d's
// shape: for every function symbol, its instructions with address, word and
// UAL text. Code is A32 or T32 as the $a/$t mapping symbols say (without
// them, a function symbol with bit 0 set is Thumb code); literal pools
// marked by $d print as .word, as llvm-objdump does.
import { describeA32 } from './describe.js';
import { describeT32, isT32Wide, itStateAfter } from './describe-t32.js';
import type { ArmInstruction } from './arm-syntax.js';

/** One line of disassembly. */
export interface DisassemblyLine {
  readonly address: number;
  readonly word: number;
  /** 'mnemonic\toperands', '.word\t0x...' for data, or '<unknown>'. */
  readonly text: string;
  /** Bytes the line covers: 4 for A32 and data, 2 or 4 for T32. */
  readonly size?: number;
  /** Function symbol the address belongs to, if any. */
  readonly symbol?: string;
}

/** One T32 instruction of a stream: where it is, its size and what it is. */
export interface ThumbLine {
  readonly address: number;
  /** 2 or 4 bytes. */
  readonly size: number;
  readonly insn: ArmInstruction;
}

/**
 * Walks T32 code as llvm-objdump does: a 32-bit instruction takes 4 bytes,
 * anything undecodable (or a first halfword at the end) 2, and the IT state
 * an IT instruction sets applies to the instructions after it.
 */
export function walkT32(bytes: Uint8Array, address = 0): ThumbLine[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: ThumbLine[] = [];
  let it = 0;
  for (let at = 0; at + 2 <= bytes.length; ) {
    const first = view.getUint16(at, true);
    const wide = isT32Wide(first) && at + 4 <= bytes.length;
    const value = wide ? ((first << 16) | view.getUint16(at + 2, true)) >>> 0 : first;
    const insn = describeT32(value, address + at, it);
    const size = wide && insn.mnemonic !== '<unknown>' ? 4 : 2;
    out.push({ address: (address + at) >>> 0, size, insn });
    it = insn.mnemonic === '<unknown>' ? 0 : itStateAfter(insn, it);
    at += size;
  }
  return out;
}

/** Disassembles T32 code starting at `address` (`word` is the halfword or first << 16 | second). */
export function disassembleT32(bytes: Uint8Array, address = 0): DisassemblyLine[] {
  return walkT32(bytes, address).map((l) => ({ address: l.address, word: l.insn.word, size: l.size, text: l.insn.text }));
}

/** Disassembles little-endian A32 words starting at `address`. */
export function disassembleA32(bytes: Uint8Array, address = 0): DisassemblyLine[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: DisassemblyLine[] = [];
  for (let at = 0; at + 4 <= bytes.length; at += 4) {
    const word = view.getUint32(at, true);
    out.push({ address: (address + at) >>> 0, word, text: describeA32(word, address + at).text });
  }
  return out;
}

interface Section { name: string; type: number; flags: number; addr: number; offset: number; size: number; link: number; entsize: number }
interface ElfSymbol { name: string; value: number; size: number; type: number; shndx: number }

function fail(what: string): never {
  throw new Error(`ELF: ${what}`);
}

function readSections(bytes: Uint8Array, view: DataView): Section[] {
  if (bytes.length < 52 || bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[2] !== 0x4c || bytes[3] !== 0x46) fail('not an ELF file (bad magic at offset 0)');
  if (bytes[4] !== 1) fail(`not ELF32 (class ${bytes[4]} at offset 4)`);
  if (bytes[5] !== 1) fail('not little-endian (EI_DATA at offset 5)');
  const machine = view.getUint16(18, true);
  if (machine !== 40) fail(`not an ARM file (e_machine ${machine} at offset 18, expected 40)`);
  const shoff = view.getUint32(32, true);
  const shentsize = view.getUint16(46, true);
  const shnum = view.getUint16(48, true);
  const shstrndx = view.getUint16(50, true);
  if (shentsize < 40 || shoff + shnum * shentsize > bytes.length) fail(`section header table at 0x${shoff.toString(16)} runs past the end of the file`);
  const raw = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    raw.push({
      nameOff: view.getUint32(o, true), type: view.getUint32(o + 4, true), flags: view.getUint32(o + 8, true), addr: view.getUint32(o + 12, true),
      offset: view.getUint32(o + 16, true), size: view.getUint32(o + 20, true), link: view.getUint32(o + 24, true), entsize: view.getUint32(o + 36, true),
    });
  }
  const strtab = raw[shstrndx];
  return raw.map((s, i) => {
    if (s.type !== 8 && s.offset + s.size > bytes.length) fail(`section ${i} [0x${s.offset.toString(16)}, +${s.size}) runs past the end of the file`);
    return { ...s, name: strtab ? cString(bytes, strtab.offset + s.nameOff) : '' };
  });
}

function cString(bytes: Uint8Array, at: number): string {
  let end = at;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(at, end));
}

function readSymbols(bytes: Uint8Array, view: DataView, sections: Section[]): ElfSymbol[] {
  const symtab = sections.find((s) => s.type === 2);
  if (!symtab) return [];
  const strtab = sections[symtab.link];
  if (!strtab) fail(`.symtab links to missing string table ${symtab.link}`);
  const out: ElfSymbol[] = [];
  for (let o = symtab.offset; o + 16 <= symtab.offset + symtab.size; o += 16) {
    out.push({
      name: cString(bytes, strtab.offset + view.getUint32(o, true)),
      value: view.getUint32(o + 4, true),
      size: view.getUint32(o + 8, true),
      type: bytes[o + 12]! & 0xf,
      shndx: view.getUint16(o + 14, true),
    });
  }
  return out;
}

/**
 * Disassembles the executable sections of an ELF32 ARM file (or only the
 * function `symbol`). Throws an Error naming the problem for malformed input
 * or an unknown symbol.
 */
export function disassembleElf(bytes: Uint8Array, symbol?: string): DisassemblyLine[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sections = readSections(bytes, view);
  const symbols = readSymbols(bytes, view, sections);
  const out: DisassemblyLine[] = [];
  sections.forEach((sec, index) => {
    if (sec.type !== 1 || (sec.flags & 4) === 0) return; // PROGBITS + EXECINSTR
    const inSection = symbols.filter((s) => s.shndx === index);
    const mapping = inSection.filter((s) => /^\$[adt](\.|$)/.test(s.name)).sort((a, b) => a.value - b.value);
    const functions = inSection.filter((s) => s.type === 2).sort((a, b) => (a.value & ~1) - (b.value & ~1));
    // Objects are section-relative; executables use absolute addresses.
    const base = sec.addr;
    const rel = (v: number) => (v >= base && v < base + sec.size ? v - base : v);
    const kindAt = (off: number): string => {
      let kind = 'a';
      for (const m of mapping) if (rel(m.value) <= off) kind = m.name[1]!; else break;
      return kind;
    };
    // A Thumb function's symbol has bit 0 set; without mapping symbols that marks its code as T32.
    const start = (f: ElfSymbol): number => rel(f.value & ~1);
    const owner = (off: number): ElfSymbol | undefined => functions.filter((f) => start(f) <= off && off < start(f) + Math.max(f.size, 2)).pop();
    const thumbAt = (off: number): boolean => (mapping.length ? kindAt(off) === 't' : (owner(off)?.value ?? 0) % 2 === 1);
    for (let off = 0; off + 2 <= sec.size; ) {
      const fn = owner(off);
      const wanted = symbol === undefined || fn?.name === symbol;
      const kind = mapping.length ? kindAt(off) : thumbAt(off) ? 't' : 'a';
      const address = (base + off) >>> 0;
      if (kind === 't') {
        // One Thumb run: up to the next change of mapping or function.
        let end = off + 2;
        while (end + 2 <= sec.size && thumbAt(end) && owner(end) === fn) end += 2;
        for (const l of walkT32(bytes.subarray(sec.offset + off, sec.offset + end), address)) {
          if (wanted) out.push({ address: l.address, word: l.insn.word, size: l.size, text: l.insn.text, ...(fn ? { symbol: fn.name } : {}) });
        }
        off = end;
        continue;
      }
      if (off + 4 > sec.size) break;
      const word = view.getUint32(sec.offset + off, true);
      const text = kind === 'd' ? `.word\t0x${word.toString(16).padStart(8, '0')}` : describeA32(word, address).text;
      if (wanted) out.push({ address, word, size: 4, text, ...(fn ? { symbol: fn.name } : {}) });
      off += 4;
    }
  });
  if (symbol !== undefined && out.length === 0) fail(`no function symbol '${symbol}' in an executable section`);
  return out;
}
