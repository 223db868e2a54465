// DWARF 4/5 .debug_info decoding into a tree of DIEs, with the string,
// address and range-list indirections of DWARF 5 (.debug_str_offsets,
// .debug_addr, .debug_rnglists) and DWARF 4 (.debug_ranges) resolved. For
// relocatable objects the debug sections' own relocations are applied first.

import { ET_REL, ElfFile, SHN_UNDEF, SHN_ABS } from '../elf/index.js';
import { readField, relocTable, writeField } from '../krtld/relocate.js';
import { DW_AT, DW_FORM, DW_RLE, DW_UT } from './constants.js';

/** The only error the DWARF reader throws for bad input. */
export class DwarfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DwarfError';
  }
}

/** Byte cursor over one section. */
export class Cursor {
  offset: number;
  private readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    readonly section: string,
    offset = 0,
  ) {
    this.offset = offset;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(n: number): void {
    if (this.offset < 0 || this.offset + n > this.bytes.length) {
      throw new DwarfError(`truncated ${this.section}: need ${n} bytes at offset 0x${this.offset.toString(16)} (size 0x${this.bytes.length.toString(16)})`);
    }
  }
  get atEnd(): boolean {
    return this.offset >= this.bytes.length;
  }
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.offset++);
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }
  u24(): number {
    const lo = this.u16();
    return lo | (this.u8() << 16);
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return v;
  }
  sized(n: number): bigint {
    switch (n) {
      case 1: return BigInt(this.u8());
      case 2: return BigInt(this.u16());
      case 4: return BigInt(this.u32());
      case 8: return this.u64();
      default: throw new DwarfError(`unsupported field size ${n} in ${this.section}`);
    }
  }
  uleb(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.u8();
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if (!(b & 0x80)) return result;
      if (shift > 70n) throw new DwarfError(`LEB128 too long in ${this.section} at 0x${this.offset.toString(16)}`);
    }
  }
  ulebNum(): number {
    const v = this.uleb();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DwarfError(`value too large in ${this.section} at 0x${this.offset.toString(16)}`);
    return Number(v);
  }
  sleb(): bigint {
    let result = 0n;
    let shift = 0n;
    let b: number;
    do {
      b = this.u8();
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if (shift > 70n) throw new DwarfError(`LEB128 too long in ${this.section} at 0x${this.offset.toString(16)}`);
    } while (b & 0x80);
    if (b & 0x40) result -= 1n << shift;
    return result;
  }
  take(n: number): Uint8Array {
    this.need(n);
    const v = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }
  cstring(): string {
    const start = this.offset;
    let i = start;
    while (i < this.bytes.length && this.bytes[i] !== 0) i++;
    if (i >= this.bytes.length) throw new DwarfError(`unterminated string in ${this.section} at 0x${start.toString(16)}`);
    this.offset = i + 1;
    return utf8(this.bytes.subarray(start, i));
  }
}

const decoder = new TextDecoder();
function utf8(b: Uint8Array): string {
  return decoder.decode(b);
}

/** Raw attribute value as read; indirections are resolved by the unit. */
export interface RawAttr {
  readonly form: number;
  readonly value: bigint | string | Uint8Array | boolean;
}

export interface Die {
  readonly offset: number;
  readonly tag: number;
  readonly unit: Unit;
  readonly attrs: Map<number, RawAttr>;
  readonly children: Die[];
  readonly parent: Die | undefined;
}

interface Abbrev {
  readonly tag: number;
  readonly hasChildren: boolean;
  readonly specs: readonly { at: number; form: number; implicit?: bigint }[];
}

export interface Unit {
  readonly offset: number;
  readonly version: number;
  readonly addressSize: number;
  readonly offsetSize: 4 | 8;
  root: Die | undefined;
  strOffsetsBase: number;
  addrBase: number;
  rnglistsBase: number;
  /** CU base address (DW_AT_low_pc) for range lists. */
  baseAddress: bigint;
}

/** The debug sections, with relocations applied for ET_REL files. */
export interface DebugSections {
  readonly info: Uint8Array;
  readonly abbrev: Uint8Array;
  readonly str?: Uint8Array;
  readonly lineStr?: Uint8Array;
  readonly strOffsets?: Uint8Array;
  readonly addr?: Uint8Array;
  readonly rnglists?: Uint8Array;
  readonly ranges?: Uint8Array;
}

