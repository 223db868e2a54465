// VFPv3-D16 in both instruction sets: execution against qemu-arm (recorded
// single-instruction vectors always, a fresh batch when qemu-arm and clang
// are installed), the CPACR/FPEXC gate, and the describers against
// llvm-objdump.
import { readFileSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createArmCore, describeA32, describeT32, itStateAfter, StopReason, VfpWord, type ArmCoreExports } from '../src/index.js';
// @ts-expect-error plain .mjs helpers without types
import { makeVfpCase, runVfpOnQemu, replayVfpCase, vfpDifferences, VFP_SEEDS, VFP_DATA_BASE } from '../scripts/vfp-cases.mjs';
// @ts-expect-error plain .mjs helpers without types
import { BUFFER_SIZE } from '../scripts/diff-cases.mjs';
// @ts-expect-error plain .mjs helpers without types
import { haveQemu } from '../scripts/qemu-diff.mjs';

interface Expected { regs: number[]; apsr: number; fp: number[]; fpscr: number; bufferHash: number }
interface VfpCase { seed: number; word: number; thumb: boolean; regs: number[]; fp: number[]; expected?: Expected }

const textOf = (k: VfpCase): string => (k.thumb ? describeT32(((0xe << 28) | k.word) >>> 0) : describeA32(k.word)).text;

function loadVectors(): { k: VfpCase; index: number }[] {
  const bytes = gunzipSync(readFileSync(new URL('./vectors/vfp-qemu.bin.gz', import.meta.url)));
  expect(bytes.toString('latin1', 0, 4)).toBe('VFPX');
  const count = bytes.readUInt32LE(4);
  const out = [];
  let at = 8;
  const next = (): number => {
    const v = bytes.readUInt32LE(at);
    at += 4;
    return v;
  };
  for (let i = 0; i < count; i++) {
    const seed = bytes.readUInt32LE(at);
    const thumb = (bytes.readUInt16LE(at + 4) & 1) === 1;
    const index = bytes.readUInt16LE(at + 6);
    const regMask = bytes.readUInt16LE(at + 8);
    const fpMask = bytes.readUInt32LE(at + 10);
    at += 14;
    const k = makeVfpCase(seed, VFP_DATA_BASE + index * BUFFER_SIZE, thumb) as VfpCase;
    const regs = k.regs.map((v, r) => (regMask & (1 << r) ? next() : v));
    const apsr = next();
    const fp = k.fp.map((v, r) => ((fpMask >>> r) & 1 ? next() : v));
    const fpscr = next();
    const bufferHash = next();
    k.expected = { regs, apsr, fp, fpscr, bufferHash };
    out.push({ k, index });
  }
  return out;
}

async function replayCore(): Promise<ArmCoreExports> {
  const core = await createArmCore('release');
  expect(core.init(1, 8 << 20)).toBe(0);
  core.setStopMask(0, 0x3fe);
  return core;
}

