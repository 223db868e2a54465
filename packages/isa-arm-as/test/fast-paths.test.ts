// The run loops' specialised forms (assembly/fast.ts: data processing,
// compares, multiplies, extends, ldr/str/ldrb/strb, branches executed inline
// from a pre-decoded record) against the generic handlers, for A32 and T32:
// the same instruction runs once through run() on one core and once through
// executeDisplaced / executeDisplacedT32 (which always call the instruction's
// exec_<NAME> handler) on another, from the same registers, flags and
// memory, with the MMU off, with alignment checking, and with the MMU on
// over pages of every permission (TLB warm, so the inline TLB-hit path is
// taken where it applies). Plus exact budgets and code-cache invalidation by
// inline stores.
import { describe, expect, it } from 'vitest';
import { ArmMode, createArmCore, StopReason, writeRam, type ArmCoreExports } from '../src/index.js';

const RAM = 256 << 10;
const CODE = 0x1000;
const BUF = 0x20000; // data the loads and stores use
const L1 = 0x30000;
const L2 = 0x34000;

/** xorshift32: reproducible operands. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

function words(core: ArmCoreExports, at: number, list: number[]): void {
  const bytes = new Uint8Array(list.length * 4);
  const view = new DataView(bytes.buffer);
  list.forEach((w, i) => view.setUint32(i * 4, w, true));
  writeRam(core, at, bytes);
}

const ram = (core: ArmCoreExports) => new Uint8Array(core.memory.buffer, core.ramOffset(), core.ramBytes());

type Mode = 'plain' | 'aligned' | 'mmu';

/**
 * A core set up for `mode`. With 'mmu': small pages over the first 256 KiB,
 * identity mapped, with access permissions cycling through privileged-only,
 * user read-only, full access and unmapped, the code page full access; the
 * TLB is warmed for every mapped page.
 */
async function makeCore(build: 'debug' | 'release', mode: Mode): Promise<ArmCoreExports> {
  const core = await createArmCore(build);
  expect(core.init(1, RAM)).toBe(0);
  if (mode === 'aligned') {
    // mrc SCTLR ; orr r2, #2 ; mcr SCTLR ; udf
    words(core, 0x100, [0xee112f10, 0xe3822002, 0xee012f10, 0xe7f001f0]);
    core.setReg(0, 15, 0x100);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
  }
  if (mode === 'mmu') {
    const l1 = new Uint32Array(4096);
    l1[0] = L2 | 1;
    writeRam(core, L1, new Uint8Array(l1.buffer));
    const l2 = new Uint32Array(256);
    for (let p = 0; p < RAM >> 12; p++) {
      const ap = [1, 2, 3, 0][p % 4]!;
      if (ap !== 0 || p === CODE >> 12 || p === 0) l2[p] = (p << 12) | ((p === CODE >> 12 || p === 0 ? 3 : ap) << 4) | 2;
    }
    writeRam(core, L2, new Uint8Array(l2.buffer));
    // mcr TTBR0, r0 ; mcr DACR, r1 ; mrc SCTLR, r2 ; orr r2, #1 ; mcr SCTLR, r2 ; isb ; udf
    words(core, 0x100, [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, 0xe7f001f0]);
    core.setReg(0, 0, L1);
    core.setReg(0, 1, 1); // domain 0: client
    core.setReg(0, 15, 0x100);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    for (let p = 0; p < RAM >> 12; p++) core.readVirtual(0, p << 12, 1);
  }
  return core;
}

