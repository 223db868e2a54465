// Shared by scripts/gen-exec-vectors.mjs (native oracle) and the vector test:
// the deterministic initial machine state of a differential case, derived
// from its seed, and the compact binary format of recorded cases.
//
// Addresses are the same natively and in the core: data at DATA_ADDR, code at
// CODE_ADDR. rbx points into the data block (memory operands use it as base),
// rsp at a stack inside it; rsi/rdi/rcx are overridden for string cases.
//
// Floating-point cases (kinds 'fpu' and 'fpu-approx') find tables of chosen
// operands at rbx = DATA_ADDR + FPU_TABLES (FPU_LAYOUT): 80-bit values in
// 16-byte slots, binary64 and binary32 values, integers and x87 control
// words, drawn from every class (normals, denormals, zeros, infinities,
// quiet and signaling NaNs, unsupported 80-bit encodings, integers, values
// half-way between integers). Every case starts from the FPU/SSE state
// FPU_PROLOGUE sets up (the native harness runs the same instructions).

export const DATA_ADDR = 0x1000000;
export const DATA_SIZE = 0x1000;
export const CODE_ADDR = 0x1100000;
const INTERESTING = [0n, 1n, 2n, 0x7fn, 0x80n, 0xffn, 0x7fffn, 0x8000n, 0xffffn, 0x7fffffffn, 0x80000000n, 0xffffffffn,
  0x7fffffffffffffffn, 0x8000000000000000n, 0xffffffffffffffffn, 63n, 64n, 31n, 32n, 16n];

/** mulberry32: small, fast, deterministic. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0);
  };
}

/** Offsets from rbx of the floating-point operand tables. */
export const FPU_TABLES = 0x400;
export const FPU_LAYOUT = { x80: 0x000, f64: 0x200, f32: 0x300, i16: 0x380, i32: 0x390, i64: 0x3b0, cw: 0x3f0 };
/** Where x87 cases store their closing FXSAVE image (offset in the data block; rbx + 0x900). */
export const FXSAVE_IMAGE = 0xd00;

/**
 * The FPU/SSE state every case starts from: FNINIT, +0 in every x87 register
 * (eight FLDZ, then FNINIT again: empty registers keep their contents),
 * MXCSR = 0x1f80, every XMM register zero; then hlt.
 */
export function fpuPrologue() {
  const b = [0xdb, 0xe3];
  for (let i = 0; i < 8; i++) b.push(0xd9, 0xee);
  b.push(0xdb, 0xe3);
  const ldmxcsrAt = b.length;
  b.push(0x0f, 0xae, 0x15, 0, 0, 0, 0); // ldmxcsr disp32(%rip)
  for (let r = 0; r < 16; r++) {
    if (r >= 8) b.push(0x66, 0x45, 0x0f, 0xef, 0xc0 | ((r & 7) << 3) | (r & 7));
    else b.push(0x66, 0x0f, 0xef, 0xc0 | (r << 3) | r);
  }
  b.push(0xf4);
  const constant = b.length;
  b.push(0x80, 0x1f, 0, 0);
  const disp = constant - (ldmxcsrAt + 7);
  b[ldmxcsrAt + 3] = disp & 0xff; b[ldmxcsrAt + 4] = (disp >> 8) & 0xff;
  return b;
}