/**
 * Copy the debug sections out of an ELF file. For ET_REL objects the
 * relocations of each debug section are applied, using `sectionAddresses`
 * (e.g. a krtld link's) for the sections they refer to, or 0.
 */
export function loadDebugSections(elf: ElfFile, sectionAddresses?: ReadonlyMap<number, bigint>): DebugSections {
  const get = (name: string): Uint8Array | undefined => {
    const s = elf.sectionByName(name);
    if (!s) return undefined;
    const data = elf.sectionData(s).slice();
    if (elf.type === ET_REL) {
      const rel = elf.relocationsFor(s.index);
      if (rel) {
        const table = relocTable(elf.machine);
        const symbols = elf.symbols(rel.symtab);
        for (const e of rel.entries) {
          const kind = table.get(e.type);
          if (!kind) throw new DwarfError(`unsupported relocation type ${e.type} in ${rel.section.name}`);
          const sym = symbols[e.symbolIndex];
          if (!sym) throw new DwarfError(`relocation in ${rel.section.name} names missing symbol ${e.symbolIndex}`);
          const off = Number(e.offset);
          if (off + kind.size > data.length) throw new DwarfError(`relocation in ${rel.section.name} at 0x${off.toString(16)} is outside ${name}`);
          let S: bigint;
          if (sym.shndx === SHN_UNDEF || sym.shndx === SHN_ABS) S = sym.shndx === SHN_ABS ? sym.value : 0n;
          else S = (sectionAddresses?.get(sym.shndx) ?? 0n) + sym.value;
          const field = readField(data, off, kind.size);
          const A = e.addend ?? (kind.readAddend ? kind.readAddend(field) : 0n);
          let v: bigint;
          try {
            v = kind.apply({ S, A, P: 0n }, field);
          } catch (err) {
            throw new DwarfError(`${rel.section.name} at 0x${off.toString(16)}: ${(err as Error).message}`);
          }
          writeField(data, off, kind.size, v);
        }
      }
    }
    return data;
  };
  const info = get('.debug_info');
  const abbrev = get('.debug_abbrev');
  if (!info || !abbrev) throw new DwarfError('no DWARF debug information (.debug_info/.debug_abbrev missing)');
  const out: { -readonly [K in keyof DebugSections]: DebugSections[K] } = { info, abbrev };
  const opt: [keyof DebugSections, string][] = [
    ['str', '.debug_str'],
    ['lineStr', '.debug_line_str'],
    ['strOffsets', '.debug_str_offsets'],
    ['addr', '.debug_addr'],
    ['rnglists', '.debug_rnglists'],
    ['ranges', '.debug_ranges'],
  ];
  for (const [k, n] of opt) {
    const d = get(n);
    if (d) out[k] = d;
  }
  return out;
}

function parseAbbrevs(bytes: Uint8Array, offset: number): Map<number, Abbrev> {
  const c = new Cursor(bytes, '.debug_abbrev', offset);
  const table = new Map<number, Abbrev>();
  for (;;) {
    const code = c.ulebNum();
    if (code === 0) break;
    const tag = c.ulebNum();
    const hasChildren = c.u8() !== 0;
    const specs: { at: number; form: number; implicit?: bigint }[] = [];
    for (;;) {
      const at = c.ulebNum();
      const form = c.ulebNum();
      if (at === 0 && form === 0) break;
      specs.push(form === DW_FORM.implicit_const ? { at, form, implicit: c.sleb() } : { at, form });
    }
    table.set(code, { tag, hasChildren, specs });
  }
  return table;
}

/** All DIEs of a file, by unit, with lookup by .debug_info offset. */
export class DieTree {
  readonly units: Unit[] = [];
  readonly byOffset = new Map<number, Die>();

