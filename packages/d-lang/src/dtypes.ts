// The D type environment of one compilation: the chain of type dictionaries
// (user declarations, D, C, then the kernel's), the common types by name,
// and D's typing rules — what is integral, scalar, arithmetic, a string;
// integer promotion and the usual arithmetic conversions; the type of an
// integer constant; and turning written types (specifiers + declarators)
// into C types.

import {
  type CType,
  type DataModel,
  type IntegerType,
  InMemoryTypeDictionary,
  STRING,
  type TypeDictionary,
  TypeDictionaryChain,
  VOID,
  createCTypeDictionary,
  createDTypeDictionary,
  resolveType,
  sizeOfType,
} from '@wdtrace/dtrace-core/types';
import type { Declarator, TypeName, TypeSpecifier } from './ast.js';
import { CompileError, type Loc, fail } from './diagnostics.js';

/** The attribute words of a declaration (dt_decl_attr); every other base word names a type (dt_decl_spec). */
const ATTRIBUTE_WORDS = new Set(['short', 'long', 'signed', 'unsigned']);

/**
 * Declaration specifiers as illumos's dt_decl_spec/dt_decl_attr/dt_decl_check
 * see them, one at a time in written order: at most one type name (a base
 * word, a typedef name, or a struct/union/enum tag), each attribute at most
 * once ('long' twice), and attributes only on the kinds that take them.
 */
export class SpecifierState {
  private name: string | undefined;
  /** CTF kind of the type name: integer (int, char, void), float, or other (typedef names, string, tags). */
  private kind: 'integer' | 'float' | 'other' | undefined;
  private short = false;
  private long = 0;
  private signed = false;
  private unsigned = false;

  /** A base word or typedef name, in order. */
  word(w: string, loc: Loc): void {
    if (ATTRIBUTE_WORDS.has(w)) {
      if (w === 'long' && this.long === 2) fail('D_DECL_COMBO', loc, "the attribute 'long' may only be used at most twice in a declaration");
      if ((w === 'short' && this.short) || (w === 'signed' && this.signed) || (w === 'unsigned' && this.unsigned)) {
        fail('D_DECL_COMBO', loc, `the attribute '${w}' may only be used at most once in a declaration`);
      }
      if (w === 'long') this.long++;
      else if (w === 'short') this.short = true;
      else if (w === 'signed') this.signed = true;
      else this.unsigned = true;
    } else {
      this.setName(w, w === 'int' || w === 'char' || w === 'void' ? 'integer' : w === 'float' || w === 'double' ? 'float' : 'other', loc);
    }
    this.check(loc);
  }

  /** A struct, union or enum tag. */
  tag(keyword: string, loc: Loc): void {
    this.setName(keyword, 'other', loc);
    this.check(loc);
  }

  private setName(name: string, kind: 'integer' | 'float' | 'other', loc: Loc): void {
    if (this.name !== undefined) fail('D_DECL_COMBO', loc, 'invalid type combination');
    this.name = name;
    this.kind = kind;
  }

  private check(loc: Loc): void {
    if (this.kind === undefined) return;
    if (this.name === 'char' && (this.short || this.long > 0)) fail('D_DECL_CHARATTR', loc);
    if (this.name === 'void' && (this.short || this.long > 0 || this.signed || this.unsigned)) fail('D_DECL_VOIDATTR', loc);
    if (this.kind !== 'integer' && (this.signed || this.unsigned)) fail('D_DECL_SIGNINT', loc);
    if (this.kind === 'other' && this.long > 0) fail('D_DECL_LONGINT', loc);
  }
}

/**
 * A combination of attributes no C type has: dt_decl_type spells the type
 * name from the attributes (and the type name unless short or long applies
 * to an integer) and fails to look it up.
 */
function unknownType(words: readonly string[], loc: Loc): never {
  const count = (w: string): number => words.filter((x) => x === w).length;
  let n = '';
  if (count('signed') > 0) n += 'signed ';
  if (count('unsigned') > 0) n += 'unsigned ';
  if (count('short') > 0) n += 'short ';
  if (count('long') === 1) n += 'long ';
  if (count('long') === 2) n += 'long long ';
  const name = words.find((w) => !ATTRIBUTE_WORDS.has(w));
  if (name !== undefined && ((name !== 'int' && name !== 'char' && name !== 'void') || (count('short') === 0 && count('long') === 0))) n += name;
  throw new CompileError({ severity: 'error', tag: 'D_UNKNOWN', message: `failed to resolve type ${n}: Unknown type name`, location: loc });
}

