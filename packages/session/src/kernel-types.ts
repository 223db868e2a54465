// The guest kernel's types for the D compiler: an adapter from the kernel
// package's DWARF model to dtrace-core's type dictionary (every named DWARF
// type under its C spelling, enum constants, and global variables with
// addresses as symbols). It lives here, where both packages meet, so neither
// depends on the other.

import {
  InMemoryTypeDictionary,
  VOID,
  alignOfType,
  floatType,
  integerType,
  type CType,
  type DataModel,
  type EnumType,
  type StructType,
} from '@wdtrace/dtrace-core/types';
import { DW_ATE, type DwarfInfo, type TypeId } from '@wdtrace/kernel';

export interface DwarfDictionaryOptions {
  /** Module name for backquoted scoping (`kernel`struct proc); default "kernel". */
  readonly name?: string;
  /** Data model; default from the address size (8 -> LP64, 4 -> ILP32). */
  readonly dataModel?: DataModel;
}

/** Build a D type dictionary from a DWARF model. */
export function dwarfTypeDictionary(info: DwarfInfo, options: DwarfDictionaryOptions = {}): InMemoryTypeDictionary {
  const module = options.name ?? 'kernel';
  const dict = new InMemoryTypeDictionary(module, options.dataModel ?? (info.addressSize === 8 ? 'LP64' : 'ILP32'));
  const memo = new Map<TypeId, CType>();
  const pending: [StructType, TypeId][] = [];

  const convert = (id: TypeId | undefined, depth = 0): CType => {
    if (id === undefined) return VOID;
    const done = memo.get(id);
    if (done) return done;
    const t = info.types.get(id);
    if (!t || depth > 200) return VOID;
    let out: CType;
    switch (t.kind) {
      case 'void':
        out = VOID;
        break;
      case 'base': {
        if (t.encoding === DW_ATE.float || t.encoding === DW_ATE.complex_float) out = floatType(t.name, t.size);
        else {
          const signed = t.encoding === DW_ATE.signed || t.encoding === DW_ATE.signed_char;
          const isChar = t.encoding === DW_ATE.signed_char || t.encoding === DW_ATE.unsigned_char;
          const isBool = t.encoding === DW_ATE.boolean;
          out = integerType(t.name, t.size, signed, { ...(isChar ? { isChar } : {}), ...(isBool ? { isBool } : {}) });
        }
        break;
      }
      case 'pointer':
        memo.set(id, (out = { kind: 'pointer', target: VOID, size: t.size }));
        (out as { target: CType }).target = convert(t.target, depth + 1);
        return out;
      case 'const':
      case 'volatile':
      case 'restrict':
        out = { kind: t.kind, target: convert(t.target, depth + 1) };
        break;
      case 'atomic':
        out = convert(t.target, depth + 1);
        break;
      case 'typedef':
        memo.set(id, (out = { kind: 'typedef', name: t.name, target: VOID }));
        (out as { target: CType }).target = convert(t.target, depth + 1);
        return out;
      case 'struct':
      case 'union': {
        const s: StructType = { kind: t.kind, name: t.name ?? '', members: [], size: t.size, align: 1, complete: !t.declaration };
        memo.set(id, s);
        pending.push([s, id]);
        return s;
      }
      case 'enum': {
        const e: EnumType = { kind: 'enum', name: t.name ?? '', constants: t.enumerators.map((x) => ({ name: x.name, value: Number(x.value) })), size: t.size, complete: true };
        out = e;
        break;
      }
      case 'array': {
        // int [2][3] is an array of 2 arrays of 3 ints
        let el = convert(t.element, depth + 1);
        for (let i = t.dimensions.length - 1; i >= 0; i--) el = { kind: 'array', element: el, count: t.dimensions[i] ?? 0 };
        out = el;
        break;
      }
      case 'function':
        out = { kind: 'function', returnType: convert(t.returns, depth + 1), params: t.params.map((p) => convert(p, depth + 1)), variadic: t.variadic };
        break;
    }
    memo.set(id, out);
    return out;
  };

  const fill = (): void => {
    while (pending.length) {
      const [s, id] = pending.pop()!;
      const t = info.types.get(id)!;
      if (t.kind !== 'struct' && t.kind !== 'union') continue;
      s.members = t.members.map((m) => ({
        name: m.name,
        type: convert(m.type),
        offset: m.offset,
        ...(m.bitSize !== undefined ? { bitWidth: m.bitSize, bitOffset: (m.bitOffset ?? 0) - m.offset * 8 } : {}),
      }));
    }
  };

  for (const [name, id] of info.namedTypes) {
    const t = convert(id);
    fill();
    if (t.kind === 'struct' || t.kind === 'union') dict.defineStruct(t);
    else if (t.kind === 'enum') dict.defineEnum(t);
    else dict.defineType(name, t);
  }
  // Anonymous enums still contribute their constants.
  for (const t of info.types.values()) if (t.kind === 'enum' && !t.name) dict.defineEnum(convert(t.id) as EnumType);
  fill();
  for (const s of memo.values()) if ((s.kind === 'struct' || s.kind === 'union') && s.members.length) s.align = Math.max(1, ...s.members.map((m) => alignOfType(m.type)));

  for (const v of info.variables) {
    if (v.address === undefined) continue;
    const type = convert(v.type);
    fill();
    dict.defineSymbol({ name: v.name, module, address: v.address, size: info.sizeOf(v.type) ?? 0, type });
  }
  return dict;
}
