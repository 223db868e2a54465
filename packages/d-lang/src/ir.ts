// The code generator's instructions before assembly: DIF instructions whose
// operands still name things (integer values, strings, variables, labels)
// rather than table indexes and instruction offsets. The assembler
// (src/assembler.ts) turns each DIFO's instructions into a DIFO: it builds
// the integer, string and variable tables and resolves labels.
import type { DifType } from '@wdtrace/dtrace-core/dif';

export interface IrVariable {
  readonly name: string;
  readonly id: number;
  readonly kind: number;
  readonly scope: number;
  readonly type: DifType;
  /** DIFV_F_REF | DIFV_F_MOD accumulated over the uses in one DIFO. */
  flags: number;
}

export type IrInstr =
  | { readonly k: 'fmt'; readonly op: number; readonly r1: number; readonly r2: number; readonly rd: number }
  | { readonly k: 'branch'; readonly op: number; readonly label: number }
  | { readonly k: 'label'; readonly label: number }
  | { readonly k: 'setx'; readonly value: bigint; readonly rd: number }
  | { readonly k: 'sets'; readonly value: string; readonly rd: number }
  /** Variable load/store: ldgs/stgs/ldts/... (16-bit id) or ldga/ldta (8-bit id + index register). */
  | { readonly k: 'var'; readonly op: number; readonly variable: IrVariable; readonly reg: number; readonly index?: number }
  | { readonly k: 'call'; readonly subr: number; readonly rd: number };

/**
 * Every instruction is built by this one constructor, so that all have the
 * same object shape (monomorphic property loads in the assembler); the
 * union type above is what the code sees.
 */
class Instr {
  constructor(
    readonly k: IrInstr['k'],
    readonly op: number,
    readonly r1: number,
    readonly r2: number,
    readonly rd: number,
    readonly label: number,
    readonly value: bigint | string | undefined,
    readonly variable: IrVariable | undefined,
    readonly reg: number,
    readonly index: number | undefined,
    readonly subr: number,
  ) {}
}

export const ir = {
  fmt: (op: number, r1: number, r2: number, rd: number): IrInstr => new Instr('fmt', op, r1, r2, rd, 0, undefined, undefined, 0, undefined, 0) as IrInstr,
  branch: (op: number, label: number): IrInstr => new Instr('branch', op, 0, 0, 0, label, undefined, undefined, 0, undefined, 0) as IrInstr,
  label: (label: number): IrInstr => new Instr('label', 0, 0, 0, 0, label, undefined, undefined, 0, undefined, 0) as IrInstr,
  setx: (value: bigint, rd: number): IrInstr => new Instr('setx', 0, 0, 0, rd, 0, value, undefined, 0, undefined, 0) as IrInstr,
  sets: (value: string, rd: number): IrInstr => new Instr('sets', 0, 0, 0, rd, 0, value, undefined, 0, undefined, 0) as IrInstr,
  variable: (op: number, variable: IrVariable, reg: number, index?: number): IrInstr => new Instr('var', op, 0, 0, 0, 0, undefined, variable, reg, index, 0) as IrInstr,
  call: (subr: number, rd: number): IrInstr => new Instr('call', 0, 0, 0, rd, 0, undefined, undefined, 0, undefined, subr) as IrInstr,
};
