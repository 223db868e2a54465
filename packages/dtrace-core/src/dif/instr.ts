// Encoding and decoding of 32-bit DIF instruction words, after the
// DIF_INSTR_* macros of illumos <sys/dtrace.h>. Encoders check field ranges
// and throw a RangeError naming the field, so a code-generator bug can never
// produce a silently wrapped instruction.

import { DIF_OP } from './opcodes.js';

export const difInstrOp = (i: number): number => (i >>> 24) & 0xff;
export const difInstrR1 = (i: number): number => (i >>> 16) & 0xff;
export const difInstrR2 = (i: number): number => (i >>> 8) & 0xff;
export const difInstrRd = (i: number): number => i & 0xff;
export const difInstrRs = (i: number): number => i & 0xff;
export const difInstrLabel = (i: number): number => i & 0xffffff;
export const difInstrVar = (i: number): number => (i >>> 8) & 0xffff;
export const difInstrInteger = (i: number): number => (i >>> 8) & 0xffff;
export const difInstrString = (i: number): number => (i >>> 8) & 0xffff;
export const difInstrSubr = (i: number): number => (i >>> 8) & 0xffff;
export const difInstrType = (i: number): number => (i >>> 16) & 0xff;
export const difInstrXlref = (i: number): number => (i >>> 8) & 0xffff;

function field(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`DIF instruction field ${name} out of range: ${value} (max ${max})`);
  }
  return value;
}

/** DIF_INSTR_FMT(op, r1, r2, d) */
export function difInstrFmt(op: number, r1: number, r2: number, d: number): number {
  return (
    ((field('op', op, 0xff) << 24) | (field('r1', r1, 0xff) << 16) | (field('r2', r2, 0xff) << 8) | field('rd', d, 0xff)) >>>
    0
  );
}

/** op, 16-bit index, rd: SETX, SETS, CALL, LDV/STV, XLATE. */
function difInstrIndexed(op: number, index: number, d: number, indexName: string): number {
  return ((field('op', op, 0xff) << 24) | (field(indexName, index, 0xffff) << 8) | field('rd', d, 0xff)) >>> 0;
}

export const difInstrNot = (r1: number, d: number): number => difInstrFmt(DIF_OP.NOT, r1, 0, d);
export const difInstrMov = (r1: number, d: number): number => difInstrFmt(DIF_OP.MOV, r1, 0, d);
export const difInstrCmp = (op: number, r1: number, r2: number): number => difInstrFmt(op, r1, r2, 0);
export const difInstrTst = (r1: number): number => difInstrFmt(DIF_OP.TST, r1, 0, 0);
export const difInstrBranch = (op: number, label: number): number =>
  ((field('op', op, 0xff) << 24) | field('label', label, 0xffffff)) >>> 0;
export const difInstrLoad = (op: number, r1: number, d: number): number => difInstrFmt(op, r1, 0, d);
export const difInstrStore = (op: number, r1: number, d: number): number => difInstrFmt(op, r1, 0, d);
export const difInstrSetx = (i: number, d: number): number => difInstrIndexed(DIF_OP.SETX, i, d, 'integer index');
export const difInstrSets = (s: number, d: number): number => difInstrIndexed(DIF_OP.SETS, s, d, 'string offset');
export const difInstrRet = (d: number): number => difInstrFmt(DIF_OP.RET, 0, 0, d);
export const DIF_INSTR_NOP = (DIF_OP.NOP << 24) >>> 0;
export const difInstrLda = (op: number, v: number, r: number, d: number): number => difInstrFmt(op, v, r, d);
export const difInstrLdv = (op: number, v: number, d: number): number => difInstrIndexed(op, v, d, 'variable');
export const difInstrStv = (op: number, v: number, rs: number): number => difInstrIndexed(op, v, rs, 'variable');
export const difInstrCall = (s: number, d: number): number => difInstrIndexed(DIF_OP.CALL, s, d, 'subroutine');
export const difInstrPushts = (op: number, t: number, r2: number, rs: number): number => difInstrFmt(op, t, r2, rs);
export const DIF_INSTR_POPTS = (DIF_OP.POPTS << 24) >>> 0;
export const DIF_INSTR_FLUSHTS = (DIF_OP.FLUSHTS << 24) >>> 0;
export const difInstrAllocs = (r1: number, d: number): number => difInstrFmt(DIF_OP.ALLOCS, r1, 0, d);
export const difInstrCopys = (r1: number, r2: number, d: number): number => difInstrFmt(DIF_OP.COPYS, r1, r2, d);
export const difInstrXlate = (op: number, r: number, d: number): number => difInstrIndexed(op, r, d, 'xlref');

/** All fields of an instruction word, decoded at once (for tools; the VM uses the extractors). */
export interface DifDecoded {
  op: number;
  r1: number;
  r2: number;
  rd: number;
  label: number;
  index: number;
  type: number;
}

export function difDecode(i: number): DifDecoded {
  return {
    op: difInstrOp(i),
    r1: difInstrR1(i),
    r2: difInstrR2(i),
    rd: difInstrRd(i),
    label: difInstrLabel(i),
    index: difInstrVar(i),
    type: difInstrType(i),
  };
}
