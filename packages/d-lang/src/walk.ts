// Tree helpers for the passes: rebuild an expression with its children
// mapped, and visit every expression of a statement list.
import type { Expr, Statement } from './ast.js';

/** A copy of `e` whose direct sub-expressions are replaced by f(child). */
export function mapChildren(e: Expr, f: (c: Expr) => Expr): Expr {
  switch (e.k) {
    case 'unary':
      return { ...e, operand: f(e.operand) };
    case 'binary':
    case 'assign':
      return { ...e, left: f(e.left), right: f(e.right) };
    case 'ternary':
      return { ...e, cond: f(e.cond), then: f(e.then), otherwise: f(e.otherwise) };
    case 'call':
      return { ...e, callee: f(e.callee), args: e.args.map(f) };
    case 'index':
      return { ...e, base: f(e.base), args: e.args.map(f) };
    case 'member':
      return { ...e, base: f(e.base) };
    case 'cast':
    case 'xlate':
      return { ...e, operand: f(e.operand) };
    default:
      return e;
  }
}

/** Rewrite every expression bottom-up. */
export function mapExpr(e: Expr, f: (e: Expr) => Expr): Expr {
  return f(mapChildren(e, (c) => mapExpr(c, f)));
}

export function mapStatements(body: Statement[], f: (e: Expr) => Expr): Statement[] {
  return body.map((s) =>
    s.k === 'expr'
      ? { ...s, expr: f(s.expr) }
      : { ...s, cond: f(s.cond), then: mapStatements(s.then, f), ...(s.otherwise !== undefined ? { otherwise: mapStatements(s.otherwise, f) } : {}) },
  );
}
