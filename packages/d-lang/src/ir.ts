// What the code generator hands the assembler (src/assembler.ts) besides
// registers, opcodes and values: the variables a DIFO references, whose
// DIFV_F_REF/MOD flags accumulate over the DIFO.
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
