// The USDT link step (`dtrace -G`), after illumos dt_link.c's process_obj:
// in each relocatable object, every relocation against a symbol of the form
//
//   __dtrace_<provider>___<probe>          a probe site (a call)
//   __dtraceenabled_<provider>___<probe>   an is-enabled site (a call whose result is tested)
//
// marks a site. The call is turned into no-ops in place, the relocation's
// type becomes R_*_NONE (its symbol kept, so an object processed twice is
// recognised and its sites recorded again), and the undefined symbol is made
// absolute so the final link needs no definition of it. The sites, with the
// provider definitions, go into a small description object (provider.o) that
// is linked into the program; the usdt provider reads its section from the
// executable at exec.
//
// Site patches (the bytes the call becomes, disabled; and what the usdt
// provider writes there while an is-enabled probe is enabled):
//
//   x86-64  call  probe       0f 1f 44 00 00   nopl 0(%rax,%rax)
//           jmp   probe tail  c3 0f 1f 40 00   ret; nopl
//           call  is-enabled  33 c0 90 90 90   xor %eax,%eax; nop x3   (enabled: b8 01 00 00 00  mov $1,%eax)
//           jmp   is-enabled  33 c0 c3 90 90   xor; ret; nop x2        (enabled: 33 c0 ff c0 c3  xor; inc %eax; ret)
//   A32     bl    probe       e320f000         nop
//           b     probe tail  e12fff1e         bx lr (the branch's condition kept)
//           bl    is-enabled  e3a00000         mov r0, #0 (condition kept; enabled: mov r0, #1)
//   T32     bl    probe       f3af 8000        nop.w
//           b.w   probe tail  4770 bf00        bx lr; nop
//           bl    is-enabled  f04f 0000        mov.w r0, #0 (enabled: mov.w r0, #1)
//
// A site is named by its function — the function symbol covering it, with
// the object's STT_FILE name to tell static functions of the same name
// apart — and its offset in that function, as DOF's probe records name them.
import { ElfError, type ElfFile, type ElfRelocationSection, type ElfSymbol, SHN_ABS, SHN_UNDEF, STT_FILE, STT_FUNC, STT_SECTION, parseElf, EM_ARM, EM_X86_64, ET_REL } from '../elf/reader.js';
import type { Isa } from '../isa.js';

/** What the `-G` step fails with: dt_link's message (dtrace: failed to link script X: <message>). */
export class UsdtLinkError extends Error {}

/** A provider definition as the D compiler read it: probe names with '-', C type names. */
export interface UsdtProviderDefinition {
  readonly name: string;
  readonly probes: readonly { readonly name: string; readonly native: readonly string[]; readonly translated?: readonly string[] }[];
}

/** One site recorded by the link step. */
export interface UsdtSite {
  readonly provider: string;
  readonly probe: string;
  /** The object's STT_FILE name ('' when it has none). */
  readonly file: string;
  readonly function: string;
  /** True when the function is local to its object (static). */
  readonly local: boolean;
  /** Byte offset of the patched instruction in the function. */
  readonly offset: number;
  readonly isEnabled: boolean;
  /** The site was a tail jump (patched to return). */
  readonly tail: boolean;
  /** ARM: the site is T32 code. */
  readonly thumb: boolean;
}

/** What the description object's section holds (JSON text). */
export interface UsdtDescription {
  readonly format: typeof USDT_FORMAT;
  readonly isa: Isa;
  readonly providers: readonly UsdtProviderDefinition[];
  readonly sites: readonly UsdtSite[];
  /** The D program the providers were defined in (its types and translators serve args[]). */
  readonly source: string;
}

/** The section of the description object, and of every executable linked with one. */
export const USDT_SECTION = '.wdtrace_usdt';
export const USDT_FORMAT = 'wdtrace-usdt/1';

const R_X86_64_NONE = 0;
const R_X86_64_PC32 = 2;
const R_X86_64_PLT32 = 4;
const R_ARM_NONE = 0;
const R_ARM_PC24 = 1;
const R_ARM_THM_CALL = 10;
const R_ARM_CALL = 28;
const R_ARM_JUMP24 = 29;
const R_ARM_THM_JUMP24 = 30;

const DTRACE_PREFIX = '__dtrace';

