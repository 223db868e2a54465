// Per-pass tests: run the pipeline up to a pass and look at what it made.
import { describe, expect, it } from 'vitest';
import { DTRACEACT } from '@wdtrace/dtrace-core/program';
import { compile, dumpSugared, listDif, preprocess, runPasses } from '../src/index.js';
import { printProgram } from '../src/printer.js';
import { splitProbeDescription } from '../src/passes/probes.js';
import { testCatalogue } from './corpus-support.js';

const errorOf = (r: { diagnostics: { severity: string; tag: string; message: string; location?: { line: number } }[] }) =>
  r.diagnostics.find((d) => d.severity === 'error');

describe('pragmas pass', () => {
  it('collects options from #pragma and -x', () => {
    const r = runPasses('#pragma D option quiet\n#pragma D option bufsize=8m\nBEGIN {}', { options: { switchrate: '10hz' } }, 'pragmas');
    expect([...r.context.pragmaOptions.entries()]).toEqual([
      ['switchrate', '10hz'],
      ['quiet', null],
      ['bufsize', '8m'],
    ]);
    expect(compile('#pragma D option quiet\nBEGIN {}').program!.options).toEqual([{ name: 'quiet', value: null }]);
  });

  it('strsize changes the size of strings', () => {
    const r = compile('#pragma D option strsize=64\nBEGIN { trace(execname); }');
    expect(r.program!.ecbs[0]!.actions[0]!.record!.size).toBe(64);
  });

  it('rejects -x options dtrace does not know', () => {
    expect(errorOf(compile('BEGIN {}', { options: { frob: null } }))).toMatchObject({ tag: 'D_PRAGMA_OPTSET', message: "failed to set option 'frob': Invalid option name" });
  });
});

describe('macros pass', () => {
  it('expands arguments and process macros in descriptions and expressions', () => {
    const r = runPasses('pid$target::$$1:entry { trace($2); trace($$2); trace($ppid); }', { macroArgs: ['malloc', '0x10'], macroVariables: { target: 42, ppid: 7 } }, 'macros');
    const text = printProgram(r.context.ast!);
    expect(text).toContain('pid42::malloc:entry');
    expect(text).toContain('trace(16);');
    expect(text).toContain('trace("0x10");');
    expect(text).toContain('trace(7);');
  });

  it('defaultargs makes missing arguments 0 or ""', () => {
    expect(compile('BEGIN { trace($1); trace($$1); }', { options: { defaultargs: null } }).program).toBeDefined();
  });

  it('an unreferenced last argument is an error unless -x argref', () => {
    expect(errorOf(compile('BEGIN { trace($1); }', { macroArgs: ['1', 'two'] }))).toMatchObject({ tag: 'D_MACRO_UNUSED', message: "extraneous argument 'two' ($2 is not referenced)" });
    expect(compile('BEGIN { trace($1); }', { macroArgs: ['1', 'two'], options: { argref: null } }).program).toBeDefined();
    // Only the last argument is checked, as dt_compile does.
    expect(compile('BEGIN { trace($2); }', { macroArgs: ['1', '2'] }).program).toBeDefined();
  });
});

describe('sugar pass', () => {
  it('turns if/else into predicated clauses', () => {
    const d = dumpSugared('syscall::read:entry\n/pid != 0/\n{\n\tx = 1;\n\tif (arg0 > 10) {\n\t\ttrace("big");\n\t} else {\n\t\ttrace("small");\n\t}\n\ttrace(x);\n}\n');
    expect(d.text).toBe(
      [
        'syscall::read:entry',
        '{',
        '\tthis->%condition_1 = pid != 0 != 0;',
        '}',
        '',
        'syscall::read:entry',
        '/this->%condition_1/',
        '{',
        '\tx = 1;',
        '\tthis->%condition_2 = this->%condition_1 && arg0 > 10;',
        '}',
        '',
        'syscall::read:entry',
        '/this->%condition_2/',
        '{',
        '\ttrace("big");',
        '}',
        '',
        'syscall::read:entry',
        '/this->%condition_1 && !this->%condition_2/',
        '{',
        '\ttrace("small");',
        '}',
        '',
        'syscall::read:entry',
        '/this->%condition_1/',
        '{',
        '\ttrace(x);',
        '}',
        '',
      ].join('\n'),
    );
    expect(compile('BEGIN { if (arg0) trace(1); }').program!.ecbs).toHaveLength(2);
  });
});

