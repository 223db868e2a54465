// Shared by scripts/gen-exec-vectors.mjs (native oracle) and the vector test:
// the deterministic initial machine state of a differential case, derived
// from its seed, and the compact binary format of recorded cases.
//
// Addresses are the same natively and in the core: data at DATA_ADDR, code at
// CODE_ADDR. rbx points into the data block (memory operands use it as base),
// rsp at a stack inside it; rsi/rdi/rcx are overridden for string cases.

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
  return { regs, flags, data };
}

// Record: u32 seed, u8 kind (0 plain, 1 string), u8 code length, code,
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