/** A random instruction of the forms the run loop specialises (and near misses: r15 fields, writeback, flags). */
function randomWord(next: () => number): number {
  const r = () => {
    const v = next() % 16;
    return v === 15 && next() % 4 !== 0 ? next() % 15 : v; // r15 now and then
  };
  const cond = next() % 3 === 0 ? next() % 15 : 14;
  const c = cond << 28;
  switch (next() % 9) {
    case 0: // data processing, immediate
      return (c | (1 << 25) | ((next() % 16) << 21) | ((next() & 1) << 20) | (r() << 16) | (r() << 12) | (next() & 0xfff)) >>> 0;
    case 1: { // data processing, register shifted by an immediate
      const opc = next() % 16;
      const s = opc >= 8 && opc <= 11 ? 1 : next() & 1;
      const shift = next() % 2 === 0 ? 0 : next() & 0x7f;
      return (c | (opc << 21) | (s << 20) | (r() << 16) | (r() << 12) | (shift << 5) | r()) >>> 0;
    }
    case 2: // movw / movt
      return (c | 0x03000000 | ((next() & 1) << 22) | ((next() & 0xf) << 16) | (r() << 12) | (next() & 0xfff)) >>> 0;
    case 3: // mul / mla (rd, ra, rm, rn)
      return (c | ((next() & 1) << 21) | ((next() % 4 === 0 ? 1 : 0) << 20) | (r() << 16) | (r() << 12) | (r() << 8) | 0x90 | r()) >>> 0;
    case 4: // uxtb / uxth / sxtb / sxth with rotation
      return (c | [0x06ef0070, 0x06ff0070, 0x06af0070, 0x06bf0070][next() % 4]! | (r() << 12) | ((next() & 3) << 10) | r()) >>> 0;
    case 5: { // ldr/str/ldrb/strb, immediate offset (mostly offset addressing)
      const pw = next() % 4 === 0 ? next() % 4 : 2; // P:W, 2 = offset
      return (c | (2 << 25) | ((pw >> 1) << 24) | ((next() & 1) << 23) | ((next() & 1) << 22) | ((pw & 1) << 21) | ((next() & 1) << 20) | (r() << 16) | (r() << 12) | (next() & 0xfff)) >>> 0;
    }
    case 6: { // ldr/str/ldrb/strb, register offset
      const pw = next() % 4 === 0 ? next() % 4 : 2;
      const shift = next() % 2 === 0 ? 0 : next() & 0x7f;
      return (c | (3 << 25) | ((pw >> 1) << 24) | ((next() & 1) << 23) | ((next() & 1) << 22) | ((pw & 1) << 21) | ((next() & 1) << 20) | (r() << 16) | (r() << 12) | (shift << 5) | r()) >>> 0;
    }
    case 7: // b / bl
      return (c | (5 << 25) | ((next() & 1) << 24) | (next() & 0xffffff)) >>> 0;
    default: // bx
      return (c | 0x012fff10 | r()) >>> 0;
  }
}

/** A random T32 instruction of the forms the Thumb run loop specialises (halfword, or first << 16 | second). */
function randomThumb(next: () => number): number {
  const r = () => {
    const v = next() % 16;
    return v === 15 && next() % 4 !== 0 ? next() % 15 : v; // r15 now and then
  };
  const low = () => next() % 8;
  const imm12 = () => { const v = next() & 0xfff; return (((v >>> 11) & 1) << 26) | (((v >>> 8) & 7) << 12) | (v & 0xff); };
  switch (next() % 24) {
    case 0: return 0x2000 | ((next() % 4) << 11) | (low() << 8) | (next() & 0xff); // movs/cmp/adds/subs imm8
    case 1: return 0x1800 | ((next() % 4) << 9) | (low() << 6) | (low() << 3) | low(); // adds/subs reg, imm3
    case 2: return 0x4000 | ([0, 1, 8, 10, 11, 12, 14, 15][next() % 8]! << 6) | (low() << 3) | low(); // and eor tst cmp cmn orr bic mvn
    case 3: return ((next() % 3) << 11) | (next() % 2 === 0 ? 0 : (next() % 32) << 6) | (low() << 3) | low(); // movs, lsls/lsrs/asrs #imm
    case 4: return 0x4400 | ((next() % 3) << 8) | (r() << 3) | (next() & 0x87); // add/cmp/mov high registers
    case 5: return 0xb200 | ((next() % 4) << 6) | (low() << 3) | low(); // sxth sxtb uxth uxtb
    case 6: return 0x5000 | ([0, 2, 4, 6][next() % 4]! << 9) | (low() << 6) | (low() << 3) | low(); // str strb ldr ldrb register
    case 7: return [0x6000, 0x6800, 0x7000, 0x7800][next() % 4]! | ((next() % 32) << 6) | (low() << 3) | low(); // str ldr strb ldrb imm5
    case 8: return [0x9000, 0x9800, 0x4800][next() % 3]! | (low() << 8) | (next() & 0xff); // str/ldr sp, ldr literal
    case 9: return 0xd000 | ((next() % 14) << 8) | (next() & 0xff); // b<cond>
    case 10: return 0xe000 | (next() & 0x7ff); // b
    case 11: return 0x4700 | (r() << 3); // bx
    case 12: return (0xf2400000 | ((next() & 1) << 23) | ((next() & 15) << 16) | (r() << 8) | imm12()) >>> 0; // movw/movt
    case 13: return (0xf2000000 | ((next() & 1) << 23) | ((next() & 1) << 21) | (r() << 16) | (r() << 8) | imm12()) >>> 0; // addw/subw
    case 14: case 15: { // data processing, modified immediate
      const op = [0, 1, 2, 3, 4, 8, 13, 14][next() % 8]!;
      return (0xf0000000 | (op << 21) | ((next() & 1) << 20) | (r() << 16) | (r() << 8) | imm12()) >>> 0;
    }
    case 16: case 17: { // data processing, shifted register
      const op = [0, 1, 2, 3, 4, 8, 13, 14][next() % 8]!;
      return (0xea000000 | (op << 21) | ((next() & 1) << 20) | (r() << 16) | ((next() & 7) << 12) | (r() << 8) | ((next() & 3) << 6) | ((next() & 3) << 4) | r()) >>> 0;
    }
    case 18: return (0xfb000000 | (r() << 16) | ((next() % 3 === 0 ? 15 : r()) << 12) | (r() << 8) | r()) >>> 0; // mla/mul
    case 19: return (0xfa0ff080 | ([0, 1, 4, 5][next() % 4]! << 20) | (r() << 8) | ((next() & 3) << 4) | r()) >>> 0; // sxth.w uxth.w sxtb.w uxtb.w
    case 20: { // ldr/str/ldrb/strb imm12, imm8 with P/U/W, register
      const size = [0, 2][next() % 2]!;
      const first = 0xf800 | (size << 5) | ((next() & 1) << 4) | r();
      const form = next() % 3;
      if (form === 0) return (((first | 0x80) << 16) | (r() << 12) | (next() & 0xfff)) >>> 0;
      if (form === 1) return ((first << 16) | (r() << 12) | 0x800 | ([4, 5, 7, 1, 3][next() % 5]! << 8) | (next() & 0xff)) >>> 0;
      return ((first << 16) | (r() << 12) | ((next() & 3) << 4) | r()) >>> 0;
    }
    case 21: { // b<cond>.w, b.w, bl
      const kind = next() % 3;
      const s = next() & 1;
      const first = 0xf000 | (s << 10) | (kind === 0 ? (next() % 14) << 6 : 0) | (next() & (kind === 0 ? 0x3f : 0x3ff));
      const second = 0x8000 | ((next() & 1) << 13) | ((next() & 1) << 11) | (next() & 0x7ff) | (kind === 1 ? 0x1000 : kind === 2 ? 0x5000 : 0);
      return ((first << 16) | second) >>> 0;
    }
    case 22: return (0xebb00f00 | (r() << 16) | ((next() & 7) << 12) | ((next() & 3) << 6) | ((next() & 3) << 4) | r()) >>> 0; // cmp.w reg
    default: return (0xf1b00f00 | (r() << 16) | imm12()) >>> 0; // cmp.w imm
  }
}

