// The corpus: tst.*.d must compile; err.D_<TAG>.*.d must fail with that tag.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTICS, compile, formatDiagnostics } from '../src/index.js';
import { corpusOptions } from './corpus-support.js';
import { checkProgram } from './dif-check.js';

const dir = join(import.meta.dirname, 'corpus');
const files = readdirSync(dir).filter((f) => f.endsWith('.d')).sort();

/** Tags libdtrace raises outside the compiler proper (process control, DOF linking, attribute minimums...). */
const NOT_FROM_THE_COMPILER: Record<string, string> = {
  D_UNKNOWN: 'internal errors only',
  D_ASRELO: 'DOF relocations are resolved by the framework when it loads the program',
  D_CG_DYN: 'libdtrace raises it for dynamic translator results; translated members are always typed here',
  D_ATTR_MIN: 'stability attribute minimums (-x amin) are checked when the framework enables probes',
  D_ID_OFLOW: 'the identifier space (65280 ids per scope) is not reachable in tests of reasonable size',
  D_SYM_BADREF: 'kernel symbols come typed from the dictionary; non-data symbols are not offered',
  D_SYM_NOTYPES: 'kernel symbols come typed from the dictionary',
  D_SYM_MODEL: 'one data model per machine',
  D_VAR_UNSUP: 'every built-in variable is supported',
  D_QUANT_PROTO: "quantize()'s argument count is checked against its prototype, as for every function (D_PROTO_LEN)",
  D_ARGS_XLATOR: 'provider argument translators are applied by the framework',
  D_IDENT_AMBIG: 'raised by libdtrace for variables shadowing enumerators across modules',
  D_DECL_PARMCLASS: 'storage classes are rejected by the parser before parameter checks',
  D_DECL_SCOPE: 'scoped names in declarators are a syntax error here',
  D_DECL_DYNOBJ: 'string members are allowed (D strings have a fixed size)',
  D_DECL_PROTO_FORM: 'prototypes are only checked for provider definitions',
  D_OP_IDENT: 'no D operator takes a bare identifier here',
  D_OP_ACT: 'actions are rejected as D_CG_EXPR before operators see them',
  D_PRINTA_AGGKEY: 'printa with several aggregations: key checks are done by the consumer',
  D_PRINTA_AGGPROTO: 'printa with several aggregations: key checks are done by the consumer',
  D_PROV_INCOMPAT: 'USDT providers are linked by the framework',
  D_PROV_PRXLATOR: 'USDT argument translators are linked by the framework',
  D_PROC_OFF: 'pid provider probe creation happens in the framework',
  D_PROC_ALIGN: 'pid provider probe creation happens in the framework',
  D_PROC_NAME: 'pid provider probe creation happens in the framework',
  D_PROC_GRAB: 'process control happens in the framework',
  D_PROC_DYN: 'process control happens in the framework',
  D_PROC_LIB: 'pid provider probe creation happens in the framework',
  D_PROC_FUNC: 'pid provider probe creation happens in the framework',
  D_PROC_CREATEFAIL: 'pid provider probe creation happens in the framework',
  D_PROC_NODEV: 'pid provider probe creation happens in the framework',
  D_PROC_BADPID: 'pid provider probe creation happens in the framework',
  D_PROC_BADPROV: 'pid provider probe creation happens in the framework',
  D_PROC_USDT: 'USDT probe creation happens in the framework',
};

describe('corpus', () => {
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    if (f.startsWith('tst.')) {
      it(`${f} compiles`, () => {
        const r = compile(text, corpusOptions(f, text));
        const errors = r.diagnostics.filter((d) => d.severity === 'error');
        expect(formatDiagnostics({ diagnostics: errors }, { origin: { kind: 'script', name: f } })).toBe('');
        expect(r.program).toBeDefined();
        expect(checkProgram(r.program!)).toEqual([]);
      });
    } else {
      const tag = f.split('.')[1]!;
      it(`${f} fails with ${tag}`, () => {
        const r = compile(text, corpusOptions(f, text));
        const e = r.diagnostics.find((d) => d.severity === 'error');
        expect(e, 'expected a compile error').toBeDefined();
        expect(`${e!.tag}: ${e!.message}`).toMatch(new RegExp(`^${tag}: `));
        expect(e!.location?.line ?? 1).toBeGreaterThan(0);
      });
    }
  }

  it('covers every diagnostic tag the compiler can raise', () => {
    const covered = new Set(files.filter((f) => f.startsWith('err.')).map((f) => f.split('.')[1]!));
    const missing = Object.keys(DIAGNOSTICS).filter((t) => !covered.has(t) && !(t in NOT_FROM_THE_COMPILER));
    expect(missing).toEqual([]);
  });
});
