// Pass: macro variables, after libdtrace's dt_macro handling — $1..$n and
// $$1..$$n (macro arguments as integers or identifiers, or as strings), and
// the process macros $pid, $ppid, $uid, $gid, $target ... — expanded in
// probe descriptions (as text) and in expressions (as constants).
import type { Expr } from '../ast.js';
import { fail } from '../diagnostics.js';
import type { CompileContext } from '../context.js';
import { MACRO_VARIABLES } from '../builtins.js';
import { mapExpr, mapStatements } from '../walk.js';
import type { Pass } from './pass.js';

function macroValue(ctx: CompileContext, name: string, loc: Expr['loc']): string {
  if (/^\d+$/.test(name)) {
    const n = Number(name);
    const args = ctx.options.macroArgs ?? [];
    ctx.macroArgsUsed.add(n);
    if (n === 0) {
      const o = ctx.options.origin;
      return o?.kind === 'script' ? o.name : 'dtrace';
    }
    const v = args[n - 1];
    if (v === undefined) {
      const d = ctx.option('defaultargs');
      if (d !== undefined && d !== '0' && d !== 'false') return '';
      return fail('D_MACRO_UNDEF', loc, `$${name}`);
    }
    return v;
  }
  if ((MACRO_VARIABLES as readonly string[]).includes(name)) {
    const v = ctx.options.macroVariables?.[name as (typeof MACRO_VARIABLES)[number]];
    return String(v ?? 0);
  }
  return fail('D_MACRO_UNDEF', loc, `$${name}`);
}

function expandExpr(ctx: CompileContext, e: Expr): Expr {
  if (e.k !== 'macro') return e;
  const v = macroValue(ctx, e.name, e.loc);
  if (e.asString) return { k: 'string', value: v, loc: e.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
  if (v === '') return { k: 'int', value: 0n, suffix: '', decimal: true, loc: e.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
  const m = /^(-?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.exec(v);
  if (m !== null) {
    const mag = BigInt(m[2]!.length > 1 && m[2]![0] === '0' && !/^0[xX]/.test(m[2]!) ? '0o' + m[2]!.slice(1) : m[2]!);
    if (mag > 0xffffffffffffffffn) fail('D_MACRO_OFLOW', e.loc, `$${e.name}`);
    const lit: Expr = { k: 'int', value: mag, suffix: '', decimal: !/^0/.test(m[2]!) || m[2] === '0', loc: e.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
    return m[1] === '-' ? { k: 'unary', op: '-', operand: lit, loc: e.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined } : lit;
  }
  if (/^[A-Za-z_]\w*$/.test(v)) return { k: 'ident', name: v, loc: e.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
  return fail('D_SYNTAX', e.loc, `"${v}"`);
}

export const macrosPass: Pass = {
  name: 'macros',
  reads: 'ast, macro arguments and variables',
  writes: 'ast with macro references replaced',
  run(ctx) {
    const f = (e: Expr): Expr => mapExpr(e, (x) => expandExpr(ctx, x));
    // Macro references are the only constructs spelled with '$': without one, nothing to expand.
    const items = ctx.text.includes('$') ? ctx.ast!.items : [];
    for (const item of items) {
      if (item.k !== 'clause') continue;
      item.probes = item.probes.map((p) =>
        p.text.includes('$') ? { ...p, text: p.text.replace(/\$\$?([A-Za-z_]\w*|\d+)/g, (_m, name: string) => macroValue(ctx, name, p.loc)) } : p,
      );
      if (item.predicate !== undefined) item.predicate = f(item.predicate);
      if (item.body !== undefined) item.body = mapStatements(item.body, f);
    }
    // dt_compile: without -x argref, the last argument must be referenced.
    const args = ctx.options.macroArgs ?? [];
    const n = args.length;
    if (n > 0 && ctx.option('argref') === undefined && !ctx.macroArgsUsed.has(n)) {
      fail('D_MACRO_UNUSED', ctx.ast!.end ?? ctx.ast!.loc, args[n - 1]!, n);
    }
  },
};
