// Kernel symbol table: the core kernel's and loaded modules' symbols merged,
// for address -> module`function+offset (stack(), func(), sym(), mod()),
// by-name lookup, and function ranges for fbt's walk. Lookups are binary
// searches over an address-sorted array rebuilt when modules come and go.

import { ElfFile, EM_ARM, PT_LOAD, SHN_ABS, SHN_UNDEF, STB_LOCAL, STT_FUNC, STT_OBJECT, parseElf } from '../elf/index.js';
import type { LinkedModule, SymbolResolver } from '../krtld/index.js';
import { floorIndex } from './floor.js';

export interface KernelSymbol {
  readonly name: string;
  readonly address: bigint;
  readonly size: number;
  readonly module: string;
  readonly isFunction: boolean;
  readonly isGlobal: boolean;
  /** ARM: a Thumb (T32) function — bit 0 of the symbol, which `address` leaves out. */
  readonly thumb?: boolean;
}

/** An ARM function symbol's value is its address with bit 0 marking Thumb code. */
function codeSymbol(value: bigint, isFunction: boolean, arm: boolean): { address: bigint; thumb?: boolean } {
  return arm && isFunction && (value & 1n) === 1n ? { address: value & ~1n, thumb: true } : { address: value };
}

export interface AddressInfo {
  readonly module: string;
  /** Symbol covering (or nearest below) the address. */
  readonly symbol: KernelSymbol;
  /** Address minus the symbol's address. */
  readonly offset: bigint;
}

interface ModuleRange {
  readonly name: string;
  readonly start: bigint;
  readonly end: bigint;
}

const byAddress = (a: KernelSymbol, b: KernelSymbol): number => {
  if (a.address !== b.address) return a.address < b.address ? -1 : 1;
  // At one address prefer functions, then globals, then the larger symbol.
  if (a.isFunction !== b.isFunction) return a.isFunction ? -1 : 1;
  if (a.isGlobal !== b.isGlobal) return a.isGlobal ? -1 : 1;
  return b.size - a.size;
};

/** Merged symbols of the kernel and its loaded modules. */
export class SymbolTable {
  private readonly perModule = new Map<string, KernelSymbol[]>();
  private readonly ranges: ModuleRange[] = [];
  private sorted: KernelSymbol[] = [];
  private functionList: KernelSymbol[] = [];
  private names = new Map<string, KernelSymbol[]>();
  private dirty = true;

  /** Symbols of a kernel ELF (functions and objects with a section). */
  static fromKernel(input: Uint8Array | ElfFile, moduleName = 'kernel'): SymbolTable {
    const t = new SymbolTable();
    t.addKernel(input, moduleName);
    return t;
  }

  addKernel(input: Uint8Array | ElfFile, moduleName = 'kernel'): void {
    const elf = input instanceof ElfFile ? input : parseElf(input);
    const syms: KernelSymbol[] = [];
    for (const s of elf.symbols()) {
      if (s.index === 0 || !s.name || s.shndx === SHN_UNDEF || s.shndx === SHN_ABS) continue;
      if (s.type !== STT_FUNC && s.type !== STT_OBJECT) continue;
      const isFunction = s.type === STT_FUNC;
      syms.push({ name: s.name, ...codeSymbol(s.value, isFunction, elf.machine === EM_ARM), size: s.size, module: moduleName, isFunction, isGlobal: s.bind !== STB_LOCAL });
    }
    let start: bigint | undefined;
    let end: bigint | undefined;
    for (const p of elf.programHeaders) {
      if (p.type !== PT_LOAD || p.memsz === 0) continue;
      if (start === undefined || p.vaddr < start) start = p.vaddr;
      const e = p.vaddr + BigInt(p.memsz);
      if (end === undefined || e > end) end = e;
    }
    this.add(moduleName, syms, start ?? 0n, end ?? 0n);
  }

  /** Add a module linked by krtld. */
  addModule(module: LinkedModule): void {
    const arm = module.isa === 'arm';
    const syms = module.symbols.map((s) => ({ name: s.name, ...codeSymbol(s.address, s.isFunction, arm), size: s.size, module: module.name, isFunction: s.isFunction, isGlobal: s.isGlobal }));
    this.add(module.name, syms, module.base, module.base + BigInt(module.size));
  }

