// `wdtrace dis`: disassembles the executable sections of an ELF file with the
// CPU cores' own decoders, in llvm-objdump -d's layout, so what DTrace's
// providers see when they walk guest code can be read and compared.
//
// `wdtrace dis --live PROBE-DESCRIPTION`: builds the guest machine (nothing
// runs), enables the matching probes as the framework does, and lists each
// function's text as the image has it next to the live text the guest would
// fetch now, patched instructions marked, then disables the probes again.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { parseProbeDescription, type Probe, type ProbeRegistry } from '@wdtrace/dtrace-core';
import { EM_ARM, EM_X86_64, ElfError, SHF_EXECINSTR, SHT_PROGBITS, SymbolTable, parseElf, type ElfFile, type ElfSymbol, type Isa, type KernelSymbol } from '@wdtrace/kernel';
import { createX86Decoder, disassemble, formatLine, type Symbolizer } from '@wdtrace/isa-x86-as';
import { armObjdumpLines, columnOf } from '@wdtrace/isa-arm-as';
import { ProviderError } from '@wdtrace/providers';
import { Session, liveRows, placedProbes } from '@wdtrace/session';

export interface DisIo {
  out(s: string): void;
  err(s: string): void;
}

const ARCHES = { x86_64: EM_X86_64, arm: EM_ARM } as const;
type Arch = keyof typeof ARCHES;

const STT_NOTYPE = 0;
const STT_OBJECT = 1;
const STT_FUNC = 2;

/** A symbol that starts a block of disassembly (llvm-objdump's `<name>:` headers). */
interface Label {
  address: bigint;
  name: string;
}

class DisError extends Error {}

function hex(v: bigint, width: number): string {
  return v.toString(16).padStart(width, '0');
}

/** A symbol's address; an ARM function's bit 0 only says it is Thumb code. */
function symbolAddress(elf: ElfFile, s: ElfSymbol): bigint {
  return elf.machine === EM_ARM && s.type === STT_FUNC ? s.value & ~1n : s.value;
}

/**
 * Symbols that label code in `sectionIndex` (functions, objects and plain
 * labels, ARM mapping symbols included), one per address: where several share an
 * address, llvm-objdump keeps the greatest by (type, name), so a function
 * wins over a plain label.
 */
function labelsOf(elf: ElfFile, sectionIndex: number, base: bigint, relocatable: boolean): Label[] {
  const byAddress = new Map<bigint, { type: number; name: string }>();
  for (const s of elf.symbols()) {
    if (s.shndx !== sectionIndex || !s.name) continue;
    if (s.type !== STT_FUNC && s.type !== STT_OBJECT && s.type !== STT_NOTYPE) continue;
    const address = relocatable ? base + symbolAddress(elf, s) : symbolAddress(elf, s);
    const have = byAddress.get(address);
    if (!have || s.type > have.type || (s.type === have.type && s.name > have.name)) byAddress.set(address, { type: s.type, name: s.name });
  }
  return [...byAddress].map(([address, s]) => ({ address, name: s.name })).sort((a, b) => (a.address < b.address ? -1 : 1));
}

const SHN_ABS = 0xfff1;

/**
 * Names addresses in [start, end] after `labels`, as llvm-objdump does: the
 * label starting at an address, and the nearest label at or below any
 * address as `name` or `name+0xoff` (the kernel's symbol table, holding the
 * labels as one module; an address at `end` still belongs to it).
 */
function labelSymbolizer(labels: readonly Label[], start: bigint, end: bigint): Symbolizer {
  const table = new SymbolTable();
  table.add('labels', labels.map((l) => ({ name: l.name, address: l.address, size: 0, module: 'labels', isFunction: false, isGlobal: true })), start, end + 1n);
  return {
    startingAt: (address) => {
      const info = table.lookup(address);
      return info && info.offset === 0n ? info.symbol.name : undefined;
    },
    symbolize: (address) => {
      const info = table.lookup(address);
      if (!info) return undefined;
      return info.offset === 0n ? info.symbol.name : `${info.symbol.name}+0x${info.offset.toString(16)}`;
    },
  };
}

/**
 * Names any address of a linked file as llvm-objdump does: by the symbols of
 * the section that holds it, or, outside every section, by the absolute
 * symbols (FILE symbols included), the greatest by (type, name) winning
 * among those at one address.
 */
