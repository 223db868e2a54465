// The print() action's output after libdtrace's dt_print.c (dtrace_print):
// the traced bytes of a typed value printed as MDB's "::print -tn" does —
// the type's C spelling, then integers in hex ("%#x": 0 prints as "0"),
// chars quoted, floats as "%+.7e", enums by name, function pointers by
// symbol, character arrays that hold a printable NUL-terminated string as
// "...", other arrays as "[ a, b ]", and structs and unions as "{", one
// member per line indented 4 columns per level, "}" (no final newline).
// The walk is ctf_type_visit's: a callback per type and member with its bit
// offset and depth; closing braces are inferred from the depth change.

import { type CType, type IntegerType, resolveType, sizeOfType, typeName } from '../types/ctype.js';
import type { ConsumerSymbols } from '../framework/machine.js';
import { formatCFloat } from './cformat.js';

interface PrintArg {
  /** Byte offset of the value being printed within `bytes`. */
  base: number;
  depth: number;
  nest: number;
}

/** CTF_IS_CHAR: a signed 8-bit character type. */
function isCharType(t: CType): t is IntegerType {
  return t.kind === 'integer' && t.size === 1 && t.signed && t.isChar === true;
}

const isStructLike = (t: CType): boolean => t.kind === 'struct' || t.kind === 'union';
const isPrint = (c: number): boolean => c >= 0x20 && c <= 0x7e;

/** ctf_type_name's spelling: anonymous structs and unions are "struct " and "union ". */
function ctfTypeName(t: CType): string {
  if ((t.kind === 'struct' || t.kind === 'union' || t.kind === 'enum') && t.name === '') return `${t.kind} `;
  return typeName(t);
}

class Printer {
  out = '';
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly symbols: ConsumerSymbols,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private u(off: number, size: number): bigint {
    if (off < 0 || off + size > this.bytes.length) throw new RangeError(`print() data ends before offset ${off + size} (record is ${this.bytes.length} bytes)`);
    switch (size) {
      case 1: return BigInt(this.view.getUint8(off));
      case 2: return BigInt(this.view.getUint16(off, true));
      case 4: return BigInt(this.view.getUint32(off, true));
      default: return this.view.getBigUint64(off, true);
    }
  }

  private trailingBraces(pa: PrintArg, depth: number): void {
    for (let d = pa.depth; d > depth; d--) {
      this.out += ' '.repeat((d + pa.nest - 1) * 4) + '}' + (d === depth + 1 ? '' : '\n');
    }
  }

  private indent(pa: PrintArg): void {
    this.out += ' '.repeat((pa.depth + pa.nest) * 4);
  }

  /** dt_print_hex: "%#x" / "%#llx" of a 1, 2, 4 or 8-byte value. */
  private hex(off: number, size: number): void {
    if (size !== 1 && size !== 2 && size !== 4 && size !== 8) {
      this.out += `<invalid size ${size}>`;
      return;
    }
    const v = this.u(off, size);
    this.out += v === 0n ? '0' : `0x${v.toString(16)}`;
  }

  /** ctf_type_visit: the type itself at `depth`, then (structs and unions) each member one level deeper. */
  visit(name: string, type: CType, bitOff: number, depth: number, pa: PrintArg, bitWidth?: number): void {
    this.member(name, type, bitOff, depth, pa, bitWidth);
    const r = resolveType(type);
    if ((r.kind === 'struct' || r.kind === 'union') && r.complete) {
      for (const m of r.members) {
        this.visit(m.name, m.type, bitOff + m.offset * 8 + (m.bitOffset ?? 0), depth + 1, pa, m.bitWidth);
      }
    }
  }

  /** dt_print_member */
  private member(name: string, type: CType, bitOff: number, depth: number, pa: PrintArg, bitWidth?: number): void {
    this.trailingBraces(pa, depth);
    if (depth < pa.depth) this.out += '\n';
    pa.depth = depth;
    const r = resolveType(type);
    if (r.kind === 'void') {
      this.indent(pa);
      this.out += `${name} = <invalid type>`;
      return;
    }
    const tname = r.kind === 'string' ? 'string' : ctfTypeName(type);
    const arrayMember = pa.nest !== 0 && depth === 0;
    const brief = arrayMember && !isStructLike(r);
    if (!brief) {
      if (arrayMember) this.out += '\n';
      this.indent(pa);
      this.out += tname;
      if (name !== '') {
        if (!tname.endsWith('*') && !tname.endsWith(' ')) this.out += ' ';
        this.out += name;
        if (r.kind === 'integer' && bitWidth !== undefined && (bitWidth % 8 !== 0 || bitOff % 8 !== 0 || bitWidth / 8 !== r.size)) {
          this.out += ` :${bitWidth}`;
        }
        this.out += ' =';
      }
      this.out += ' ';
    }
    this.value(r, bitOff, pa, bitWidth);
    if (!brief) this.out += '\n';
  }

