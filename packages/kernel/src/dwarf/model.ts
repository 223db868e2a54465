// The DWARF type model: what the kernel's and modules' debug information
// says about types, global variables, functions (pc ranges, typed
// parameters) and inlined copies of functions, built from the DIE tree.
// Types are identified by the .debug_info offset of their DIE.

import { ElfFile, parseElf } from '../elf/index.js';
import { DW_AT, DW_FORM, DW_OP, DW_TAG } from './constants.js';
import { Cursor, DieTree, DwarfError, loadDebugSections, type Die } from './dies.js';

export type TypeId = number;

export interface Member {
  readonly name: string;
  readonly type: TypeId;
  /** Byte offset of the member (of its storage unit for bitfields). */
  readonly offset: number;
  /** For bitfields: bit offset from the start of the struct, and width. */
  readonly bitOffset?: number;
  readonly bitSize?: number;
}

export type DwarfType =
  | { readonly kind: 'void'; readonly id: TypeId }
  | { readonly kind: 'base'; readonly id: TypeId; readonly name: string; readonly size: number; readonly encoding: number }
  | { readonly kind: 'pointer'; readonly id: TypeId; readonly target: TypeId | undefined; readonly size: number }
  | { readonly kind: 'const' | 'volatile' | 'restrict' | 'atomic'; readonly id: TypeId; readonly target: TypeId | undefined }
  | { readonly kind: 'typedef'; readonly id: TypeId; readonly name: string; readonly target: TypeId | undefined }
  | {
      readonly kind: 'struct' | 'union';
      readonly id: TypeId;
      readonly name: string | undefined;
      readonly size: number;
      readonly declaration: boolean;
      readonly members: readonly Member[];
    }
  | {
      readonly kind: 'enum';
      readonly id: TypeId;
      readonly name: string | undefined;
      readonly size: number;
      readonly underlying: TypeId | undefined;
      readonly enumerators: readonly { readonly name: string; readonly value: bigint }[];
    }
  | { readonly kind: 'array'; readonly id: TypeId; readonly element: TypeId | undefined; readonly dimensions: readonly (number | undefined)[] }
  | { readonly kind: 'function'; readonly id: TypeId; readonly returns: TypeId | undefined; readonly params: readonly TypeId[]; readonly variadic: boolean; readonly prototyped: boolean };

export interface PcRange {
  readonly start: bigint;
  readonly end: bigint;
}

export interface DwarfVariable {
  readonly name: string;
  readonly type: TypeId | undefined;
  /** Static address (DW_OP_addr / DW_OP_addrx), when the location is one. */
  readonly address: bigint | undefined;
  readonly external: boolean;
  readonly dieOffset: number;
}

export interface DwarfParameter {
  readonly name: string | undefined;
  readonly type: TypeId | undefined;
}

export interface DwarfFunction {
  readonly name: string;
  readonly ranges: readonly PcRange[];
  readonly lowPc: bigint | undefined;
  readonly returns: TypeId | undefined;
  readonly params: readonly DwarfParameter[];
  readonly variadic: boolean;
  readonly external: boolean;
  /** True when this is only an abstract instance (all copies inlined). */
  readonly inlineOnly: boolean;
  readonly dieOffset: number;
}

export interface DwarfInline {
  /** Name of the inlined function (through DW_AT_abstract_origin). */
  readonly name: string;
  /** Function (concrete, out-of-line) the copy was inlined into. */
  readonly caller: string;
  /** Innermost enclosing function or inlined copy, by name. */
  readonly parent: string;
  readonly ranges: readonly PcRange[];
  readonly entryPc: bigint | undefined;
  readonly callFile: number | undefined;
  readonly callLine: number | undefined;
  /** Inline depth: 1 when directly inside the caller. */
  readonly depth: number;
  readonly dieOffset: number;
  /** DIE offset of the abstract origin (the inlined function's definition). */
  readonly originOffset: number;
}

