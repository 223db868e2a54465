// ELF reader: parses little-endian ELF32 and ELF64 files (headers, program
// headers, sections, symbol and string tables, REL/RELA relocations, notes)
// for the two machines the project emulates, x86-64 and ARM. Input is a plain
// Uint8Array; every malformed input raises ElfError naming the problem and
// the file offset, never a host exception.
//
// Addresses, offsets into the address space, symbol values and addends are
// BigInt so 64-bit kernel addresses (0xffffffff8...) stay exact; file offsets
// and sizes that index the byte array are plain numbers.

/** The only error the reader throws for bad input. */
export class ElfError extends Error {
  /** File offset the problem was found at, when there is one. */
  readonly offset: number | undefined;
  constructor(message: string, offset?: number) {
    super(offset === undefined ? message : `${message} at offset 0x${offset.toString(16)}`);
    this.name = 'ElfError';
    this.offset = offset;
  }
}

// ---- Constants (ELF gABI, psABI supplements) -------------------------------

export const ET_REL = 1;
export const ET_EXEC = 2;
export const ET_DYN = 3;
export const ET_CORE = 4;

export const EM_ARM = 40;
export const EM_X86_64 = 62;

export const PT_NULL = 0;
export const PT_LOAD = 1;
export const PT_DYNAMIC = 2;
export const PT_INTERP = 3;
export const PT_NOTE = 4;
export const PT_PHDR = 6;
export const PT_TLS = 7;

export const PF_X = 1;
export const PF_W = 2;
export const PF_R = 4;

export const SHT_NULL = 0;
export const SHT_PROGBITS = 1;
export const SHT_SYMTAB = 2;
export const SHT_STRTAB = 3;
export const SHT_RELA = 4;
export const SHT_HASH = 5;
export const SHT_DYNAMIC = 6;
export const SHT_NOTE = 7;
export const SHT_NOBITS = 8;
export const SHT_REL = 9;
export const SHT_DYNSYM = 11;
export const SHT_INIT_ARRAY = 14;
export const SHT_FINI_ARRAY = 15;
export const SHT_GROUP = 17;
export const SHT_SYMTAB_SHNDX = 18;

export const SHF_WRITE = 0x1;
export const SHF_ALLOC = 0x2;
export const SHF_EXECINSTR = 0x4;
export const SHF_MERGE = 0x10;
export const SHF_STRINGS = 0x20;
export const SHF_INFO_LINK = 0x40;
export const SHF_GROUP = 0x200;
export const SHF_COMPRESSED = 0x800;

export const SHN_UNDEF = 0;
export const SHN_LORESERVE = 0xff00;
export const SHN_ABS = 0xfff1;
export const SHN_COMMON = 0xfff2;
export const SHN_XINDEX = 0xffff;

export const STB_LOCAL = 0;
export const STB_GLOBAL = 1;
export const STB_WEAK = 2;

export const STT_NOTYPE = 0;
export const STT_OBJECT = 1;
export const STT_FUNC = 2;
export const STT_SECTION = 3;
export const STT_FILE = 4;
export const STT_COMMON = 5;
export const STT_TLS = 6;

/** Machines the reader accepts, with their names for messages. */
export const SUPPORTED_MACHINES: ReadonlyMap<number, string> = new Map([
  [EM_X86_64, 'x86_64'],
  [EM_ARM, 'arm'],
]);

// ---- Parsed shapes ----------------------------------------------------------

export interface ElfHeader {
  readonly elfClass: 32 | 64;
  readonly type: number;
  readonly machine: number;
  readonly version: number;
  readonly entry: bigint;
  readonly phoff: number;
  readonly shoff: number;
  readonly flags: number;
  readonly ehsize: number;
  readonly phentsize: number;
  readonly phnum: number;
  readonly shentsize: number;
  readonly shnum: number;
  readonly shstrndx: number;
  readonly osabi: number;
}

export interface ElfProgramHeader {
  readonly index: number;
  readonly type: number;
  readonly flags: number;
  readonly offset: number;
  readonly vaddr: bigint;
  readonly paddr: bigint;
  readonly filesz: number;
  readonly memsz: number;
  readonly align: number;
}

