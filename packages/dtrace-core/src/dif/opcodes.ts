// The DIF instruction set: the one opcode table shared by the D compiler's
// code generator and assembler, the disassembler (-S), the verifier and the
// VM. Numbers, mnemonics and operand formats are those of illumos
// <sys/dtrace.h> (DIF version 2) and libdtrace's dt_dis.c, so DIF listings
// read exactly like `dtrace -S`.
//
// Every instruction is one 32-bit word:
//
//   31      24 23      16 15       8 7        0
//  +----------+----------+----------+----------+
//  |    op    |    r1    |    r2    |  rd / rs |   register forms
//  +----------+----------+----------+----------+
//  |    op    |        label (24 bits)         |   branches
//  +----------+---------------------+----------+
//  |    op    |  int/str/var/subr/  |    rd    |   setx, sets, ldgs, call,
//  |          |  xlref index (16)   |  or rs   |   stgs, ldgaa, xlate ...
//  +----------+---------------------+----------+
//  |    op    | var (8)  |    ri    |    rd    |   ldga, ldta (array vars)
//  +----------+----------+----------+----------+
//  |    op    | type (8) |    r2    |    rs    |   pushtr, pushtv
//  +----------+----------+----------+----------+

/** Operand layout of an instruction; names after dt_dis.c's printers. */
export type DifFormat =
  | 'none' //      nop, popts, flushts
  | 'r1r2rd' //    or xor and sll srl sub add mul sdiv udiv srem urem sra copys
  | 'r1rd' //      not mov allocs
  | 'r1r2' //      cmp scmp
  | 'r1' //        tst
  | 'label' //     ba be bne ...
  | 'load' //      ld*  [r1], rd
  | 'store' //     st*  r1, [rd]
  | 'rd' //        ret  rd
  | 'setx' //      setx DT_INTEGER[i], rd
  | 'sets' //      sets DT_STRING[s], rd
  | 'ldarray' //   ldga/ldta DT_VAR(v8), ri, rd
  | 'ldvar' //     ldgs/ldts/ldls/ldgaa/ldtaa DT_VAR(v16), rd
  | 'stvar' //     stgs/stts/stls/stgaa/sttaa rs, DT_VAR(v16)
  | 'starray' //   stga DT_VAR(v16), ri, rd
  | 'call' //      call DIF_SUBR(s), rd
  | 'pushtr' //    pushtr DT_TYPE(t), r2, rs
  | 'pushtv' //    pushtv DT_TYPE(t), rs
  | 'xlate'; //    xlate/xlarg DT_XLREF[x], rd

export interface DifOpcodeInfo {
  /** Numeric opcode (bits 31..24). */
  readonly opcode: number;
  /** Mnemonic as printed by the disassembler. */
  readonly name: string;
  readonly format: DifFormat;
  /** Writes register rd (for the verifier's "cannot write %r0" check and the register allocator). */
  readonly writesRd: boolean;
  /** One-line meaning, as in <sys/dtrace.h>. */
  readonly summary: string;
}

/** DIF_OP_* numbers (illumos <sys/dtrace.h>). */
export const DIF_OP = {
  OR: 1,
  XOR: 2,
  AND: 3,
  SLL: 4,
  SRL: 5,
  SUB: 6,
  ADD: 7,
  MUL: 8,
  SDIV: 9,
  UDIV: 10,
  SREM: 11,
  UREM: 12,
  NOT: 13,
  MOV: 14,
  CMP: 15,
  TST: 16,
  BA: 17,
  BE: 18,
  BNE: 19,
  BG: 20,
  BGU: 21,
  BGE: 22,
  BGEU: 23,
  BL: 24,
  BLU: 25,
  BLE: 26,
  BLEU: 27,
  LDSB: 28,
  LDSH: 29,
  LDSW: 30,
  LDUB: 31,
  LDUH: 32,
  LDUW: 33,
  LDX: 34,
  RET: 35,
  NOP: 36,
  SETX: 37,
  SETS: 38,
  SCMP: 39,
  LDGA: 40,
  LDGS: 41,
  STGS: 42,
  LDTA: 43,
  LDTS: 44,
  STTS: 45,
  SRA: 46,
  CALL: 47,
  PUSHTR: 48,
  PUSHTV: 49,
  POPTS: 50,
  FLUSHTS: 51,
  LDGAA: 52,
  LDTAA: 53,
  STGAA: 54,
  STTAA: 55,
  LDLS: 56,
  STLS: 57,
  ALLOCS: 58,
  COPYS: 59,
  STB: 60,
  STH: 61,
  STW: 62,
  STX: 63,
  ULDSB: 64,
  ULDSH: 65,
  ULDSW: 66,
  ULDUB: 67,
  ULDUH: 68,
  ULDUW: 69,
  ULDX: 70,
  RLDSB: 71,
  RLDSH: 72,
  RLDSW: 73,
  RLDUB: 74,
  RLDUH: 75,
  RLDUW: 76,
  RLDX: 77,
  XLATE: 78,
  XLARG: 79,
  STGA: 80,
} as const;

export type DifOpName = keyof typeof DIF_OP;