export interface DwarfInfo {
  readonly addressSize: number;
  readonly versions: readonly number[];
  readonly types: ReadonlyMap<TypeId, DwarfType>;
  /** Named types by C spelling ("struct node", "size_t", "int"). */
  readonly namedTypes: ReadonlyMap<string, TypeId>;
  readonly variables: readonly DwarfVariable[];
  readonly functions: readonly DwarfFunction[];
  readonly inlines: readonly DwarfInline[];
  /** C spelling of a type ("const char *", "int [2][3]", "struct node *"). */
  typeName(id: TypeId | undefined): string;
  /** C declaration of `name` with type `id` ("char *buf", "int (*fn)(void)"). */
  declare(id: TypeId | undefined, name: string): string;
  /** Size in bytes, following typedefs and qualifiers. */
  sizeOf(id: TypeId | undefined): number | undefined;
  /** Every inlined copy of the function `name` (for kinst's inline probes). */
  inlinesOf(name: string): readonly DwarfInline[];
  /** The out-of-line function whose ranges contain `pc`. */
  functionAt(pc: bigint): DwarfFunction | undefined;
  /** Inlined copies covering `pc`, outermost first. */
  inlinesAt(pc: bigint): readonly DwarfInline[];
}

export interface ReadDwarfOptions {
  /** Final section addresses of a linked ET_REL module (krtld's sectionAddresses). */
  readonly sectionAddresses?: ReadonlyMap<number, bigint>;
}

/** The VOID type id: DWARF omits DW_AT_type for void. */
export const VOID_TYPE: TypeId = -1;

/** Read DWARF from an ELF file into the type model. */
export function readDwarf(input: Uint8Array | ElfFile, options: ReadDwarfOptions = {}): DwarfInfo {
  const elf = input instanceof ElfFile ? input : parseElf(input);
  const tree = new DieTree(loadDebugSections(elf, options.sectionAddresses));
  return buildModel(tree, elf.is64 ? 8 : 4);
}

const TYPE_TAGS: ReadonlySet<number> = new Set([
  DW_TAG.base_type, DW_TAG.pointer_type, DW_TAG.reference_type, DW_TAG.const_type, DW_TAG.volatile_type, DW_TAG.restrict_type,
  DW_TAG.atomic_type, DW_TAG.typedef, DW_TAG.structure_type, DW_TAG.union_type, DW_TAG.enumeration_type, DW_TAG.array_type,
  DW_TAG.subroutine_type, DW_TAG.unspecified_type,
]);

function num(tree: DieTree, die: Die, at: number): number | undefined {
  const a = tree.attr(die, at);
  if (!a) return undefined;
  if (typeof a.value === 'bigint') return Number(a.value);
  if (a.value instanceof Uint8Array && a.form === DW_FORM.exprloc) {
    // DW_OP_plus_uconst n (DWARF 2-style member offsets) / DW_OP_constu n
    const c = new Cursor(a.value, 'location expression');
    const op = c.u8();
    if (op === DW_OP.plus_uconst || op === DW_OP.constu) return c.ulebNum();
  }
  return undefined;
}

