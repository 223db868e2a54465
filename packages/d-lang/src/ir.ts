// The compiler's intermediate representation: what the code generator
// (passes/codegen.ts) hands the assembler (src/assembler.ts) and the
// assemble pass — the variables a DIFO references, whose DIFV_F_REF/MOD
// flags accumulate over the DIFO, and each clause as an ECB description
// with its DIFOs and action records, plus the program's formats.
import type { Difo, DifType } from '@wdtrace/dtrace-core/dif';
import type { FormatDescription, ProbeDescription } from '@wdtrace/dtrace-core/program';
import type { CType } from '@wdtrace/dtrace-core/types';

export type { FormatDescription };

export interface IrVariable {
  readonly name: string;
  readonly id: number;
  readonly kind: number;
  readonly scope: number;
  readonly type: DifType;
  /** DIFV_F_REF | DIFV_F_MOD accumulated over the uses in one DIFO. */
  flags: number;
}

export interface IrAction {
  readonly kind: number;
  readonly difo?: Difo;
  readonly ntuple: number;
  readonly arg: bigint;
  readonly uarg: bigint;
  /** `type`: the D type of the value recorded (trace, print, printf-like arguments), for the consumer. */
  readonly record?: { size: number; alignment: number; format: number; type?: CType | undefined };
  readonly source?: string;
}

export interface IrEcb {
  readonly clause: number;
  readonly probes: ProbeDescription[];
  readonly predicate?: Difo;
  readonly actions: IrAction[];
  readonly destructive: boolean;
  readonly speculative: boolean;
  readonly referenceAttributes?: string;
}

/** The code generator's output: one ECB per clause, and the printf-like formats the actions refer to. */
export interface IrProgram {
  readonly ecbs: IrEcb[];
  readonly formats: FormatDescription[];
}
