// Pass: types of every clause, in program order — the predicate, then each
// statement, classified as a plain expression, an action call (with its
// prototype and printf-format checks) or an aggregation. Variables come to
// exist on their first assignment here, so order matters as in dtrace.
import { resolveType } from '@wdtrace/dtrace-core/types';
import type { AggregationInfo, Expr } from '../ast.js';
import { BUILTIN_FUNCTIONS, KEY_ACTIONS, actionKeyType, functionKindName } from '../builtins.js';
import type { CompileContext, CookedStatement, ResolvedClause } from '../context.js';
import { CompileError, type Loc, fail } from '../diagnostics.js';
import { isArray, isCharArrayOrPointer, isInteger, isPointer, isScalar, isString, isVoid } from '../dtypes.js';
import { type CookScope, Cooker, dtypeName, isDScalar } from '../semantics.js';
import type { Pass } from './pass.js';

/** One conversion of a printf-like format string (dt_printf_create). */
export interface FormatConversion {
  /** Its number, 1-based, counting every % of the format (%% included), as dtrace numbers conversions. */
  readonly index: number;
  /** The conversion's name in dtrace's dictionary: size prefixes and the letter ("d", "lld", "hx"). */
  readonly name: string;
  readonly starWidth: boolean;
  readonly starPrecision: boolean;
  /** %@: the aggregation's value (printa only). */
  readonly agg: boolean;
}

const pfprotoXint = 'char, short, int, long, or long long';
const pfprotoCsi = 'char, short, or int';
const pfprotoFp = 'float, double, or long double';
const pfprotoAddr = 'pointer or integer';
const pfprotoCstr = 'char [] or string (or use stringof)';

type PfCheck = 'int' | 'csi' | 'fp' | 'addr' | 'str' | 'wstr' | 'port' | 'intptr';
/** dt_printf.c's conversion dictionary: each name with its prototype text and the kind of check. */
const PF_CONVERSIONS: ReadonlyMap<string, { proto: string; check: PfCheck }> = new Map<string, { proto: string; check: PfCheck }>([
  ['a', { proto: pfprotoAddr, check: 'addr' }],
  ['A', { proto: 'pointer or integer (with -p/-c) or _usymaddr (without -p/-c)', check: 'addr' }],
  ['c', { proto: pfprotoCsi, check: 'csi' }],
  ['C', { proto: pfprotoCsi, check: 'csi' }],
  ['d', { proto: pfprotoXint, check: 'intptr' }],
  ['e', { proto: pfprotoFp, check: 'fp' }],
  ['E', { proto: pfprotoFp, check: 'fp' }],
  ['f', { proto: pfprotoFp, check: 'fp' }],
  ['g', { proto: pfprotoFp, check: 'fp' }],
  ['G', { proto: pfprotoFp, check: 'fp' }],
  ['hd', { proto: 'short', check: 'int' }],
  ['hi', { proto: 'short', check: 'int' }],
  ['ho', { proto: 'unsigned short', check: 'int' }],
  ['hu', { proto: 'unsigned short', check: 'int' }],
  ['hx', { proto: 'short', check: 'int' }],
  ['hX', { proto: 'short', check: 'int' }],
  ['i', { proto: pfprotoXint, check: 'intptr' }],
  ['I', { proto: pfprotoCstr, check: 'str' }],
  ['k', { proto: 'stack', check: 'int' }],
  ['lc', { proto: 'int', check: 'int' }],
  ['ld', { proto: 'long', check: 'intptr' }],
  ['li', { proto: 'long', check: 'intptr' }],
  ['lo', { proto: 'unsigned long', check: 'intptr' }],
  ['lu', { proto: 'unsigned long', check: 'intptr' }],
  ['ls', { proto: 'wchar_t []', check: 'wstr' }],
  ['lx', { proto: 'long', check: 'intptr' }],
  ['lX', { proto: 'long', check: 'intptr' }],
  ['lld', { proto: 'long long', check: 'intptr' }],
  ['lli', { proto: 'long long', check: 'intptr' }],
  ['llo', { proto: 'unsigned long long', check: 'intptr' }],
  ['llu', { proto: 'unsigned long long', check: 'intptr' }],
  ['llx', { proto: 'long long', check: 'intptr' }],
  ['llX', { proto: 'long long', check: 'intptr' }],
  ['Le', { proto: 'long double', check: 'fp' }],
  ['LE', { proto: 'long double', check: 'fp' }],
  ['Lf', { proto: 'long double', check: 'fp' }],
  ['Lg', { proto: 'long double', check: 'fp' }],
  ['LG', { proto: 'long double', check: 'fp' }],
  ['o', { proto: pfprotoXint, check: 'intptr' }],
  ['p', { proto: pfprotoAddr, check: 'addr' }],
  ['P', { proto: 'uint16_t', check: 'port' }],
  ['s', { proto: pfprotoCstr, check: 'str' }],
  ['S', { proto: pfprotoCstr, check: 'str' }],
  ['T', { proto: 'int64_t', check: 'int' }],
  ['u', { proto: pfprotoXint, check: 'intptr' }],
  ['wc', { proto: 'int', check: 'int' }],
  ['ws', { proto: 'wchar_t []', check: 'wstr' }],
  ['x', { proto: pfprotoXint, check: 'intptr' }],
  ['X', { proto: pfprotoXint, check: 'intptr' }],
  ['Y', { proto: 'int64_t', check: 'int' }],
]);

