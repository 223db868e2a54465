import { describe, expect, it } from 'vitest';
import { parseProgram } from '../src/parser.js';
import { CompileError } from '../src/diagnostics.js';

const strip = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (k, x) => (k === 'loc' ? undefined : typeof x === 'bigint' ? x.toString() : x)));

function parseError(src: string): { tag: string; message: string; line?: number } {
  try {
    parseProgram(src);
  } catch (e) {
    if (e instanceof CompileError) return { tag: e.diagnostic.tag, message: e.diagnostic.message, line: e.diagnostic.location?.line };
    throw e;
  }
  throw new Error('expected an error');
}

describe('parser', () => {
  it('parses probe descriptions, predicates and bodies', () => {
    const ast = parseProgram('syscall::read:entry, fbt:::entry /pid == $target/ { self->ts = timestamp; }\nprofile-97hz {}\nBEGIN');
    expect(ast.items).toHaveLength(3);
    const c = ast.items[0]!;
    expect(c.k).toBe('clause');
    if (c.k !== 'clause') return;
    expect(c.probes.map((p) => p.text)).toEqual(['syscall::read:entry', 'fbt:::entry']);
    expect(strip(c.predicate)).toMatchObject({ k: 'binary', op: '==', right: { k: 'macro', name: 'target' } });
    expect(strip(c.body)).toMatchObject([{ k: 'expr', expr: { k: 'assign', left: { k: 'var', scope: 'self', name: 'ts' } } }]);
  });

  it('tells division from the end of a predicate', () => {
    const ast = parseProgram('BEGIN /x / 2 > 1/ { y = a / b / c; }');
    const c = ast.items[0]!;
    if (c.k !== 'clause') throw new Error();
    expect(strip(c.predicate)).toMatchObject({ k: 'binary', op: '>', left: { k: 'binary', op: '/' } });
  });

  it('parses declarations, typedefs, translators and inlines', () => {
    const ast = parseProgram(`
typedef struct foo { int a; char *b; unsigned long c : 3; } foo_t;
int x[string, int];
self int y;
inline int MAX = 10;
translator foo_t < int *p > { a = *p; b = 0; c = 1; };
BEGIN { this->p = (foo_t *)arg1; trace(sizeof (foo_t) + offsetof(foo_t, b) + \`max_ncpus + genunix\`x); }
`);
    expect(ast.items.map((i) => i.k)).toEqual(['decl', 'decl', 'decl', 'inline', 'translator', 'clause']);
  });

  it('parses operator precedence like C', () => {
    const ast = parseProgram('BEGIN { x = 1 + 2 * 3 << 1 == 14 && !y || z ^^ w ? a : b; }');
    const c = ast.items[0]!;
    if (c.k !== 'clause') throw new Error();
    expect(strip(c.body![0])).toMatchObject({
      expr: { k: 'assign', right: { k: 'ternary', cond: { op: '||', right: { op: '^^' } } } },
    });
  });

  it('parses if/else', () => {
    const ast = parseProgram('BEGIN { if (x) { a = 1; } else if (y) b = 2; else { c = 3; } }');
    const c = ast.items[0]!;
    if (c.k !== 'clause') throw new Error();
    expect(strip(c.body![0])).toMatchObject({ k: 'if', otherwise: [{ k: 'if', otherwise: [{ k: 'expr' }] }] });
  });

  it('reports syntax errors like dtrace', () => {
    expect(parseError('BEGIN { x = ; }')).toEqual({ tag: 'D_SYNTAX', message: 'syntax error near ";"', line: 1 });
    expect(parseError('BEGIN {\n x = 1')).toMatchObject({ tag: 'D_SYNTAX', message: 'syntax error near end of input' });
    expect(parseError('BEGIN { x = "abc\n"; }')).toMatchObject({ tag: 'D_STR_NL' });
    expect(parseError("BEGIN { x = ''; }")).toMatchObject({ tag: 'D_CHR_NULL' });
    expect(parseError('BEGIN { x = 09; }')).toMatchObject({ tag: 'D_INT_DIGIT' });
    expect(parseError('#include <foo.h>\nBEGIN {}')).toMatchObject({ tag: 'D_PRAGCTL_INVAL', message: 'invalid control directive: #include' });
  });
});
