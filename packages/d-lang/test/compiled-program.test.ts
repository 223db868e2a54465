// The compiled program as the framework receives it: DIFOs shared between
// actions when identical, the D types of recorded values, and locations of
// diagnostics worked out from Locs.
import { describe, expect, it } from 'vitest';
import { type CompiledProgram, DTRACEACT, TypeTable, programFromJSON, programToJSON } from '@wdtrace/dtrace-core/program';
import { type CType, typeName } from '@wdtrace/dtrace-core/types';
import { compile } from '../src/index.js';

/** The D type names of an ECB's records, read from the program's type table ('-' where a record has no type). */
function recordTypeNames(p: CompiledProgram, ecb = 0): string[] {
  const table = new TypeTable(p.types ?? []);
  return p.ecbs[ecb]!.actions.filter((a) => a.record !== undefined).map((a) => (a.record!.type === undefined ? '-' : typeName(table.get(a.record!.type)!)));
}

const TYPED = `struct s { int a; unsigned char b; struct s *next; };
BEGIN {
  trace(-1); trace((unsigned short)2); trace(execname);
  print(*(struct s *)0);
  printf("%d %u %s %p\\n", -1, 2u, "x", (struct s *)0);
  @a = count(); printa("%@d\\n", @a);
  system("echo %d", (char)1); freopen("/tmp/%d", (long)3);
}`;

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

  it('carries the D type of each recorded value', () => {
    const p = compile(TYPED, { options: { destructive: null } }).program!;
    expect(recordTypeNames(p)).toEqual(['int', 'unsigned short', 'string', 'struct s', 'int', 'unsigned int', 'string', 'struct s *', '-', 'char', 'long']);
    const table = new TypeTable(p.types!);
    const printed = p.ecbs[0]!.actions.find((a) => a.kind === DTRACEACT.DIFEXPR && a.record?.type !== undefined && a.uarg !== 0n)!;
    const s = table.get(printed.record!.type!) as CType & { kind: 'struct' };
    expect(s.members.map((m) => [m.name, typeName(m.type), m.offset])).toEqual([
      ['a', 'int', 0],
      ['b', 'unsigned char', 4],
      ['next', 'struct s *', 8],
    ]);
    // A pointer's target is kept by name only.
    const next = s.members[2]!.type as CType & { kind: 'pointer' };
    expect(next.target).toMatchObject({ kind: 'struct', name: 's', members: [], complete: false });
  });

  it('keeps the record types through JSON and structuredClone', () => {
    const p = compile(TYPED, { options: { destructive: null } }).program!;
    const back = programFromJSON(JSON.parse(JSON.stringify(programToJSON(p))));
    expect(back.types).toEqual(p.types);
    expect(recordTypeNames(back)).toEqual(recordTypeNames(p));
    expect(recordTypeNames(structuredClone(p))).toEqual(recordTypeNames(p));
    // A self-referencing struct reads back as one: its member's pointer leads to a struct of the same name.
    const cyclic = compile('struct n { struct n *next; int v; }; BEGIN { print(*(struct n *)0); }').program!;
    const n = new TypeTable(programFromJSON(JSON.parse(JSON.stringify(programToJSON(cyclic)))).types!).get(0)! as CType & { kind: 'struct' };
    expect(typeName(n.members[0]!.type)).toBe('struct n *');
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