function fileSymbolizer(elf: ElfFile, sectionNames: boolean): Symbolizer {
  const sections = elf.sections
    .filter((s) => s.addr !== 0n && s.size > 0)
    .map((s) => {
      // For branch targets, as in the listing, a section's name labels its start when no symbol does.
      const labels = labelsOf(elf, s.index, s.addr, false);
      if (sectionNames && labels[0]?.address !== s.addr) labels.unshift({ address: s.addr, name: s.name });
      return { start: s.addr, end: s.addr + BigInt(s.size), table: labelSymbolizer(labels, s.addr, s.addr + BigInt(s.size)) };
    });
  const absolute = new Map<bigint, { type: number; name: string }>();
  for (const s of elf.symbols()) {
    if (s.shndx !== SHN_ABS || !s.name) continue;
    const have = absolute.get(s.value);
    if (!have || s.type > have.type || (s.type === have.type && s.name > have.name)) absolute.set(s.value, { type: s.type, name: s.name });
  }
  const absoluteTable = labelSymbolizer([...absolute].map(([address, s]) => ({ address, name: s.name })).sort((a, b) => (a.address < b.address ? -1 : 1)), 0n, (1n << 64n) - 2n);
  // A symbol may sit at its section's very end (`__bss_end`): an address there still belongs to it.
  const tableFor = (address: bigint): Symbolizer =>
    (sections.find((s) => address >= s.start && address < s.end) ?? sections.find((s) => address === s.end))?.table ?? absoluteTable;
  return {
    startingAt: (address) => tableFor(address).startingAt(address),
    symbolize: (address) => tableFor(address).symbolize(address),
  };
}

/**
 * ARM mapping symbols ($a code, $d data, $t Thumb) of a section, by address,
 * as llvm-objdump uses them. A section without any is Thumb code from each
 * function symbol with bit 0 set (and A32 from the others), and otherwise
 * `defaultKind` (wdtrace dis --thumb makes it Thumb).
 */
function mappingOf(elf: ElfFile, sectionIndex: number, base: bigint, relocatable: boolean, defaultKind: string): { address: bigint; kind: string }[] {
  const at = (s: ElfSymbol): bigint => (relocatable ? base + symbolAddress(elf, s) : symbolAddress(elf, s));
  const inSection = elf.symbols().filter((s: ElfSymbol) => s.shndx === sectionIndex);
  const symbols = inSection.filter((s: ElfSymbol) => /^\$[adt](\.|$)/.test(s.name)).map((s: ElfSymbol) => ({ address: at(s), kind: s.name[1]! }));
  if (symbols.length === 0) {
    symbols.push({ address: base, kind: defaultKind });
    for (const s of inSection) if (s.type === STT_FUNC) symbols.push({ address: at(s), kind: s.value & 1n ? 't' : 'a' });
  }
  return symbols.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}


/** Disassembles `bytes` (an ELF file) and returns llvm-objdump -d's text for it. */
export async function disassembleElfFile(bytes: Uint8Array, displayName: string, options: { arch?: Arch; symbols?: string[]; thumb?: boolean } = {}): Promise<string> {
  const elf = parseElf(bytes);
  const arch = (Object.keys(ARCHES) as Arch[]).find((a) => ARCHES[a] === elf.machine);
  if (!arch) throw new DisError(`${displayName}: ${elf.machineName} ELF files cannot be disassembled (x86_64 and arm can)`);
  if (options.arch && options.arch !== arch) throw new DisError(`${displayName} is an ${arch} ELF file, not ${options.arch}`);
  if (options.thumb && arch !== 'arm') throw new DisError(`${displayName} is an ${arch} ELF file: --thumb is for ARM code`);
  const relocatable = elf.type === 1;
  const wanted = options.symbols?.length ? new Set(options.symbols) : undefined;
  const found = new Set<string>();
  const decoder = arch === 'x86_64' ? await createX86Decoder() : undefined;
  const width = elf.is64 ? 16 : 8;
  const format = arch === 'x86_64' ? 'elf64-x86-64' : 'elf32-littlearm';
  let out = `\n${displayName}:\tfile format ${format}\n`;
  // A relocatable object's sections all start at 0: only the section's own labels name its addresses.
  const targets = arch === 'x86_64' && !relocatable ? fileSymbolizer(elf, true) : undefined;
  const data = arch === 'x86_64' && !relocatable ? fileSymbolizer(elf, false) : undefined;
  for (const section of elf.sections) {
    if (section.type !== SHT_PROGBITS || (section.flags & SHF_EXECINSTR) === 0 || section.size === 0) continue;
    const base = relocatable ? 0n : section.addr;
    const code = elf.sectionData(section);
    const end = base + BigInt(section.size);
    let labels = labelsOf(elf, section.index, base, relocatable).filter((l) => l.address >= base && l.address < end);
    if (labels.length === 0 || labels[0]!.address !== base) labels = [{ address: base, name: section.name }, ...labels];
    const table = labelSymbolizer(labels, base, end);
    const mapping = arch === 'arm' ? mappingOf(elf, section.index, base, relocatable, options.thumb ? 't' : 'a') : [];
    let sectionText = '';
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      const next = labels[i + 1]?.address ?? end;
      if (wanted && !wanted.has(label.name)) continue;
      found.add(label.name);
      const slice = code.subarray(Number(label.address - base), Number(next - base));
      const lines =
        arch === 'x86_64'
          ? disassemble(decoder!, slice, label.address, targets ?? table, data).map(formatLine)
          : armObjdumpLines(slice, label.address, mapping, (a) => table.symbolize(a));
      sectionText += `\n${hex(label.address, width)} <${label.name}>:\n${lines.join('\n')}${lines.length ? '\n' : ''}`;
    }
    if (sectionText || !wanted) out += `\nDisassembly of section ${section.name}:\n${sectionText}`;
  }
  if (wanted) {
    const missing = [...wanted].filter((s) => !found.has(s));
    if (missing.length) throw new DisError(`${displayName}: no symbol ${missing.map((s) => `'${s}'`).join(', ')} in an executable section`);
  }
  return out;
}