  constructor(readonly sections: DebugSections) {
    const abbrevCache = new Map<number, Map<number, Abbrev>>();
    const c = new Cursor(sections.info, '.debug_info');
    while (!c.atEnd) {
      const unitOffset = c.offset;
      let length: number = c.u32();
      let offsetSize: 4 | 8 = 4;
      if (length === 0xffffffff) {
        length = Number(c.u64());
        offsetSize = 8;
      }
      const end = c.offset + length;
      if (end > sections.info.length) throw new DwarfError(`unit at .debug_info+0x${unitOffset.toString(16)} runs past the section end`);
      const version = c.u16();
      let unitType: number = DW_UT.compile;
      let addressSize: number;
      let abbrevOffset: number;
      if (version >= 5) {
        unitType = c.u8();
        addressSize = c.u8();
        abbrevOffset = Number(c.sized(offsetSize));
        if (unitType === DW_UT.skeleton || unitType === DW_UT.split_compile) c.u64();
        if (unitType === DW_UT.type || unitType === DW_UT.split_type) {
          c.offset = end; // type units are not used by clang without -fdebug-types-section
          continue;
        }
      } else if (version >= 2) {
        abbrevOffset = Number(c.sized(offsetSize));
        addressSize = c.u8();
      } else throw new DwarfError(`unsupported DWARF version ${version} at .debug_info+0x${unitOffset.toString(16)}`);
      if (version > 5) throw new DwarfError(`unsupported DWARF version ${version} at .debug_info+0x${unitOffset.toString(16)}`);
      if (addressSize !== 4 && addressSize !== 8) throw new DwarfError(`bad address size ${addressSize} at .debug_info+0x${unitOffset.toString(16)}`);
      let abbrevs = abbrevCache.get(abbrevOffset);
      if (!abbrevs) {
        abbrevs = parseAbbrevs(sections.abbrev, abbrevOffset);
        abbrevCache.set(abbrevOffset, abbrevs);
      }
      const unit: Unit = { offset: unitOffset, version, addressSize, offsetSize, root: undefined, strOffsetsBase: 8, addrBase: 8, rnglistsBase: 0, baseAddress: 0n };
      this.units.push(unit);
      const stack: Die[] = [];
      const uc = new Cursor(sections.info.subarray(0, end), '.debug_info', c.offset);
      while (uc.offset < end) {
        const dieOffset = uc.offset;
        const code = uc.ulebNum();
        if (code === 0) {
          stack.pop();
          if (stack.length === 0) break;
          continue;
        }
        const ab = abbrevs.get(code);
        if (!ab) throw new DwarfError(`unknown abbreviation code ${code} at .debug_info+0x${dieOffset.toString(16)}`);
        const attrs = new Map<number, RawAttr>();
        for (const spec of ab.specs) attrs.set(spec.at, readForm(uc, spec.form, unit, spec.implicit));
        const parent = stack[stack.length - 1];
        const die: Die = { offset: dieOffset, tag: ab.tag, unit, attrs, children: [], parent };
        this.byOffset.set(dieOffset, die);
        if (parent) parent.children.push(die);
        else if (!unit.root) {
          unit.root = die;
          this.initUnit(unit, die);
        }
        if (ab.hasChildren) stack.push(die);
        else if (!parent) break;
      }
      c.offset = end;
    }
  }

  private initUnit(unit: Unit, root: Die): void {
    const num = (at: number): number | undefined => {
      const a = root.attrs.get(at);
      return a && typeof a.value === 'bigint' ? Number(a.value) : undefined;
    };
    unit.strOffsetsBase = num(DW_AT.str_offsets_base) ?? 8;
    unit.addrBase = num(DW_AT.addr_base) ?? 8;
    unit.rnglistsBase = num(DW_AT.rnglists_base) ?? 0;
    const low = root.attrs.get(DW_AT.low_pc);
    if (low) unit.baseAddress = this.address(root, low);
  }

  /** An attribute's value as a number/bigint (constants, refs, offsets). */
  attr(die: Die, at: number): RawAttr | undefined {
    return die.attrs.get(at);
  }

  string(die: Die, at: number): string | undefined {
    const a = die.attrs.get(at);
    if (!a) return undefined;
    return this.stringValue(die.unit, a);
  }

