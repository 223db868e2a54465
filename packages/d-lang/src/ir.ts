// The code generator's output before assembly: DIF instructions whose
// operands still name things (integer values, strings, variables, labels)
// rather than table indexes and instruction offsets. The assembler pass
// turns each IrDifo into a DIFO: it builds the integer, string and variable
// tables and resolves labels.
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

export interface IrDifo {
  readonly code: IrInstr[];
  readonly rtype: DifType;
  /** What the DIFO computes, for listings ("predicate", "trace()", ...). */
  readonly what: string;
}