  /** Add symbols of a module occupying [start, end). */
  add(moduleName: string, symbols: readonly KernelSymbol[], start: bigint, end: bigint): void {
    if (this.perModule.has(moduleName)) throw new Error(`module ${moduleName} is already in the symbol table`);
    // A module may sit inside another's extent (modules live in the kernel's
    // kmod_arena, in its .bss); only partial overlaps are refused.
    const clash = this.ranges.find((r) => start < r.end && r.start < end && !(r.start <= start && end <= r.end) && !(start <= r.start && r.end <= end));
    if (clash) throw new Error(`module ${moduleName} [0x${start.toString(16)}, 0x${end.toString(16)}) overlaps ${clash.name}`);
    this.perModule.set(moduleName, symbols.map((s) => ({ ...s, module: moduleName })));
    this.ranges.push({ name: moduleName, start, end });
    this.ranges.sort((a, b) => (a.start < b.start ? -1 : 1));
    this.dirty = true;
  }

  removeModule(moduleName: string): boolean {
    if (!this.perModule.delete(moduleName)) return false;
    this.ranges.splice(this.ranges.findIndex((r) => r.name === moduleName), 1);
    this.dirty = true;
    return true;
  }

  get modules(): string[] {
    return this.ranges.map((r) => r.name);
  }

  private rebuild(): void {
    if (!this.dirty) return;
    this.sorted = [...this.perModule.values()].flat().sort(byAddress);
    this.functionList = this.sorted.filter((s) => s.isFunction);
    this.names = new Map();
    for (const s of this.sorted) {
      const list = this.names.get(s.name);
      if (list) list.push(s);
      else this.names.set(s.name, [s]);
    }
    this.dirty = false;
  }

  /** The module whose extent contains `address` (the innermost one when nested). */
  moduleAt(address: bigint): string | undefined {
    let best: ModuleRange | undefined;
    for (const r of this.ranges) {
      if (address >= r.start && address < r.end && (!best || r.end - r.start < best.end - best.start)) best = r;
    }
    return best?.name;
  }

  /** Index of the last entry of `list` with address <= `address`, or -1. */
  private static floor(list: readonly KernelSymbol[], address: bigint): number {
    let found = floorIndex(list, address, (s) => s.address);
    // Step back to the first (preferred) symbol at that address.
    while (found > 0 && list[found - 1]!.address === list[found]!.address) found--;
    return found;
  }

  /**
   * Symbol for an address: the symbol containing it, else the nearest symbol
   * below it in the same module (as stack() prints for code between symbols).
   */
  lookup(address: bigint): AddressInfo | undefined {
    this.rebuild();
    const module = this.moduleAt(address);
    if (module === undefined) return undefined;
    const i = SymbolTable.floor(this.sorted, address);
    if (i < 0) return undefined;
    // A containing symbol may start earlier than the nearest one (nested/aliased); check a few.
    for (let j = i; j >= 0 && j > i - 16; j--) {
      const s = this.sorted[j]!;
      if (s.module === module && address < s.address + BigInt(s.size)) return { module, symbol: s, offset: address - s.address };
    }
    for (let j = i; j >= 0 && j > i - 64; j--) {
      const s = this.sorted[j]!;
      if (s.module === module) return { module, symbol: s, offset: address - s.address };
    }
    return undefined;
  }

  /** The function containing an address (size-checked), for func()/fbt. */
  functionAt(address: bigint): KernelSymbol | undefined {
    this.rebuild();
    const i = SymbolTable.floor(this.functionList, address);
    for (let j = i; j >= 0 && j > i - 16; j--) {
      const s = this.functionList[j]!;
      if (address >= s.address && address < s.address + BigInt(s.size)) return s;
    }
    return undefined;
  }

  /** `module`func+0x1c` as DTrace prints a kernel address. */
  format(address: bigint): string {
    const info = this.lookup(address);
    if (!info) return `0x${address.toString(16)}`;
    const base = `${info.module}\`${info.symbol.name}`;
    return info.offset === 0n ? base : `${base}+0x${info.offset.toString(16)}`;
  }

  /** Symbols named `name`, globals first; optionally only in `module`. */
  byName(name: string, module?: string): KernelSymbol | undefined {
    this.rebuild();
    const list = this.names.get(name);
    if (!list) return undefined;
    const inModule = module === undefined ? list : list.filter((s) => s.module === module);
    return inModule.find((s) => s.isGlobal) ?? inModule[0];
  }

  /** Functions, sorted by address (for fbt's walk), optionally of one module. */
  functions(module?: string): readonly KernelSymbol[] {
    this.rebuild();
    return module === undefined ? this.functionList : this.functionList.filter((s) => s.module === module);
  }

  /** A krtld resolver over the global symbols of every module in the table (Thumb functions with bit 0 set, as in ELF). */
  resolver(): SymbolResolver {
    return (name) => {
      this.rebuild();
      const s = this.names.get(name)?.find((s) => s.isGlobal);
      return s && s.thumb ? s.address | 1n : s?.address;
    };
  }

  get size(): number {
    this.rebuild();
    return this.sorted.length;
  }
}
