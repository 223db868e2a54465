// The framework's probe filters (dtrace-core filter.ts) on compiled D: a
// probe whose clauses all have pure translated predicates offers a filter
// that answers 0 exactly when every predicate is false, counting their DIF
// instructions as the full path does, and 1 for anything else; a probe with
// any other clause offers none, and a plan change or the end of tracing
// makes an offered filter answer 1.
import { DTraceState, IdleMachine, defaultOptions, setOption, type CompiledProgram } from '@wdtrace/dtrace-core';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';
import { corpusOptions, corpusRegistry } from './corpus-support.js';

function start(text: string, options: Record<string, string> = {}) {
  const program: CompiledProgram = compile(text, corpusOptions('probe-filter', text)).program!;
  expect(program).toBeDefined();
  const reg = corpusRegistry();
  const o = defaultOptions();
  for (const [name, value] of Object.entries(options)) setOption(o, name, value);
  const state = new DTraceState(program, reg, new IdleMachine(2), o);
  const id = (func: string) => reg.lookup('syscall', '', func, 'entry')!.id;
  state.go(0, (cpu) => state.probe(reg.lookup('dtrace', '', '', 'BEGIN')!.id, cpu, []));
  return { state, id };
}

describe('probe filters', () => {
  it('answers 0 only when every predicate is false, and counts the instructions the full path counts', () => {
    const d = 'syscall::read:entry /arg0 == 7/ { @a = count(); } syscall::read:entry /arg1 > 3 && cpu == 1/ { @b = count(); }';
    const { state, id } = start(d);
    const filter = state.probeFilter(id('read'))!;
    expect(filter).toBeDefined();
    const reference = start(d, { backend: 'dif' });
    const cases: [number, bigint, bigint][] = [[0, 1n, 2n], [0, 7n, 0n], [1, 1n, 9n], [0, 1n, 9n], [1, 8n, 3n], [1, 7n, 4n]];
    for (const [cpu, a0, a1] of cases) {
      const before = state.instructions;
      const r = filter(cpu, a0, a1, 0n, 0n);
      const passes = a0 === 7n || (a1 > 3n && cpu === 1);
      expect(r).toBe(passes ? 1 : 0);
      if (r === 1) state.probe(id('read'), cpu, [a0, a1]);
      else expect(state.instructions).toBeGreaterThan(before);
      reference.state.probe(reference.id('read'), cpu, [a0, a1]);
    }
    expect(state.instructions).toBe(reference.state.instructions);
    const counts = (s: DTraceState) => [...s.takeAggregations().values()].map((m) => [...m.values()].map((e) => e.data.join(' ')));
    expect(counts(state)).toEqual(counts(reference.state));
  });

  it('offers none for a clause without a predicate, one that calls out or divides, or the dif backend', () => {
    expect(start('syscall::read:entry { @ = count(); }').state.probeFilter(1)).toBeUndefined();
    for (const d of ['syscall::read:entry /execname == "x"/ {}', 'syscall::read:entry /arg0 / arg1 == 2/ {}', 'syscall::read:entry /arg5 == 1/ {}', 'syscall::read:entry /timestamp == 1/ {}', 'self int x; syscall::read:entry /self->x == 0/ {}', 'int g; syscall::read:entry /g == 0/ {}']) {
      const { state, id } = start(d);
      expect(state.probeFilter(id('read'))).toBeUndefined();
    }
    const { state, id } = start('syscall::read:entry /arg0 == 1/ {}', { backend: 'dif' });
    expect(state.probeFilter(id('read'))).toBeUndefined();
    expect(start('syscall::read:entry /arg0 == 1/ {}', { bufpolicy: 'fill' }).state.probeFilter(id('read'))).toBeUndefined();
  });

  it('answers 1 once tracing stops or exit() ran, and is made anew after a plan change', () => {
    const { state, id } = start('syscall::read:entry /arg0 == 7/ { exit(0); }');
    const filter = state.probeFilter(id('read'))!;
    expect(filter(0, 1n, 0n, 0n, 0n)).toBe(0);
    state.probe(id('read'), 0, [7n]);
    expect(state.activity).toBe('draining');
    expect(filter(0, 1n, 0n, 0n, 0n)).toBe(1);
    expect(state.probeFilter(id('read'))).toBeUndefined();
    const other = start('syscall::read:entry /arg0 == 7/ {}');
    const f = other.state.probeFilter(other.id('read'))!;
    other.state.stop(0);
    expect(f(0, 1n, 0n, 0n, 0n)).toBe(1);
  });
});
