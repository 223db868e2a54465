// The speculation buffers in the shared memory (specbuffers.ts): random
// runs of speculative records, commits and discards on several speculations
// and CPUs leave in the principal buffers exactly what the lists of entries
// with byte accounting that kept speculations before kept (records that pass
// specsize dropped and counted at the commit, forgotten at a discard; a
// commit's records placed all at once by the principal buffer's policy, or
// none of them and one drop more, as dtrace_speculation_commit places them),
// across the growth of a region; every region is handed back when freed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { D_BASE, D_LIMIT, D_TAIL, PrincipalBuffers, type BufferPolicyName } from '../src/framework/buffers.js';
import { SpeculationBuffers } from '../src/framework/specbuffers.js';
import { sharedBlock } from '../src/framework/wasm.js';
import { regionBytesInUse } from '../src/framework/wmem.js';

/** Record sizes by epid (1..). */
const SIZES = [12, 16, 20, 24, 40, 13, 100];
const sizeOf = (epid: number): number => SIZES[epid - 1]!;
const NCPUS = 2;
const NSPEC = 3;

/** A speculation's buffer as the state kept it before: a list of records, the bytes they take, and drops. */
interface ListBuffer {
  entries: number[][];
  used: number;
  drops: number;
}

type Op =
  | { kind: 'record'; spec: number; cpu: number; epid: number }
  | { kind: 'commit'; spec: number; cpu: number }
  | { kind: 'discard'; spec: number; cpu: number }
  | { kind: 'take'; cpu: number };

const spec = fc.integer({ min: 0, max: NSPEC - 1 });
const cpu = fc.integer({ min: 0, max: NCPUS - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('record' as const), spec, cpu, epid: fc.integer({ min: 1, max: SIZES.length }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('commit' as const), spec, cpu }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('discard' as const), spec, cpu }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('take' as const), cpu }) },
);

function check(policy: BufferPolicyName, bufsize: number, specsize: number, ops: Op[]): void {
  const before = regionBytesInUse();
  const largest = Math.max(48, ...SIZES);
  // The principal buffers the speculations commit into, and those the lists commit into: the same policy places both.
  const principal = new PrincipalBuffers(NCPUS, policy, bufsize, 0, largest);
  const reference = new PrincipalBuffers(NCPUS, policy, bufsize, 0, largest);
  principal.sizeOf = reference.sizeOf = sizeOf;
  expect(principal.layout() && reference.layout()).toBe(true);
  const specs = new SpeculationBuffers(NCPUS, specsize);
  const lists: ListBuffer[][] = [];
  for (let s = 0; s < NSPEC; s++) {
    expect(specs.make()).toBe(s);
    lists.push(Array.from({ length: NCPUS }, () => ({ entries: [], used: 0, drops: 0 })));
  }
  let specDrops = 0;
  let listDrops = 0;
  let serial = 0;
  for (const o of ops) {
    if (o.kind === 'record') {
      const size = sizeOf(o.epid);
      const bytes = [o.epid, 0, 0, 0];
      for (let k = 4; k < size; k++) bytes.push((serial * 7 + k) & 0xff);
      serial++;
      const list = lists[o.spec]![o.cpu]!;
      if (list.used + size > specsize) list.drops++;
      else {
        list.entries.push(bytes);
        list.used += size;
      }
      const at = specs.reserve(o.spec, o.cpu, size);
      if (at >= 0) sharedBlock().u8.set(bytes, at);
      // The descriptor says where the records are, and how far they may go without a growth.
      const d = specs.descriptor(o.spec, o.cpu);
      const i32 = sharedBlock().i32;
      expect(i32[(d + D_TAIL) >> 2]).toBe(list.used);
      expect(i32[(d + D_LIMIT) >> 2]!).toBeLessThanOrEqual(specsize);
      if (list.used > 0) expect(i32[(d + D_BASE) >> 2]).toBeGreaterThan(0);
    } else if (o.kind === 'commit') {
      // dtrace_speculation_commit: room for all the records at once, or none of them and one drop more.
      const list = lists[o.spec]![o.cpu]!;
      if (list.used > 0) {
        let at = reference.reserve(o.cpu, list.used);
        if (at < 0) reference.drop(o.cpu);
        else {
          for (const e of list.entries) {
            sharedBlock().u8.set(e, at);
            at += e.length;
          }
        }
      }
      listDrops += list.drops;
      lists[o.spec]![o.cpu] = { entries: [], used: 0, drops: 0 };
      specDrops += specs.commit(o.spec, o.cpu, principal, sizeOf);
    } else if (o.kind === 'discard') {
      lists[o.spec]![o.cpu] = { entries: [], used: 0, drops: 0 };
      specs.clear(o.spec, o.cpu);
    } else {
      const want = reference.take(o.cpu);
      const got = principal.take(o.cpu);
      expect(Array.from(got.bytes)).toEqual(Array.from(want.bytes));
      expect(got.drops).toBe(want.drops);
    }
    for (let s = 0; s < NSPEC; s++) {
      for (let c = 0; c < NCPUS; c++) {
        expect(specs.used(s, c)).toBe(lists[s]![c]!.used);
        expect(specs.drops(s, c)).toBe(lists[s]![c]!.drops);
      }
    }
    expect(specDrops).toBe(listDrops);
  }
  for (let c = 0; c < NCPUS; c++) expect(Array.from(principal.take(c).bytes)).toEqual(Array.from(reference.take(c).bytes));
  specs.free();
  principal.free();
  reference.free();
  expect(regionBytesInUse()).toBe(before);
}

