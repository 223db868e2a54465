// Property tests: whatever the input, the compiler returns diagnostics and
// never throws; what it accepts is structurally valid DIF.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';
import { corpusOptions } from './corpus-support.js';
import { checkProgram } from './dif-check.js';

const dir = join(import.meta.dirname, 'corpus');
const corpus = readdirSync(dir)
  .filter((f) => f.endsWith('.d'))
  .map((f) => ({ name: f, text: readFileSync(join(dir, f), 'utf8') }));

function compileSafely(text: string, name = 'fuzz.d'): void {
  const r = compile(text, corpusOptions(name, text));
  for (const d of r.diagnostics) {
    expect(typeof d.tag).toBe('string');
    expect(typeof d.message).toBe('string');
  }
  if (r.program !== undefined) expect(checkProgram(r.program)).toEqual([]);
}

const TOKENS = ['BEGIN', 'END', 'syscall::read:entry', '{', '}', '(', ')', '[', ']', '/', ';', ',', '=', '+', '-', '*', '&', '->', '.', '?', ':', '@a', '@', 'self->x', 'this->y', 'x', 'arg0', 'args', '1', '0x10', '"s"', "'c'", 'trace', 'printf', 'count()', 'sum', 'quantize', 'lquantize', 'struct', 'int', 'char', 'typedef', 'inline', 'translator', 'xlate', 'sizeof', 'stringof', 'offsetof', 'if', 'else', '#pragma D option quiet\n', '$1', '$$1', '$target', '`x', '\n', ' ', '/*', '*/', '<', '>', '==', '&&', '||', '^^', '++', '--', '+=', 'string', 'self', 'this', 'unsigned', 'long', 'enum', 'union'];

describe('fuzz', () => {
  it('random text only produces diagnostics', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        compileSafely(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('random token soup only produces diagnostics', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }), (toks) => {
        compileSafely(toks.join(' '));
      }),
      { numRuns: 3000 },
    );
  });

  it('mutated corpus programs only produce diagnostics', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...corpus),
        fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...TOKENS, 'a', '0', '"', "'", '\\', '#', '`', '$')), { minLength: 1, maxLength: 5 }),
        (file, edits) => {
          let t = file.text;
          for (const [pos, kind, tok] of edits) {
            const p = t.length === 0 ? 0 : pos % t.length;
            if (kind === 0) t = t.slice(0, p) + tok + t.slice(p);
            else if (kind === 1) t = t.slice(0, p) + t.slice(p + 1);
            else if (kind === 2) t = t.slice(0, p) + tok + t.slice(p + 1);
            else t = t.slice(0, p);
          }
          compileSafely(t, file.name);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('generated expressions compile to valid DIF', () => {
    const leaf = fc.constantFrom('arg0', 'arg1', '1', '0x7f', 'timestamp', 'pid', 'self->v', 'this->w', 'g', '(int)arg2', 'strlen(execname)');
    const expr: fc.Arbitrary<string> = fc.letrec((tie) => ({
      e: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(tie('e'), fc.constantFrom('+', '-', '*', '&', '|', '^', '<<', '>>', '==', '!=', '<', '>=', '&&', '||', '^^'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
        tie('e').map((a) => `(-${a})`),
        tie('e').map((a) => `(!${a})`),
        fc.tuple(tie('e'), tie('e'), tie('e')).map(([a, b, c]) => `(${a} ? ${b} : ${c})`),
      ),
    })).e as fc.Arbitrary<string>;
    fc.assert(
      fc.property(expr, (e) => {
        const src = `BEGIN { self->v = 1; this->w = 2; g = 3; } BEGIN { x = ${e}; @[${e}] = sum(${e}); trace(${e}); }`;
        const r = compile(src, corpusOptions('gen.d', src));
        const errors = r.diagnostics.filter((d) => d.severity === 'error');
        // Deep expressions may need more registers than DIF has; nothing else may fail.
        for (const d of errors) expect(d.tag).toBe('D_NOREG');
        if (r.program !== undefined) expect(checkProgram(r.program)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
