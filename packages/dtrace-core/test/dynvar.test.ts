// The dynamic-variable table (dynvar.ts) in the shared WebAssembly memory:
// the JavaScript path and the WebAssembly tload/tstore leave the same bytes
// after the same stores; stores of 0 free; colliding keys share a chain;
// dynvarsize drops as the accounting says; the region goes back when freed.
import { describe, expect, it } from 'vitest';
import { DynamicVariables, KIND_THREAD, SLOT, dynvarFunctions, tableShape, threadBase, threadHash, tupleKeyBytes } from '../src/framework/dynvar.js';
import { sharedBlock } from '../src/framework/wasm.js';
import { regionBytesInUse, regionSize } from '../src/framework/wmem.js';
import { DIF_OP, DIF_VAR, DIFV_F_MOD, DIFV_F_REF, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, difInstrFmt, difInstrLdv, difInstrRet } from '../src/dif/index.js';
import { Arena } from '../src/framework/arena.js';
import { bytesString } from '../src/dif/difo.js';
import { difEmulate, loadDifo } from '../src/framework/vm.js';
import { wasmTranslate } from '../src/framework/wasm.js';
import type { TupleEntry, VmFiring } from '../src/framework/firing.js';
import { IdleMachine } from '../src/framework/machine.js';
import { DIF_INT64, buildDifo, buildEcb, buildProgram } from '../src/builder.js';
import { DTraceState } from '../src/framework/state.js';
import { ProbeRegistry } from '../src/framework/probes.js';
import { defaultOptions, setOption } from '../src/framework/options.js';
import { DTRACEACT } from '../src/program/index.js';

const ID = 0x500;

/** A string tuple entry: its bytes and a NUL. */
const str = (text: string): TupleEntry => ({ value: 0n, bytes: Uint8Array.from([...text].map((c) => c.charCodeAt(0)).concat(0)), string: true });

/** The table's bytes, copied out, but for slot 0's address (the one absolute address it holds). */
function bytesOf(t: DynamicVariables): Uint8Array {
  const bytes = sharedBlock().u8.slice(t.address, t.address + regionSize(t.address)!);
  bytes.fill(0, 20, 24);
  return bytes;
}

/** Where two tables' bytes first differ (-1: nowhere), quicker than a deep comparison of every byte. */
function firstDifference(a: DynamicVariables, b: DynamicVariables): number {
  const x = bytesOf(a);
  const y = bytesOf(b);
  if (x.length !== y.length) return 0;
  return x.findIndex((v, i) => v !== y[i]);
}

/** Runs the same thread-local stores on a table through JavaScript and on another through WebAssembly. */
function both(dynvarsize: number, stores: readonly [id: number, tid: number, value: bigint][]): { js: DynamicVariables; wasm: DynamicVariables } {
  const js = DynamicVariables.create(dynvarsize)!;
  const wasm = DynamicVariables.create(dynvarsize)!;
  const f = dynvarFunctions();
  for (const [id, tid, v] of stores) {
    js.storeThread(id, tid, v === 0n ? undefined : v);
    f.tstore(wasm.address, id | (KIND_THREAD << 16), BigInt(tid), BigInt.asIntN(64, v), threadBase(id));
  }
  return { js, wasm };
}