export interface ElfSection {
  readonly index: number;
  readonly name: string;
  readonly type: number;
  readonly flags: number;
  readonly addr: bigint;
  readonly offset: number;
  readonly size: number;
  readonly link: number;
  readonly info: number;
  readonly addralign: number;
  readonly entsize: number;
}

export interface ElfSymbol {
  readonly index: number;
  readonly name: string;
  readonly value: bigint;
  readonly size: number;
  readonly bind: number;
  readonly type: number;
  readonly visibility: number;
  /** Section index, with SHN_XINDEX already resolved through SHT_SYMTAB_SHNDX. */
  readonly shndx: number;
}

export interface ElfRelocation {
  /** r_offset: section offset (ET_REL) or virtual address (ET_EXEC/DYN). */
  readonly offset: bigint;
  readonly type: number;
  readonly symbolIndex: number;
  /** RELA addend; undefined for REL (the addend is in the relocated field). */
  readonly addend: bigint | undefined;
}

export interface ElfRelocationSection {
  readonly section: ElfSection;
  /** Index of the section the relocations apply to (sh_info). */
  readonly target: number;
  /** Index of the symbol table they refer to (sh_link). */
  readonly symtab: number;
  readonly isRela: boolean;
  readonly entries: readonly ElfRelocation[];
}

export interface ElfNote {
  readonly name: string;
  readonly type: number;
  readonly desc: Uint8Array;
  readonly offset: number;
}

// ---- Reader -----------------------------------------------------------------

const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46];

function hex(n: number | bigint): string {
  return `0x${n.toString(16)}`;
}

