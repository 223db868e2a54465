// Fast probe sites (assembly/fastsite.ts, src/fast-sites.ts): at an int3
// registered as a fast site, the core calls the site's filter with rdi, rsi,
// rdx, rcx and, when it answers 0, performs the displaced instruction itself
// and runs on, counting the firing, without stopping; any other answer, user
// mode, a CPU past its retired limit or the switch off stop at the int3 as
// before. Registers, rip and retired counts end as with the host handling
// every int3 by a stop, and a budget runs as far as the host's runs would.
import { describe, expect, it } from 'vitest';
import { X86Emulation, X86FastSites, type WasmBuild, type X86FastFilter, type X86FastPerform } from '../src/index.js';
import { bareCore, type BareCore } from './core-harness.js';

const STOP_BUDGET = 0, STOP_HALT = 1, STOP_EXCEPTION = 2;
const VEC_BP = 3, VEC_UD = 6;
const F = 0x10020n;
const PUSH_RBP = [0x55];
const INC_R13 = [0x49, 0xff, 0xc5];

/**
 * f called n times with rdi = n, n-1, ..., 1 and rsi = 7; f's first instruction `first` is patched with int3:
 *   0x10000 mov $n, %ebx ; mov %rbx, %rdi ; mov $7, %esi ; call f ; dec %ebx ; jnz 0x10005 ; hlt
 *   0x10020 f: <first> ; mov %rsp, %rbp ; inc %r12 ; pop %rbp (or nop, when first is not the push) ; ret
 */
function program(m: BareCore, n: number, first: number[], patched = true): void {
  m.poke(0x10000, [0xbb, n & 0xff, (n >> 8) & 0xff, 0, 0, 0x48, 0x89, 0xdf, 0xbe, 7, 0, 0, 0, 0xe8, 0x0e, 0, 0, 0, 0xff, 0xcb, 0x75, 0xef, 0xf4]);
  const body = [...first, 0x48, 0x89, 0xe5, 0x49, 0xff, 0xc4, first === PUSH_RBP ? 0x5d : 0x90, 0xc3];
  if (patched) body[0] = 0xcc;
  m.poke(Number(F), body);
  m.regs().fill(0n);
  m.regs()[4] = 0x80000n;
  m.setRip(0x10000n);
  m.core.setFlagsValue(0x2);
  m.core.wake();
}

/** A filter that sends only firings with rdi == `pass` (and rsi == 7) on to the host. */
function filterPassing(pass: number): X86FastFilter {
  const bytes = Uint8Array.of(
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x0a, 0x01, 0x60, 0x05, 0x7f, 0x7e, 0x7e, 0x7e, 0x7e, 0x01, 0x7f, // type (i32 i64 i64 i64 i64) -> i32
    0x03, 0x02, 0x01, 0x00,
    0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, // export "f"
    // (local.get 1 == pass) & (local.get 2 == 7)
    0x0a, 0x0f, 0x01, 0x0d, 0x00, 0x20, 0x01, 0x42, pass, 0x51, 0x20, 0x02, 0x42, 0x07, 0x51, 0x71, 0x0b,
  );
  return new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports['f'] as X86FastFilter;
}

const retired = (m: BareCore) => (m.core.retiredHi() >>> 0) * 2 ** 32 + (m.core.retiredLo() >>> 0);

/** Performs what the host's trap path performs for an int3 at f. */
function perform(m: BareCore, how: X86FastPerform): number {
  if (how.kind === 'emulate') return m.core.emulate(how.code);
  const input = (m.core as unknown as { DECODE_INPUT: WebAssembly.Global }).DECODE_INPUT.value as number;
  new Uint8Array(m.core.memory.buffer, input, 16).set(how.bytes);
  return m.core.executeDisplaced(how.bytes.length);
}

/**
 * Runs until hlt (or `budget` instructions), the host handling every int3
 * stop at f by `how` and giving each run what is left of the budget, as the
 * machine does; returns the rdi of each int3 it handled.
 */
function runByStops(m: BareCore, how: X86FastPerform, budget = 1_000_000): { stop: number; trapped: number[] } {
  const trapped: number[] = [];
  const start = retired(m);
  for (;;) {
    const stop = m.core.run(budget - (retired(m) - start));
    if (stop !== STOP_EXCEPTION || m.core.stopVector() !== VEC_BP || m.core.stopPcLo() !== Number(F)) return { stop, trapped };
    expect(m.core.stoppedAtFastSite()).toBe(0);
    trapped.push(Number(m.regs()[7]));
    expect(perform(m, how)).toBe(-1);
    if (retired(m) - start >= budget) return { stop: STOP_BUDGET, trapped };
  }
}

function expectSameState(a: BareCore, b: BareCore): void {
  expect(retired(a)).toBe(retired(b));
  expect(a.rip()).toBe(b.rip());
  expect([...a.regs()]).toEqual([...b.regs()]);
  expect(a.core.getFlags()).toBe(b.core.getFlags());
  expect([...a.ram().subarray(0x7ff00, 0x80000)]).toEqual([...b.ram().subarray(0x7ff00, 0x80000)]);
}

const EMULATE_PUSH: X86FastPerform = { kind: 'emulate', code: X86Emulation.pushRbp };
const DISPLACED_INC: X86FastPerform = { kind: 'displaced', bytes: Uint8Array.from(INC_R13) };