  private value(r: CType, bitOff: number, pa: PrintArg, bitWidth?: number): void {
    const off = pa.base + Math.floor(bitOff / 8);
    switch (r.kind) {
      case 'integer': {
        const bits = bitWidth ?? r.size * 8;
        const size = bits / 8;
        if (size > 8 || bits % 8 !== 0 || (size & (size - 1)) !== 0 || bitOff % 8 !== 0) {
          // print_bitfield: the bits at the member's offset, "%#llx".
          const unit = Math.ceil(((bitOff % 8) + bits) / 8);
          let raw = 0n;
          for (let i = 0; i < unit; i++) raw |= this.u(off + i, 1) << BigInt(8 * i);
          const v = (raw >> BigInt(bitOff % 8)) & ((1n << BigInt(bits)) - 1n);
          this.out += v === 0n ? '0' : `0x${v.toString(16)}`;
          return;
        }
        if (isCharType(r)) {
          const c = Number(BigInt.asIntN(8, this.u(off, 1)));
          if (isPrint(c)) this.out += `'${String.fromCharCode(c)}'`;
          else if (c === 0) this.out += "'\\0'";
          else this.out += `'\\${(c >>> 0).toString(8).padStart(3, '0')}'`;
          return;
        }
        this.hex(off, size);
        return;
      }
      case 'float': {
        const v = r.size === 4 ? this.view.getFloat32(off, true) : r.size === 8 ? this.view.getFloat64(off, true) : undefined;
        if (v === undefined) this.out += '<unknown encoding>';
        else this.out += formatCFloat({ alt: false, zeroPad: false, left: false, plus: true, space: false, group: false, width: 0, precision: 7, conv: 'e' }, v);
        return;
      }
      case 'pointer':
      case 'function': {
        const size = r.kind === 'pointer' ? r.size : 8;
        if (r.kind === 'pointer' && r.target.kind === 'function') {
          const m = this.symbols.lookup(this.u(off, size));
          if (m?.symbol) {
            this.out += `${m.module}\`${m.symbol.name}`;
            return;
          }
        }
        this.hex(off, size);
        return;
      }
      case 'string':
      case 'array':
        this.array(r, off, pa);
        return;
      case 'struct':
      case 'union':
        this.out += r.complete ? '{' : '<forward decl>';
        return;
      case 'enum': {
        if (!r.complete) {
          this.out += '<forward decl>';
          return;
        }
        let value: number;
        if (r.size === 1 || r.size === 2) value = Number(this.u(off, r.size));
        else if (r.size === 4) value = Number(BigInt.asIntN(32, this.u(off, 4)));
        else {
          this.out += `<invalid enum size ${r.size}>`;
          return;
        }
        this.out += r.constants.find((k) => k.value === value)?.name ?? String(value);
        return;
      }
    }
  }

  /** dt_print_array; D strings are arrays of char of the record's size. */
  private array(r: CType, off: number, pa: PrintArg): void {
    const element: CType = r.kind === 'array' ? r.element : { kind: 'integer', name: 'char', size: 1, signed: true, isChar: true };
    const count = r.kind === 'array' ? r.count : this.bytes.length - off;
    const eltSize = sizeOfType(element);
    const er = resolveType(element);
    let isString = false;
    if (isCharType(er)) {
      let i = 0;
      let c = 0;
      for (; i < count; i++) {
        c = this.bytes[off + i] ?? 0;
        if (!isPrint(c) || c === 0) break;
      }
      if (i !== count && c === 0) isString = true;
    }
    if (!isString || pa.depth !== 0) this.out += '[ ';
    if (isString) {
      this.out += '"';
      for (let i = 0; i < count; i++) {
        const c = this.bytes[off + i]!;
        if (c === 0) break;
        this.out += String.fromCharCode(c);
      }
      this.out += '"';
    } else {
      for (let i = 0; i < count; i++) {
        const sub: PrintArg = { base: off + eltSize * i, depth: 0, nest: pa.nest + pa.depth + 1 };
        this.visit('', element, 0, 0, sub);
        this.trailingBraces(sub, 0);
        if (i !== count - 1) this.out += ', ';
        else if (isStructLike(er)) this.out += '\n';
      }
    }
    if (!isString || pa.depth !== 0) {
      if (isStructLike(er)) this.indent(pa);
      else this.out += ' ';
      this.out += ']';
    }
  }
}

/**
 * dtrace_print: the text print() writes for a value of D type `type` whose
 * traced bytes are `bytes` (no trailing newline; the consumer adds the
 * firing's newline as for any record).
 */
export function formatPrint(type: CType, bytes: Uint8Array, symbols: ConsumerSymbols): string {
  const p = new Printer(bytes, symbols);
  const pa: PrintArg = { base: 0, depth: 0, nest: 0 };
  p.visit('', type, 0, 0, pa);
  // dtrace_print closes what is still open.
  let out = p.out;
  for (let d = pa.depth; d > 0; d--) out += ' '.repeat((d - 1) * 4) + '}' + (d === 1 ? '' : '\n');
  return out;
}

/** Whether an integer record of D type `type` is signed (DT_NF_SIGNED); unknown types count as signed. */
export function isSignedType(type: CType | undefined): boolean {
  if (type === undefined) return true;
  const r = resolveType(type);
  if (r.kind === 'integer') return r.signed;
  if (r.kind === 'enum') return true;
  return false;
}