describe('dynamic-variable table', () => {
  it('stores, loads and frees thread-locals the same in JavaScript and WebAssembly', () => {
    const before = regionBytesInUse();
    const stores: [number, number, bigint][] = [];
    for (let tid = 0; tid < 40; tid++) stores.push([ID, tid, BigInt(tid * 1000 + 1)], [ID + 1, tid, 0xffffffffffffffffn - BigInt(tid)]);
    for (let tid = 0; tid < 40; tid += 3) stores.push([ID, tid, 0n]);
    for (let tid = 100; tid < 120; tid++) stores.push([ID, tid, 7n]);
    stores.push([ID + 1, 5, 0n], [ID + 1, 5, 0n], [ID + 1, 5, 9n], [ID, -3, 4n]);
    const { js, wasm } = both(1 << 16, stores);
    expect(firstDifference(wasm, js)).toBe(-1);
    const f = dynvarFunctions();
    for (const t of [js, wasm]) {
      expect(t.loadThread(ID, 1)).toBe(1001n);
      expect(t.loadThread(ID, 3)).toBe(0n);
      expect(t.loadThread(ID + 1, 7)).toBe(0xffffffffffffffffn - 7n);
      expect(t.loadThread(ID + 1, 5)).toBe(9n);
      expect(t.loadThread(ID, -3)).toBe(4n);
      expect(BigInt.asUintN(64, f.tload(t.address, ID + 1 | (KIND_THREAD << 16), 8n))).toBe(0xffffffffffffffffn - 8n);
      expect(f.tload(t.address, ID | (KIND_THREAD << 16), 3n)).toBe(0n);
      expect(t.drops).toBe(0);
    }
    expect(js.count).toBe(40 - 14 + 40 + 20 + 1);
    js.free();
    wasm.free();
    expect(regionBytesInUse()).toBe(before);
  });

  it('chains colliding keys and frees any link of a chain', () => {
    // A table with few buckets: find keys that fall in one bucket.
    const { buckets } = tableShape(200);
    const idkind = ID | (KIND_THREAD << 16);
    const bucket = threadHash(idkind, 0) & (buckets - 1);
    const tids: number[] = [];
    for (let tid = 0; tids.length < 4; tid++) if ((threadHash(idkind, tid) & (buckets - 1)) === bucket) tids.push(tid);
    const stores: [number, number, bigint][] = tids.map((tid, i) => [ID, tid, BigInt(i + 1)]);
    // Free the middle, then the head, then add one that reuses the freed slots.
    stores.push([ID, tids[1]!, 0n], [ID, tids[0]!, 0n], [ID, tids[1]!, 5n]);
    const { js, wasm } = both(200, stores);
    expect(firstDifference(wasm, js)).toBe(-1);
    for (const t of [js, wasm]) {
      expect([t.loadThread(ID, tids[0]!), t.loadThread(ID, tids[1]!), t.loadThread(ID, tids[2]!), t.loadThread(ID, tids[3]!)]).toEqual([0n, 5n, 3n, 4n]);
      expect(t.count).toBe(3);
    }
    js.free();
    wasm.free();
  });

  it('drops stores past dynvarsize but always keeps one variable, as the accounting counts', () => {
    // t1280:N takes 8 + 7 + 16 = 31 bytes (tids 0..9): 100 bytes hold three.
    const stores: [number, number, bigint][] = [];
    for (let tid = 0; tid < 6; tid++) stores.push([ID, tid, 1n]);
    // Freeing one makes room for another; a store over a kept variable still fits.
    stores.push([ID, 0, 0n], [ID, 7, 2n], [ID, 7, 3n], [ID, 8, 4n]);
    const { js, wasm } = both(100, stores);
    expect(firstDifference(wasm, js)).toBe(-1);
    for (const t of [js, wasm]) {
      expect(t.drops).toBe(4);
      expect(t.bytesInUse).toBe(93);
      expect(t.loadThread(ID, 7)).toBe(3n);
    }
    // However small dynvarsize, the first variable fits; the second drops.
    const tiny = both(1, [[ID, 12345, 1n], [ID, 2, 1n], [ID, 12345, 2n]]);
    expect(firstDifference(tiny.wasm, tiny.js)).toBe(-1);
    expect([tiny.js.loadThread(ID, 12345), tiny.js.drops, tiny.wasm.drops]).toEqual([2n, 1, 1]);
    for (const t of [js, wasm, tiny.js, tiny.wasm]) t.free();
  });

  it('keeps associative arrays and by-reference values beside integer thread-locals', () => {
    const t = DynamicVariables.create(1 << 12)!;
    const f = dynvarFunctions();
    t.storeAssoc(ID, [{ value: 3n }, str('read')], undefined, 11n);
    t.storeThread(ID + 2, 4, Uint8Array.of(104, 105, 0, 0));
    f.tstore(t.address, ID | (KIND_THREAD << 16), 4n, 12n, threadBase(ID));
    t.storeAssoc(ID, [{ value: 3n }], 4, 13n);
    expect(t.loadAssoc(ID, [{ value: 3n }, str('read')], undefined)).toBe(11n);
    expect(t.loadAssoc(ID, [{ value: 3n }, str('write')], undefined)).toBe(0n);
    expect(t.loadAssoc(ID, [{ value: 3n }, str('read')], 4)).toBe(0n);
    expect(t.loadThread(ID + 2, 4)).toEqual(Uint8Array.of(104, 105, 0, 0));
    expect(t.loadThread(ID, 4)).toBe(12n);
    expect(t.loadAssoc(ID, [{ value: 3n }], 4)).toBe(13n);
    // a1280:i3<NUL>sread: 8 + 14 + 16; t1282:4 with four bytes: 4 + 7 + 16; t1280:4: 31; a1280:4<SOH>i3: 8 + 10 + 16.
    expect(t.bytesInUse).toBe(38 + 27 + 31 + 34);
    t.storeThread(ID + 2, 4, undefined);
    t.storeAssoc(ID, [{ value: 3n }, str('read')], undefined, undefined);
    expect([t.count, t.bytesInUse]).toEqual([2, 65]);
    t.free();
    expect([t.count, t.loadThread(ID, 4)]).toEqual([0, 0n]);
  });

  it('keeps key and value bytes in its heap, reusing, compacting and growing it, as a map of the same stores would', () => {
    const t = DynamicVariables.create(1 << 20)!;
    const model = new Map<string, bigint | Uint8Array>();
    let seed = 7;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const key = (i: number): TupleEntry[] => [{ value: BigInt(i) * 0x10001n }, str('k'.repeat(i % 40))];
    const check = (): void => {
      for (const [k, v] of model) {
        const [id, kind, i] = k.split(':').map(Number) as [number, number, number];
        const got = kind === 0 ? t.loadAssoc(id, key(i), i % 3 === 0 ? i : undefined) : t.loadThread(id, i);
        expect(got).toEqual(v);
      }
    };
    let peak = 0;
    for (let round = 0; round < 3000; round++) {
      const i = next(200);
      const id = ID + next(3);
      const shape = next(4);
      const value: bigint | Uint8Array | undefined =
        shape === 0 ? undefined : shape === 1 ? BigInt(next(1000) + 1) : Uint8Array.from({ length: 1 + next(300) }, () => next(256));
      const kind = next(2);
      if (kind === 0) t.storeAssoc(id, key(i), i % 3 === 0 ? i : undefined, value);
      else t.storeThread(id, i, value);
      if (value === undefined) model.delete(`${id}:${kind}:${i}`);
      else model.set(`${id}:${kind}:${i}`, value);
      if (round % 500 === 0) check();
      peak = Math.max(peak, t.bytesInUse);
    }
    check();
    expect([t.count, t.drops]).toEqual([model.size, 0]);
    // The key bytes and the values' bytes are in the table's heap, not beside it.
    const heap = t.heapAddress;
    expect(heap).not.toBe(0);
    const text = bytesString(sharedBlock().u8.subarray(heap, heap + regionSize(heap)!));
    // Compacted as it went: the heap is no larger than twice the most bytes the accounting counted
    // and a value it replaced (a variable's old blob lives until its new one is made).
    expect(regionSize(heap)!).toBeLessThanOrEqual(2 * (peak + 512));
    for (const k of model.keys()) {
      const [, kind, i] = k.split(':').map(Number) as [number, number, number];
      if (kind === 0) expect(text).toContain(bytesString(tupleKeyBytes(i % 3 === 0 ? i : undefined, key(i)).bytes));
    }
    // Freeing every variable leaves nothing accounted.
    for (const k of [...model.keys()]) {
      const [id, kind, i] = k.split(':').map(Number) as [number, number, number];
      if (kind === 0) t.storeAssoc(id, key(i), i % 3 === 0 ? i : undefined, undefined);
      else t.storeThread(id, i, undefined);
    }
    expect([t.count, t.bytesInUse]).toEqual([0, 0]);
    t.free();
  });

  it('lets the one variable past a small dynvarsize have its bytes, and drops the next as before', () => {
    const before = regionBytesInUse();
    const t = DynamicVariables.create(64)!;
    const big = Uint8Array.from({ length: 10000 }, (_, i) => i & 0xff);
    t.storeAssoc(ID, [str('name')], undefined, big);
    expect(t.loadAssoc(ID, [str('name')], undefined)).toEqual(big);
    t.storeAssoc(ID, [str('other')], undefined, 1n);
    expect([t.drops, t.count, t.loadAssoc(ID, [str('other')], undefined)]).toEqual([1, 1, 0n]);
    // A store over the one variable that does not fit beside it replaces it.
    t.storeAssoc(ID, [str('name')], undefined, Uint8Array.of(1, 2));
    expect(t.loadAssoc(ID, [str('name')], undefined)).toEqual(Uint8Array.of(1, 2));
    t.free();
    expect(regionBytesInUse()).toBe(before);
  });

  it('keys by-reference tuple entries by all their bytes, strings by theirs up to the NUL', () => {
    const struct = (...b: number[]): TupleEntry => ({ value: 0n, bytes: Uint8Array.from(b) });
    const string = (...b: number[]): TupleEntry => ({ value: 0n, bytes: Uint8Array.from(b), string: true });
    const key = (thread: number | undefined, ...tuple: TupleEntry[]): string => bytesString(tupleKeyBytes(thread, tuple).bytes);
    const accounted = (thread: number | undefined, ...tuple: TupleEntry[]): number => tupleKeyBytes(thread, tuple).accounted;
    expect(key(undefined, struct(1, 0, 2))).not.toBe(key(undefined, struct(1, 0, 3)));
    expect(key(undefined, string(104, 105, 0, 7))).toBe(key(undefined, string(104, 105, 0, 9)));
    expect(key(undefined, struct(1, 0), { value: 2n })).not.toBe(key(undefined, struct(1), { value: 0n }, { value: 2n }));
    expect(key(undefined, string(1, 0), { value: 2n })).not.toBe(key(undefined, string(1, 2, 0)));
    expect(key(3, { value: 2n })).not.toBe(key(undefined, { value: 3n }, { value: 2n }));
    // Counted as the key strings were: i<hex>, s<bytes>, b<length>:<bytes>, joined by one byte; <tid> and one in front.
    expect(accounted(undefined, { value: 0n })).toBe('i0'.length);
    expect(accounted(undefined, { value: 0xffffffffffffffffn }, string(104, 105, 0))).toBe('iffffffffffffffff\0shi'.length);
    expect(accounted(1000003, struct(1, 0, 2), { value: 0x10n })).toBe('1000003\u0001b3:xxx\0i10'.length);
    // Its bytes are never more than that and one (see dynvar.ts).
    for (const tuple of [[{ value: 0x7fn }], [string(0)], [struct(...new Array<number>(200).fill(0))], [{ value: 1n << 63n }, string(65, 0)]]) {
      for (const thread of [undefined, 0, 99, 1 << 30]) expect(tupleKeyBytes(thread, tuple).bytes.length).toBeLessThanOrEqual(tupleKeyBytes(thread, tuple).accounted + 1);
    }
  });

  it('is read and written inline by a translated DIFO, and by the interpreter in between', () => {
    const table = DynamicVariables.create(4096)!;
    // self->x = self->x + arg0; return self->x
    const ld = loadDifo(
      buildDifo([difInstrLdv(DIF_OP.LDTS, ID, 1), difInstrLdv(DIF_OP.LDGS, DIF_VAR.ARG0, 2), difInstrFmt(DIF_OP.ADD, 1, 2, 1), difInstrLdv(DIF_OP.STTS, ID, 1), difInstrLdv(DIF_OP.LDTS, ID, 3), difInstrRet(3)], {}),
      new Arena(4096, 4096),
    );
    const w = wasmTranslate(ld, undefined, table)!;
    expect(w.callsOut).toBe(false);
    const none = (): never => {
      throw new Error('not a dynamic variable');
    };
    const firing = (tid: number): VmFiring => ({
      machine: new (class extends IdleMachine {
        override thread(): ReturnType<IdleMachine['thread']> {
          return { ...super.thread(), tid };
        }
      })(1),
      arena: new Arena(4096, 4096),
      variables: { loadGlobal: none, storeGlobal: none, loadThread: (id, t) => table.loadThread(id, t), storeThread: (id, t, v) => table.storeThread(id, t, v), loadAssoc: none, storeAssoc: none },
      locals: new Map(),
      cpu: 0,
      probeId: 1,
      epid: 1,
      args: [5n],
      probe: { provider: 'test', module: 'kernel', function: 'f', name: 'fire' },
      timestamp: 1n,
      strsize: 256,
      speculation: () => 0,
      instructions: 0,
    });
    expect(w.run(firing(42))).toBe(5n);
    expect(w.run(firing(42))).toBe(10n);
    expect(difEmulate(ld, firing(42))).toBe(15n);
    expect(w.run(firing(43))).toBe(5n);
    expect(w.run(firing(42))).toBe(20n);
    expect([table.loadThread(ID, 42), table.loadThread(ID, 43), table.count]).toEqual([20n, 5n, 2]);
    table.free();
  });

  it('belongs to a state from its making to its stop, with both backends', () => {
    // fbt::main:entry { self->x = self->x + arg0; }
    const difo = buildDifo([difInstrLdv(DIF_OP.LDTS, ID, 1), difInstrLdv(DIF_OP.LDGS, DIF_VAR.ARG0, 2), difInstrFmt(DIF_OP.ADD, 1, 2, 1), difInstrLdv(DIF_OP.STTS, ID, 1), difInstrRet(1)], {
      strings: ['x'],
      vartab: [{ name: 0, id: ID, kind: DIFV_KIND_SCALAR, scope: DIFV_SCOPE_THREAD, flags: DIFV_F_REF | DIFV_F_MOD, type: DIF_INT64 }],
    });
    const program = buildProgram([buildEcb(0, ['fbt::main:entry'], [{ kind: DTRACEACT.DIFEXPR, difo, noRecord: true }])]);
    for (const backend of ['dif', 'wasm']) {
      const registry = new ProbeRegistry();
      registry.registerProvider({
        name: 'fbt',
        attributes: { provider: '', module: '', function: '', name: '', args: '' },
        ops: { provide: (r) => void r.createProbe('fbt', 'kernel', 'main', 'entry'), enable() {}, disable() {} },
      });
      const options = defaultOptions();
      setOption(options, 'backend', backend);
      setOption(options, 'dynvarsize', '1k');
      const before = regionBytesInUse();
      const state = new DTraceState(program, registry, new IdleMachine(1), options);
      // The program uses a thread-local: its table is made with the state, sized from dynvarsize (with the state's arena).
      expect(regionBytesInUse() - before).toBe(Math.ceil(tableShape(1024).bytes / 16) * 16 + Math.ceil(state.arena.size / 16) * 16);
      state.go(0);
      const id = registry.lookup('fbt', 'kernel', 'main', 'entry')!.id;
      for (let i = 1n; i <= 4n; i++) state.probe(id, 0, [i]);
      expect(state.variables.loadThread(ID, new IdleMachine(1).thread().tid)).toBe(10n);
      state.stop(0);
      expect(regionBytesInUse()).toBe(before);
    }
  });

  it('is handed back when the state fails to enable', () => {
    const difo = buildDifo([difInstrLdv(DIF_OP.LDTS, ID, 1), difInstrRet(1)], {
      strings: ['x'],
      vartab: [{ name: 0, id: ID, kind: DIFV_KIND_SCALAR, scope: DIFV_SCOPE_THREAD, flags: DIFV_F_REF, type: DIF_INT64 }],
    });
    const program = buildProgram([buildEcb(0, ['fbt::nosuch:entry'], [{ kind: DTRACEACT.DIFEXPR, difo, noRecord: true }])]);
    const before = regionBytesInUse();
    expect(() => new DTraceState(program, new ProbeRegistry(), new IdleMachine(1), defaultOptions())).toThrow('probe description fbt::nosuch:entry does not match any probes');
    expect(regionBytesInUse()).toBe(before);
  });

  it('sizes its slots from dynvarsize', () => {
    expect(tableShape(1024 * 1024)).toEqual({ slots: 33826, buckets: 65536, bytes: 64 + 4 * 65536 + SLOT * 33826 });
    expect(tableShape(1).slots).toBe(1);
  });
});