describe('speculation buffers in the shared memory', () => {
  for (const policy of ['switch', 'fill', 'ring'] as const) {
    it(`keep, commit and discard what lists of entries kept (principal buffer: ${policy})`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 100, max: 800 }), fc.integer({ min: 8, max: 400 }), fc.array(op, { maxLength: 300 }), (bufsize, specsize, ops) => {
          check(policy, bufsize, specsize, ops);
        }),
        { numRuns: 120 },
      );
    });
  }

  /** One CPU's switch buffer of `bufsize` bytes and one speculation of 200 bytes on it. */
  const oneSpeculation = (bufsize: number, largest: number): { principal: PrincipalBuffers; specs: SpeculationBuffers } => {
    const principal = new PrincipalBuffers(1, 'switch', bufsize, 0, largest);
    principal.sizeOf = sizeOf;
    expect(principal.layout()).toBe(true);
    const specs = new SpeculationBuffers(1, 200);
    expect(specs.make()).toBe(0);
    return { principal, specs };
  };

  it('stamp the committed records whose header holds a timestamp with the commit\'s time', () => {
    const { principal, specs } = oneSpeculation(1000, 100);
    // Epid 1 (12 bytes: a header with a timestamp), then epid 6 (13 bytes) whose header is taken to hold none.
    for (const epid of [1, 6, 1]) {
      const at = specs.reserve(0, 0, sizeOf(epid));
      const bytes = Array.from({ length: sizeOf(epid) }, (_, k) => (k === 0 ? epid : k < 4 ? 0 : 0xee));
      sharedBlock().u8.set(bytes, at);
    }
    specs.commit(0, 0, principal, sizeOf, { timestamp: 0x1122334455667788n, headerOf: (epid) => (epid === 1 ? 12 : 4) });
    const got = Array.from(principal.take(0).bytes);
    const stamped = [1, 0, 0, 0, 0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55];
    expect(got).toEqual([...stamped, 6, 0, 0, 0, ...Array.from({ length: 9 }, () => 0xee), ...stamped]);
    specs.free();
    principal.free();
  });

  it('commit all of a speculation\'s records or, with no room for them all, none and two drops', () => {
    const { principal, specs } = oneSpeculation(40, 24);
    // 24 + 24 bytes: more than the 40 the principal buffer holds, though the first would fit.
    for (let i = 0; i < 2; i++) sharedBlock().u8.set([4, 0, 0, 0], specs.reserve(0, 0, 24));
    specs.commit(0, 0, principal, sizeOf);
    expect(principal.take(0)).toEqual({ bytes: new Uint8Array(0), drops: 2 });
    sharedBlock().u8.set([4, 0, 0, 0], specs.reserve(0, 0, 24));
    specs.commit(0, 0, principal, sizeOf);
    expect(principal.take(0).bytes.length).toBe(24);
    specs.free();
    principal.free();
  });

  it('grow a region past its first size up to specsize and keep its records', () => {
    const ops: Op[] = [];
    for (let i = 0; i < 3000; i++) ops.push({ kind: 'record', spec: i % 2, cpu: (i >> 1) % 2, epid: 1 + (i % SIZES.length) });
    ops.push({ kind: 'commit', spec: 0, cpu: 0 }, { kind: 'commit', spec: 1, cpu: 1 }, { kind: 'discard', spec: 0, cpu: 1 });
    check('switch', 1 << 20, 40_000, ops);
  });

  it('hold no region for a CPU before its first record, and hand every region back when freed', () => {
    const before = regionBytesInUse();
    const specs = new SpeculationBuffers(4, 1 << 20);
    expect(specs.reserve(0, 0, 16)).toBe(-1);
    expect(specs.make()).toBe(0);
    const descriptors = regionBytesInUse();
    expect(descriptors).toBeGreaterThan(before);
    expect(specs.reserve(0, 2, 16)).toBeGreaterThan(0);
    expect(regionBytesInUse()).toBeGreaterThan(descriptors);
    specs.free();
    expect(regionBytesInUse()).toBe(before);
    expect(specs.count).toBe(0);
    expect(specs.used(0, 2)).toBe(0);
  });
});
