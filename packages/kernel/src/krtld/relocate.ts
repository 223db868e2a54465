// Relocation arithmetic for x86-64 (RELA) and ARM (REL), one table per ISA
// naming each supported type, how its addend is read and how its value is
// computed and stored, with the psABI's range checks.

import { EM_ARM, EM_X86_64 } from '../elf/index.js';

/** What a relocation computes with: S symbol, A addend, P place, G GOT slot address. */
export interface RelocInput {
  readonly S: bigint;
  readonly A: bigint;
  readonly P: bigint;
  /** Address of the symbol's GOT slot (only for GOT-relative types). */
  readonly G?: bigint;
}

export interface RelocKind {
  readonly name: string;
  /** Width of the relocated field in bytes. */
  readonly size: 4 | 8;
  /** Needs a GOT slot for the symbol. */
  readonly got?: boolean;
  /** Read the implicit addend from the field (REL). */
  readonly readAddend?: (field: bigint) => bigint;
  /** Compute the new field value (or throw RangeError-like message). */
  readonly apply: (x: RelocInput, field: bigint) => bigint;
}

const M32 = 0xffffffffn;
const signExtend = (v: bigint, bits: number): bigint => BigInt.asIntN(bits, v);

function checkSigned(v: bigint, bits: number, what: string): bigint {
  const lim = 1n << BigInt(bits - 1);
  if (v < -lim || v >= lim) throw new Error(`${what}: value 0x${v.toString(16)} does not fit in a signed ${bits}-bit field`);
  return v;
}
function checkUnsigned(v: bigint, bits: number, what: string): bigint {
  if (v < 0n || v >= 1n << BigInt(bits)) throw new Error(`${what}: value 0x${v.toString(16)} does not fit in an unsigned ${bits}-bit field`);
  return v;
}
/** x86-64 values are computed modulo 2^64 as the psABI does with unsigned arithmetic. */
const wrap64 = (v: bigint): bigint => BigInt.asIntN(64, v);

// ---- x86-64 (System V psABI, relocation types table) ----
export const X86_64_RELOCS: ReadonlyMap<number, RelocKind> = new Map<number, RelocKind>([
  [0, { name: 'R_X86_64_NONE', size: 4, apply: (_x, f) => f }],
  [1, { name: 'R_X86_64_64', size: 8, apply: ({ S, A }) => BigInt.asUintN(64, S + A) }],
  [2, { name: 'R_X86_64_PC32', size: 4, apply: ({ S, A, P }) => BigInt.asUintN(32, checkSigned(wrap64(S + A - P), 32, 'R_X86_64_PC32')) }],
  [4, { name: 'R_X86_64_PLT32', size: 4, apply: ({ S, A, P }) => BigInt.asUintN(32, checkSigned(wrap64(S + A - P), 32, 'R_X86_64_PLT32')) }],
  [9, { name: 'R_X86_64_GOTPCREL', size: 4, got: true, apply: ({ G, A, P }) => BigInt.asUintN(32, checkSigned(wrap64(G! + A - P), 32, 'R_X86_64_GOTPCREL')) }],
  [10, { name: 'R_X86_64_32', size: 4, apply: ({ S, A }) => checkUnsigned(BigInt.asUintN(64, S + A), 32, 'R_X86_64_32') }],
  [11, { name: 'R_X86_64_32S', size: 4, apply: ({ S, A }) => BigInt.asUintN(32, checkSigned(wrap64(S + A), 32, 'R_X86_64_32S')) }],
  [24, { name: 'R_X86_64_PC64', size: 8, apply: ({ S, A, P }) => BigInt.asUintN(64, S + A - P) }],
  [41, { name: 'R_X86_64_GOTPCRELX', size: 4, got: true, apply: ({ G, A, P }) => BigInt.asUintN(32, checkSigned(wrap64(G! + A - P), 32, 'R_X86_64_GOTPCRELX')) }],
  [42, { name: 'R_X86_64_REX_GOTPCRELX', size: 4, got: true, apply: ({ G, A, P }) => BigInt.asUintN(32, checkSigned(wrap64(G! + A - P), 32, 'R_X86_64_REX_GOTPCRELX')) }],
]);

// ---- ARM (ELF for the ARM Architecture, AAELF; A32 instructions) ----
const armBranchAddend = (f: bigint): bigint => signExtend((f & 0xffffffn) << 2n, 26);
function armBranch(name: string) {
  return ({ S, A, P }: RelocInput, f: bigint): bigint => {
    const v = BigInt.asIntN(32, S + A - P);
    if (v & 3n) throw new Error(`${name}: branch offset 0x${v.toString(16)} is not word aligned (Thumb target?)`);
    checkSigned(v, 26, name);
    return (f & 0xff000000n) | ((v >> 2n) & 0xffffffn);
  };
}
const movwAddend = (f: bigint): bigint => signExtend(((f >> 4n) & 0xf000n) | (f & 0xfffn), 16);
const movwField = (f: bigint, imm: bigint): bigint => (f & 0xfff0f000n) | ((imm & 0xf000n) << 4n) | (imm & 0xfffn);

