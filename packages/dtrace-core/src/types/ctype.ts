// C types as the D compiler sees them: the model a type dictionary hands
// out (after CTF: integers, floats, pointers, arrays, functions, structs and
// unions with member offsets, enums, typedefs, qualifiers, forwards) and the
// helpers every user needs — sizeof, alignment, resolving typedefs, member
// lookup and the C spelling of a type ("struct foo *", "char [16]").
//
// Types are plain objects that point at each other (a struct may point at
// itself through a pointer member); a struct's member list can be completed
// after a forward declaration.

export type DataModel = 'ILP32' | 'LP64';

export interface IntegerType {
  readonly kind: 'integer';
  readonly name: string;
  readonly size: number;
  readonly signed: boolean;
  /** A character type (char, signed char, unsigned char): arrays of it print as strings. */
  readonly isChar?: boolean;
  /** _Bool */
  readonly isBool?: boolean;
}

export interface FloatType {
  readonly kind: 'float';
  readonly name: string;
  readonly size: number;
}

export interface VoidType {
  readonly kind: 'void';
  readonly name: 'void';
}

/** D's string type: a by-reference NUL-terminated character buffer of strsize bytes. */
export interface StringType {
  readonly kind: 'string';
  readonly name: 'string';
}

export interface PointerType {
  readonly kind: 'pointer';
  readonly target: CType;
  /** 4 (ILP32) or 8 (LP64). */
  readonly size: number;
}

export interface ArrayType {
  readonly kind: 'array';
  readonly element: CType;
  /** Number of elements; 0 for flexible or unknown bounds. */
  readonly count: number;
}

export interface FunctionType {
  readonly kind: 'function';
  readonly returnType: CType;
  readonly params: readonly CType[];
  readonly variadic: boolean;
}

export interface Member {
  readonly name: string;
  readonly type: CType;
  /** Byte offset from the start of the struct or union. */
  readonly offset: number;
  /** For bit-fields: width in bits and bit offset within the storage unit at `offset`. */
  readonly bitWidth?: number;
  readonly bitOffset?: number;
}

export interface StructType {
  readonly kind: 'struct' | 'union';
  /** Tag without the keyword; "" for an anonymous struct or union. */
  readonly name: string;
  members: Member[];
  size: number;
  align: number;
  /** False while only forward-declared. */
  complete: boolean;
}

export interface EnumConstant {
  readonly name: string;
  readonly value: number;
}

export interface EnumType {
  readonly kind: 'enum';
  readonly name: string;
  constants: EnumConstant[];
  readonly size: number;
  complete: boolean;
}

export interface TypedefType {
  readonly kind: 'typedef';
  readonly name: string;
  readonly target: CType;
}

export interface QualifiedType {
  readonly kind: 'const' | 'volatile' | 'restrict';
  readonly target: CType;
}

export type CType =
  | IntegerType
  | FloatType
  | VoidType
  | StringType
  | PointerType
  | ArrayType
  | FunctionType
  | StructType
  | EnumType
  | TypedefType
  | QualifiedType;

export const VOID: VoidType = { kind: 'void', name: 'void' };
export const STRING: StringType = { kind: 'string', name: 'string' };

/** Strip typedefs and qualifiers. */
export function resolveType(t: CType): CType {
  let cur = t;
  for (let guard = 0; guard < 1000; guard++) {
    if (cur.kind === 'typedef' || cur.kind === 'const' || cur.kind === 'volatile' || cur.kind === 'restrict') {
      cur = cur.target;
    } else {
      return cur;
    }
  }
  throw new Error('type chain too long (cyclic typedef?)');
}

/**
 * sizeof in bytes. Strings take `stringSize` (the strsize option); void and
 * functions are 0 here (the compiler diagnoses sizeof on them).
 */
export function sizeOfType(t: CType, stringSize = 256): number {
  const r = resolveType(t);
  switch (r.kind) {
    case 'integer':
    case 'float':
    case 'pointer':
      return r.size;
    case 'enum':
      return r.size;
    case 'void':
    case 'function':
      return 0;
    case 'string':
      return stringSize;
    case 'array':
      return r.count * sizeOfType(r.element, stringSize);
    case 'struct':
    case 'union':
      return r.size;
  }
  return 0;
}

