// Differential execution tests: every recorded case (random instruction from
// the executed opcode forms, run natively on the host CPU by
// scripts/gen-exec-vectors.mjs) replayed on the core, comparing all 16
// registers, the flags the SDM defines for it, the #DE fault, and the data
// block. With llvm-mc and clang installed, a fresh random batch is generated
// and checked too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bareCore } from './core-harness.js';
// @ts-expect-error plain JavaScript module shared with the generator script
import { decodeCases, initialState, DATA_ADDR, DATA_SIZE, CODE_ADDR } from './exec-case.mjs';

interface Case { seed: number; kind: number; code: Uint8Array; fault: number; flagMask: number; flags: number; regs: (bigint | undefined)[]; mem: [number, bigint][] }

const STOP_HALT = 1;
const STOP_EXCEPTION = 2;

/**
 * `cold`: each case decoded afresh (its code was just written); `warm`: each
 * case runs twice and the second run, from the decoded-instruction cache
 * through the run loop's straight-line path (lazy flags included), is
 * compared; `off`: the cache is off.
 */
async function replay(cases: Case[], mode: 'cold' | 'warm' | 'off' = 'cold'): Promise<string[]> {
  const m = await bareCore(32 << 20, 'release');
  m.core.setCodeCache(mode !== 'off');
  const failures: string[] = [];
  for (const c of cases) {
    const st = initialState(c.seed, c.kind === 1 ? 'string' : 'plain');
    const ram = m.ram();
    const regs = m.regs();
    m.poke(CODE_ADDR, [...c.code, 0xf4]); // the case, then hlt
    let stop = 0;
    for (let pass = mode === 'warm' ? 2 : 1; pass > 0; pass--) {
      ram.set(st.data, DATA_ADDR); // data only: the code bytes stay, and so do their cached decodes
      st.regs.forEach((v: bigint, i: number) => { regs[i] = BigInt.asUintN(64, v); });
      m.core.wake();
      m.setRip(BigInt(CODE_ADDR));
      m.core.setFlagsValue(st.flags | 0x200); // IF is always set in the native user-mode run
      stop = m.core.run(100000);
    }
    const hex = Buffer.from(c.code).toString('hex');
    const problems: string[] = [];
    if (c.fault) {
      if (stop !== STOP_EXCEPTION || m.core.stopVector() !== (c.fault & 0x7f)) problems.push(`expected fault ${c.fault & 0x7f}, got stop ${stop} vector ${m.core.stopVector()}`);
    } else if (stop !== STOP_HALT) problems.push(`stop ${stop} vector ${m.core.stopVector()} at ${m.rip().toString(16)}`);
    else {
      for (let i = 0; i < 16; i++) {
        const want = c.regs[i] ?? BigInt.asUintN(64, st.regs[i]);
        if (regs[i] !== want) problems.push(`r${i}=${regs[i]!.toString(16)} want ${want.toString(16)}`);
      }
      const f = m.core.getFlags();
      if ((f & c.flagMask) !== (c.flags & c.flagMask)) problems.push(`flags ${f.toString(16)} want ${c.flags.toString(16)} mask ${c.flagMask.toString(16)}`);
      const want = new Uint8Array(st.data);
      const dv = new DataView(want.buffer);
      for (const [q, v] of c.mem) dv.setBigUint64(q * 8, v, true);
      const got = ram.subarray(DATA_ADDR, DATA_ADDR + DATA_SIZE);
      for (let q = 0; q < DATA_SIZE; q += 8) {
        const g = new DataView(got.buffer, got.byteOffset + q, 8).getBigUint64(0, true);
        const w = dv.getBigUint64(q, true);
        if (g !== w) { problems.push(`mem+${q.toString(16)}=${g.toString(16)} want ${w.toString(16)}`); break; }
      }
    }
    if (problems.length) failures.push(`seed ${c.seed} [${hex}]: ${problems.join('; ')}`);
  }
  return failures;
}

function hasOracle(): boolean {
  try { execFileSync('llvm-mc', ['--version'], { stdio: 'ignore' }); execFileSync('clang', ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}

describe('differential execution vs. the host CPU', () => {
  const cases = decodeCases(gunzipSync(readFileSync(new URL('./vectors/exec.bin.gz', import.meta.url)))) as Case[];

  it('has at least 20,000 recorded cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20000);
  });

  it('replays every recorded case exactly', async () => {
    const failures = await replay(cases);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);

  it('replays every recorded case exactly from a warm decoded-instruction cache', async () => {
    const failures = await replay(cases, 'warm');
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);

  // every instruction decoded afresh: handlers read the scratch record, not a cache record
  it('replays every recorded case exactly with the decoded-instruction cache off', async () => {
    const failures = await replay(cases, 'off');
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);

  it.runIf(hasOracle())('agrees on a fresh random batch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'x86-fresh-'));
    const out = join(dir, 'fresh.bin.gz');
    const seed = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
    execFileSync('node', [new URL('../scripts/gen-exec-vectors.mjs', import.meta.url).pathname, '2000', String(seed), out]);
    const fresh = decodeCases(gunzipSync(readFileSync(out))) as Case[];
    const failures = await replay(fresh);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);
});
