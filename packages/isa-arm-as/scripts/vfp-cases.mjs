// Random single-instruction VFP cases (A32 and T32) for the differential
// tests against qemu-arm, and their replay on the core. A case is a pure
// function of its seed: the instruction (any VFPv3-D16 form of the A7
// encoding groups, d0-d15 only), r0-r12, APSR, s0-s31, FPSCR and a 256-byte
// buffer that base registers point into. Recorded by
// scripts/make-vfp-vectors.mjs, replayed by test/vfp.test.ts.
//
// What the comparison leaves out, as the core does not model it: the
// inexact and underflow cumulative flags (FPSCR.IXC, UFC), and directed
// rounding of arithmetic (cases run arithmetic and precision conversions
// with FPSCR.RMode = round to nearest; the conversions to integer, which
// the core rounds in every mode, get any RMode).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUFFER_SIZE, prng, value, fnv1a } from './diff-cases.mjs';

/** First seed of each instruction set's cases, and where case i's buffer sits (VFP_DATA_BASE + i * BUFFER_SIZE). */
export const VFP_SEEDS = { a32: 0x30001, t32: 0x40001 };
export const VFP_DATA_BASE = 0x400000;

/** FPSCR bits compared: all but IXC and UFC. */
export const FPSCR_COMPARED = 0xffffffe7;
/** Bytes per case in the harness's init and out areas: r0-r12, APSR, s0-s31, FPSCR. */
const RECORD = 188;

const F32_EDGES = [0, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0xff812345,
  0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x4f000000, 0xcf000000, 0x4f800000, 0x3f000000, 0x3fc00000, 0x40200000, 0x47000000];
const F64_EDGES = [0n, 0x8000000000000000n, 0x3ff0000000000000n, 0xbff0000000000000n, 0x7ff0000000000000n, 0xfff0000000000000n,
  0x7ff8000000000000n, 0xfff8000000000123n, 0x7ff0000000000001n, 0xfff4000000000000n, 0x0000000000000001n, 0x800fffffffffffffn,
  0x0010000000000000n, 0x7fefffffffffffffn, 0x41e0000000000000n, 0xc1e0000000000000n, 0x41efffffffe00000n, 0x41f0000000000000n,
  0x3fe0000000000000n, 0x3ff8000000000000n, 0x4004000000000000n, 0xc004000000000000n, 0x40e0000000000000n, 0x3810000000000000n];

/** A random double as two words: an edge value, a "nice" number or any bits. */
function doubleWords(rnd) {
  const k = rnd() % 8;
  let bits;
  if (k < 3) bits = F64_EDGES[rnd() % F64_EDGES.length];
  else if (k < 6) {
    const view = new DataView(new ArrayBuffer(8));
    const scale = [1, 1e-3, 1e3, 1e9, 1e-300, 1e300][rnd() % 6];
    view.setFloat64(0, ((rnd() | 0) / 0x10000) * scale);
    bits = view.getBigUint64(0);
  } else bits = (BigInt(rnd()) << 32n) | BigInt(rnd());
  return [Number(bits & 0xffffffffn), Number(bits >> 32n)];
}
function singleWord(rnd) {
  const k = rnd() % 8;
  if (k < 3) return F32_EDGES[rnd() % F32_EDGES.length];
  if (k < 6) {
    const view = new DataView(new ArrayBuffer(4));
    view.setFloat32(0, ((rnd() | 0) / 0x10000) * [1, 1e-3, 1e3, 1e-40][rnd() % 4]);
    return view.getUint32(0);
  }
  return rnd();
}

/** The VFP encodings (bits 27:0; A32 adds the condition, T32 the 1110 prefix) and how to fill their fields. */
const FORMS = [
  // three registers: VMLA VMLS VNMLS VNMLA VMUL VNMUL VADD VSUB VDIV
  ...[[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1], [8, 0]].map(([opc, op]) => ({ kind: 'arith', word: 0x0e000a00 | (opc << 20) | (op << 6) })),
  { kind: 'arith', word: 0x0eb00a40 }, // VMOV reg
  { kind: 'arith', word: 0x0eb00ac0 }, // VABS
  { kind: 'arith', word: 0x0eb10a40 }, // VNEG
  { kind: 'arith', word: 0x0eb10ac0 }, // VSQRT
  { kind: 'cmp', word: 0x0eb40a40 }, // VCMP/VCMPE
  { kind: 'cmpz', word: 0x0eb50a40 },
  { kind: 'imm', word: 0x0eb00a00 },
  { kind: 'ds', word: 0x0eb70ac0 },
  { kind: 'fromint', word: 0x0eb80a40 },
  { kind: 'toint', word: 0x0ebc0a40 },
  { kind: 'fixed', word: 0x0eba0a40 },
  { kind: 'ldst', word: 0x0d000a00 },
  { kind: 'ldm', word: 0x0c000a00 },
  { kind: 'mov_s', word: 0x0e000a10 },
  { kind: 'mov_2', word: 0x0c400a10 },
  { kind: 'scalar', word: 0x0e000b10 },
  { kind: 'fpscr', word: 0x0ee10a10 },
];

