// Random single-instruction T32 test cases for the differential tests
// against qemu-arm, the Thumb counterpart of diff-cases.mjs. A case is a
// pure function of its seed: the instruction (16 or 32 bits, a user-mode
// one that cannot fault), the initial r0-r12 and APSR, a 256-byte memory
// buffer that base registers point into, and the IT state it runs in: with
// `itLength` > 0 the instruction is the last of an IT block of that length
// (`it` is the IT instruction; the slots before it hold nops), so it runs
// under a random condition and, for 16-bit data processing, without setting
// flags. Registers r13-r15 are never operands.
import { BUFFER_SIZE, prng, fnv1a, value } from './diff-cases.mjs';

export { BUFFER_SIZE, fnv1a };

/** A ThumbExpandImm field i:imm3:imm8 whose value is defined (no zero byte in the replicated forms). */
function modifiedImmediate(rnd) {
  let imm12 = rnd() & 0xfff;
  if (imm12 >>> 10 === 0 && (imm12 >>> 8) !== 0 && (imm12 & 0xff) === 0) imm12 |= 1 + (rnd() % 255);
  return imm12;
}
/** Places i:imm3:imm8 into a 32-bit T32 value. */
const placeImm12 = (imm12) => (((imm12 >>> 11) & 1) << 26) | (((imm12 >>> 8) & 7) << 12) | (imm12 & 0xff);