/** A parsed ELF file. Tables are decoded on demand and cached. */
export class ElfFile {
  readonly bytes: Uint8Array;
  readonly header: ElfHeader;
  readonly programHeaders: readonly ElfProgramHeader[];
  readonly sections: readonly ElfSection[];
  private readonly view: DataView;
  /** ELFCLASS64; set first thing while reading the header. */
  private wide = false;
  private readonly symbolCache = new Map<number, readonly ElfSymbol[]>();
  private readonly relocationCache = new Map<number, ElfRelocationSection>();

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.header = this.readHeader();
    this.programHeaders = this.readProgramHeaders();
    this.sections = this.readSections();
  }

  get is64(): boolean {
    return this.wide;
  }
  get machine(): number {
    return this.header.machine;
  }
  get machineName(): string {
    return SUPPORTED_MACHINES.get(this.header.machine) ?? `machine ${this.header.machine}`;
  }
  get type(): number {
    return this.header.type;
  }

  // -- primitive reads with bounds checks --

  private need(offset: number, size: number, what: string): void {
    if (!Number.isSafeInteger(offset) || offset < 0 || size < 0 || offset + size > this.bytes.length) {
      throw new ElfError(`truncated ${what} (needs ${size} bytes, file has ${this.bytes.length})`, offset);
    }
  }
  private u8(o: number): number {
    return this.view.getUint8(o);
  }
  private u16(o: number): number {
    return this.view.getUint16(o, true);
  }
  private u32(o: number): number {
    return this.view.getUint32(o, true);
  }
  private u64(o: number): bigint {
    return this.view.getBigUint64(o, true);
  }
  private i64(o: number): bigint {
    return this.view.getBigInt64(o, true);
  }
  /** A word-sized offset or size that must index the file. */
  private offsetWord(o: number, what: string): number {
    const v = this.is64 ? this.u64(o) : BigInt(this.u32(o));
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ElfError(`${what} ${hex(v)} is too large`, o);
    return Number(v);
  }

  private readHeader(): ElfHeader {
    const b = this.bytes;
    // A file cut short inside its identification is truncated, not foreign, when what it has is the magic.
    if (ELF_MAGIC.some((m, i) => i < b.length && b[i] !== m) || b.length < ELF_MAGIC.length) throw new ElfError('not an ELF file (bad magic)', 0);
    if (b.length < 16) throw new ElfError(`truncated ELF identification (needs 16 bytes, file has ${b.length})`, 0);
    const cls = b[4];
    if (cls !== 1 && cls !== 2) throw new ElfError(`invalid ELF class ${cls}`, 4);
    const elfClass = cls === 1 ? 32 : 64;
    this.wide = elfClass === 64;
    if (b[5] !== 1) throw new ElfError(`unsupported data encoding ${b[5]} (only little-endian is supported)`, 5);
    if (b[6] !== 1) throw new ElfError(`unsupported ELF identification version ${b[6]}`, 6);
    const ehsize = elfClass === 64 ? 64 : 52;
    this.need(0, ehsize, 'ELF header');
    const type = this.u16(16);
    const machine = this.u16(18);
    if (!SUPPORTED_MACHINES.has(machine)) throw new ElfError(`unsupported machine ${machine}`, 18);
    if (machine === EM_X86_64 && elfClass !== 64) throw new ElfError('x86_64 ELF file must be ELFCLASS64', 4);
    if (machine === EM_ARM && elfClass !== 32) throw new ElfError('ARM ELF file must be ELFCLASS32', 4);
    const version = this.u32(20);
    if (version !== 1) throw new ElfError(`unsupported ELF version ${version}`, 20);
    // Field offsets differ between the classes only by word size.
    const w = elfClass === 64 ? 8 : 4;
    const entry = elfClass === 64 ? this.u64(24) : BigInt(this.u32(24));
    const phoff = this.offsetWord(24 + w, 'program header offset');
    const shoff = this.offsetWord(24 + 2 * w, 'section header offset');
    const p = 24 + 3 * w;
    const h: ElfHeader = {
      elfClass,
      type,
      machine,
      version,
      entry,
      phoff,
      shoff,
      flags: this.u32(p),
      ehsize: this.u16(p + 4),
      phentsize: this.u16(p + 6),
      phnum: this.u16(p + 8),
      shentsize: this.u16(p + 10),
      shnum: this.u16(p + 12),
      shstrndx: this.u16(p + 14),
      osabi: b[7]!,
    };
    if (type < ET_REL || type > ET_CORE) throw new ElfError(`unsupported ELF file type ${type}`, 16);
    return h;
  }

  private readProgramHeaders(): ElfProgramHeader[] {
    const h = this.header;
    if (h.phnum === 0) return [];
    const want = this.is64 ? 56 : 32;
    if (h.phentsize !== want) throw new ElfError(`bad program header entry size ${h.phentsize} (expected ${want})`, this.is64 ? 54 : 42);
    this.need(h.phoff, h.phnum * want, `program header table at offset ${hex(h.phoff)}`);
    const out: ElfProgramHeader[] = [];
    for (let i = 0; i < h.phnum; i++) {
      const o = h.phoff + i * want;
      let ph: ElfProgramHeader;
      if (this.is64) {
        ph = {
          index: i,
          type: this.u32(o),
          flags: this.u32(o + 4),
          offset: this.offsetWord(o + 8, 'segment offset'),
          vaddr: this.u64(o + 16),
          paddr: this.u64(o + 24),
          filesz: this.offsetWord(o + 32, 'segment file size'),
          memsz: this.offsetWord(o + 40, 'segment memory size'),
          align: this.offsetWord(o + 48, 'segment alignment'),
        };
      } else {
        ph = {
          index: i,
          type: this.u32(o),
          offset: this.u32(o + 4),
          vaddr: BigInt(this.u32(o + 8)),
          paddr: BigInt(this.u32(o + 12)),
          filesz: this.u32(o + 16),
          memsz: this.u32(o + 20),
          flags: this.u32(o + 24),
          align: this.u32(o + 28),
        };
      }
      if (ph.type !== PT_NULL && ph.filesz > 0) this.need(ph.offset, ph.filesz, `segment ${i} contents`);
      if (ph.type === PT_LOAD && ph.filesz > ph.memsz) throw new ElfError(`segment ${i} file size ${hex(ph.filesz)} exceeds memory size ${hex(ph.memsz)}`, o);
      out.push(ph);
    }
    return out;
  }

  private readSections(): ElfSection[] {
    const h = this.header;
    if (h.shoff === 0) return [];
    const want = this.is64 ? 64 : 40;
    if (h.shentsize !== want) throw new ElfError(`bad section header entry size ${h.shentsize} (expected ${want})`, this.is64 ? 58 : 46);
    let shnum = h.shnum;
    let shstrndx = h.shstrndx;
    this.need(h.shoff, want, `section header table at offset ${hex(h.shoff)}`);
    // Extended numbering: section 0 holds the real count and string-table index.
    if (shnum === 0) shnum = this.is64 ? Number(this.u64(h.shoff + 32)) : this.u32(h.shoff + 20);
    if (shstrndx === SHN_XINDEX) shstrndx = this.u32(h.shoff + (this.is64 ? 44 : 28));
    if (!Number.isSafeInteger(shnum) || h.shoff + shnum * want > this.bytes.length) {
      throw new ElfError(`truncated section header table (${shnum} entries)`, h.shoff);
    }
    const raw: Omit<ElfSection, 'name'>[] = [];
    const nameOffsets: number[] = [];
    for (let i = 0; i < shnum; i++) {
      const o = h.shoff + i * want;
      nameOffsets.push(this.u32(o));
      const type = this.u32(o + 4);
      let s: Omit<ElfSection, 'name'>;
      if (this.is64) {
        const flags = this.u64(o + 8);
        s = {
          index: i,
          type,
          flags: Number(flags & 0xffffffffn),
          addr: this.u64(o + 16),
          offset: this.offsetWord(o + 24, `section ${i} offset`),
          size: this.offsetWord(o + 32, `section ${i} size`),
          link: this.u32(o + 40),
          info: this.u32(o + 44),
          addralign: this.offsetWord(o + 48, `section ${i} alignment`),
          entsize: this.offsetWord(o + 56, `section ${i} entry size`),
        };
      } else {
        s = {
          index: i,
          type,
          flags: this.u32(o + 8),
          addr: BigInt(this.u32(o + 12)),
          offset: this.u32(o + 16),
          size: this.u32(o + 20),
          link: this.u32(o + 24),
          info: this.u32(o + 28),
          addralign: this.u32(o + 32),
          entsize: this.u32(o + 36),
        };
      }
      if (i > 0 && type !== SHT_NOBITS && type !== SHT_NULL && s.size > 0) {
        if (s.offset + s.size > this.bytes.length) {
          throw new ElfError(`section ${i} contents (offset ${hex(s.offset)}, size ${hex(s.size)}) run past the end of the file`, o);
        }
      }
      raw.push(s);
    }
    if (shnum > 0 && (shstrndx >= shnum)) throw new ElfError(`section name string table index ${shstrndx} out of range (${shnum} sections)`, this.is64 ? 62 : 50);
    const names = shnum > 0 && shstrndx !== SHN_UNDEF ? { ...raw[shstrndx]!, name: '.shstrtab' } : undefined;
    if (names && names.type !== SHT_STRTAB) throw new ElfError(`section name string table (section ${shstrndx}) is not SHT_STRTAB`, h.shoff + shstrndx * want);
    return raw.map((s, i) => ({
      ...s,
      name: names ? this.stringAt(names, nameOffsets[i]!, `name of section ${i}`) : '',
    }));
  }

  /** Contents of a section (empty for SHT_NOBITS). */
  sectionData(section: ElfSection | number): Uint8Array {
    const s = typeof section === 'number' ? this.section(section) : section;
    if (s.type === SHT_NOBITS || s.type === SHT_NULL) return new Uint8Array(0);
    return this.bytes.subarray(s.offset, s.offset + s.size);
  }

  /** Contents of a segment's file image. */
  segmentData(ph: ElfProgramHeader): Uint8Array {
    return this.bytes.subarray(ph.offset, ph.offset + ph.filesz);
  }

  section(index: number): ElfSection {
    const s = this.sections[index];
    if (!s) throw new ElfError(`section index ${index} out of range (${this.sections.length} sections)`);
    return s;
  }

  sectionByName(name: string): ElfSection | undefined {
    return this.sections.find((s) => s.name === name);
  }

  /** NUL-terminated string at `offset` inside string table `table`. */
  stringAt(table: ElfSection, offset: number, what = 'string'): string {
    if (table.type !== SHT_STRTAB) throw new ElfError(`${what}: section ${table.index} is not a string table`, table.offset);
    if (offset >= table.size) {
      if (offset === 0 && table.size === 0) return '';
      throw new ElfError(`${what}: string offset ${hex(offset)} outside string table ${table.name || table.index} (size ${hex(table.size)})`, table.offset);
    }
    const start = table.offset + offset;
    const end = table.offset + table.size;
    let i = start;
    while (i < end && this.bytes[i] !== 0) i++;
    if (i >= end) throw new ElfError(`${what}: unterminated string in ${table.name || `section ${table.index}`}`, start);
    return decodeLatin1OrUtf8(this.bytes, start, i);
  }

  /** The symbol tables present (.symtab first, then .dynsym). */
  symbolTables(): ElfSection[] {
    return this.sections
      .filter((s) => s.type === SHT_SYMTAB || s.type === SHT_DYNSYM)
      .sort((a, b) => (a.type === SHT_SYMTAB ? 0 : 1) - (b.type === SHT_SYMTAB ? 0 : 1));
  }

  /** Symbols of `.symtab` (or the given symbol-table section). Empty when absent. */
  symbols(table?: ElfSection | number): readonly ElfSymbol[] {
    const sec =
      table === undefined ? this.sections.find((s) => s.type === SHT_SYMTAB) : typeof table === 'number' ? this.section(table) : table;
    if (!sec) return [];
    const cached = this.symbolCache.get(sec.index);
    if (cached) return cached;
    if (sec.type !== SHT_SYMTAB && sec.type !== SHT_DYNSYM) throw new ElfError(`section ${sec.index} (${sec.name}) is not a symbol table`, sec.offset);
    const entsize = this.is64 ? 24 : 16;
    if (sec.entsize !== entsize) throw new ElfError(`symbol table ${sec.name} has entry size ${sec.entsize} (expected ${entsize})`, sec.offset);
    if (sec.size % entsize !== 0) throw new ElfError(`symbol table ${sec.name} size ${hex(sec.size)} is not a multiple of ${entsize}`, sec.offset);
    if (sec.link >= this.sections.length) throw new ElfError(`symbol table ${sec.name} links to missing string table ${sec.link}`, sec.offset);
    const strtab = this.sections[sec.link]!;
    const xindex = this.sections.find((s) => s.type === SHT_SYMTAB_SHNDX && s.link === sec.index);
    const out: ElfSymbol[] = [];
    const n = sec.size / entsize;
    for (let i = 0; i < n; i++) {
      const o = sec.offset + i * entsize;
      let nameOff: number, value: bigint, size: number, info: number, other: number, shndx: number;
      if (this.is64) {
        nameOff = this.u32(o);
        info = this.u8(o + 4);
        other = this.u8(o + 5);
        shndx = this.u16(o + 6);
        value = this.u64(o + 8);
        const sz = this.u64(o + 16);
        if (sz > BigInt(Number.MAX_SAFE_INTEGER)) throw new ElfError(`symbol ${i} size ${hex(sz)} is too large`, o + 16);
        size = Number(sz);
      } else {
        nameOff = this.u32(o);
        value = BigInt(this.u32(o + 4));
        size = this.u32(o + 8);
        info = this.u8(o + 12);
        other = this.u8(o + 13);
        shndx = this.u16(o + 14);
      }
      if (shndx === SHN_XINDEX && xindex) {
        const xo = xindex.offset + i * 4;
        this.need(xo, 4, 'extended section index table');
        shndx = this.u32(xo);
      }
      const name = nameOff === 0 ? '' : this.stringAt(strtab, nameOff, `name of symbol ${i} in ${sec.name}`);
      out.push({ index: i, name, value, size, bind: info >> 4, type: info & 0xf, visibility: other & 3, shndx });
    }
    this.symbolCache.set(sec.index, out);
    return out;
  }

  /** All REL/RELA sections with their decoded entries. */
  relocationSections(): ElfRelocationSection[] {
    return this.sections.filter((s) => s.type === SHT_REL || s.type === SHT_RELA).map((s) => this.relocations(s));
  }

  /** The relocation section that applies to section `target`, if any. */
  relocationsFor(target: number): ElfRelocationSection | undefined {
    const s = this.sections.find((r) => (r.type === SHT_REL || r.type === SHT_RELA) && r.info === target);
    return s ? this.relocations(s) : undefined;
  }

  relocations(section: ElfSection | number): ElfRelocationSection {
    const sec = typeof section === 'number' ? this.section(section) : section;
    const cached = this.relocationCache.get(sec.index);
    if (cached) return cached;
    const isRela = sec.type === SHT_RELA;
    if (!isRela && sec.type !== SHT_REL) throw new ElfError(`section ${sec.index} (${sec.name}) is not a relocation section`, sec.offset);
    const entsize = (this.is64 ? 8 : 4) * (isRela ? 3 : 2);
    if (sec.entsize !== entsize) throw new ElfError(`relocation section ${sec.name} has entry size ${sec.entsize} (expected ${entsize})`, sec.offset);
    if (sec.size % entsize !== 0) throw new ElfError(`relocation section ${sec.name} size ${hex(sec.size)} is not a multiple of ${entsize}`, sec.offset);
    if (sec.info >= this.sections.length) throw new ElfError(`relocation section ${sec.name} applies to missing section ${sec.info}`, sec.offset);
    const entries: ElfRelocation[] = [];
    const n = sec.size / entsize;
    for (let i = 0; i < n; i++) {
      const o = sec.offset + i * entsize;
      if (this.is64) {
        const info = this.u64(o + 8);
        entries.push({
          offset: this.u64(o),
          type: Number(info & 0xffffffffn),
          symbolIndex: Number(info >> 32n),
          addend: isRela ? this.i64(o + 16) : undefined,
        });
      } else {
        const info = this.u32(o + 4);
        entries.push({
          offset: BigInt(this.u32(o)),
          type: info & 0xff,
          symbolIndex: info >>> 8,
          addend: isRela ? BigInt(this.view.getInt32(o + 8, true)) : undefined,
        });
      }
    }
    const out: ElfRelocationSection = { section: sec, target: sec.info, symtab: sec.link, isRela, entries };
    this.relocationCache.set(sec.index, out);
    return out;
  }

  /** Notes from a SHT_NOTE section or a PT_NOTE segment. */
  notes(source: ElfSection | ElfProgramHeader): ElfNote[] {
    let start: number, size: number, align: number;
    if ('name' in source) {
      if (source.type !== SHT_NOTE) throw new ElfError(`section ${source.index} (${source.name}) is not a note section`, source.offset);
      start = source.offset;
      size = source.size;
      align = source.addralign;
    } else {
      if (source.type !== PT_NOTE) throw new ElfError(`segment ${source.index} is not PT_NOTE`);
      start = source.offset;
      size = source.filesz;
      align = source.align;
    }
    const pad = align === 8 ? 8 : 4;
    const roundUp = (n: number): number => Math.ceil(n / pad) * pad;
    const out: ElfNote[] = [];
    let o = start;
    const end = start + size;
    while (o < end) {
      if (o + 12 > end) throw new ElfError('truncated note header', o);
      const namesz = this.u32(o);
      const descsz = this.u32(o + 4);
      const type = this.u32(o + 8);
      const nameStart = o + 12;
      const descStart = nameStart + roundUp(namesz);
      if (descStart > end || descStart + descsz > end) throw new ElfError(`truncated note (name ${namesz} bytes, descriptor ${descsz} bytes)`, o);
      let nameEnd = nameStart + namesz;
      if (namesz > 0 && this.bytes[nameEnd - 1] === 0) nameEnd--;
      out.push({ name: decodeLatin1OrUtf8(this.bytes, nameStart, nameEnd), type, desc: this.bytes.subarray(descStart, descStart + descsz), offset: o });
      o = descStart + roundUp(descsz);
    }
    return out;
  }
}

/** Decode bytes as UTF-8 when valid, else byte-per-character. */
function decodeLatin1OrUtf8(bytes: Uint8Array, start: number, end: number): string {
  let ascii = true;
  for (let i = start; i < end; i++) if (bytes[i]! >= 0x80) { ascii = false; break; }
  if (ascii) {
    let s = '';
    for (let i = start; i < end; i += 4096) s += String.fromCharCode(...bytes.subarray(i, Math.min(end, i + 4096)));
    return s;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, end));
  } catch {
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
    return s;
  }
}

/** Parse an ELF file; throws ElfError on malformed input. */
export function parseElf(bytes: Uint8Array): ElfFile {
  if (!(bytes instanceof Uint8Array)) throw new ElfError('not an ELF file (input is not a byte array)');
  try {
    return new ElfFile(bytes);
  } catch (e) {
    if (e instanceof ElfError) throw e;
    // DataView range errors would mean a missed bounds check; report them as ours.
    throw new ElfError(`malformed ELF file: ${(e as Error).message}`);
  }
}
