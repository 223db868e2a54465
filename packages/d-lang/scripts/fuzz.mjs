// Fuzzer bench: the compiler on 100,000 mutated D programs (the test
// corpus with tokens inserted, replaced and deleted, truncated, or spliced
// together) and as many random token sequences. Every input must come back
// as a compiled program or as diagnostics: a JavaScript exception escaping
// compile() is a failure, shrunk by fast-check to a small input and printed.
// Run with `npm run bench` after `npm run build`; FUZZ_RUNS overrides the count.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { compile } from '../dist/index.js';

const runs = Number(process.env.FUZZ_RUNS ?? 100_000);
const dir = join(import.meta.dirname, '..', 'test', 'corpus');
const corpus = readdirSync(dir)
  .filter((f) => f.endsWith('.d'))
  .sort()
  .map((f) => readFileSync(join(dir, f), 'utf8'));

const TOKENS = ['BEGIN', 'END', 'ERROR', 'tick-1s', 'profile-97', '{', '}', '(', ')', '[', ']', '/', ';', ',', '=', '+', '-', '*', '%', '&', '|', '^', '~', '!', '->', '.', '?', ':', '@a', '@', 'self->x', 'this->y', 'x', 'arg0', 'args', 'args[0]', 'regs', 'uregs[R_PC]', 'NULL', 'ENOENT', 'SIGKILL', '1', '0', '-1', '0x10', '0xffffffffffffffff', '18446744073709551616', '1ULL', "'c'", "'ab'", '"s"', '""', '"%d"', '"%*.*d"', '"%@d"', '"%s %k"', 'trace', 'printf', 'printa', 'count()', 'sum', 'min', 'max', 'avg', 'stddev', 'quantize', 'lquantize', 'llquantize', 'clear', 'trunc', 'normalize', 'speculation()', 'speculate', 'commit', 'discard', 'exit', 'stack()', 'ustack', 'alloca', 'copyin', 'bcopy', 'strjoin', 'substr', 'strtok', 'tracemem', 'struct', 'union', 'enum', 'int', 'char', 'short', 'long', 'unsigned', 'signed', 'void', 'string', 'typedef', 'inline', 'translator', 'xlate', 'sizeof', 'stringof', 'offsetof', 'if', 'else', 'self', 'this', 'extern', 'const', ':4', ':0', ':65', '#pragma D option quiet\n', '#pragma D option strsize=', '#pragma D binding "1.0"', '#pragma D depends_on', '$1', '$$1', '$0', '$target', '`x', '`kernel`sym', '\n', ' ', '/*', '*/', '<', '>', '<=', '>=', '==', '!=', '&&', '||', '^^', '++', '--', '+=', '-=', '<<=', '<<', '>>'];

const edit = fc.tuple(fc.nat(), fc.nat(4), fc.constantFrom(...TOKENS, 'a', '0', '"', "'", '\\', '#', '`', '$', '\0', '\u00e9'));
const mutated = fc.tuple(fc.nat(corpus.length - 1), fc.nat(corpus.length - 1), fc.array(edit, { minLength: 1, maxLength: 8 })).map(([i, j, edits]) => {
  let t = corpus[i];
  for (const [pos, kind, tok] of edits) {
    const p = t.length === 0 ? 0 : pos % t.length;
    if (kind === 0) t = t.slice(0, p) + tok + t.slice(p);
    else if (kind === 1) t = t.slice(0, p) + t.slice(p + 1 + (pos % 7));
    else if (kind === 2) t = t.slice(0, p) + tok + t.slice(p + 1);
    else if (kind === 3) t = t.slice(0, p);
    else t = t.slice(0, p) + corpus[j].slice(pos % Math.max(1, corpus[j].length));
  }
  return t;
});
const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 80 }).map((toks) => toks.join(' '));

const stats = { accepted: 0, rejected: 0, tags: new Map() };
function check(text) {
  // Anything thrown here escapes: fast-check reports it with a shrunk input.
  const r = compile(text, { zdefs: true, origin: { kind: 'script', name: 'fuzz.d' } });
  const error = r.diagnostics.find((d) => d.severity === 'error');
  if (error === undefined) {
    if (r.program === undefined) throw new Error('no program and no error');
    stats.accepted++;
  } else {
    if (typeof error.tag !== 'string' || !error.tag.startsWith('D_') || typeof error.message !== 'string') throw new Error(`malformed diagnostic ${JSON.stringify(error)}`);
    if (/Cannot (read|set|convert|access|mix)|Invalid (string|array) length|Maximum call stack|\[object |\bNaN\b|of undefined|undefined to/.test(error.message)) throw new Error(`JavaScript text in a diagnostic: ${error.message}`);
    stats.rejected++;
    stats.tags.set(error.tag, (stats.tags.get(error.tag) ?? 0) + 1);
  }
}

const t0 = performance.now();
let failed = false;
for (const [name, arb] of [['mutated corpus', mutated], ['token soup', soup]]) {
  const result = fc.check(fc.property(arb, check), { numRuns: runs, seed: 20261201 });
  if (result.failed) {
    failed = true;
    console.error(`d-lang fuzz (${name}): ${result.errorInstance?.message ?? result.error}\n  shrunk input: ${JSON.stringify(result.counterexample?.[0])}`);
  }
}
const ms = performance.now() - t0;
const top = [...stats.tags].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([t, n]) => `${t} ${n}`).join(', ');
console.log(`d-lang fuzz: ${stats.accepted + stats.rejected} inputs (${runs.toLocaleString('en-US')} mutated corpus programs + ${runs.toLocaleString('en-US')} token sequences) in ${(ms / 1000).toFixed(1)} s, ${stats.accepted} compiled, ${stats.rejected} diagnosed (top: ${top}), ${failed ? 'JavaScript exceptions escaped' : 'no JavaScript exception escaped'}`);
if (failed) process.exit(1);