  stringValue(unit: Unit, a: RawAttr): string {
    const s = this.sections;
    switch (a.form) {
      case DW_FORM.string:
        return a.value as string;
      case DW_FORM.strp:
        return readCString(s.str, '.debug_str', Number(a.value));
      case DW_FORM.line_strp:
        return readCString(s.lineStr, '.debug_line_str', Number(a.value));
      case DW_FORM.strx:
      case DW_FORM.strx1:
      case DW_FORM.strx2:
      case DW_FORM.strx3:
      case DW_FORM.strx4: {
        if (!s.strOffsets) throw new DwarfError('string index used but .debug_str_offsets is missing');
        const c = new Cursor(s.strOffsets, '.debug_str_offsets', unit.strOffsetsBase + Number(a.value) * unit.offsetSize);
        return readCString(s.str, '.debug_str', Number(c.sized(unit.offsetSize)));
      }
      default:
        throw new DwarfError(`form 0x${a.form.toString(16)} is not a string form`);
    }
  }

  /** Resolve an address attribute (DW_FORM_addr or an index into .debug_addr). */
  address(die: Die, a: RawAttr): bigint {
    if (a.form === DW_FORM.addr) return a.value as bigint;
    if (isAddrx(a.form)) return this.indexedAddress(die.unit, Number(a.value));
    if (typeof a.value === 'bigint') return a.value;
    throw new DwarfError(`form 0x${a.form.toString(16)} is not an address form at .debug_info+0x${die.offset.toString(16)}`);
  }

  indexedAddress(unit: Unit, index: number): bigint {
    if (!this.sections.addr) throw new DwarfError('address index used but .debug_addr is missing');
    const c = new Cursor(this.sections.addr, '.debug_addr', unit.addrBase + index * unit.addressSize);
    return c.sized(unit.addressSize);
  }

  /** The DIE a reference attribute points at. */
  ref(die: Die, at: number): Die | undefined {
    const a = die.attrs.get(at);
    if (!a) return undefined;
    let target: number;
    switch (a.form) {
      case DW_FORM.ref1:
      case DW_FORM.ref2:
      case DW_FORM.ref4:
      case DW_FORM.ref8:
      case DW_FORM.ref_udata:
        target = die.unit.offset + Number(a.value);
        break;
      case DW_FORM.ref_addr:
        target = Number(a.value);
        break;
      default:
        return undefined;
    }
    const t = this.byOffset.get(target);
    if (!t) throw new DwarfError(`reference from .debug_info+0x${die.offset.toString(16)} to missing DIE 0x${target.toString(16)}`);
    return t;
  }

  /** PC ranges of a DIE: low_pc/high_pc or DW_AT_ranges. Half-open [start, end). */
  ranges(die: Die): { start: bigint; end: bigint }[] {
    const low = die.attrs.get(DW_AT.low_pc);
    const high = die.attrs.get(DW_AT.high_pc);
    if (low && high) {
      const start = this.address(die, low);
      const end = high.form === DW_FORM.addr || isAddrx(high.form) ? this.address(die, high) : start + (high.value as bigint);
      return start === end ? [] : [{ start, end }];
    }
    const r = die.attrs.get(DW_AT.ranges);
    if (!r) return [];
    const unit = die.unit;
    if (unit.version >= 5) {
      let offset: number;
      if (r.form === DW_FORM.rnglistx) {
        if (!this.sections.rnglists) throw new DwarfError('range list index used but .debug_rnglists is missing');
        const c = new Cursor(this.sections.rnglists, '.debug_rnglists', unit.rnglistsBase + Number(r.value) * unit.offsetSize);
        offset = unit.rnglistsBase + Number(c.sized(unit.offsetSize));
      } else offset = Number(r.value);
      return this.rnglist(unit, offset);
    }
    return this.rangesV4(unit, Number(r.value));
  }