function op(opcode: number, name: string, format: DifFormat, summary: string): DifOpcodeInfo {
  const writesRd =
    format === 'r1r2rd' ||
    format === 'r1rd' ||
    format === 'load' ||
    format === 'setx' ||
    format === 'sets' ||
    format === 'ldarray' ||
    format === 'ldvar' ||
    format === 'call' ||
    format === 'xlate';
  return { opcode, name, format, writesRd, summary };
}

/** The opcode table, indexed by opcode; index 0 is the illegal opcode. */
export const DIF_OPCODES: readonly (DifOpcodeInfo | undefined)[] = (() => {
  const rows: DifOpcodeInfo[] = [
    op(DIF_OP.OR, 'or', 'r1r2rd', 'rd = r1 | r2'),
    op(DIF_OP.XOR, 'xor', 'r1r2rd', 'rd = r1 ^ r2'),
    op(DIF_OP.AND, 'and', 'r1r2rd', 'rd = r1 & r2'),
    op(DIF_OP.SLL, 'sll', 'r1r2rd', 'rd = r1 << r2'),
    op(DIF_OP.SRL, 'srl', 'r1r2rd', 'rd = r1 >> r2 (logical)'),
    op(DIF_OP.SUB, 'sub', 'r1r2rd', 'rd = r1 - r2'),
    op(DIF_OP.ADD, 'add', 'r1r2rd', 'rd = r1 + r2'),
    op(DIF_OP.MUL, 'mul', 'r1r2rd', 'rd = r1 * r2'),
    op(DIF_OP.SDIV, 'sdiv', 'r1r2rd', 'rd = r1 / r2 (signed)'),
    op(DIF_OP.UDIV, 'udiv', 'r1r2rd', 'rd = r1 / r2 (unsigned)'),
    op(DIF_OP.SREM, 'srem', 'r1r2rd', 'rd = r1 % r2 (signed)'),
    op(DIF_OP.UREM, 'urem', 'r1r2rd', 'rd = r1 % r2 (unsigned)'),
    op(DIF_OP.NOT, 'not', 'r1rd', 'rd = ~r1'),
    op(DIF_OP.MOV, 'mov', 'r1rd', 'rd = r1'),
    op(DIF_OP.CMP, 'cmp', 'r1r2', 'set condition codes from r1 - r2'),
    op(DIF_OP.TST, 'tst', 'r1', 'set condition codes from r1'),
    op(DIF_OP.BA, 'ba', 'label', 'branch always'),
    op(DIF_OP.BE, 'be', 'label', 'branch if equal'),
    op(DIF_OP.BNE, 'bne', 'label', 'branch if not equal'),
    op(DIF_OP.BG, 'bg', 'label', 'branch if greater (signed)'),
    op(DIF_OP.BGU, 'bgu', 'label', 'branch if greater (unsigned)'),
    op(DIF_OP.BGE, 'bge', 'label', 'branch if greater or equal (signed)'),
    op(DIF_OP.BGEU, 'bgeu', 'label', 'branch if greater or equal (unsigned)'),
    op(DIF_OP.BL, 'bl', 'label', 'branch if less (signed)'),
    op(DIF_OP.BLU, 'blu', 'label', 'branch if less (unsigned)'),
    op(DIF_OP.BLE, 'ble', 'label', 'branch if less or equal (signed)'),
    op(DIF_OP.BLEU, 'bleu', 'label', 'branch if less or equal (unsigned)'),
    op(DIF_OP.LDSB, 'ldsb', 'load', 'rd = *(int8_t *)r1'),
    op(DIF_OP.LDSH, 'ldsh', 'load', 'rd = *(int16_t *)r1'),
    op(DIF_OP.LDSW, 'ldsw', 'load', 'rd = *(int32_t *)r1'),
    op(DIF_OP.LDUB, 'ldub', 'load', 'rd = *(uint8_t *)r1'),
    op(DIF_OP.LDUH, 'lduh', 'load', 'rd = *(uint16_t *)r1'),
    op(DIF_OP.LDUW, 'lduw', 'load', 'rd = *(uint32_t *)r1'),
    op(DIF_OP.LDX, 'ldx', 'load', 'rd = *(uint64_t *)r1'),
    op(DIF_OP.RET, 'ret', 'rd', 'return rd'),
    op(DIF_OP.NOP, 'nop', 'none', 'no operation'),
    op(DIF_OP.SETX, 'setx', 'setx', 'rd = inttab[i]'),
    op(DIF_OP.SETS, 'sets', 'sets', 'rd = &strtab[s]'),
    op(DIF_OP.SCMP, 'scmp', 'r1r2', 'set condition codes from strcmp(r1, r2)'),
    op(DIF_OP.LDGA, 'ldga', 'ldarray', 'rd = global array var[ri]'),
    op(DIF_OP.LDGS, 'ldgs', 'ldvar', 'rd = global scalar var'),
    op(DIF_OP.STGS, 'stgs', 'stvar', 'global scalar var = rs'),
    op(DIF_OP.LDTA, 'ldta', 'ldarray', 'rd = thread-local array var[ri]'),
    op(DIF_OP.LDTS, 'ldts', 'ldvar', 'rd = thread-local scalar var'),
    op(DIF_OP.STTS, 'stts', 'stvar', 'thread-local scalar var = rs'),
    op(DIF_OP.SRA, 'sra', 'r1r2rd', 'rd = r1 >> r2 (arithmetic)'),
    op(DIF_OP.CALL, 'call', 'call', 'rd = subroutine(tuple stack)'),
    op(DIF_OP.PUSHTR, 'pushtr', 'pushtr', 'push by-reference value rs of r2 bytes on the tuple stack'),
    op(DIF_OP.PUSHTV, 'pushtv', 'pushtv', 'push by-value rs on the tuple stack'),
    op(DIF_OP.POPTS, 'popts', 'none', 'pop the tuple stack'),
    op(DIF_OP.FLUSHTS, 'flushts', 'none', 'empty the tuple stack'),
    op(DIF_OP.LDGAA, 'ldgaa', 'ldvar', 'rd = global associative array var[tuple]'),
    op(DIF_OP.LDTAA, 'ldtaa', 'ldvar', 'rd = thread-local associative array var[tuple]'),
    op(DIF_OP.STGAA, 'stgaa', 'stvar', 'global associative array var[tuple] = rs'),
    op(DIF_OP.STTAA, 'sttaa', 'stvar', 'thread-local associative array var[tuple] = rs'),
    op(DIF_OP.LDLS, 'ldls', 'ldvar', 'rd = clause-local scalar var'),
    op(DIF_OP.STLS, 'stls', 'stvar', 'clause-local scalar var = rs'),
    op(DIF_OP.ALLOCS, 'allocs', 'r1rd', 'rd = r1 bytes of zeroed scratch'),
    op(DIF_OP.COPYS, 'copys', 'r1r2rd', 'copy r2 bytes from r1 to rd'),
    op(DIF_OP.STB, 'stb', 'store', '*(uint8_t *)rd = r1'),
    op(DIF_OP.STH, 'sth', 'store', '*(uint16_t *)rd = r1'),
    op(DIF_OP.STW, 'stw', 'store', '*(uint32_t *)rd = r1'),
    op(DIF_OP.STX, 'stx', 'store', '*(uint64_t *)rd = r1'),
    op(DIF_OP.ULDSB, 'uldsb', 'load', 'rd = user *(int8_t *)r1'),
    op(DIF_OP.ULDSH, 'uldsh', 'load', 'rd = user *(int16_t *)r1'),
    op(DIF_OP.ULDSW, 'uldsw', 'load', 'rd = user *(int32_t *)r1'),
    op(DIF_OP.ULDUB, 'uldub', 'load', 'rd = user *(uint8_t *)r1'),
    op(DIF_OP.ULDUH, 'ulduh', 'load', 'rd = user *(uint16_t *)r1'),
    op(DIF_OP.ULDUW, 'ulduw', 'load', 'rd = user *(uint32_t *)r1'),
    op(DIF_OP.ULDX, 'uldx', 'load', 'rd = user *(uint64_t *)r1'),
    op(DIF_OP.RLDSB, 'rldsb', 'load', 'rd = *(int8_t *)r1, restricted to scratch/stack'),
    op(DIF_OP.RLDSH, 'rldsh', 'load', 'rd = *(int16_t *)r1, restricted'),
    op(DIF_OP.RLDSW, 'rldsw', 'load', 'rd = *(int32_t *)r1, restricted'),
    op(DIF_OP.RLDUB, 'rldub', 'load', 'rd = *(uint8_t *)r1, restricted'),
    op(DIF_OP.RLDUH, 'rlduh', 'load', 'rd = *(uint16_t *)r1, restricted'),
    op(DIF_OP.RLDUW, 'rlduw', 'load', 'rd = *(uint32_t *)r1, restricted'),
    op(DIF_OP.RLDX, 'rldx', 'load', 'rd = *(uint64_t *)r1, restricted'),
    op(DIF_OP.XLATE, 'xlate', 'xlate', 'rd = translated member xlref'),
    op(DIF_OP.XLARG, 'xlarg', 'xlate', 'rd = translator input argument xlref'),
    op(DIF_OP.STGA, 'stga', 'starray', 'global array var[ri] = rd'),
  ];
  const table: (DifOpcodeInfo | undefined)[] = new Array(256).fill(undefined);
  for (const row of rows) table[row.opcode] = row;
  return table;
})();

/** Highest defined opcode. */
export const DIF_OP_MAX = DIF_OP.STGA;

/** Opcode info by mnemonic ("add", "setx" ...). */
export const DIF_OPCODES_BY_NAME: ReadonlyMap<string, DifOpcodeInfo> = new Map(
  DIF_OPCODES.filter((o): o is DifOpcodeInfo => o !== undefined).map((o) => [o.name, o]),
);

/** Branch opcodes, BA..BLEU. */
export function difIsBranch(opcode: number): boolean {
  return opcode >= DIF_OP.BA && opcode <= DIF_OP.BLEU;
}
