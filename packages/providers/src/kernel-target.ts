// The kernel as the fbt, sdt and kinst providers see it: its text (read and
// patched by the host), its functions, SDT sites and DWARF per module, the
// registers of a CPU that trapped, NOFAULT reads of kernel memory, and the
// list of invop handlers the machine offers its traps to.
//
// The trap and register shapes repeat, structurally, the seam committed in
// @wdtrace/kernel's machine/types.ts (Trap, InvopResult, InvopHandler,
// RegisterFile, SafeRead), which that package does not export from its
// entry point; the machine satisfies `KernelTarget` with a thin adapter.
import {
  EM_ARM,
  ElfFile,
  SHN_ABS,
  SHN_UNDEF,
  STT_FUNC,
  parseElf,
  processKernelSdtSites,
  readDwarf,
  type DwarfInfo,
  type InvopHandler,
  type LinkedModule,
  type RegisterFile as MachineRegisterFile,
  type SafeRead,
  type SdtSite,
} from '@wdtrace/kernel';

export type KernelIsaName = 'x86_64' | 'arm';

// The trap-interposition seam is the machine's own (machine/types.ts).
export type { Trap, InvopResult, InvopHandler, SafeRead } from '@wdtrace/kernel';

/** The registers the providers read of a CPU that trapped (a part of the machine's RegisterFile). */
export type RegisterFile = Pick<MachineRegisterFile, 'pc' | 'get' | 'sp' | 'fp' | 'flags' | 'userMode'>;

/** A function of a kernel module: the ELF symbol's extent. */
export interface KernelFunction {
  readonly module: string;
  readonly name: string;
  readonly address: bigint;
  readonly size: number;
}

/** What the providers need to know about the core kernel or one loaded module. */
export interface KernelModuleImage {
  readonly name: string;
  /** Function symbols with a size, sorted by address. */
  readonly functions: readonly KernelFunction[];
  /** ARM: address ranges holding data inside text (literal pools, from `$d` mapping symbols). */
  readonly dataRanges: readonly { readonly start: bigint; readonly end: bigint }[];
  /** The module's SDT sites as krtld recorded them. */
  readonly sdtSites: readonly SdtSite[];
  /** The module's DWARF (undefined when it has none); may be computed lazily. */
  dwarf(): DwarfInfo | undefined;
}

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

/** Why a module list changed. */
export type ModuleEvent = { readonly kind: 'load' | 'unload'; readonly module: KernelModuleImage };

/** The kernel as the providers drive it; the Machine (through an adapter) or a CoreKernelTarget. */
export interface KernelTarget {
  readonly isa: KernelIsaName;
  /** The core kernel first, then loaded modules. */
  modules(): readonly KernelModuleImage[];
  /** Listen for module loads and unloads; returns the unsubscribe function. */
  onModuleEvent?(listener: (event: ModuleEvent) => void): () => void;
  /** Kernel text as the guest would fetch it now. Throws when unmapped. */
  readText(va: bigint, length: number): Uint8Array;
  /** Patch kernel text from the host (decode caches stay exact). */
  writeText(va: bigint, bytes: Uint8Array): void;
  /** NOFAULT read of kernel memory. */
  readKernel(va: bigint, length: number): SafeRead;
  registers(cpu: number): RegisterFile;
  /** Register a handler of the probe-firing path; returns the function that removes it. */
  addInvopHandler(handler: InvopHandler): () => void;
  /**
   * Differences d such that kernel text linked at v also runs at v - d: the
   * kernel's physical load address, where early boot code (and a secondary
   * CPU's entry path) runs before the MMU maps the kernel at its link
   * address. A trap at such an alias is a trap at the probe's address.
   */
  textAliases?(): readonly bigint[];
}

/** The listeners of a target's module loads and unloads. */
export class ModuleEventListeners {
  private readonly listeners: ((e: ModuleEvent) => void)[] = [];