describe('VFP execution agrees with qemu-arm', () => {
  it('on >= 12,000 recorded single-instruction cases, A32 and T32, every encoding', async () => {
    const vectors = loadVectors();
    expect(vectors.length).toBeGreaterThanOrEqual(12000);
    expect(vectors.filter((v) => v.k.thumb).length).toBeGreaterThanOrEqual(6000);
    const core = await replayCore();
    const failures: string[] = [];
    const encodings = new Set<string>();
    for (const { k, index } of vectors) {
      expect(k.seed - (k.thumb ? VFP_SEEDS.t32 : VFP_SEEDS.a32)).toBeLessThan(100000);
      encodings.add((k.thumb ? describeT32(((0xe << 28) | k.word) >>> 0) : describeA32(k.word)).encoding.replace(/_T1$/, ''));
      const diff = vfpDifferences(k.expected, replayVfpCase(core, k, VFP_DATA_BASE + index * BUFFER_SIZE));
      if (diff.length && failures.length < 20) failures.push(`${k.thumb ? 'T32' : 'A32'} ${k.word.toString(16)} ${textOf(k)}: ${diff.join('; ')}`);
    }
    expect(failures).toEqual([]);
    expect(encodings.size).toBe(33); // every VFP line of a32.decode and t32.decode
  }, 120_000);

  it.runIf(haveQemu())('on a fresh random batch run under qemu-arm now', async () => {
    const first = (Date.now() & 0x3fffffff) | 1;
    const core = await replayCore();
    const failures: string[] = [];
    for (const thumb of [false, true]) {
      const cases = Array.from({ length: 1000 }, (_, i) => makeVfpCase(first + i, VFP_DATA_BASE + i * BUFFER_SIZE, thumb));
      (runVfpOnQemu(cases, VFP_DATA_BASE) as VfpCase[]).forEach((k, i) => {
        const diff = vfpDifferences(k.expected, replayVfpCase(core, k, VFP_DATA_BASE + i * BUFFER_SIZE));
        if (diff.length && failures.length < 20) failures.push(`seed ${k.seed} ${k.word.toString(16)} ${textOf(k)}: ${diff.join('; ')}`);
      });
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('VFP access control (CPACR cp10/cp11 and FPEXC.EN)', () => {
  /** Runs the A32 words at 0x1000 in `mode` with CPACR and FPEXC set; returns the stop and r0. */
  async function run(words: number[], mode: number, cpacr: number, fpexc: number): Promise<{ stop: number; r0: number; fpexc: number; pc: number }> {
    const core = await replayCore();
    const view = new DataView(core.memory.buffer, core.ramOffset(), core.ramBytes());
    [...words, 0xe7f001f0].forEach((w, i) => view.setUint32(0x1000 + i * 4, w, true));
    core.invalidateCodeRange(0x1000, words.length * 4 + 4);
    core.setCpsr(0, mode | 0xc0);
    core.setReg(0, 0, 0x12345678);
    core.setReg(0, 15, 0x1000);
    core.setVfpWord(0, VfpWord.CPACR, cpacr);
    core.setVfpWord(0, VfpWord.FPEXC, fpexc);
    const stop = core.run(0, words.length);
    return { stop, r0: core.getReg(0, 0) >>> 0, fpexc: core.getVfpWord(0, VfpWord.FPEXC) >>> 0, pc: core.stopPc(0) >>> 0 };
  }
  const VADD = 0xee300a00; // vadd.f32 s0, s0, s0
  const VMRS_FPEXC = 0xeef80a10; // vmrs r0, fpexc
  const VMSR_FPEXC = 0xeee80a10; // vmsr fpexc, r0
  const VMRS_MVFR0 = 0xeef70a10; // vmrs r0, mvfr0
  const MCR_CPACR = 0xee010f50; // mcr p15, 0, r0, c1, c0, 2

  it('is undefined until CPACR grants access and FPEXC.EN is set', async () => {
    expect((await run([VADD], 0x13, 0, 0x40000000)).stop).toBe(StopReason.UNDEFINED);
    expect((await run([VADD], 0x13, 0x00f00000, 0)).stop).toBe(StopReason.UNDEFINED);
    expect((await run([VADD], 0x13, 0x00f00000, 0x40000000)).stop).toBe(StopReason.BUDGET);
    // 01: privileged access only
    expect((await run([VADD], 0x10, 0x00500000, 0x40000000)).stop).toBe(StopReason.UNDEFINED);
    expect((await run([VADD], 0x13, 0x00500000, 0x40000000)).stop).toBe(StopReason.BUDGET);
  });

  it('lets PL1 read and write FPEXC while EN is clear, never User mode', async () => {
    const on = await run([VMSR_FPEXC], 0x13, 0x00f00000, 0);
    expect(on.stop).toBe(StopReason.BUDGET);
    expect(on.fpexc).toBe(0x40000000 & 0x12345678);
    expect((await run([VMRS_FPEXC], 0x10, 0x00f00000, 0x40000000)).stop).toBe(StopReason.UNDEFINED);
    expect((await run([VMRS_MVFR0], 0x10, 0x00f00000, 0x40000000)).stop).toBe(StopReason.UNDEFINED);
    const mvfr0 = await run([VMRS_MVFR0], 0x13, 0x00f00000, 0);
    expect(mvfr0.r0).toBe(0x10110221); // 16 doubles, single and double, divide, sqrt
  });

  it('keeps only the cp10/cp11 fields of CPACR', async () => {
    const core = await replayCore();
    const view = new DataView(core.memory.buffer, core.ramOffset(), core.ramBytes());
    view.setUint32(0x1000, MCR_CPACR, true);
    core.invalidateCodeRange(0x1000, 4);
    core.setCpsr(0, 0xd3);
    core.setReg(0, 0, 0xffffffff);
    core.setReg(0, 15, 0x1000);
    expect(core.run(0, 1)).toBe(StopReason.BUDGET);
    expect(core.getVfpWord(0, VfpWord.CPACR) >>> 0).toBe(0x00f00000);
  });
});

function haveLlvmMc(): boolean {
  try {
    execFileSync('llvm-mc', ['--version'], { stdio: 'ignore' });
    execFileSync('llvm-objdump', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Every VFPv3-D16 form, as an assembler listing. */
const LISTING = `
vldr d7, [r1, #8]
vldr s3, [r1, #-8]
vstr d7, [sp]
vstr s31, [r12, #1020]
vldr d1, [pc, #16]
vpush {d8, d9}
vpop {d8}
vpush {s16-s19}
vstmia r3!, {d7}
vldmia r1, {d0, d1, d2}
vldmdb r0!, {s2, s3}
vstmdb r4!, {d0-d15}
fldmiax r0!, {d0, d1}
vmov r2, s0
vmov s31, lr
vmov r2, r3, d8
vmov d15, r2, r3
vmov r0, r1, s30, s31
vmov s0, s1, r0, r1
vmrs APSR_nzcv, fpscr
vmrs r3, fpscr
vmsr fpscr, r3
vmrs r0, fpexc
vmsr fpexc, r0
vmrs r0, fpsid
vmrs r0, mvfr0
vmrs r0, mvfr1
vmov.32 d0[1], r0
vmov.32 r0, d3[0]
vmla.f32 s0, s1, s2
vmls.f64 d0, d1, d2
vnmla.f64 d0, d1, d2
vnmls.f32 s20, s21, s22
vmul.f64 d0, d1, d2
vnmul.f32 s0, s1, s2
vadd.f64 d7, d7, d6
vsub.f32 s9, s10, s31
vdiv.f64 d0, d1, d2
vmov.f64 d0, #5.000000e-01
vmov.f32 s0, #-1.0
vmov.f64 d3, #31.0
vmov.f32 s1, #0.125
vmov.f64 d6, d7
vmov.f32 s6, s7
vabs.f64 d0, d1
vneg.f32 s0, s1
vsqrt.f64 d0, d0
vcmp.f64 d7, d6
vcmpe.f32 s0, s1
vcmpe.f64 d0, #0
vcmp.f32 s0, #0
vcvt.f64.f32 d0, s0
vcvt.f32.f64 s0, d0
vcvt.s32.f64 s0, d0
vcvtr.s32.f64 s0, d0
vcvt.u32.f32 s0, s1
vcvtr.u32.f32 s0, s1
vcvt.f64.s32 d0, s0
vcvt.f64.u32 d0, s0
vcvt.f32.s32 s0, s0
vcvt.s32.f64 d0, d0, #16
vcvt.s16.f32 s0, s0, #8
vcvt.f64.u32 d1, d1, #3
vcvt.f32.u16 s2, s2, #1
`;

describe('VFP disassembly agrees with llvm-objdump', () => {
  it.each([
    ['A32', 'armv7a', '.arm'],
    ['T32', 'thumbv7a', '.thumb'],
  ])('%s: every VFPv3-D16 form', (name, triple, directive) => {
    if (!haveLlvmMc()) return;
    const dir = mkdtempSync(join(tmpdir(), 'arm-vfp-dis-'));
    try {
      const conditional = name === 'A32' ? '\nvaddgt.f64 d7, d7, d6\nvldmiale r1, {d0, d1}\nvmrsne APSR_nzcv, fpscr\nvcvtrmi.s32.f64 s0, d0\n' : '\nitt gt\nvaddgt.f64 d7, d7, d6\nvmovgt.32 r0, d1[1]\n';
      writeFileSync(join(dir, 'v.s'), `.syntax unified\n${directive}\n${LISTING}${conditional}`);
      execFileSync('llvm-mc', [`-triple=${triple}`, '-mattr=+vfp3d16', '-filetype=obj', join(dir, 'v.s'), '-o', join(dir, 'v.o')]);
      const listing = execFileSync('llvm-objdump', ['-d', `--triple=${triple}`, join(dir, 'v.o')]).toString();
      const mismatches: string[] = [];
      let count = 0;
      let it = 0;
      for (const line of listing.split('\n')) {
        const m = /^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(.*)$/.exec(line);
        if (!m) continue;
        const b = m[2]!.trim().split(' ').map((x) => parseInt(x, 16));
        const address = parseInt(m[1]!, 16);
        const expected = m[3]!.replace(/\s+@.*$/, '').replace(/\s+/g, ' ').trim();
        let text: string;
        if (name === 'A32') text = describeA32((b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0, address).text;
        else {
          const value = b.length === 2 ? b[0]! | (b[1]! << 8) : (((b[0]! | (b[1]! << 8)) << 16) | b[2]! | (b[3]! << 8)) >>> 0;
          const d = describeT32(value, address, it);
          it = itStateAfter(d, it);
          text = d.text;
        }
        count++;
        if (text.replace(/\s+/g, ' ') !== expected) mismatches.push(`${m[2]!.trim()}: ${text} != ${expected}`);
      }
      expect(mismatches).toEqual([]);
      expect(count).toBeGreaterThan(60);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
