// The framework's probe filters (dtrace-core filter.ts) on compiled D: a
// probe whose clauses all have pure translated predicates, or aggregate
// whole in the trampoline's cells and keyed tables with pure keys and
// values, offers a filter that answers 0 exactly when it finished the
// firing (every predicate false, or each passing clause's aggregation
// updated in place), counting the DIF instructions the full path counts,
// and 1 before doing anything otherwise; a probe with any other clause
// offers none, and a plan change or the end of tracing makes an offered
// filter answer 1.
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

type Firing = readonly [cpu: number, a0: bigint, a1: bigint];

/** Each aggregation's entries as text, in their order. */
const counts = (s: DTraceState) => [...s.takeAggregations().values()].map((m) => [...m.entries()].map(([k, e]) => `${k}: ${e.data.join(' ')}`));

/**
 * Fires `firings` of syscall::read:entry through the filter (the full path
 * where it answers 1) and with the DIF interpreter, `snapshot` marking
 * where both take their aggregations; everything must come out equal.
 * Returns the answers.
 */
function againstInterpreter(d: string, firings: readonly (Firing | 'snapshot')[]): number[] {
  const { state, id } = start(d);
  const reference = start(d, { backend: 'dif' });
  const filter = state.probeFilter(id('read'))!;
  expect(filter).toBeDefined();
  const answers: number[] = [];
  for (const f of firings) {
    if (f === 'snapshot') {
      expect(counts(state)).toEqual(counts(reference.state));
      continue;
    }
    const [cpu, a0, a1] = f;
    const before = state.instructions;
    const r = filter(cpu, a0, a1, 0n, 0n);
    answers.push(r);
    if (r === 1) {
      expect(state.instructions).toBe(before);
      state.probe(id('read'), cpu, [a0, a1]);
    } else expect(state.instructions).toBeGreaterThan(before);
    reference.state.probe(reference.id('read'), cpu, [a0, a1]);
    expect(state.instructions).toBe(reference.state.instructions);
  }
  expect(counts(state)).toEqual(counts(reference.state));
  return answers;
}

describe('probe filters', () => {
  it('answers 0 when every predicate is false, and runs the aggregations of passing ones whose entries exist', () => {
    const d = 'syscall::read:entry /arg0 == 7/ { @a = count(); } syscall::read:entry /arg1 > 3 && cpu == 1/ { @b = count(); }';
    const answers = againstInterpreter(d, [[0, 1n, 2n], [0, 7n, 0n], [1, 1n, 9n], [0, 1n, 9n], [1, 8n, 3n], [1, 7n, 4n], [0, 7n, 5n], 'snapshot', [0, 7n, 0n], [0, 7n, 0n]]);
    // Each entry's first update (and the first after a snapshot) is the full path's, which arms its cell.
    expect(answers).toEqual([0, 1, 1, 0, 0, 0, 0, 1, 0]);
  });

  it('runs whole firings of probe-constant and integer-keyed aggregations, and answers 1 for a key it does not find', () => {
    const d = [
      'syscall::read:entry { @[probefunc] = count(); }',
      'syscall::read:entry { @s[arg0] = sum(arg1); }',
      'syscall::read:entry /arg1 != 3/ { @q[cpu] = quantize(arg1 - 20); }',
      'syscall::read:entry { @l[arg0, 5] = lquantize(arg1, 0, 20, 4, arg0 + 1); }',
      'syscall::read:entry { @m[arg0 & 1] = max(arg1); } syscall::read:entry { @n = min(arg1); }',
      'syscall::read:entry { @v[arg0] = avg(arg1 * 3); }',
    ].join(' ');
    const firings: Firing[] = [];
    for (let i = 0; i < 40; i++) firings.push([i % 2, BigInt(i % 3), BigInt((i * 7) % 30)]);
    const answers = againstInterpreter(d, [...firings, 'snapshot', ...firings]);
    // The first firings make the entries on the full path; later ones find them.
    expect(answers.slice(0, 6)).toContain(1);
    expect(answers.filter((r) => r === 0).length).toBeGreaterThan(answers.length / 2);
  });

  it('answers 1 for a passing clause it cannot run, before running any other', () => {
    const d = 'syscall::read:entry { @[arg0] = count(); } syscall::read:entry /arg1 == 5/ { trace(arg0); } syscall::read:entry { @t = sum(arg0); }';
    const answers = againstInterpreter(d, [[0, 1n, 2n], [0, 1n, 2n], [0, 1n, 5n], [1, 1n, 2n], [1, 2n, 5n], [1, 1n, 4n]]);
    expect(answers).toEqual([1, 0, 1, 0, 1, 0]);
  });

  it('offers none for a clause it can neither filter nor run whole, or the dif backend', () => {
    for (const d of [
      'syscall::read:entry { trace(arg0); }',
      'syscall::read:entry { @[execname] = count(); }',
      'syscall::read:entry { @[arg0] = sum(arg1 / arg0); }',
      'syscall::read:entry { @[arg0] = count(); x = 1; }',
      'syscall::read:entry { @ = llquantize(arg0, 10, 0, 6, 20); }',
      'syscall::read:entry { @[arg5] = count(); }',
      'syscall::read:entry /execname == "x"/ {}',
      'syscall::read:entry /arg0 / arg1 == 2/ {}',
      'syscall::read:entry /arg5 == 1/ {}',
      'syscall::read:entry /timestamp == 1/ {}',
      'self int x; syscall::read:entry /self->x == 0/ {}',
      'int g; syscall::read:entry /g == 0/ {}',
    ]) {
      const { state, id } = start(d);
      expect(state.probeFilter(id('read')), d).toBeUndefined();
    }
    const { state, id } = start('syscall::read:entry /arg0 == 1/ {}', { backend: 'dif' });
    expect(state.probeFilter(id('read'))).toBeUndefined();
    expect(start('syscall::read:entry { @ = count(); }', { backend: 'dif' }).state.probeFilter(id('read'))).toBeUndefined();
    expect(start('syscall::read:entry /arg0 == 1/ {}', { bufpolicy: 'fill' }).state.probeFilter(id('read'))).toBeUndefined();
  });

  it('answers 1 once tracing stops or exit() ran, and is made anew after a plan change', () => {
    const { state, id } = start('syscall::read:entry /arg0 == 7/ { exit(0); } syscall::read:entry { @ = count(); }');
    const filter = state.probeFilter(id('read'))!;
    expect(filter(0, 1n, 0n, 0n, 0n)).toBe(1);
    state.probe(id('read'), 0, [1n]);
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
