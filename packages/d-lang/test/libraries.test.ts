// D libraries compiled ahead of the program (libdtrace's dt_load_libs) and
// probe arguments the provider translates (sdt_argdesc: native type,
// translated type, mapping). Programs run on dtrace-core's framework (the
// real DIF VM); a probe is fired with native arguments.
import { describe, expect, it } from 'vitest';
import { InMemoryTypeDictionary, integerType, layoutStruct, type StructType } from '@wdtrace/dtrace-core/types';
import { compile, formatDiagnostics, type CompileOptions, type ProbeInfo } from '../src/index.js';
import { fireOnce } from './fire.js';

/** A library in the manner of io.d: an output type, an inline and a translator from a native integer. */
const LIB = {
  name: 'test.d',
  text: `
typedef struct thing { int t_id; long t_twice; string t_size; } thing_t;
typedef struct other { int o_half; } other_t;
inline int THING_LIMIT = 5;
translator thing_t < uint64_t x > { t_id = x; t_twice = x * 2; t_size = x > THING_LIMIT ? "big" : "small"; };
translator other_t < uint64_t x > { o_half = x / 2; };
`,
};

/** test:kernel:f:fire as sdt's table would describe it: args[0] thing_t * and args[1] other_t * both from native arg 0, args[2] the native arg 1. */
const FIRE: ProbeInfo = {
  id: 1,
  provider: 'test',
  module: 'kernel',
  function: 'f',
  name: 'fire',
  args: [
    { native: 'uint64_t', translated: 'thing_t *', mapping: 0 },
    { native: 'uint64_t', translated: 'other_t *', mapping: 0 },
    { native: 'int', mapping: 1 },
  ],
};

const options = (probes: ProbeInfo[] = [FIRE]): CompileOptions => ({
  libraries: [LIB],
  probes: { match: (d) => probes.filter((p) => (d.provider === '' || d.provider === p.provider) && (d.name === '' || d.name === p.name)) },
});

const run = (source: string, args: bigint[]): string => fireOnce(source, args, options());

describe('D libraries', () => {
  it("makes a library's typedefs, inlines and translators visible to the program", () => {
    expect(run('test:::fire { printf("%d %s %d\\n", xlate <thing_t> (arg0).t_twice, xlate <thing_t *> (arg0)->t_size, THING_LIMIT); }', [7n, 0n])).toBe('14 big 5\n');
  });

  it('names the library file in its errors', () => {
    const r = compile('BEGIN {}', { libraries: [LIB, { name: 'broken.d', text: 'inline int a = 1;\ninline int a = 2;\n' }] });
    expect(r.program).toBeUndefined();
    expect(formatDiagnostics(r)).toBe('dtrace: failed to compile script: broken.d, line 2: identifier redeclared: a');
  });

  it('keeps program locations unchanged after a library', () => {
    const r = compile('BEGIN {}\nBEGIN { x = nosuch; }', { libraries: [LIB] });
    expect(formatDiagnostics(r)).toBe('dtrace: failed to compile script: line 2: failed to resolve nosuch: Unknown variable name');
  });
});

describe('translated probe arguments', () => {
  it('types args[N] as the translated type and reads it through the translator of the mapped native argument', () => {
    expect(run('test:::fire { printf("%d %d %s %d %d\\n", args[0]->t_id, args[0]->t_twice, args[0]->t_size, args[1]->o_half, args[2]); }', [9n, 42n])).toBe(
      '9 18 big 4 42\n',
    );
  });

  it('gives the translated struct whole with * and keeps it in a variable', () => {
    expect(run('test:::fire { this->t = *args[0]; self->p = args[1]->o_half; printf("%d %s %d\\n", this->t.t_twice, this->t.t_size, self->p); }', [3n, 0n])).toBe(
      '6 small 1\n',
    );
  });

  it('reports the translated type in type errors', () => {
    const r = compile('test:::fire { x = args[0]->nosuch; }', options());
    expect(formatDiagnostics(r)).toContain('nosuch is not a member of thing_t');
  });

  it('refuses probes that translate one argument differently', () => {
    const other: ProbeInfo = { ...FIRE, id: 2, name: 'other', args: [{ native: 'uint64_t', translated: 'other_t *', mapping: 0 }] };
    const r = compile('test:::fire, test:::other { trace(args[0]->o_half); }', options([FIRE, other]));
    expect(r.diagnostics.map((d) => d.tag)).toEqual(['D_ARGS_MULTI']);
  });
});

describe('kernel types', () => {
  it('reads members through a forward declaration by the definition of the same name (as merged CTF has it)', () => {
    // A compilation unit that saw only `struct inner;` gives outer.p a pointer to an incomplete struct.
    const d = new InMemoryTypeDictionary('kernel', 'LP64');
    d.defineStruct(layoutStruct('struct', 'inner', [{ name: 'v', type: integerType('int', 4, true) }]));
    const forward: StructType = { kind: 'struct', name: 'inner', members: [], size: 0, align: 1, complete: false };
    d.defineStruct(layoutStruct('struct', 'outer', [{ name: 'p', type: { kind: 'pointer', target: forward, size: 8 } }]));
    const ok = compile('BEGIN { this->o = (struct outer *)arg0; trace(this->o->p->v); }', { types: [d] });
    expect(formatDiagnostics(ok)).toBe('');
    const none = compile('struct lone; BEGIN { trace(((struct lone *)arg0)->v); }', { types: [d] });
    expect(none.diagnostics.map((x) => x.tag)).toEqual(['D_OP_INCOMPLETE']);
  });
});