/**
 * Split a D format string into its conversions (%% excluded), as
 * dt_printf_create reads it. Returns the error text (reported as
 * D_SYNTAX) when a conversion is malformed.
 */
export function parseFormat(fmt: string): FormatConversion[] | string {
  const out: FormatConversion[] = [];
  let index = 0;
  for (let i = fmt.indexOf('%'); i !== -1 && i < fmt.length; i = fmt.indexOf('%', i + 1)) {
    index++;
    let name = '';
    let dot = false;
    let starWidth = false;
    let starPrecision = false;
    let agg = false;
    for (;;) {
      const c = fmt[++i];
      if (c === undefined) return `format conversion #${index} name expected before end of format string`;
      if (c >= '0' && c <= '9') continue;
      if (c === '#' || c === '+' || c === '-' || c === '?' || c === "'" || c === ' ') continue;
      if (c === '*') {
        if (dot ? starPrecision : starWidth) return `format conversion #${index} has more than one '*' specified for the output precision`;
        if (dot) starPrecision = true;
        else starWidth = true;
        continue;
      }
      if (c === '.') {
        if (dot) return `format conversion #${index} has more than one '.' specified`;
        dot = true;
        continue;
      }
      if (c === '@') {
        agg = true;
        continue;
      }
      if (c === '$') return `format conversion #${index} uses unsupported positional format (%n$)`;
      if (c === '%') {
        if (fmt[i - 1] === '%') {
          name = '%';
          break;
        }
        return `format conversion #${index} cannot be combined with other format flags: %%`;
      }
      if (c === 'h' || c === 'l' || c === 'L' || c === 'w') {
        if (name.length < 6) name += c;
        continue;
      }
      name += c;
      break;
    }
    if (name === '%') continue;
    if (!PF_CONVERSIONS.has(name)) return `format conversion #${index} is undefined: %${name}`;
    out.push({ index, name, starWidth, starPrecision, agg });
  }
  return out;
}

class ClauseTyper {
  constructor(
    readonly ctx: CompileContext,
    /** One per compilation: its cache of parsed type names serves every clause. */
    readonly cooker: Cooker,
    readonly clause: ResolvedClause,
  ) {
    this.scope = { clause };
  }

  private readonly scope: CookScope;

  private cook(e: Expr): Expr {
    return this.cooker.cook(e, this.scope);
  }

  run(): void {
    const item = this.clause.item;
    this.cooker.clearReferences();
    // dt_cook_clause: the actions are cooked before the predicate (so that
    // `/self->x == 0/ { self->x = 1; }` finds self->x), unless they name an
    // identifier that does not exist yet: then the predicate first, then the
    // actions again.
    let predicate: Expr | undefined;
    const cookPredicate = (p: Expr): Expr => {
      const c = this.cook(p);
      if (c.k === 'agg' || !isDScalar(c.type!)) fail('D_PRED_SCALAR', item.end ?? c.loc);
      return c;
    };
    let statements: CookedStatement[];
    try {
      statements = this.statements();
    } catch (err) {
      if (item.predicate === undefined || !(err instanceof CompileError) || (err.diagnostic.tag !== 'D_IDENT_UNDEF' && err.diagnostic.tag !== 'D_VAR_UNDEF')) throw err;
      predicate = cookPredicate(item.predicate);
      statements = this.statements();
    }
    if (item.predicate !== undefined && predicate === undefined) predicate = cookPredicate(item.predicate);
    const exact = statements.slice(); // exact-size copy: pushing leaves spare capacity
    this.clause.cooked = predicate !== undefined ? { predicate, statements: exact } : { statements: exact };
    const referenceAttributes = this.cooker.referenceAttributes();
    if (referenceAttributes !== undefined) this.clause.cooked.referenceAttributes = referenceAttributes;
  }

