// Regions of the shared WebAssembly memory (wmem.ts): handed out zeroed and
// aligned, reused and merged when freed, and the memory grows for them with
// the shared views made again, so translated DIFOs and the firing block go
// on working across a growth.
import { describe, expect, it } from 'vitest';
import { DIF_OP, DIF_VAR, difInstrFmt, difInstrLdv, difInstrRet } from '../src/dif/index.js';
import { Arena } from '../src/framework/arena.js';
import { loadDifo } from '../src/framework/vm.js';
import { sharedBlock, wasmCompile } from '../src/framework/wasm.js';
import type { VmFiring } from '../src/framework/firing.js';
import { IdleMachine } from '../src/framework/machine.js';
import { REGIONS_START, allocateRegion, freeRegion, regionBytesInUse, regionSize } from '../src/framework/wmem.js';
import { buildDifo } from '../src/builder.js';

describe('shared-memory regions', () => {
  it('are aligned, zeroed, reused first-fit and merged with free neighbours', () => {
    const before = regionBytesInUse();
    const a = allocateRegion(100)!;
    const b = allocateRegion(40)!;
    const c = allocateRegion(16)!;
    expect(a).toBeGreaterThanOrEqual(REGIONS_START);
    for (const r of [a, b, c]) expect(r % 16).toBe(0);
    expect(regionSize(a)).toBe(112);
    expect(b).toBe(a + 112);
    expect(c).toBe(b + 48);
    sharedBlock().u8.fill(0xa5, a, a + 112);
    sharedBlock().u8.fill(0x5a, b, b + 48);
    freeRegion(a);
    freeRegion(b);
    // a and b merged: a region of their joint size fits where they were, zeroed.
    const d = allocateRegion(160)!;
    expect(d).toBe(a);
    expect(sharedBlock().u8.subarray(d, d + 160).every((x) => x === 0)).toBe(true);
    expect(() => freeRegion(b)).toThrow(RangeError);
    freeRegion(c);
    freeRegion(d);
    expect(regionBytesInUse()).toBe(before);
    // Everything freed went back to the end: the next region starts where a did.
    expect(allocateRegion(16)).toBe(a);
    freeRegion(a);
  });

  it('grow the memory, and a DIFO module instantiated before the growth still runs', () => {
    const arena = new Arena(4096, 4096);
    // arg0 + arg1, read from the firing block.
    const sum = wasmCompile(loadDifo(buildDifo([difInstrLdv(DIF_OP.LDGS, DIF_VAR.ARG0, 1), difInstrLdv(DIF_OP.LDGS, DIF_VAR.ARG1, 2), difInstrFmt(DIF_OP.ADD, 1, 2, 1), difInstrRet(1)], {}), arena))!;
    const none = (): never => {
      throw new Error('no variables');
    };
    const firing = (args: bigint[]): VmFiring => ({
      machine: new IdleMachine(1),
      arena,
      variables: { loadGlobal: none, storeGlobal: none, loadThread: none, storeThread: none, loadAssoc: none, storeAssoc: none },
      locals: new Map(),
      cpu: 0,
      probeId: 1,
      epid: 1,
      args,
      probe: { provider: 'test', module: 'kernel', function: 'f', name: 'fire' },
      timestamp: 1n,
      strsize: 256,
      speculation: () => 0,
      instructions: 0,
    });
    expect(sum(firing([2n, 3n]))).toBe(5n);
    const pages = sharedBlock().memory.buffer.byteLength;
    const big = allocateRegion(3 * 65536 + 8)!;
    expect(sharedBlock().memory.buffer.byteLength).toBeGreaterThan(pages);
    expect(sharedBlock().u8.length).toBe(sharedBlock().memory.buffer.byteLength);
    sharedBlock().u8[big + 3 * 65536 + 7] = 9;
    expect(sum(firing([40n, 2n]))).toBe(42n);
    freeRegion(big);
    expect(() => allocateRegion(0)).toThrow(RangeError);
    expect(allocateRegion(2 ** 31)).toBeUndefined();
  });
});
