// The compiled program's type table: CTypes in, plain data, CTypes out.
import { describe, expect, it } from 'vitest';
import { formatPrint, isSignedType } from '../src/consumer/print.js';
import { NO_SYMBOLS } from '../src/framework/machine.js';
import { TypeTable, TypeTableBuilder } from '../src/program/type-table.js';
import { createCTypeDictionary } from '../src/types/builtins.js';
import { type CType, type StructType, layoutStruct, typeName } from '../src/types/ctype.js';

const C = createCTypeDictionary('LP64');
const t = (name: string): CType => C.lookupType(name)!;

/** Through JSON and back, as a program read from a file is. */
const roundTrip = (types: unknown): TypeTable => new TypeTable(JSON.parse(JSON.stringify(types)));

describe('program type table', () => {
  it('keeps integers, typedefs, qualifiers, arrays, enums and bit-fields', () => {
    const b = new TypeTableBuilder();
    const color: CType = { kind: 'enum', name: 'color', constants: [{ name: 'RED', value: 0 }, { name: 'BLUE', value: 2 }], size: 4, complete: true };
    const s = layoutStruct('struct', 'rec', [
      { name: 'a', type: { kind: 'const', target: t('unsigned short') } },
      { name: 'flags', type: t('unsigned int'), bitWidth: 3 },
      { name: 'name', type: { kind: 'array', element: t('char'), count: 8 } },
      { name: 'c', type: color },
    ]);
    const i64 = b.add(t('int64_t'));
    const u8 = b.add(t('uint8_t'));
    const rec = b.add(s);
    const table = roundTrip(b.types);
    expect(typeName(table.get(i64)!)).toBe('int64_t');
    expect(isSignedType(table.get(i64))).toBe(true);
    expect(isSignedType(table.get(u8))).toBe(false);
    const back = table.get(rec)! as StructType;
    expect(back.members.map((m) => [m.name, typeName(m.type), m.offset, m.bitWidth, m.bitOffset])).toEqual(s.members.map((m) => [m.name, typeName(m.type), m.offset, m.bitWidth, m.bitOffset]));
    expect(back.size).toBe(s.size);
    // print() gives the same text for the type read back as for the original.
    const data = new Uint8Array(s.size).map((_, i) => i + 1);
    expect(formatPrint(back, data, NO_SYMBOLS)).toBe(formatPrint(s, data, NO_SYMBOLS));
    // A type is entered once.
    expect(b.add(t('int64_t'))).toBe(i64);
    expect(table.get(b.types.length)).toBeUndefined();
  });

  it('keeps a pointer target by name only, and a cycle through it', () => {
    const node = layoutStruct('struct', 'node', [{ name: 'v', type: t('int') }]);
    const ptr: CType = { kind: 'pointer', target: node, size: 8 };
    node.members = layoutStruct('struct', 'node', [
      { name: 'v', type: t('int') },
      { name: 'next', type: ptr },
    ]).members;
    node.size = 16;
    const b = new TypeTableBuilder();
    const full = b.add(node);
    const table = roundTrip(b.types);
    const back = table.get(full)! as StructType;
    expect(back.members.map((m) => typeName(m.type))).toEqual(['int', 'struct node *']);
    const target = (back.members[1]!.type as { target: StructType }).target;
    expect(target).toMatchObject({ kind: 'struct', name: 'node', members: [], complete: false });
    // The same pointer entered again is the same entry; the table is small (struct, int, pointer, struct by name).
    expect(b.add(ptr)).toBe(b.add(ptr));
    expect(b.types.length).toBe(4);
  });
});
