// Disassembler: turns code bytes into llvm-objdump-style lines (AT&T syntax):
// address, raw bytes, mnemonic and operands, with `<symbol+offset>` after
// branch targets and a header line where a symbol starts. The `wdtrace dis`
// verb prints these; ELF reading stays with the caller.
import type { X86Decoder } from './describe.js';

export interface DisassemblySymbol { address: bigint; name: string }

export interface DisassemblyLine {
  address: bigint;
  bytes: Uint8Array;
  mnemonic: string;
  operands: string;
  /** Symbol starting at this address, if any (print a header before the line). */
  symbol?: string;
  /** Branch/call target, with its symbolic form when known. */
  target?: { address: bigint; symbolic?: string };
}

/** Resolves addresses to `name` or `name+0xoff` against sorted symbols. */
export class SymbolTable {
  private readonly sorted: DisassemblySymbol[];
  private readonly starts = new Map<bigint, string>();
  constructor(symbols: Iterable<DisassemblySymbol>) {
    this.sorted = [...symbols].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    for (const s of this.sorted) if (!this.starts.has(s.address)) this.starts.set(s.address, s.name);
  }
  startingAt(address: bigint): string | undefined { return this.starts.get(address); }
  symbolize(address: bigint): string | undefined {
    let lo = 0, hi = this.sorted.length - 1, best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.sorted[mid]!.address <= address) { best = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (best < 0) return undefined;
    const s = this.sorted[best]!;
    const off = address - s.address;
    return off === 0n ? s.name : `${s.name}+0x${off.toString(16)}`;
  }
}

/** Disassembles `code` loaded at `address`; bytes that do not decode become one-byte `(bad)` lines. */
export function disassemble(decoder: X86Decoder, code: Uint8Array, address: bigint, symbols?: SymbolTable): DisassemblyLine[] {
  const out: DisassemblyLine[] = [];
  let off = 0;
  while (off < code.length) {
    const at = address + BigInt(off);
    const d = decoder.describe(code, off, at);
    const line: DisassemblyLine = d
      ? { address: at, bytes: d.bytes, mnemonic: d.mnemonic, operands: d.operands }
      : { address: at, bytes: code.slice(off, off + 1), mnemonic: '(bad)', operands: '' };
    const sym = symbols?.startingAt(at);
    if (sym) line.symbol = sym;
    if (d?.target !== undefined) line.target = { address: d.target, symbolic: symbols?.symbolize(d.target) };
    out.push(line);
    off += line.bytes.length;
  }
  return out;
}

/** One line as llvm-objdump -d prints it (the `lock` prefix is kept on the instruction's line). */
export function formatLine(line: DisassemblyLine): string {
  const hex = [...line.bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  let operands = line.operands;
  if (line.target?.symbolic) operands += ` <${line.target.symbolic}>`;
  const [first, ...rest] = line.mnemonic.split(' ');
  const mnemonic = rest.length ? `${first}\t\t${rest.join(' ')}` : line.mnemonic;
  // llvm-objdump pads address and bytes together to column 39, or to the next
  // 8-column stop past it when they are longer, whatever the address width.
  const raw = `${line.address.toString(16).padStart(8, ' ')}: ${hex}`;
  const head = raw.padEnd(raw.length <= 39 ? 39 : 39 + Math.ceil((raw.length - 39) / 8) * 8, ' ');
  return `${head}\t${mnemonic}${operands ? `\t${operands}` : ''}`;
}

/** The header llvm-objdump prints where a symbol starts. */
export function formatSymbolHeader(address: bigint, name: string): string {
  return `\n${address.toString(16).padStart(16, '0')} <${name}>:`;
}