/** Operand values of every class for the floating-point tables, from the case's generator. */
function fpuValues(r, approximate) {
  const u64 = () => (BigInt(r()) << 32n) | BigInt(r());
  const pick = (a) => a[r() % a.length];
  // 80-bit: [sign/exponent, significand]
  const x80 = () => {
    const sign = (r() & 1) << 15;
    const frac = u64() & 0x7fffffffffffffffn;
    const J = 0x8000000000000000n;
    const k = r() % 32;
    if (approximate) {
      // mostly arguments inside the instructions' domains, a few specials
      if (k < 10) return [sign | (0x3fff - 1 - (r() % 12)), J | frac]; // |x| < 1
      if (k < 16) return [sign | (0x3fff + (r() % 3)), J | frac]; // 1 .. 8
      if (k < 22) return [sign | (0x3fff + (r() % 20)), J | frac]; // up to 2^20
      if (k < 24) return [0x3fff, J | (frac >> BigInt(1 + (r() % 40)))]; // near 1
      if (k < 26) return [sign | (0x3fff - 20 - (r() % 200)), J | frac]; // small
      if (k < 27) return [sign | (0x3fff + 20 + (r() % 60)), J | frac]; // large, up to 2^80
    }
    if (k < 12) return [sign | (0x3fff - 64 + (r() % 128)), J | frac];
    if (k < 14) return [sign | (1 + (r() % 0x7ffe)), J | frac];
    if (k < 16) { const n = BigInt(r() % 100000); if (n === 0n) return [sign, 0n]; const e = 63 - n.toString(2).length + 1; return [sign | (0x3fff + 63 - e), n << BigInt(e)]; } // integers
    if (k < 17) return [sign | (0x3fff + (r() % 10)), J | (BigInt(r() % 64) << 56n) | 0x0080000000000000n]; // x.5 style halves
    if (k < 18) return [sign, 0n];
    if (k < 19) return [sign | 0x7fff, J];
    if (k < 20) return [sign | 0x7fff, J | 0x4000000000000000n | (frac >> BigInt(r() % 64))]; // QNaN
    if (k < 21) return [sign | 0x7fff, J | ((frac >> 1n) | 1n)]; // SNaN
    if (k < 22) return [0xffff, 0xc000000000000000n];
    if (k < 24) return [sign, frac >> BigInt(r() % 64)]; // denormal
    if (k < 25) return [sign, J | frac]; // pseudo-denormal
    if (k < 26) return [sign | (1 + (r() % 0x7ffe)), frac]; // unnormal
    if (k < 27) return [sign | 0x7fff, frac]; // pseudo-NaN / pseudo-infinity
    if (k < 28) return [sign | 0x7ffe, 0xffffffffffffffffn]; // largest
    if (k < 29) return [sign | 1, J]; // smallest normal
    return [sign | (1 + (r() % 40)), J | frac]; // just above the denormal range
  };
  const f64 = () => {
    const sign = BigInt(r() & 1) << 63n;
    const frac = u64() & 0xfffffffffffffn;
    const k = r() % 24;
    if (k < 12) return sign | (BigInt(1023 - 40 + (r() % 80)) << 52n) | frac;
    if (k < 14) return sign | (BigInt(1 + (r() % 2046)) << 52n) | frac;
    if (k < 16) return sign | (new DataView(Float64Array.of(Math.abs(((r() % 2000) - 1000) / 2)).buffer).getBigUint64(0, true)); // integers and halves
    if (k < 17) return sign;
    if (k < 18) return sign | 0x7ff0000000000000n;
    if (k < 19) return sign | 0x7ff8000000000000n | (frac >> BigInt(r() % 52));
    if (k < 20) return sign | 0x7ff0000000000000n | ((frac >> 1n) | 1n) ;
    if (k < 22) return sign | (frac >> BigInt(r() % 52)); // denormal
    return sign | (BigInt(2046 - (r() % 3)) << 52n) | frac; // near the top
  };
  const f32 = () => {
    const sign = (r() & 1) << 31;
    const frac = r() & 0x7fffff;
    const k = r() % 24;
    if (k < 12) return (sign | ((127 - 20 + (r() % 40)) << 23) | frac) >>> 0;
    if (k < 14) return (sign | ((1 + (r() % 254)) << 23) | frac) >>> 0;
    if (k < 16) return (sign | new DataView(Float32Array.of(Math.abs(((r() % 200) - 100) / 2)).buffer).getUint32(0, true)) >>> 0; // integers and halves
    if (k < 17) return sign >>> 0;
    if (k < 18) return (sign | 0x7f800000) >>> 0;
    if (k < 19) return (sign | 0x7fc00000 | (frac >>> (r() % 23))) >>> 0;
    if (k < 20) return (sign | 0x7f800000 | ((frac >>> 1) | 1)) >>> 0;
    if (k < 22) return (sign | (frac >>> (r() % 23))) >>> 0;
    return (sign | ((254 - (r() % 3)) << 23) | frac) >>> 0;
  };
  const int = (bits) => {
    const all = (1n << BigInt(bits)) - 1n;
    const v = pick([0n, 1n, all, 1n << BigInt(bits - 1), (1n << BigInt(bits - 1)) - 1n, u64() & all, u64() & all, BigInt(r() % 1000), all - BigInt(r() % 1000), u64() & 0xffffffffffffn]);
    return v & all;
  };
  // control words: exceptions masked; precision and rounding at random (now and then the reserved precision 1)
  const cw = () => 0x3f | ((r() % 4) << 8) | ((r() % 4) << 10) | (r() % 8 === 0 ? 0x1000 : 0) | (r() % 16 === 0 ? 0xe000 : 0);
  return { x80, f64, f32, int, cw };
}

