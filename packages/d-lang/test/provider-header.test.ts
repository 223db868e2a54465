// Provider definitions as the compiler records them (for -h and -G), and the
// header dtrace -h writes from them: names with '-' for '__', native and
// translated argument types, macros and declarations in declaration order.
import { describe, expect, it } from 'vitest';
import { typeName } from '@wdtrace/dtrace-core/types';
import { compile, isEnabledFunctionSymbol, probeFunctionSymbol, programHeader } from '../src/index.js';

const SOURCE = `struct in { int a; };
struct out { int b; };
translator struct out < struct in *p > { b = p->a; };
provider my__app {
	probe go__on(char *, int);
	probe done(struct in *) : (struct out *);
};
`;

describe('provider definitions', () => {
  it('are recorded with native and translated types', () => {
    const r = compile(SOURCE, { zdefs: true });
    expect(r.diagnostics).toEqual([]);
    const defs = r.context.providers.map((p) => ({
      name: p.name,
      probes: p.probes.map((q) => ({ name: q.name, native: q.native.map((t) => typeName(t)), translated: q.translated?.map((t) => typeName(t)) })),
    }));
    expect(defs).toEqual([
      {
        name: 'my__app',
        probes: [
          { name: 'go-on', native: ['char *', 'int'], translated: undefined },
          { name: 'done', native: ['struct in *'], translated: ['struct out *'] },
        ],
      },
    ]);
  });

  it('name their probe functions as dtrace -h declares them', () => {
    expect(probeFunctionSymbol('my-app', 'go-on')).toBe('__dtrace_my__app___go__on');
    expect(isEnabledFunctionSymbol('app', 'done')).toBe('__dtraceenabled_app___done');
  });

  it('make the header: macros, then declarations, then the empty macros', () => {
    const r = compile(SOURCE, { zdefs: true });
    const h = programHeader(r.context.providers, 'dir/my-probes.h');
    expect(h).toContain('#ifndef\t_MY_PROBES_H\n');
    const macro = h.indexOf('#define\tMY__APP_GO_ON(arg0, arg1) \\\n\t__dtrace_my__app___go__on(arg0, arg1)\n');
    const decl = h.indexOf('extern void __dtrace_my__app___done(struct in *);\n');
    const empty = h.indexOf('#define\tMY__APP_DONE(arg0)\n#define\tMY__APP_DONE_ENABLED() (0)\n');
    expect(macro).toBeGreaterThan(0);
    expect(decl).toBeGreaterThan(macro);
    expect(empty).toBeGreaterThan(decl);
  });
});