  private statements(): CookedStatement[] {
    const statements: CookedStatement[] = [];
    const body = this.clause.item.body ?? [];
    for (let i = 0; i < body.length; i++) {
      const s = body[i]!;
      if (s.k !== 'expr') throw new Error('if statements must be removed by the sugar pass');
      statements.push(this.statement(s.expr, s.loc));
    }
    return statements;
  }

  private statement(e: Expr, loc: Loc): CookedStatement {
    if (e.k === 'agg' || (e.k === 'index' && e.base.k === 'agg')) {
      // dt_cook_ident does not create an aggregation a bare `@a` names (only
      // operator [ does): unknown, it is not resolved; known, the statement
      // has no effect (dt_compile_agg).
      if (e.k === 'agg' && !this.ctx.aggregations.has(e.name)) fail('D_IDENT_UNDEF', e.loc, `@${e.name}`, 'Unknown variable name');
      fail('D_AGG_NULL', e.loc, e.k === 'agg' ? e.name : (e.base as Expr & { k: 'agg' }).name);
    }
    if (e.k === 'assign') {
      let base: Expr = e.left;
      let depth = 0;
      while (base.k === 'index') {
        base = base.base;
        depth++;
      }
      if (base.k === 'agg' && depth > 1) fail('D_AGG_MDIM', e.loc, base.name);
      if (base.k === 'agg') return this.aggregation(e);
    }
    if (e.k === 'call' && e.callee.k === 'ident' && e.callee.module === undefined) {
      const fn = BUILTIN_FUNCTIONS.get(e.callee.name);
      if (fn !== undefined && fn.kind === 'action') return this.action(e.callee.name, e, loc);
      if (fn !== undefined && fn.kind === 'aggregating') fail('D_CG_EXPR', e.loc, functionKindName(fn.kind), e.callee.name);
    }
    return { kind: 'expr', expr: this.cook(e), loc };
  }