interface Outcome { stop: number; regs: number[]; cpsr: number; retired: number; fault: number[] }

function outcome(core: ArmCoreExports, stop: number): Outcome {
  const regs = Array.from({ length: 16 }, (_, n) => core.getReg(0, n) >>> 0);
  const fault = stop === StopReason.DATA_ABORT ? [core.faultAddress(0) >>> 0, core.faultStatus(0) >>> 0] : [];
  return { stop, regs, cpsr: core.getCpsr(0) >>> 0, retired: core.retiredLow(0), fault };
}

/** Sets the same registers, flags, mode and data on both cores; T32 `thumb` code is halfwords in Thumb state. */
function prepare(cores: ArmCoreExports[], word: number, next: () => number, mode: Mode, data: Uint8Array, thumb = false): void {
  const regs = Array.from({ length: 15 }, () => {
    switch (next() % 4) {
      case 0: return next(); // anything
      case 1: return next() % 64; // a small offset
      default: return BUF - 0x2000 + (next() % 0x6000); // near the data (and the pages around it)
    }
  });
  const flags = (next() & 0xf0000000) >>> 0;
  const cpuMode = mode === 'aligned' ? ArmMode.SVC : ArmMode.USR;
  for (const core of cores) {
    ram(core).set(data, BUF - 0x2000);
    if (thumb) {
      const halves = word > 0xffff ? [word >>> 16, word & 0xffff, 0xde01] : [word, 0xde01];
      writeRam(core, CODE, new Uint8Array(new Uint16Array(halves).buffer));
    } else words(core, CODE, [word, 0xe7f001f0]);
    core.setCpsr(0, (flags | cpuMode | (thumb ? 0x20 : 0)) >>> 0);
    regs.forEach((v, n) => core.setReg(0, n, v));
    core.setReg(0, 15, CODE);
  }
}

