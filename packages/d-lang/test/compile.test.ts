import { describe, expect, it } from 'vitest';
import { compile, dumpSugared, formatDiagnostics, listDif } from '../src/index.js';
import { DTRACEACT, DTRACEAGG, programFromJSON, programToJSON } from '@wdtrace/dtrace-core/program';

function ok(src: string, options = {}) {
  const r = compile(src, options);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(formatDiagnostics(r));
  return r;
}

function err(src: string, options = {}) {
  const r = compile(src, options);
  const e = r.diagnostics.find((d) => d.severity === 'error');
  if (e === undefined) throw new Error('expected a compile error for: ' + src);
  return e;
}

describe('compile', () => {
  it('compiles a clause to ECBs with DIF', () => {
    const r = ok('syscall::read:entry /pid == 1/ { self->ts = timestamp; @c[probefunc] = count(); printf("%d %s\\n", arg0, execname); }');
    const p = r.program!;
    expect(p.ecbs).toHaveLength(1);
    const e = p.ecbs[0]!;
    expect(e.probes[0]).toMatchObject({ provider: 'syscall', module: '', function: 'read', name: 'entry' });
    expect(e.predicate).toBeDefined();
    expect(e.actions.map((a) => a.kind)).toEqual([DTRACEACT.DIFEXPR, DTRACEACT.DIFEXPR, DTRACEAGG.COUNT, DTRACEACT.PRINTF, DTRACEACT.PRINTF]);
    expect(p.formats[0]!.format).toBe('%d %s\n');
    expect(p.aggregations[0]).toMatchObject({ name: 'c', function: DTRACEAGG.COUNT });
    expect(e.actions[3]!.record).toMatchObject({ size: 8, offset: 16, alignment: 8 });
    expect(e.actions[4]!.record).toMatchObject({ size: 256, offset: 24 });
    expect(programFromJSON(JSON.parse(JSON.stringify(programToJSON(p))))).toEqual(p);
  });

  it('gives DIFO arrays that survive structuredClone and hold exactly their DIFO (views into pooled buffers)', () => {
    const p = ok('BEGIN /arg0 > 1/ { x = 5; trace(x + 7); printf("%d", 3); }').program!;
    const c = structuredClone(p);
    expect(c).toEqual(p);
    for (const e of p.ecbs) {
      for (const d of [e.predicate, ...e.actions.map((a) => a.difo)]) {
        if (d === undefined) continue;
        expect(d.buf.slice()).toEqual(new Uint32Array(Array.from(d.buf)));
        expect(d.buf.length).toBe(d.buf.slice().length);
        expect(d.strtab.at(-1) ?? 0).toBe(0);
      }
    }
    const spans = p.ecbs.flatMap((e) => [e.predicate, ...e.actions.map((a) => a.difo)]).filter((d) => d !== undefined).flatMap((d) => [d!.buf, d!.strtab]).filter((a) => a.byteLength > 0);
    // Identical string tables are one shared array; distinct arrays never overlap.
    const distinct = [...new Set(spans)].map((a) => [a.byteOffset, a.byteOffset + a.byteLength, a.buffer] as const);
    for (const [i, a] of distinct.entries()) for (const b of distinct.slice(i + 1)) if (a[2] === b[2]) expect(a[1] <= b[0] || b[1] <= a[0]).toBe(true);
  });

  it('lists DIF like dtrace -S', () => {
    const r = ok('BEGIN { x = 1 + 2; trace(x * 3); }');
    const s = listDif(r);
    expect(s).toContain('setx DT_INTEGER[0], %r1\t\t! 0x3');
    expect(s).toContain('stgs %r1, DT_VAR(1280)\t\t! DT_VAR(1280) = "x"');
    expect(s).toContain('mul  %r1, %r2, %r1');
    expect(s).toContain('NAME             ID   KND SCP FLAG TYPE');
  });

  it('prints the sugared program for -d', () => {
    const d = dumpSugared('BEGIN /x/ { if (a > 1) { trace(1); } else { trace(2); } }');
    expect(d.text).toContain('this->%condition_1 = x != 0;');
    expect(d.text).toContain('/this->%condition_1 && !this->%condition_2/');
  });

  it('reports errors with dtrace wording and tags', () => {
    const e = err('BEGIN\n{\n\ttrace(y);\n}');
    expect(e.tag).toBe('D_IDENT_UNDEF');
    expect(formatDiagnostics({ diagnostics: [e] }, { origin: { kind: 'script', name: 'x.d' } })).toBe(
      'dtrace: failed to compile script x.d: line 3: failed to resolve y: Unknown variable name',
    );
    expect(formatDiagnostics({ diagnostics: [e] }, { origin: { kind: 'script', name: 'x.d' }, errtags: true })).toBe(
      'dtrace: failed to compile script x.d: [D_IDENT_UNDEF] line 3: failed to resolve y: Unknown variable name',
    );
  });

  it('names the kind of function called from an expression, as dt_cg does', () => {
    const origin = { origin: { kind: 'script' as const, name: 'x.d' } };
    const st = err('BEGIN { printf("%k", stack()); }');
    expect(st.tag).toBe('D_CG_EXPR');
    expect(formatDiagnostics({ diagnostics: [st] }, origin)).toBe(
      'dtrace: failed to compile script x.d: line 1: tracing function stack( ) may not be called from a D expression (D program context required)',
    );
    const ag = err('BEGIN { x = count(); }');
    expect(formatDiagnostics({ diagnostics: [ag] }, origin)).toBe(
      'dtrace: failed to compile script x.d: line 1: aggregating function count( ) may not be called from a D expression (D program context required)',
    );
  });
});