export class TypeEnvironment {
  readonly user: InMemoryTypeDictionary;
  readonly d: InMemoryTypeDictionary;
  readonly c: InMemoryTypeDictionary;
  readonly chain: TypeDictionaryChain;
  readonly int: IntegerType;
  readonly uint: IntegerType;
  readonly long: IntegerType;
  readonly ulong: IntegerType;
  readonly llong: IntegerType;
  readonly ullong: IntegerType;
  readonly char: IntegerType;
  readonly int64: CType;
  readonly uint64: CType;
  readonly uintptr: CType;
  readonly string = STRING;
  readonly void = VOID;
  /** strsize option. */
  stringSize = 256;
  /**
   * Set when a type name written in the program resolved to a type from
   * outside the C and D definitions (user declarations are D's): a kernel
   * type from the `types` dictionaries, which lowers the attributes of the
   * statement naming it (dt_node_type's _dtrace_typattr). The cooker
   * clears and reads it per clause.
   */
  foreignTypeNamed = false;
  /** The `types` dictionaries (the kernel's), after the built-in ones in the chain. */
  private readonly extra: readonly TypeDictionary[];

  constructor(
    readonly dataModel: DataModel,
    extra: readonly TypeDictionary[] = [],
  ) {
    this.c = createCTypeDictionary(dataModel);
    this.d = createDTypeDictionary(this.c);
    this.user = new InMemoryTypeDictionary('D', dataModel);
    this.chain = new TypeDictionaryChain('D', dataModel, [this.user, this.d, this.c, ...extra]);
    this.extra = extra;
    const get = (n: string): CType => this.c.lookupType(n)!;
    this.int = get('int') as IntegerType;
    this.uint = get('unsigned int') as IntegerType;
    this.long = get('long') as IntegerType;
    this.ulong = get('unsigned long') as IntegerType;
    this.llong = get('long long') as IntegerType;
    this.ullong = get('unsigned long long') as IntegerType;
    this.char = get('char') as IntegerType;
    this.int64 = get('int64_t');
    this.uint64 = get('uint64_t');
    this.uintptr = get('uintptr_t');
  }

  get pointerSize(): number {
    return this.dataModel === 'LP64' ? 8 : 4;
  }

  lookup(name: string): CType | undefined {
    return this.chain.lookupType(name);
  }

  /**
   * A type name written in the program, looked up as the chain does (user
   * declarations, D, C, then the `types` dictionaries), noting in
   * foreignTypeNamed a type found only in the last.
   */
  lookupWritten(name: string): CType | undefined {
    const t = this.user.lookupType(name) ?? this.d.lookupType(name) ?? this.c.lookupType(name);
    if (t !== undefined) return t;
    for (let i = 0; i < this.extra.length; i++) {
      const x = this.extra[i]!.lookupType(name);
      if (x !== undefined) {
        this.foreignTypeNamed = true;
        return x;
      }
    }
    return undefined;
  }

  /** A type name written with a module scope (module`name, or `name for every dictionary), noting a foreign type as lookupWritten does. */
  lookupWrittenIn(module: string, name: string): CType | undefined {
    if (module === '') return this.lookupWritten(name);
    // D names the program's declarations and the built-in D types, which take in the C ones here.
    if (module === 'D') return this.user.lookupType(name) ?? this.d.lookupType(name) ?? this.c.lookupType(name);
    if (module === 'C') return this.c.lookupType(name);
    for (let i = 0; i < this.extra.length; i++) {
      const dict = this.extra[i]!;
      if (dict.name !== module) continue;
      const t = dict.lookupType(name);
      if (t !== undefined) {
        this.foreignTypeNamed = true;
        return t;
      }
    }
    return undefined;
  }

  /** Whether module`name names a type (the parser's test for a scoped type name in an expression). */
  hasScopedType(module: string, name: string): boolean {
    if (module === 'D') return this.user.lookupType(name) !== undefined || this.d.lookupType(name) !== undefined || this.c.lookupType(name) !== undefined;
    if (module === 'C') return this.c.lookupType(name) !== undefined;
    for (let i = 0; i < this.extra.length; i++) {
      const dict = this.extra[i]!;
      if (dict.name === module && dict.lookupType(name) !== undefined) return true;
    }
    return false;
  }

