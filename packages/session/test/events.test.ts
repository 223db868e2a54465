// A session's output as events, with real D on the idle machine: each event
// dtrace(1) prints carries its exact text and stream, and the data behind it
// — firings as records, drops and errors with what they count and where,
// the aggregations as rows — while the texts written in order are what
// dtrace(1) prints.
import { defaultOptions, setOption } from '@wdtrace/dtrace-core';
import { describe, expect, it } from 'vitest';
import { Session, messageEvent, type SessionEvent } from '../src/index.js';

async function run(source: string, opts: Record<string, string | null> = {}) {
  const events: SessionEvent[] = [];
  const session = await Session.create({ onEvent: (e) => events.push(e) });
  const options = defaultOptions();
  for (const [k, v] of Object.entries(opts)) setOption(options, k, v);
  const result = await session.run(session.compile(source), { options });
  const text = (stream: string) => events.map((e) => ('stream' in e && e.stream === stream ? e.text : '')).join('');
  return { events, result, stdout: text('stdout'), stderr: text('stderr') };
}

describe('session events', () => {
  it('gives each firing as a record and its text as output, in order', async () => {
    const r = await run('BEGIN { printf("one\\n"); } BEGIN { printf("two\\n"); exit(0); }', { quiet: null });
    expect(r.stdout).toBe('one\ntwo\n\n');
    const records = r.events.filter((e) => e.kind === 'record').map((e) => (e.kind === 'record' ? e.record : undefined)!);
    expect(records.map((x) => [x.probe, x.output])).toEqual([
      ['dtrace:::BEGIN', 'one\n'],
      ['dtrace:::BEGIN', 'two\n'],
    ]);
    expect(records.map((x) => x.epid)).toEqual([1, 2]);
    expect(r.result.status).toBe(0);
  });

  it('reports a fault as an error event with its probe and reason', async () => {
    const r = await run('BEGIN { trace(*(int *)8); } BEGIN { exit(3); }');
    const errors = r.events.filter((e) => e.kind === 'error');
    expect(errors).toHaveLength(1);
    const e = errors[0]!;
    expect(e).toMatchObject({ kind: 'error', stream: 'stderr', epid: 1, probeId: 1, probe: 'dtrace:::BEGIN' });
    expect(e.kind === 'error' && e.message).toMatch(/^invalid address \(0x8\) in action #1 at DIF offset \d+$/);
    expect(r.stderr).toBe(e.kind === 'error' ? e.text : '');
    expect(r.result.status).toBe(3);
  });

  it('reports drops with what they count and where', async () => {
    const r = await run('tick-1ms { trace(timestamp); } tick-100ms { exit(0); }', { bufsize: '64', bufpolicy: 'fill' });
    const drops = r.events.filter((e) => e.kind === 'drop');
    expect(drops.length).toBeGreaterThan(0);
    for (const d of drops) expect(d).toMatchObject({ drop: 'principal', cpu: 0 });
    expect(drops.reduce((n, d) => n + (d.kind === 'drop' ? d.count : 0), 0)).toBeGreaterThan(0);
    expect(r.stderr).toBe(drops.map((d) => ('text' in d ? d.text : '')).join(''));
  });

  it('tells the drop and error messages of dtrace(1) apart from plain messages', () => {
    expect(messageEvent('dtrace: [DTRACEDROP_AGGREGATION] 2 aggregation drops on CPU 1\n')).toMatchObject({ kind: 'drop', drop: 'aggregation', count: 2, cpu: 1 });
    expect(messageEvent('dtrace: 5 dynamic variable drops\n')).toMatchObject({ kind: 'drop', drop: 'dynamic', count: 5 });
    expect(messageEvent('dtrace: 1 failed speculation (no speculative buffer available)\n')).toMatchObject({ kind: 'drop', drop: 'speculation-unavailable', count: 1 });
    expect(messageEvent('dtrace: pid 2 has exited\n')).toEqual({ kind: 'message', stream: 'stderr', text: 'dtrace: pid 2 has exited\n' });
  });

  it('gives the aggregations as rows, sorted and normalized as they print', async () => {
    const r = await run(
      'BEGIN { @c["b"] = count(); @c["a"] = count(); @c["a"] = count(); @s[1, "x"] = sum(10); @s[2, "y"] = sum(-4); @a = avg(3); @a = avg(4); @q = quantize(5); @q = quantize(5); @q = quantize(100); normalize(@s, 2); exit(0); }',
    );
    const aggs = r.result.aggregations;
    expect(aggs.map((a) => [a.name, a.function, a.keyTypes])).toEqual([
      ['c', 'count', ['string']],
      ['s', 'sum', ['int', 'string']],
      ['a', 'avg', []],
      ['q', 'quantize', []],
    ]);
    expect(aggs[0]!.rows).toEqual([
      { keys: ['b'], value: 1n },
      { keys: ['a'], value: 2n },
    ]);
    expect(aggs[1]!.rows).toEqual([
      { keys: [2n, 'y'], value: -2n },
      { keys: [1n, 'x'], value: 5n },
    ]);
    expect(aggs[2]!.rows).toEqual([{ keys: [], value: 3n }]);
    const q = aggs[3]!.rows[0]!;
    expect(q.value).toBe(3n);
    expect(q.buckets!.filter((b) => b !== 0n)).toEqual([2n, 1n]);
    // The same aggregations as text, where dtrace(1) prints them.
    const final = r.events.find((e) => e.kind === 'aggregations')!;
    expect(final.kind === 'aggregations' && final.text).toBe('\n' + (final.kind === 'aggregations' ? final.printout : ''));
    expect(r.stdout.endsWith(final.kind === 'aggregations' ? final.text : '')).toBe(true);
  });
});