function buildModel(tree: DieTree, addressSize: number): DwarfInfo {
  const types = new Map<TypeId, DwarfType>();
  const namedTypes = new Map<string, TypeId>();
  const variables: DwarfVariable[] = [];
  const functions: DwarfFunction[] = [];
  const inlines: DwarfInline[] = [];
  types.set(VOID_TYPE, { kind: 'void', id: VOID_TYPE });

  const typeRef = (die: Die): TypeId | undefined => {
    const t = tree.ref(die, DW_AT.type);
    return t ? t.offset : undefined;
  };
  const name = (die: Die): string | undefined => tree.string(die, DW_AT.name);
  /** Name through specification / abstract origin chains. */
  const originName = (die: Die): string | undefined => {
    let d: Die | undefined = die;
    for (let i = 0; d && i < 8; i++) {
      const n = name(d);
      if (n !== undefined) return n;
      d = tree.ref(d, DW_AT.abstract_origin) ?? tree.ref(d, DW_AT.specification);
    }
    return undefined;
  };
  const flag = (die: Die, at: number): boolean => tree.attr(die, at)?.value === true;

  const buildType = (die: Die): DwarfType | undefined => {
    const id = die.offset;
    const size = num(tree, die, DW_AT.byte_size);
    switch (die.tag) {
      case DW_TAG.base_type:
        return { kind: 'base', id, name: name(die) ?? '', size: size ?? 0, encoding: num(tree, die, 0x3e) ?? 0 };
      case DW_TAG.unspecified_type:
        return { kind: 'void', id };
      case DW_TAG.pointer_type:
      case DW_TAG.reference_type:
        return { kind: 'pointer', id, target: typeRef(die), size: size ?? addressSize };
      case DW_TAG.const_type:
        return { kind: 'const', id, target: typeRef(die) };
      case DW_TAG.volatile_type:
        return { kind: 'volatile', id, target: typeRef(die) };
      case DW_TAG.restrict_type:
        return { kind: 'restrict', id, target: typeRef(die) };
      case DW_TAG.atomic_type:
        return { kind: 'atomic', id, target: typeRef(die) };
      case DW_TAG.typedef:
        return { kind: 'typedef', id, name: name(die) ?? '', target: typeRef(die) };
      case DW_TAG.structure_type:
      case DW_TAG.union_type: {
        const members: Member[] = [];
        for (const m of die.children) {
          if (m.tag !== DW_TAG.member) continue;
          const bitSize = num(tree, m, DW_AT.bit_size);
          let offset = num(tree, m, DW_AT.data_member_location) ?? 0;
          let bitOffset: number | undefined;
          if (bitSize !== undefined) {
            const dbo = num(tree, m, DW_AT.data_bit_offset);
            if (dbo !== undefined) bitOffset = dbo;
            else {
              // DWARF 2/3 style: DW_AT_bit_offset counts from the storage unit's most significant bit (little-endian here)
              const unit = num(tree, m, DW_AT.byte_size) ?? tree_sizeOf(typeRef(m)) ?? 4;
              const bo = num(tree, m, DW_AT.bit_offset) ?? 0;
              bitOffset = offset * 8 + unit * 8 - bo - bitSize;
            }
            offset = Math.floor(bitOffset / 8);
          }
          const mem: Member = { name: name(m) ?? '', type: typeRef(m) ?? VOID_TYPE, offset, ...(bitSize !== undefined ? { bitOffset, bitSize } : {}) };
          members.push(mem);
        }
        return { kind: die.tag === DW_TAG.structure_type ? 'struct' : 'union', id, name: name(die), size: size ?? 0, declaration: flag(die, DW_AT.declaration), members };
      }
      case DW_TAG.enumeration_type: {
        const enumerators = die.children
          .filter((e) => e.tag === DW_TAG.enumerator)
          .map((e) => {
            const a = tree.attr(e, DW_AT.const_value);
            let value = 0n;
            if (a && typeof a.value === 'bigint') {
              value = a.value;
              // data1/2/4/8 are sign-extended when the enum is signed (clang uses sdata for negatives)
            }
            return { name: name(e) ?? '', value };
          });
        return { kind: 'enum', id, name: name(die), size: size ?? 4, underlying: typeRef(die), enumerators };
      }
      case DW_TAG.array_type: {
        const dimensions = die.children
          .filter((s) => s.tag === DW_TAG.subrange_type)
          .map((s) => {
            const count = num(tree, s, DW_AT.count);
            if (count !== undefined) return count;
            const ub = tree.attr(s, DW_AT.upper_bound);
            if (ub && typeof ub.value === 'bigint') return Number(ub.value) - (num(tree, s, DW_AT.lower_bound) ?? 0) + 1;
            return undefined;
          });
        return { kind: 'array', id, element: typeRef(die), dimensions: dimensions.length ? dimensions : [undefined] };
      }
      case DW_TAG.subroutine_type: {
        const params = die.children.filter((p) => p.tag === DW_TAG.formal_parameter).map((p) => typeRef(p) ?? VOID_TYPE);
        return {
          kind: 'function',
          id,
          returns: typeRef(die) ?? VOID_TYPE,
          params,
          variadic: die.children.some((p) => p.tag === DW_TAG.unspecified_parameters),
          prototyped: flag(die, DW_AT.prototyped),
        };
      }
      default:
        return undefined;
    }
  };

  // First pass: all types (sizeOf needs them for DWARF 2-style bitfields, so members are built in a second pass).
  const typeDies: Die[] = [];
  for (const die of tree.byOffset.values()) if (TYPE_TAGS.has(die.tag)) typeDies.push(die);
  const rawSize = (id: TypeId | undefined, depth = 0): number | undefined => {
    if (id === undefined || depth > 32) return undefined;
    const die = tree.byOffset.get(id);
    if (!die) return undefined;
    const s = num(tree, die, DW_AT.byte_size);
    if (s !== undefined) return s;
    if (die.tag === DW_TAG.pointer_type) return addressSize;
    return rawSize(typeRef(die), depth + 1);
  };
  const tree_sizeOf = (id: TypeId | undefined): number | undefined => rawSize(id);
  for (const die of typeDies) {
    const t = buildType(die);
    if (!t) continue;
    types.set(die.offset, t);
  }

  const typeName = (id: TypeId | undefined, depth = 0): string => declarator(id, '', depth);
  function declarator(id: TypeId | undefined, inner: string, depth: number): string {
    if (depth > 64) return '?';
    const t = id === undefined ? types.get(VOID_TYPE)! : types.get(id);
    if (!t) return `?${inner}`;
    const sp = (s: string): string => (s ? ` ${s}` : '');
    switch (t.kind) {
      case 'void':
        return `void${sp(inner)}`;
      case 'base':
      case 'typedef':
        return `${t.name}${sp(inner)}`;
      case 'struct':
      case 'union':
      case 'enum':
        return `${t.kind} ${t.name ?? '<anon>'}${sp(inner)}`;
      case 'pointer': {
        const target = t.target === undefined ? undefined : types.get(t.target);
        const wrap = target && (target.kind === 'array' || target.kind === 'function');
        return declarator(t.target, wrap ? `(*${inner})` : `*${inner}`, depth + 1);
      }
      case 'const':
      case 'volatile':
      case 'restrict':
      case 'atomic': {
        const target = t.target === undefined ? undefined : types.get(t.target);
        const q = t.kind === 'atomic' ? '_Atomic' : t.kind;
        if (target && target.kind === 'pointer') return declarator(t.target, `${q}${sp(inner)}`, depth + 1);
        // qualifiers of non-pointers are written first: "const char"
        return `${q} ${declarator(t.target, inner, depth + 1)}`;
      }
      case 'array':
        return declarator(t.element, `${inner}${t.dimensions.map((d) => `[${d ?? ''}]`).join('')}`, depth + 1);
      case 'function': {
        const params = t.params.map((p) => typeName(p, depth + 1));
        if (t.variadic) params.push('...');
        return declarator(t.returns, `${inner}(${params.length ? params.join(', ') : 'void'})`, depth + 1);
      }
    }
  }
  const cName = (id: TypeId | undefined): string => typeName(id);

  const sizeOf = (id: TypeId | undefined, depth = 0): number | undefined => {
    if (depth > 64) return undefined;
    const t = id === undefined ? undefined : types.get(id);
    if (!t) return undefined;
    switch (t.kind) {
      case 'void':
        return undefined;
      case 'base':
      case 'pointer':
      case 'enum':
        return t.size;
      case 'struct':
      case 'union':
        return t.declaration ? undefined : t.size;
      case 'typedef':
      case 'const':
      case 'volatile':
      case 'restrict':
      case 'atomic':
        return sizeOf(t.target, depth + 1);
      case 'array': {
        const el = sizeOf(t.element, depth + 1);
        if (el === undefined || t.dimensions.some((d) => d === undefined)) return undefined;
        return t.dimensions.reduce<number>((n, d) => n * d!, el);
      }
      case 'function':
        return undefined;
    }
  };

  for (const t of types.values()) {
    if (t.kind === 'base' || t.kind === 'typedef') {
      if (!namedTypes.has(t.name)) namedTypes.set(t.name, t.id);
    } else if ((t.kind === 'struct' || t.kind === 'union' || t.kind === 'enum') && t.name) {
      const key = `${t.kind} ${t.name}`;
      const prev = namedTypes.get(key);
      const prevT = prev === undefined ? undefined : types.get(prev);
      // a complete definition wins over a forward declaration
      if (prev === undefined || (prevT && 'declaration' in prevT && prevT.declaration && !('declaration' in t && t.declaration))) namedTypes.set(key, t.id);
    }
  }

  // Variables, functions and inlined copies.
  const staticAddress = (die: Die): bigint | undefined => {
    const loc = tree.attr(die, DW_AT.location);
    if (!loc || !(loc.value instanceof Uint8Array) || loc.form !== DW_FORM.exprloc) return undefined;
    const c = new Cursor(loc.value, 'location expression');
    if (loc.value.length === 0) return undefined;
    const op = c.u8();
    if (op === DW_OP.addr) return c.sized(die.unit.addressSize);
    if (op === DW_OP.addrx) return tree.indexedAddress(die.unit, c.ulebNum());
    return undefined;
  };

  const visit = (die: Die, fn: { name: string } | undefined, parentName: string | undefined, depth: number): void => {
    switch (die.tag) {
      case DW_TAG.variable: {
        if (fn && !staticAddress(die)) break; // locals live in registers/stack
        const decl = tree.ref(die, DW_AT.specification) ?? die;
        const n = originName(die);
        if (!n) break;
        const address = staticAddress(die);
        if (address === undefined && flag(die, DW_AT.declaration)) break;
        variables.push({ name: n, type: typeRef(die) ?? typeRef(decl), address, external: flag(die, DW_AT.external) || flag(decl, DW_AT.external), dieOffset: die.offset });
        break;
      }
      case DW_TAG.subprogram: {
        if (flag(die, DW_AT.declaration)) break;
        const origin = tree.ref(die, DW_AT.abstract_origin) ?? tree.ref(die, DW_AT.specification);
        const n = originName(die) ?? '';
        const ranges = tree.ranges(die);
        const signature = origin ?? die;
        const paramsFrom = die.children.some((c) => c.tag === DW_TAG.formal_parameter) ? die : signature;
        const params = paramsFrom.children
          .filter((p) => p.tag === DW_TAG.formal_parameter)
          .map((p) => {
            const o = tree.ref(p, DW_AT.abstract_origin);
            return { name: originName(p), type: typeRef(p) ?? (o ? typeRef(o) : undefined) };
          });
        const inl = num(tree, signature, DW_AT.inline);
        functions.push({
          name: n,
          ranges,
          lowPc: ranges.length ? ranges.reduce((m, r) => (r.start < m ? r.start : m), ranges[0]!.start) : undefined,
          returns: typeRef(die) ?? typeRef(signature) ?? VOID_TYPE,
          params,
          variadic: signature.children.some((c) => c.tag === DW_TAG.unspecified_parameters),
          external: flag(die, DW_AT.external) || flag(signature, DW_AT.external),
          inlineOnly: ranges.length === 0 && (inl === 1 || inl === 3),
          dieOffset: die.offset,
        });
        if (ranges.length) for (const c of die.children) visit(c, { name: n }, n, 0);
        return;
      }
      case DW_TAG.inlined_subroutine: {
        const originDie = tree.ref(die, DW_AT.abstract_origin);
        const n = originName(die) ?? '';
        const entry = tree.attr(die, DW_AT.entry_pc);
        inlines.push({
          name: n,
          caller: fn?.name ?? '',
          parent: parentName ?? '',
          ranges: tree.ranges(die),
          entryPc: entry ? (entry.form === DW_FORM.addr || entry.form === DW_FORM.addrx || (entry.form >= DW_FORM.addrx1 && entry.form <= DW_FORM.addrx4) ? tree.address(die, entry) : undefined) : undefined,
          callFile: num(tree, die, DW_AT.call_file),
          callLine: num(tree, die, DW_AT.call_line),
          depth: depth + 1,
          dieOffset: die.offset,
          originOffset: originDie?.offset ?? -1,
        });
        for (const c of die.children) visit(c, fn, n, depth + 1);
        return;
      }
      case DW_TAG.lexical_block:
        break;
      default:
        if (die.tag !== DW_TAG.compile_unit && die.tag !== DW_TAG.partial_unit) return;
    }
    for (const c of die.children) visit(c, fn, parentName, depth);
  };
  for (const unit of tree.units) if (unit.root) visit(unit.root, undefined, undefined, 0);

  const byInlineName = new Map<string, DwarfInline[]>();
  for (const i of inlines) {
    const list = byInlineName.get(i.name);
    if (list) list.push(i);
    else byInlineName.set(i.name, [i]);
  }
  // Sorted range index for pc lookups.
  const fnRanges = functions
    .flatMap((f) => f.ranges.map((r) => ({ r, f })))
    .sort((a, b) => (a.r.start < b.r.start ? -1 : a.r.start > b.r.start ? 1 : 0));
  const functionAt = (pc: bigint): DwarfFunction | undefined => {
    let lo = 0;
    let hi = fnRanges.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (fnRanges[mid]!.r.start <= pc) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && pc < fnRanges[found]!.r.end ? fnRanges[found]!.f : undefined;
  };
  const inlinesAt = (pc: bigint): DwarfInline[] => {
    const fn = functionAt(pc);
    if (!fn) return [];
    return inlines
      .filter((i) => i.caller === fn.name && i.ranges.some((r) => r.start <= pc && pc < r.end))
      .sort((a, b) => a.depth - b.depth);
  };

  return {
    inlinesOf: (n) => byInlineName.get(n) ?? [],
    functionAt,
    inlinesAt,
    addressSize,
    versions: [...new Set(tree.units.map((u) => u.version))],
    types,
    namedTypes,
    variables,
    functions,
    inlines,
    typeName: cName,
    declare: (id, n) => declarator(id, n, 0),
    sizeOf: (id) => sizeOf(id),
  };
}

export { DwarfError };