/** The bytes an is-enabled site holds while its probe is enabled (it yields 1), given the disabled bytes. */
export function usdtEnabledPatch(isa: Isa, site: Pick<UsdtSite, 'tail' | 'thumb'>, disabled: Uint8Array): Uint8Array {
  if (isa === 'x86_64') return site.tail ? Uint8Array.of(0x33, 0xc0, 0xff, 0xc0, 0xc3) : Uint8Array.of(0xb8, 0x01, 0x00, 0x00, 0x00);
  const out = disabled.slice();
  // A32 `mov r0, #1` and T32 `mov.w r0, #1`: the immediate is the low byte of the last halfword/word.
  if (site.thumb) out[2] = 1;
  else out[0] = 1;
  return out;
}

interface PatchedSite {
  readonly bytes: Uint8Array;
  readonly tail: boolean;
  readonly thumb: boolean;
  /** Offset of the instruction in its section. */
  readonly at: number;
}

function hex(n: number | bigint): string {
  return `0x${n.toString(16)}`;
}

/** Patches an x86-64 site whose rel32 is at `relocAt` (the call or jmp starts one byte earlier). */
function patchX86(code: Uint8Array, relocAt: number, isEnabled: boolean, what: string): PatchedSite {
  const at = relocAt - 1;
  const op = code[at];
  if (at < 0 || at + 5 > code.length || (op !== 0xe8 && op !== 0xe9)) throw new UsdtLinkError(`${what} is not a call or jmp`);
  const tail = op === 0xe9;
  const bytes = isEnabled
    ? tail
      ? Uint8Array.of(0x33, 0xc0, 0xc3, 0x90, 0x90)
      : Uint8Array.of(0x33, 0xc0, 0x90, 0x90, 0x90)
    : tail
      ? Uint8Array.of(0xc3, 0x0f, 0x1f, 0x40, 0x00)
      : Uint8Array.of(0x0f, 0x1f, 0x44, 0x00, 0x00);
  code.set(bytes, at);
  return { bytes, tail, thumb: false, at };
}

/** Patches an A32 `bl`/`b` at `at`. */
function patchA32(code: Uint8Array, at: number, isEnabled: boolean, what: string): PatchedSite {
  if (at < 0 || at + 4 > code.length || at % 4 !== 0) throw new UsdtLinkError(`${what} lies outside its section or is misaligned`);
  const dv = new DataView(code.buffer, code.byteOffset, code.byteLength);
  const insn = dv.getUint32(at, true);
  const cond = insn >>> 28;
  if (((insn >>> 25) & 7) !== 5 || cond === 0xf) throw new UsdtLinkError(`${what} is not a branch`);
  const link = ((insn >>> 24) & 1) === 1;
  if (!link && isEnabled) throw new UsdtLinkError(`${what} is an is-enabled tail call, which has no room for its result`);
  const word = isEnabled ? ((cond << 28) | 0x03a00000) >>> 0 : link ? 0xe320f000 : ((cond << 28) | 0x012fff1e) >>> 0;
  dv.setUint32(at, word, true);
  return { bytes: code.slice(at, at + 4), tail: !link, thumb: false, at };
}

/** Patches a T32 `bl`/`b.w` at `at`. */
function patchT32(code: Uint8Array, at: number, isEnabled: boolean, what: string): PatchedSite {
  if (at < 0 || at + 4 > code.length || at % 2 !== 0) throw new UsdtLinkError(`${what} lies outside its section or is misaligned`);
  const hw0 = code[at]! | (code[at + 1]! << 8);
  const hw1 = code[at + 2]! | (code[at + 3]! << 8);
  const link = (hw0 & 0xf800) === 0xf000 && (hw1 & 0xd000) === 0xd000;
  const tail = (hw0 & 0xf800) === 0xf000 && (hw1 & 0xd000) === 0x9000;
  if (!link && !tail) throw new UsdtLinkError(`${what} is not a Thumb bl or b.w`);
  if (tail && isEnabled) throw new UsdtLinkError(`${what} is an is-enabled tail call, which has no room for its result`);
  const bytes = isEnabled ? Uint8Array.of(0x4f, 0xf0, 0x00, 0x00) : link ? Uint8Array.of(0xaf, 0xf3, 0x00, 0x80) : Uint8Array.of(0x70, 0x47, 0x00, 0xbf);
  code.set(bytes, at);
  return { bytes, tail, thumb: true, at };
}

/** The symbol name's provider and probe (`-` for each `__` of the probe), or undefined when it is not one of the forms. */
export function usdtSymbolProbe(symbol: string): { isEnabled: boolean; provider: string; probe: string } | undefined {
  if (!symbol.startsWith(DTRACE_PREFIX)) return undefined;
  let rest = symbol.slice(DTRACE_PREFIX.length);
  const isEnabled = rest.startsWith('enabled');
  if (isEnabled) rest = rest.slice('enabled'.length);
  if (!rest.startsWith('_')) return undefined;
  rest = rest.slice(1);
  const split = rest.indexOf('___');
  if (split <= 0) return undefined;
  return { isEnabled, provider: rest.slice(0, split), probe: rest.slice(split + 3).replace(/__/g, '-') };
}

