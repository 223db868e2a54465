// Runs a compiled program in dtrace-core's framework (DTraceState, the real
// DIF VM): test:kernel:f:fire is fired once with the given arguments and the
// consumer's output is returned.
import { Consumer, DTraceState, IdleMachine, ProbeRegistry, defaultOptions, setOption } from '@wdtrace/dtrace-core';
import { expect } from 'vitest';
import { compile, formatDiagnostics, type CompileOptions } from '../src/index.js';

export function fireOnce(source: string, args: bigint[], compileOptions: CompileOptions = {}): string {
  const r = compile(source, compileOptions);
  if (r.program === undefined) throw new Error(formatDiagnostics(r));
  const registry = new ProbeRegistry();
  registry.registerProvider({
    name: 'test',
    attributes: { provider: '', module: '', function: '', name: '', args: '' },
    ops: { provide: (rg) => void rg.createProbe('test', 'kernel', 'f', 'fire'), enable() {}, disable() {} },
  });
  const options = defaultOptions();
  setOption(options, 'quiet', null);
  const state = new DTraceState(r.program, registry, new IdleMachine(1), options);
  let out = '';
  let err = '';
  const consumer = new Consumer(state, { out: (s) => (out += s), err: (s) => (err += s) });
  state.go(0);
  state.probe(registry.lookup('test', 'kernel', 'f', 'fire')!.id, 0, args);
  consumer.consume(true);
  expect(err).toBe('');
  return out;
}