  private aggregation(e: Expr & { k: 'assign' }): CookedStatement {
    const lhs = e.left;
    const aggNode = (lhs.k === 'agg' ? lhs : (lhs as Expr & { k: 'index' }).base) as Expr & { k: 'agg' };
    if (lhs.k === 'index' && lhs.base.k === 'index') fail('D_AGG_MDIM', e.loc, aggNode.name);
    if (e.op !== '=') fail('D_AGG_FUNC', e.loc, aggNode.name);
    const rhs = e.right;
    if (rhs.k !== 'call' || rhs.callee.k !== 'ident') fail('D_AGG_FUNC', e.loc, aggNode.name);
    const fname = rhs.callee.name;
    const fn = BUILTIN_FUNCTIONS.get(fname);
    if (fn === undefined || fn.kind !== 'aggregating') fail('D_AGG_FUNC', e.loc, aggNode.name);
    const keys = lhs.k === 'index' ? lhs.args.map((k) => this.cookKey(k)) : [];
    const keyTypes = keys.map((k) => this.cooker.keyType(k));
    const args = rhs.args.map((a) => this.cook(a));
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const expected = fn.minArgs === fn.maxArgs ? String(fn.minArgs) : args.length < fn.minArgs ? `at least ${fn.minArgs}` : `${fn.minArgs} to ${fn.maxArgs}`;
      fail('D_PROTO_LEN', rhs.loc, fname, args.length, args.length === 1 ? '' : 's', expected);
    }
    if (args.length > 0 && (args[0]!.k === 'agg' || !isScalar(args[0]!.type!))) fail('D_AGG_SCALAR', rhs.loc, fname, 1);
    let a = this.ctx.aggregations.get(aggNode.name);
    if (a === undefined) {
      a = { name: aggNode.name, id: this.ctx.aggregations.size + 1, func: fname, keys: keyTypes, params: [], loc: e.loc };
      this.ctx.aggregations.set(aggNode.name, a);
    } else {
      if (a.func !== fname) fail('D_AGG_REDEF', e.loc, aggNode.name);
      this.cooker.checkKeySignature('@', aggNode.name, a.keys, keys, e.loc);
    }
    return { kind: 'aggregate', aggregation: a, keys, args, loc: e.loc };
  }

  private aggregationArg(fname: string, a: Expr, index: number, tags: { arg: 'D_PRINTA_AGGARG' | 'D_CLEAR_AGGARG' | 'D_NORMALIZE_AGGARG' | 'D_TRUNC_AGGARG'; bad: 'D_PRINTA_AGGBAD' | 'D_CLEAR_AGGBAD' | 'D_NORMALIZE_AGGBAD' | 'D_TRUNC_AGGBAD' }): Expr {
    if (a.k !== 'agg') {
      const c = this.cook(a);
      if (tags.arg === 'D_PRINTA_AGGARG') fail(tags.arg, a.loc, index + 1, dtypeName(c.type));
      if (tags.arg === 'D_NORMALIZE_AGGARG') fail(tags.arg, a.loc, fname, dtypeName(c.type));
      fail(tags.arg, a.loc, dtypeName(c.type));
    }
    const info: AggregationInfo | undefined = this.ctx.aggregations.get(a.name);
    if (info === undefined) {
      if (tags.bad === 'D_PRINTA_AGGBAD') fail(tags.bad, a.loc, index + 1);
      fail(tags.bad, a.loc, a.name);
    }
    return { ...a, type: this.ctx.env.int64, ref: { kind: 'aggregation', aggregation: info } };
  }

  /** The arguments of printf(), system(), freopen() checked against the format, as dt_printf_validate does. */
  private printfArgs(fname: string, args: Expr[], loc: Loc, allowAgg: boolean): Expr[] {
    const fmtArg = args[0]!;
    if (fmtArg.k !== 'string') fail('D_PRINTF_ARG_FMT', fmtArg.loc, fname);
    const fmt = fmtArg.value;
    // The arguments are cooked before the format is parsed (dt_cook_func, then dt_printf_create).
    const rest = args.slice(1);
    const pre = rest.map((a) => (a.k === 'agg' ? undefined : this.cook(a)));
    const convs = parseFormat(fmt);
    if (typeof convs === 'string') throw new CompileError({ severity: 'error', tag: 'D_SYNTAX', message: convs, location: fmtArg.loc });
    if (fmt === '' && fname !== 'freopen') fail('D_PRINTF_FMT_EMPTY', fmtArg.loc, fname);
    const cooked: Expr[] = [{ ...fmtArg, type: this.ctx.env.string }];
    let ai = 0;
    for (const c of convs) {
      const n = c.index;
      const dyns = [...(c.starWidth ? ['*'] : []), ...(c.starPrecision ? ['.*'] : [])];
      for (const dyn of dyns) {
        const a = rest[ai];
        if (a === undefined) fail('D_PRINTF_DYN_PROTO', loc, fname, n, c.name, dyn);
        const ca = pre[ai] ?? this.cook(a);
        if (!isInteger(ca.type!)) fail('D_PRINTF_DYN_TYPE', a.loc, fname, ai + 2, n, dyn, c.name, dtypeName(ca.type));
        ai++;
        cooked.push(ca);
      }
      if (c.agg) {
        if (!allowAgg) fail('D_PRINTF_AGG_CONV', loc, fname);
        continue;
      }
      const a = rest[ai];
      if (a === undefined) fail('D_PRINTF_ARG_PROTO', loc, fname, n, c.name);
      ai++;
      if (a.k === 'agg' && allowAgg) {
        cooked.push(this.aggregationArg(fname, a, ai, { arg: 'D_PRINTA_AGGARG', bad: 'D_PRINTA_AGGBAD' }));
        continue;
      }
      const ca = pre[ai - 1] ?? this.cook(a);
      const t = ca.type!;
      const conv = PF_CONVERSIONS.get(c.name)!;
      let ok: boolean;
      switch (conv.check) {
        case 'str':
          ok = isString(t) || isCharArrayOrPointer(t);
          break;
        case 'wstr':
          ok = isCharArrayOrPointer(t) || isString(t);
          break;
        case 'port': {
          // pfcheck_type: a type compatible with uint16_t (an unsigned 16-bit integer).
          const r = resolveType(t);
          ok = r.kind === 'integer' && r.size === 2 && !r.signed;
          break;
        }
        case 'csi':
          ok = isInteger(t) && this.ctx.env.sizeOf(t) <= 4;
          break;
        case 'addr':
        case 'intptr':
          ok = isInteger(t) || isPointer(t) || isArray(t);
          break;
        case 'int':
          ok = isInteger(t);
          break;
        default:
          ok = isInteger(t) || resolveType(t).kind === 'float';
      }
      if (a.k === 'agg') ok = false;
      if (!ok) fail('D_PRINTF_ARG_TYPE', a.loc, fname, ai + 1, n, c.name, conv.proto, a.k === 'agg' ? 'aggregation' : dtypeName(t));
      cooked.push(ca);
    }
    if (ai < rest.length) {
      if (allowAgg) {
        // printa: the remaining arguments are aggregations.
        for (; ai < rest.length; ai++) cooked.push(this.aggregationArg(fname, rest[ai]!, ai + 1, { arg: 'D_PRINTA_AGGARG', bad: 'D_PRINTA_AGGBAD' }));
      } else fail('D_PRINTF_ARG_EXTRA', rest[ai]!.loc, fname, ai);
    }
    return cooked;
  }

  private constPositive(e: Expr | undefined, tag: 'D_STACK_SIZE' | 'D_USTACK_FRAMES' | 'D_USTACK_STRSIZE' | 'D_TRACEMEM_SIZE', allowZero = false): Expr | undefined {
    if (e === undefined) return undefined;
    const c = this.cook(e);
    if (c.constValue === undefined || !isInteger(c.type!) || BigInt.asIntN(64, c.constValue) < (allowZero ? 0n : 1n)) fail(tag, e.loc);
    return c;
  }

  /**
   * An aggregation key: an expression, or one of the actions whose record
   * dtrace lets key an aggregation (stack(), ustack(), jstack(), sym(),
   * func(), mod(), usym(), ufunc(), umod(), uaddr()) — checked as the
   * action, and marked for the code generator by its function reference.
   */
  private cookKey(k: Expr): Expr {
    if (k.k === 'call' && k.callee.k === 'ident' && k.callee.module === undefined && KEY_ACTIONS.has(k.callee.name)) {
      const st = this.action(k.callee.name, k, k.loc);
      if (st.kind !== 'action') throw new Error('not an action');
      // The key's type is named after the action: the consumer prints the key as that action's record.
      return { ...k, args: st.args, type: actionKeyType(k.callee.name, this.ctx.env.int64), ref: { kind: 'function', name: k.callee.name } };
    }
    return this.cook(k);
  }

  private action(name: string, e: Expr & { k: 'call' }, loc: Loc): CookedStatement {
    const fn = BUILTIN_FUNCTIONS.get(name)!;
    if (fn.kind !== 'action') throw new Error('not an action');
    const raw = e.args;
    const n = raw.length;
    const arity = (tag: 'D_PROTO_LEN' | 'D_STACK_PROTO' | 'D_USTACK_PROTO' | 'D_CLEAR_PROTO' | 'D_TRUNC_PROTO' | 'D_NORMALIZE_PROTO' | 'D_TRACEMEM_ARGS'): void => {
      if (n >= fn.minArgs && n <= fn.maxArgs) return;
      if (tag === 'D_PROTO_LEN') {
        const expected = fn.minArgs === fn.maxArgs ? String(fn.minArgs) : fn.maxArgs === Infinity || n < fn.minArgs ? `at least ${fn.minArgs}` : `${fn.minArgs} to ${fn.maxArgs}`;
        fail(tag, e.loc, name, n, n === 1 ? '' : 's', expected);
      }
      if (tag === 'D_NORMALIZE_PROTO') fail(tag, e.loc, name, n);
      if (tag === 'D_TRACEMEM_ARGS') fail(tag, e.loc);
      fail(tag, e.loc, n);
    };
    let args: Expr[];
    switch (name) {
      case 'trace':
      case 'print': {
        arity('D_PROTO_LEN');
        const a = raw[0]!;
        if (a.k === 'agg') fail(name === 'trace' ? 'D_TRACE_AGG' : 'D_PRINT_AGG', a.loc);
        const whole = a.k === 'ident' && a.module === undefined ? this.ctx.globals.get(a.name) : a.k === 'var' && a.scope === 'self' ? this.ctx.threadLocals.get(a.name) : undefined;
        if (whole?.kind === 'array' || (a.k === 'ident' && (a.name === 'args' || a.name === 'regs' || a.name === 'uregs'))) fail(name === 'trace' ? 'D_TRACE_DYN' : 'D_PRINT_DYN', a.loc);
        const c = this.cook(a);
        if (isVoid(c.type!)) fail(name === 'trace' ? 'D_TRACE_VOID' : 'D_PRINT_VOID', a.loc);
        // A translated struct is traced whole (built in scratch); a translated pointer is not (dt_action_trace).
        if (c.k === 'xlate' && isPointer(c.type!)) {
          throw new CompileError({ severity: 'error', tag: name === 'trace' ? 'D_TRACE_DYN' : 'D_PRINT_DYN', message: `${name}( ) may not be applied to a translated pointer`, location: a.loc });
        }
        args = [c];
        break;
      }
      case 'printf':
      case 'system':
      case 'freopen':
        arity('D_PROTO_LEN');
        args = this.printfArgs(name, raw, e.loc, false);
        if (name === 'freopen' && raw[0]!.k === 'string' && (raw[0]!.value === '.' || raw[0]!.value === '..')) fail('D_FREOPEN_INVALID', raw[0]!.loc, raw[0]!.value);
        break;
      case 'printa': {
        arity('D_PROTO_LEN');
        if (raw[0]!.k === 'string') {
          // The format's conversions apply to each aggregation's keys and value: every other argument is an aggregation.
          const fmt = parseFormat(raw[0]!.value);
          if (typeof fmt === 'string') throw new CompileError({ severity: 'error', tag: 'D_SYNTAX', message: fmt, location: raw[0]!.loc });
          if (raw.length < 2) fail('D_PRINTA_PROTO', e.loc, 'aggregation argument missing');
          args = [{ ...raw[0]!, type: this.ctx.env.string }, ...raw.slice(1).map((a, i) => this.aggregationArg(name, a, i + 1, { arg: 'D_PRINTA_AGGARG', bad: 'D_PRINTA_AGGBAD' }))];
        } else args = raw.map((a, i) => this.aggregationArg(name, a, i, { arg: 'D_PRINTA_AGGARG', bad: 'D_PRINTA_AGGBAD' }));
        // dt_printa_validate: every aggregation has the first one's key signature.
        const aggs = args.flatMap((a) => (a.ref?.kind === 'aggregation' ? [a.ref.aggregation] : []));
        for (const other of aggs.slice(1)) printaValidate(aggs[0]!, other, e.loc);
        break;
      }
      case 'stack':
        arity('D_STACK_PROTO');
        args = n === 0 ? [] : [this.constPositive(raw[0], 'D_STACK_SIZE')!];
        break;
      case 'ustack':
      case 'jstack':
        arity('D_USTACK_PROTO');
        args = [];
        if (n > 0) args.push(this.constPositive(raw[0], 'D_USTACK_FRAMES')!);
        if (n > 1) args.push(this.constPositive(raw[1], 'D_USTACK_STRSIZE', true)!);
        break;
      case 'tracemem': {
        arity('D_TRACEMEM_ARGS');
        const addr = this.cook(raw[0]!);
        if (!isPointer(addr.type!) && !isInteger(addr.type!) && !isArray(addr.type!)) fail('D_TRACEMEM_ADDR', raw[0]!.loc, dtypeName(addr.type));
        // Its prototype, void(@, size_t, ...), is checked as the call is cooked (dt_idcook_func).
        const size = this.cook(raw[1]!);
        if (size.k === 'agg' || !isInteger(size.type!)) fail('D_PROTO_ARG', raw[1]!.loc, name, 2, 'size_t', size.k === 'agg' ? 'aggregation' : dtypeName(size.type));
        args = [addr, this.constPositive(raw[1], 'D_TRACEMEM_SIZE')!];
        if (n === 3) {
          const d = this.cook(raw[2]!);
          if (!isInteger(d.type!)) fail('D_TRACEMEM_DYNSIZE', raw[2]!.loc);
          args.push(d);
        }
        break;
      }
      case 'clear':
      case 'denormalize':
        arity(name === 'clear' ? 'D_CLEAR_PROTO' : 'D_NORMALIZE_PROTO');
        args = [this.aggregationArg(name, raw[0]!, 0, name === 'clear' ? { arg: 'D_CLEAR_AGGARG', bad: 'D_CLEAR_AGGBAD' } : { arg: 'D_NORMALIZE_AGGARG', bad: 'D_NORMALIZE_AGGBAD' })];
        break;
      case 'normalize': {
        arity('D_NORMALIZE_PROTO');
        args = [this.aggregationArg(name, raw[0]!, 0, { arg: 'D_NORMALIZE_AGGARG', bad: 'D_NORMALIZE_AGGBAD' })];
        const v = this.cook(raw[1]!);
        if (!isScalar(v.type!)) fail('D_NORMALIZE_SCALAR', raw[1]!.loc, name);
        args.push(v);
        break;
      }
      case 'trunc': {
        arity('D_TRUNC_PROTO');
        args = [this.aggregationArg(name, raw[0]!, 0, { arg: 'D_TRUNC_AGGARG', bad: 'D_TRUNC_AGGBAD' })];
        if (n === 2) {
          const v = this.cook(raw[1]!);
          if (!isScalar(v.type!)) fail('D_TRUNC_SCALAR', raw[1]!.loc);
          args.push(v);
        }
        break;
      }
      case 'setopt': {
        arity('D_PROTO_LEN');
        args = raw.map((a) => this.cook(a));
        args.forEach((a, i) => {
          if (a.k !== 'string') fail('D_PROTO_ARG', a.loc, name, i + 1, 'string constant', dtypeName(a.type));
        });
        break;
      }
      default: {
        arity('D_PROTO_LEN');
        args = raw.map((a) => this.cook(a));
        args.forEach((a, i) => {
          if (a.k === 'agg' || !isScalar(a.type!)) fail('D_PROTO_ARG', a.loc, name, i + 1, 'int', a.k === 'agg' ? 'aggregation' : dtypeName(a.type));
        });
      }
    }
    return { kind: 'action', name, args, loc };
  }
}