/** The object as the link step rewrote it, and its sites. */
export interface UsdtProcessedObject {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly sites: readonly UsdtSite[];
  /** Whether the bytes differ from the input (an object without sites is left alone). */
  readonly modified: boolean;
}

/** The ISA of the objects a link takes, from the first one; every other must match it. */
function objectIsa(elf: ElfFile, name: string, want: Isa | undefined): Isa {
  if (elf.type !== ET_REL) throw new UsdtLinkError(`an error was encountered while processing ${name}`);
  const isa: Isa | undefined = elf.machine === EM_X86_64 && elf.is64 ? 'x86_64' : elf.machine === EM_ARM && !elf.is64 ? 'arm' : undefined;
  if (isa === undefined) throw new UsdtLinkError(`incorrect ELF machine type for object file: ${name}`);
  if (want !== undefined && isa !== want) throw new UsdtLinkError(want === 'x86_64' ? `incorrect ELF class for object file: ${name}` : `incorrect ELF machine type for object file: ${name}`);
  return isa;
}

/**
 * Process one relocatable object: patch its sites, neutralise their
 * relocations and symbols. Never changes `bytes`; returns a copy.
 */
export function processUsdtObject(name: string, input: Uint8Array, providers: readonly UsdtProviderDefinition[], isa?: Isa): UsdtProcessedObject & { isa: Isa } {
  let elf: ElfFile;
  try {
    elf = parseElf(input);
  } catch (e) {
    if (e instanceof ElfError) throw new UsdtLinkError(`failed to process ${name}: ${e.message}`);
    throw e;
  }
  const objIsa = objectIsa(elf, name, isa);
  const bytes = input.slice();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sites: UsdtSite[] = [];
  let modified = false;
  let relocs: ElfRelocationSection[];
  try {
    relocs = elf.relocationSections();
  } catch (e) {
    if (e instanceof ElfError) throw new UsdtLinkError(`failed to process ${name}: ${e.message}`);
    throw e;
  }
  for (const rs of relocs) {
    let symbols: readonly ElfSymbol[];
    try {
      symbols = elf.symbols(rs.symtab);
    } catch (e) {
      if (e instanceof ElfError) throw new UsdtLinkError(`an error was encountered while processing ${name}`);
      throw e;
    }
    const file = symbols.find((s) => s.type === STT_FILE)?.name ?? '';
    const target = elf.section(rs.target);
    const symtab = elf.section(rs.symtab);
    const entrySize = rs.isRela ? (elf.is64 ? 24 : 12) : elf.is64 ? 16 : 8;
    rs.entries.forEach((r, i) => {
      const sym = symbols[r.symbolIndex];
      if (!sym) return;
      const parsed = usdtSymbolProbe(sym.name);
      if (!parsed) {
        if (sym.name.startsWith(DTRACE_PREFIX) && sym.shndx === SHN_UNDEF) throw new UsdtLinkError(`an error was encountered while processing ${name}`);
        return;
      }
      const provider = providers.find((p) => p.name === parsed.provider);
      if (!provider) throw new UsdtLinkError(`no such provider ${parsed.provider}`);
      if (!provider.probes.some((p) => p.name === parsed.probe)) throw new UsdtLinkError(`no such probe ${parsed.probe}`);
      const at = Number(r.offset);
      // The function covering the site (dt_symtab_lookup).
      const fsym = symbols.find((s) => s.shndx === rs.target && s.type !== STT_SECTION && s.type !== STT_FILE && s.size > 0 && at >= Number(s.value & ~1n) && at < Number(s.value & ~1n) + s.size);
      if (!fsym) throw new UsdtLinkError(`an error was encountered while processing ${name}`);
      if (fsym.type !== STT_FUNC) throw new UsdtLinkError(`expected ${fsym.name} to be of type function`);
      const start = Number(fsym.value & ~1n);
      const code = bytes.subarray(target.offset, target.offset + target.size);
      const what = `the reference to ${sym.name} at ${fsym.name}+${hex(at - start)} in ${name}`;
      const noneType = objIsa === 'x86_64' ? R_X86_64_NONE : R_ARM_NONE;
      let patched: PatchedSite;
      if (r.type === noneType) {
        // Processed before (an incremental rebuild): the site is patched already; record it again.
        const thumb = objIsa === 'arm' && (fsym.value & 1n) === 1n;
        const site = objIsa === 'x86_64' ? at - 1 : at;
        const b = code.subarray(site, site + (objIsa === 'x86_64' ? 5 : 4));
        const tail = objIsa === 'x86_64' ? b[0] === 0xc3 || b[2] === 0xc3 : thumb ? b[0] === 0x70 && b[1] === 0x47 : (b[3]! & 0x0f) === 0x01;
        patched = { bytes: b.slice(), tail, thumb, at: site };
      } else if (objIsa === 'x86_64') {
        if (r.type !== R_X86_64_PLT32 && r.type !== R_X86_64_PC32) throw new UsdtLinkError(`${what} is not a call (relocation type ${r.type})`);
        patched = patchX86(code, at, parsed.isEnabled, what);
      } else if (r.type === R_ARM_THM_CALL || r.type === R_ARM_THM_JUMP24) {
        patched = patchT32(code, at, parsed.isEnabled, what);
      } else if (r.type === R_ARM_CALL || r.type === R_ARM_JUMP24 || r.type === R_ARM_PC24) {
        patched = patchA32(code, at, parsed.isEnabled, what);
      } else {
        throw new UsdtLinkError(`${what} is not a call (relocation type ${r.type})`);
      }
      // The relocation becomes NONE, its symbol kept (r_info's type field is its low 32 bits on ELF64, low 8 on ELF32).
      const entry = rs.section.offset + i * entrySize;
      if (elf.is64) dv.setUint32(entry + 8, noneType, true);
      else dv.setUint8(entry + 4, noneType);
      // The called symbol becomes absolute: the program links without a definition of it.
      if (sym.shndx !== SHN_ABS) {
        const symEntry = symtab.offset + r.symbolIndex * (elf.is64 ? 24 : 16);
        dv.setUint16(symEntry + (elf.is64 ? 6 : 14), SHN_ABS, true);
      }
      modified = true;
      sites.push({
        provider: parsed.provider,
        probe: parsed.probe,
        file,
        function: fsym.name,
        local: fsym.bind === 0,
        offset: patched.at - start,
        isEnabled: parsed.isEnabled,
        tail: patched.tail,
        thumb: patched.thumb,
      });
    });
  }
  return { name, bytes: modified ? bytes : input, sites, modified, isa: objIsa };
}

