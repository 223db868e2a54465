// The D types of the values a compiled program's actions record, read back
// from the compiler's typed statements: the consumer needs them for the sign
// of printf's %d (pfcheck_dint) and for print(), which prints by type
// (dtrace_print). The compiled program itself carries record sizes only, so
// the CLI pairs each ECB's value-recording actions with the typed arguments
// of its clause's statements, in order: trace()/print() record their
// argument; printf(), printa(), system() and freopen() one record per
// argument after a constant format.
import { DTRACEACT, type EcbDescription, type RecordTypes } from '@wdtrace/dtrace-core';
import type { CType } from '@wdtrace/dtrace-core/types';
import type { CompileResult } from '@wdtrace/d-lang';

const PRINTF_LIKE = new Set(['printf', 'printa', 'system', 'freopen']);
const PRINTF_KINDS = new Set<number>([DTRACEACT.PRINTF, DTRACEACT.PRINTA, DTRACEACT.SYSTEM, DTRACEACT.FREOPEN]);

/** The typed values of one clause's statements, in the order its actions record them. */
function clauseValues(result: CompileResult, clause: number): (CType | undefined)[] | undefined {
  const statements = result.context.clauses[clause]?.cooked?.statements;
  if (statements === undefined) return undefined;
  const values: (CType | undefined)[] = [];
  for (const st of statements) {
    if (st.kind !== 'action') continue;
    if (st.name === 'trace' || st.name === 'print') values.push(st.args[0]?.type);
    else if (PRINTF_LIKE.has(st.name)) {
      const rest = st.args[0]?.k === 'string' ? st.args.slice(1) : st.args;
      for (const a of rest) values.push(a.k === 'agg' ? undefined : a.type);
    }
  }
  return values;
}

/** Whether an action records one of those values. */
function recordsValue(kind: number, ecbAction: EcbDescription['actions'][number]): boolean {
  if (kind === DTRACEACT.DIFEXPR) return ecbAction.record !== undefined;
  return PRINTF_KINDS.has(kind) && ecbAction.difo !== undefined;
}

/**
 * Record types of every ECB of a compiled program. An ECB whose recorded
 * values do not pair one to one with its clause's typed arguments gets no
 * types (the consumer then prints as without them).
 */
export function recordTypesOf(result: CompileResult): RecordTypes {
  const byEcb = new Map<EcbDescription, (CType | undefined)[]>();
  for (const ecb of result.program?.ecbs ?? []) {
    const values = clauseValues(result, ecb.clause);
    if (values === undefined) continue;
    const types: (CType | undefined)[] = [];
    let next = 0;
    ecb.actions.forEach((a, i) => {
      if (recordsValue(a.kind, a)) types[i] = values[next++];
    });
    if (next === values.length) byEcb.set(ecb, types);
  }
  return (ecb, index) => byEcb.get(ecb)?.[index];
}
