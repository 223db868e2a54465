// Typed arguments of sdt, proc, sched and io probes on both committed kernels
// and the hello module: getArgDesc gives the C types written at the site
// (from krtld's argument-type records), one per argument and nothing past
// the last, so listings show them and D's args[N] is typed; the proc, sched
// and io probes' arguments are translated as illumos's sdt_args describes
// them (translated type, and the native argument it maps from).
import { ProbeRegistry, type Probe } from '@wdtrace/dtrace-core';
import { defaultImages, type Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { KernelCalls } from './kernel-calls.js';
import { SdtProvider, sdtArgTypes, type SdtProbe } from '../src/sdt/provider.js';


async function setUp(isa: Isa) {
  const target = await KernelCalls.create(isa);
  const sdt = await SdtProvider.create(target.machine, { probe: () => undefined });
  const registry = new ProbeRegistry();
  for (const d of sdt.definitions) registry.registerProvider(d);
  /** Every description getArgDesc gives for the probe, asking until it says no more. */
  const argDescs = (p: Probe): { native: string; translated?: string; mapping?: number }[] => {
    const ops = registry.provider(p.provider)!.ops;
    const out: { native: string; translated?: string; mapping?: number }[] = [];
    for (let n = 0; n < 12; n++) {
      const d = ops.getArgDesc!(p.id, p.providerArg, n);
      if (!d) {
        // Nothing after the first argument without a type.
        for (let m = n + 1; m < 12; m++) expect(ops.getArgDesc!(p.id, p.providerArg, m)).toBeUndefined();
        break;
      }
      out.push(d);
    }
    return out;
  };
  /** The native types of an untranslated probe's arguments. */
  const argTypes = (p: Probe): string[] =>
    argDescs(p).map((d) => {
      expect(d.translated).toBeUndefined();
      return d.native;
    });
  const probe = (provider: string, module: string, fn: string, name: string): Probe => {
    const found = registry.match({ provider, module, function: fn, name });
    expect(found, `${provider}:${module}:${fn}:${name}`).toHaveLength(1);
    return found[0]!;
  };
  return { target, registry, argTypes, argDescs, probe };
}

describe.each(['x86_64', 'arm'] as const)('sdt argument types on the %s kernel', (isa) => {
  it('describes the core kernel probes with the types written at their sites', async () => {
    const t = await setUp(isa);
    expect(t.argTypes(t.probe('proc', 'kernel', 'do_execve_common', 'exec'))).toEqual(['const char *']);
    expect(t.argTypes(t.probe('proc', 'kernel', 'do_execve_common', 'exec-success'))).toEqual([]);
    expect(t.argTypes(t.probe('proc', 'kernel', 'do_exit', 'exit'))).toEqual(['int']);
    expect(t.argTypes(t.probe('sched', 'kernel', 'schedule', 'on-cpu'))).toEqual([]);
    expect(t.argTypes(t.probe('sdt', 'kernel', 'do_syscall', 'syscall-entry'))).toEqual(['unsigned long', 'const char *']);
    // Every probe with a record is typed: only the argument-less ones have no types.
    const all = ['sdt', 'proc', 'sched', 'io'].flatMap((provider) => t.registry.match({ provider, module: '', function: '', name: '' }));
    expect(all.length).toBeGreaterThanOrEqual(30);
    const untyped = new Set(all.filter((p) => t.argDescs(p).length === 0).map((p) => `${p.provider}:::${p.name}`));
    expect([...untyped].sort()).toEqual(['proc:::exec-success', 'sched:::on-cpu']);
  });

  it('translates the proc, sched and io probes\' arguments as illumos sdt_args does', async () => {
    const t = await setUp(isa);
    const task = 'struct task_struct *';
    const lwp = { native: task, translated: 'lwpsinfo_t *', mapping: 0 };
    const ps = { native: task, translated: 'psinfo_t *', mapping: 0 };
    expect(t.argDescs(t.probe('proc', 'kernel', 'do_fork', 'create'))).toEqual([ps]);
    expect(t.argDescs(t.probe('proc', 'kernel', 'send_signal', 'signal-send'))).toEqual([lwp, ps, { native: 'int', mapping: 1 }]);
    expect(t.argDescs(t.probe('sched', 'kernel', 'schedule', 'off-cpu'))).toEqual([lwp, ps]);
    expect(t.argDescs(t.probe('sched', 'kernel', 'wake_up_process', 'wakeup'))).toEqual([lwp, ps]);
    const rq = { native: 'struct run_queue *', translated: 'cpuinfo_t *', mapping: 1 };
    expect(t.argDescs(t.probe('sched', 'kernel', 'schedule', 'enqueue'))).toEqual([lwp, ps, rq, { native: 'int', mapping: 2 }]);
    expect(t.argDescs(t.probe('sched', 'kernel', 'dequeue_task', 'dequeue'))).toEqual([lwp, ps, rq]);
    // bufinfo_t, devinfo_t and fileinfo_t, all from the one struct io_buf.
    for (const name of ['start', 'done']) {
      expect(t.argDescs(t.probe('io', 'kernel', 'vfs_read', name))).toEqual(
        ['bufinfo_t *', 'devinfo_t *', 'fileinfo_t *'].map((translated) => ({ native: 'struct io_buf *', translated, mapping: 0 })),
      );
    }
    // The untranslated ones of those providers keep the types of their sites.
    expect(t.argTypes(t.probe('proc', 'kernel', 'do_exit', 'exit'))).toEqual(['int']);
  });

  it('describes a loaded module\'s probes', async () => {
    const t = await setUp(isa);
    t.target.loadModule('hello', defaultImages(isa).modules['hello']!);
    expect(t.argTypes(t.probe('sdt', 'hello', 'hello_read', 'hello-read-start'))).toEqual(['struct file *', 'size_t', 'off_t']);
    expect(t.argTypes(t.probe('sdt', 'hello', 'hello_open', 'hello-open'))).toEqual(['struct file *', 'unsigned long']);
    expect(t.argTypes(t.probe('sdt', 'hello', 'hello_write', 'hello-write'))).toEqual(['const char *', 'size_t']);
  });

  it('takes the first site\'s types when the sites of a probe disagree', async () => {
    const t = await setUp(isa);
    const exec = t.probe('proc', 'kernel', 'do_execve_common', 'exec').providerArg as SdtProbe;
    const start = t.probe('io', 'kernel', 'vfs_read', 'start').providerArg as SdtProbe;
    expect(sdtArgTypes({ ...exec, sites: [...exec.sites, ...start.sites] })).toEqual(['const char *']);
    expect(sdtArgTypes({ ...exec, sites: [...start.sites, ...exec.sites] })).toEqual(['struct io_buf *']);
    expect(sdtArgTypes({ ...exec, sites: [] })).toEqual([]);
  });
});
