// `wdtrace dis`: disassembles the executable sections of an ELF file with the
// CPU cores' own decoders, in llvm-objdump -d's layout, so what DTrace's
// providers see when they walk guest code can be read and compared.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EM_ARM, EM_X86_64, ElfError, SHF_EXECINSTR, SHT_PROGBITS, parseElf, type ElfFile, type ElfSymbol } from '@wdtrace/kernel';
import { createX86Decoder, disassemble, formatLine, SymbolTable, type Symbolizer } from '@wdtrace/isa-x86-as';
import { describeA32 } from '@wdtrace/isa-arm-as';

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
    const address = relocatable ? base + s.value : s.value;
    const have = byAddress.get(address);
    if (!have || s.type > have.type || (s.type === have.type && s.name > have.name)) byAddress.set(address, { type: s.type, name: s.name });
  }
  return [...byAddress].map(([address, s]) => ({ address, name: s.name })).sort((a, b) => (a.address < b.address ? -1 : 1));
}

const SHN_ABS = 0xfff1;

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
      return { start: s.addr, end: s.addr + BigInt(s.size), table: new SymbolTable(labels) };
    });
  const absolute = new Map<bigint, { type: number; name: string }>();
  for (const s of elf.symbols()) {
    if (s.shndx !== SHN_ABS || !s.name) continue;
    const have = absolute.get(s.value);
    if (!have || s.type > have.type || (s.type === have.type && s.name > have.name)) absolute.set(s.value, { type: s.type, name: s.name });
  }
  const absoluteTable = new SymbolTable([...absolute].map(([address, s]) => ({ address, name: s.name })));
  // A symbol may sit at its section's very end (`__bss_end`): an address there still belongs to it.
  const tableFor = (address: bigint): SymbolTable =>
    (sections.find((s) => address >= s.start && address < s.end) ?? sections.find((s) => address === s.end))?.table ?? absoluteTable;
  return {
    startingAt: (address) => tableFor(address).startingAt(address),
    symbolize: (address) => tableFor(address).symbolize(address),
  };
}

/** ARM mapping symbols ($a code, $d data, $t Thumb) of a section, by address. */
function mappingOf(elf: ElfFile, sectionIndex: number, base: bigint, relocatable: boolean): { address: bigint; kind: string }[] {
  return elf
    .symbols()
    .filter((s: ElfSymbol) => s.shndx === sectionIndex && /^\$[adt](\.|$)/.test(s.name))
    .map((s: ElfSymbol) => ({ address: relocatable ? base + s.value : s.value, kind: s.name[1]! }))
    .sort((a, b) => (a.address < b.address ? -1 : 1));
}

/** Width of a tab-expanded prefix, as llvm-objdump's column counting sees it. */
function columnOf(text: string): number {
  let col = 0;
  for (const ch of text) col = ch === '\t' ? (col + 8) & ~7 : col + 1;
  return col;
}

/**
 * A32 lines in llvm-objdump's layout: words under $d mapping symbols print as
 * .word; branch targets get `<symbol+offset>` and an `@ imm = #N` comment,
 * literal loads an `@ address <symbol+offset>` comment, comments aligned 32
 * columns after the instruction's start.
 */
function armLines(code: Uint8Array, start: bigint, mapping: { address: bigint; kind: string }[], symbolize: (address: bigint) => string | undefined): string[] {
  const view = new DataView(code.buffer, code.byteOffset, code.byteLength);
  const lines: string[] = [];
  for (let off = 0; off + 4 <= code.length; off += 4) {
    const address = start + BigInt(off);
    let kind = 'a';
    for (const m of mapping) {
      if (m.address <= address) kind = m.kind;
      else break;
    }
    const word = view.getUint32(off, true);
    const bytes = [...code.subarray(off, off + 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    if (kind === 'd') {
      lines.push(`${address.toString(16).padStart(8, ' ')}:\t${bytes}\t.word\t0x${word.toString(16).padStart(8, '0')}`);
      continue;
    }
    const prefix = `${address.toString(16).padStart(8, ' ')}: ${bytes}  \t`;
    let text: string;
    let comment: string | undefined;
    if (kind === 't') text = '<Thumb code is not decoded yet>';
    else {
      const insn = describeA32(word, Number(address));
      text = insn.text;
      if (insn.target !== undefined && insn.classes.has('branch')) {
        const sym = symbolize(BigInt(insn.target));
        if (sym) text += ` <${sym}>`;
        comment = `@ imm = #${insn.target - Number(address) - 8}`;
      } else if (insn.literalAddress !== undefined) {
        const sym = symbolize(BigInt(insn.literalAddress));
        comment = `@ 0x${insn.literalAddress.toString(16)}${sym ? ` <${sym}>` : ''}`;
      }
    }
    let line = prefix + text;
    if (comment) line += ' '.repeat(Math.max(1, columnOf(prefix) + 32 - columnOf(line))) + comment;
    lines.push(line);
  }
  return lines;
}

/** Disassembles `bytes` (an ELF file) and returns llvm-objdump -d's text for it. */
export async function disassembleElfFile(bytes: Uint8Array, displayName: string, options: { arch?: Arch; symbols?: string[] } = {}): Promise<string> {
  const elf = parseElf(bytes);
  const arch = (Object.keys(ARCHES) as Arch[]).find((a) => ARCHES[a] === elf.machine);
  if (!arch) throw new DisError(`${displayName}: ${elf.machineName} ELF files cannot be disassembled (x86_64 and arm can)`);
  if (options.arch && options.arch !== arch) throw new DisError(`${displayName} is an ${arch} ELF file, not ${options.arch}`);
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
    const table = new SymbolTable(labels);
    const mapping = arch === 'arm' ? mappingOf(elf, section.index, base, relocatable) : [];
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
          : armLines(slice, label.address, mapping, (a) => table.symbolize(a));
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

/** Runs `wdtrace dis ARGS...`; returns the exit status. */
export async function runDis(args: string[], io: DisIo): Promise<number> {
  const command = new Command('wdtrace dis')
    .description('disassemble the executable sections of an ELF file (x86-64 or ARM) in llvm-objdump -d layout')
    .argument('<file>', 'ELF file (executable, shared object or relocatable object)')
    .option('--arch <arch>', 'expected architecture: x86_64 or arm (default: from the file)')
    .option('--symbol <name>', 'only this symbol (may be repeated)', (v: string, prev: string[] = []) => [...prev, v])
    .helpOption('-h, --help', 'print this help and exit')
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (s, write) => write(s.replace(/^error: /, 'wdtrace dis: ')) })
    .exitOverride();
  try {
    command.parse(args, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = command.opts<{ arch?: string; symbol?: string[] }>();
  const symbols = o.symbol ?? [];
  const file = command.args[0]!;
  if (o.arch !== undefined && !(o.arch in ARCHES)) {
    io.err(`wdtrace dis: unknown architecture '${o.arch}' (x86_64 or arm)\n`);
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
    io.out(await disassembleElfFile(bytes, file, { arch: o.arch as Arch | undefined, symbols }));
    return 0;
  } catch (e) {
    if (e instanceof DisError) io.err(`wdtrace dis: ${e.message}\n`);
    else if (e instanceof ElfError) io.err(`wdtrace dis: ${file}: ${e.message}\n`);
    else throw e;
    return 1;
  }
}
