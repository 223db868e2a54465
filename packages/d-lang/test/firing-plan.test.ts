// The framework's firing plans (state.ts) on compiled D: aggregation entries
// found by their key without a key string (none, one string, one integer)
// start afresh after each snapshot, take a key's bytes before the value is
// evaluated, and drop as before; records cut from a CPU's slab keep each
// firing's own data. Each backend runs every case.
import { DTraceState, IdleMachine, defaultOptions, setOption, type AggregationEntry, type CompiledProgram } from '@wdtrace/dtrace-core';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';
import { corpusOptions, corpusRegistry } from './corpus-support.js';

function start(text: string, backend: 'dif' | 'wasm', options: Record<string, string> = {}) {
  const program: CompiledProgram = compile(text, corpusOptions('firing-plan', text)).program!;
  expect(program).toBeDefined();
  const reg = corpusRegistry();
  const o = defaultOptions();
  for (const [name, value] of Object.entries(options)) setOption(o, name, value);
  setOption(o, 'backend', backend);
  const state = new DTraceState(program, reg, new IdleMachine(2), o);
  const fire = (func: string, name: string, args: bigint[] = [], cpu = 0) => state.probe(reg.lookup('syscall', '', func, name)!.id, cpu, args);
  state.go(0, (cpu) => state.probe(reg.lookup('dtrace', '', '', 'BEGIN')!.id, cpu, []));
  return { state, fire };
}

const text = (k: bigint | Uint8Array): string => (typeof k === 'bigint' ? k.toString() : new TextDecoder().decode(k.subarray(0, k.indexOf(0) < 0 ? k.length : k.indexOf(0))));

/** An aggregation snapshot as "key,key=data data" lines, sorted. */
function rows(taken: Map<number, Map<string, AggregationEntry>>, id: number): string[] {
  return [...(taken.get(id)?.values() ?? [])].map((e) => `${e.keys.map(text).join(',')}=${e.data.join(' ')}`).sort();
}