// ---- ARM: T32 instructions (AAELF's Thumb relocations) ----
// A 32-bit T32 instruction is two little-endian halfwords, the first one
// lowest, so its field as one little-endian word is hw1 << 16 | hw0. A
// symbol's value has bit 0 set for Thumb code (the T of `(S + A) | T`).

/** imm32 of BL/BLX (T1/T2) and B.W (T4): S:I1:I2:imm10:imm11:'0', I1 = NOT(J1 XOR S), I2 = NOT(J2 XOR S). */
function thumbBranch24Addend(f: bigint): bigint {
  const hw0 = Number(f & 0xffffn);
  const hw1 = Number(f >> 16n);
  const s = (hw0 >> 10) & 1;
  const i1 = ((hw1 >> 13) & 1) ^ s ^ 1;
  const i2 = ((hw1 >> 11) & 1) ^ s ^ 1;
  const imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw0 & 0x3ff) << 12) | ((hw1 & 0x7ff) << 1);
  return signExtend(BigInt(imm), 25);
}

/** The BL/BLX/B.W field with its offset replaced by `v` (bits 24:1; bit 0 of `v` ignored). */
function thumbBranch24Field(f: bigint, v: bigint): bigint {
  const imm = Number(BigInt.asUintN(25, v));
  const s = (imm >> 24) & 1;
  const j1 = ((imm >> 23) & 1) ^ s ^ 1;
  const j2 = ((imm >> 22) & 1) ^ s ^ 1;
  const hw0 = (Number(f & 0xffffn) & 0xf800) | (s << 10) | ((imm >> 12) & 0x3ff);
  const hw1 = (Number(f >> 16n) & 0xd000) | (j1 << 13) | (j2 << 11) | ((imm >> 1) & 0x7ff);
  return (BigInt(hw1) << 16n) | BigInt(hw0);
}

/** R_ARM_THM_CALL: `bl` to Thumb code, `blx` (word-aligned, from Align(P, 4)) to A32 code. */
function thumbCall({ S, A, P }: RelocInput, f: bigint): bigint {
  const toThumb = (S & 1n) === 1n;
  const v = BigInt.asIntN(32, toThumb ? (S & ~1n) + A - P : S + A - (P & ~3n));
  checkSigned(v, 25, 'R_ARM_THM_CALL');
  const field = thumbBranch24Field(f, v);
  // hw1 bit 12 chooses bl (1) or blx (0); blx's H bit (imm bit 1 of hw1 bit 0) must be 0.
  return toThumb ? field | (1n << 28n) : (field & ~(1n << 28n)) & ~(1n << 16n);
}

/** R_ARM_THM_JUMP24: `b.w` within Thumb code (a branch to A32 code would need a veneer). */
function thumbJump24({ S, A, P }: RelocInput, f: bigint): bigint {
  if ((S & 1n) === 0n) throw new Error('R_ARM_THM_JUMP24: b.w to A32 code needs an interworking veneer, which krtld does not make');
  return thumbBranch24Field(f, checkSigned(BigInt.asIntN(32, (S & ~1n) + A - P), 25, 'R_ARM_THM_JUMP24'));
}

/** imm32 of B<c>.W (T3): S:J2:J1:imm6:imm11:'0'. */
function thumbBranch19Addend(f: bigint): bigint {
  const hw0 = Number(f & 0xffffn);
  const hw1 = Number(f >> 16n);
  const imm = (((hw0 >> 10) & 1) << 20) | (((hw1 >> 11) & 1) << 19) | (((hw1 >> 13) & 1) << 18) | ((hw0 & 0x3f) << 12) | ((hw1 & 0x7ff) << 1);
  return signExtend(BigInt(imm), 21);
}

/** R_ARM_THM_JUMP19: `b<c>.w` within Thumb code. */
function thumbJump19({ S, A, P }: RelocInput, f: bigint): bigint {
  if ((S & 1n) === 0n) throw new Error('R_ARM_THM_JUMP19: b<c>.w to A32 code cannot interwork');
  const imm = Number(BigInt.asUintN(21, checkSigned(BigInt.asIntN(32, (S & ~1n) + A - P), 21, 'R_ARM_THM_JUMP19')));
  const hw0 = (Number(f & 0xffffn) & 0xfbc0) | (((imm >> 20) & 1) << 10) | ((imm >> 12) & 0x3f);
  const hw1 = (Number(f >> 16n) & 0xd000) | (((imm >> 18) & 1) << 13) | (((imm >> 19) & 1) << 11) | ((imm >> 1) & 0x7ff);
  return (BigInt(hw1) << 16n) | BigInt(hw0);
}