  private rnglist(unit: Unit, offset: number): { start: bigint; end: bigint }[] {
    if (!this.sections.rnglists) throw new DwarfError('DW_AT_ranges used but .debug_rnglists is missing');
    const c = new Cursor(this.sections.rnglists, '.debug_rnglists', offset);
    const out: { start: bigint; end: bigint }[] = [];
    let base = unit.baseAddress;
    for (;;) {
      const kind = c.u8();
      switch (kind) {
        case DW_RLE.end_of_list:
          return out.filter((r) => r.start !== r.end);
        case DW_RLE.base_addressx:
          base = this.indexedAddress(unit, c.ulebNum());
          break;
        case DW_RLE.startx_endx: {
          const s = this.indexedAddress(unit, c.ulebNum());
          out.push({ start: s, end: this.indexedAddress(unit, c.ulebNum()) });
          break;
        }
        case DW_RLE.startx_length: {
          const s = this.indexedAddress(unit, c.ulebNum());
          out.push({ start: s, end: s + c.uleb() });
          break;
        }
        case DW_RLE.offset_pair: {
          const s = c.uleb();
          out.push({ start: base + s, end: base + c.uleb() });
          break;
        }
        case DW_RLE.base_address:
          base = c.sized(unit.addressSize);
          break;
        case DW_RLE.start_end: {
          const s = c.sized(unit.addressSize);
          out.push({ start: s, end: c.sized(unit.addressSize) });
          break;
        }
        case DW_RLE.start_length: {
          const s = c.sized(unit.addressSize);
          out.push({ start: s, end: s + c.uleb() });
          break;
        }
        default:
          throw new DwarfError(`unknown range list entry ${kind} at .debug_rnglists+0x${(c.offset - 1).toString(16)}`);
      }
    }
  }

  private rangesV4(unit: Unit, offset: number): { start: bigint; end: bigint }[] {
    if (!this.sections.ranges) throw new DwarfError('DW_AT_ranges used but .debug_ranges is missing');
    const c = new Cursor(this.sections.ranges, '.debug_ranges', offset);
    const max = unit.addressSize === 8 ? 0xffffffffffffffffn : 0xffffffffn;
    const out: { start: bigint; end: bigint }[] = [];
    let base = unit.baseAddress;
    for (;;) {
      const a = c.sized(unit.addressSize);
      const b = c.sized(unit.addressSize);
      if (a === 0n && b === 0n) return out.filter((r) => r.start !== r.end);
      if (a === max) base = b;
      else out.push({ start: base + a, end: base + b });
    }
  }
}

function isAddrx(form: number): boolean {
  return form === DW_FORM.addrx || (form >= DW_FORM.addrx1 && form <= DW_FORM.addrx4);
}

function readCString(section: Uint8Array | undefined, name: string, offset: number): string {
  if (!section) throw new DwarfError(`string form used but ${name} is missing`);
  if (offset >= section.length) throw new DwarfError(`string offset 0x${offset.toString(16)} outside ${name}`);
  return new Cursor(section, name, offset).cstring();
}

function readForm(c: Cursor, form: number, unit: Unit, implicit?: bigint): RawAttr {
  const F = DW_FORM;
  switch (form) {
    case F.addr: return { form, value: c.sized(unit.addressSize) };
    case F.data1: case F.ref1: case F.strx1: case F.addrx1: return { form, value: BigInt(c.u8()) };
    case F.data2: case F.ref2: case F.strx2: case F.addrx2: return { form, value: BigInt(c.u16()) };
    case F.strx3: case F.addrx3: return { form, value: BigInt(c.u24()) };
    case F.data4: case F.ref4: case F.strx4: case F.addrx4: case F.ref_sup4: return { form, value: BigInt(c.u32()) };
    case F.data8: case F.ref8: case F.ref_sig8: case F.ref_sup8: return { form, value: c.u64() };
    case F.data16: return { form, value: c.take(16) };
    case F.sdata: return { form, value: c.sleb() };
    case F.udata: case F.ref_udata: case F.strx: case F.addrx: case F.loclistx: case F.rnglistx: return { form, value: c.uleb() };
    case F.string: return { form, value: c.cstring() };
    case F.strp: case F.line_strp: case F.sec_offset: case F.strp_sup: return { form, value: c.sized(unit.offsetSize) };
    case F.ref_addr: return { form, value: c.sized(unit.version <= 2 ? unit.addressSize : unit.offsetSize) };
    case F.flag: return { form, value: c.u8() !== 0 };
    case F.flag_present: return { form, value: true };
    case F.implicit_const: return { form, value: implicit ?? 0n };
    case F.exprloc: case F.block: return { form, value: c.take(c.ulebNum()) };
    case F.block1: return { form, value: c.take(c.u8()) };
    case F.block2: return { form, value: c.take(c.u16()) };
    case F.block4: return { form, value: c.take(c.u32()) };
    case F.indirect: return readForm(c, c.ulebNum(), unit);
    default:
      throw new DwarfError(`unsupported attribute form 0x${form.toString(16)} at .debug_info+0x${c.offset.toString(16)}`);
  }
}
