// The C types a compiled program refers to (CompiledProgram.types): the
// type of each value a trace(), print(), printf(), printa(), system() or
// freopen() argument records (RecordDescription.type), which the consumer
// needs for the sign of %d (pfcheck_dint) and for print(), which prints by
// type (dtrace_print). CTypes point at each other, cyclically through
// pointers, so the table holds each type once with its references as
// indices into the table: a plain object that survives structuredClone and
// JSON.
//
// The target of a pointer is kept by name only: a struct, union or enum
// reached through a pointer becomes an incomplete one of the same name, so
// that a pointer to a kernel structure does not bring every type the
// kernel's structures reach into the program. The consumer prints pointers
// as addresses with their type's spelling, which that keeps.

import { type CType, type Member, STRING, VOID } from '../types/ctype.js';

/** A member of a struct or union in the table. */
export interface TypeMemberDescription {
  readonly name: string;
  /** Index of the member's type in the table. */
  readonly type: number;
  readonly offset: number;
  readonly bitWidth?: number;
  readonly bitOffset?: number;
}

/** One C type of the table; references to other types are indices into the table. */
export type TypeDescription =
  | { readonly kind: 'integer'; readonly name: string; readonly size: number; readonly signed: boolean; readonly isChar?: boolean; readonly isBool?: boolean }
  | { readonly kind: 'float'; readonly name: string; readonly size: number }
  | { readonly kind: 'void' }
  | { readonly kind: 'string' }
  | { readonly kind: 'pointer'; readonly target: number; readonly size: number }
  | { readonly kind: 'array'; readonly element: number; readonly count: number }
  | { readonly kind: 'function'; readonly returnType: number; readonly params: readonly number[]; readonly variadic: boolean }
  | { readonly kind: 'struct' | 'union'; readonly name: string; readonly members: readonly TypeMemberDescription[]; readonly size: number; readonly align: number; readonly complete: boolean }
  | { readonly kind: 'enum'; readonly name: string; readonly constants: readonly { readonly name: string; readonly value: number }[]; readonly size: number; readonly complete: boolean }
  | { readonly kind: 'typedef'; readonly name: string; readonly target: number }
  | { readonly kind: 'const' | 'volatile' | 'restrict'; readonly target: number };

/** Builds a program's type table: add() a CType, get its index (each type is entered once). */
export class TypeTableBuilder {
  readonly types: TypeDescription[] = [];
  private readonly full = new Map<CType, number>();
  /** Types reached through a pointer (structs, unions and enums by name only). */
  private readonly byName = new Map<CType, number>();

  /** The index of `t` in the table, adding it (and the types it refers to) when new. */
  add(t: CType): number {
    return this.enter(t, false);
  }

  private enter(t: CType, shallow: boolean): number {
    const seen = shallow ? this.byName : this.full;
    const known = seen.get(t);
    if (known !== undefined) return known;
    const index = this.types.length;
    seen.set(t, index);
    this.types.push({ kind: 'void' }); // replaced below, once the references have their indices
    this.types[index] = this.describe(t, shallow);
    return index;
  }

