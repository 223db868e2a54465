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
  if (e.constValue !== undefined && e.type !== undefined && (isInteger(e.type) || isPointer(e.type)) && e.k !== 'int') {
    // Keep assignments and calls (side effects); everything else with a value is a constant.
    if (e.k !== 'assign' && e.k !== 'call' && !(e.k === 'unary' && e.op.length > 2)) {
      return { k: 'int', value: e.constValue, suffix: '', decimal: true, loc: e.loc, type: e.type, constValue: e.constValue };
    }
  }
  return mapChildren(e, foldExpr);
}

export const foldPass: Pass = {
  name: 'fold',
  reads: 'clauses[].cooked',
  writes: 'clauses[].cooked with constant sub-expressions folded',
  run(ctx) {
    for (const clause of ctx.clauses) {
      const c = clause.cooked!;
      if (c.predicate !== undefined) c.predicate = foldExpr(c.predicate);
      c.statements = c.statements.map((s) => {
        if (s.kind === 'expr') return { ...s, expr: foldExpr(s.expr) };
        if (s.kind === 'action') return { ...s, args: s.args.map(foldExpr) };
        return { ...s, keys: s.keys.map(foldExpr), args: s.args.map(foldExpr) };
      });
    }
  },
};