/** The instruction of a case: { value, size, fix: [[reg, valueOrOffset]] }. */
function instruction(rnd) {
  const R = () => rnd() % 13; // r0-r12
  const L = () => rnd() % 8; // r0-r7
  const bit = () => rnd() & 1;
  const fix = [];
  const base = (align) => ({ offset: 128 + ((rnd() % 8) * align) - 16 });
  const distinct = (pick, avoid) => {
    for (;;) {
      const r = pick();
      if (!avoid.includes(r)) return r;
    }
  };
  const narrow = (v) => ({ value: v >>> 0, size: 2, fix });
  const wide = (v) => ({ value: v >>> 0, size: 4, fix });
  const pick = rnd() % 100;
  if (pick < 30) {
    // 16-bit
    switch (rnd() % 14) {
      case 0: { // shift by immediate (imm5 = 0 with lsl is movs rd, rm)
        const op = rnd() % 3;
        return narrow((op << 11) | ((rnd() & 31) << 6) | (L() << 3) | L());
      }
      case 1: // add/sub register or 3-bit immediate
        return narrow(0x1800 | ((rnd() & 3) << 9) | (L() << 6) | (L() << 3) | L());
      case 2: // mov/cmp/add/sub 8-bit immediate
        return narrow(0x2000 | ((rnd() & 3) << 11) | (L() << 8) | (rnd() & 0xff));
      case 3: case 4: // data processing
        return narrow(0x4000 | ((rnd() & 15) << 6) | (L() << 3) | L());
      case 5: { // add/cmp/mov with high registers (r0-r12)
        const op = rnd() % 3;
        const d = R();
        let m = R();
        if (op === 1 && d < 8 && m < 8) m = 8 + (rnd() % 5); // cmp: not both low
        return narrow(0x4400 | (op << 8) | ((d >> 3) << 7) | (m << 3) | (d & 7));
      }
      case 6: case 7: { // load/store register offset
        const n = L();
        const t = distinct(L, [n]);
        const m = distinct(L, [n, t]);
        fix.push([n, base(1)], [m, rnd() % 24]);
        return narrow(0x5000 | ((rnd() & 7) << 9) | (m << 6) | (n << 3) | t);
      }
      case 8: case 9: { // load/store immediate offset (word, byte, halfword)
        const n = L();
        const t = distinct(L, [n]);
        const kind = rnd() % 3;
        fix.push([n, base(kind === 0 ? 4 : kind === 2 ? 2 : 1)]);
        const opc = [0x6000, 0x7000, 0x8000][kind];
        return narrow(opc | (bit() << 11) | ((rnd() % 16) << 6) | (n << 3) | t);
      }
      case 10: // extends, reverses
        return bit() ? narrow(0xb200 | ((rnd() & 3) << 6) | (L() << 3) | L()) : narrow(0xba00 | ([0, 1, 3][rnd() % 3] << 6) | (L() << 3) | L());
      case 11: { // stm/ldm (ldm writes back unless the base is in the list)
        const n = L();
        const load = bit();
        let list = (rnd() & 0xff) || 1 << (rnd() % 8);
        if (!load) list &= ~(1 << n);
        if (list === 0) list = n === 0 ? 2 : 1;
        fix.push([n, base(4)]);
        return narrow(0xc000 | (load << 11) | (n << 8) | list);
      }
      case 12: // multiply
        return narrow(0x4340 | (L() << 3) | L());
      default: // nop-compatible hints
        return narrow([0xbf00, 0xbf10, 0xbf20, 0xbf40][rnd() % 4]);
    }
  }
  // 32-bit
  const n = R();
  const d = R();
  const m = R();
  const s = bit();
  switch (rnd() % 24) {
    case 0: case 1: case 2: { // data processing, modified immediate
      const ops = [0, 1, 2, 3, 4, 8, 10, 11, 13, 14];
      const op = ops[rnd() % ops.length];
      return wide(0xf0000000 | (op << 21) | (s << 20) | (n << 16) | (d << 8) | placeImm12(modifiedImmediate(rnd)));
    }
    case 3: case 4: case 5: { // data processing, shifted register
      const ops = [0, 1, 2, 3, 4, 8, 10, 11, 13, 14];
      const op = ops[rnd() % ops.length];
      return wide(0xea000000 | (op << 21) | (s << 20) | (n << 16) | ((rnd() & 7) << 12) | (d << 8) | ((rnd() & 3) << 6) | ((rnd() & 3) << 4) | m);
    }
    case 6: { // compares and moves (Rd or Rn = 1111)
      const form = rnd() % 6;
      const imm = placeImm12(modifiedImmediate(rnd));
      const shifted = ((rnd() & 7) << 12) | ((rnd() & 3) << 6) | ((rnd() & 3) << 4) | m;
      switch (form) {
        case 0: return wide(0xf0100f00 | ([0, 4, 8, 13][rnd() % 4] << 21) | (n << 16) | imm); // tst teq cmn cmp imm
        case 1: return wide(0xea100f00 | ([0, 4, 8, 13][rnd() % 4] << 21) | (n << 16) | shifted);
        case 2: return wide(0xf04f0000 | ((rnd() & 1) << 21) | (s << 20) | (d << 8) | imm); // mov/mvn imm
        case 3: return wide(0xea4f0000 | ((rnd() & 1) << 21) | (s << 20) | (d << 8) | shifted); // mov/mvn (shift) reg
        case 4: return wide(0xf0600000 | (s << 20) | (n << 16) | (d << 8) | imm); // orn imm
        default: return wide(0xea600000 | (s << 20) | (n << 16) | (d << 8) | shifted); // orn reg
      }
    }
    case 7: { // plain binary immediate
      const form = rnd() % 8;
      const imm12 = placeImm12(rnd() & 0xfff);
      const lsb = rnd() % 32;
      const at = ((lsb >> 2) << 12) | ((lsb & 3) << 6);
      switch (form) {
        case 0: return wide(0xf2000000 | (n << 16) | (d << 8) | imm12); // addw
        case 1: return wide(0xf2a00000 | (n << 16) | (d << 8) | imm12); // subw
        case 2: return wide(0xf2400000 | ((rnd() & 15) << 16) | (d << 8) | imm12); // movw
        case 3: return wide(0xf2c00000 | ((rnd() & 15) << 16) | (d << 8) | imm12); // movt
        case 4: { // ssat/usat (sh: asr with a non-zero amount)
          const sh = bit();
          let amount = rnd() % 32;
          if (sh && amount === 0) amount = 1;
          return wide((bit() ? 0xf3800000 : 0xf3000000) | (sh << 21) | (n << 16) | (((amount >> 2) & 7) << 12) | (d << 8) | ((amount & 3) << 6) | (rnd() & 31));
        }
        case 5: return wide((bit() ? 0xf3a00000 : 0xf3200000) | (n << 16) | (d << 8) | (rnd() & 15)); // usat16/ssat16
        case 6: { // sbfx/ubfx
          const widthm1 = rnd() % (32 - lsb);
          return wide((bit() ? 0xf3c00000 : 0xf3400000) | (n << 16) | at | (d << 8) | widthm1);
        }
        default: { // bfi/bfc
          const msb = lsb + (rnd() % (32 - lsb));
          return wide(0xf3600000 | ((bit() ? 15 : n) << 16) | at | (d << 8) | msb);
        }
      }
    }
    case 8: { // shifts by register, extends
      if (bit()) {
        fix.push([m, rnd() % 40]);
        return wide(0xfa00f000 | ((rnd() & 3) << 21) | (s << 20) | (n << 16) | (d << 8) | m);
      }
      const op = rnd() % 6;
      const rn = bit() ? 15 : n;
      return wide(0xfa00f080 | ([0, 1, 2, 3, 4, 5][op] << 20) | (rn << 16) | (d << 8) | ((rnd() & 3) << 4) | m);
    }
    case 9: case 10: { // parallel add/subtract
      const op1 = [0, 1, 2, 4, 5, 6][rnd() % 6];
      const op2 = [0, 1, 2, 4, 5, 6][rnd() % 6];
      return wide(0xfa80f000 | (op1 << 20) | (n << 16) | (d << 8) | (op2 << 4) | m);
    }
    case 11: { // miscellaneous: qadd family, rev family, sel, clz (rev/clz: Rn = Rm)
      const op1 = rnd() % 4;
      const op2 = op1 >= 2 ? 0 : rnd() % 4;
      const rn = op1 === 1 || op1 === 3 ? m : n;
      return wide(0xfa80f080 | (op1 << 20) | (rn << 16) | (d << 8) | (op2 << 4) | m);
    }
    case 12: case 13: { // multiply, multiply accumulate, absolute difference
      const forms = [
        () => 0xfb000000 | (R() << 12), // mla
        () => 0xfb00f000, // mul
        () => 0xfb000010 | (R() << 12), // mls
        () => 0xfb100000 | (R() << 12) | ((rnd() & 3) << 4), // smlaxy
        () => 0xfb10f000 | ((rnd() & 3) << 4), // smulxy
        () => 0xfb200000 | (R() << 12) | (bit() << 4), // smlad
        () => 0xfb20f000 | (bit() << 4), // smuad
        () => 0xfb300000 | (R() << 12) | (bit() << 4), // smlawy
        () => 0xfb30f000 | (bit() << 4), // smulwy
        () => 0xfb400000 | (R() << 12) | (bit() << 4), // smlsd
        () => 0xfb40f000 | (bit() << 4), // smusd
        () => 0xfb500000 | (R() << 12) | (bit() << 4), // smmla
        () => 0xfb50f000 | (bit() << 4), // smmul
        () => 0xfb600000 | (R() << 12) | (bit() << 4), // smmls
        () => 0xfb700000 | (R() << 12), // usada8
        () => 0xfb70f000, // usad8
      ];
      return wide(forms[rnd() % forms.length]() | (n << 16) | (d << 8) | m);
    }
    case 14: { // long multiply, divide
      const lo = R();
      const hi = distinct(R, [lo]);
      const forms = [0xfb800000, 0xfb900000, 0xfba00000, 0xfbb00000, 0xfbc00000, 0xfbc00080, 0xfbc000c0, 0xfbd000c0, 0xfbe00000, 0xfbe00060];
      let v = forms[rnd() % forms.length];
      if ((v & 0xfff000f0) === 0xfbc00080) v |= (rnd() & 3) << 4; // smlalxy
      else if ((v & 0xc0) === 0xc0) v |= bit() << 4; // smlald/smlsld
      if (v === 0xfb900000 || v === 0xfbb00000) return wide(v | 0xf0f0 | (n << 16) | (d << 8) | m); // sdiv/udiv
      return wide(v | (n << 16) | (lo << 12) | (hi << 8) | m);
    }
    case 15: case 16: case 17: { // single loads and stores: imm12, imm8 with P/U/W, register, unprivileged
      const rn = R();
      const t = distinct(R, [rn]);
      const size = rnd() % 3; // byte, halfword, word
      const load = bit();
      const signed = load && size < 2 && bit();
      const first = 0xf800 | (signed << 8) | (size << 5) | (load << 4) | rn;
      const form = rnd() % 4;
      fix.push([rn, base(1)]);
      if (form === 0) return wide(((first | 0x80) << 16) | (t << 12) | (rnd() % 96));
      if (form === 1) {
        const puw = [4, 5, 7, 1, 3][rnd() % 5]; // not 000/010 (undefined) nor 110 (the unprivileged form, form 3)
        return wide((first << 16) | (t << 12) | 0x800 | (puw << 8) | (rnd() % 96));
      }
      if (form === 2) {
        const rm = distinct(R, [rn, t]);
        const shift = rnd() & 3;
        fix.push([rm, rnd() % (1 + (64 >> shift))]); // the scaled offset stays inside the buffer
        return wide((first << 16) | (t << 12) | (shift << 4) | rm);
      }
      return wide((first << 16) | (t << 12) | 0xe00 | (rnd() % 96));
    }
    case 18: { // ldrd/strd (P/W not both 0)
      const rn = R();
      const load = bit();
      const t = distinct(R, [rn]);
      const t2 = distinct(R, load ? [rn, t] : [rn]);
      const pw = [[1, 0], [1, 1], [0, 1]][rnd() % 3];
      fix.push([rn, base(4)]);
      fix[fix.length - 1][1].offset &= ~3;
      return wide(0xe8400000 | (pw[0] << 24) | (bit() << 23) | (pw[1] << 21) | (load << 20) | (rn << 16) | (t << 12) | (t2 << 8) | (rnd() % 16));
    }
    case 19: case 20: { // ldm/stm (ia, db), registers r0-r12, at least two
      const rn = R();
      const wb = bit();
      let list = rnd() & 0x1fff;
      if (wb) list &= ~(1 << rn);
      while (bitCount(list) < 2) list |= 1 << distinct(R, wb ? [rn] : []);
      fix.push([rn, base(4)]);
      return wide((bit() ? 0xe9000000 : 0xe8800000) | (wb << 21) | (bit() << 20) | (rn << 16) | list);
    }
    case 21: { // exclusives (a lone strex fails in both)
      const rn = R();
      const t = distinct(R, [rn]);
      fix.push([rn, base(4)]);
      const k = rnd() % 6;
      if (k === 0) return wide(0xe8500f00 | (rn << 16) | (t << 12) | (rnd() % 8)); // ldrex
      if (k === 1) return wide(0xe8400000 | (rn << 16) | (t << 12) | (distinct(R, [rn, t]) << 8) | (rnd() % 8)); // strex
      if (k === 2) return wide(0xe8d00f4f | (bit() << 4) | (rn << 16) | (t << 12)); // ldrexb/h
      if (k === 3) return wide(0xe8c00f40 | (bit() << 4) | (rn << 16) | (t << 12) | distinct(R, [rn, t])); // strexb/h
      if (k === 4) {
        fix[fix.length - 1][1].offset &= ~7; // doubleword aligned
        return wide(0xe8d0007f | (rn << 16) | (t << 12) | (distinct(R, [rn, t]) << 8)); // ldrexd
      }
      return wide(0xf3bf8f2f); // clrex
    }
    case 22: { // msr APSR_nzcvq(g), Rn; mrs Rd, APSR; pkhbt/pkhtb; strexd
      const k = rnd() % 4;
      if (k === 0) return wide(0xf3808000 | ([8, 4, 12][rnd() % 3] << 8) | (n << 16));
      if (k === 1) return wide(0xf3ef8000 | (d << 8));
      if (k === 2) return wide(0xeac00000 | (n << 16) | ((rnd() & 7) << 12) | (d << 8) | ((rnd() & 3) << 6) | (bit() << 5) | m);
      const rn = R();
      const t = distinct(R, [rn]);
      fix.push([rn, base(8)]);
      fix[fix.length - 1][1].offset &= ~7;
      const t2 = distinct(R, [rn]);
      return wide(0xe8c00070 | (rn << 16) | (t << 12) | (t2 << 8) | distinct(R, [rn, t, t2])); // strexd (fails alone)
    }
    default: // nop.w, hints and barriers
      return wide([0xf3af8000, 0xf3af8001, 0xf3af8002, 0xf3af8004, 0xf3bf8f5f, 0xf3bf8f4f, 0xf3bf8f6f, 0xf3af80f0][rnd() % 8]);
  }
}