/** Natural alignment in bytes. */
export function alignOfType(t: CType): number {
  const r = resolveType(t);
  switch (r.kind) {
    case 'integer':
    case 'float':
    case 'pointer':
    case 'enum':
      return Math.max(1, r.size);
    case 'array':
      return alignOfType(r.element);
    case 'struct':
    case 'union':
      return Math.max(1, r.align);
    case 'string':
    case 'void':
    case 'function':
      return 1;
  }
  return 1;
}

/** A member by name, searching anonymous struct/union members too; offsets are accumulated. */
export function findMember(t: CType, name: string): Member | undefined {
  const r = resolveType(t);
  if (r.kind !== 'struct' && r.kind !== 'union') return undefined;
  for (const m of r.members) {
    if (m.name === name) return m;
  }
  for (const m of r.members) {
    if (m.name === '') {
      const inner = findMember(m.type, name);
      if (inner !== undefined) return { ...inner, offset: m.offset + inner.offset };
    }
  }
  return undefined;
}

/** C spelling of a type: "int", "struct foo *", "char [16]", "int (*)(void)". */
export function typeName(t: CType): string {
  return declarator(t, '').trim();
}

function baseName(t: CType): string | undefined {
  switch (t.kind) {
    case 'integer':
    case 'float':
    case 'void':
    case 'string':
    case 'typedef':
      return t.name;
    case 'struct':
    case 'union':
    case 'enum':
      return t.name === '' ? `${t.kind} <anon>` : `${t.kind} ${t.name}`;
    default:
      return undefined;
  }
}

function declarator(t: CType, inner: string): string {
  const b = baseName(t);
  if (b !== undefined) return inner === '' ? b : `${b} ${inner}`;
  switch (t.kind) {
    case 'const':
    case 'volatile':
    case 'restrict': {
      const tb = baseName(t.target);
      if (tb !== undefined) return inner === '' ? `${t.kind} ${tb}` : `${t.kind} ${tb} ${inner}`;
      return declarator(t.target, inner === '' ? t.kind : `${t.kind} ${inner}`);
    }
    case 'pointer': {
      const tk = t.target.kind;
      const needParen = tk === 'array' || tk === 'function';
      const star = inner === '' ? '*' : `*${inner}`;
      return declarator(t.target, needParen ? `(${star})` : star);
    }
    case 'array':
      return declarator(t.element, `${inner}[${t.count}]`);
    case 'function': {
      const params = t.params.map(typeName);
      if (t.variadic) params.push('...');
      return declarator(t.returnType, `${inner}(${params.length === 0 ? 'void' : params.join(', ')})`);
    }
  }
  return inner;
}

/** Lay out members C-style (each at its alignment; unions overlap) and fill size/align. */
export function layoutStruct(
  kind: 'struct' | 'union',
  name: string,
  fields: readonly { name: string; type: CType; bitWidth?: number }[],
): StructType {
  const members: Member[] = [];
  let offset = 0;
  let size = 0;
  let align = 1;
  let bitCursor = 0; // bits used in the current bit-field storage unit
  let bitUnitOffset = -1;
  let bitUnitSize = 0;
  for (const f of fields) {
    const fa = alignOfType(f.type);
    const fs = sizeOfType(f.type);
    align = Math.max(align, fa);
    if (kind === 'union') {
      members.push({ name: f.name, type: f.type, offset: 0, ...(f.bitWidth !== undefined ? { bitWidth: f.bitWidth, bitOffset: 0 } : {}) });
      size = Math.max(size, fs);
      continue;
    }
    if (f.bitWidth !== undefined) {
      if (bitUnitOffset < 0 || bitUnitSize !== fs || bitCursor + f.bitWidth > fs * 8 || f.bitWidth === 0) {
        offset = Math.ceil(offset / fa) * fa;
        bitUnitOffset = offset;
        bitUnitSize = fs;
        bitCursor = 0;
        offset += fs;
      }
      members.push({ name: f.name, type: f.type, offset: bitUnitOffset, bitWidth: f.bitWidth, bitOffset: bitCursor });
      bitCursor += f.bitWidth;
      continue;
    }
    bitUnitOffset = -1;
    offset = Math.ceil(offset / fa) * fa;
    members.push({ name: f.name, type: f.type, offset });
    offset += fs;
  }
  if (kind === 'struct') size = offset;
  size = Math.ceil(size / align) * align;
  return { kind, name, members, size, align, complete: true };
}
