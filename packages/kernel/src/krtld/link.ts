// krtld: links an ET_REL kernel module at a chosen base address and processes
// SDT sites, for modules and for the core kernel (ET_EXEC linked with
// --emit-relocs). The result is a plain description of what to write into
// guest memory, so the machine can load a module at boot or later while
// tracing runs and hand the new sites to the sdt provider.
//
// Module layout, from `base` upwards, each section aligned as sh_addralign
// asks: executable sections, read-only data, writable data, then NOBITS
// (bss) and COMMON symbols, then a GOT if GOT-relative relocations need one.

import {
  ET_EXEC,
  ET_REL,
  ElfFile,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHF_WRITE,
  SHN_ABS,
  SHN_COMMON,
  SHN_LORESERVE,
  SHN_UNDEF,
  SHT_NOBITS,
  STB_LOCAL,
  STB_WEAK,
  STT_FUNC,
  STT_SECTION,
  STT_FILE,
  parseElf,
  type ElfSection,
  type ElfSymbol,
} from '../elf/index.js';
import { isaOfElfMachine, type Isa } from '../isa.js';
import { floorIndex } from '../symbols/floor.js';
import { readField, relocName, relocTable, writeField } from './relocate.js';
import { SDT_ARGTYPES_SECTION, SDT_PREFIX, parseSdtArgTypes, patchSdtSite, sdtProbeName, type SdtArgTypes, type SdtSite } from './sdt.js';

/** Error raised for anything that prevents linking; names module and place. */
export class KrtldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KrtldError';
  }
}

/** Resolves a kernel (or other module's) global symbol to its address. */
export type SymbolResolver = (name: string) => bigint | undefined;

export interface LinkOptions {
  /** Module name, as sites and symbols will report it. */
  readonly name: string;
  /** Virtual address the module is placed at. */
  readonly base: bigint;
  /** Resolver for undefined symbols (the kernel's symbol table). */
  readonly resolve: SymbolResolver;
  /** Bytes available at base; linking fails if the module does not fit. */
  readonly limit?: number;
}

/** One piece of guest memory to write. */
export interface MemorySegment {
  readonly address: bigint;
  readonly bytes: Uint8Array;
  /** Section the bytes come from ('.got' for the module's GOT). */
  readonly section: string;
  readonly writable: boolean;
  readonly executable: boolean;
}

/** A symbol defined by a linked module, at its final address. */
export interface LinkedSymbol {
  readonly name: string;
  readonly address: bigint;
  readonly size: number;
  readonly isFunction: boolean;
  readonly isGlobal: boolean;
  readonly section: string;
}

export interface LinkedModule {
  readonly name: string;
  readonly isa: Isa;
  readonly base: bigint;
  /** Bytes used from base (end of the last section, rounded to 16). */
  readonly size: number;
  readonly segments: readonly MemorySegment[];
  readonly symbols: readonly LinkedSymbol[];
  readonly sites: readonly SdtSite[];
  /** Problems with the module's SDT argument-type records (its sites then lack types). */
  readonly argTypeProblems: readonly string[];
  /** Address of `_init` / `_fini` when defined. */
  readonly init: bigint | undefined;
  readonly fini: bigint | undefined;
  /** Final address of every allocated section, by section index. */
  readonly sectionAddresses: ReadonlyMap<number, bigint>;
}

function isaOf(elf: ElfFile): Isa {
  const isa = isaOfElfMachine(elf.machine);
  if (isa === undefined) throw new KrtldError(`unsupported machine ${elf.machine}`);
  return isa;
}

const alignUp = (v: bigint, a: number): bigint => {
  const al = BigInt(Math.max(1, a));
  return ((v + al - 1n) / al) * al;
};

/** Order class of an allocatable section: text, rodata, data, bss. */
function layoutClass(s: ElfSection): number {
  if (s.type === SHT_NOBITS) return 3;
  if (s.flags & SHF_EXECINSTR) return 0;
  if (s.flags & SHF_WRITE) return 2;
  return 1;
}

/** The function symbol (STT_FUNC) covering `address` among `symbols`, or ''. */
function functionAt(functions: readonly { name: string; start: bigint; end: bigint }[], address: bigint): string {
  // functions are sorted by start; find the last one starting at or before address.
  const found = floorIndex(functions, address, (f) => f.start);
  for (let i = found; i >= 0 && i > found - 8; i--) {
    const f = functions[i]!;
    if (f.start <= address && address < f.end) return f.name;
  }
  return '';
}