async function compareForms(build: 'debug' | 'release', mode: Mode, seed: number, cases: number, thumb = false): Promise<void> {
  const inline = await makeCore(build, mode);
  const handler = await makeCore(build, mode);
  const next = rng(seed);
  const data = new Uint8Array(0x6000);
  const failures: string[] = [];
  for (let i = 0; i < cases && failures.length < 10; i++) {
    for (let b = 0; b < data.length; b++) data[b] = next() & 0xff;
    const word = thumb ? randomThumb(next) : randomWord(next);
    prepare([inline, handler], word, next, mode, data, thumb);
    const before = inline.retiredLow(0);
    const a = outcome(inline, inline.run(0, 1));
    const handlerBefore = handler.retiredLow(0);
    const stop = thumb ? handler.executeDisplacedT32(0, word, CODE) : handler.executeDisplaced(0, word, CODE);
    const b = outcome(handler, stop === 0 ? StopReason.BUDGET : stop);
    a.retired -= before;
    b.retired -= handlerBefore;
    const same = JSON.stringify(a) === JSON.stringify(b) && Buffer.compare(ram(inline).subarray(BUF - 0x2000, BUF + 0x4000), ram(handler).subarray(BUF - 0x2000, BUF + 0x4000)) === 0;
    if (!same) failures.push(`${word.toString(16)}: inline ${JSON.stringify(a)} handler ${JSON.stringify(b)}`);
  }
  expect(failures).toEqual([]);
}

describe.each([
  ['A32', false],
  ['T32', true],
] as const)('%s specialised forms agree with their handlers', (_isa, thumb) => {
  for (const build of ['debug', 'release'] as const) {
    it(`with the MMU off (${build})`, async () => compareForms(build, 'plain', 0x5eed1, 6000, thumb), 60_000);
    it(`with alignment checking (${build})`, async () => compareForms(build, 'aligned', 0x5eed2, 3000, thumb), 60_000);
    it(`with the MMU on, pages of every permission (${build})`, async () => compareForms(build, 'mmu', 0x5eed3, 6000, thumb), 60_000);
  }
});

