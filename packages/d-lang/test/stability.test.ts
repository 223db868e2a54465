// The attributes of what a clause names that its DIF does not show, which
// the compiler records per ECB (referenceAttributes) and dtrace -v's
// statement attributes are lowered to: a kernel symbol (_dtrace_symattr)
// and a type named that is not a C or D definition (dt_node_type's
// _dtrace_typattr), both Private/Private/Unknown.
import { describe, expect, it } from 'vitest';
import { ProbeRegistry, formatStabilityReport, programAttributes } from '@wdtrace/dtrace-core';
import { InMemoryTypeDictionary, createCTypeDictionary, layoutStruct } from '@wdtrace/dtrace-core/types';
import { compile, formatDiagnostics, type CompileOptions } from '../src/index.js';

/** A kernel's dictionary as DWARF gives one: a struct, a typedef of it, a symbol. */
function kernel(): InMemoryTypeDictionary {
  const c = createCTypeDictionary('LP64');
  const k = new InMemoryTypeDictionary('kernel', 'LP64');
  const task = k.defineStruct(layoutStruct('struct', 'task_struct', [
    { name: 'pid', type: c.lookupType('int')! },
    { name: 'flags', type: c.lookupType('unsigned int')! },
  ]));
  k.defineTypedef('task_t', task);
  k.defineSymbol({ name: 'nr_cpus_online', module: 'kernel', address: 0xffffffff81000000n, size: 4, type: c.lookupType('unsigned int')! });
  return k;
}

const options = (extra: Partial<CompileOptions> = {}): CompileOptions => ({ origin: { kind: 'probe', text: 'x' }, dataModel: 'LP64', types: [kernel()], ...extra });

/** referenceAttributes of each ECB of `source`. */
function refs(source: string, extra: Partial<CompileOptions> = {}): (string | undefined)[] {
  const r = compile(source, options(extra));
  if (r.program === undefined) throw new Error(formatDiagnostics(r));
  return r.program.ecbs.map((e) => e.referenceAttributes);
}

const PRIVATE = 'Private/Private/Unknown';

describe('attributes of the kernel symbols and types a clause names', () => {
  it('notes a backquote symbol, a module-scoped one and an extern', () => {
    expect(refs('BEGIN { trace(`nr_cpus_online); }')).toEqual([PRIVATE]);
    expect(refs('BEGIN { trace(kernel`nr_cpus_online); }')).toEqual([PRIVATE]);
    expect(refs('BEGIN { trace((long)&`nr_cpus_online); }')).toEqual([PRIVATE]);
    expect(refs('extern unsigned int nr_cpus_online;\nBEGIN { trace(nr_cpus_online); }')).toEqual([PRIVATE]);
  });

  it('notes a kernel type named in a cast, sizeof, offsetof and xlate', () => {
    expect(refs('BEGIN { trace(((struct task_struct *)arg0)->pid); }')).toEqual([PRIVATE]);
    expect(refs('BEGIN { trace((task_t *)arg0); }')).toEqual([PRIVATE]);
    expect(refs('BEGIN { trace(sizeof (struct task_struct)); }')).toEqual([PRIVATE]);
    expect(refs('BEGIN { trace(offsetof(task_t, flags)); }')).toEqual([PRIVATE]);
    expect(refs('typedef struct view { int v_pid; } view_t;\ntranslator view_t < struct task_struct *t > { v_pid = t->pid; };\nBEGIN { trace(xlate <view_t *> ((struct task_struct *)arg0)->v_pid); }')).toEqual([PRIVATE]);
  });

  it('notes the references of an inline where it is used', () => {
    expect(refs('inline unsigned int ncpus = `nr_cpus_online;\nBEGIN { trace(1); }\nBEGIN { trace(ncpus); }')).toEqual([undefined, PRIVATE]);
  });

  it('keeps each clause to its own references, in the predicate or the actions', () => {
    expect(refs('BEGIN /`nr_cpus_online > 1/ { trace(1); }\nBEGIN { trace(2); }\nEND { trace((task_t *)arg0); }')).toEqual([PRIVATE, undefined, PRIVATE]);
  });

  it('notes nothing for C and D types, types the program declares, or a translator\'s own kernel references', () => {
    expect(refs('BEGIN { trace((char)300); trace((uint64_t)arg0); trace((string)"x"); trace(sizeof (int)); trace((void *)arg0); trace(curthread); }')).toEqual([undefined]);
    expect(refs('struct mine { int a; long b; };\nBEGIN { trace(offsetof(struct mine, b)); trace(((struct mine *)arg0)->a); }')).toEqual([undefined]);
    // The translator names struct task_struct and a kernel symbol; the clause names neither.
    expect(refs('typedef struct view { int v_pid; int v_n; } view_t;\ntranslator view_t < uintptr_t p > { v_pid = ((struct task_struct *)p)->pid; v_n = `nr_cpus_online; };\nBEGIN { trace(xlate <view_t *> (arg0)->v_pid); trace(xlate <view_t> (arg0).v_n); }')).toEqual([undefined]);
  });

  it('lowers the statement attributes of dtrace -v\'s report', () => {
    const report = (source: string): string => {
      const r = compile(source, options());
      if (r.program === undefined) throw new Error(formatDiagnostics(r));
      return formatStabilityReport('description', source, programAttributes(r.program, new ProbeRegistry()));
    };
    const statement = (n: string, d: string, c: string): string => `\tMinimum Statement Attributes\n\t\tIdentifier Names: ${n}\n\t\tData Semantics:   ${d}\n\t\tDependency Class: ${c}\n`;
    expect(report('BEGIN { trace(`nr_cpus_online); }')).toContain(statement('Private', 'Private', 'Unknown'));
    expect(report('BEGIN { trace(((struct task_struct *)arg0)->pid); }')).toContain(statement('Private', 'Private', 'Unknown'));
    expect(report('BEGIN { trace((unsigned long)arg0 + sizeof (uint64_t)); }')).toContain(statement('Stable', 'Stable', 'Common'));
  });
});