/** The SDT argument-type records of an object; a missing section means no types. */
function sdtArgTypesOf(elf: ElfFile, mod: string): SdtArgTypes {
  const section = elf.sections.find((s) => s.name === SDT_ARGTYPES_SECTION);
  if (!section) return { types: new Map(), problems: [] };
  const where = `${mod}: ${SDT_ARGTYPES_SECTION}`;
  if (section.type === SHT_NOBITS) return { types: new Map(), problems: [`${where}: section has no contents (NOBITS)`] };
  let bytes: Uint8Array;
  try {
    bytes = elf.sectionData(section);
  } catch (err) {
    return { types: new Map(), problems: [`${where}: ${(err as Error).message}`] };
  }
  return parseSdtArgTypes(bytes, where);
}

/** The most a module may occupy when the caller gives no limit of its own. */
const MAX_MODULE_BYTES = 64 * 1024 * 1024;

/** Link a relocatable module. Throws KrtldError naming every unresolved symbol. */
export function linkModule(input: Uint8Array | ElfFile, options: LinkOptions): LinkedModule {
  const elf = input instanceof ElfFile ? input : parseElf(input);
  const isa = isaOf(elf);
  const mod = options.name;
  if (elf.type !== ET_REL) throw new KrtldError(`${mod}: not a relocatable object (ELF type ${elf.type})`);
  const symtabSection = elf.symbolTables()[0];
  if (!symtabSection) throw new KrtldError(`${mod}: no symbol table`);
  const symbols = elf.symbols(symtabSection);

  // -- layout --
  const alloc = elf.sections.filter((s) => s.index > 0 && s.flags & SHF_ALLOC && s.size >= 0);
  const ordered = alloc.map((s, i) => ({ s, i })).sort((a, b) => layoutClass(a.s) - layoutClass(b.s) || a.i - b.i).map((x) => x.s);
  const sectionAddresses = new Map<number, bigint>();
  const images = new Map<number, Uint8Array>();
  let cursor = options.base;
  // A section size comes from the file: check it against the space before allocating.
  const maxBytes = BigInt(Math.max(options.limit ?? 0, MAX_MODULE_BYTES));
  for (const s of ordered) {
    cursor = alignUp(cursor, s.addralign);
    if (cursor - options.base + BigInt(s.size) > maxBytes) {
      throw new KrtldError(`${mod}: section ${s.name || s.index} (${s.size} bytes) does not fit in the ${maxBytes} bytes a module may take at 0x${options.base.toString(16)}`);
    }
    sectionAddresses.set(s.index, cursor);
    images.set(s.index, s.type === SHT_NOBITS ? new Uint8Array(s.size) : new Uint8Array(elf.sectionData(s)));
    cursor += BigInt(s.size);
  }
  // COMMON symbols go after bss (st_value is their alignment).
  const commonAddress = new Map<number, bigint>();
  let commonStart: bigint | undefined;
  for (const sym of symbols) {
    if (sym.shndx !== SHN_COMMON) continue;
    cursor = alignUp(cursor, Number(sym.value));
    commonStart ??= cursor;
    commonAddress.set(sym.index, cursor);
    cursor += BigInt(sym.size);
  }
  const commonSize = commonStart === undefined ? 0 : Number(cursor - commonStart);

  // -- symbol values --
  const unresolved = new Set<string>();
  const symbolValue = (sym: ElfSymbol): bigint | undefined => {
    if (sym.shndx === SHN_UNDEF) {
      if (sym.index === 0) return 0n;
      const v = options.resolve(sym.name);
      if (v !== undefined) return v;
      if (sym.bind === STB_WEAK) return 0n;
      unresolved.add(sym.name);
      return undefined;
    }
    if (sym.shndx === SHN_ABS) return sym.value;
    if (sym.shndx === SHN_COMMON) return commonAddress.get(sym.index)!;
    if (sym.shndx >= SHN_LORESERVE && sym.shndx < 0x10000) throw new KrtldError(`${mod}: symbol ${sym.name} has unsupported section index 0x${sym.shndx.toString(16)}`);
    const base = sectionAddresses.get(sym.shndx);
    if (base === undefined) return sym.value; // symbol in a non-allocated section (debug info)
    return base + sym.value;
  };

  // -- GOT: one slot per symbol referenced through GOT-relative relocations --
  const table = relocTable(elf.machine);
  const relocSections = elf.relocationSections().filter((r) => sectionAddresses.has(r.target) && r.symtab === symtabSection.index);
  const gotSlots = new Map<number, number>();
  for (const r of relocSections) for (const e of r.entries) if (table.get(e.type)?.got && !gotSlots.has(e.symbolIndex)) gotSlots.set(e.symbolIndex, gotSlots.size);
  const wordSize = elf.is64 ? 8 : 4;
  let gotAddress: bigint | undefined;
  let got: Uint8Array | undefined;
  if (gotSlots.size) {
    cursor = alignUp(cursor, wordSize);
    gotAddress = cursor;
    got = new Uint8Array(gotSlots.size * wordSize);
    cursor += BigInt(got.length);
  }
  const size = Number(alignUp(cursor, 16) - options.base);
  if (options.limit !== undefined && size > options.limit) {
    throw new KrtldError(`${mod}: needs ${size} bytes but only ${options.limit} are available at 0x${options.base.toString(16)}`);
  }
  for (const [symIndex, slot] of gotSlots) {
    const v = symbolValue(symbols[symIndex]!);
    if (v !== undefined) writeField(got!, slot * wordSize, wordSize as 4 | 8, v);
  }

  // -- function ranges for naming SDT sites --
  const functions = symbols
    .filter((s) => s.type === STT_FUNC && sectionAddresses.has(s.shndx))
    .map((s) => ({ name: s.name, start: sectionAddresses.get(s.shndx)! + s.value, end: sectionAddresses.get(s.shndx)! + s.value + BigInt(s.size) }))
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));

  // -- relocations and SDT sites --
  const argTypes = sdtArgTypesOf(elf, mod);
  const sites: SdtSite[] = [];
  for (const r of relocSections) {
    const target = elf.sections[r.target]!;
    const image = images.get(r.target)!;
    const sectionAddress = sectionAddresses.get(r.target)!;
    if (target.type === SHT_NOBITS) {
      if (r.entries.length) throw new KrtldError(`${mod}: relocations against NOBITS section ${target.name}`);
      continue;
    }
    for (const e of r.entries) {
      const where = `${mod}: ${relocName(elf.machine, e.type)} at ${target.name}+0x${e.offset.toString(16)}`;
      const sym = symbols[e.symbolIndex];
      if (!sym) throw new KrtldError(`${where}: symbol index ${e.symbolIndex} out of range`);
      const P = sectionAddress + e.offset;
      if (sym.shndx === SHN_UNDEF && sym.name.startsWith(SDT_PREFIX)) {
        let names: { provider: string; probe: string };
        let patched: ReturnType<typeof patchSdtSite>;
        try {
          names = sdtProbeName(sym.name);
          patched = patchSdtSite(isa, image, sectionAddress, P, sym.name, e.type);
        } catch (err) {
          throw new KrtldError(`${where}: ${(err as Error).message}`);
        }
        sites.push({ module: mod, function: functionAt(functions, patched.address), ...names, symbol: sym.name, ...patched, argTypes: argTypes.types.get(sym.name) ?? [] });
        continue;
      }
      const kind = table.get(e.type);
      if (!kind) throw new KrtldError(`${where}: unsupported relocation type ${e.type}`);
      const off = Number(e.offset);
      if (off < 0 || off + kind.size > image.length) throw new KrtldError(`${where}: offset outside the section (size 0x${image.length.toString(16)})`);
      const S = symbolValue(sym);
      if (S === undefined) continue; // reported below with every other unresolved name
      const field = readField(image, off, kind.size);
      const A = e.addend ?? (kind.readAddend ? kind.readAddend(field) : 0n);
      const G = kind.got ? gotAddress! + BigInt(gotSlots.get(e.symbolIndex)! * wordSize) : undefined;
      let value: bigint;
      try {
        value = kind.apply({ S, A, P, ...(G === undefined ? {} : { G }) }, field);
      } catch (err) {
        throw new KrtldError(`${where} against ${sym.name || `section symbol ${sym.shndx}`}: ${(err as Error).message}`);
      }
      writeField(image, off, kind.size, value);
    }
  }
  if (unresolved.size) {
    throw new KrtldError(`${mod}: unresolved symbol${unresolved.size > 1 ? 's' : ''}: ${[...unresolved].sort().join(', ')}`);
  }

  // -- output --
  const segments: MemorySegment[] = ordered.map((s) => ({
    address: sectionAddresses.get(s.index)!,
    bytes: images.get(s.index)!,
    section: s.name,
    writable: (s.flags & SHF_WRITE) !== 0,
    executable: (s.flags & SHF_EXECINSTR) !== 0,
  }));
  if (commonStart !== undefined) segments.push({ address: commonStart, bytes: new Uint8Array(commonSize), section: 'COMMON', writable: true, executable: false });
  if (got) segments.push({ address: gotAddress!, bytes: got, section: '.got', writable: false, executable: false });

  const linkedSymbols: LinkedSymbol[] = [];
  for (const sym of symbols) {
    if (sym.index === 0 || sym.shndx === SHN_UNDEF || sym.type === STT_SECTION || sym.type === STT_FILE || !sym.name) continue;
    const address = symbolValue(sym);
    if (address === undefined) continue;
    if (sym.shndx !== SHN_ABS && sym.shndx !== SHN_COMMON && !sectionAddresses.has(sym.shndx)) continue;
    linkedSymbols.push({
      name: sym.name,
      address,
      size: sym.size,
      isFunction: sym.type === STT_FUNC,
      isGlobal: sym.bind !== STB_LOCAL,
      section: sym.shndx === SHN_COMMON ? 'COMMON' : sym.shndx === SHN_ABS ? '*ABS*' : elf.sections[sym.shndx]!.name,
    });
  }
  const globalAddress = (n: string): bigint | undefined => linkedSymbols.find((s) => s.name === n && s.isGlobal)?.address;
  sites.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return {
    name: mod,
    isa,
    base: options.base,
    size,
    segments,
    symbols: linkedSymbols,
    sites,
    argTypeProblems: argTypes.problems,
    init: globalAddress('_init'),
    fini: globalAddress('_fini'),
    sectionAddresses,
  };
}