describe('run loop with specialised forms', () => {
  // 0x1000: mov r0, #0 ; mov r1, #0x20000 ; mov r5, #100
  //   loop:  ldr r2, [r1, r0, lsl #2] ; add r2, r2, r0 ; str r2, [r1, r0, lsl #2] ; strb r0, [r1, #-1] ; add r0, r0, #1
  //          subs r6, r0, #50 ; bne skip ; add r7, r7, #1
  //   skip:  cmp r0, #30 ; bhi over ; add r10, r10, #1
  //   over:  cmp r0, r5 ; blt loop ; mov r8, #1 ; udf
  // (compare-and-branch pairs of every specialised compare, taken and not taken)
  const program = [
    0xe3a00000, 0xe3a01802, 0xe3a05064, 0xe7912100, 0xe0822000, 0xe7812100, 0xe5410001, 0xe2800001, 0xe2506032,
    0x1a000000, 0xe2877001, 0xe350001e, 0x8a000000, 0xe28aa001, 0xe1500005, 0xbafffff2, 0xe3a08001, 0xe7f001f0,
  ];

  it('stops after exactly the budget, in the state the handlers reach one instruction at a time', async () => {
    const whole = await makeCore('release', 'plain');
    const steps = await makeCore('release', 'plain');
    const next = rng(7);
    // The program retires 1135 instructions before its udf: the whole of it, each stop near its end, random ones.
    const budgets = [1135, 1134, 1133, 1132, 1, 2, 3, ...Array.from({ length: 30 }, () => 1 + (next() % 1135))];
    for (const budget of budgets) {
      for (const core of [whole, steps]) {
        core.reset(0);
        ram(core).fill(0, BUF - 4, BUF + 400);
        words(core, CODE, program);
        core.setCpsr(0, ArmMode.USR);
        core.setReg(0, 15, CODE);
      }
      const reason = whole.run(0, budget);
      // The oracle steps through the handlers, one executeDisplaced per instruction.
      const code = new DataView(steps.memory.buffer, steps.ramOffset());
      for (let i = 0; i < budget; i++) {
        const pc = steps.getReg(0, 15) >>> 0;
        expect(steps.executeDisplaced(0, code.getUint32(pc, true), pc)).toBe(0);
      }
      expect(reason).toBe(StopReason.BUDGET);
      expect(whole.retiredLow(0)).toBe(budget);
      expect(steps.retiredLow(0)).toBe(budget);
      for (let n = 0; n < 16; n++) expect(whole.getReg(0, n) >>> 0).toBe(steps.getReg(0, n) >>> 0);
      expect(Buffer.compare(ram(whole).subarray(BUF - 4, BUF + 400), ram(steps).subarray(BUF - 4, BUF + 400))).toBe(0);
    }
  });

  // The same loop in Thumb code (halfwords), with the compare-and-b<cond>
  // pairs of the T32 loop (subs.w/bne, cmp/bhi, cmp/blt) and a cmp.w/beq.w
  // that is not paired:
  // 0x1000: movs r0, #0 ; mov.w r1, #0x20000 ; movs r5, #100
  //   loop:  ldr.w r2, [r1, r0, lsl #2] ; add r2, r0 ; str.w r2, [r1, r0, lsl #2] ; strb r0, [r1, #-1] ; adds r0, #1
  //          subs.w r6, r0, #50 ; bne skip ; add.w r7, r7, #1
  //   skip:  cmp r0, #30 ; bhi over ; add.w r10, r10, #1
  //   over:  cmp r0, r5 ; blt loop ; cmp.w r0, #0 ; beq.w loop ; mov.w r8, #1 ; udf #1
  const thumbProgram = [
    0x2000, 0xf44f, 0x3100, 0x2564, 0xf851, 0x2020, 0x4402, 0xf841, 0x2020, 0xf801, 0x0c01, 0x3001, 0xf1b0, 0x0632, 0xd101,
    0xf107, 0x0701, 0x281e, 0xd801, 0xf10a, 0x0a01, 0x42a8, 0xdbec, 0xf1b0, 0x0f00, 0xf43f, 0xafe9, 0xf04f, 0x0801, 0xde01,
  ];

  it('stops after exactly the budget in Thumb code, compare-and-branch pairs included', async () => {
    const whole = await makeCore('release', 'plain');
    const steps = await makeCore('release', 'plain');
    const start = (core: ArmCoreExports): void => {
      core.reset(0);
      ram(core).fill(0, BUF - 4, BUF + 400);
      writeRam(core, CODE, new Uint8Array(new Uint16Array(thumbProgram).buffer));
      core.setCpsr(0, ArmMode.USR | 0x20);
      core.setReg(0, 15, CODE);
    };
    start(whole);
    expect(whole.run(0, 100_000)).toBe(StopReason.UNDEFINED);
    const total = whole.retiredLow(0);
    expect(total).toBe(3 + 100 * 11 + 1 + 30 + 3); // up to the udf: add.w r7 runs once, add.w r10 30 times
    const next = rng(11);
    const budgets = [total, total - 1, total - 2, total - 3, 1, 2, 3, ...Array.from({ length: 30 }, () => 1 + (next() % total))];
    for (const budget of budgets) {
      start(whole);
      start(steps);
      const reason = whole.run(0, budget);
      // The oracle steps through the handlers, one executeDisplacedT32 per instruction.
      const code = new DataView(steps.memory.buffer, steps.ramOffset());
      for (let i = 0; i < budget; i++) {
        const pc = steps.getReg(0, 15) >>> 0;
        const first = code.getUint16(pc, true);
        const value = first >= 0xe800 ? ((first << 16) | code.getUint16(pc + 2, true)) >>> 0 : first;
        expect(steps.executeDisplacedT32(0, value, pc)).toBe(0);
      }
      expect(reason).toBe(StopReason.BUDGET);
      expect(whole.retiredLow(0)).toBe(budget);
      expect(steps.retiredLow(0)).toBe(budget);
      for (let n = 0; n < 16; n++) expect(whole.getReg(0, n) >>> 0).toBe(steps.getReg(0, n) >>> 0);
      expect(whole.getCpsr(0) >>> 0).toBe(steps.getCpsr(0) >>> 0);
      expect(Buffer.compare(ram(whole).subarray(BUF - 4, BUF + 400), ram(steps).subarray(BUF - 4, BUF + 400))).toBe(0);
    }
  });

  it('re-decodes an instruction an inline str or strb through an ordinary base register overwrote', async () => {
    const core = await makeCore('release', 'plain');
    // 0x1000: str r1, [r2] ; strb r3, [r2, #4] ; mov r0, #0 (becomes add r0, r0, #42) ; mov r4, #0 (becomes mov r4, #1) ; udf
    words(core, CODE, [0xe5821000, 0xe5c23004, 0xe3a00000, 0xe3a04000, 0xe7f001f0]);
    // Run the last three once so they are decoded and cached.
    core.setReg(0, 15, CODE + 8);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    core.setReg(0, 0, 5);
    core.setReg(0, 1, 0xe280002a); // add r0, r0, #42
    core.setReg(0, 2, CODE + 8);
    core.setReg(0, 3, 0x01); // the immediate byte of mov r4, #0
    core.setReg(0, 15, CODE);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    expect(core.getReg(0, 0)).toBe(47);
    expect(core.getReg(0, 4)).toBe(1);
  });
});