describe('probes pass', () => {
  it('splits descriptions from the right and checks field counts and globs', () => {
    const f = (t: string) => {
      const d = splitProbeDescription(t);
      return typeof d === 'string' ? d : [d.provider, d.module, d.function, d.name];
    };
    expect(f('a:b:c:d')).toEqual(['a', 'b', 'c', 'd']);
    expect(f('b:c:d')).toEqual(['', 'b', 'c', 'd']);
    expect(f('d')).toEqual(['', '', '', 'd']);
    expect(f('a::')).toEqual(['', 'a', '', '']);
    expect(f('x[ab]:y')).toEqual(['', '', 'x[ab]', 'y']);
    expect(f('a:b:c:d:e')).toBe('Overspecified probe description');
    expect(f('x[a:b')).toBe('Invalid probe description glob');
    expect(f(`${'p'.repeat(64)}:::`)).toBe('Name too long');
  });

  it('fills short descriptions from the right', () => {
    const r = runPasses('read:entry {} entry {} fbt::f:return {} a:b:c:d {}', {}, 'probes');
    expect(r.context.clauses.flatMap((c) => c.probes.map((p) => [p.provider, p.module, p.function, p.name]))).toEqual([
      ['', '', 'read', 'entry'],
      ['', '', '', 'entry'],
      ['fbt', '', 'f', 'return'],
      ['a', 'b', 'c', 'd'],
    ]);
  });

  it('matches against the catalogue and fills probe ids', () => {
    const r = compile('syscall::read:entry {} syscall::*:entry {}', { probes: testCatalogue });
    expect(r.program!.ecbs[0]!.probes[0]!.id).toBe(10);
    expect(r.program!.ecbs[1]!.probes[0]!.id).toBe(0);
    expect(errorOf(compile('nope:::x {}', { probes: testCatalogue }))).toMatchObject({ tag: 'D_PDESC_ZERO', message: 'probe description nope:::x does not match any probes' });
    expect(compile('nope:::x {}', { probes: testCatalogue, zdefs: true }).program).toBeDefined();
  });

  it('types args[] from the matched probes', () => {
    const r = runPasses('syscall::read:entry { trace(args[2]); }', { probes: testCatalogue }, 'types');
    const st = r.context.clauses[0]!.cooked!.statements[0]!;
    expect(st.kind === 'action' && st.args[0]!.type).toMatchObject({ kind: 'typedef', name: 'size_t' });
  });
});

