// The kernel's code as tracing sees it: the core kernel and every module
// krtld linked, each with its functions (the ELF symbols' extents), the ARM
// literal pools inside its text, its SDT sites and its DWARF (read when first
// asked for). The machine keeps this list as modules come and go and tells
// listeners, so providers can offer probes in a module loaded while tracing
// runs and drop those of a module that went away.
import { EM_ARM, ElfFile, SHN_ABS, SHN_UNDEF, STT_FUNC, parseElf } from '../elf/reader.js';
import { readDwarf, type DwarfInfo } from '../dwarf/model.js';
import type { LinkedModule } from '../krtld/link.js';
import type { SdtSite } from '../krtld/sdt.js';

/** A function of a kernel module: the ELF symbol's extent. */
export interface KernelFunction {
  readonly module: string;
  readonly name: string;
  readonly address: bigint;
  readonly size: number;
  /** ARM: the function is Thumb (T32) code — bit 0 of its symbol was set. */
  readonly thumb?: boolean;
}

/** The core kernel or one loaded module. */
export interface KernelModuleImage {
  readonly name: string;
  /** Function symbols with a size, sorted by address. */
  readonly functions: readonly KernelFunction[];
  /** ARM: address ranges holding data inside text (literal pools, from `$d` mapping symbols). */
  readonly dataRanges: readonly { readonly start: bigint; readonly end: bigint }[];
  /** The module's SDT sites as krtld recorded them. */
  readonly sdtSites: readonly SdtSite[];
  /** The module's DWARF (undefined when it has none), read when first asked for. */
  dwarf(): DwarfInfo | undefined;
}

/** Why the module list changed. */
export type ModuleEvent = { readonly kind: 'load' | 'unload'; readonly module: KernelModuleImage };

/** The address range a module's functions and SDT sites cover (empty when it has neither). */
export function moduleExtent(m: KernelModuleImage): { start: bigint; end: bigint } {
  let start: bigint | undefined;
  let end: bigint | undefined;
  const add = (a: bigint, b: bigint) => {
    if (start === undefined || a < start) start = a;
    if (end === undefined || b > end) end = b;
  };
  for (const f of m.functions) add(f.address, f.address + BigInt(f.size));
  for (const s of m.sdtSites) add(s.address, s.address + BigInt(s.patch.length));
  return { start: start ?? 0n, end: end ?? 0n };
}

const byAddress = (a: KernelFunction, b: KernelFunction): number => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);

/** Function symbols (sized, defined) of a linked kernel ELF. */
function elfFunctions(elf: ElfFile, moduleName: string): KernelFunction[] {
  const out: KernelFunction[] = [];
  const seen = new Set<string>();
  for (const s of elf.symbols()) {
    if (s.type !== STT_FUNC || s.shndx === SHN_UNDEF || s.shndx === SHN_ABS || s.size === 0 || !s.name) continue;
    // On ARM the low bit of a function symbol marks Thumb code; it is no part of the address.
    const address = elf.machine === EM_ARM ? s.value & ~1n : s.value;
    const key = `${s.name}@${address}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ module: moduleName, name: s.name, address, size: s.size, ...(elf.machine === EM_ARM && s.value & 1n ? { thumb: true } : {}) });
  }
  return out.sort(byAddress);
}

/** ARM mapping symbols: `$d` starts data, `$a`/`$t` start code; returns the data ranges (none for other machines). */
function armDataRanges(elf: ElfFile, sectionAddresses?: ReadonlyMap<number, bigint>): { start: bigint; end: bigint }[] {
  if (elf.machine !== EM_ARM) return [];
  const marks: { address: bigint; data: boolean; shndx: number }[] = [];
  for (const s of elf.symbols()) {
    if (s.shndx === SHN_UNDEF || s.shndx >= 0xff00) continue;
    const m = /^\$([adt])(\.|$)/.exec(s.name);
    if (!m) continue;
    let address = s.value;
    if (sectionAddresses) {
      const base = sectionAddresses.get(s.shndx);
      if (base === undefined) continue;
      address = base + s.value;
    }
    marks.push({ address, data: m[1] === 'd', shndx: s.shndx });
  }
  marks.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const ranges: { start: bigint; end: bigint }[] = [];
  for (let i = 0; i < marks.length; i++) {
    const m = marks[i]!;
    if (!m.data) continue;
    const section = elf.sections[m.shndx];
    let end = section ? (sectionAddresses?.get(m.shndx) ?? section.addr) + BigInt(section.size) : m.address;
    for (let j = i + 1; j < marks.length; j++) {
      if (marks[j]!.shndx !== m.shndx) continue;
      if (!marks[j]!.data) {
        end = marks[j]!.address;
        break;
      }
    }
    ranges.push({ start: m.address, end });
  }
  return ranges;
}

/** DWARF read on first use: undefined when the object has no .debug_info. */
function lazyDwarf(elf: ElfFile, sectionAddresses?: ReadonlyMap<number, bigint>): () => DwarfInfo | undefined {
  let dwarf: DwarfInfo | undefined | null = null;
  return () => {
    if (dwarf === null) dwarf = elf.sections.some((s) => s.name === '.debug_info') ? readDwarf(elf, sectionAddresses ? { sectionAddresses } : {}) : undefined;
    return dwarf;
  };
}

/** The core kernel as loaded (its ELF and the SDT sites krtld found in it). */
export function kernelImageFromElf(elf: ElfFile, sdtSites: readonly SdtSite[], moduleName = 'kernel'): KernelModuleImage {
  return { name: moduleName, functions: elfFunctions(elf, moduleName), dataRanges: armDataRanges(elf), sdtSites, dwarf: lazyDwarf(elf) };
}

/** A module linked by krtld, from its link result and its ET_REL object. */
export function moduleImageFromLinked(linked: LinkedModule, object: Uint8Array | ElfFile): KernelModuleImage {
  const elf = object instanceof ElfFile ? object : parseElf(object);
  const functions: KernelFunction[] = linked.symbols
    .filter((s) => s.isFunction && s.size > 0)
    .map((s) => ({ module: linked.name, name: s.name, address: elf.machine === EM_ARM ? s.address & ~1n : s.address, size: s.size, ...(elf.machine === EM_ARM && s.address & 1n ? { thumb: true } : {}) }))
    .sort(byAddress);
  return { name: linked.name, functions, dataRanges: armDataRanges(elf, linked.sectionAddresses), sdtSites: linked.sites, dwarf: lazyDwarf(elf, linked.sectionAddresses) };
}

/** The module list of one machine and its listeners. */
export class KernelModules {
  private readonly images: KernelModuleImage[];
  private readonly listeners: ((e: ModuleEvent) => void)[] = [];

  constructor(kernel: KernelModuleImage) {
    this.images = [kernel];
  }

  /** The core kernel first, then loaded modules in load order. */
  list(): readonly KernelModuleImage[] {
    return this.images;
  }

  /** Adds a listener; returns the function that removes it. */
  listen(listener: (e: ModuleEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  loaded(image: KernelModuleImage): void {
    this.images.push(image);
    this.emit({ kind: 'load', module: image });
  }

  unloaded(name: string): void {
    const i = this.images.findIndex((m, n) => n > 0 && m.name === name);
    if (i < 0) return;
    const [image] = this.images.splice(i, 1);
    this.emit({ kind: 'unload', module: image! });
  }

  private emit(event: ModuleEvent): void {
    for (const l of [...this.listeners]) l(event);
  }
}