  pointerTo(t: CType): CType {
    return this.user.pointerTo(t);
  }

  sizeOf(t: CType): number {
    return sizeOfType(t, this.stringSize);
  }

  /** Type of an integer constant (C99 rules as dt_node_int applies them). */
  constantType(value: bigint, suffix: string, decimal: boolean, loc: Loc): IntegerType {
    // The common case first: an unsuffixed constant that fits in int is an int.
    if (suffix === '' && value <= 0x7fffffffn) return this.int;
    const u = suffix.includes('u');
    const l = suffix.includes('l');
    const ll = suffix.includes('ll');
    const candidates: IntegerType[] = [];
    if (!l && !ll) {
      if (!u) candidates.push(this.int);
      if (u || !decimal) candidates.push(this.uint);
    }
    if (!ll) {
      if (!u) candidates.push(this.long);
      if (u || !decimal) candidates.push(this.ulong);
    }
    if (!u) candidates.push(this.llong);
    candidates.push(this.ullong);
    for (const t of candidates) {
      const bits = BigInt(t.size * 8);
      const max = t.signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
      if (value <= max) return t;
    }
    return fail('D_INT_OFLOW', loc, String(value));
  }

  // ---- written types -> C types ------------------------------------------

  /** Resolve declaration specifiers to a base type, defining struct/union/enum bodies as a side effect. */
  resolveSpecifier(spec: TypeSpecifier, defineTagged: (spec: TypeSpecifier) => CType): CType {
    let base: CType;
    if (spec.tagged !== undefined) {
      base = defineTagged(spec);
    } else {
      base = this.resolveWords(spec.words, spec.loc, spec.module);
    }
    for (const q of spec.qualifiers) base = { kind: q as 'const' | 'volatile' | 'restrict', target: base };
    return base;
  }

  private resolveWords(words: readonly string[], loc: Loc, module?: string): CType {
    if (words.length === 1 && module !== undefined) {
      const t = this.lookupWrittenIn(module, words[0]!);
      if (t === undefined) {
        if (module === '') fail('D_DECL_IDENT', loc, words[0]!);
        fail('D_TYPE_ERR', loc, `failed to resolve type ${module}\`${words[0]}: Unknown type name`);
      }
      return t;
    }
    if (words.length === 1) {
      // One word (int, a typedef name ...): no counting.
      const w = words[0]!;
      switch (w) {
        case 'int':
        case 'signed':
          return this.int;
        case 'unsigned':
          return this.uint;
        case 'long':
          return this.long;
        case 'char':
          return this.char;
        case 'void':
          return VOID;
        case 'string':
          return STRING;
        case 'short':
        case 'float':
        case 'double':
          return this.c.lookupType(w)!;
      }
      const t = this.lookupWritten(w);
      if (t === undefined) fail('D_DECL_IDENT', loc, w);
      return t;
    }
    const state = new SpecifierState();
    for (const w of words) state.word(w, loc);
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    const has = (w: string): number => counts.get(w) ?? 0;
    const known = ['void', 'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', 'string'];
    const typedefName = words.find((w) => !known.includes(w));
    if (typedefName !== undefined) {
      // dt_decl_type: a typedef name is looked up alone, its attributes ignored.
      const t = this.lookupWritten(typedefName);
      if (t === undefined) fail('D_DECL_IDENT', loc, typedefName);
      return t;
    }
    if (has('signed') && has('unsigned')) unknownType(words, loc);
    if (has('void')) return VOID;
    if (has('string')) {
      return STRING;
    }
    if (has('char')) return this.c.lookupType(has('unsigned') ? 'unsigned char' : has('signed') ? 'signed char' : 'char')!;
    if (has('float') || has('double')) {
      if (has('short') || (has('float') && has('long'))) unknownType(words, loc);
      return this.c.lookupType(has('long') ? 'long double' : has('float') ? 'float' : 'double')!;
    }
    if (has('short') && has('long')) unknownType(words, loc);
    const uns = has('unsigned') > 0;
    if (has('short')) return this.c.lookupType(uns ? 'unsigned short' : 'short')!;
    if (has('long') === 2) return uns ? this.ullong : this.llong;
    if (has('long') === 1) return uns ? this.ulong : this.long;
    return uns ? this.uint : this.int;
  }

