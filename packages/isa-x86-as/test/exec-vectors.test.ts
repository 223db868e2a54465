// Differential execution tests: every recorded case (random instruction from
// the executed opcode forms, run natively on the host CPU by
// scripts/gen-exec-vectors.mjs) replayed on the core, comparing all 16
// registers, the flags the SDM defines for it, the #DE, #MF or #XM fault, and the
// data block (for x87 cases it holds an FXSAVE image of the whole FPU and SSE
// state). Results of the transcendental instructions may differ from the
// host's in the last bit. With llvm-mc and clang installed, a fresh random
// batch is generated and checked too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bareCore } from './core-harness.js';
// @ts-expect-error plain JavaScript module shared with the generator script
import { decodeCases, initialState, fpuPrologue, KINDS, DATA_ADDR, DATA_SIZE, CODE_ADDR } from './exec-case.mjs';

interface Case { seed: number; kind: number; code: Uint8Array; fault: number; flagMask: number; flags: number; regs: (bigint | undefined)[]; mem: [number, bigint][] }

const STOP_HALT = 1;
const STOP_EXCEPTION = 2;
const PROLOGUE_ADDR = CODE_ADDR + 0x800;
/** Results of the transcendental cases ('fpu-approx'): two 80-bit values and the status word, below rbx. */
const APPROX_VALUES = [DATA_ADDR + 0x100, DATA_ADDR + 0x110];
const APPROX_STATUS = DATA_ADDR + 0x120;

/** Whether two 80-bit values (little-endian bytes) are at most one unit in the last place apart. */
function withinUlp(a: Uint8Array, b: Uint8Array): boolean {
  const v = (x: Uint8Array) => {
    const dv = new DataView(x.buffer, x.byteOffset, 10);
    const se = dv.getUint16(8, true);
    // the value's position on the number line of its sign: exponent and significand as one integer
    return { sign: se >> 15, mag: (BigInt(se & 0x7fff) << 63n) | (dv.getBigUint64(0, true) & 0x7fffffffffffffffn) };
  };
  const x = v(a), y = v(b);
  if (x.sign !== y.sign) return x.mag === 0n && y.mag === 0n;
  const d = x.mag - y.mag;
  return d >= -1n && d <= 1n;
}

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
  // SSE exceptions enabled as Linux does (CR4.OSFXSR, OSXMMEXCPT): an unmasked one is #XM, as natively
  m.core.setControlRegister(4, 0x600, 0);
  m.poke(PROLOGUE_ADDR, fpuPrologue());
  for (const c of cases) {
    const kind = KINDS[c.kind];
    const st = initialState(c.seed, kind);
    const ram = m.ram();
    const regs = m.regs();
    m.poke(CODE_ADDR, [...c.code, 0xf4]); // the case, then hlt
    let stop = 0;
    for (let pass = mode === 'warm' ? 2 : 1; pass > 0; pass--) {
      // the FPU and SSE state every case starts from, as the native harness sets it
      m.core.wake();
      m.setRip(BigInt(PROLOGUE_ADDR));
      if (m.core.run(1000) !== STOP_HALT) throw new Error('the FPU prologue did not reach its hlt');
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
      if (kind === 'fpu-approx') {
        for (const at of APPROX_VALUES) {
          const o = at - DATA_ADDR;
          if (!withinUlp(got.subarray(o, o + 10), want.subarray(o, o + 10))) problems.push(`80-bit result at +${o.toString(16)} ${hex10(got, o)} want ${hex10(want, o)} (within an ulp)`);
          // the result's last bit may differ: so may C1 (rounded up)
          got.set(want.subarray(o, o + 10), o);
        }
        const sw = APPROX_STATUS - DATA_ADDR;
        if (((got[sw + 1]! ^ want[sw + 1]!) & ~0x02) !== 0 || got[sw] !== want[sw]) problems.push(`status word ${hex10(got, sw)} want ${hex10(want, sw)} (C1 aside)`);
        got.set(want.subarray(sw, sw + 2), sw);
      }
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

function hex10(b: Uint8Array, o: number): string {
  return [...b.subarray(o, o + 10)].reverse().map((x) => x.toString(16).padStart(2, '0')).join('');
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