  /** Adds a listener; returns the function that removes it. */
  add(listener: (e: ModuleEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  emit(event: ModuleEvent): void {
    for (const l of [...this.listeners]) l(event);
  }
}

/** Stability of the providers whose functions are the kernel's (fbt, syscall: illumos's attributes for both). */
export const KERNEL_FUNCTION_ATTRIBUTES = {
  provider: 'Evolving/Evolving/Common',
  module: 'Private/Private/Unknown',
  function: 'Private/Private/ISA',
  name: 'Evolving/Evolving/Common',
  args: 'Private/Private/ISA',
} as const;

/** Where probes fire: dtrace-core's DTraceState satisfies this (dtrace_probe()). */
export interface ProbeSink {
  probe(probeId: number, cpu: number, args: readonly bigint[]): void;
}

/** Function symbols (sized, defined) of an ELF, for `KernelModuleImage.functions`. */
function elfFunctions(elf: ElfFile, moduleName: string, sectionAddresses?: ReadonlyMap<number, bigint>): KernelFunction[] {
  const out: KernelFunction[] = [];
  const seen = new Set<string>();
  for (const s of elf.symbols()) {
    if (s.type !== STT_FUNC || s.shndx === SHN_UNDEF || s.shndx === SHN_ABS || s.size === 0 || !s.name) continue;
    let address = s.value;
    if (sectionAddresses) {
      const base = sectionAddresses.get(s.shndx);
      if (base === undefined) continue;
      address = base + s.value;
    }
    if (elf.machine === EM_ARM) address &= ~1n; // a Thumb bit would not be part of the address
    const key = `${s.name}@${address}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ module: moduleName, name: s.name, address, size: s.size });
  }
  out.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return out;
}

/** ARM mapping symbols: `$d` starts data, `$a`/`$t` start code; returns the data ranges. */
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
    const sectionEnd = section ? (sectionAddresses?.get(m.shndx) ?? section.addr) + BigInt(section.size) : m.address;
    let end = sectionEnd;
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

/**
 * The core kernel's image description from its ELF. Its SDT sites are found
 * with krtld unless given (a machine that loaded the kernel has them already,
 * and its ELF may be the patched image, where the sites are no calls any more).
 */
export function kernelImageFromElf(input: Uint8Array | ElfFile, moduleName = 'kernel', sdtSites?: readonly SdtSite[]): KernelModuleImage {
  // Bytes are copied first: krtld would patch a Node Buffer in place (Buffer#slice is a view).
  const elf = input instanceof ElfFile ? input : parseElf(new Uint8Array(input));
  const sites = sdtSites ?? processKernelSdtSites(elf, moduleName).sites;
  let dwarf: DwarfInfo | undefined | null = null;
  return {
    name: moduleName,
    functions: elfFunctions(elf, moduleName),
    dataRanges: armDataRanges(elf),
    sdtSites: sites,
    dwarf: () => {
      if (dwarf === null) dwarf = elf.sections.some((s) => s.name === '.debug_info') ? readDwarf(elf) : undefined;
      return dwarf;
    },
  };
}

/** A module linked by krtld, described for the providers (`elf` is the module's ET_REL object). */
export function moduleImageFromLinked(linked: LinkedModule, input: Uint8Array | ElfFile): KernelModuleImage {
  const elf = input instanceof ElfFile ? input : parseElf(input);
  let dwarf: DwarfInfo | undefined | null = null;
  const functions: KernelFunction[] = linked.symbols
    .filter((s) => s.isFunction && s.size > 0)
    .map((s) => ({ module: linked.name, name: s.name, address: linked.isa === 'arm' ? s.address & ~1n : s.address, size: s.size }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return {
    name: linked.name,
    functions,
    dataRanges: armDataRanges(elf, linked.sectionAddresses),
    sdtSites: linked.sites,
    dwarf: () => {
      if (dwarf === null) {
        dwarf = elf.sections.some((s) => s.name === '.debug_info') ? readDwarf(elf, { sectionAddresses: linked.sectionAddresses }) : undefined;
      }
      return dwarf;
    },
  };
}

/** Reads an unsigned little-endian word of `size` bytes through NOFAULT access; undefined when it faults. */
export function readWord(target: KernelTarget, va: bigint, size: 4 | 8): bigint | undefined {
  const r = target.readKernel(va, size);
  if ('fault' in r) return undefined;
  const dv = new DataView(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
  return size === 8 ? dv.getBigUint64(0, true) : BigInt(dv.getUint32(0, true));
}

/** Error for a probe request the provider cannot satisfy; says what and where. */
export class ProviderError extends Error {
  constructor(provider: string, message: string) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderError';
  }
}
