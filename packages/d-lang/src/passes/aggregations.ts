// Pass: aggregation and action-order checks. Aggregating functions'
// constant parameters (quantize increments, lquantize base/limit/step,
// llquantize factor/low/high/steps) are validated and must agree across
// every use of one aggregation; within a clause, speculate/commit and the
// data-recording, aggregating, destructive and exit actions must come in
// the order dtrace permits.
import { BUILTIN_FUNCTIONS } from '../builtins.js';
import type { CompileContext, CookedStatement } from '../context.js';
import { CompileError, fail } from '../diagnostics.js';
import { isDScalar } from '../semantics.js';
import type { Pass } from './pass.js';

const DATA_RECORDING = new Set(['trace', 'print', 'tracemem', 'printf', 'printa', 'stack', 'ustack', 'jstack', 'sym', 'func', 'mod', 'usym', 'ufunc', 'umod', 'uaddr', 'system', 'freopen']);

function checkParams(ctx: CompileContext, st: CookedStatement & { kind: 'aggregate' }): void {
  const a = st.aggregation;
  const fname = a.func;
  const consts: bigint[] = [];
  if (fname === 'lquantize') {
    const [, b, l, s] = st.args;
    const base = b?.constValue;
    if (base === undefined) fail('D_LQUANT_BASETYPE', b!.loc);
    const bv = BigInt.asIntN(64, base);
    if (bv < -(1n << 31n) || bv >= 1n << 31n) fail('D_LQUANT_BASEVAL', b!.loc);
    const limit = l?.constValue;
    if (limit === undefined) fail('D_LQUANT_LIMTYPE', l!.loc);
    const lv = BigInt.asIntN(64, limit);
    if (lv < -(1n << 31n) || lv >= 1n << 31n) fail('D_LQUANT_LIMVAL', l!.loc);
    if (lv <= bv) fail('D_LQUANT_MISMATCH', st.loc);
    let step = 1n;
    if (s !== undefined) {
      if (s.constValue === undefined || BigInt.asIntN(64, s.constValue) <= 0n) fail('D_LQUANT_STEPTYPE', s.loc);
      step = BigInt.asIntN(64, s.constValue);
      if (step > 0xffffn) fail('D_LQUANT_STEPVAL', s.loc);
    }
    if ((lv - bv) / step === 0n) fail('D_LQUANT_STEPLARGE', st.loc);
    if ((lv - bv) / step > 0xffffn) fail('D_LQUANT_STEPSMALL', st.loc);
    consts.push(bv, lv, step);
    if (a.params.length === 3) {
      if (a.params[0] !== bv) fail('D_LQUANT_MATCHBASE', st.loc, a.params[0]!, bv);
      if (a.params[1] !== lv) fail('D_LQUANT_MATCHLIM', st.loc, a.params[1]!, lv);
      if (a.params[2] !== step) fail('D_LQUANT_MATCHSTEP', st.loc, a.params[2]!, step);
    }
  } else if (fname === 'llquantize') {
    const specs = [
      { type: 'D_LLQUANT_FACTORTYPE', val: 'D_LLQUANT_FACTORVAL', match: 'D_LLQUANT_FACTORMATCH' },
      { type: 'D_LLQUANT_LOWTYPE', val: 'D_LLQUANT_LOWVAL', match: 'D_LLQUANT_LOWMATCH' },
      { type: 'D_LLQUANT_HIGHTYPE', val: 'D_LLQUANT_HIGHVAL', match: 'D_LLQUANT_HIGHMATCH' },
      { type: 'D_LLQUANT_NSTEPTYPE', val: 'D_LLQUANT_NSTEPVAL', match: 'D_LLQUANT_NSTEPMATCH' },
    ] as const;
    specs.forEach((spec, i) => {
      const arg = st.args[i + 1]!;
      if (arg.constValue === undefined) fail(spec.type, arg.loc);
      const v = BigInt.asIntN(64, arg.constValue);
      if (v < 0n || v > 0xffffn) fail(spec.val, arg.loc);
      consts.push(v);
    });
    const [factor, low, high, nsteps] = consts as [bigint, bigint, bigint, bigint];
    if (factor < 2n) fail('D_LLQUANT_FACTORSMALL', st.loc);
    if (low >= high) fail('D_LLQUANT_MAGRANGE', st.loc);
    if (nsteps < factor) fail('D_LLQUANT_FACTORNSTEPS', st.loc);
    let v = factor;
    while (v < nsteps) v *= factor;
    if (nsteps % factor !== 0n || v % nsteps !== 0n) fail('D_LLQUANT_FACTOREVEN', st.loc);
    let order = 1n;
    for (let i = 0n; i <= high + 1n; i++) {
      order *= factor;
      if (order > 0xffffffffffffffffn) fail('D_LLQUANT_MAGTOOBIG', st.loc, factor, high);
    }
    if (a.params.length === 4) {
      specs.forEach((spec, i) => {
        if (a.params[i] !== consts[i]) fail(spec.match, st.loc, a.params[i]!, consts[i]!);
      });
    }
  }
  // The increment (dt_action_aggregate): quantize's argument #2, lquantize's #5, llquantize's #6.
  const argmax = fname === 'quantize' ? 2 : fname === 'lquantize' ? 5 : fname === 'llquantize' ? 6 : 0;
  const incr = argmax > 0 ? st.args[argmax - 1] : undefined;
  if (incr !== undefined && (incr.k === 'agg' || !isDScalar(incr.type!))) {
    throw new CompileError({ severity: 'error', tag: 'D_PROTO_ARG', message: `${fname}( ) increment value (argument #${argmax}) must be of scalar type`, location: st.loc });
  }
  if (a.params.length === 0) a.params = consts;
  void ctx;
}

