// Pass: constant folding. The types pass computed the value of every
// integer constant expression (with C's wrap-around at the type's width,
// and D_DIV_ZERO for constant division by zero); here each such
// sub-expression is replaced by a single integer node, so the code
// generator emits one setx instead of the arithmetic.
import type { Expr } from '../ast.js';
import { isInteger, isPointer } from '../dtypes.js';
import { mapChildren } from '../walk.js';
import type { Pass } from './pass.js';

export function foldExpr(e: Expr): Expr {
  // Leaves: constants are already int nodes; names and strings have no constant value.
  const k = e.k;
  if (k === 'int' || k === 'string' || k === 'ident' || k === 'var' || k === 'agg') return e;
  if (e.constValue !== undefined && e.type !== undefined && (isInteger(e.type) || isPointer(e.type))) {
    // Keep assignments and calls (side effects); everything else with a value is a constant.
    if (e.k !== 'assign' && e.k !== 'call' && !(e.k === 'unary' && e.op.length > 2)) {
      return { k: 'int', value: e.constValue, suffix: '', decimal: true, loc: e.loc, type: e.type, constValue: e.constValue, ref: undefined, lvalue: undefined };
    }
  }
  return mapChildren(e, foldExpr);
}

/** Fold a list, returning the same array when nothing changed. */
function foldList(list: Expr[]): Expr[] {
  let out: Expr[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const x = foldExpr(list[i]!);
    if (x !== list[i] && out === undefined) out = list.slice(0, i);
    if (out !== undefined) out.push(x);
  }
  return out ?? list;
}

export const foldPass: Pass = {
  name: 'fold',
  reads: 'clauses[].cooked',
  writes: 'clauses[].cooked with constant sub-expressions folded',
  run(ctx) {
    for (let i = 0; i < ctx.clauses.length; i++) {
      const c = ctx.clauses[i]!.cooked!;
      if (c.predicate !== undefined) c.predicate = foldExpr(c.predicate);
      // Statements are copied only when something in them folded.
      c.statements = c.statements.map((s) => {
        if (s.kind === 'expr') {
          const expr = foldExpr(s.expr);
          return expr === s.expr ? s : { ...s, expr };
        }
        const args = foldList(s.args);
        if (s.kind === 'action') return args === s.args ? s : { ...s, args };
        const keys = foldList(s.keys);
        return args === s.args && keys === s.keys ? s : { ...s, keys, args };
      });
    }
  },
};
