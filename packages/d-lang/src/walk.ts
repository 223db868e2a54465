// Tree helpers for the passes: rebuild an expression with its children
// mapped, and visit every expression of a statement list.
import type { Expr, Statement } from './ast.js';

/** A copy of `e` whose direct sub-expressions are replaced by f(child). */
export function mapChildren(e: Expr, f: (c: Expr) => Expr): Expr {
  switch (e.k) {
    case 'unary': {
      const operand = f(e.operand);
      return operand === e.operand ? e : { ...e, operand };
    }
    case 'binary':
    case 'assign': {
      const left = f(e.left);
      const right = f(e.right);
      return left === e.left && right === e.right ? e : { ...e, left, right };
    }
    case 'ternary': {
      const cond = f(e.cond);
      const then = f(e.then);
      const otherwise = f(e.otherwise);
      return cond === e.cond && then === e.then && otherwise === e.otherwise ? e : { ...e, cond, then, otherwise };
    }
    case 'call': {
      const callee = f(e.callee);
      const args = mapList(e.args, f);
      return callee === e.callee && args === e.args ? e : { ...e, callee, args };
    }
    case 'index': {
      const base = f(e.base);
      const args = mapList(e.args, f);
      return base === e.base && args === e.args ? e : { ...e, base, args };
    }
    case 'member': {
      const base = f(e.base);
      return base === e.base ? e : { ...e, base };
    }
    case 'cast':
    case 'xlate': {
      const operand = f(e.operand);
      return operand === e.operand ? e : { ...e, operand };
    }
    default:
      return e;
  }
}

/** Map a list, returning the same array when no element changed. */
function mapList(list: Expr[], f: (c: Expr) => Expr): Expr[] {
  let out: Expr[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const x = f(list[i]!);
    if (x !== list[i] && out === undefined) out = list.slice(0, i);
    if (out !== undefined) out.push(x);
  }
  return out ?? list;
}

/** Rewrite every expression bottom-up. */
export function mapExpr(e: Expr, f: (e: Expr) => Expr): Expr {
  return f(mapChildren(e, (c) => mapExpr(c, f)));
}

/** Map every expression of a statement list; statements (and the list) are copied only when something changed. */
export function mapStatements(body: Statement[], f: (e: Expr) => Expr): Statement[] {
  let out: Statement[] | undefined;
  for (let i = 0; i < body.length; i++) {
    const s = body[i]!;
    let x: Statement;
    if (s.k === 'expr') {
      const expr = f(s.expr);
      x = expr === s.expr ? s : { ...s, expr };
    } else {
      const cond = f(s.cond);
      const then = mapStatements(s.then, f);
      const otherwise = s.otherwise !== undefined ? mapStatements(s.otherwise, f) : undefined;
      x = cond === s.cond && then === s.then && otherwise === s.otherwise ? s : otherwise !== undefined ? { ...s, cond, then, otherwise } : { ...s, cond, then };
    }
    if (x !== s && out === undefined) out = body.slice(0, i);
    if (out !== undefined) out.push(x);
  }
  return out ?? body;
}
