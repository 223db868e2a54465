// Dump everything the compiler produces for every corpus program — the
// compiled program, the -S listing, the -d text and the diagnostics — to
// one file, so that two builds can be compared byte for byte:
//   node scripts/dump-corpus.mjs before.txt   (then change, rebuild)
//   node scripts/dump-corpus.mjs after.txt && cmp before.txt after.txt
// Run after `npm run build`. The options mirror test/corpus-support.ts.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryTypeDictionary, createCTypeDictionary } from '@wdtrace/dtrace-core/types';
import { compile, dumpSugared, formatDiagnostics, listDif } from '../dist/index.js';
import { generate } from './bench-source.mjs';

const PROBES = [
  { id: 1, provider: 'dtrace', module: '', function: '', name: 'BEGIN' },
  { id: 2, provider: 'dtrace', module: '', function: '', name: 'END' },
  { id: 3, provider: 'dtrace', module: '', function: '', name: 'ERROR' },
  { id: 10, provider: 'syscall', module: '', function: 'read', name: 'entry', argTypes: ['int', 'void *', 'size_t'] },
  { id: 11, provider: 'syscall', module: '', function: 'read', name: 'return', argTypes: ['ssize_t'] },
  { id: 12, provider: 'syscall', module: '', function: 'open', name: 'entry', argTypes: ['char *', 'int'] },
  { id: 13, provider: 'syscall', module: '', function: 'open', name: 'return', argTypes: ['int'] },
  { id: 20, provider: 'sdt', module: 'kernel', function: 'f', name: 'weird', argTypes: ['struct nosuch *'] },
];
const glob = (p) => new RegExp(`^${[...p].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c === '[' || c === ']' ? c : c.replace(/[.+^${}()|\\]/g, '\\$&'))).join('')}$`);
const catalogue = {
  match(d) {
    const f = (pat, v) => pat === '' || glob(pat).test(v);
    return PROBES.filter((p) => f(d.provider, p.provider) && f(d.module, p.module) && f(d.function, p.function) && f(d.name, p.name));
  },
};
function kernelTypes() {
  const c = createCTypeDictionary('LP64');
  const k = new InMemoryTypeDictionary('kernel', 'LP64');
  k.defineSymbol({ name: 'x', module: 'kernel', address: 0xffffffff80001000n, size: 4, type: c.lookupType('int') });
  k.defineSymbol({ name: 'max_ncpus', module: 'kernel', address: 0xffffffff80001008n, size: 4, type: c.lookupType('int') });
  return k;
}
function options(name, text) {
  const args = /\/\* @args ([^*]*)\*\//.exec(text);
  return {
    origin: { kind: 'script', name },
    macroArgs: args !== null ? args[1].trim().split(/\s+/) : ['1', 'read'],
    macroVariables: { pid: 100, ppid: 1, uid: 0, gid: 0, target: 200 },
    types: [kernelTypes()],
    ...(text.includes('/* @probes */') ? { probes: catalogue } : {}),
    ...(text.includes('/* @cpp */') ? { cpp: true } : {}),
  };
}
const json = (v) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array || ArrayBuffer.isView(x) ? Array.from(x) : x), 1);

const dir = join(import.meta.dirname, '..', 'test', 'corpus');
const out = [];
for (const f of readdirSync(dir).filter((n) => n.endsWith('.d')).sort()) {
  const text = readFileSync(join(dir, f), 'utf8');
  const o = options(f, text);
  const r = compile(text, o);
  out.push(`=== ${f}`, formatDiagnostics(r, { ...o, errtags: true }));
  if (r.program !== undefined) out.push(json(r.program), listDif(r));
  const d = dumpSugared(text, o);
  out.push(d.text ?? '(no -d output)');
}
{
  const text = generate(60);
  const r = compile(text, { zdefs: true });
  out.push('=== bench', formatDiagnostics(r, { errtags: true }));
  if (r.program !== undefined) out.push(json(r.program), listDif(r));
  out.push(dumpSugared(text, { zdefs: true }).text ?? '(no -d output)');
}
const target = process.argv[2];
if (target === undefined) process.stdout.write(out.join('\n'));
else writeFileSync(target, out.join('\n'));
