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