/** The result of a whole `-G` link: the rewritten objects and the description object. */
export interface UsdtLinkResult {
  readonly isa: Isa;
  readonly objects: readonly UsdtProcessedObject[];
  readonly description: UsdtDescription;
  /** The description object's bytes (ET_REL of the objects' machine). */
  readonly descriptionObject: Uint8Array;
}

/**
 * `dtrace -G`: process every object (all or nothing: an error in any leaves
 * every input unchanged, as the caller writes nothing), then build the
 * description object. An empty object list makes a description object for
 * `isa` (dtrace -G with no objects still writes one).
 */
export function linkUsdt(providers: readonly UsdtProviderDefinition[], objects: readonly { name: string; bytes: Uint8Array }[], source: string, isa?: Isa): UsdtLinkResult {
  let want = isa;
  const processed = objects.map((o) => {
    const p = processUsdtObject(o.name, o.bytes, providers, want);
    want = p.isa;
    return p;
  });
  const finalIsa = want ?? 'x86_64';
  const description: UsdtDescription = { format: USDT_FORMAT, isa: finalIsa, providers, sites: processed.flatMap((p) => p.sites), source };
  return { isa: finalIsa, objects: processed, description, descriptionObject: descriptionObject(finalIsa, description) };
}

/**
 * A relocatable object holding one non-allocated section, USDT_SECTION,
 * with the description as JSON text: the ELF header, the section's bytes,
 * the section-name table, an empty symbol table and its string table, and
 * the section headers. Identical input gives identical bytes.
 */
