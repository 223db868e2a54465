// The WebAssembly backend for DIF (-x backend=wasm): each verified DIFO is
// translated at enable time into one WebAssembly function, its eight
// registers i64 locals and its condition codes i32 locals, emitted as a
// module binary here with no other tool. The DIF stays the contract: the
// verifier runs first, -S shows the DIF, and the interpreter (vm.ts) is the
// reference this backend must equal.
//
// Roadmap:
//   Translation strategy   - what runs in WebAssembly, what calls out
//   Module encoding         - the few binary-format pieces a DIFO needs
//   Translation             - DIF instruction by instruction
//   Running                 - the JavaScript side of a call
//
// Translation strategy. ALU, compares, branches, setx/sets, mov and ret run
// inside WebAssembly; every other instruction (loads, variables, builtins,
// tuples, scratch, stores, subroutines) is one call of the imported `op`
// helper with the instruction's index and its three register fields' values;
// the helper runs vm.ts's difStep, the interpreter's own code, so both
// backends do the same work there. A DIFO whose module would exceed
// MODULE_LIMIT bytes stays with the interpreter: browsers compile larger
// modules synchronously only off the main thread, and Node must choose the
// same DIFOs as the browser.
//
// Faults: the helper gives a fault without an offset the faulting
// instruction's (index * 4), as the interpreter does; a division by zero
// calls `fault` with its index. Instruction counts: DIF has no backward
// branches (the verifier refuses them), so the code is straight-line runs
// ending at a branch, a ret, a helper call or a division; each run adds its
// length to the counter as it starts, so a run cut short by a fault has
// counted up to the faulting instruction, as the interpreter counts.
//
// Control flow: branches only go forward, so each branch target closes one
// WebAssembly block opened at the function's start (outermost = furthest
// target); a branch to T is a br out of the blocks that end before T.

import { DIF_OP, DIF_OPCODES } from '../dif/opcodes.js';
import { DTRACEFLT, DifFault } from './faults.js';
import type { TupleEntry, VmFiring } from './firing.js';
import { difEmulate, difStep, type LoadedDifo } from './vm.js';

/** The largest module translated; larger DIFOs stay with the interpreter (see the strategy above). */
export const MODULE_LIMIT = 4096;

/* ---------------------------------------------------------------------- */
/* Module encoding                                                        */
/* ---------------------------------------------------------------------- */

const I32 = 0x7f;
const I64 = 0x7e;
const OP = {
  unreachable: 0x00, block: 0x02, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, br_if: 0x0d, return: 0x0f, call: 0x10, drop: 0x1a,
  local_get: 0x20, local_set: 0x21, global_get: 0x23, global_set: 0x24,
  i32_const: 0x41, i64_const: 0x42,
  i32_eqz: 0x45, i32_eq: 0x46, i32_ne: 0x47,
  i64_eqz: 0x50, i64_eq: 0x51, i64_lt_s: 0x53, i64_lt_u: 0x54,
  i32_add: 0x6a, i32_or: 0x72,
  i64_add: 0x7c, i64_sub: 0x7d, i64_mul: 0x7e, i64_div_s: 0x7f, i64_div_u: 0x80, i64_rem_s: 0x81, i64_rem_u: 0x82,
  i64_and: 0x83, i64_or: 0x84, i64_xor: 0x85, i64_shl: 0x86, i64_shr_s: 0x87, i64_shr_u: 0x88,
} as const;

