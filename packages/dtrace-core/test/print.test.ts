import { describe, expect, it } from 'vitest';
import { formatPrint, isSignedType } from '../src/consumer/print.js';
import { NO_SYMBOLS } from '../src/framework/machine.js';
import { createCTypeDictionary } from '../src/types/builtins.js';
import { layoutStruct, STRING, type CType } from '../src/types/ctype.js';

const C = createCTypeDictionary('LP64');
const t = (name: string): CType => C.lookupType(name)!;

/** Little-endian bytes of the given [offset, size, value] fields in a buffer of `size` bytes. */
function bytes(size: number, fields: [number, number, bigint | number][] = []): Uint8Array {
  const b = new Uint8Array(size);
  const v = new DataView(b.buffer);
  for (const [off, n, value] of fields) {
    const x = BigInt.asUintN(n * 8, BigInt(value));
    for (let i = 0; i < n; i++) v.setUint8(off + i, Number((x >> BigInt(8 * i)) & 0xffn));
  }
  return b;
}

describe('print() layouts (dt_print.c)', () => {
  it('prints integers in hex with their type, zero as 0, chars quoted', () => {
    expect(formatPrint(t('int'), bytes(4, [[0, 4, 10]]), NO_SYMBOLS)).toBe('int 0xa\n');
    expect(formatPrint(t('int'), bytes(4, [[0, 4, -1]]), NO_SYMBOLS)).toBe('int 0xffffffff\n');
    expect(formatPrint(t('uint64_t'), bytes(8), NO_SYMBOLS)).toBe('uint64_t 0\n');
    expect(formatPrint(t('char'), bytes(1, [[0, 1, 0x41]]), NO_SYMBOLS)).toBe("char 'A'\n");
    expect(formatPrint(t('char'), bytes(1), NO_SYMBOLS)).toBe("char '\\0'\n");
    expect(formatPrint(t('char'), bytes(1, [[0, 1, 7]]), NO_SYMBOLS)).toBe("char '\\007'\n");
    // A negative char goes through "%03o" as an int.
    expect(formatPrint(t('char'), bytes(1, [[0, 1, 0xff]]), NO_SYMBOLS)).toBe("char '\\37777777777'\n");
    expect(formatPrint(t('unsigned char'), bytes(1, [[0, 1, 0x41]]), NO_SYMBOLS)).toBe('unsigned char 0x41\n');
  });
  it('prints pointers as hex and function pointers by symbol', () => {
    const ptr: CType = { kind: 'pointer', target: t('char'), size: 8 };
    expect(formatPrint(ptr, bytes(8, [[0, 8, 0xffff800000001000n]]), NO_SYMBOLS)).toBe('char * 0xffff800000001000\n');
    const fn: CType = { kind: 'pointer', target: { kind: 'function', returnType: t('int'), params: [], variadic: false }, size: 8 };
    const symbols = { lookup: (a: bigint) => (a >= 0x1000n && a < 0x1100n ? { module: 'kernel', symbol: { name: 'vfs_read', value: 0x1000n } } : undefined) };
    expect(formatPrint(fn, bytes(8, [[0, 8, 0x1010]]), symbols)).toBe('int (*)(void) kernel`vfs_read\n');
    expect(formatPrint(fn, bytes(8, [[0, 8, 0x2000]]), symbols)).toBe('int (*)(void) 0x2000\n');
  });
  it('prints strings without brackets at the top level', () => {
    const s = bytes(16);
    s.set(new TextEncoder().encode('hello'));
    expect(formatPrint(STRING, s, NO_SYMBOLS)).toBe('string "hello"\n');
  });
  it('prints arrays on one line, character arrays as strings', () => {
    const arr: CType = { kind: 'array', element: t('int'), count: 3 };
    expect(formatPrint(arr, bytes(12, [[0, 4, 1], [4, 4, 0], [8, 4, 0x2e]]), NO_SYMBOLS)).toBe('int [3] [ 0x1, 0, 0x2e ]\n');
    const carr: CType = { kind: 'array', element: t('char'), count: 8 };
    const c = bytes(8);
    c.set(new TextEncoder().encode('abc'));
    expect(formatPrint(carr, c, NO_SYMBOLS)).toBe('char [8] "abc"\n');
    // Not NUL-terminated within the array: printed element by element.
    expect(formatPrint({ kind: 'array', element: t('char'), count: 2 }, new TextEncoder().encode('ab'), NO_SYMBOLS)).toBe("char [2] [ 'a', 'b' ]\n");
  });
  it('prints structs member by member, nested structs and arrays indented 4 columns a level', () => {
    const inner = layoutStruct('struct', 'point', [
      { name: 'x', type: t('int') },
      { name: 'y', type: t('int') },
    ]);
    const outer = layoutStruct('struct', 'shape', [
      { name: 'id', type: t('short') },
      { name: 'name', type: { kind: 'array', element: t('char'), count: 6 } },
      { name: 'origin', type: inner },
      { name: 'next', type: { kind: 'pointer', target: inner, size: 8 } },
      { name: 'flags', type: t('unsigned int'), bitWidth: 3 },
      { name: 'pts', type: { kind: 'array', element: inner, count: 2 } },
      { name: 'last', type: t('long') },
    ]);
    expect(outer.size).toBe(56);
    const b = bytes(outer.size, [
      [0, 2, 7],
      [8, 4, 1],
      [12, 4, -2],
      [16, 8, 0x1000],
      [24, 4, 5],
      [28, 4, 10],
      [32, 4, 11],
      [36, 4, 12],
      [40, 4, 13],
      [48, 8, 99],
    ]);
    b.set(new TextEncoder().encode('box'), 2);
    expect(formatPrint(outer, b, NO_SYMBOLS)).toBe(
      'struct shape {\n' +
        '    short id = 0x7\n' +
        '    char [6] name = [ "box" ]\n' +
        '    struct point origin = {\n' +
        '        int x = 0x1\n' +
        '        int y = 0xfffffffe\n' +
        '    }\n' +
        '    struct point *next = 0x1000\n' +
        '    unsigned int flags :3 = 0x5\n' +
        '    struct point [2] pts = [ \n' +
        '        struct point {\n' +
        '            int x = 0xa\n' +
        '            int y = 0xb\n' +
        '        }, \n' +
        '        struct point {\n' +
        '            int x = 0xc\n' +
        '            int y = 0xd\n' +
        '        }\n' +
        '    ]\n' +
        '    long last = 0x63\n' +
        '}',
    );
  });
  it('prints enums by name (the value when no constant matches), floats as %+.7e', () => {
    const e: CType = { kind: 'enum', name: 'color', constants: [{ name: 'RED', value: 0 }, { name: 'BLUE', value: 2 }], size: 4, complete: true };
    expect(formatPrint(e, bytes(4, [[0, 4, 2]]), NO_SYMBOLS)).toBe('enum color BLUE\n');
    expect(formatPrint(e, bytes(4, [[0, 4, -3]]), NO_SYMBOLS)).toBe('enum color -3\n');
    const d = new Uint8Array(8);
    new DataView(d.buffer).setFloat64(0, 1.5, true);
    expect(formatPrint(t('double'), d, NO_SYMBOLS)).toBe('double +1.5000000e+00\n');
  });
  it('knows which D types are signed', () => {
    expect(isSignedType(t('int'))).toBe(true);
    expect(isSignedType(t('uint32_t'))).toBe(false);
    expect(isSignedType({ kind: 'pointer', target: t('int'), size: 8 })).toBe(false);
    expect(isSignedType(undefined)).toBe(true);
  });
});