/** Enables (or disables) probes as the framework does: the provider acts on the first enabling and the last disabling. */
function setEnabled(registry: ProbeRegistry, probes: readonly Probe[], on: boolean): void {
  for (const p of probes) {
    const ops = registry.provider(p.provider)!.ops;
    if (on) {
      if (p.enabledCount++ === 0) ops.enable(p.id, p.providerArg);
    } else if (--p.enabledCount === 0) ops.disable(p.id, p.providerArg);
  }
}

/**
 * The live-text listing: per function, llvm-objdump's lines of the image's
 * text; an instruction a probe patched shows as `-` (the image) followed by
 * `+` (the live text), with the probes placed there after `<-`.
 */
export async function liveListing(options: { arch: Isa; thumb?: boolean; descriptions: readonly string[]; symbols: readonly string[] }): Promise<string> {
  const session = await Session.create({ guest: { isa: options.arch, thumb: options.thumb } });
  const machine = session.machine!;
  const registry = session.registry;
  const matched = new Map<number, Probe>();
  for (const text of options.descriptions) {
    let desc;
    try {
      desc = parseProbeDescription(text);
    } catch (e) {
      throw new DisError((e as Error).message);
    }
    let found: Probe[];
    try {
      found = registry.match(desc);
    } catch (e) {
      if (e instanceof ProviderError) throw new DisError(`description '${text}': ${e.message}`);
      throw e;
    }
    // BEGIN, END, ERROR and profile probes patch no text.
    found = found.filter((p) => !['dtrace', 'profile'].includes(p.provider));
    if (found.length === 0) throw new DisError(`description '${text}' matched no kernel probe`);
    for (const p of found) matched.set(p.id, p);
  }
  // The functions asked for, or those whose text the probes patch.
  const wanted: KernelSymbol[] = [];
  for (const name of options.symbols) {
    const [module, fn] = name.includes('`') ? (name.split('`', 2) as [string, string]) : [undefined, name];
    const sym = machine.symbols.byName(fn, module);
    if (!sym || !sym.isFunction || sym.size === 0) throw new DisError(`no function '${name}' in the guest kernel or its modules`);
    wanted.push(sym);
  }
  const probes = [...matched.values()];
  const image = new Map<KernelSymbol, Uint8Array>();
  const all = wanted.length ? wanted : machine.symbols.functions().filter((f) => f.size > 0);
  for (const f of all) image.set(f, machine.readText(f.address, f.size));
  setEnabled(registry, probes, true);
  let out = '';
  try {
    const placed = placedProbes(registry);
    const live = new Map<KernelSymbol, Uint8Array>();
    for (const f of all) live.set(f, machine.readText(f.address, f.size));
    const shown = wanted.length
      ? wanted
      : all.filter((f) => {
          const a = image.get(f)!, b = live.get(f)!;
          return a.some((x, i) => x !== b[i]);
        });
    const width = options.arch === 'x86_64' ? 16 : 8;
    let patched = 0;
    out += `Live kernel text (${options.thumb ? `${options.arch}, Thumb-2` : options.arch}) with ${probes.length} probe${probes.length === 1 ? '' : 's'} enabled: ${options.descriptions.join(', ')}\n`;
    out += "'-' the image's instruction, '+' the live text a probe put there, '<-' the probes placed at it.\n";
    for (const f of shown) {
      const start = f.address;
      const rows = await liveRows(machine, f, image.get(f)!, live.get(f)!, placed);
      const label = f.module === 'kernel' ? f.name : `${f.module}\`${f.name}`;
      out += `\n${hex(start, width)} <${label}>:\n`;
      // The probes placed at an instruction, after its live line at column 64 or further out.
      const mark = (line: string, names: readonly string[] | undefined): string =>
        names ? `${line}${' '.repeat(Math.max(2, 64 - columnOf(line)))}<- ${names.join(', ')}` : line;
      for (const row of rows) {
        if (!row.live) {
          out += `${mark(`  ${row.image}`, row.probes)}\n`;
          continue;
        }
        patched++;
        out += `- ${row.image}\n`;
        row.live.forEach((l, i) => (out += `${mark(`+ ${l}`, i === 0 ? row.probes : undefined)}\n`));
      }
    }
    out += `\n${patched} instruction${patched === 1 ? '' : 's'} patched in ${shown.length} function${shown.length === 1 ? '' : 's'} shown.\n`;
  } finally {
    setEnabled(registry, probes, false);
  }
  // Disabled again, the text is the image's.
  for (const f of all) {
    const now = machine.readText(f.address, f.size);
    if (!now.every((b, i) => b === image.get(f)![i])) throw new Error(`${f.name}: the text differs from the image after the probes were disabled`);
  }
  return out;
}

