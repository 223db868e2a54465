// The principal buffers in the shared memory (buffers.ts): records placed
// by reserve() and taken by take() are exactly those a list of entries
// with byte accounting keeps (the switch, fill and ring policies, the END
// reserve, drops), across the growth of a region and the wrap of a ring;
// what the descriptor's limit lets a trampoline place itself fits without
// reserve() having a say; every region is handed back when freed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_EPID, ERROR_RECORD_SIZE, D_BASE, D_LIMIT, D_TAIL, PrincipalBuffers, type BufferPolicyName } from '../src/framework/buffers.js';
import { sharedBlock } from '../src/framework/wasm.js';
import { regionBytesInUse } from '../src/framework/wmem.js';

/** Record sizes by epid (1..): headers of 12 bytes and records of the sizes a program lays out. */
const SIZES = [12, 16, 20, 24, 40, 13, 100];

/** The accounting the buffers keep, as a list of entries: each policy's outcome of an append. */
class Model {
  entries: { epid: number; bytes: number[] }[] = [];
  used = 0;
  drops = 0;
  full = false;
  constructor(
    readonly policy: BufferPolicyName,
    readonly bufsize: number,
    readonly endReserve: number,
  ) {}
  append(epid: number, bytes: number[], ending: boolean): void {
    const size = bytes.length;
    const cap = this.policy === 'fill' && !ending ? Math.max(0, this.bufsize - this.endReserve) : this.bufsize;
    if (this.used + size > cap) {
      if (this.policy === 'ring' && size <= cap) {
        while (this.used + size > cap && this.entries.length > 0) this.used -= this.entries.shift()!.bytes.length;
      } else {
        this.drops++;
        if (this.policy === 'fill') this.full = true;
        return;
      }
    }
    this.entries.push({ epid, bytes });
    this.used += size;
  }
  take(): { entries: { epid: number; bytes: number[] }[]; drops: number } {
    const out = { entries: this.entries, drops: this.drops };
    this.entries = [];
    this.used = 0;
    this.drops = 0;
    return out;
  }
}

/** The records of taken bytes, walked by epid. */
function walk(bytes: Uint8Array): { epid: number; bytes: number[] }[] {
  const out: { epid: number; bytes: number[] }[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length; ) {
    const epid = view.getUint32(at, true);
    const size = epid === ERROR_EPID ? ERROR_RECORD_SIZE : SIZES[epid - 1]!;
    out.push({ epid, bytes: Array.from(bytes.subarray(at, at + size)) });
    at += size;
  }
  return out;
}

type Op = { kind: 'append'; epid: number; fast: boolean } | { kind: 'take' } | { kind: 'ending'; on: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('append' as const), epid: fc.integer({ min: 0, max: SIZES.length }), fast: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('take' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('ending' as const), on: fc.boolean() }) },
);

function check(policy: BufferPolicyName, bufsize: number, endReserve: number, ops: Op[]): void {
  const before = regionBytesInUse();
  const largest = Math.max(ERROR_RECORD_SIZE, ...SIZES);
  const bufs = new PrincipalBuffers(2, policy, bufsize, endReserve, largest);
  bufs.sizeOf = (epid) => SIZES[epid - 1]!;
  expect(bufs.layout()).toBe(true);
  const model = new Model(policy, bufsize, endReserve);
  let ending = false;
  let serial = 0;
  const cpu = 1;
  const compare = (): void => {
    const want = model.take();
    const got = bufs.take(cpu);
    expect(walk(got.bytes)).toEqual(want.entries);
    expect(got.drops).toBe(want.drops);
  };
  for (const o of ops) {
    if (o.kind === 'ending') {
      ending = o.on;
      bufs.setEnding(ending);
    } else if (o.kind === 'take') {
      compare();
    } else {
      const size = o.epid === ERROR_EPID ? ERROR_RECORD_SIZE : SIZES[o.epid - 1]!;
      const bytes = [o.epid & 0xff, 0, 0, 0];
      for (let k = 4; k < size; k++) bytes.push((serial + k) & 0xff);
      serial++;
      model.append(o.epid, bytes, ending);
      // As a trampoline does: below the limit it places the record itself, else reserve() does.
      const d = bufs.descriptor(cpu);
      const i32 = sharedBlock().i32;
      const tail = i32[(d + D_TAIL) >> 2]!;
      let at: number;
      if (o.fast && tail + size <= i32[(d + D_LIMIT) >> 2]!) {
        at = i32[(d + D_BASE) >> 2]! + tail;
        i32[(d + D_TAIL) >> 2] = tail + size;
      } else {
        at = bufs.reserve(cpu, size);
      }
      if (at >= 0) sharedBlock().u8.set(bytes, at);
    }
    expect(bufs.isFull(cpu)).toBe(model.full);
  }
  compare();
  bufs.free();
  expect(regionBytesInUse()).toBe(before);
}

describe('principal buffers in the shared memory', () => {
  for (const policy of ['switch', 'fill', 'ring'] as const) {
    it(`keep the records and drops a list of entries keeps (${policy})`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 8, max: 600 }), fc.integer({ min: 0, max: 120 }), fc.array(op, { maxLength: 300 }), (bufsize, reserve, ops) => {
          check(policy, bufsize, policy === 'fill' ? Math.min(reserve, bufsize) : 0, ops);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('grow a region past its first size and keep its records', () => {
    const ops: Op[] = Array.from({ length: 3000 }, (_, i) => ({ kind: 'append' as const, epid: 1 + (i % SIZES.length), fast: i % 3 !== 0 }));
    for (const policy of ['switch', 'fill', 'ring'] as const) check(policy, 100_000, 0, ops);
  });

  it('hand back every region when freed, and none is held before layout', () => {
    const before = regionBytesInUse();
    const bufs = new PrincipalBuffers(4, 'switch', 1 << 20, 0, 64);
    expect(bufs.reserve(0, 16)).toBe(-1);
    expect(bufs.layout()).toBe(true);
    expect(regionBytesInUse()).toBeGreaterThan(before);
    bufs.free();
    expect(regionBytesInUse()).toBe(before);
  });
});