describe('standard D libraries', () => {
  const tag = (src: string, options = {}) => compile(src, options).diagnostics.find((d) => d.severity === 'error')?.tag;
  it('errno.d, signal.d and unistd.d are loaded by default, in the guest kernel numbering', () => {
    const r = compile('BEGIN { a = ENOENT; b = ENOSYS; c = SIGKILL; d = SIGCHLD; e = DTRACEFLT_BADADDR; }');
    expect(r.program).toBeDefined();
    const inline = (n: string) => r.context.inlines.get(n)?.value;
    expect([inline('ENOENT'), inline('ENOSYS'), inline('SIGKILL'), inline('SIGCHLD'), inline('DTRACEFLT_BADADDR')].map((v) => (v as { value: bigint }).value)).toEqual([2n, 38n, 9n, 17n, 1n]);
  });
  it('-x nolibs and standardLibraries: false leave them out', () => {
    expect(tag('BEGIN { a = ENOENT; }', { options: { nolibs: null } })).toBe('D_IDENT_UNDEF');
    expect(tag('BEGIN { a = SIGKILL; }', { standardLibraries: false })).toBe('D_IDENT_UNDEF');
  });
  it('a library of the same name given by the user comes after them', () => {
    expect(tag('BEGIN { a = EMINE; }', { libraries: [{ name: 'mine.d', text: 'inline int EMINE = ENOENT + 1000;' }] })).toBeUndefined();
  });
});

describe('NULL', () => {
  it('is a void * constant 0 that strings and pointers accept', () => {
    const r = compile('char *p; BEGIN { p = NULL; s = "a"; s = NULL; x = strtok(NULL, ","); }');
    expect(r.diagnostics).toEqual([]);
  });
});

