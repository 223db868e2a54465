// Declarations of functions and externs as dt_node_decl makes them, the
// usual arithmetic conversions as dt_type_promote makes them (rank by bits
// and unsignedness, no promotion to int first), string arithmetic as
// dt_cook_op2 types it, and a bare aggregation statement. Programs run on
// dtrace-core's framework (the real DIF VM).
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostics } from '../src/index.js';
import { fireOnce } from './fire.js';

function error(source: string): string {
  const r = compile(source, {});
  expect(r.program, 'expected a compile error').toBeUndefined();
  return formatDiagnostics({ diagnostics: r.diagnostics.filter((d) => d.severity === 'error') }, { origin: { kind: 'script', name: 'x.d' }, errtags: true });
}

const run = (body: string, decls = ''): string => fireOnce(`${decls}\ntest:kernel:f:fire { ${body} }`, []);

describe('function and extern declarations (dt_node_decl)', () => {
  it('accept prototypes of functions, with or without extern, of any parameter list', () => {
    const decls = [
      'extern int getint(void);',
      'extern int *getptr(void);',
      'extern int *(*funcptr)(void);',
      'extern int **(**funcptrptr)(void);',
      'extern int noparms();',
      'extern int oneparm(int);',
      'extern int twoparms(int, int);',
      'extern int varargs1(...);',
      'extern int varargs2(int, ...);',
      'int plain(char *);',
    ].join('\n');
    expect(run('printf("ok");', decls)).toBe('ok');
  });

  it('accept an extern of a symbol no object defines, and refuse it declared again with another type', () => {
    expect(run('printf("ok");', 'extern int nosuchsymbol;\nextern int nosuchsymbol;')).toBe('ok');
    expect(error('extern int nosuchsymbol;\nextern long nosuchsymbol;')).toBe('dtrace: failed to compile script x.d: [D_DECL_IDRED] line 2: identifier redeclared: D`nosuchsymbol');
  });

});

describe('a bare aggregation statement', () => {
  it('does not create the aggregation: unknown, it fails to resolve', () => {
    expect(error('BEGIN\n{\n\t@a;\n}')).toBe('dtrace: failed to compile script x.d: [D_IDENT_UNDEF] line 3: failed to resolve @a: Unknown variable name');
  });

  it('known, it has no effect', () => {
    expect(error('BEGIN { @a = count(); }\nBEGIN\n{\n\t@a;\n}')).toBe('dtrace: failed to compile script x.d: [D_AGG_NULL] line 4: expression has null effect: @a');
    expect(error('BEGIN\n{\n\t@a[1];\n}')).toBe('dtrace: failed to compile script x.d: [D_AGG_NULL] line 3: expression has null effect: @a');
  });
});

describe('the usual arithmetic conversions (dt_type_promote)', () => {
  it('keep the type of equal-rank operands without promoting to int', () => {
    expect(run('printf("%d %d %d", sizeof((char)1 + (char)1), sizeof((short)1 * (short)1), sizeof((char)1 << 2));')).toBe('1 2 1');
  });

  it('rank by bits plus one for unsigned', () => {
    // unsigned char outranks char: the sum is an unsigned char, so -1 + 0 prints as 255 (C would make it int -1).
    expect(run('this->c = (char)-1; this->u = (unsigned char)0; printf("%d %d %d", sizeof(this->c + this->u), this->c + this->u, sizeof(1 + 1L));')).toBe('1 255 8');
    expect(run('printf("%d %d", (1 - 2U) > 0, sizeof((unsigned short)1 + 1));')).toBe('1 4');
  });

  it('leave a unary operator\'s operand type as it is', () => {
    expect(run('printf("%d %d", sizeof(-(char)1), sizeof(~(short)1));')).toBe('1 2');
  });
});

describe('string arithmetic (dt_cook_op2)', () => {
  it('makes string + integer a string that many bytes on', () => {
    expect(run('printf("%s %s", "hello" + 1, 2 + "hello");')).toBe('ello llo');
    expect(run('s = "abcdef"; printf("%s", s + 3);')).toBe('def');
  });

  it('refuses string - string and integer - string', () => {
    expect(error('BEGIN { x = 1 - "a"; }')).toMatch(/\[D_OP_/);
  });
});