  private describe(t: CType, shallow: boolean): TypeDescription {
    switch (t.kind) {
      case 'integer': {
        const d = { kind: t.kind, name: t.name, size: t.size, signed: t.signed };
        return t.isChar !== undefined || t.isBool !== undefined ? { ...d, ...(t.isChar !== undefined ? { isChar: t.isChar } : {}), ...(t.isBool !== undefined ? { isBool: t.isBool } : {}) } : d;
      }
      case 'float':
        return { kind: t.kind, name: t.name, size: t.size };
      case 'void':
      case 'string':
        return { kind: t.kind };
      case 'pointer':
        return { kind: t.kind, target: this.enter(t.target, true), size: t.size };
      case 'array':
        return { kind: t.kind, element: this.enter(t.element, shallow), count: t.count };
      case 'function':
        return { kind: t.kind, returnType: this.enter(t.returnType, true), params: t.params.map((p) => this.enter(p, true)), variadic: t.variadic };
      case 'struct':
      case 'union':
        if (shallow) return { kind: t.kind, name: t.name, members: [], size: t.size, align: t.align, complete: false };
        return {
          kind: t.kind,
          name: t.name,
          members: t.members.map((m) => {
            const d: TypeMemberDescription = { name: m.name, type: this.enter(m.type, false), offset: m.offset };
            return m.bitWidth !== undefined ? { ...d, bitWidth: m.bitWidth, bitOffset: m.bitOffset ?? 0 } : d;
          }),
          size: t.size,
          align: t.align,
          complete: t.complete,
        };
      case 'enum':
        if (shallow) return { kind: t.kind, name: t.name, constants: [], size: t.size, complete: false };
        return { kind: t.kind, name: t.name, constants: t.constants.map((c) => ({ name: c.name, value: c.value })), size: t.size, complete: t.complete };
      case 'typedef':
        return { kind: t.kind, name: t.name, target: this.enter(t.target, shallow) };
      case 'const':
      case 'volatile':
      case 'restrict':
        return { kind: t.kind, target: this.enter(t.target, shallow) };
    }
  }
}

/** Reads the CTypes of a program's type table back (each once; cycles become cycles again). */
export class TypeTable {
  private readonly made = new Map<number, CType>();

  constructor(readonly types: readonly TypeDescription[]) {}

  /** The CType at `index`, or undefined when the table has no such entry. */
  get(index: number): CType | undefined {
    const known = this.made.get(index);
    if (known !== undefined) return known;
    const d = this.types[index];
    if (d === undefined) return undefined;
    // Each type is registered before the types it refers to are made, so a cycle finds it.
    switch (d.kind) {
      case 'void':
        return this.keep(index, VOID);
      case 'string':
        return this.keep(index, STRING);
      case 'integer':
        return this.keep(index, { ...d });
      case 'float':
        return this.keep(index, { ...d });
      case 'enum':
        return this.keep(index, { kind: d.kind, name: d.name, constants: d.constants.map((c) => ({ ...c })), size: d.size, complete: d.complete });
      case 'pointer': {
        const t = this.keep(index, { kind: d.kind, target: VOID, size: d.size });
        (t as { target: CType }).target = this.ref(d.target);
        return t;
      }
      case 'array': {
        const t = this.keep(index, { kind: d.kind, element: VOID, count: d.count });
        (t as { element: CType }).element = this.ref(d.element);
        return t;
      }
      case 'function': {
        const t = this.keep(index, { kind: d.kind, returnType: VOID, params: [], variadic: d.variadic });
        (t as { returnType: CType }).returnType = this.ref(d.returnType);
        (t as { params: CType[] }).params = d.params.map((p) => this.ref(p));
        return t;
      }
      case 'struct':
      case 'union': {
        const t = { kind: d.kind, name: d.name, members: [] as Member[], size: d.size, align: d.align, complete: d.complete };
        this.keep(index, t);
        t.members = d.members.map((m) => {
          const member: Member = { name: m.name, type: this.ref(m.type), offset: m.offset };
          return m.bitWidth !== undefined ? { ...member, bitWidth: m.bitWidth, bitOffset: m.bitOffset ?? 0 } : member;
        });
        return t;
      }
      case 'typedef':
      case 'const':
      case 'volatile':
      case 'restrict': {
        const t = this.keep(index, d.kind === 'typedef' ? { kind: d.kind, name: d.name, target: VOID } : { kind: d.kind, target: VOID });
        (t as { target: CType }).target = this.ref(d.target);
        return t;
      }
    }
  }

  private keep<T extends CType>(index: number, t: T): T {
    this.made.set(index, t);
    return t;
  }

  private ref(index: number): CType {
    const t = this.get(index);
    if (t === undefined) throw new Error(`program type table: no type at index ${index}`);
    return t;
  }
}
