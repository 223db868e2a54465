// Disassembler: turns code bytes into llvm-objdump-style lines (AT&T syntax):
// address, raw bytes, mnemonic and operands, with `<symbol+offset>` after
// branch targets and a header line where a symbol starts. The `wdtrace dis`
// verb prints these; ELF reading stays with the caller.
import type { X86Decoder } from './describe.js';

export interface DisassemblyLine {
  address: bigint;
  bytes: Uint8Array;
  mnemonic: string;
  operands: string;
  /** Symbol starting at this address, if any (print a header before the line). */
  symbol?: string;
  /** Branch/call target, with its symbolic form when known. */
  target?: { address: bigint; symbolic?: string };
  /** llvm-objdump's `#` comments: `imm = 0x...` for large immediates, then the address a RIP-relative operand reaches. */
  comments?: string[];
}

/**
 * Names addresses for a listing: the symbol starting at an address, and
 * `name+0xoff` for any address (the caller's symbol table behind it, such
 * as @wdtrace/kernel's).
 */
export interface Symbolizer {
  startingAt(address: bigint): string | undefined;
  symbolize(address: bigint): string | undefined;
}

/**
 * llvm-objdump's comment for an immediate printed as `$value`: only outside
 * [-256, 255], in hex without needless sign bits (16, 32 or 64 bits).
 */
function immediateComment(value: bigint): string | undefined {
  if (value <= 255n && value >= -256n) return undefined;
  const bits = BigInt.asIntN(16, value) === value ? 16 : BigInt.asIntN(32, value) === value ? 32 : 64;
  return `imm = 0x${BigInt.asUintN(bits, value).toString(16).toUpperCase()}`;
}

/**
 * Disassembles `code` loaded at `address`; bytes that do not decode become
 * one-byte `(bad)` lines. `symbols` names branch targets; `dataSymbols`
 * (every symbol of the file, when given) names what RIP-relative operands reach.
 */
export function disassemble(decoder: X86Decoder, code: Uint8Array, address: bigint, symbols?: Symbolizer, dataSymbols?: Symbolizer): DisassemblyLine[] {
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
    if (d) {
      const comments: string[] = [];
      for (const m of d.operands.matchAll(/\$(-?\d+)/g)) {
        const c = immediateComment(BigInt(m[1]!));
        if (c) comments.push(c);
      }
      if (d.fields.ripRelative) {
        const reached = BigInt.asUintN(64, at + BigInt(d.length) + d.fields.disp);
        const name = (dataSymbols ?? symbols)?.symbolize(reached);
        comments.push(`0x${reached.toString(16)}${name ? ` <${name}>` : ''}`);
      }
      if (comments.length) line.comments = comments;
    }
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
  let text = `${head}\t${mnemonic}${operands ? `\t${operands}` : ''}`;
  // Comments start at column 72 (one space further out when the text is
  // longer); each further comment gets a line of its own at that column.
  line.comments?.forEach((comment, i) => {
    const column = i === 0 ? columnOf(text) : 0;
    text += `${i === 0 ? '' : '\n'}${' '.repeat(column < COMMENT_COLUMN ? COMMENT_COLUMN - column : 1)}# ${comment}`;
  });
  return text;
}

const COMMENT_COLUMN = 72;

/** Display column after `text`, tabs stopping every 8 columns. */
function columnOf(text: string): number {
  let column = 0;
  for (const ch of text) column = ch === '\t' ? (column + 8) & ~7 : column + 1;
  return column;
}

/** The header llvm-objdump prints where a symbol starts. */
export function formatSymbolHeader(address: bigint, name: string): string {
  return `\n${address.toString(16).padStart(16, '0')} <${name}>:`;
}