/** A byte patch to apply to a loaded kernel image. */
export interface KernelPatch {
  readonly address: bigint;
  /** File offset of the patched bytes in the kernel ELF. */
  readonly fileOffset: number;
  readonly bytes: Uint8Array;
}

export interface KernelSdtResult {
  readonly isa: Isa;
  readonly sites: readonly SdtSite[];
  readonly patches: readonly KernelPatch[];
  /** Problems with the kernel's SDT argument-type records (its sites then lack types). */
  readonly argTypeProblems: readonly string[];
  /** A copy of the kernel ELF with every patch applied (load it as usual). */
  readonly patchedImage: Uint8Array;
}

/**
 * Find and disable the SDT sites of a core kernel linked with --emit-relocs:
 * every kept relocation in an executable section that refers to an undefined
 * `__dtrace_probe_*` symbol marks a call site.
 */
export function processKernelSdtSites(input: Uint8Array | ElfFile, moduleName = 'kernel'): KernelSdtResult {
  const elf = input instanceof ElfFile ? input : parseElf(input);
  const isa = isaOf(elf);
  if (elf.type !== ET_EXEC) throw new KrtldError(`${moduleName}: not an executable (ELF type ${elf.type})`);
  // A copy whatever the input is (a Node Buffer's slice() would share its memory).
  const image = new Uint8Array(elf.bytes);
  const symtabSection = elf.symbolTables()[0];
  if (!symtabSection) throw new KrtldError(`${moduleName}: no symbol table`);
  const symbols = elf.symbols(symtabSection);
  const functions = symbols
    .filter((s) => s.type === STT_FUNC && s.shndx !== SHN_UNDEF)
    .map((s) => ({ name: s.name, start: s.value, end: s.value + BigInt(s.size) }))
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const sites: SdtSite[] = [];
  const patches: KernelPatch[] = [];
  const probeSymbols = symbols.filter((s) => s.shndx === SHN_UNDEF && s.name.startsWith(SDT_PREFIX));
  let sawRelocations = false;
  const argTypes = sdtArgTypesOf(elf, moduleName);
  for (const r of elf.relocationSections()) {
    if (r.symtab !== symtabSection.index) continue;
    const target = elf.sections[r.target]!;
    if (!(target.flags & SHF_ALLOC) || !(target.flags & SHF_EXECINSTR)) continue;
    sawRelocations = true;
    const code = image.subarray(target.offset, target.offset + target.size);
    for (const e of r.entries) {
      const sym = symbols[e.symbolIndex];
      if (!sym || sym.shndx !== SHN_UNDEF || !sym.name.startsWith(SDT_PREFIX)) continue;
      const where = `${moduleName}: ${relocName(elf.machine, e.type)} at 0x${e.offset.toString(16)}`;
      try {
        const names = sdtProbeName(sym.name);
        const patched = patchSdtSite(isa, code, target.addr, e.offset, sym.name, e.type);
        sites.push({ module: moduleName, function: functionAt(functions, patched.address), ...names, symbol: sym.name, ...patched, argTypes: argTypes.types.get(sym.name) ?? [] });
        patches.push({ address: patched.address, fileOffset: target.offset + Number(patched.address - target.addr), bytes: patched.patch });
      } catch (err) {
        throw new KrtldError(`${where}: ${(err as Error).message}`);
      }
    }
  }
  if (probeSymbols.length && !sawRelocations) {
    throw new KrtldError(`${moduleName}: has undefined ${SDT_PREFIX}* symbols but no relocations for its code (link it with --emit-relocs)`);
  }
  sites.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  patches.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return { isa, sites, patches, argTypeProblems: argTypes.problems, patchedImage: image };
}

/** Name of the undefined symbols of a module (what it needs from the kernel). */
export function moduleImports(input: Uint8Array | ElfFile): string[] {
  const elf = input instanceof ElfFile ? input : parseElf(input);
  return elf
    .symbols()
    .filter((s) => s.index > 0 && s.shndx === SHN_UNDEF && s.name && !s.name.startsWith(SDT_PREFIX))
    .map((s) => s.name);
}
