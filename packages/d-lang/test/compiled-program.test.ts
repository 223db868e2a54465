// The compiled program as the framework receives it: DIFOs shared between
// actions when identical, and locations of diagnostics worked out from Locs.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';

describe('compiled program', () => {
  it('shares identical DIFOs and keeps different ones apart', () => {
    const r = compile('BEGIN { @a[execname] = count(); @b[execname] = count(); @c[1] = count(); @d[2] = count(); @e["x"] = count(); @f["y"] = count(); }');
    const keys = r.program!.ecbs[0]!.actions.filter((a) => a.kind === 0x0001).map((a) => a.difo!);
    expect(keys).toHaveLength(6);
    expect(keys[0]).toBe(keys[1]);
    // The same instructions with another constant or string are another DIFO.
    expect(keys[2]).not.toBe(keys[3]);
    expect(keys[2]!.inttab).toEqual([1n]);
    expect(keys[3]!.inttab).toEqual([2n]);
    expect(keys[4]).not.toBe(keys[5]);
  });

  it('locates errors by line and column, after #line markers and in libraries', () => {
    const at = (src: string, opts = {}) => compile(src, opts).diagnostics[0]?.location;
    expect(at('BEGIN { x = y; }')).toEqual({ line: 1, column: 13, offset: 12 });
    expect(at('\n\nBEGIN {\n  trace(nosuch);\n}')).toEqual({ line: 4, column: 9, offset: 18 });
    expect(at('# 10 "a.d"\nBEGIN {\n trace(nosuch);\n}')).toEqual({ line: 11, column: 8, offset: 26, file: 'a.d' });
    expect(at('BEGIN { trace(nosuch); }', { libraries: [{ name: 'l.d', text: 'inline int one = 1;\n' }] })).toEqual({ line: 1, column: 15, offset: 14 });
    expect(at('x', { libraries: [{ name: 'l.d', text: 'inline int one = 1;\ninline int one = 2;\n' }] })).toMatchObject({ line: 2, file: 'l.d' });
  });
});