export const typesPass: Pass = {
  name: 'types',
  reads: 'clauses, symbol tables, type environment',
  writes: 'clauses[].cooked (typed predicate and statements), implicit variables, aggregations',
  run(ctx) {
    const cooker = new Cooker(ctx);
    for (let i = 0; i < ctx.clauses.length; i++) new ClauseTyper(ctx, cooker, ctx.clauses[i]!).run();
  },
};

/** dt_printa_validate: two aggregations printa() prints together must have keys of compatible types. */
function printaValidate(first: AggregationInfo, other: AggregationInfo, loc: Loc): void {
  const l = first.keys;
  const r = other.keys;
  if (l.length !== r.length) {
    const keys = (n: number): string => `${n} key${n === 1 ? '' : 's'}`;
    throw new CompileError({
      severity: 'error',
      tag: 'D_PRINTA_AGGKEY',
      message: `printa( ): @${first.name} and @${other.name} do not have matching key signatures: @${first.name} has ${keys(l.length)}, @${other.name} has ${keys(r.length)}`,
      location: loc,
    });
  }
  for (let i = 0; i < l.length; i++) {
    const a = l[i]!;
    const b = r[i]!;
    const compatible = (isInteger(a) && isInteger(b)) || (isString(a) && isString(b)) || (isPointer(a) && isPointer(b)) || dtypeName(a) === dtypeName(b);
    if (compatible) continue;
    throw new CompileError({
      severity: 'error',
      tag: 'D_PRINTA_AGGPROTO',
      message: `printa( ): @${other.name}[ ] key #${i + 1} is incompatible with @${first.name}:\n${first.name.padStart(9)} key #${i + 1}: ${dtypeName(a)}\n${other.name.padStart(9)} key #${i + 1}: ${dtypeName(b)}`,
      location: loc,
    });
  }
}
