// Pass: if/else sugar, in the manner of FreeBSD's dt_sugar.c. D has no
// branches inside a clause, so a clause with if statements is split into a
// chain of clauses on the same probes, run in order on one firing, whose
// predicates test clause-local condition variables (this->%condition_N):
//
//   P /pred/ { A; if (c) { B } else { C } D }
// becomes
//   P { this->%condition_1 = (pred); }                    (only with a predicate)
//   P /this->%condition_1/ { A; this->%condition_2 = (this->%condition_1 && (c)); }
//   P /this->%condition_2/ { B }
//   P /this->%condition_1 && !this->%condition_2/ { C }
//   P /this->%condition_1/ { D }
//
// Clause-local variables live for the whole firing, so the chain sees the
// values the first clause computed. `wdtrace -d` prints the result.
//
// Probe descriptions the framework's catalogue rewrites (kinst's
// `kinst::<inline function>:entry|return`, expanded from DWARF into kinst
// probes at every inlined copy) are replaced here too, so -d shows them.
import type { ClauseItem, Expr, ProgramItem, Statement } from '../ast.js';
import type { Pass } from './pass.js';

interface SugarState {
  counter: number;
}

// Nodes are made with every annotation field, like the parser's, so that all
// nodes of a kind share one object shape.
function condVar(n: number, loc: Expr['loc']): Expr {
  return { k: 'var', scope: 'this', name: `%condition_${n}`, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
}

function and(a: Expr | undefined, b: Expr): Expr {
  return a === undefined ? b : { k: 'binary', op: '&&', left: a, right: b, loc: b.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
}

function hasIf(body: Statement[] | undefined): boolean {
  return body !== undefined && body.some((s) => s.k === 'if');
}

/** Emit clauses for `body` guarded by `guard` (undefined: unguarded). */
function lower(clause: ClauseItem, body: Statement[], guard: Expr | undefined, out: ClauseItem[], st: SugarState): void {
  let pending: Statement[] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    const body = pending.slice(); // exact-size copy: pushing leaves spare capacity
    out.push(guard !== undefined ? { k: 'clause', probes: clause.probes, predicate: guard, body, loc: clause.loc } : { k: 'clause', probes: clause.probes, body, loc: clause.loc });
    pending = [];
  };
  for (let i = 0; i < body.length; i++) {
    const s = body[i]!;
    if (s.k === 'expr') {
      pending.push(s);
      continue;
    }
    const n = ++st.counter;
    const cv = condVar(n, s.loc);
    pending.push({
      k: 'expr',
      expr: { k: 'assign', op: '=', left: cv, right: guard === undefined ? { k: 'binary', op: '!=', left: s.cond, right: { k: 'int', value: 0n, suffix: '', decimal: true, loc: s.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined }, loc: s.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined } : and(guard, s.cond), loc: s.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined },
      loc: s.loc,
    });
    flush();
    lower(clause, s.then, cv, out, st);
    if (s.otherwise !== undefined) {
      const notCv: Expr = { k: 'unary', op: '!', operand: cv, loc: s.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
      lower(clause, s.otherwise, and(guard, notCv), out, st);
    }
  }
  flush();
}

export function desugarClause(clause: ClauseItem, st: SugarState): ClauseItem[] {
  if (!hasIf(clause.body)) return [clause];
  const out: ClauseItem[] = [];
  let guard: Expr | undefined;
  if (clause.predicate !== undefined) {
    const n = ++st.counter;
    guard = condVar(n, clause.predicate.loc);
    out.push({
      k: 'clause',
      probes: clause.probes,
      body: [{ k: 'expr', expr: { k: 'assign', op: '=', left: guard, right: { k: 'binary', op: '!=', left: clause.predicate, right: { k: 'int', value: 0n, suffix: '', decimal: true, loc: clause.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined }, loc: clause.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined }, loc: clause.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined }, loc: clause.loc }],
      loc: clause.loc,
    });
  }
  lower(clause, clause.body!, guard, out, st);
  return out;
}

export const sugarPass: Pass = {
  name: 'sugar',
  reads: 'ast clauses with if/else',
  writes: 'ast without if statements (predicated clauses)',
  run(ctx) {
    const st: SugarState = { counter: 0 };
    const items: ProgramItem[] = [];
    const expand = ctx.options.probes?.expand?.bind(ctx.options.probes);
    const all = ctx.ast!.items;
    for (let i = 0; i < all.length; i++) {
      const item = all[i]!;
      if (item.k !== 'clause') {
        items.push(item);
        continue;
      }
      // Descriptions a provider rewrites (kinst inline-function probes) are replaced by their expansion.
      if (expand !== undefined && item.probes.some((p) => expand(p.text) !== undefined)) {
        item.probes = item.probes.flatMap((p) => expand(p.text)?.map((text) => ({ text, loc: p.loc })) ?? [p]);
      }
      items.push(...desugarClause(item, st));
    }
    ctx.ast!.items = items;
  },
};
