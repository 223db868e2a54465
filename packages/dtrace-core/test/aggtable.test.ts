// Keyed aggregation tables in the shared memory (aggtable.ts): entries put
// in and found again across growths, their cells taken in when the table is
// emptied, the regions handed back; and a probe's trampoline that finds
// entries there by integer keys without the firing plan's JavaScript, with
// the interpreter's results.
import { describe, expect, it, vi } from 'vitest';
import { DIF_VAR } from '../src/dif/index.js';
import { DTRACEACT, DTRACEAGG, llquantizeArg, lquantizeArg } from '../src/program/actions.js';
import { llquantizeBounds, llquantizeBucket, llquantizeBucketCount } from '../src/framework/buckets.js';
import { KeyedTable, keyHash, type KeyedOwner } from '../src/framework/aggtable.js';
import { cellStart, type CellFunction } from '../src/framework/trampoline.js';
import { sharedBlock } from '../src/framework/wasm.js';
import { regionBytesInUse } from '../src/framework/wmem.js';
import { ProbeRegistry } from '../src/framework/probes.js';
import { IdleMachine } from '../src/framework/machine.js';
import { defaultOptions, setOption } from '../src/framework/options.js';
import { DTraceState } from '../src/framework/state.js';
import { buildEcb, buildProgram, difoLoadGlobal, DIF_INT64 } from '../src/builder.js';

/** An owner that keeps what its cell held. */
class Owner implements KeyedOwner {
  slot = -1;
  keyed: KeyedTable | undefined;
  readonly words = [0n, 0n];
  constructor(readonly keys: bigint[]) {}
  absorbCell(fn: CellFunction, address: number): void {
    const mem = sharedBlock().i64;
    this.words[0] = mem[address >> 3]!;
    this.words[1] = mem[(address >> 3) + 1]!;
    expect(fn).toBe('sum');
  }
}

describe('keyed aggregation tables', () => {
  it('hold every entry put in across growths, each at a slot its keys hash to or past it, and hand their regions back', () => {
    const before = regionBytesInUse();
    const t = KeyedTable.make('sum', 2)!;
    expect(t.slotSize).toBe(8 + 16 + 16);
    const owners: Owner[] = [];
    // Keys of every sign and width, and many that differ only in their high word or their second key.
    for (let i = 0; i < 700; i++) {
      const k0 = i % 3 === 0 ? BigInt(i) << 32n : i % 3 === 1 ? BigInt.asUintN(64, BigInt(-i)) : BigInt(i & 7);
      owners.push(new Owner([k0, BigInt(i >> 3)]));
    }
    for (const o of owners) expect(t.insert(o.keys, o)).toBe(true);
    expect(t.size).toBe(owners.length);
    expect(regionBytesInUse()).toBeGreaterThan(before + owners.length * t.slotSize * 2 - 1);
    const mem = sharedBlock();
    const slots = new Set<number>();
    for (const [n, o] of owners.entries()) {
      expect(o.keyed).toBe(t);
      expect(slots.has(o.slot)).toBe(false);
      slots.add(o.slot);
      const at = t.cellAddress(o.slot) - 16 - 8;
      expect(mem.i32[at >> 2]).toBe(1);
      expect([mem.u64[(at + 8) >> 3], mem.u64[(at + 16) >> 3]]).toEqual(o.keys);
      // What a trampoline would have added.
      mem.i64[t.cellAddress(o.slot) >> 3] = BigInt(n) - 5n;
      // Linear probing: every slot from the hash's to this one is used.
      const mask = mem.i32[(t.descriptor >> 2) + 1]!;
      const base = mem.i32[t.descriptor >> 2]!;
      for (let s = keyHash(o.keys) & mask; s !== o.slot; s = (s + 1) & mask) expect(mem.i32[(base + s * t.slotSize) >> 2]).toBe(1);
    }
    t.clear();
    expect(t.size).toBe(0);
    for (const [n, o] of owners.entries()) {
      expect(o.words[0]).toBe(BigInt(n) - 5n);
      expect(o.keyed).toBeUndefined();
      expect(o.slot).toBe(-1);
    }
    // Emptied: zeroed slots, and entries go in again.
    const again = new Owner([1n, 2n]);
    expect(t.insert(again.keys, again)).toBe(true);
    expect(mem.i64[t.cellAddress(again.slot) >> 3]).toBe(cellStart('sum'));
    t.free();
    expect(again.words[0]).toBe(0n);
    expect(t.insert([3n, 4n], new Owner([3n, 4n]))).toBe(false);
    expect(regionBytesInUse()).toBe(before);
  });
});

