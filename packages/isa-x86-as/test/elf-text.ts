// Test helper: a tiny ELF64 reader that returns the executable sections of a
// file (name, address, bytes), so the decoder can walk real system binaries.
import { readFileSync } from 'node:fs';

export interface TextSection { name: string; address: bigint; bytes: Uint8Array }

export function readExecutableSections(path: string): TextSection[] {
  const file = readFileSync(path);
  const v = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (v.getUint32(0, false) !== 0x7f454c46) throw new Error(`${path}: not an ELF file`);
  if (file[4] !== 2 || file[5] !== 1) throw new Error(`${path}: not a little-endian ELF64 file`);
  const shoff = Number(v.getBigUint64(0x28, true));
  const shentsize = v.getUint16(0x3a, true);
  const shnum = v.getUint16(0x3c, true);
  const shstrndx = v.getUint16(0x3e, true);
  const sh = (i: number) => shoff + i * shentsize;
  const strOff = Number(v.getBigUint64(sh(shstrndx) + 0x18, true));
  const name = (o: number) => { let e = strOff + o; while (file[e]) e++; return file.subarray(strOff + o, e).toString('latin1'); };
  const out: TextSection[] = [];
  for (let i = 0; i < shnum; i++) {
    const b = sh(i);
    const type = v.getUint32(b + 4, true);
    const flags = v.getBigUint64(b + 8, true);
    if (type !== 1 || (flags & 4n) === 0n) continue; // PROGBITS + SHF_EXECINSTR
    const off = Number(v.getBigUint64(b + 0x18, true));
    const size = Number(v.getBigUint64(b + 0x20, true));
    out.push({ name: name(v.getUint32(b, true)), address: v.getBigUint64(b + 0x10, true), bytes: new Uint8Array(file.subarray(off, off + size)) });
  }
  return out;
}