function bitCount(x) {
  let c = 0;
  for (let v = x; v; v &= v - 1) c++;
  return c;
}

/** The IT instruction for a block of `length` whose last slot has condition `cond` (firstcond's low bit may differ). */
function itInstruction(rnd, length) {
  const firstcond = rnd() % 14;
  let mask = 1 << (4 - length);
  for (let i = 1; i < length; i++) mask |= (rnd() & 1) << (4 - i);
  return 0xbf00 | (firstcond << 4) | mask;
}

/** The case for `seed`; buffer offsets are resolved against bufferAddress. */
export function makeThumbCase(seed, bufferAddress) {
  const rnd = prng(seed ^ 0x7ab1e);
  const itLength = rnd() % 3 === 0 ? 1 + (rnd() % 4) : 0;
  const it = itLength ? itInstruction(rnd, itLength) : 0;
  const regs = [];
  for (let i = 0; i < 13; i++) regs.push(value(rnd) >>> 0);
  const apsr = ((rnd() & 0xf8000000) | ((rnd() & 0xf) << 16)) >>> 0;
  const buffer = new Uint8Array(BUFFER_SIZE);
  for (let i = 0; i < BUFFER_SIZE; i++) buffer[i] = rnd() & 0xff;
  const { value: insn, size, fix } = instruction(rnd);
  for (const [r, v] of fix) regs[r] = (typeof v === 'number' ? v : bufferAddress + v.offset) >>> 0;
  return { seed, value: insn, size, it, itLength, regs, apsr, buffer };
}

/** The halfwords a case runs: the IT instruction and nops when in a block, then the instruction. */
export function caseHalfwords(k) {
  const out = [];
  if (k.itLength) {
    out.push(k.it);
    for (let i = 1; i < k.itLength; i++) out.push(0xbf00);
  }
  if (k.size === 4) out.push(k.value >>> 16, k.value & 0xffff);
  else out.push(k.value);
  return out;
}