function checkOrder(statements: CookedStatement[]): void {
  let spec = false;
  let commit = false;
  let drec = false;
  for (let i = 0; i < statements.length; i++) {
    const st = statements[i]!;
    if (st.kind === 'aggregate') {
      if (commit) fail('D_AGG_COMM', st.loc);
      if (spec) fail('D_AGG_SPEC', st.loc);
      continue;
    }
    if (st.kind !== 'action') continue;
    const fn = BUILTIN_FUNCTIONS.get(st.name);
    switch (st.name) {
      case 'speculate':
        if (spec) fail('D_SPEC_SPEC', st.loc);
        if (commit) fail('D_SPEC_COMM', st.loc);
        if (drec) fail('D_SPEC_DREC', st.loc);
        spec = true;
        continue;
      case 'commit':
        if (commit) fail('D_COMM_COMM', st.loc);
        if (drec) fail('D_COMM_DREC', st.loc);
        commit = true;
        continue;
      case 'exit':
        if (spec) fail('D_EXIT_SPEC', st.loc);
        continue;
      default:
        break;
    }
    if (fn?.kind === 'action' && fn.destructive === true && spec) fail('D_ACT_SPEC', st.loc);
    if (DATA_RECORDING.has(st.name)) {
      if (commit) fail('D_DREC_COMM', st.loc);
      drec = true;
    }
  }
}

export const aggregationsPass: Pass = {
  name: 'aggregations',
  reads: 'clauses[].cooked',
  writes: 'aggregation parameters; diagnostics for bad parameters and action order',
  run(ctx) {
    // Index loops: these passes run once per compilation, where for-of would make an iterator result per element.
    for (let c = 0; c < ctx.clauses.length; c++) {
      const statements = ctx.clauses[c]!.cooked!.statements;
      for (let i = 0; i < statements.length; i++) {
        const st = statements[i]!;
        if (st.kind === 'aggregate') checkParams(ctx, st);
      }
      checkOrder(statements);
    }
  },
};