describe('keyed aggregations in a trampoline', () => {
  const registry = (): ProbeRegistry => {
    const r = new ProbeRegistry();
    r.registerProvider({
      name: 'test',
      attributes: { provider: '', module: '', function: '', name: '', args: '' },
      ops: { provide: (rg) => void rg.createProbe('test', '', 'f', 'fire'), enable() {}, disable() {} },
    });
    return r;
  };
  const key = (id: number) => ({ kind: DTRACEACT.DIFEXPR, difo: difoLoadGlobal(id), noRecord: true });
  /** @a[arg0, arg1] = fn(value[, increment]) */
  const program = (fn: number, dataSize: number, value: number | undefined, arg = 0n, increment?: number) =>
    buildProgram(
      [
        buildEcb(0, ['test:::fire'], [
          key(DIF_VAR.ARG0),
          key(DIF_VAR.ARG1),
          { kind: fn, uarg: 0n, ntuple: 2, arg, difo: value === undefined ? undefined : difoLoadGlobal(value), noRecord: true },
          ...(increment === undefined ? [] : [{ kind: DTRACEACT.DIFEXPR, uarg: 0n, difo: difoLoadGlobal(increment), noRecord: true }]),
        ]),
      ],
      { aggregations: [{ id: 0, name: 'a', function: fn, arg, keys: [{ type: DIF_INT64, typeName: 'int64_t' }, { type: DIF_INT64, typeName: 'int64_t' }], dataSize }] },
    );

  /** Fires rounds of arguments, snapshots after each; returns the entries and how many firings the JavaScript aggregated. */
  const run = (backend: 'dif' | 'wasm', fn: number, dataSize: number, value: number | undefined, aggsize?: number, arg = 0n, increment?: number) => {
    const reg = registry();
    const options = defaultOptions();
    setOption(options, 'backend', backend);
    if (aggsize !== undefined) setOption(options, 'aggsize', String(aggsize));
    const before = regionBytesInUse();
    const state = new DTraceState(program(fn, dataSize, value, arg, increment), reg, new IdleMachine(2), options);
    const inUse = regionBytesInUse();
    const spy = vi.spyOn(state as unknown as { aggregateStep: () => void }, 'aggregateStep');
    state.go(0);
    const id = reg.lookup('test', '', 'f', 'fire')!.id;
    const out: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 400; i++) {
        const a0 = BigInt(i % 37) * (round === 1 ? -0x100000001n : 1n);
        state.probe(id, i & 1, [a0, BigInt(i % 3), BigInt(i * 0x7fffffff) * (i % 2 === 0 ? -1n : 1n) * (round === 2 ? 0x100000000n : 1n)].map((v) => BigInt.asUintN(64, v)));
      }
      for (const [k, e] of state.takeAggregations().get(0)!) out.push(`${round} ${k} ${e.data.join(',')}`);
      out.push(`drops ${state.takeAggregationDrops().join(',')}`);
    }
    const calls = spy.mock.calls.length;
    const during = regionBytesInUse();
    state.stop(0);
    // What grew while firing (the keyed table), and what is left once stopped (nothing: the arena's region is handed back too).
    return { out, calls, grew: during - inUse, after: regionBytesInUse() - before };
  };

  // lquantize(arg0, 5, 25, 2): values below, within and above.
  const linear = lquantizeArg(5, 10, 2);
  // llquantize(v, 10, 0, 6, 20) and llquantize(v, 2, 0, 8, 4): buckets of every step, values below and above them.
  const logLinear = llquantizeArg(10, 0, 6, 20);
  const logSize = (llquantizeBucketCount(10, 0, 6, 20) + 1) * 8;
  const logLinear2 = llquantizeArg(2, 0, 8, 4);
  const logSize2 = (llquantizeBucketCount(2, 0, 8, 4) + 1) * 8;
  for (const [name, fn, size, value, arg, increment] of [
    ['count', DTRACEAGG.COUNT, 8, undefined, 0n, undefined],
    ['sum', DTRACEAGG.SUM, 8, DIF_VAR.ARG2, 0n, undefined],
    ['min', DTRACEAGG.MIN, 8, DIF_VAR.ARG2, 0n, undefined],
    ['max', DTRACEAGG.MAX, 8, DIF_VAR.ARG2, 0n, undefined],
    ['avg', DTRACEAGG.AVG, 16, DIF_VAR.ARG2, 0n, undefined],
    ['stddev', DTRACEAGG.STDDEV, 32, DIF_VAR.ARG2, 0n, undefined],
    ['stddev (of values whose squares pass 2^64)', DTRACEAGG.STDDEV, 32, DIF_VAR.ARG0, 0n, undefined],
    ['quantize', DTRACEAGG.QUANTIZE, 127 * 8, DIF_VAR.ARG2, 0n, undefined],
    ['quantize (with an increment)', DTRACEAGG.QUANTIZE, 127 * 8, DIF_VAR.ARG2, 0n, DIF_VAR.ARG0],
    ['lquantize', DTRACEAGG.LQUANTIZE, (10 + 3) * 8, DIF_VAR.ARG0, linear, undefined],
    ['lquantize (with an increment)', DTRACEAGG.LQUANTIZE, (10 + 3) * 8, DIF_VAR.ARG0, linear, DIF_VAR.ARG2],
    ['llquantize', DTRACEAGG.LLQUANTIZE, logSize, DIF_VAR.ARG0, logLinear, undefined],
    ['llquantize (with an increment)', DTRACEAGG.LLQUANTIZE, logSize2, DIF_VAR.ARG0, logLinear2, DIF_VAR.ARG2],
  ] as const) {
    it(`finds the entries of @[arg0, arg1] = ${name}() without JavaScript once made, with the interpreter's results, and frees its table at stop`, () => {
      const dif = run('dif', fn, size, value, undefined, arg, increment);
      const wasm = run('wasm', fn, size, value, undefined, arg, increment);
      expect(wasm.out).toEqual(dif.out);
      expect(dif.calls).toBe(1200);
      // 37 * 3 keys (fewer: i % 37 and i % 3 pair up as i % 111) made in each of three rounds; every other firing found in the table.
      expect(wasm.calls).toBe(3 * 111);
      expect(wasm.grew).toBeGreaterThan(0);
      expect(wasm.after).toBe(0);
    });
  }

  it('leaves llquantize() of more buckets than its code may search, bounds past 2^63, to the JavaScript, with the same results', () => {
    const arg = llquantizeArg(10, 0, 18, 20);
    const size = (llquantizeBucketCount(10, 0, 18, 20) + 1) * 8;
    const dif = run('dif', DTRACEAGG.LLQUANTIZE, size, DIF_VAR.ARG2, undefined, arg);
    const wasm = run('wasm', DTRACEAGG.LLQUANTIZE, size, DIF_VAR.ARG2, undefined, arg);
    expect(wasm.out).toEqual(dif.out);
    expect(wasm.calls).toBe(1200);
  });

  it("finds entries whose keys all hash to one slot, each past the others, with the interpreter's results", () => {
    // 24 keys whose hash names the same slot of the first 64, and keys that differ from them in the second key only.
    const colliding: bigint[] = [];
    for (let k = 0n; colliding.length < 24; k++) if ((keyHash([k, 1n]) & 63) === (keyHash([0n, 1n]) & 63)) colliding.push(k);
    const fire = (backend: 'dif' | 'wasm') => {
      const reg = registry();
      const options = defaultOptions();
      setOption(options, 'backend', backend);
      const state = new DTraceState(program(DTRACEAGG.SUM, 8, DIF_VAR.ARG2), reg, new IdleMachine(1), options);
      const spy = vi.spyOn(state as unknown as { aggregateStep: () => void }, 'aggregateStep');
      state.go(0);
      const id = reg.lookup('test', '', 'f', 'fire')!.id;
      for (let round = 0; round < 5; round++) for (const k of colliding) state.probe(id, 0, [k, 1n, k * 3n + BigInt(round)]);
      state.probe(id, 0, [colliding[23]!, 2n, 5n]);
      const out = [...state.takeAggregations().get(0)!].map(([k, e]) => `${k} ${e.data.join(',')}`);
      state.stop(0);
      return { out, calls: spy.mock.calls.length };
    };
    const dif = fire('dif');
    const wasm = fire('wasm');
    expect(wasm.out).toEqual(dif.out);
    expect(dif.out).toHaveLength(25);
    expect(wasm.calls).toBe(25);
  });

  it('drops as the interpreter does when aggsize is full, and a dropped key stays with the JavaScript', () => {
    // Room for 10 entries of two keys and a count.
    const dif = run('dif', DTRACEAGG.COUNT, 8, undefined, 240);
    const wasm = run('wasm', DTRACEAGG.COUNT, 8, undefined, 240);
    expect(wasm.out).toEqual(dif.out);
    expect(dif.out.filter((l) => l.startsWith('0 '))).toHaveLength(10);
    // Keys 0 to 9 of the 111 (i % 111) fit, four firings each: the other 360 firings of each round drop, half on each CPU.
    expect(dif.out.filter((l) => l.startsWith('drops'))).toEqual(['drops 180,180', 'drops 180,180', 'drops 180,180']);
    // Each fitting key made once a round by the JavaScript, and every dropped firing left to it.
    expect(wasm.calls).toBe(3 * (10 + 360));
  });
});

describe('llquantize bounds', () => {
  it('put every value in the bucket llquantizeBucket does', () => {
    for (const [factor, low, high, nsteps] of [[10, 0, 6, 20], [2, 0, 8, 4], [10, 2, 4, 10], [3, 1, 5, 3]] as const) {
      const arg = llquantizeArg(factor, low, high, nsteps);
      const bounds = llquantizeBounds(arg);
      expect(bounds.length + 1).toBe(llquantizeBucketCount(factor, low, high, nsteps));
      const values = [-(1n << 63n), -1n, 0n, 1n, (1n << 63n) - 1n, ...bounds.flatMap((b) => [b - 1n, b, b + 1n])];
      for (const v of values) {
        const bucket = bounds.findIndex((b) => v < b);
        expect(bucket < 0 ? bounds.length : bucket).toBe(llquantizeBucket(arg, v));
      }
    }
  });
});