export function descriptionObject(isa: Isa, description: UsdtDescription): Uint8Array {
  const wide = isa === 'x86_64';
  const text = new TextEncoder().encode(JSON.stringify(description));
  const shstr = new TextEncoder().encode(`\0${USDT_SECTION}\0.shstrtab\0.symtab\0.strtab\0`);
  const nameOf = (n: string): number => `\0${USDT_SECTION}\0.shstrtab\0.symtab\0.strtab\0`.indexOf(`\0${n}\0`) + 1;
  const ehsize = wide ? 64 : 52;
  const shentsize = wide ? 64 : 40;
  const symsize = wide ? 24 : 16;
  const align = (n: number, a: number): number => (n + a - 1) & ~(a - 1);
  const dataOff = ehsize;
  const shstrOff = dataOff + text.length;
  const symOff = align(shstrOff + shstr.length, 8);
  const strOff = symOff + symsize;
  const shOff = align(strOff + 1, 8);
  const total = shOff + 5 * shentsize;
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  out.set([0x7f, 0x45, 0x4c, 0x46, wide ? 2 : 1, 1, 1, 0], 0);
  dv.setUint16(16, ET_REL, true);
  dv.setUint16(18, wide ? EM_X86_64 : EM_ARM, true);
  dv.setUint32(20, 1, true);
  if (wide) {
    dv.setBigUint64(40, BigInt(shOff), true);
    dv.setUint16(52, ehsize, true);
    dv.setUint16(58, shentsize, true);
    dv.setUint16(60, 5, true);
    dv.setUint16(62, 2, true);
  } else {
    dv.setUint32(32, shOff, true);
    dv.setUint32(36, 0x05000000, true); // EF_ARM_EABI_VER5
    dv.setUint16(40, ehsize, true);
    dv.setUint16(46, shentsize, true);
    dv.setUint16(48, 5, true);
    dv.setUint16(50, 2, true);
  }
  out.set(text, dataOff);
  out.set(shstr, shstrOff);
  const section = (i: number, name: number, type: number, offset: number, size: number, link: number, info: number, addralign: number, entsize: number): void => {
    const o = shOff + i * shentsize;
    dv.setUint32(o, name, true);
    dv.setUint32(o + 4, type, true);
    if (wide) {
      dv.setBigUint64(o + 24, BigInt(offset), true);
      dv.setBigUint64(o + 32, BigInt(size), true);
      dv.setUint32(o + 40, link, true);
      dv.setUint32(o + 44, info, true);
      dv.setBigUint64(o + 48, BigInt(addralign), true);
      dv.setBigUint64(o + 56, BigInt(entsize), true);
    } else {
      dv.setUint32(o + 16, offset, true);
      dv.setUint32(o + 20, size, true);
      dv.setUint32(o + 24, link, true);
      dv.setUint32(o + 28, info, true);
      dv.setUint32(o + 32, addralign, true);
      dv.setUint32(o + 36, entsize, true);
    }
  };
  section(1, nameOf(USDT_SECTION), 1 /* SHT_PROGBITS */, dataOff, text.length, 0, 0, 1, 0);
  section(2, nameOf('.shstrtab'), 3 /* SHT_STRTAB */, shstrOff, shstr.length, 0, 0, 1, 0);
  section(3, nameOf('.symtab'), 2 /* SHT_SYMTAB */, symOff, symsize, 4, 1, wide ? 8 : 4, symsize);
  section(4, nameOf('.strtab'), 3, strOff, 1, 0, 0, 1, 0);
  return out;
}

/**
 * The USDT description an executable carries (the section of the
 * description objects linked into it), undefined when it has none. Several
 * description objects linked into one program give their sections one
 * after the other; each is read. Throws UsdtLinkError for a section that
 * is not a description.
 */
export function readUsdtDescriptions(elf: ElfFile): UsdtDescription[] | undefined {
  const sec = elf.sectionByName(USDT_SECTION);
  if (!sec) return undefined;
  const text = new TextDecoder().decode(elf.sectionData(sec));
  const out: UsdtDescription[] = [];
  // Concatenated JSON objects, possibly padded with NULs between them.
  let pos = 0;
  while (pos < text.length) {
    while (pos < text.length && (text[pos] === '\0' || /\s/.test(text[pos]!))) pos++;
    if (pos >= text.length) break;
    const end = jsonObjectEnd(text, pos);
    if (end < 0) throw new UsdtLinkError(`${USDT_SECTION}: malformed description at offset ${pos}`);
    let d: UsdtDescription;
    try {
      d = JSON.parse(text.slice(pos, end)) as UsdtDescription;
    } catch {
      throw new UsdtLinkError(`${USDT_SECTION}: malformed description at offset ${pos}`);
    }
    if (d.format !== USDT_FORMAT || !Array.isArray(d.providers) || !Array.isArray(d.sites)) throw new UsdtLinkError(`${USDT_SECTION}: not a ${USDT_FORMAT} description at offset ${pos}`);
    out.push(d);
    pos = end;
  }
  return out;
}

/** The index just past the JSON object starting at `start` (strings and nesting followed), or -1. */
function jsonObjectEnd(text: string, start: number): number {
  if (text[start] !== '{') return -1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}
