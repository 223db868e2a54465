// The type dictionary: where the D compiler looks up C types and kernel
// symbols by name. The kernel package implements it from DWARF; the
// in-memory implementation here serves the D built-in types, the C base
// types, the types of D's standard translators, and user declarations.

import {
  type CType,
  type DataModel,
  type EnumType,
  type FloatType,
  type FunctionType,
  type IntegerType,
  type PointerType,
  type StructType,
  type TypedefType,
  STRING,
  VOID,
} from './ctype.js';

/** A data symbol (for `extern` and backquoted names like `` `max_ncpus ``). */
export interface SymbolInfo {
  readonly name: string;
  /** Module (object) that defines it, e.g. "kernel" or a loadable module's name. */
  readonly module: string;
  readonly address: bigint;
  readonly size: number;
  readonly type: CType;
}

/**
 * Lookup by name. Names are spelled as in C: "int", "unsigned long",
 * "struct vnode", "union sigval", "enum state", "size_t".
 */
export interface TypeDictionary {
  /** Module name used in backquoted scoping (`kernel`struct foo`, `D`string). */
  readonly name: string;
  readonly dataModel: DataModel;
  lookupType(name: string): CType | undefined;
  lookupSymbol(name: string): SymbolInfo | undefined;
  /** Enumerator constant by name (all enums of the dictionary share one namespace, as in C). */
  lookupEnumConstant(name: string): { readonly type: EnumType; readonly value: number } | undefined;
  /** Every type name known (for listings and diagnostics). */
  typeNames(): Iterable<string>;
}

/** A dictionary the compiler can add to (D's own declarations: typedef, struct, enum, inline types). */
export class InMemoryTypeDictionary implements TypeDictionary {
  private readonly types = new Map<string, CType>();
  private readonly symbols = new Map<string, SymbolInfo>();
  private readonly enumConstants = new Map<string, { type: EnumType; value: number }>();
  private readonly pointerCache = new Map<CType, PointerType>();

  constructor(
    readonly name: string,
    readonly dataModel: DataModel,
  ) {}

  get pointerSize(): number {
    return this.dataModel === 'LP64' ? 8 : 4;
  }

  lookupType(name: string): CType | undefined {
    return this.types.get(normaliseTypeName(name));
  }

  lookupSymbol(name: string): SymbolInfo | undefined {
    return this.symbols.get(name);
  }

  lookupEnumConstant(name: string): { type: EnumType; value: number } | undefined {
    return this.enumConstants.get(name);
  }

  typeNames(): Iterable<string> {
    return this.types.keys();
  }

  /** Register `type` under `name` ("struct foo", "foo_t", "int"); replaces an incomplete forward of the same name. */
  defineType(name: string, type: CType): CType {
    this.types.set(normaliseTypeName(name), type);
    if (type.kind === 'enum') {
      for (const c of type.constants) this.enumConstants.set(c.name, { type, value: c.value });
    }
    return type;
  }

  defineTypedef(name: string, target: CType): TypedefType {
    const t: TypedefType = { kind: 'typedef', name, target };
    this.defineType(name, t);
    return t;
  }

  /** Register a struct/union under "struct NAME"/"union NAME". */
  defineStruct(t: StructType): StructType {
    if (t.name !== '') this.defineType(`${t.kind} ${t.name}`, t);
    return t;
  }

  defineEnum(t: EnumType): EnumType {
    if (t.name !== '') this.defineType(`enum ${t.name}`, t);
    else for (const c of t.constants) this.enumConstants.set(c.name, { type: t, value: c.value });
    return t;
  }

  defineSymbol(sym: SymbolInfo): void {
    this.symbols.set(sym.name, sym);
  }

  /** A pointer to `target` with this dictionary's pointer size; one object per target. */
  pointerTo(target: CType): PointerType {
    let p = this.pointerCache.get(target);
    if (p === undefined) {
      p = { kind: 'pointer', target, size: this.pointerSize };
      this.pointerCache.set(target, p);
    }
    return p;
  }
}

/** Canonical spelling for lookups: single spaces, no space before '*'. */
export function normaliseTypeName(name: string): string {
  // Fast path: most names are already canonical.
  if (!/\s\s|\s\*|^\s|\s$|[\t\n]/.test(name)) return name;
  return name.trim().replace(/\s+/g, ' ').replace(/ \*/g, '*');
}

/** Look a name up through several dictionaries in order (D, C, kernel, modules). */
export class TypeDictionaryChain implements TypeDictionary {
  constructor(
    readonly name: string,
    readonly dataModel: DataModel,
    readonly dictionaries: readonly TypeDictionary[],
  ) {}

  lookupType(name: string): CType | undefined {
    for (const d of this.dictionaries) {
      const t = d.lookupType(name);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  lookupSymbol(name: string): SymbolInfo | undefined {
    for (const d of this.dictionaries) {
      const s = d.lookupSymbol(name);
      if (s !== undefined) return s;
    }
    return undefined;
  }

  lookupEnumConstant(name: string): { readonly type: EnumType; readonly value: number } | undefined {
    for (const d of this.dictionaries) {
      const c = d.lookupEnumConstant(name);
      if (c !== undefined) return c;
    }
    return undefined;
  }

  *typeNames(): Iterable<string> {
    for (const d of this.dictionaries) yield* d.typeNames();
  }

  /** The dictionary named `module` (for `module`type scoping). */
  module(name: string): TypeDictionary | undefined {
    return this.dictionaries.find((d) => d.name === name);
  }
}

export function integerType(name: string, size: number, signed: boolean, extra: Partial<IntegerType> = {}): IntegerType {
  return { kind: 'integer', name, size, signed, ...extra };
}

export function floatType(name: string, size: number): FloatType {
  return { kind: 'float', name, size };
}

export function functionType(returnType: CType, params: CType[], variadic = false): FunctionType {
  return { kind: 'function', returnType, params, variadic };
}

export { STRING, VOID };