describe.each<WasmBuild>(['debug', 'release'])('fast probe sites (%s build)', (build) => {
  async function setUp(first: number[], n: number) {
    const m = await bareCore(1 << 20, build);
    program(m, n, first);
    const sites = new X86FastSites(m.core);
    return { m, sites };
  }

  async function reference(first: number[], n: number, how: X86FastPerform, budget?: number) {
    const m = await bareCore(1 << 20, build);
    program(m, n, first);
    const r = runByStops(m, how, budget);
    return { m, ...r };
  }

  it('performs the emulation itself where the filter answers 0, and ends as the host path does', async () => {
    const { m, sites } = await setUp(PUSH_RBP, 5);
    expect(sites.set(F, filterPassing(2), EMULATE_PUSH)).toBe(true);
    sites.setLimit(0, Infinity);
    sites.enable(true);
    const { stop, trapped } = runByStops(m, EMULATE_PUSH);
    expect(stop).toBe(STOP_HALT);
    expect(trapped).toEqual([2]);
    expect(sites.firings(F)).toBe(4);
    const ref = await reference(PUSH_RBP, 5, EMULATE_PUSH);
    expect(ref.trapped).toEqual([5, 4, 3, 2, 1]);
    expectSameState(m, ref.m);
    expect(m.regs()[12]).toBe(5n);
    // Taken out: its count comes back, and the int3 stops again.
    expect(sites.remove(F)).toBe(4);
    expect(sites.firings(F)).toBe(0);
    program(m, 2, PUSH_RBP);
    expect(runByStops(m, EMULATE_PUSH).trapped).toEqual([2, 1]);
  });

  it('runs the displaced bytes at the int3 address', async () => {
    const { m, sites } = await setUp(INC_R13, 6);
    expect(sites.set(F, filterPassing(9), DISPLACED_INC)).toBe(true);
    sites.setLimit(0, Infinity);
    sites.enable(true);
    expect(m.core.run(1_000_000)).toBe(STOP_HALT);
    expect(sites.firings(F)).toBe(6);
    const ref = await reference(INC_R13, 6, DISPLACED_INC);
    expectSameState(m, ref.m);
    expect(m.regs()[13]).toBe(6n);
  });

  it('runs a budget as far as the host runs would, int3s retiring nothing themselves', async () => {
    for (const budget of [1, 4, 5, 6, 7, 20, 33]) {
      const { m, sites } = await setUp(PUSH_RBP, 5);
      sites.set(F, filterPassing(3), EMULATE_PUSH);
      sites.setLimit(0, Infinity);
      sites.enable(true);
      const fast = runByStops(m, EMULATE_PUSH, budget);
      const ref = await reference(PUSH_RBP, 5, EMULATE_PUSH, budget);
      expect(fast.stop).toBe(ref.stop);
      expectSameState(m, ref.m);
      expect(retired(m)).toBe(Math.min(budget, retired(ref.m)));
    }
  });

  it('leaves every int3 to the host while switched off, past the CPU limit, in user mode or when the filter is replaced', async () => {
    const off = await setUp(PUSH_RBP, 5);
    off.sites.set(F, filterPassing(9), EMULATE_PUSH);
    off.sites.setLimit(0, Infinity);
    expect(runByStops(off.m, EMULATE_PUSH).trapped).toEqual([5, 4, 3, 2, 1]);
    // The limit is the retired count the fast path stops at: mov, mov, mov, call, then 10 a call.
    const limited = await setUp(PUSH_RBP, 5);
    limited.sites.set(F, filterPassing(9), EMULATE_PUSH);
    limited.sites.setLimit(0, 4 + 10 * 2);
    limited.sites.enable(true);
    expect(runByStops(limited.m, EMULATE_PUSH).trapped).toEqual([3, 2, 1]);
    expect(limited.sites.firings(F)).toBe(2);
    const user = await setUp(PUSH_RBP, 5);
    user.sites.set(F, filterPassing(9), EMULATE_PUSH);
    user.sites.setLimit(0, Infinity);
    user.sites.enable(true);
    user.m.core.setSegments(0x33, 0x2b);
    expect(runByStops(user.m, EMULATE_PUSH).trapped).toEqual([5, 4, 3, 2, 1]);
    // Another filter for the same site takes over.
    const replaced = await setUp(PUSH_RBP, 5);
    replaced.sites.set(F, filterPassing(9), EMULATE_PUSH);
    replaced.sites.set(F, filterPassing(4), EMULATE_PUSH);
    replaced.sites.setLimit(0, Infinity);
    replaced.sites.enable(true);
    expect(runByStops(replaced.m, EMULATE_PUSH).trapped).toEqual([4]);
    expect(replaced.sites.size).toBe(1);
    // What the core cannot perform is refused.
    expect(replaced.sites.set(F + 16n, filterPassing(9), { kind: 'emulate', code: 99 })).toBe(false);
    expect(replaced.sites.set(F + 16n, filterPassing(9), { kind: 'displaced', bytes: new Uint8Array(16) })).toBe(false);
    expect(replaced.sites.set(-1n, filterPassing(9), EMULATE_PUSH)).toBe(false);
  });

  it('stops with the fault of a displaced instruction as an exception to deliver, the firing counted', async () => {
    const { m, sites } = await setUp([0x0f, 0x0b], 3); // ud2
    sites.set(F, filterPassing(9), { kind: 'displaced', bytes: Uint8Array.of(0x0f, 0x0b) });
    sites.setLimit(0, Infinity);
    sites.enable(true);
    const before = retired(m);
    expect(m.core.run(1000)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(VEC_UD);
    expect(m.core.stoppedAtFastSite()).toBe(1);
    expect(m.rip()).toBe(F);
    expect(sites.firings(F)).toBe(1);
    expect(retired(m) - before).toBe(4);
    // A trap stop at a site whose filter sends it on is a trap again.
    sites.set(F, filterPassing(3), { kind: 'displaced', bytes: Uint8Array.of(0x0f, 0x0b) });
    expect(m.core.run(1000)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(VEC_BP);
    expect(m.core.stoppedAtFastSite()).toBe(0);
  });
});