/** Initial state of case `seed`: { regs: BigInt[16], flags, data: Uint8Array } */
export function initialState(seed, kind) {
  const r = prng(seed);
  const u64 = () => (BigInt(r()) << 32n) | BigInt(r());
  const regs = [];
  for (let i = 0; i < 16; i++) {
    const c = r() % 8;
    if (c < 2) regs.push(INTERESTING[r() % INTERESTING.length]);
    else if (c < 3) regs.push(BigInt(r() % 256));
    else if (c < 4) regs.push(BigInt(r()));
    else regs.push(u64());
  }
  regs[4] = BigInt(DATA_ADDR + 0xc00); // rsp
  regs[3] = BigInt(DATA_ADDR + 0x100 + (r() % 0x100)); // rbx
  if (kind === 'string') {
    regs[6] = BigInt(DATA_ADDR + 0x400 + (r() % 64));
    regs[7] = BigInt(DATA_ADDR + 0x600 + (r() % 64));
    regs[1] = BigInt(r() % 9);
  }
  // CF PF AF ZF SF OF random, DF clear, bit 1 set
  const flags = (r() & 0x8d5) | 2;
  const data = new Uint8Array(DATA_SIZE);
  for (let i = 0; i < DATA_SIZE; i += 4) {
    const v = r();
    data[i] = v; data[i + 1] = v >>> 8; data[i + 2] = v >>> 16; data[i + 3] = v >>> 24;
  }
  if (kind === 'fpu' || kind === 'fpu-approx') {
    // the FXSAVE image the case ends with lands on zeros: its XMM part (all zero) leaves no difference to record
    data.fill(0, FXSAVE_IMAGE, FXSAVE_IMAGE + 512);
    regs[3] = BigInt(DATA_ADDR + FPU_TABLES);
    const dv = new DataView(data.buffer);
    const v = fpuValues(r, kind === 'fpu-approx');
    const t = FPU_TABLES;
    for (let i = 0; i < 32; i++) {
      const [se, sig] = v.x80();
      dv.setBigUint64(t + FPU_LAYOUT.x80 + i * 16, sig, true);
      dv.setUint16(t + FPU_LAYOUT.x80 + i * 16 + 8, se, true);
      dv.setBigUint64(t + FPU_LAYOUT.f64 + i * 8, v.f64(), true);
      dv.setUint32(t + FPU_LAYOUT.f32 + i * 4, v.f32(), true);
    }
    for (let i = 0; i < 8; i++) {
      dv.setUint16(t + FPU_LAYOUT.i16 + i * 2, Number(v.int(16)), true);
      dv.setUint32(t + FPU_LAYOUT.i32 + i * 4, Number(v.int(32)), true);
      dv.setBigUint64(t + FPU_LAYOUT.i64 + i * 8, v.int(64), true);
      dv.setUint16(t + FPU_LAYOUT.cw + i * 2, v.cw(), true);
    }
  }
  return { regs, flags, data };
}

/** Case kinds as recorded. */
export const KINDS = ['plain', 'string', 'fpu', 'fpu-approx'];

// Record: u32 seed, u8 kind (KINDS index), u8 code length, code,
// u8 fault (0 none, else x86 vector), u16 defined-flags mask, u16 flags,
// u16 changed-register mask + u64 per changed register,
// u8 changed-qword count + (u16 qword index, u64 value) each.
export function encodeCases(cases) {
  const parts = [];
  for (const c of cases) {
    const b = [];
    const u8 = (v) => b.push(v & 0xff);
    const u16 = (v) => { u8(v); u8(v >> 8); };
    const u32 = (v) => { u16(v & 0xffff); u16(v >>> 16); };
    const u64 = (v) => { for (let i = 0n; i < 64n; i += 8n) u8(Number((v >> i) & 0xffn)); };
    u32(c.seed); u8(c.kind); u8(c.code.length); for (const x of c.code) u8(x);
    u8(c.fault); u16(c.flagMask); u16(c.flags);
    let m = 0;
    c.regs.forEach((v, i) => { if (v !== undefined) m |= 1 << i; });
    u16(m);
    c.regs.forEach((v) => { if (v !== undefined) u64(v); });
    u8(c.mem.length);
    for (const [i, v] of c.mem) { u16(i); u64(v); }
    parts.push(Uint8Array.from(b));
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

export function decodeCases(buf) {
  const cases = [];
  let o = 0;
  const u8 = () => buf[o++];
  const u16 = () => u8() | (u8() << 8);
  const u32 = () => (u16() | (u16() << 16)) >>> 0;
  const u64 = () => { let v = 0n; for (let i = 0n; i < 64n; i += 8n) v |= BigInt(u8()) << i; return v; };
  while (o < buf.length) {
    const seed = u32(); const kind = u8(); const n = u8();
    const code = buf.slice(o, o + n); o += n;
    const fault = u8(); const flagMask = u16(); const flags = u16();
    const m = u16();
    const regs = [];
    for (let i = 0; i < 16; i++) regs.push(m & (1 << i) ? u64() : undefined);
    const k = u8();
    const mem = [];
    for (let i = 0; i < k; i++) { const idx = u16(); mem.push([idx, u64()]); }
    cases.push({ seed, kind, code, fault, flagMask, flags, regs, mem });
  }
  return cases;
}