describe.each(['dif', 'wasm'] as const)('firing plans (backend=%s)', (backend) => {
  it('count by no key, one string and one integer: each snapshot holds only the firings since the last', () => {
    const { state, fire } = start('syscall:::entry { @n = count(); @f[probefunc] = count(); @a[arg0] = count(); }', backend);
    for (let i = 0; i < 3; i++) fire('read', 'entry', [7n]);
    fire('open', 'entry', [7n]);
    fire('open', 'entry', [0xffffffffffffffffn]);
    let taken = state.takeAggregations();
    expect(rows(taken, 1)).toEqual(['=5']);
    expect(rows(taken, 2)).toEqual(['open=2', 'read=3']);
    expect(rows(taken, 3)).toEqual(['18446744073709551615=1', '7=4']);
    fire('read', 'entry', [7n]);
    taken = state.takeAggregations();
    expect(rows(taken, 1)).toEqual(['=1']);
    expect(rows(taken, 2)).toEqual(['read=1']);
    expect(rows(taken, 3)).toEqual(['7=1']);
    // Nothing fired: empty tables, not the entries found last time.
    taken = state.takeAggregations();
    expect([1, 2, 3].map((id) => rows(taken, id))).toEqual([[], [], []]);
  });

  it('shows counts in the live tables before a snapshot', () => {
    const { state, fire } = start('syscall:::entry { @f[probefunc] = count(); }', backend);
    for (let i = 0; i < 4; i++) fire('read', 'entry');
    expect([...state.aggregations.get(1)!.values()].map((e) => e.data)).toEqual([[4n]]);
    fire('read', 'entry');
    expect(rows(state.takeAggregations(), 1)).toEqual(['read=5']);
  });

  it('takes a string key as it was before the value expression ran', () => {
    // g's storage is the key's bytes; the value expression overwrites them.
    const { state, fire } = start('BEGIN { g = "a"; } syscall::read:entry { @[g] = sum((g = "bb") == "bb"); @c[g] = count(); }', backend);
    fire('read', 'entry');
    fire('read', 'entry');
    const taken = state.takeAggregations();
    expect(rows(taken, 1)).toEqual(['a=1', 'bb=1']);
    expect(rows(taken, 2)).toEqual(['bb=2']);
  });

  it('keeps apart string keys of equal hash-length and prefix, and of two aggregations', () => {
    const { state, fire } = start('syscall::: { @[strjoin(probefunc, probename)] = count(); @[probefunc] = count(); @b[probefunc] = sum(arg0); }', backend);
    fire('read', 'entry', [1n]);
    fire('read', 'return', [2n]);
    fire('open', 'entry', [4n]);
    fire('read', 'entry', [8n]);
    const taken = state.takeAggregations();
    expect(rows(taken, 1)).toEqual(['open=1', 'openentry=1', 'read=3', 'readentry=2', 'readreturn=1']);
    expect(rows(taken, 2)).toEqual(['open=4', 'read=11']);
  });

  it('finds tuples of strings and integers by their values, each key taken as it was when evaluated', () => {
    const { state, fire } = start('BEGIN { g = "a"; } syscall::: { @t[g, g = probefunc, g, arg0] = count(); @s[probename, arg0] = sum(arg1); }', backend);
    fire('read', 'entry', [1n, 10n]);
    fire('read', 'entry', [1n, 20n]);
    fire('open', 'return', [1n, 30n]);
    fire('read', 'entry', [2n, 40n]);
    const taken = state.takeAggregations();
    // g is left from the firing before.
    expect(rows(taken, 1)).toEqual(['a,read,read,1=1', 'open,read,read,2=1', 'read,open,open,1=1', 'read,read,read,1=1']);
    expect(rows(taken, 2)).toEqual(['entry,1=30', 'entry,2=40', 'return,1=30']);
  });

  it('keeps apart tuples whose strings hold the key string separator (they used to share one entry)', () => {
    const { state, fire } = start('syscall::read:entry { @[arg0 == 1 ? "a|s256:b" : "a", arg0 == 1 ? "c" : "b|s256:c"] = count(); }', backend);
    fire('read', 'entry', [1n]);
    fire('read', 'entry', [2n]);
    fire('read', 'entry', [2n]);
    expect(rows(state.takeAggregations(), 1)).toEqual(['a,b|s256:c=2', 'a|s256:b,c=1']);
  });

  it('reports a fault in a key of a tuple as that key action', () => {
    const { state, fire } = start('syscall::read:entry { @a[probefunc, stringof(arg1), arg0] = count(); } ERROR { @e[arg2, arg4] = count(); }', backend);
    fire('read', 'entry', [1n, 0x1000n]);
    const taken = state.takeAggregations();
    expect(rows(taken, 1)).toEqual([]);
    // The second key (action #2) faults on a bad address (DTRACEFLT_BADADDR, 1).
    expect(rows(taken, 2)).toEqual(['2,1=1']);
  });

  it('keeps the entry of keys that name the probe per probe, anew after each snapshot and after a drop, counting their DIF each firing', () => {
    const { state, fire } = start('syscall:::entry { @[probefunc, probename, 3, "x"] = count(); }', backend, { aggsize: '40' });
    fire('read', 'entry');
    const once = state.instructions;
    // No entry fits aggsize: every firing drops, and none leaves an entry to be found again.
    fire('open', 'entry');
    fire('read', 'entry');
    fire('open', 'entry');
    fire('read', 'entry');
    expect(state.instructions).toBe(5 * once);
    let taken = state.takeAggregations();
    expect(rows(taken, 1)).toEqual([]);
    expect(state.takeAggregationDrops()).toEqual([5, 0]);
    const wide = start('syscall:::entry { @[probefunc, probename, 3, "x"] = count(); }', backend);
    for (const func of ['read', 'open', 'read', 'read', 'open']) wide.fire(func, 'entry');
    taken = wide.state.takeAggregations();
    expect(rows(taken, 1)).toEqual(['open,entry,3,x=2', 'read,entry,3,x=3']);
    wide.fire('open', 'entry');
    taken = wide.state.takeAggregations();
    expect(rows(taken, 1)).toEqual(['open,entry,3,x=1']);
    expect(rows(wide.state.takeAggregations(), 1)).toEqual([]);
    wide.fire('read', 'entry');
    wide.fire('read', 'entry');
    expect(rows(wide.state.takeAggregations(), 1)).toEqual(['read,entry,3,x=2']);
  });

  it('reads the clock for a firing whose clauses record their header or read timestamp or vtimestamp, whichever clause of the probe does', () => {
    const text = 'syscall::read:entry { @n = count(); } syscall::read:entry /timestamp > 5/ { @t = max(timestamp); } syscall::open:entry { @n = count(); @v = min(vtimestamp); } syscall::read:return { @n = count(); } syscall::read:return { trace(1); }';
    const program: CompiledProgram = compile(text, corpusOptions('firing-plan', text)).program!;
    const reg = corpusRegistry();
    const o = defaultOptions();
    setOption(o, 'backend', backend);
    const machine = new IdleMachine(1);
    const state = new DTraceState(program, reg, machine, o);
    const fire = (func: string, name = 'entry') => state.probe(reg.lookup('syscall', '', func, name)!.id, 0, []);
    state.go(0);
    machine.advanceTo(7n);
    fire('read');
    machine.advanceTo(9n);
    fire('open');
    machine.advanceTo(11n);
    fire('read', 'return');
    const taken = state.takeAggregations();
    expect(rows(taken, 1)).toEqual(['=3']);
    expect(rows(taken, 2)).toEqual(['=7']);
    expect(rows(taken, 3)).toEqual(['=9']);
    const records = state.snapshot(0, true).entries.filter((e) => e.kind === 'data');
    expect(records).toHaveLength(1);
    const e = records[0]!;
    if (e.kind !== 'data') return;
    const view = new DataView(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength);
    // The header's timestamp: its high word, then its low word.
    expect(view.getUint32(4, true) * 2 ** 32 + view.getUint32(8, true)).toBe(11);
  });

  it('sums small and large values alike, wrapping as an int64_t', () => {
    const { state, fire } = start('syscall::read:entry { @s = sum(arg0); @c = count(); }', backend);
    for (const v of [5n, 0xffffffffn, 0x100000000n, 0xfffffffffffffffdn, 0x7fffffffffffffffn, 7n]) fire('read', 'entry', [v]);
    const taken = state.takeAggregations();
    expect(rows(taken, 1)).toEqual(['=-9223372028264841209']);
    expect(rows(taken, 2)).toEqual(['=6']);
  });

  it('quantizes INT64_MIN into the lowest bucket (it used to stop the firing with a JavaScript TypeError)', () => {
    const { state, fire } = start('syscall::read:entry { @ = quantize(arg0); }', backend);
    fire('read', 'entry', [0x8000000000000000n]);
    fire('read', 'entry', [0x7fffffffffffffffn]);
    const data = [...state.takeAggregations().get(1)!.values()][0]!.data;
    expect(data.flatMap((n, b) => (n !== 0n ? [`${b}:${n}`] : []))).toEqual(['0:1', '126:1']);
  });

  it('drops a new key that does not fit aggsize, and finds it once there is room again', () => {
    const { state, fire } = start('syscall:::entry { @[arg0] = count(); }', backend, { aggsize: '24' });
    fire('read', 'entry', [1n]);
    fire('read', 'entry', [2n]);
    fire('read', 'entry', [2n]);
    fire('read', 'entry', [1n]);
    expect(rows(state.takeAggregations(), 1)).toEqual(['1=2']);
    expect(state.takeAggregationDrops()).toEqual([2, 0]);
    fire('read', 'entry', [2n]);
    expect(rows(state.takeAggregations(), 1)).toEqual(['2=1']);
  });

  it('gives each firing its own record bytes, on each CPU', () => {
    const { state, fire } = start('syscall::read:entry { trace(arg0); trace(probefunc); } syscall::open:entry { @[probefunc] = count(); }', backend);
    for (let i = 0; i < 3000; i++) fire('read', 'entry', [BigInt(i)], i % 2);
    fire('open', 'entry');
    for (const cpu of [0, 1]) {
      const entries = state.snapshot(cpu, true).entries;
      expect(entries).toHaveLength(1500);
      entries.forEach((e, i) => {
        expect(e.kind).toBe('data');
        if (e.kind !== 'data') return;
        const view = new DataView(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength);
        const rec = state.epid(e.epid)!.ecb.actions.map((a) => a.record!);
        expect(view.getBigUint64(rec[0]!.offset, true)).toBe(BigInt(2 * i + cpu));
        expect(text(e.bytes.subarray(rec[1]!.offset, rec[1]!.offset + rec[1]!.size))).toBe('read');
      });
    }
  });
});