/** Builds one case: { word (bits 27:0 plus cond for A32), regs, apsr, fp (32 words), fpscr, buffer }. */
export function makeVfpCase(seed, bufferAddress, thumb) {
  const rnd = prng(seed * 2654435761 + 0x5f3);
  const regs = Array.from({ length: 13 }, () => value(rnd) >>> 0);
  const fp = [];
  for (let i = 0; i < 16; i++) {
    if (rnd() % 2) fp.push(...doubleWords(rnd));
    else fp.push(singleWord(rnd), singleWord(rnd));
  }
  const buffer = new Uint8Array(BUFFER_SIZE);
  for (let i = 0; i < BUFFER_SIZE; i += 4) {
    const [lo, hi] = doubleWords(rnd);
    new DataView(buffer.buffer).setUint32(i, (i & 4) ? hi : lo, true);
  }
  const apsr = (rnd() & 0xf8000000) >>> 0;
  const form = FORMS[rnd() % FORMS.length];
  let w = form.word;
  const dp = rnd() & 1;
  const v4 = () => rnd() & 15;
  const bit = () => rnd() & 1;
  const R = () => rnd() % 13;
  // Register fields: Vd 15:12 + D 22, Vn 19:16 + N 7, Vm 3:0 + M 5; doubles keep D/N/M clear (D16)
  const regD = () => (v4() << 12) | (dp ? 0 : bit() << 22);
  const regN = () => (v4() << 16) | (dp ? 0 : bit() << 7);
  const regM = () => v4() | (dp ? 0 : bit() << 5);
  let rmode = 0;
  switch (form.kind) {
    case 'arith': w |= (dp << 8) | regD() | regM() | ((form.word & 0x00800000) === 0 || (form.word & 0x00300000) === 0 ? regN() : 0); break;
    case 'cmp': w |= (dp << 8) | (bit() << 7) | regD() | regM(); break;
    case 'cmpz': w |= (dp << 8) | (bit() << 7) | regD(); break;
    case 'imm': w |= (dp << 8) | regD() | (v4() << 16) | v4(); break;
    case 'ds': w |= (dp << 8) | (v4() << 12) | (dp ? bit() << 22 : 0) | v4() | (dp ? 0 : bit() << 5); break;
    case 'fromint': w |= (dp << 8) | (bit() << 7) | regD() | v4() | (bit() << 5); break;
    case 'toint': w |= (dp << 8) | (bit() << 7) | (bit() << 16) | (v4() << 12) | (bit() << 22) | regM(); rmode = rnd() & 3; break;
    case 'fixed': {
      const sx = bit();
      const size = sx ? 32 : 16;
      const v = rnd() % Math.min(size + 1, 32); // imm4:i, 5 bits
      w |= (dp << 8) | (bit() << 18) | (bit() << 16) | regD() | (sx << 7) | ((v & 1) << 5) | (v >> 1);
      break;
    }
    case 'ldst': {
      const rn = R();
      regs[rn] = bufferAddress + 128;
      w |= (dp << 8) | regD() | (rn << 16) | (bit() << 23) | (bit() << 20) | (rnd() % 16);
      break;
    }
    case 'ldm': {
      const rn = R();
      regs[rn] = bufferAddress + 128;
      const first = dp ? v4() : rnd() % 32;
      const count = 1 + (rnd() % Math.min(dp ? 16 - first : 32 - first, 12));
      const db = bit();
      const wback = db ? 1 : bit();
      w |= (dp << 8) | (db ? 1 << 24 : 1 << 23) | (wback << 21) | (bit() << 20) | (rn << 16);
      w |= dp ? ((first & 15) << 12) | (count * 2) : ((first >> 1) << 12) | ((first & 1) << 22) | count;
      break;
    }
    case 'mov_s': w |= (bit() << 20) | (R() << 12) | (v4() << 16) | (bit() << 7); break;
    case 'mov_2': {
      const rt = R();
      let rt2 = R();
      while (rt2 === rt) rt2 = R();
      const m = dp ? v4() : rnd() % 31;
      w |= (dp << 8) | (bit() << 20) | (rt2 << 16) | (rt << 12) | (dp ? m : (m >> 1) | ((m & 1) << 5));
      break;
    }
    case 'scalar': w |= (bit() << 20) | (v4() << 16) | (R() << 12) | (bit() << 21); break;
    case 'fpscr': {
      // VMRS Rt / APSR_nzcv, or VMSR from Rt
      const read = bit();
      const rt = R();
      w = read ? 0x0ef10a10 | ((rnd() % 4 === 0 ? 15 : rt) << 12) : 0x0ee10a10 | (rt << 12);
      // only the bits a VFPv3-D16 FPSCR holds (no QC, AHP, LEN, STRIDE or trap enables)
      if (!read) regs[rt] = (regs[rt] & 0xf3c0009f) >>> 0;
      rmode = rnd() & 3;
      break;
    }
  }
  // FPSCR: NZCV, DN and the cumulative flags at random; FZ and RMode as above
  const fpscr = ((rnd() & 0xf000009f) | (bit() << 25) | (rmode << 22)) >>> 0;
  const cond = thumb ? 14 : rnd() % 4 === 0 ? rnd() % 14 : 14;
  const word = thumb ? w : ((cond << 28) | w) >>> 0;
  return { seed, word, thumb, regs, apsr, fp, fpscr, buffer };
}