/** MOVW/MOVT (T3/T1) imm16 = imm4:i:imm3:imm8 (hw0 bits 3:0 and 10, hw1 bits 14:12 and 7:0). */
const thumbMovwAddend = (f: bigint): bigint =>
  signExtend(((f & 0xfn) << 12n) | (((f >> 10n) & 1n) << 11n) | (((f >> 28n) & 7n) << 8n) | ((f >> 16n) & 0xffn), 16);
const thumbMovwField = (f: bigint, imm: bigint): bigint =>
  (f & 0x8f00fbf0n) | ((imm >> 12n) & 0xfn) | (((imm >> 11n) & 1n) << 10n) | (((imm >> 8n) & 7n) << 28n) | ((imm & 0xffn) << 16n);

export const ARM_RELOCS: ReadonlyMap<number, RelocKind> = new Map<number, RelocKind>([
  [0, { name: 'R_ARM_NONE', size: 4, apply: (_x, f) => f }],
  [1, { name: 'R_ARM_PC24', size: 4, readAddend: armBranchAddend, apply: armBranch('R_ARM_PC24') }],
  [2, { name: 'R_ARM_ABS32', size: 4, readAddend: (f) => f, apply: ({ S, A }) => (S + A) & M32 }],
  [3, { name: 'R_ARM_REL32', size: 4, readAddend: (f) => f, apply: ({ S, A, P }) => (S + A - P) & M32 }],
  [28, { name: 'R_ARM_CALL', size: 4, readAddend: armBranchAddend, apply: armBranch('R_ARM_CALL') }],
  [29, { name: 'R_ARM_JUMP24', size: 4, readAddend: armBranchAddend, apply: armBranch('R_ARM_JUMP24') }],
  [38, { name: 'R_ARM_TARGET1', size: 4, readAddend: (f) => f, apply: ({ S, A }) => (S + A) & M32 }],
  [40, { name: 'R_ARM_V4BX', size: 4, apply: (_x, f) => f }],
  [42, {
    name: 'R_ARM_PREL31', size: 4,
    readAddend: (f) => signExtend(f & 0x7fffffffn, 31),
    apply: ({ S, A, P }, f) => (f & 0x80000000n) | (BigInt.asUintN(31, checkSigned(BigInt.asIntN(32, S + A - P), 31, 'R_ARM_PREL31'))),
  }],
  [43, { name: 'R_ARM_MOVW_ABS_NC', size: 4, readAddend: movwAddend, apply: ({ S, A }, f) => movwField(f, (S + A) & 0xffffn) }],
  [44, { name: 'R_ARM_MOVT_ABS', size: 4, readAddend: movwAddend, apply: ({ S, A }, f) => movwField(f, ((S + A) >> 16n) & 0xffffn) }],
  [45, { name: 'R_ARM_MOVW_PREL_NC', size: 4, readAddend: movwAddend, apply: ({ S, A, P }, f) => movwField(f, (S + A - P) & 0xffffn) }],
  [46, { name: 'R_ARM_MOVT_PREL', size: 4, readAddend: movwAddend, apply: ({ S, A, P }, f) => movwField(f, BigInt.asUintN(32, S + A - P) >> 16n) }],
  [10, { name: 'R_ARM_THM_CALL', size: 4, readAddend: thumbBranch24Addend, apply: thumbCall }],
  [30, { name: 'R_ARM_THM_JUMP24', size: 4, readAddend: thumbBranch24Addend, apply: thumbJump24 }],
  [47, { name: 'R_ARM_THM_MOVW_ABS_NC', size: 4, readAddend: thumbMovwAddend, apply: ({ S, A }, f) => thumbMovwField(f, (S + A) & 0xffffn) }],
  [48, { name: 'R_ARM_THM_MOVT_ABS', size: 4, readAddend: thumbMovwAddend, apply: ({ S, A }, f) => thumbMovwField(f, ((S + A) >> 16n) & 0xffffn) }],
  [51, { name: 'R_ARM_THM_JUMP19', size: 4, readAddend: thumbBranch19Addend, apply: thumbJump19 }],
]);

export function relocTable(machine: number): ReadonlyMap<number, RelocKind> {
  if (machine === EM_X86_64) return X86_64_RELOCS;
  if (machine === EM_ARM) return ARM_RELOCS;
  throw new Error(`no relocation table for machine ${machine}`);
}

export function relocName(machine: number, type: number): string {
  return relocTable(machine).get(type)?.name ?? `type ${type}`;
}

export function readField(bytes: Uint8Array, off: number, size: 4 | 8): bigint {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return size === 8 ? dv.getBigUint64(off, true) : BigInt(dv.getUint32(off, true));
}
export function writeField(bytes: Uint8Array, off: number, size: 4 | 8, v: bigint): void {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (size === 8) dv.setBigUint64(off, BigInt.asUintN(64, v), true);
  else dv.setUint32(off, Number(BigInt.asUintN(32, v)), true);
}
