// Type names scoped with the backquote operator (the guide's "Type
// Namespaces"): module`type and struct module`tag wherever a type name may
// stand — casts, sizeof, offsetof, declarations — with C and D naming the
// built-in namespaces and a kernel dictionary its own; the same module`name
// that is not a type stays a symbol reference.
import { describe, expect, it } from 'vitest';
import { InMemoryTypeDictionary, createCTypeDictionary, layoutStruct } from '@wdtrace/dtrace-core/types';
import { compile, formatDiagnostics, type CompileOptions } from '../src/index.js';
import { fireOnce } from './fire.js';

function kernel(): InMemoryTypeDictionary {
  const c = createCTypeDictionary('LP64');
  const k = new InMemoryTypeDictionary('kernel', 'LP64');
  const task = k.defineStruct(layoutStruct('struct', 'task_struct', [
    { name: 'pid', type: c.lookupType('int')! },
    { name: 'flags', type: c.lookupType('unsigned long')! },
  ]));
  k.defineTypedef('task_t', task);
  k.defineSymbol({ name: 'nr_cpus_online', module: 'kernel', address: 0x1000n, size: 4, type: c.lookupType('unsigned int')! });
  return k;
}

const FIRE = { id: 1, provider: 'test', module: 'kernel', function: 'f', name: 'fire' };
const options: CompileOptions = { types: [kernel()], probes: { match: () => [FIRE] } };

describe('scoped type names', () => {
  it('resolve in casts, sizeof and offsetof, for C, D and a kernel module', () => {
    const out = fireOnce(
      'struct foo { int x; long y; }; test:::fire { printf("%d %d %d %d %s %d %d %d\\n", sizeof (struct D`foo), offsetof (struct D`foo, y), ' +
        'sizeof (D`uint32_t), (C`char)arg0, (D`string)"s", sizeof (kernel`task_t), offsetof (struct kernel`task_struct, flags), sizeof (kernel`struct task_struct)); }',
      [0x141n],
      options,
    );
    expect(out).toBe('16 8 4 65 s 16 8 16\n');
  });

  it('declare variables with a scoped type', () => {
    expect(fireOnce('D`uint32_t x; test:::fire { x = arg0; printf("%d %d\\n", sizeof (x), x); }', [0x100000005n], options)).toBe('4 5\n');
  });

  it('leave module`name a symbol reference when the module has no such type', () => {
    const r = compile('BEGIN { trace((kernel`nr_cpus_online)); }', options);
    expect(formatDiagnostics(r)).toBe('');
  });

  it('report a scoped type the module does not have', () => {
    const r = compile('BEGIN { trace(sizeof (struct kernel`nosuch)); }', options);
    expect(r.diagnostics[0]?.tag).toBe('D_TYPE_ERR');
  });
});