/** The instruction's halfwords or word as assembler directives. */
const instructionLines = (k) =>
  k.thumb ? [`  .inst.w 0x${(((0xe << 28) | k.word) >>> 0).toString(16)}`] : [`  .inst 0x${k.word.toString(16)}`];

/** Runs cases on qemu-arm (one harness, every case after the other); returns them with `expected`. */
export function runVfpOnQemu(cases, dataBase) {
  const thumb = cases[0].thumb;
  const lines = ['.syntax unified', '.fpu vfpv3-d16', thumb ? '.thumb' : '.arm', '.text', '.global _start', ...(thumb ? ['.thumb_func'] : []), '_start:'];
  cases.forEach((k, i) => {
    lines.push(
      `  ldr r0, =init+${i * RECORD}`, '  mov sp, r0',
      '  ldr r1, [sp, #184]', '  vmsr fpscr, r1',
      '  add r1, sp, #56', '  vldmia r1, {d0-d15}',
      '  ldr r0, [sp, #52]', '  msr APSR_nzcvqg, r0',
      '  ldm sp, {r0-r12}',
      `  ldr sp, =out+${i * RECORD}`,
      ...instructionLines(k),
      '  stm sp, {r0-r12}', '  mrs r0, apsr', '  str r0, [sp, #52]',
      '  add r0, sp, #56', '  vstmia r0, {d0-d15}', '  vmrs r1, fpscr', '  str r1, [sp, #184]',
      '  b 1f', '  .ltorg', '1:',
    );
  });
  const n = cases.length;
  lines.push(
    '  mov r7, #4', '  mov r0, #1', '  ldr r1, =out', `  ldr r2, =${n * RECORD}`, '  svc #0',
    '  mov r7, #4', '  mov r0, #1', '  ldr r1, =bufs', `  ldr r2, =${n * BUFFER_SIZE}`, '  svc #0',
    '  mov r7, #1', '  mov r0, #0', '  svc #0', '  .ltorg',
    '.section .casedata, "aw"', 'bufs:',
  );
  for (const k of cases) lines.push(`  .byte ${[...k.buffer].join(',')}`);
  lines.push('init:');
  for (const k of cases) lines.push(`  .word ${[...k.regs, k.apsr, ...k.fp, k.fpscr].map((v) => '0x' + (v >>> 0).toString(16)).join(',')}`);
  lines.push('out:', `  .space ${n * RECORD}`);
  const dir = mkdtempSync(join(tmpdir(), 'arm-vfp-'));
  try {
    const src = join(dir, 'harness.s');
    const exe = join(dir, 'harness');
    writeFileSync(src, lines.join('\n') + '\n');
    execFileSync('clang', ['--target=armv7a-linux-gnueabihf', '-mfpu=vfpv3-d16', '-static', '-nostdlib', '-fuse-ld=lld',
      `-Wl,--section-start=.casedata=0x${dataBase.toString(16)}`, src, '-o', exe]);
    const stdout = execFileSync('qemu-arm', ['-cpu', 'cortex-a15', exe], { maxBuffer: 1 << 28 });
    const view = new DataView(stdout.buffer, stdout.byteOffset, stdout.byteLength);
    return cases.map((k, i) => {
      const at = i * RECORD;
      const regs = Array.from({ length: 13 }, (_, r) => view.getUint32(at + r * 4, true));
      const apsr = (view.getUint32(at + 52, true) & 0xf8000000) >>> 0;
      const fp = Array.from({ length: 32 }, (_, r) => view.getUint32(at + 56 + r * 4, true));
      const fpscr = view.getUint32(at + 184, true);
      const buffer = stdout.subarray(n * RECORD + i * BUFFER_SIZE, n * RECORD + (i + 1) * BUFFER_SIZE);
      return { ...k, expected: { regs, apsr, fp, fpscr, bufferHash: fnv1a(buffer) } };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const VFP_CODE_ADDRESS = 0x1000;

/** Runs one case on the core (one CPU, User mode, VFP enabled); returns the state in `expected`'s shape. */
export function replayVfpCase(core, k, bufferAddress) {
  const ram = new Uint8Array(core.memory.buffer, core.ramOffset(), core.ramBytes());
  const view = new DataView(core.memory.buffer, core.ramOffset(), core.ramBytes());
  if (k.thumb) {
    const v = ((0xe << 28) | k.word) >>> 0;
    view.setUint16(VFP_CODE_ADDRESS, v >>> 16, true);
    view.setUint16(VFP_CODE_ADDRESS + 2, v & 0xffff, true);
    view.setUint16(VFP_CODE_ADDRESS + 4, 0xde01, true);
  } else {
    view.setUint32(VFP_CODE_ADDRESS, k.word, true);
    view.setUint32(VFP_CODE_ADDRESS + 4, 0xe7f001f0, true);
  }
  core.invalidateCodeRange(VFP_CODE_ADDRESS, 8);
  ram.set(k.buffer, bufferAddress);
  core.setCpsr(0, (k.apsr | 0x10 | (k.thumb ? 0x20 : 0)) >>> 0);
  for (let r = 0; r < 13; r++) core.setReg(0, r, k.regs[r]);
  core.setReg(0, 13, 0);
  core.setReg(0, 14, 0);
  core.setReg(0, 15, VFP_CODE_ADDRESS);
  core.setVfpWord(0, 34, 0x00f00000); // CPACR: cp10 and cp11 full access
  core.setVfpWord(0, 33, 0x40000000); // FPEXC.EN
  core.setVfpWord(0, 32, k.fpscr);
  k.fp.forEach((v, i) => core.setVfpWord(0, i, v));
  const stop = core.run(0, 1);
  return {
    stop,
    regs: Array.from({ length: 13 }, (_, r) => core.getReg(0, r) >>> 0),
    apsr: (core.getCpsr(0) & 0xf8000000) >>> 0,
    fp: Array.from({ length: 32 }, (_, i) => core.getVfpWord(0, i) >>> 0),
    fpscr: core.getVfpWord(0, 32) >>> 0,
    bufferHash: fnv1a(ram.subarray(bufferAddress, bufferAddress + BUFFER_SIZE)),
  };
}

/** Differences between qemu's state and the core's, as readable strings. */
export function vfpDifferences(expected, actual) {
  const out = [];
  if (actual.stop !== 1) out.push(`stopped with reason ${actual.stop}`);
  for (let r = 0; r < 13; r++) if (expected.regs[r] !== actual.regs[r]) out.push(`r${r} 0x${actual.regs[r].toString(16)} != 0x${expected.regs[r].toString(16)}`);
  if (expected.apsr !== actual.apsr) out.push(`apsr 0x${actual.apsr.toString(16)} != 0x${expected.apsr.toString(16)}`);
  for (let i = 0; i < 32; i++) if (expected.fp[i] !== actual.fp[i]) out.push(`s${i} 0x${actual.fp[i].toString(16)} != 0x${expected.fp[i].toString(16)}`);
  if (((expected.fpscr ^ actual.fpscr) & FPSCR_COMPARED) !== 0) out.push(`fpscr 0x${actual.fpscr.toString(16)} != 0x${expected.fpscr.toString(16)}`);
  if (expected.bufferHash !== actual.bufferHash) out.push('memory differs');
  return out;
}