describe('types and codegen', () => {
  it('gives variables the type of their first assignment', () => {
    const r = runPasses('BEGIN { x = 1; s = "a"; self->p = (char *)arg0; }', {}, 'types');
    expect(r.context.globals.get('x')!.type).toMatchObject({ name: 'int' });
    expect(r.context.globals.get('s')!.type).toMatchObject({ kind: 'string' });
    expect(r.context.threadLocals.get('p')!.type).toMatchObject({ kind: 'pointer' });
  });

  it('folds constants', () => {
    const r = compile('BEGIN { trace(2 * (3 + 4) - (1 << 3)); }');
    expect(listDif(r)).toContain('setx DT_INTEGER[0], %r1\t\t! 0x6\n01: 23000001    ret  %r1');
  });

  it('lays out records after the header at their alignment', () => {
    const r = compile('BEGIN { trace((char)1); trace(2); trace((short)3); trace(4LL); trace("s"); exit(0); }');
    const recs = r.program!.ecbs[0]!.actions.filter((a) => a.record !== undefined).map((a) => [a.record!.offset, a.record!.size]);
    expect(recs).toEqual([
      [12, 1],
      [16, 4],
      [20, 2],
      [24, 8],
      [32, 256],
      [288, 4],
    ]);
    expect(r.program!.ecbs[0]!.size).toBe(296);
    expect(r.program!.ecbs[0]!.actions.at(-1)!.kind).toBe(DTRACEACT.EXIT);
  });

  it('uses tuple instructions for associative arrays', () => {
    const s = listDif(compile('BEGIN { a[execname, 1] = 2; trace(a["x", 1]); }'));
    expect(s).toContain('flushts');
    expect(s).toContain('pushtr DT_TYPE(1), %r0, %r');
    expect(s).toContain('pushtv DT_TYPE(0), %r');
    expect(s).toMatch(/stgaa %r\d, DT_VAR\(1280\)\t\t! DT_VAR\(1280\) = "a"/);
    expect(s).toMatch(/ldgaa DT_VAR\(1280\), %r\d/);
  });

  it('calls subroutines through the tuple stack', () => {
    expect(listDif(compile('BEGIN { trace(strlen(execname)); }'))).toMatch(/call DIF_SUBR\(12\), %r1\t\t! strlen/);
  });

  it('compiles for ILP32 with 4-byte pointers', () => {
    const r = compile('BEGIN { trace((char *)arg0); trace(sizeof (long)); }', { dataModel: 'ILP32' });
    expect(r.program!.ecbs[0]!.actions[0]!.record!.size).toBe(4);
    expect(listDif(r)).toContain('! 0x4');
  });
});

describe('C preprocessor', () => {
  const files: Record<string, string> = {
    '/usr/include/defs.h': '#define LIMIT 10\n#define TWICE(x) ((x) * 2)\n',
    'local.h': '#include <defs.h>\n#define NAME "local"\n',
  };
  const resolve = (p: string) => (files[p] !== undefined ? { path: p, text: files[p]! } : undefined);

  it('expands object- and function-like macros, includes and conditionals', () => {
    const out = preprocess('#include "local.h"\n#if LIMIT > 5 && defined(TWICE)\nBEGIN { trace(TWICE(LIMIT)); trace(NAME); }\n#else\nnot D\n#endif\n', {
      defines: [],
      undefines: [],
      includePaths: ['/usr/include'],
      resolve,
    });
    expect(out.text).toContain('BEGIN { trace(((10) * 2)); trace("local"); }');
    expect(out.text).not.toContain('not D');
    expect(out.includes).toEqual(['local.h', '/usr/include/defs.h']);
  });

  it('honours -D and -U', () => {
    const r = compile('#ifdef DEBUG\nBEGIN { trace(LEVEL); }\n#endif\n', { cpp: true, defines: ['DEBUG', 'LEVEL=3'] });
    expect(listDif(r)).toContain('! 0x3');
    expect(compile('#ifdef DEBUG\nBEGIN { trace(nosuch); }\n#endif\nEND {}', { cpp: true, defines: ['DEBUG'], undefines: ['DEBUG'] }).program).toBeDefined();
  });

  it('keeps line numbers for diagnostics', () => {
    const e = errorOf(compile('#define X 1\n\n/* comment\n */\nBEGIN\n{\n\ttrace(nosuch);\n}\n', { cpp: true }));
    expect(e).toMatchObject({ tag: 'D_IDENT_UNDEF', location: { line: 7 } });
  });

  it('reports errors in included files by file and line', () => {
    const e = errorOf(compile('#include "bad.h"\nBEGIN {}', { cpp: true, includeResolver: (p) => (p === 'bad.h' ? { path: 'bad.h', text: '\nint x = ;\n' } : undefined) }));
    expect(e).toMatchObject({ tag: 'D_SYNTAX', location: { line: 2, file: 'bad.h' } });
  });

  it('stops at #error', () => {
    expect(errorOf(compile('#error no way\n', { cpp: true }))).toMatchObject({ tag: 'D_PRAGERR' });
  });
});
