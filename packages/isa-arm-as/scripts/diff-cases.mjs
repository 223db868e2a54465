// Random single-instruction A32 test cases for the differential tests
// against qemu-arm. A case is a pure function of its seed: the instruction
// word (a user-mode instruction that cannot fault), the initial r0-r12 and
// APSR, and a 256-byte memory buffer that base registers point into.
// Shared by the vector writer (scripts/make-exec-vectors.mjs) and the tests.
// Registers r13-r15 are never operands, so the harness can use sp freely.

export const BUFFER_SIZE = 256;

/** xorshift32 stream. */
export function prng(seed) {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

const EDGES = [0, 1, 2, 0xffffffff, 0x80000000, 0x7fffffff, 0x8000, 0x7fff, 0xffff, 0xff, 0x80, 0x7f, 0xffff8000, 0x10000, 31, 32, 33];

/** A random register value: an edge value, a small one or anything. */
export function value(rnd) {
  const k = rnd() % 8;
  if (k < 3) return EDGES[rnd() % EDGES.length];
  if (k < 5) return rnd() & 0xff;
  return rnd();
}

/** Builds the instruction for a case. Returns { word, fix: [[reg, valueOrOffsetTag]] } */
function instruction(rnd, cond) {
  const R = () => rnd() % 13;
  const bit = () => rnd() & 1;
  const c = cond << 28;
  const fix = [];
  const base = (align) => ({ offset: 128 + ((rnd() % 8) * align) - 16 });
  const pick = rnd() % 100;
  const distinct = (n, avoid = []) => {
    for (;;) {
      const r = R();
      if (!avoid.includes(r)) return r;
    }
  };
  // Data processing, 40%
  if (pick < 40) {
    const op = rnd() % 16;
    const compare = op >= 8 && op <= 11;
    const s = compare ? 1 : bit();
    const rd = compare ? 0 : R();
    const rn = op === 13 || op === 15 ? 0 : R();
    const form = rnd() % 3;
    let word = c | (op << 21) | (s << 20) | (rn << 16) | (rd << 12);
    if (form === 0) word |= (1 << 25) | (rnd() & 0xfff);
    else if (form === 1) word |= (rnd() & 0xfe0) | R(); // imm5, type, 0, rm
    else {
      const rs = R();
      word |= (rs << 8) | ((rnd() & 3) << 5) | 0x10 | R();
      if (rnd() & 1) fix.push([rs, rnd() % 40]);
    }
    return { word: word >>> 0, fix };
  }
  const pick2 = rnd() % 24;
  switch (pick2) {
    case 0: { // movw / movt
      return { word: (c | (bit() ? 0x03400000 : 0x03000000) | ((rnd() & 0xf) << 16) | (R() << 12) | (rnd() & 0xfff)) >>> 0, fix };
    }
    case 1: { // 32-bit multiplies
      const op = [0, 1, 3][rnd() % 3];
      const s = op === 3 ? 0 : bit();
      const ra = op === 0 ? 0 : R(); // MUL: bits 15:12 should be zero
      return { word: (c | (op << 21) | (s << 20) | (R() << 16) | (ra << 12) | (R() << 8) | 0x90 | R()) >>> 0, fix };
    }
    case 2: { // long multiplies
      const op = [2, 4, 5, 6, 7][rnd() % 5];
      const s = op === 2 ? 0 : bit();
      const hi = R();
      const lo = distinct(1, [hi]);
      return { word: (c | (op << 21) | (s << 20) | (hi << 16) | (lo << 12) | (R() << 8) | 0x90 | R()) >>> 0, fix };
    }
    case 3: { // halfword multiplies
      const op = rnd() % 4;
      const hi = R();
      let lo = op === 2 ? distinct(1, [hi]) : R();
      const mn = rnd() & 3;
      if (op === 3 || (op === 1 && (mn & 1))) lo = 0; // SMULxy, SMULWy: bits 15:12 should be zero
      return { word: (c | 0x01000080 | (op << 21) | (hi << 16) | (lo << 12) | (R() << 8) | (mn << 5) | R()) >>> 0, fix };
    }
    case 4: { // dual / most-significant multiplies and divides
      const forms = [
        () => 0x07000010 | ((rnd() & 3) << 5), // smlad/smlsd (+x), ra random (ra=15 impossible: R() <= 12)
        () => 0x0700f010 | ((rnd() & 3) << 5), // smuad/smusd
        () => 0x07400010 | ((rnd() & 3) << 5), // smlald/smlsld
        () => 0x07500010 | ((rnd() & 1) << 5), // smmla
        () => 0x0750f010 | ((rnd() & 1) << 5), // smmul
        () => 0x075000d0 | ((rnd() & 1) << 5), // smmls
        () => 0x0710f010, // sdiv
        () => 0x0730f010, // udiv
        () => 0x0780f010, // usad8
        () => 0x07800010, // usada8
      ];
      const k = rnd() % forms.length;
      let w = forms[k]();
      const hi = R();
      const lo = distinct(1, [hi]);
      w |= (hi << 16) | (R() << 8) | R();
      if ((w & 0xf000) === 0) w |= lo << 12;
      return { word: (c | w) >>> 0, fix };
    }
    case 5: { // saturating add/sub
      return { word: (c | 0x01000050 | ((rnd() & 3) << 21) | (R() << 16) | (R() << 12) | R()) >>> 0, fix };
    }
    case 6: case 7: { // parallel add/sub
      const prefix = [1, 2, 3, 5, 6, 7][rnd() % 6];
      const op = [0, 1, 2, 3, 4, 7][rnd() % 6];
      return { word: (c | 0x06000f10 | (prefix << 20) | (op << 5) | (R() << 16) | (R() << 12) | R()) >>> 0, fix };
    }
    case 8: { // sel, pkh, ssat16/usat16
      const k = rnd() % 4;
      if (k === 0) return { word: (c | 0x06800fb0 | (R() << 16) | (R() << 12) | R()) >>> 0, fix };
      if (k === 1) return { word: (c | 0x06800010 | (R() << 16) | (R() << 12) | ((rnd() & 31) << 7) | (bit() << 6) | R()) >>> 0, fix };
      return { word: (c | (k === 2 ? 0x06a00f30 : 0x06e00f30) | ((rnd() & 15) << 16) | (R() << 12) | R()) >>> 0, fix };
    }
    case 9: { // ssat/usat
      return { word: (c | (bit() ? 0x06e00010 : 0x06a00010) | ((rnd() & 31) << 16) | (R() << 12) | ((rnd() & 31) << 7) | (bit() << 6) | R()) >>> 0, fix };
    }
    case 10: { // extends (with and without accumulate)
      const op = [0, 2, 3, 4, 6, 7][rnd() % 6];
      const rn = rnd() % 2 ? 15 : R();
      return { word: (c | 0x06800070 | (op << 20) | (rn << 16) | (R() << 12) | ((rnd() & 3) << 10) | R()) >>> 0, fix };
    }
    case 11: { // rev, rev16, rbit, revsh, clz
      const forms = [0x06bf0f30, 0x06bf0fb0, 0x06ff0f30, 0x06ff0fb0, 0x016f0f10];
      return { word: (c | forms[rnd() % forms.length] | (R() << 12) | R()) >>> 0, fix };
    }
    case 12: { // bit fields
      const k = rnd() % 3;
      const lsb = rnd() % 32;
      if (k === 0) {
        const widthm1 = rnd() % (32 - lsb);
        return { word: (c | (bit() ? 0x07e00050 : 0x07a00050) | (widthm1 << 16) | (R() << 12) | (lsb << 7) | R()) >>> 0, fix };
      }
      const msb = lsb + (rnd() % (32 - lsb));
      return { word: (c | 0x07c00010 | (msb << 16) | (R() << 12) | (lsb << 7) | (k === 1 ? 15 : R())) >>> 0, fix };
    }
    case 13: case 14: case 15: { // ldr/str/ldrb/strb
      const rn = R();
      const rt = distinct(1, [rn]);
      const regForm = bit();
      const p = bit();
      const w = p ? bit() : 0;
      const u = bit();
      const b = bit();
      const l = bit();
      let word = c | (1 << 26) | (p << 24) | (u << 23) | (b << 22) | (w << 21) | (l << 20) | (rn << 16) | (rt << 12);
      if (regForm) {
        const rm = distinct(1, [rn, rt]);
        word |= (1 << 25) | ((rnd() % 3) << 7) | rm;
        fix.push([rm, rnd() % 24]); // up to 23 << 2 stays inside the buffer
      } else word |= rnd() % 96;
      fix.push([rn, base(1)]);
      return { word: word >>> 0, fix };
    }
    case 16: { // ldrt/strt/ldrbt/strbt (post-indexed)
      const rn = R();
      const rt = distinct(1, [rn]);
      const word = c | (1 << 26) | (bit() << 23) | (bit() << 22) | (1 << 21) | (bit() << 20) | (rn << 16) | (rt << 12) | (rnd() % 96);
      fix.push([rn, base(1)]);
      return { word: word >>> 0, fix };
    }
    case 17: case 18: { // halfword, signed, doubleword
      const rn = R();
      const kind = rnd() % 5; // strh, ldrh, ldrsb, ldrsh, ldrd/strd
      const p = bit();
      const w = p ? bit() : 0;
      const u = bit();
      const regForm = bit();
      let rt;
      let bits;
      if (kind === 4) {
        rt = (rnd() % 6) * 2;
        while (rt === rn || rt + 1 === rn) rt = (rnd() % 6) * 2;
        bits = bit() ? 0xd0 : 0xf0; // ldrd : strd (L = 0)
      } else {
        rt = distinct(1, [rn]);
        bits = [0xb0, 0x1000b0, 0x1000d0, 0x1000f0][kind];
      }
      let word = c | (p << 24) | (u << 23) | (w << 21) | bits | (rn << 16) | (rt << 12);
      if (regForm) {
        const rm = distinct(1, [rn, rt, rt + (kind === 4 ? 1 : 0)]);
        word |= rm;
        fix.push([rm, kind === 4 ? (rnd() % 8) * 4 : rnd() % 32]);
      } else {
        const imm = kind === 4 ? (rnd() % 24) * 4 : rnd() % 96;
        word |= (1 << 22) | ((imm & 0xf0) << 4) | (imm & 0xf);
      }
      fix.push([rn, base(kind === 4 ? 4 : 1)]);
      if (kind === 4) fix[fix.length - 1][1].offset &= ~3;
      return { word: word >>> 0, fix };
    }
    case 19: case 20: { // ldm/stm
      const rn = R();
      const mode = rnd() % 4; // da ia db ib
      const wb = bit();
      const l = bit();
      let list = (rnd() & 0x1fff) || 1 << (rnd() % 13);
      if (wb) list &= ~(1 << rn);
      if (list === 0) list = rn === 0 ? 2 : 1;
      const word = c | (1 << 27) | ((mode >> 1) << 24) | ((mode & 1) << 23) | (wb << 21) | (l << 20) | (rn << 16) | list;
      fix.push([rn, base(4)]);
      return { word: word >>> 0, fix };
    }
    case 21: { // swp/swpb, or an exclusive load/store (a lone strex fails in both)
      const rn = R();
      if (bit()) {
        const b = bit();
        const word = c | 0x01000090 | (b << 22) | (rn << 16) | (distinct(1, [rn]) << 12) | distinct(1, [rn]);
        fix.push([rn, base(4)]);
        return { word: word >>> 0, fix };
      }
      const size = rnd() % 3; // word, byte, halfword (bits 22:21 = 00, 10, 11)
      const sz = [0, 2, 3][size];
      const load = bit();
      const rt = distinct(1, [rn]);
      let word = c | 0x01800f90 | (sz << 21) | (load << 20) | (rn << 16);
      if (load) word |= (rt << 12) | 0xf;
      else word |= (distinct(1, [rn, rt]) << 12) | rt;
      fix.push([rn, base(4)]);
      return { word: word >>> 0, fix };
    }
    case 22: { // hints that are safe in user mode
      const forms = [0x0320f000, 0x0320f001, 0x0320f004, 0x0320f002];
      return { word: (c | forms[rnd() % forms.length]) >>> 0, fix };
    }
    default: { // msr APSR flags (imm and reg)
      if (bit()) return { word: (c | 0x0328f000 | (rnd() & 0xfff)) >>> 0, fix };
      return { word: (c | 0x012cf000 | R()) >>> 0, fix };
    }
  }
}

/** The case for `seed`; buffer offsets are resolved against bufferAddress. */
export function makeCase(seed, bufferAddress) {
  const rnd = prng(seed);
  const cond = rnd() % 3 === 0 ? rnd() % 15 : 14;
  const regs = [];
  for (let i = 0; i < 13; i++) regs.push(value(rnd) >>> 0);
  const apsr = ((rnd() & 0xf8000000) | ((rnd() & 0xf) << 16)) >>> 0;
  const buffer = new Uint8Array(BUFFER_SIZE);
  for (let i = 0; i < BUFFER_SIZE; i++) buffer[i] = rnd() & 0xff;
  const { word, fix } = instruction(rnd, cond);
  for (const [r, v] of fix) regs[r] = (typeof v === 'number' ? v : bufferAddress + v.offset) >>> 0;
  return { seed, word, regs, apsr, buffer };
}

/** FNV-1a of a byte array. */
export function fnv1a(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
