// Shared by the corpus and fuzz tests: a small probe catalogue and kernel
// type dictionary, standing in for the framework's real ones.
import { ProbeRegistry } from '@wdtrace/dtrace-core';
import { InMemoryTypeDictionary, createCTypeDictionary } from '@wdtrace/dtrace-core/types';
import type { CompileOptions, ProbeCatalogue, ProbeInfo } from '../src/index.js';

const PROBES: ProbeInfo[] = [
  { id: 1, provider: 'dtrace', module: '', function: '', name: 'BEGIN' },
  { id: 2, provider: 'dtrace', module: '', function: '', name: 'END' },
  { id: 3, provider: 'dtrace', module: '', function: '', name: 'ERROR' },
  { id: 10, provider: 'syscall', module: '', function: 'read', name: 'entry', argTypes: ['int', 'void *', 'size_t'] },
  { id: 11, provider: 'syscall', module: '', function: 'read', name: 'return', argTypes: ['ssize_t'] },
  { id: 12, provider: 'syscall', module: '', function: 'open', name: 'entry', argTypes: ['char *', 'int'] },
  { id: 13, provider: 'syscall', module: '', function: 'open', name: 'return', argTypes: ['int'] },
  { id: 20, provider: 'sdt', module: 'kernel', function: 'f', name: 'weird', argTypes: ['struct nosuch *'] },
];

function glob(pattern: string): RegExp {
  let re = '';
  for (const ch of pattern) {
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[' || ch === ']') re += ch;
    else re += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export const testCatalogue: ProbeCatalogue = {
  match(d) {
    const f = (pat: string, v: string): boolean => pat === '' || glob(pat).test(v);
    return PROBES.filter((p) => f(d.provider, p.provider) && f(d.module, p.module) && f(d.function, p.function) && f(d.name, p.name));
  },
};

export function kernelTypes(): InMemoryTypeDictionary {
  const c = createCTypeDictionary('LP64');
  const k = new InMemoryTypeDictionary('kernel', 'LP64');
  k.defineSymbol({ name: 'x', module: 'kernel', address: 0xffffffff80001000n, size: 4, type: c.lookupType('int')! });
  k.defineSymbol({ name: 'max_ncpus', module: 'kernel', address: 0xffffffff80001008n, size: 4, type: c.lookupType('int')! });
  return k;
}

/** Compile options for a corpus file, from its markers. */
export function corpusOptions(name: string, text: string): CompileOptions {
  const args = /\/\* @args ([^*]*)\*\//.exec(text);
  return {
    origin: { kind: 'script', name },
    // Arguments only for programs that reference them: an unreferenced last one is D_MACRO_UNUSED.
    macroArgs: args !== null ? args[1]!.trim().split(/\s+/) : /\$\$?\d/.test(text) ? ['1', 'read'] : [],
    macroVariables: { pid: 100, ppid: 1, uid: 0, gid: 0, target: 200 },
    types: [kernelTypes()],
    ...(text.includes('/* @probes */') ? { probes: testCatalogue } : {}),
    ...(text.includes('/* @cpp */') ? { cpp: true } : {}),
  };
}

/** A framework registry holding the catalogue's probes, one provider per provider name, for running compiled programs. */
export function corpusRegistry(): ProbeRegistry {
  const r = new ProbeRegistry();
  for (const name of new Set(PROBES.map((p) => p.provider))) {
    const probes = PROBES.filter((p) => p.provider === name);
    r.registerProvider({
      name,
      attributes: { provider: '', module: '', function: '', name: '', args: '' },
      ops: { provide: (rg) => probes.forEach((p) => void rg.createProbe(name, p.module, p.function, p.name)), enable() {}, disable() {} },
    });
  }
  return r;
}