describe('printf format diagnostics, as dt_printf_create and dt_printf_validate word them', () => {
  const msg = (src: string) => {
    const d = compile(src).diagnostics.find((x) => x.severity === 'error')!;
    return `${d.tag}: ${d.message}`;
  };
  it('reports malformed conversions as D_SYNTAX, numbered over every %', () => {
    expect(msg('BEGIN { printf("%d %.*.d", 1, 2); }')).toBe("D_SYNTAX: format conversion #2 has more than one '.' specified");
    expect(msg('BEGIN { printf("%% %1$d", 1); }')).toBe('D_SYNTAX: format conversion #2 uses unsupported positional format (%n$)');
    expect(msg('BEGIN { printf("%-%"); }')).toBe('D_SYNTAX: format conversion #1 cannot be combined with other format flags: %%');
    expect(msg('BEGIN { printf("%z"); }')).toBe('D_SYNTAX: format conversion #1 is undefined: %z');
    expect(msg('BEGIN { printf("abc %"); }')).toBe('D_SYNTAX: format conversion #1 name expected before end of format string');
  });
  it('names conversions by their dictionary name and gives its prototype text', () => {
    expect(msg('BEGIN { printf("%*.*d", 1, 2, "s"); }')).toBe(
      'D_PRINTF_ARG_TYPE: printf( ) argument #4 is incompatible with conversion #1 prototype:\n\tconversion: %d\n\t prototype: char, short, int, long, or long long\n\t  argument: string',
    );
    expect(msg('BEGIN { printf("%*d", "s", 1); }')).toBe(
      'D_PRINTF_DYN_TYPE: printf( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: % * d\n\t prototype: int\n\t  argument: string',
    );
    expect(msg('BEGIN { printf("%.*d"); }')).toBe('D_PRINTF_DYN_PROTO: printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding ".*" argument');
    expect(msg('BEGIN { printf("%@d", 1); }')).toBe('D_PRINTF_AGG_CONV: %@ conversion requires an aggregation and is not for use with printf( )');
    expect(msg('BEGIN { printf("%s %d", "a"); }')).toBe('D_PRINTF_ARG_PROTO: printf( ) prototype mismatch: conversion #2 (%d) is missing a corresponding value argument');
  });
});

describe('diagnostic wording as dtrace prints it', () => {
  const msg = (src: string) => {
    const d = compile(src).diagnostics.find((x) => x.severity === 'error')!;
    return `${d.tag}: ${d.message}`;
  };
  it('prototype texts and argument counts', () => {
    expect(msg('BEGIN { exit("s"); }')).toBe('D_PROTO_ARG: exit( ) argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: string');
    expect(msg('BEGIN { x = strtok("a", 1); }')).toBe('D_PROTO_ARG: strtok( ) argument #2 is incompatible with prototype:\n\tprototype: char *\n\t argument: int');
    expect(msg('BEGIN { x = substr("a"); }')).toBe('D_PROTO_LEN: substr( ) prototype mismatch: 1 arg passed, at least 2 expected');
    expect(msg('BEGIN { @ = quantize(); }')).toBe('D_PROTO_LEN: quantize( ) prototype mismatch: 0 args passed, at least 1 expected');
  });
  it('declarations, pragmas and options', () => {
    expect(msg('int a[]; BEGIN {}')).toBe('D_DECL_ARRNULL: array declaration requires array dimension or tuple signature: a');
    expect(msg('struct pirate p; BEGIN {}')).toBe('D_DECL_INCOMPLETE: incomplete struct/union/enum struct pirate: p');
    expect(msg('#pragma D error "stop here"\nBEGIN {}')).toBe('D_PRAGERR: #error: stop here ');
    expect(msg('#pragma D option specsize=-40\nBEGIN {}')).toBe("D_PRAGMA_OPTSET: failed to set option 'specsize' to '-40': Invalid value for specified option");
    expect(msg('#pragma D option nspec=-72\nBEGIN {}')).toBe("D_PRAGMA_OPTSET: failed to set option 'nspec' to '-72': Invalid value for specified option");
    expect(compile('#pragma D option nspec=0x10\nBEGIN {}').diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    expect(msg('#pragma D option nspec=24 * 44\nBEGIN {}')).toBe('D_PRAGMA_MALFORM: superfluous arguments specified for #pragma option');
    expect(msg('BEGIN { x = stringof(trace(1)); }')).toBe('D_STRINGOF_TYPE: cannot apply stringof to a value of type void');
  });
});
