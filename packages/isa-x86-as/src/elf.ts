// Minimal ELF64 little-endian reader for the disassembler: executable
// sections and function symbols of an x86-64 file given as bytes (no file
// I/O here; the CLI reads the file). Malformed input gets an ElfError that
// names the problem and the offset.

export class ElfError extends Error {}

export interface ElfSection { name: string; address: bigint; offset: number; bytes: Uint8Array }
export interface ElfSymbol { name: string; address: bigint; size: bigint; section: string }

export interface ElfCode { sections: ElfSection[]; symbols: ElfSymbol[] }

const SHT_PROGBITS = 1;
const SHT_SYMTAB = 2;
const SHT_DYNSYM = 11;
const SHF_EXECINSTR = 4n;
const EM_X86_64 = 62;

/** Reads the executable sections and the symbols that lie in them. */
export function readElfCode(file: Uint8Array): ElfCode {
  if (file.length < 64) throw new ElfError(`not an ELF file: only ${file.length} bytes`);
  if (file[0] !== 0x7f || file[1] !== 0x45 || file[2] !== 0x4c || file[3] !== 0x46) throw new ElfError('not an ELF file: bad magic at offset 0');
  if (file[4] !== 2) throw new ElfError(`not an ELF64 file: class ${file[4]} at offset 4`);
  if (file[5] !== 1) throw new ElfError(`not a little-endian ELF file: data ${file[5]} at offset 5`);
  const v = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const machine = v.getUint16(18, true);
  if (machine !== EM_X86_64) throw new ElfError(`not an x86-64 ELF file: e_machine ${machine} at offset 18`);
  const shoff = Number(v.getBigUint64(0x28, true));
  const shentsize = v.getUint16(0x3a, true);
  const shnum = v.getUint16(0x3c, true);
  const shstrndx = v.getUint16(0x3e, true);
  if (shnum === 0) return { sections: [], symbols: [] };
  if (shentsize < 64 || shoff + shnum * shentsize > file.length) throw new ElfError(`section header table (offset ${shoff}, ${shnum} entries) runs past the end of the file`);
  interface SectionHeader { nameOff: number; type: number; flags: bigint; addr: bigint; offset: number; size: number; link: number; entsize: number; at: number }
  const headers: SectionHeader[] = [];
  for (let i = 0; i < shnum; i++) {
    const b = shoff + i * shentsize;
    headers.push({
      nameOff: v.getUint32(b, true), type: v.getUint32(b + 4, true), flags: v.getBigUint64(b + 8, true),
      addr: v.getBigUint64(b + 0x10, true), offset: Number(v.getBigUint64(b + 0x18, true)), size: Number(v.getBigUint64(b + 0x20, true)),
      link: v.getUint32(b + 0x28, true), entsize: Number(v.getBigUint64(b + 0x38, true)), at: b,
    });
  }
  const strtab = (index: number, off: number): string => {
    const h = headers[index];
    if (!h) throw new ElfError(`string table index ${index} out of range`);
    let e = h.offset + off;
    if (e >= file.length) throw new ElfError(`string at offset ${e} past the end of the file`);
    const s = e;
    while (e < file.length && file[e] !== 0) e++;
    return new TextDecoder('latin1').decode(file.subarray(s, e));
  };
  const names = headers.map((h) => (shstrndx < shnum ? strtab(shstrndx, h.nameOff) : ''));
  const sections: ElfSection[] = [];
  headers.forEach((h, i) => {
    if (h.type !== SHT_PROGBITS || (h.flags & SHF_EXECINSTR) === 0n) return;
    if (h.offset + h.size > file.length) throw new ElfError(`section ${names[i]} (offset ${h.offset}, size ${h.size}) runs past the end of the file`);
    sections.push({ name: names[i]!, address: h.addr, offset: h.offset, bytes: file.subarray(h.offset, h.offset + h.size) });
  });
  const symbols: ElfSymbol[] = [];
  let symtab = headers.findIndex((h) => h.type === SHT_SYMTAB);
  if (symtab < 0) symtab = headers.findIndex((h) => h.type === SHT_DYNSYM);
  if (symtab >= 0) {
    const h = headers[symtab]!;
    const ent = h.entsize || 24;
    if (h.offset + h.size > file.length) throw new ElfError(`symbol table (offset ${h.offset}) runs past the end of the file`);
    for (let o = h.offset + ent; o + ent <= h.offset + h.size; o += ent) {
      const info = file[o + 4]!;
      const type = info & 15;
      const shndx = v.getUint16(o + 6, true);
      if ((type !== 2 && type !== 0) || shndx === 0 || shndx >= shnum) continue; // FUNC or NOTYPE, defined
      const sec = headers[shndx]!;
      if ((sec.flags & SHF_EXECINSTR) === 0n) continue;
      const name = strtab(h.link, v.getUint32(o, true));
      if (!name) continue;
      symbols.push({ name, address: v.getBigUint64(o + 8, true), size: v.getBigUint64(o + 16, true), section: names[shndx]! });
    }
  }
  return { sections, symbols };
}