class Bytes {
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

/* ---------------------------------------------------------------------- */
/* Translation                                                            */
/* ---------------------------------------------------------------------- */

// Locals: %r0..%r7, then the condition codes, then a scratch i64.
const CC_N = 8, CC_Z = 9, CC_V = 10, CC_C = 11, TMP = 12;
// Imported functions and the global.
const F_OP = 0, F_FAULT = 1, F_OP0 = 2, G_COUNT = 0;

const isBranch = (op: number): boolean => op >= DIF_OP.BA && op <= DIF_OP.BLEU;
const isDivision = (op: number): boolean => op === DIF_OP.SDIV || op === DIF_OP.UDIV || op === DIF_OP.SREM || op === DIF_OP.UREM;
const INLINE = new Set<number>([
  DIF_OP.OR, DIF_OP.XOR, DIF_OP.AND, DIF_OP.SLL, DIF_OP.SRL, DIF_OP.SRA, DIF_OP.SUB, DIF_OP.ADD, DIF_OP.MUL,
  DIF_OP.SDIV, DIF_OP.UDIV, DIF_OP.SREM, DIF_OP.UREM, DIF_OP.NOT, DIF_OP.MOV, DIF_OP.CMP, DIF_OP.TST,
  DIF_OP.BA, DIF_OP.BE, DIF_OP.BNE, DIF_OP.BG, DIF_OP.BGU, DIF_OP.BGE, DIF_OP.BGEU, DIF_OP.BL, DIF_OP.BLU, DIF_OP.BLE, DIF_OP.BLEU,
  DIF_OP.RET, DIF_OP.NOP, DIF_OP.SETX, DIF_OP.SETS,
]);
/**
 * Call-outs that read no register (only their index, the firing and the
 * tuple stack): they call `op0(pc)`, which passes no 64-bit value into
 * JavaScript (each would be a BigInt made).
 */
const NO_REGISTER_INPUT = new Set<number>([
  DIF_OP.LDGS, DIF_OP.LDTS, DIF_OP.LDLS, DIF_OP.LDGAA, DIF_OP.LDTAA, DIF_OP.CALL, DIF_OP.POPTS, DIF_OP.FLUSHTS,
]);
/** Whether an instruction runs as a call of the `op` helper. */
export const difCallsOut = (op: number): boolean => !INLINE.has(op);

const BINARY: Partial<Record<number, number>> = {
  [DIF_OP.OR]: OP.i64_or, [DIF_OP.XOR]: OP.i64_xor, [DIF_OP.AND]: OP.i64_and,
  [DIF_OP.SLL]: OP.i64_shl, [DIF_OP.SRL]: OP.i64_shr_u, [DIF_OP.SRA]: OP.i64_shr_s,
  [DIF_OP.SUB]: OP.i64_sub, [DIF_OP.ADD]: OP.i64_add, [DIF_OP.MUL]: OP.i64_mul,
  [DIF_OP.UDIV]: OP.i64_div_u, [DIF_OP.SREM]: OP.i64_rem_s, [DIF_OP.UREM]: OP.i64_rem_u,
};

/** The function body of `ld`'s DIFO. */
function translateBody(ld: LoadedDifo): Bytes {
  const text = ld.difo.buf;
  const n = text.length;
  const targets = new Set<number>();
  for (let pc = 0; pc < n; pc++) if (isBranch(text[pc]! >>> 24)) targets.add(text[pc]! & 0xffffff);
  const sorted = [...targets].sort((a, b) => a - b);
  const ends = (op: number): boolean => isBranch(op) || op === DIF_OP.RET || isDivision(op) || difCallsOut(op);

  const c = new Bytes();
  c.uleb(3).uleb(8).u8(I64).uleb(4).u8(I32).uleb(1).u8(I64);
  for (let i = sorted.length - 1; i >= 0; i--) c.u8(OP.block, 0x40);
  const get = (r: number): Bytes => (r < 8 ? c.u8(OP.local_get, r) : c.u8(OP.i64_const, 0));
  const flag = (l: number): Bytes => c.u8(OP.local_get, l);
  let open = 0; // index in `sorted` of the innermost open block
  let runStart = true;
  for (let pc = 0; pc < n; pc++) {
    if (targets.has(pc)) {
      c.u8(OP.end);
      open++;
      runStart = true;
    }
    const instr = text[pc]!;
    const op = instr >>> 24;
    const r1 = (instr >>> 16) & 0xff;
    const r2 = (instr >>> 8) & 0xff;
    const rd = instr & 0xff;
    if (runStart) {
      let k = 0;
      for (let j = pc; j < n; j++) {
        k++;
        if (ends(text[j]! >>> 24) || targets.has(j + 1)) break;
      }
      c.u8(OP.global_get, G_COUNT, OP.i32_const).sleb(BigInt(k)).u8(OP.i32_add, OP.global_set, G_COUNT);
      runStart = false;
    }
    if (ends(op)) runStart = true;
    const binary = BINARY[op];
    if (isDivision(op)) {
      get(r2).u8(OP.i64_eqz, OP.if, 0x40, OP.i32_const).sleb(BigInt(pc)).u8(OP.call, F_FAULT, OP.end);
    }
    if (op === DIF_OP.SDIV) {
      // INT64_MIN / -1 traps in WebAssembly; DIF's result is INT64_MIN, which 0 - r1 gives.
      get(r2).u8(OP.i64_const).sleb(-1n).u8(OP.i64_eq, OP.if, I64, OP.i64_const, 0);
      get(r1).u8(OP.i64_sub, OP.else);
      get(r1);
      get(r2).u8(OP.i64_div_s, OP.end, OP.local_set, rd);
    } else if (binary !== undefined) {
      get(r1);
      get(r2).u8(binary, OP.local_set, rd);
    } else if (isBranch(op)) {
      const depth = sorted.indexOf(instr & 0xffffff) - open;
      switch (op) {
        case DIF_OP.BA: break;
        case DIF_OP.BE: flag(CC_Z); break;
        case DIF_OP.BNE: flag(CC_Z).u8(OP.i32_eqz); break;
        case DIF_OP.BG: flag(CC_Z); flag(CC_N); flag(CC_V).u8(OP.i32_ne, OP.i32_or, OP.i32_eqz); break;
        case DIF_OP.BGU: flag(CC_C); flag(CC_Z).u8(OP.i32_or, OP.i32_eqz); break;
        case DIF_OP.BGE: flag(CC_N); flag(CC_V).u8(OP.i32_eq); break;
        case DIF_OP.BGEU: flag(CC_C).u8(OP.i32_eqz); break;
        case DIF_OP.BL: flag(CC_N); flag(CC_V).u8(OP.i32_ne); break;
        case DIF_OP.BLU: flag(CC_C); break;
        case DIF_OP.BLE: flag(CC_Z); flag(CC_N); flag(CC_V).u8(OP.i32_ne, OP.i32_or); break;
        case DIF_OP.BLEU: flag(CC_C); flag(CC_Z).u8(OP.i32_or); break;
      }
      c.u8(op === DIF_OP.BA ? OP.br : OP.br_if).uleb(depth);
    } else {
      switch (op) {
        case DIF_OP.NOT: get(r1).u8(OP.i64_const).sleb(-1n).u8(OP.i64_xor, OP.local_set, rd); break;
        case DIF_OP.MOV: get(r1).u8(OP.local_set, rd); break;
        case DIF_OP.CMP:
          get(r1);
          get(r2).u8(OP.i64_sub, OP.local_set, TMP);
          c.u8(OP.local_get, TMP, OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_N);
          get(r1);
          get(r2).u8(OP.i64_eq, OP.local_set, CC_Z);
          get(r1);
          get(r2).u8(OP.i64_xor, OP.local_get, TMP);
          get(r1).u8(OP.i64_xor, OP.i64_and, OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_V);
          get(r1);
          get(r2).u8(OP.i64_lt_u, OP.local_set, CC_C);
          break;
        case DIF_OP.TST:
          get(r1).u8(OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_N);
          get(r1).u8(OP.i64_eqz, OP.local_set, CC_Z);
          c.u8(OP.i32_const, 0, OP.local_set, CC_V, OP.i32_const, 0, OP.local_set, CC_C);
          break;
        case DIF_OP.RET: get(rd).u8(OP.return); break;
        case DIF_OP.NOP: break;
        case DIF_OP.SETX: c.u8(OP.i64_const).sleb(BigInt.asIntN(64, ld.difo.inttab[(instr >>> 8) & 0xffff]!)).u8(OP.local_set, rd); break;
        case DIF_OP.SETS: c.u8(OP.i64_const).sleb(BigInt.asIntN(64, ld.strtabAddress + BigInt((instr >>> 8) & 0xffff))).u8(OP.local_set, rd); break;
        default: {
          // op(pc, r1, r2, rd): the interpreter's difStep on these values.
          c.u8(OP.i32_const).sleb(BigInt(pc));
          if (NO_REGISTER_INPUT.has(op)) c.u8(OP.call, F_OP0);
          else {
            get(r1);
            get(r2);
            get(rd).u8(OP.call, F_OP);
          }
          if (op === DIF_OP.SCMP) {
            c.u8(OP.local_set, TMP, OP.local_get, TMP, OP.i64_const, 0, OP.i64_lt_s, OP.local_set, CC_N);
            c.u8(OP.local_get, TMP, OP.i64_eqz, OP.local_set, CC_Z);
            c.u8(OP.i32_const, 0, OP.local_set, CC_V, OP.i32_const, 0, OP.local_set, CC_C);
          } else if (DIF_OPCODES[op]?.writesRd && rd < 8) c.u8(OP.local_set, rd);
          else c.u8(OP.drop);
        }
      }
    }
  }
  // The verifier made the last instruction a ret.
  c.u8(OP.unreachable, OP.end);
  return c;
}

/** The module of one DIFO: imports d.op, d.fault, d.op0 and d.n (the instruction counter); exports run. */
export function difoModuleBytes(ld: LoadedDifo): Uint8Array<ArrayBuffer> {
  const m = new Bytes().u8(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  const types = new Bytes().uleb(4);
  types.u8(0x60).uleb(0).uleb(1).u8(I64); // run: () -> i64
  types.u8(0x60).uleb(4).u8(I32, I64, I64, I64).uleb(1).u8(I64); // op: (pc, r1, r2, rd) -> i64
  types.u8(0x60).uleb(1).u8(I32).uleb(0); // fault: (pc) -> ()
  types.u8(0x60).uleb(1).u8(I32).uleb(1).u8(I64); // op0: (pc) -> i64
  m.section(1, types);
  const imports = new Bytes().uleb(4);
  imports.name('d').name('op').u8(0x00).uleb(1);
  imports.name('d').name('fault').u8(0x00).uleb(2);
  imports.name('d').name('op0').u8(0x00).uleb(3);
  imports.name('d').name('n').u8(0x03, I32, 0x01);
  m.section(2, imports);
  m.section(3, new Bytes().uleb(1).uleb(0));
  m.section(7, new Bytes().uleb(1).name('run').u8(0x00).uleb(3));
  m.section(10, new Bytes().uleb(1).bytes(translateBody(ld)));
  return Uint8Array.from(m.b);
}

/* ---------------------------------------------------------------------- */
/* Running                                                                */
/* ---------------------------------------------------------------------- */

let counter: WebAssembly.Global | undefined;
/** The helper's registers: filled from its arguments, read back after difStep. */
const helperRegs: bigint[] = new Array<bigint>(256).fill(0n);

/**
 * Translates `ld` and returns the function that runs it in a firing, or
 * undefined when it stays with the interpreter (no WebAssembly, or a module
 * over MODULE_LIMIT).
 */
export function wasmCompile(ld: LoadedDifo): ((f: VmFiring) => bigint) | undefined {
  if (typeof WebAssembly === 'undefined') return undefined;
  const bytes = difoModuleBytes(ld);
  if (bytes.length > MODULE_LIMIT) return undefined;
  counter ??= new WebAssembly.Global({ value: 'i32', mutable: true }, 0);
  const count = counter;
  const text = ld.difo.buf;
  const tuple: TupleEntry[] = [];
  let cur: VmFiring | undefined;
  const op = (pc: number, a: bigint, b: bigint, d: bigint): bigint => {
    const instr = text[pc]!;
    const regs = helperRegs;
    regs[(instr >>> 16) & 0xff] = BigInt.asUintN(64, a);
    regs[(instr >>> 8) & 0xff] = BigInt.asUintN(64, b);
    regs[instr & 0xff] = BigInt.asUintN(64, d);
    try {
      const r = difStep(ld, cur!, instr, regs, tuple);
      return instr >>> 24 === DIF_OP.SCMP ? BigInt(r) : regs[instr & 0xff]!;
    } catch (e) {
      if (e instanceof DifFault && e.difOffset < 0) e.difOffset = pc * 4;
      throw e;
    }
  };
  const op0 = (pc: number): bigint => {
    const instr = text[pc]!;
    try {
      difStep(ld, cur!, instr, helperRegs, tuple);
      return helperRegs[instr & 0xff]!;
    } catch (e) {
      if (e instanceof DifFault && e.difOffset < 0) e.difOffset = pc * 4;
      throw e;
    }
  };
  const fault = (pc: number): never => {
    throw new DifFault(DTRACEFLT.DIVZERO, 0n, pc * 4);
  };
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { d: { op, fault, op0, n: count } });
  const run = instance.exports['run'] as () => bigint;
  return (f: VmFiring): bigint => {
    // A DIFO that is already running (a probe fired from inside it) runs the second time in the interpreter.
    if (cur !== undefined) return difEmulate(ld, f);
    cur = f;
    const outer = count.value as number;
    count.value = 0;
    try {
      return BigInt.asUintN(64, run());
    } finally {
      f.instructions += count.value as number;
      count.value = outer;
      tuple.length = 0;
      cur = undefined;
    }
  };
}
