// The ARM port takes traps inside the core's run (CpuPort.setTrapHandler):
// a trap calls the machine from inside `run` instead of ending it. These
// tests hold that path to the trap stops it replaces: the same machine with
// the port's trap handler removed (every trap a 'trap' stop, handled after
// `run` returns) must run the same instructions on each CPU, to the same
// virtual time, with the same console output and the same traps in the same
// order — on two CPUs, with a handler that stops the run now and then, one
// that throws, and in the Thumb-2 guest. An unclaimed trap reaches the guest
// on either path alike.
import { ArmEmulation, DTRACE_BREAKPOINT, DTRACE_BREAKPOINT_T16 } from '@wdtrace/isa-arm-as';
import { describe, expect, it } from 'vitest';
import type { InvopResult, Machine, Trap } from '../src/index.js';
import { guestMachine } from './machine-support.js';

const LIMIT = { instructions: 400_000_000 };
const SCRIPT = 'syscallheavy 20 & echo one two three & echo four five; wait; echo six';

/** Kernel functions whose first instruction is a push (A32 `stmdb sp!` or Thumb `push`), by name, with that instruction. */
function pushEntries(m: Machine, names: readonly string[]): Map<bigint, { name: string; original: Uint8Array; result: InvopResult }> {
  const out = new Map<bigint, { name: string; original: Uint8Array; result: InvopResult }>();
  for (const name of names) {
    const s = m.symbols.byName(name, 'kernel');
    if (!s) throw new Error(`no ${name}`);
    if (m.thumb) {
      const at = s.address & ~1n;
      const original = m.readText(at, 2);
      const half = original[0]! | (original[1]! << 8);
      if ((half & 0xfe00) !== 0xb400) throw new Error(`${name} does not start with a 16-bit push`);
      out.set(at, { name, original, result: { kind: 'emulate', code: ArmEmulation.T_PUSH, word: half } });
    } else {
      const original = m.readText(s.address, 4);
      const word = new DataView(original.buffer, original.byteOffset, 4).getUint32(0, true);
      if ((word & 0x0fff0000) !== 0x092d0000) throw new Error(`${name} does not start with a push`);
      out.set(s.address, { name, original, result: { kind: 'emulate', code: ArmEmulation.PUSHM, word } });
    }
  }
  return out;
}

interface Outcome {
  readonly output: string;
  readonly instructions: number;
  readonly retired: readonly number[];
  readonly now: number;
  /** Each trap as `cpu:function`, in the order taken. */
  readonly traps: readonly string[];
  readonly stops: number;
  readonly thrown: number;
}

/**
 * Runs SCRIPT on a 2-CPU ARM machine with breakpoints on the entries of
 * `names`, handled inside the run (`inRun`) or as trap stops; the handler
 * asks the machine to stop at every `stopEvery`th trap and throws at the
 * `throwAt`th (once).
 */
async function traced(inRun: boolean, options: { thumb?: boolean; stopEvery?: number; throwAt?: number } = {}): Promise<Outcome> {
  const { machine: m, output } = await guestMachine('arm', { cmdline: 'quiet', cpus: 2, thumb: options.thumb, args: ['/bin/sh', '-c', SCRIPT] });
  if (!inRun) m.port.setTrapHandler!(undefined);
  const sites = pushEntries(m, ['sys_write', 'sys_read', 'vfs_write', 'vfs_read', 'schedule']);
  for (const [at, site] of sites) {
    m.writeText(at, m.thumb ? Uint8Array.of(DTRACE_BREAKPOINT_T16 & 0xff, DTRACE_BREAKPOINT_T16 >>> 8) : bytesOf((DTRACE_BREAKPOINT | (site.result.kind === 'emulate' ? site.result.word! >>> 28 : 0)) >>> 0));
  }
  const traps: string[] = [];
  let thrown = 0;
  m.addInvopHandler((trap: Trap) => {
    const site = sites.get(trap.pc);
    if (!site) return undefined;
    traps.push(`${trap.cpu}:${site.name}`);
    if (options.throwAt !== undefined && traps.length === options.throwAt && thrown === 0) {
      thrown++;
      traps.pop();
      throw new Error('the handler failed');
    }
    if (options.stopEvery !== undefined && traps.length % options.stopEvery === 0) m.stop();
    return site.result;
  });
  let stops = 0;
  for (;;) {
    let r;
    try {
      r = m.run(LIMIT);
    } catch (e) {
      expect((e as Error).message).toBe('the handler failed');
      continue;
    }
    if (r.kind === 'stopped') {
      stops++;
      continue;
    }
    expect(r).toEqual({ kind: 'poweroff', status: 0 });
    break;
  }
  return { output: output(), instructions: m.instructions, retired: [m.retired(0), m.retired(1)], now: m.now(), traps, stops, thrown };
}

const bytesOf = (w: number): Uint8Array => Uint8Array.of(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);

describe('arm machine: traps taken inside the run', () => {
  it('two CPUs run the same instructions to the same time, taking the same traps in the same order, as with trap stops', async () => {
    const inRun = await traced(true);
    const stops = await traced(false);
    expect(inRun.output).toContain('six\n');
    expect(inRun.traps.filter((t) => t.startsWith('0:')).length).toBeGreaterThan(0);
    expect(inRun.traps.filter((t) => t.startsWith('1:')).length).toBeGreaterThan(0);
    expect(inRun).toEqual(stops);
  });

  it('a handler that stops the run now and then: each run returns stopped and the next goes on, as with trap stops', async () => {
    const inRun = await traced(true, { stopEvery: 5 });
    const stops = await traced(false, { stopEvery: 5 });
    expect(inRun.stops).toBeGreaterThan(3);
    expect(inRun).toEqual(stops);
    // Stopping changes nothing the guest does.
    const plain = await traced(true);
    expect(inRun.output).toBe(plain.output);
    expect(inRun.traps).toEqual(plain.traps);
  });

  it('a handler that throws: the run throws, and the next takes the same trap again, as with trap stops', async () => {
    const inRun = await traced(true, { throwAt: 25 });
    const stops = await traced(false, { throwAt: 25 });
    expect(inRun.thrown).toBe(1);
    expect(inRun).toEqual(stops);
    expect(inRun.traps.length).toBe((await traced(true)).traps.length);
  });

  it('the Thumb-2 guest likewise', async () => {
    const inRun = await traced(true, { thumb: true });
    const stops = await traced(false, { thumb: true });
    expect(inRun.traps.length).toBeGreaterThan(0);
    expect(inRun).toEqual(stops);
  });
});