  /** Apply a declarator's derivations to a base type. `arraySize` evaluates constant array dimensions. */
  applyDeclarator(base: CType, d: Declarator, arraySize: (e: NonNullable<Extract<Declarator['derivations'][number], { kind: 'array' }>['size']>) => number, resolveTypeName: (t: TypeName) => CType): CType {
    let t = base;
    // derivations run from the identifier outwards; apply from the outermost (end) inwards.
    for (let i = d.derivations.length - 1; i >= 0; i--) {
      const der = d.derivations[i]!;
      switch (der.kind) {
        case 'pointer':
          t = this.pointerTo(t);
          for (const q of der.qualifiers) t = { kind: q as 'const', target: t };
          break;
        case 'array':
          if (der.tuple !== undefined) {
            for (const k of der.tuple) resolveTypeName(k);
            // Associative-array signatures are kept by the caller; the type here is the element type.
            break;
          }
          if (der.size === undefined) {
            t = { kind: 'array', element: t, count: 0 };
            break;
          }
          t = { kind: 'array', element: t, count: arraySize(der.size) };
          break;
        case 'function':
          t = {
            kind: 'function',
            returnType: t,
            params: der.params.filter((p) => !(p.specifier.words.length === 1 && p.specifier.words[0] === 'void' && p.declarator.derivations.length === 0)).map((p) => resolveTypeName({ specifier: p.specifier, declarator: p.declarator, loc: p.specifier.loc })),
            variadic: der.variadic,
          };
          break;
      }
    }
    return t;
  }
}

// ---- classification --------------------------------------------------------

export const isInteger = (t: CType): boolean => {
  const r = resolveType(t);
  return r.kind === 'integer' || r.kind === 'enum';
};
export const isPointer = (t: CType): boolean => resolveType(t).kind === 'pointer';
export const isString = (t: CType): boolean => resolveType(t).kind === 'string';
export const isVoid = (t: CType): boolean => resolveType(t).kind === 'void';
export const isFloat = (t: CType): boolean => resolveType(t).kind === 'float';
export const isArray = (t: CType): boolean => resolveType(t).kind === 'array';
export const isStructOrUnion = (t: CType): boolean => {
  const k = resolveType(t).kind;
  return k === 'struct' || k === 'union';
};
export const isFunction = (t: CType): boolean => resolveType(t).kind === 'function';
/** Integers, enums and pointers (and arrays, which decay). */
export const isScalar = (t: CType): boolean => isInteger(t) || isPointer(t) || isArray(t);
export const isArithmetic = (t: CType): boolean => isInteger(t) || isFloat(t);

export function isSigned(t: CType): boolean {
  const r = resolveType(t);
  if (r.kind === 'integer') return r.signed;
  if (r.kind === 'enum') return true;
  return false;
}

/** Is this a char array or char pointer (a C string D can turn into a string)? */
export function isCharArrayOrPointer(t: CType): boolean {
  const r = resolveType(t);
  if (r.kind === 'array' || r.kind === 'pointer') {
    const e = resolveType(r.kind === 'array' ? r.element : r.target);
    return e.kind === 'integer' && e.isChar === true;
  }
  return false;
}

/** Integer types of equal rank, in the order dtrace's intrinsic table defines them. */
const INTRINSIC_ORDER = ['char', 'short', 'int', 'long', 'long long'];

/**
 * The usual arithmetic conversions as dt_type_promote makes them: no
 * promotion to int first; an enum counts as int; each operand has the rank
 * bits + 1 if unsigned, and the result is the operand type (typedef kept) of
 * the greater rank — so char + char is char and int + unsigned is unsigned.
 * Of equal ranks, dtrace takes the type defined later (the larger CTF id):
 * long long over long, else the left operand.
 */
export function arithmeticResult(env: TypeEnvironment, a: CType, b: CType): CType {
  const ta = resolveType(a).kind === 'enum' ? env.int : a;
  const tb = resolveType(b).kind === 'enum' ? env.int : b;
  const ra = resolveType(ta);
  const rb = resolveType(tb);
  if (ra.kind !== 'integer' || rb.kind !== 'integer') return env.int64;
  const rank = (t: { size: number; signed: boolean }): number => t.size * 8 + (t.signed ? 0 : 1);
  const la = rank(ra);
  const lb = rank(rb);
  if (la !== lb) return la > lb ? ta : tb;
  const order = (n: string): number => INTRINSIC_ORDER.indexOf(n.replace(/^(un)?signed /, '').replace(/ int$/, ''));
  return order(rb.name) > order(ra.name) ? tb : ta;
}