/** Runs `wdtrace dis ARGS...`; returns the exit status. */
export async function runDis(args: string[], io: DisIo): Promise<number> {
  const command = new Command('wdtrace dis')
    .description(
      'disassemble the executable sections of an ELF file (x86-64 or ARM) in llvm-objdump -d layout;\n' +
        'with --live, the guest kernel\'s text with the probes of PROBE-DESCRIPTION enabled, next to the image\'s',
    )
    .usage('[--arch x86_64|arm] [--thumb] [--symbol NAME]... FILE\n       wdtrace dis --live PROBE-DESCRIPTION [--arch x86_64|arm] [--symbol NAME]...')
    .argument('[file]', 'ELF file (executable, shared object or relocatable object)')
    .option('--arch <arch>', 'expected architecture: x86_64 or arm (default: from the file; with --live, x86_64)')
    .option('--thumb', 'ARM: decode code that no mapping symbol ($a, $t) or Thumb function symbol (bit 0 set) marks as Thumb (T32), as llvm-objdump --triple=thumbv7 does; with --live, the Thumb-2 build of the ARM guest')
    .option('--symbol <name>', 'only this symbol (may be repeated)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--live <probe>', 'enable the probes matching this description in the guest kernel and list the live text (may be repeated)', (v: string, prev: string[] = []) => [...prev, v])
    .helpOption('-h, --help', 'print this help and exit')
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (s, write) => write(s.replace(/^error: /, 'wdtrace dis: ')) })
    .exitOverride();
  try {
    command.parse(args, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = command.opts<{ arch?: string; symbol?: string[]; live?: string[]; thumb?: boolean }>();
  const symbols = o.symbol ?? [];
  const file = command.args[0];
  if (o.arch !== undefined && !(o.arch in ARCHES)) {
    io.err(`wdtrace dis: unknown architecture '${o.arch}' (x86_64 or arm)\n`);
    return 2;
  }
  if (o.thumb && o.arch !== undefined && o.arch !== 'arm') {
    io.err(`wdtrace dis: --thumb is for ARM code, not ${o.arch}\n`);
    return 2;
  }
  if (o.live) {
    if (file !== undefined) {
      io.err(`wdtrace dis: --live lists the guest kernel's text and takes no FILE ('${file}')\n`);
      return 2;
    }
    try {
      // With --live, --thumb chooses the Thumb-2 build of the ARM guest (its text is decoded as its image says).
      io.out(await liveListing({ arch: o.thumb ? 'arm' : ((o.arch as Arch | undefined) ?? 'x86_64'), thumb: o.thumb, descriptions: o.live, symbols }));
      return 0;
    } catch (e) {
      if (e instanceof DisError) {
        io.err(`wdtrace dis: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  }
  if (file === undefined) {
    io.err("wdtrace dis: missing required argument 'file'\n");
    return 2;
  }
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.err(`wdtrace dis: cannot open ${file}: ${code === 'ENOENT' ? 'No such file or directory' : code === 'EISDIR' ? 'Is a directory' : (e as Error).message}\n`);
    return 1;
  }
  try {
    io.out(await disassembleElfFile(bytes, file, { arch: o.arch as Arch | undefined, symbols, thumb: o.thumb }));
    return 0;
  } catch (e) {
    if (e instanceof DisError) io.err(`wdtrace dis: ${e.message}\n`);
    else if (e instanceof ElfError) io.err(`wdtrace dis: ${file}: ${e.message}\n`);
    else throw e;
    return 1;
  }
}
