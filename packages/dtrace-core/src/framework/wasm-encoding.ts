// The few pieces of the WebAssembly binary format the backend emits (wasm.ts:
// one module per DIFO; trampoline.ts: one per probe; wasm-walk.ts: the guest-memory walk of a machine):
// opcodes, LEB128 numbers, sections, and structured control with named
// labels so that a branch names the block it leaves instead of counting
// depths by hand.

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F64 = 0x7c;
/** The block type of a block that takes and leaves nothing. */
export const VOID = 0x40;

export const OP = {
  unreachable: 0x00, block: 0x02, loop: 0x03, select: 0x1b, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, br_if: 0x0d, return: 0x0f, call: 0x10, drop: 0x1a,
  local_get: 0x20, local_set: 0x21, local_tee: 0x22, global_get: 0x23, global_set: 0x24,
  i32_load: 0x28, i64_load: 0x29, i32_load8_u: 0x2d, f64_load: 0x2b, i64_load8_u: 0x31, i64_load16_u: 0x33, i64_load32_u: 0x35, i32_store: 0x36, i64_store: 0x37, f64_store: 0x39, i64_store8: 0x3c, i64_store16: 0x3d, i64_store32: 0x3e,
  i32_const: 0x41, i64_const: 0x42,
  i32_eqz: 0x45, i32_eq: 0x46, i32_ne: 0x47, i32_lt_u: 0x49, i32_gt_u: 0x4b, i32_ge_u: 0x4f,
  i64_eqz: 0x50, i64_eq: 0x51, i64_ne: 0x52, i64_lt_s: 0x53, i64_lt_u: 0x54, i64_gt_s: 0x55, i64_gt_u: 0x56, i64_ge_s: 0x59, i64_ge_u: 0x5a,
  i64_clz: 0x79,
  i32_add: 0x6a, i32_sub: 0x6b, i32_mul: 0x6c, i32_and: 0x71, i32_or: 0x72, i32_xor: 0x73, i32_shl: 0x74, i32_shr_u: 0x76,
  i64_add: 0x7c, i64_sub: 0x7d, i64_mul: 0x7e, i64_div_s: 0x7f, i64_div_u: 0x80, i64_rem_s: 0x81, i64_rem_u: 0x82,
  i64_and: 0x83, i64_or: 0x84, i64_xor: 0x85, i64_shl: 0x86, i64_shr_s: 0x87, i64_shr_u: 0x88,
  i32_wrap_i64: 0xa7, i64_extend_i32_u: 0xad, i64_trunc_f64_s: 0xb0,
  i64_extend8_s: 0xc2, i64_extend16_s: 0xc3, i64_extend32_s: 0xc4,
} as const;

export class Bytes {
  readonly b: number[] = [];
  u8(...v: number[]): this {
    for (const x of v) this.b.push(x);
    return this;
  }
  uleb(v: number): this {
    do {
      let byte = v & 0x7f;
      v >>>= 7;
      if (v !== 0) byte |= 0x80;
      this.b.push(byte);
    } while (v !== 0);
    return this;
  }
  sleb(v: bigint): this {
    for (;;) {
      const byte = Number(v & 0x7fn);
      v >>= 7n;
      const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
      this.b.push(done ? byte : byte | 0x80);
      if (done) return this;
    }
  }
  name(s: string): this {
    this.uleb(s.length);
    for (let i = 0; i < s.length; i++) this.b.push(s.charCodeAt(i));
    return this;
  }
  bytes(o: Bytes): this {
    this.uleb(o.b.length);
    for (const x of o.b) this.b.push(x);
    return this;
  }
  section(id: number, body: Bytes): this {
    return this.u8(id).bytes(body);
  }
}

/**
 * A function body being written: Bytes with constants by value and blocks
 * by name. `block`/`if_` open a label, `end` closes the innermost, and
 * `br`/`brIf` leave the named one.
 */
export class Code extends Bytes {
  private readonly labels: string[] = [];
  /** i32.const of a 32-bit value given signed or unsigned. */
  i32(v: number): this {
    return this.u8(OP.i32_const).sleb(BigInt(v | 0));
  }
  /** i64.const of a value given as a number (exact) or a bigint, signed or unsigned. */
  i64(v: number | bigint): this {
    return this.u8(OP.i64_const).sleb(BigInt.asIntN(64, BigInt(v)));
  }
  get(local: number): this {
    return this.u8(OP.local_get).uleb(local);
  }
  set(local: number): this {
    return this.u8(OP.local_set).uleb(local);
  }
  /** A memory access: its opcode, alignment exponent and offset. */
  mem(op: number, align: number, offset: number): this {
    return this.u8(op).uleb(align).uleb(offset);
  }
  block(label: string, type: number = VOID): this {
    this.labels.push(label);
    return this.u8(OP.block, type);
  }
  /** A loop: a branch to its label goes back to its start. */
  loop(label: string): this {
    this.labels.push(label);
    return this.u8(OP.loop, VOID);
  }
  if_(type: number = VOID, label = ''): this {
    this.labels.push(label);
    return this.u8(OP.if, type);
  }
  else_(): this {
    return this.u8(OP.else);
  }
  end(): this {
    this.labels.pop();
    return this.u8(OP.end);
  }
  private depth(label: string): number {
    const i = this.labels.lastIndexOf(label);
    if (i < 0) throw new Error(`no open block ${label}`);
    return this.labels.length - 1 - i;
  }
  br(label: string): this {
    return this.u8(OP.br).uleb(this.depth(label));
  }
  brIf(label: string): this {
    return this.u8(OP.br_if).uleb(this.depth(label));
  }
}
