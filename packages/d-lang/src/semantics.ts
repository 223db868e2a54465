// Typing of D expressions ("cooking", after libdtrace's dt_node_cook):
// resolves identifiers against built-ins, variables, inlines, enumerators
// and kernel symbols; defines variables on first assignment; gives every
// expression its D type and marks lvalues; computes integer constant
// values; checks operators, casts, subroutine prototypes and the D typing
// rules, failing with dtrace's D_* diagnostics. Used by the declarations
// pass (constant expressions) and the types pass (clauses).

import { DIF_VAR_OTHER_UBASE } from '@wdtrace/dtrace-core/dif';
import { SYMBOL_REFERENCE_ATTRIBUTES, TYPE_REFERENCE_ATTRIBUTES, attributeMin, attributeText, parseAttribute } from '@wdtrace/dtrace-core/program';
import {
  type CType,
  type EnumType,
  type IntegerType,
  STRING,
  layoutStruct,
  VOID,
  findMember,
  resolveType,
  typeName,
} from '@wdtrace/dtrace-core/types';
import type { AggregationInfo, Expr, Ref, TypeName, TypeSpecifier, VariableInfo } from './ast.js';
import { BUILTIN_FUNCTIONS, BUILTIN_VARIABLES, KEY_ACTIONS, actionKeyType, functionKindName, type ParamKind } from './builtins.js';
import type { CompileContext, InlineInfo, ProbeArgInfo, ProbeInfo, ResolvedClause, TranslatorInfo } from './context.js';
import { CompileError, type Loc, fail } from './diagnostics.js';
import {
  arithmeticResult,
  isArithmetic,
  isArray,
  isCharArrayOrPointer,
  isFunction,
  isInteger,
  isPointer,
  isScalar,
  isSigned,
  isString,
  isStructOrUnion,
  isVoid,
} from './dtypes.js';
import { mapExpr } from './walk.js';

/**
 * Annotate a node in place (type, ref, cooked children) and return it.
 * Nodes are cooked once per use; the rare shared subtrees (inline bodies,
 * translator members, sugar guards) get the same annotations each time.
 */
function into<T extends Expr>(e: T, fields: Partial<Expr> & Record<string, unknown>): Expr {
  return Object.assign(e, fields) as Expr;
}

/**
 * ctf_type_compat(): the same type, or types that resolve to the same
 * shape — integers of one size and signedness, pointers to compatible
 * types, arrays of compatible elements and count, the same struct, union
 * or enum (kind and name), strings.
 */
export function typesCompatible(a: CType, b: CType): boolean {
  if (a === b) return true;
  const ra = resolveType(a);
  const rb = resolveType(b);
  if (ra === rb) return true;
  if (ra.kind !== rb.kind) return false;
  switch (ra.kind) {
    case 'integer':
      return ra.size === (rb as IntegerType).size && ra.signed === (rb as IntegerType).signed;
    case 'float':
      return ra.size === (rb as typeof ra).size;
    case 'pointer':
      return typesCompatible(ra.target, (rb as typeof ra).target);
    case 'array':
      return ra.count === (rb as typeof ra).count && typesCompatible(ra.element, (rb as typeof ra).element);
    case 'struct':
    case 'union':
    case 'enum':
      return ra.name !== '' && ra.name === (rb as typeof ra).name;
    case 'string':
    case 'void':
      return true;
    default:
      return typeName(ra) === typeName(rb);
  }
}

/** dt_node_is_argcompat(): may a value of type `arg` (node `node`) be passed where `param` is expected? */
export function argumentCompatible(arg: CType, node: Expr | undefined, param: CType): boolean {
  if (isInteger(arg) && isInteger(param)) return true;
  const strCompat = (t: CType): boolean => isString(t) || isCharArrayOrPointer(t);
  if (strCompat(arg) && strCompat(param)) return true;
  // NULL where a string is expected (strtok(NULL, ...)).
  if (isString(param) && isPointer(arg) && node?.constValue === 0n) return true;
  const rp = resolveType(param);
  if (rp.kind === 'struct' || rp.kind === 'union' || rp.kind === 'function') return typesCompatible(arg, param);
  // dt_node_is_ptrcompat: pointers (or arrays) to compatible types, void * with any, a 0 constant with a pointer.
  const isPtrLike = (t: CType): boolean => t.kind === 'pointer' || t.kind === 'array';
  const ra = resolveType(arg);
  if (isInteger(arg)) return isPtrLike(rp) && node?.constValue === 0n;
  if (!isPtrLike(ra) || !isPtrLike(rp)) return false;
  const ta = ra.kind === 'pointer' ? ra.target : (ra as { element: CType }).element;
  const tp = rp.kind === 'pointer' ? rp.target : (rp as { element: CType }).element;
  return isVoid(ta) || isVoid(tp) || typesCompatible(ta, tp);
}

const inlineTypeNames = new WeakMap<InlineInfo, TypeName>();

/** The `args` identifiers of native arguments args[N] stands for, with their native types. */
const nativeArgBases = new WeakMap<Expr, CType>();
/** Output types of the translations args[N] stands for (their type names are placeholders). */
const xlateTargets = new WeakMap<Expr, CType>();

/** A type name that is never resolved (the node's type is known already). */
function placeholderTypeName(loc: Loc): TypeName {
  return { specifier: { words: [], qualifiers: [], loc }, declarator: { name: '', derivations: [], loc }, loc };
}

/** One reference object per variable and per built-in (they are immutable; many nodes share them). */
const variableRefs = new WeakMap<VariableInfo, Ref>();
function variableRef(variable: VariableInfo): Ref {
  let r = variableRefs.get(variable);
  if (r === undefined) {
    r = { kind: 'variable', variable };
    variableRefs.set(variable, r);
  }
  return r;
}
const aggregationRefs = new WeakMap<AggregationInfo, Ref>();
const functionRefs = new Map<string, Ref>();
function sharedRef<K>(cache: { get(k: K): Ref | undefined; set(k: K, r: Ref): unknown }, key: K, make: () => Ref): Ref {
  let r = cache.get(key);
  if (r === undefined) {
    r = make();
    cache.set(key, r);
  }
  return r;
}
const builtinArrayRefs = new Map<number, Ref>();
function builtinArrayRef(id: number): Ref {
  let r = builtinArrayRefs.get(id);
  if (r === undefined) {
    r = { kind: 'builtin', id, array: true };
    builtinArrayRefs.set(id, r);
  }
  return r;
}
const builtinRefs = new Map<number, Ref>();
function builtinRef(id: number): Ref {
  let r = builtinRefs.get(id);
  if (r === undefined) {
    r = { kind: 'builtin', id, array: false };
    builtinRefs.set(id, r);
  }
  return r;
}

/** into() for the hot cases, without an object of fields per node: a binary operator or assignment's operands and type. */
function withOperands(e: Expr & { k: 'binary' | 'assign' }, left: Expr, right: Expr, type: CType): Expr {
  const m = e as { left: Expr; right: Expr; type?: CType };
  m.left = left;
  m.right = right;
  m.type = type;
  return e;
}

/** A unary operator's (or cast's) operand and type. */
function withOperand(e: Expr & { k: 'unary' | 'cast' }, operand: Expr, type: CType): Expr {
  const m = e as { operand: Expr; type?: CType };
  m.operand = operand;
  m.type = type;
  return e;
}

/** A member access's base and type (an lvalue). */
function withMember(e: Expr & { k: 'member' }, base: Expr, type: CType): Expr {
  const m = e as { base: Expr; type?: CType; lvalue?: boolean };
  m.base = base;
  m.type = type;
  m.lvalue = true;
  return e;
}

/**
 * dt_node_is_scalar: an integer, enum or pointer — not void, not an array,
 * not a string (D's string is an array of char).
 */
export function isDScalar(t: CType): boolean {
  return !isVoid(t) && !isString(t) && (isInteger(t) || isPointer(t));
}

/** D_OP_SCALAR in the wording of the operator's arity (dt_cook_op2's "operands", dt_cook_op3's "expression"). */
function opScalar(message: string, location: Loc): never {
  throw new CompileError({ severity: 'error', tag: 'D_OP_SCALAR', message, location });
}

/** A translation (dtrace's dynamic type) where an operator does not take one, in dt_parser.c's words. */
function dynamicOperand(tag: 'D_OP_DYN' | 'D_ADDROF_VAR', message: string, location: Loc): never {
  throw new CompileError({ severity: 'error', tag, message, location });
}

/** Actions whose argument count has a tag of its own (D_STACK_PROTO, D_CLEAR_PROTO ...), checked by the types pass. */
const OWN_ARITY_ACTIONS = new Set(['stack', 'ustack', 'jstack', 'tracemem', 'clear', 'denormalize', 'normalize', 'trunc']);

export interface CookScope {
  readonly clause?: ResolvedClause;
  /** Inside a translator body: the input parameter. */
  readonly translatorInput?: { name: string; type: CType };
}

const u64 = (v: bigint): bigint => BigInt.asUintN(64, v);

/** Truncate/sign-extend a constant to a type's width. */
export function fitToType(v: bigint, t: CType): bigint {
  const r = resolveType(t);
  const size = r.kind === 'integer' || r.kind === 'pointer' || r.kind === 'enum' ? r.size : 8;
  const bits = size * 8;
  return isSigned(t) ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
}

/** The user-visible spelling of a type, for messages. */
export function dtypeName(t: CType | undefined): string {
  return t === undefined ? 'void' : typeName(t);
}

function opName(e: Expr): string {
  if (e.k === 'unary') {
    switch (e.op) {
      case '++pre':
      case '++post':
        return '++';
      case '--pre':
      case '--post':
        return '--';
      default:
        return e.op;
    }
  }
  if (e.k === 'binary' || e.k === 'assign') return e.op;
  return '?';
}

/** C type qualifiers, which type names from providers and DWARF may carry. */
const QUALIFIERS: ReadonlySet<string> = new Set(['const', 'volatile', 'restrict']);

export class Cooker {
  constructor(readonly ctx: CompileContext) {}

  /**
   * Set when an expression cooked names a kernel symbol (`sym, module`sym
   * or an extern), which lowers the attributes of its statement
   * (_dtrace_symattr); kernel types named set the environment's
   * foreignTypeNamed. Cleared and read per clause (clearReferences,
   * referenceAttributes); translator bodies do not count.
   */
  private symbolNamed = false;

  clearReferences(): void {
    this.symbolNamed = false;
    this.env.foreignTypeNamed = false;
  }

  /** The least attributes of the references noted since clearReferences, written; undefined for none. */
  referenceAttributes(): string | undefined {
    const symbol = this.symbolNamed;
    const type = this.env.foreignTypeNamed;
    if (!symbol && !type) return undefined;
    if (!type) return SYMBOL_REFERENCE_ATTRIBUTES;
    if (!symbol) return TYPE_REFERENCE_ATTRIBUTES;
    return attributeText(attributeMin(parseAttribute(SYMBOL_REFERENCE_ATTRIBUTES), parseAttribute(TYPE_REFERENCE_ATTRIBUTES)));
  }

  private get env() {
    return this.ctx.env;
  }

  private readonly typeCache = new Map<string, CType>();

  typeOfName(name: string, loc: Loc): CType {
    const cached = this.typeCache.get(name);
    if (cached !== undefined) return cached;
    const t = this.typeOfNameUncached(name, loc);
    this.typeCache.set(name, t);
    return t;
  }

  private typeOfNameUncached(name: string, loc: Loc): CType {
    const t = this.cTypeName(name);
    if (t === undefined) return fail('D_TYPE_ERR', loc, `failed to resolve type ${name}`);
    return t;
  }

  /**
   * A C type name as a provider or the kernel's DWARF writes it ("const char *",
   * "struct file **", "unsigned long", "char *const"): qualifiers are dropped,
   * each `*` makes a pointer; undefined when the base type is unknown.
   */
  cTypeName(name: string): CType | undefined {
    const tokens = name.replace(/\*/g, ' * ').trim().split(/\s+/);
    let stars = 0;
    while (tokens.length > 0 && (tokens[tokens.length - 1] === '*' || QUALIFIERS.has(tokens[tokens.length - 1]!))) {
      if (tokens.pop() === '*') stars++;
    }
    const baseName = tokens.filter((t) => !QUALIFIERS.has(t)).join(' ');
    if (baseName === '' || baseName.includes('*')) return undefined;
    let t = this.env.lookup(baseName);
    for (let i = 0; t !== undefined && i < stars; i++) t = this.env.pointerTo(t);
    return t;
  }

  // ---- variables ---------------------------------------------------------

  private nextId(map: Map<string, VariableInfo>): number {
    return DIF_VAR_OTHER_UBASE + map.size;
  }

  defineVariable(scope: VariableInfo['scope'], name: string, kind: VariableInfo['kind'], type: CType, declared: boolean, _cs: CookScope, keys?: CType[]): VariableInfo {
    let v: VariableInfo;
    if (scope === 'global') {
      const id = this.nextId(this.ctx.globals);
      v = keys !== undefined ? { name, scope, kind, id, type, declared, keys } : { name, scope, kind, id, type, declared };
      this.ctx.globals.set(name, v);
    } else if (scope === 'thread') {
      const id = this.nextId(this.ctx.threadLocals);
      v = keys !== undefined ? { name, scope, kind, id, type, declared, keys } : { name, scope, kind, id, type, declared };
      this.ctx.threadLocals.set(name, v);
    } else {
      let id = this.ctx.localIds.get(name);
      if (id === undefined) {
        id = DIF_VAR_OTHER_UBASE + this.ctx.localIds.size;
        this.ctx.localIds.set(name, id);
      }
      v = { name, scope, kind, id, type, declared };
      // Clause-locals are known program-wide once declared or assigned (each
      // firing starts them afresh at run time; the if/else sugar relies on
      // later clauses of a firing seeing them).
      this.ctx.declaredLocals.set(name, v);
    }
    return v;
  }

  lookupVariable(e: Expr & { k: 'var' }, _cs: CookScope): VariableInfo | undefined {
    if (e.scope === 'self') return this.ctx.threadLocals.get(e.name);
    return this.ctx.declaredLocals.get(e.name);
  }

  // ---- expressions -------------------------------------------------------

  /** Value type after array-to-pointer decay (arrays of char stay arrays: D treats them as strings where needed). */
  valueType(t: CType): CType {
    return t;
  }

  cook(e: Expr, cs: CookScope): Expr {
    switch (e.k) {
      case 'int':
        // A character constant is an integer constant (sizeof ('c') is 4): its bytes packed, typed as dt_node_int types a value.
        e.type = e.isChar === true && e.value < 0n ? this.env.int : this.env.constantType(e.value, e.suffix, e.decimal, e.loc);
        e.constValue = e.value;
        return e;
      case 'string':
        e.type = STRING;
        return e;
      case 'ident':
        return this.cookIdent(e, cs);
      case 'var': {
        const v = this.lookupVariable(e, cs);
        // self->x and this->x name a variable whether or not it exists; a
        // read before any declaration or assignment is D_VAR_UNDEF
        // (dt_node_op2's DT_TOK_PTR case, then dt_cook_var).
        if (v === undefined) fail('D_VAR_UNDEF', e.loc, `${e.scope}->${e.name}`);
        if (v.kind === 'array') fail('D_IDENT_BADREF', e.loc, 'associative array', e.name, 'scalar');
        e.type = v.type;
        e.ref = variableRef(v);
        e.lvalue = true;
        return e;
      }
      case 'agg': {
        const a = this.ctx.aggregations.get(e.name);
        if (a === undefined) fail('D_IDENT_UNDEF', e.loc, `@${e.name}`, 'Unknown aggregation name');
        return into(e, { type: this.env.int64, ref: sharedRef(aggregationRefs, a, () => ({ kind: 'aggregation', aggregation: a })) });
      }
      case 'macro':
        return fail('D_MACRO_UNDEF', e.loc, `$${e.name}`);
      case 'unary':
        return this.cookUnary(e, cs);
      case 'sizeoftype': {
        const t = this.resolveTypeName(e.typeName);
        if (isVoid(t) || isFunction(t)) fail('D_SIZEOF_TYPE', e.loc, dtypeName(t));
        const size = BigInt(this.env.sizeOf(t));
        return into(e, { type: this.env.lookup('size_t')!, constValue: size });
      }
      case 'offsetof': {
        const t = this.resolveTypeName(e.typeName);
        const rt = resolveType(t);
        if (!isStructOrUnion(t) || ((rt.kind === 'struct' || rt.kind === 'union') && !rt.complete)) fail('D_OFFSETOF_TYPE', e.loc);
        const m = findMember(t, e.member);
        // dt_node_offsetof: ctf_member_info's failure, as D_UNKNOWN.
        if (m === undefined) throw new CompileError({ severity: 'error', tag: 'D_UNKNOWN', message: `failed to determine offset of ${e.member}: Member name not found`, location: e.loc });
        if (m.bitWidth !== undefined) fail('D_OFFSETOF_BITFIELD', e.loc, e.member);
        return into(e, { type: this.env.lookup('size_t')!, constValue: BigInt(m.offset) });
      }
      case 'binary':
        return this.cookBinary(e, cs);
      case 'assign':
        return this.cookAssign(e, cs);
      case 'ternary': {
        const cond = this.cook(e.cond, cs);
        if (cond.k === 'agg' || !isDScalar(cond.type!)) opScalar('operator ?: expression must be of scalar type', e.loc);
        const then = this.cook(e.then, cs);
        const otherwise = this.cook(e.otherwise, cs);
        if (then.k === 'xlate' || otherwise.k === 'xlate') dynamicOperand('D_OP_DYN', 'operator ?: operands cannot be of dynamic type', e.loc);
        let type: CType;
        const a = then.type!;
        const b = otherwise.type!;
        if (isInteger(a) && isInteger(b)) type = arithmeticResult(this.env, a, b);
        else if ((isString(a) || isCharArrayOrPointer(a)) && (isString(b) || isCharArrayOrPointer(b)) && (isString(a) || isString(b))) type = STRING;
        else if (isPointer(a) && isPointer(b) && dtypeName(a) === dtypeName(b)) type = a;
        else if (isPointer(a) && isInteger(b)) type = a;
        else if (isInteger(a) && isPointer(b)) type = b;
        else if (dtypeName(a) === dtypeName(b)) type = a;
        else return fail('D_OP_INCOMPAT', e.loc, dtypeName(a), ':', dtypeName(b));
        const out: Expr = into(e, { cond, then, otherwise, type });
        if (cond.constValue !== undefined && then.constValue !== undefined && otherwise.constValue !== undefined) {
          out.constValue = fitToType(cond.constValue !== 0n ? then.constValue : otherwise.constValue, type);
        }
        return out;
      }
      case 'call':
        return this.cookCall(e, cs, false);
      case 'index':
        return this.cookIndex(e, cs);
      case 'member':
        return this.cookMember(e, cs);
      case 'cast': {
        const t = this.resolveTypeName(e.typeName);
        const operand = this.cook(e.operand, cs);
        const from = operand.type!;
        if (isVoid(t)) return { ...e, operand, type: VOID };
        if (isString(t)) {
          if (!isString(from) && !isCharArrayOrPointer(from)) fail('D_CAST_INVAL', e.loc, dtypeName(from), dtypeName(t));
          return withOperand(e, operand, STRING);
        }
        if (!isScalar(t) || !(isScalar(from) || isFunction(from))) {
          if (!(isStructOrUnion(t) && dtypeName(t) === dtypeName(from))) fail('D_CAST_INVAL', e.loc, dtypeName(from), dtypeName(t));
        }
        const out: Expr = withOperand(e, operand, t);
        if (operand.constValue !== undefined && isInteger(t)) out.constValue = fitToType(operand.constValue, t);
        else if (operand.constValue !== undefined && isPointer(t)) out.constValue = u64(operand.constValue);
        return out;
      }
      case 'xlate':
        return this.cookXlate(e, cs);
    }
  }

  private cookIdent(e: Expr & { k: 'ident' }, cs: CookScope): Expr {
    if (e.module !== undefined) {
      const sym = this.env.chain.lookupSymbol(e.name);
      if (sym === undefined) fail('D_IDENT_UNDEF', e.loc, `${e.module}\`${e.name}`, 'Unknown symbol name');
      this.symbolNamed = true;
      return into(e, { type: sym.type, ref: { kind: 'symbol', address: sym.address }, lvalue: false });
    }
    if (cs.translatorInput !== undefined && e.name === cs.translatorInput.name) {
      return into(e, { type: cs.translatorInput.type, ref: { kind: 'translator-input' } });
    }
    const b = BUILTIN_VARIABLES.get(e.name);
    if (b !== undefined) {
      if (b.array === true) fail('D_IDENT_BADREF', e.loc, 'associative array', e.name, 'scalar');
      e.type = this.typeOfName(e.name === 'curthread' && this.ctx.options.threadType !== undefined ? this.ctx.options.threadType : b.type, e.loc);
      e.ref = builtinRef(b.id);
      return e;
    }
    const g = this.ctx.globals.get(e.name);
    if (g !== undefined) {
      // dt_xcook_ident: an identifier of another kind than the one its use needs.
      if (g.kind === 'array') return fail('D_IDENT_BADREF', e.loc, 'associative array', e.name, 'scalar');
      e.type = g.type;
      e.ref = variableRef(g);
      e.lvalue = true;
      return e;
    }
    const inl = this.ctx.inlines.get(e.name);
    if (inl !== undefined) {
      const value = this.cook(inl.value, {});
      if (isString(inl.type)) return { ...value, type: STRING };
      // The inline's value converted to the inline's type (its type is known: the type name is a placeholder, one per inline).
      let typeName = inlineTypeNames.get(inl);
      if (typeName === undefined) {
        typeName = { specifier: { words: [], qualifiers: [], loc: e.loc }, declarator: { name: '', derivations: [], loc: e.loc }, loc: e.loc };
        inlineTypeNames.set(inl, typeName);
      }
      const constValue = value.constValue !== undefined && isInteger(inl.type) ? fitToType(value.constValue, inl.type) : undefined;
      return { k: 'cast', typeName, operand: value, loc: e.loc, type: inl.type, constValue, ref: undefined, lvalue: undefined };
    }
    const en = this.env.chain.lookupEnumConstant(e.name);
    if (en !== undefined) return { k: 'int', value: BigInt(en.value), suffix: '', decimal: true, loc: e.loc, type: en.type, constValue: BigInt(en.value) };
    const ext = this.ctx.externs.get(e.name);
    if (ext !== undefined) {
      this.symbolNamed = true;
      return { ...e, type: ext.type, ref: { kind: 'symbol', address: ext.address } };
    }
    if (e.name === 'NULL') {
      // D's NULL: built in, a void * constant 0.
      return { k: 'int', value: 0n, suffix: '', decimal: true, loc: e.loc, type: this.env.pointerTo(VOID), constValue: 0n };
    }
    if (BUILTIN_FUNCTIONS.has(e.name)) fail('D_FUNC_IDKIND', e.loc, e.name);
    return fail('D_IDENT_UNDEF', e.loc, e.name, 'Unknown variable name');
  }

  private checkWritable(op: string, target: Expr, loc: Loc): void {
    if (target.ref?.kind === 'builtin') fail('D_OP_WRITE', loc, op);
    if (target.lvalue !== true) fail('D_OP_LVAL', loc, op);
  }

  private cookUnary(e: Expr & { k: 'unary' }, cs: CookScope): Expr {
    const op = opName(e);
    if (e.op === 'sizeof') {
      const operand = this.cook(e.operand, cs);
      const t = operand.type!;
      if (isVoid(t) || isFunction(t) || operand.k === 'agg') fail('D_SIZEOF_TYPE', e.loc, dtypeName(t));
      if (operand.k === 'member') {
        const m = this.memberOf(operand);
        if (m?.bitWidth !== undefined) fail('D_SIZEOF_BITFIELD', e.loc);
      }
      // A string constant's size is its length and the NUL (dt_node_sizeof), not strsize.
      const size = operand.k === 'string' ? BigInt(operand.value.length + 1) : BigInt(this.env.sizeOf(t));
      return { k: 'int', value: size, suffix: 'ul', decimal: true, loc: e.loc, type: this.env.lookup('size_t')!, constValue: size };
    }
    if (e.op === 'stringof') {
      const operand = this.cook(e.operand, cs);
      if (!isScalar(operand.type!) && !isString(operand.type!)) fail('D_STRINGOF_TYPE', e.loc, dtypeName(operand.type));
      return withOperand(e, operand, STRING);
    }
    if (e.op === '++pre' || e.op === '++post' || e.op === '--pre' || e.op === '--post') this.instantiateForIncrement(e.operand, cs);
    const operand = this.cook(e.operand, cs);
    const t = operand.type!;
    switch (e.op) {
      case '-':
      case '+': {
        if (operand.k === 'agg') fail('D_OP_DYN', e.loc, op);
        if (!isArithmetic(t)) throw new CompileError({ severity: 'error', tag: 'D_OP_ARITH', message: `operator ${op} requires an operand of arithmetic type`, location: e.loc });
        // dt_cook_op1: the operand's type, not promoted (dt_node_type_propagate).
        const type = t;
        const out: Expr = withOperand(e, operand, type);
        if (operand.constValue !== undefined) out.constValue = fitToType(e.op === '-' ? -operand.constValue : operand.constValue, type);
        return out;
      }
      case '~': {
        if (!isInteger(t)) throw new CompileError({ severity: 'error', tag: 'D_OP_INT', message: `operator ${op} requires an operand of integral type`, location: e.loc });
        const type = t;
        const out: Expr = withOperand(e, operand, type);
        if (operand.constValue !== undefined) out.constValue = fitToType(~operand.constValue, type);
        return out;
      }
      case '!': {
        if (!isDScalar(t)) fail('D_OP_SCALAR', e.loc, op);
        const out: Expr = withOperand(e, operand, this.env.int);
        if (operand.constValue !== undefined) out.constValue = operand.constValue === 0n ? 1n : 0n;
        return out;
      }
      case '*': {
        const r = resolveType(t);
        if (r.kind !== 'pointer' && r.kind !== 'array') fail('D_DEREF_NONPTR', e.loc);
        const target = r.kind === 'pointer' ? r.target : r.element;
        if (isVoid(target)) fail('D_DEREF_VOID', e.loc);
        if (isFunction(target)) fail('D_DEREF_FUNC', e.loc);
        return into(e, { operand, type: target, lvalue: true });
      }
      case '&': {
        if (operand.ref?.kind === 'variable' || operand.ref?.kind === 'builtin') fail('D_ADDROF_VAR', e.loc);
        if (operand.k === 'xlate') dynamicOperand('D_ADDROF_VAR', 'cannot take address of dynamic object', e.loc);
        if (operand.lvalue !== true && operand.ref?.kind !== 'symbol') fail('D_ADDROF_LVAL', e.loc);
        if (operand.k === 'member' && this.memberOf(operand)?.bitWidth !== undefined) fail('D_ADDROF_BITFIELD', e.loc);
        return withOperand(e, operand, this.env.pointerTo(t));
      }
      default: {
        // ++ and --
        if (!isScalar(t)) fail('D_OP_SCALAR', e.loc, op);
        this.checkWritable(op, operand, e.loc);
        return withOperand(e, operand, t);
      }
    }
  }

  /**
   * ++ and -- may create the variable they apply to, as an int64_t
   * (dt_cook_op1): a global named by an identifier, self->x or this->x, or
   * an associative array element (global or self->), whose keys are cooked
   * first.
   */
  private instantiateForIncrement(target: Expr, cs: CookScope): void {
    const int64 = this.env.int64;
    if (target.k === 'ident' && target.module === undefined && this.isUndefinedName(target.name, cs)) {
      this.defineVariable('global', target.name, 'scalar', int64, false, cs);
    } else if (target.k === 'var' && this.lookupVariable(target, cs) === undefined) {
      this.defineVariable(target.scope === 'self' ? 'thread' : 'local', target.name, 'scalar', int64, false, cs);
    } else if (target.k === 'index') {
      const base = target.base;
      const global = base.k === 'ident' && base.module === undefined && this.isUndefinedName(base.name, cs);
      const thread = base.k === 'var' && this.lookupVariable(base, cs) === undefined;
      if (!global && !thread) return;
      if (base.k === 'var' && base.scope === 'this') fail('D_ARR_LOCAL', target.loc, `this->${base.name}`);
      const keyTypes = target.args.map((k) => this.keyType(this.cook(k, cs)));
      this.defineVariable(global ? 'global' : 'thread', (base as Expr & { name: string }).name, 'array', int64, false, cs, keyTypes);
    }
  }

  memberOf(e: Expr): ReturnType<typeof findMember> {
    if (e.k !== 'member') return undefined;
    const bt = e.base.type;
    if (bt === undefined) return undefined;
    const r = resolveType(bt);
    const sou = e.arrow && r.kind === 'pointer' ? r.target : bt;
    return findMember(sou, e.name);
  }

  private cookBinary(e: Expr & { k: 'binary' }, cs: CookScope): Expr {
    const left = this.cook(e.left, cs);
    const right = this.cook(e.right, cs);
    const a = left.type!;
    const b = right.type!;
    const op = e.op;
    const both = (x: bigint | undefined, y: bigint | undefined): boolean => x !== undefined && y !== undefined;
    if (op === ',' && (left.k === 'xlate' || right.k === 'xlate')) dynamicOperand('D_OP_DYN', 'operator , operands cannot be of dynamic type', e.loc);
    if (op === ',') return { ...e, left, right, type: b, ...(right.constValue !== undefined && left.constValue !== undefined ? { constValue: right.constValue } : {}) };
    if (left.k === 'agg' || right.k === 'agg') {
      // An aggregation has a dynamic type, which no operator's type rules
      // accept (dt_cook_op2): the failing rule's tag.
      const n = (x: Expr): string => (x.k === 'agg' ? '<DYN>' : dtypeName(x.type));
      if (op === '*' || op === '/') fail('D_OP_ARITH', e.loc, op);
      if (op === '%' || op === '&' || op === '|' || op === '^' || op === '<<' || op === '>>') fail('D_OP_INT', e.loc, op);
      if (op === '&&' || op === '||' || op === '^^') fail('D_OP_SCALAR', e.loc, op);
      fail('D_OP_INCOMPAT', e.loc, n(left), op, n(right));
    }
    switch (op) {
      case '&&':
      case '||':
      case '^^': {
        if (!isDScalar(a) || !isDScalar(b)) opScalar(`operator ${op} requires operands of scalar type`, e.loc);
        const out: Expr = withOperands(e, left, right, this.env.int);
        if (both(left.constValue, right.constValue)) {
          const l = left.constValue !== 0n;
          const r = right.constValue !== 0n;
          out.constValue = (op === '&&' ? l && r : op === '||' ? l || r : l !== r) ? 1n : 0n;
        }
        return out;
      }
      case '==':
      case '!=':
      case '<':
      case '>':
      case '<=':
      case '>=': {
        const sa = isString(a) || (isCharArrayOrPointer(a) && isString(b));
        const sb = isString(b) || (isCharArrayOrPointer(b) && isString(a));
        if (sa || sb) {
          // A string against void * (NULL) or a 0 constant is dt_node_is_ptrcompat's pointer case; dt_cg_compare still uses scmp.
          const other = sa ? b : a;
          const ro = resolveType(other);
          const nullLike = (ro.kind === 'pointer' && isVoid(ro.target)) || (isInteger(other) && (sa ? right : left).constValue === 0n);
          if (!(sa && sb) && !nullLike) fail('D_OP_INCOMPAT', e.loc, dtypeName(a), op, dtypeName(b));
          return withOperands(e, left, right, this.env.int);
        }
        if (!isScalar(a) || !isScalar(b)) fail('D_OP_INCOMPAT', e.loc, dtypeName(a), op, dtypeName(b));
        const out: Expr = withOperands(e, left, right, this.env.int);
        if (both(left.constValue, right.constValue)) {
          const rt = arithmeticResult(this.env, a, b);
          const l = fitToType(left.constValue!, rt);
          const r = fitToType(right.constValue!, rt);
          const res = op === '==' ? l === r : op === '!=' ? l !== r : op === '<' ? l < r : op === '>' ? l > r : op === '<=' ? l <= r : l >= r;
          out.constValue = res ? 1n : 0n;
        }
        return out;
      }
      case '+':
      case '-': {
        // dt_cook_op2: a pointer to void or to a function is no pointer for + and - (dt_node_is_vfptr).
        const vf = (t: CType): boolean => {
          const r = resolveType(t);
          return r.kind === 'pointer' && (isVoid(r.target) || isFunction(r.target));
        };
        const pa = (isPointer(a) || isArray(a)) && !vf(a);
        const pb = (isPointer(b) || isArray(b)) && !vf(b);
        if (vf(a) || vf(b)) fail('D_OP_INCOMPAT', e.loc, dtypeName(a), op, dtypeName(b));
        if (pa && pb) {
          if (op === '+') fail('D_OP_INCOMPAT', e.loc, dtypeName(a), op, dtypeName(b));
          return withOperands(e, left, right, this.env.lookup('ptrdiff_t')!);
        }
        // dt_cook_op2 counts a string as a pointer here: string + int (and
        // int + string) is a string that many bytes on, unscaled (a string
        // is no pointer to dt_cg_ptrsize).
        if (isString(a) && isInteger(b)) return withOperands(e, left, right, STRING);
        if (isString(b) && isInteger(a) && op === '+') return withOperands(e, left, right, STRING);
        if (pa && isInteger(b)) return { ...e, left, right, type: this.decay(a) };
        if (pb && isInteger(a) && op === '+') return { ...e, left, right, type: this.decay(b) };
        if (!isArithmetic(a) || !isArithmetic(b)) {
          if (isString(a) || isString(b)) fail('D_OP_ARITH', e.loc, op);
          // dt_cook_op2: neither integers nor a pointer and an integer.
          fail('D_OP_INCOMPAT', e.loc, dtypeName(a), op, dtypeName(b));
        }
        return this.arith(e, left, right);
      }
      case '*':
      case '/':
      case '%':
        if (op === '%' && (!isInteger(a) || !isInteger(b))) fail('D_OP_INT', e.loc, op);
        if (!isArithmetic(a) || !isArithmetic(b)) fail('D_OP_ARITH', e.loc, op);
        if ((op === '/' || op === '%') && right.constValue === 0n) fail('D_DIV_ZERO', e.loc);
        return this.arith(e, left, right);
      default:
        // << >> & | ^
        if (!isInteger(a) || !isInteger(b)) fail('D_OP_INT', e.loc, op);
        return this.arith(e, left, right);
    }
  }

  decay(t: CType): CType {
    const r = resolveType(t);
    if (r.kind === 'array') return this.env.pointerTo(r.element);
    return t;
  }

  private arith(e: Expr & { k: 'binary' }, left: Expr, right: Expr): Expr {
    const isShift = e.op === '<<' || e.op === '>>';
    // dt_cook_op2: a shift has its left operand's type (K&R A7.8), the others dt_type_promote's.
    const type = isShift ? left.type! : arithmeticResult(this.env, left.type!, right.type!);
    const out: Expr = withOperands(e, left, right, type);
    if (left.constValue !== undefined && right.constValue !== undefined) {
      // dt_node_op2 folds in 64-bit arithmetic (signed or unsigned as the
      // result type is) and keeps all 64 bits: (1 << 63) - 1 stays
      // 0x7fffffffffffffff although its type is int. Only casts narrow.
      const signed = isSigned(type);
      const wide = (v: bigint): bigint => (signed ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v));
      const l = wide(left.constValue);
      const r = isShift ? right.constValue : wide(right.constValue);
      let v: bigint;
      switch (e.op) {
        case '+':
          v = l + r;
          break;
        case '-':
          v = l - r;
          break;
        case '*':
          v = l * r;
          break;
        case '/':
          v = l / r;
          break;
        case '%':
          v = l % r;
          break;
        case '<<':
          v = l << (r & 63n);
          break;
        case '>>':
          v = signed ? l >> (r & 63n) : u64(l) >> (r & 63n);
          break;
        case '&':
          v = l & r;
          break;
        case '|':
          v = l | r;
          break;
        default:
          v = l ^ r;
      }
      out.constValue = wide(v);
    }
    return out;
  }

  /** Check that a value of type `from` may be stored in `to`. */
  checkAssignable(to: CType, from: Expr, loc: Loc, op: string): void {
    const a = to;
    const b = from.type!;
    if (isString(a)) {
      if (isString(b) || isCharArrayOrPointer(b)) return;
      // NULL (a pointer constant 0) empties a string.
      if (isPointer(b) && from.constValue === 0n) return;
      fail('D_OP_INCOMPAT', loc, dtypeName(a), op, dtypeName(b));
    }
    if (isInteger(a) && isInteger(b)) return;
    if (isPointer(a) && (isPointer(b) || isArray(b) || isInteger(b))) return;
    // A string is a char * to a pointer to char (dt_node_is_strcompat).
    if (isString(b) && isCharArrayOrPointer(a) && isPointer(a)) return;
    if (isInteger(a) && (isPointer(b) || isArray(b))) return;
    if (dtypeName(a) === dtypeName(b)) return;
    fail('D_OP_INCOMPAT', loc, dtypeName(a), op, dtypeName(b));
  }

  /** The type a variable takes from its first assignment. */
  private implicitType(rhs: Expr, loc: Loc): CType {
    const t = rhs.type!;
    if (rhs.k === 'call' && rhs.ref?.kind === 'function') {
      const fn = BUILTIN_FUNCTIONS.get(rhs.ref.name);
      if (fn !== undefined && fn.kind !== 'subr') fail('D_CG_EXPR', rhs.loc, functionKindName(fn.kind), rhs.ref.name);
    }
    if (rhs.k === 'agg') fail('D_OP_DYN', loc, '=');
    if (isVoid(t)) fail('D_OP_VFPTR', loc, '=');
    if (isCharArrayOrPointer(t) && isArray(t)) return STRING;
    if (isArray(t)) return this.decay(t);
    if (isFunction(t)) fail('D_OP_ARRFUN', loc, '=', dtypeName(t));
    return t;
  }

  private cookAssign(e: Expr & { k: 'assign' }, cs: CookScope): Expr {
    if (e.left.k === 'agg' || (e.left.k === 'index' && e.left.base.k === 'agg')) fail('D_AGG_FUNC', e.loc, e.left.k === 'agg' ? e.left.name : (e.left.base as Expr & { k: 'agg' }).name);
    const right = this.cook(e.right, cs);
    if (right.k === 'call' && right.ref?.kind === 'function') {
      // handled in cookCall: actions in expressions are errors
    }
    let left: Expr;
    // Implicit definition on first assignment.
    if (e.op === '=' && e.left.k === 'ident' && e.left.module === undefined && this.isUndefinedName(e.left.name, cs)) {
      const v = this.defineVariable('global', e.left.name, 'scalar', this.implicitType(right, e.loc), false, cs);
      // Annotated in place, as cooking the name later gives it the same annotations.
      left = e.left;
      left.type = v.type;
      left.ref = variableRef(v);
      left.lvalue = true;
    } else if (e.op === '=' && e.left.k === 'var' && this.lookupVariable(e.left, cs) === undefined) {
      const v = this.defineVariable(e.left.scope === 'self' ? 'thread' : 'local', e.left.name, 'scalar', this.implicitType(right, e.loc), false, cs);
      left = e.left;
      left.type = v.type;
      left.ref = variableRef(v);
      left.lvalue = true;
    } else if (e.op === '=' && e.left.k === 'index' && e.left.base.k === 'ident' && e.left.base.module === undefined && this.isUndefinedName(e.left.base.name, cs)) {
      const keys = e.left.args.map((k) => this.cook(k, cs));
      const keyTypes = keys.map((k) => this.keyType(k));
      const v = this.defineVariable('global', e.left.base.name, 'array', this.implicitType(right, e.loc), false, cs, keyTypes);
      left = { ...e.left, base: { ...e.left.base, ref: { kind: 'variable', variable: v }, type: v.type }, args: keys, type: v.type, ref: { kind: 'variable', variable: v }, lvalue: true };
    } else if (e.op === '=' && e.left.k === 'index' && e.left.base.k === 'var' && this.lookupVariable(e.left.base, cs) === undefined) {
      if (e.left.base.scope === 'this') fail('D_ARR_LOCAL', e.loc, `this->${e.left.base.name}`);
      const keys = e.left.args.map((k) => this.cook(k, cs));
      const keyTypes = keys.map((k) => this.keyType(k));
      const v = this.defineVariable('thread', e.left.base.name, 'array', this.implicitType(right, e.loc), false, cs, keyTypes);
      left = { ...e.left, base: { ...e.left.base, ref: { kind: 'variable', variable: v }, type: v.type }, args: keys, type: v.type, ref: { kind: 'variable', variable: v }, lvalue: true };
    } else {
      // A compound assignment creates a global it names (dt_cook_op2), then
      // reads it: one never assigned is D_VAR_UNDEF.
      if (e.op !== '=' && e.left.k === 'ident' && e.left.module === undefined && this.isUndefinedName(e.left.name, cs)) fail('D_VAR_UNDEF', e.left.loc, e.left.name);
      left = this.cook(e.left, cs);
    }
    this.checkWritable(e.op, left, e.loc);
    if (e.op === '=' && (isArray(left.type!) || isFunction(left.type!))) fail('D_OP_ARRFUN', e.loc, '=', dtypeName(left.type));
    if (e.op === '=') {
      this.checkAssignable(left.type!, right, e.loc, '=');
    } else {
      const bop = e.op.slice(0, -1);
      if (bop === '+' || bop === '-') {
        if (!(isArithmetic(left.type!) || isPointer(left.type!)) || !isInteger(right.type!) && !isArithmetic(right.type!)) fail('D_OP_ARITH', e.loc, e.op);
      } else if (!isInteger(left.type!) || !isInteger(right.type!)) {
        if (bop === '*' || bop === '/') {
          if (!isArithmetic(left.type!) || !isArithmetic(right.type!)) fail('D_OP_ARITH', e.loc, e.op);
        } else fail('D_OP_INT', e.loc, e.op);
      }
      if ((bop === '/' || bop === '%') && right.constValue === 0n) fail('D_DIV_ZERO', e.loc);
    }
    return withOperands(e, left, right, left.type!);
  }

  private isUndefinedName(name: string, cs: CookScope): boolean {
    return (
      !BUILTIN_VARIABLES.has(name) &&
      !this.ctx.globals.has(name) &&
      !this.ctx.inlines.has(name) &&
      this.env.chain.lookupEnumConstant(name) === undefined &&
      !this.ctx.externs.has(name) &&
      !BUILTIN_FUNCTIONS.has(name) &&
      name !== 'NULL' &&
      cs.translatorInput?.name !== name
    );
  }

  /**
   * dt_idcook_sign for an associative array's or an aggregation's keys
   * against the signature its first use gave it: D_PROTO_LEN for a count
   * that differs, D_PROTO_ARG for a key of an incompatible type.
   */
  checkKeySignature(prefix: string, name: string, want: readonly CType[], keys: readonly Expr[], loc: Loc): void {
    const n = keys.length;
    if (n !== want.length) {
      throw new CompileError({ severity: 'error', tag: 'D_PROTO_LEN', message: `${prefix}${name}[ ] prototype mismatch: ${n} key${n === 1 ? ' ' : 's '}passed, ${want.length} expected`, location: loc });
    }
    keys.forEach((k, i) => {
      const w = want[i]!;
      const have = this.keyType(k);
      const ok = (isInteger(w) && isInteger(have)) || (isString(w) && isString(have)) || (isPointer(w) && (isPointer(have) || (isInteger(have) && k.constValue === 0n))) || dtypeName(w) === dtypeName(have);
      if (!ok) {
        throw new CompileError({
          severity: 'error',
          tag: 'D_PROTO_ARG',
          message: `${prefix}${name}[ ] key #${i + 1} is incompatible with prototype:\n\tprototype: ${dtypeName(w)}\n\t      key: ${dtypeName(have)}`,
          location: loc,
        });
      }
    });
  }

  keyType(k: Expr): CType {
    const t = k.type!;
    if (k.k === 'agg') fail('D_KEY_TYPE', k.loc, 'aggregation', 1);
    if (isVoid(t)) fail('D_KEY_TYPE', k.loc, 'key', 1);
    if (isCharArrayOrPointer(t) && isArray(t)) return STRING;
    return t;
  }

  private cookIndex(e: Expr & { k: 'index' }, cs: CookScope): Expr {
    const base = e.base;
    if (base.k === 'ident' && base.module === undefined) {
      const b = BUILTIN_VARIABLES.get(base.name);
      if (b !== undefined && b.array === true) {
        if (e.args.length !== 1) fail('D_ARR_BADREF', e.loc, base.name);
        const idx = this.cook(e.args[0]!, cs);
        if (!isInteger(idx.type!)) fail('D_OP_INT', e.loc, '[ ]');
        let type: CType = this.typeOfName(b.type, e.loc);
        if (base.name === 'args') {
          const native = nativeArgBases.get(base);
          if (native === undefined) {
            const x = this.translatedArg(e, idx, cs);
            if (x !== undefined) return this.cook(x, cs);
          }
          type = native ?? this.argType(idx, cs, e.loc) ?? type;
        }
        if (base.name === 'regs' || base.name === 'uregs') {
          if (idx.constValue !== undefined && (idx.constValue < 0n || idx.constValue > 64n)) fail('D_REGS_IDX', e.loc, String(idx.constValue), base.name);
        }
        const ref = builtinArrayRef(b.id);
        base.type = type;
        base.ref = ref;
        return into(e, { args: [idx], type, ref });
      }
    }
    // Associative arrays.
    let v: VariableInfo | undefined;
    if (base.k === 'ident' && base.module === undefined) v = this.ctx.globals.get(base.name);
    else if (base.k === 'var') v = this.lookupVariable(base, cs);
    if (base.k === 'agg') fail('D_AGG_FUNC', e.loc, base.name);
    if (v !== undefined && v.keys !== undefined) {
      const keys = e.args.map((k) => this.cook(k, cs));
      this.checkKeySignature('', v.name, v.keys, keys, e.loc);
      const ref = variableRef(v);
      base.type = v.type;
      base.ref = ref;
      return into(e, { args: keys, type: v.type, ref, lvalue: true });
    }
    if (base.k === 'ident' && base.module === undefined && v === undefined && this.isUndefinedName(base.name, cs)) {
      // dt_cook_op2 creates the array on operator [, then dt_cook_var finds it unassigned.
      fail('D_VAR_UNDEF', base.loc, base.name);
    }
    // C arrays and pointers.
    const b2 = v !== undefined && v.keys === undefined ? ({ ...base, type: v.type, ref: { kind: 'variable', variable: v } } as Expr) : this.cook(base, cs);
    const bt = resolveType(b2.type!);
    if (bt.kind !== 'pointer' && bt.kind !== 'array') fail('D_ARR_BADREF', e.loc, dtypeName(b2.type));
    if (e.args.length !== 1) fail('D_ARR_BADREF', e.loc, dtypeName(b2.type));
    const idx = this.cook(e.args[0]!, cs);
    if (!isInteger(idx.type!)) fail('D_OP_INT', e.loc, '[ ]');
    const elem = bt.kind === 'pointer' ? bt.target : bt.element;
    if (isVoid(elem)) fail('D_DEREF_VOID', e.loc);
    return into(e, { base: b2, args: [idx], type: elem, lvalue: true });
  }

  /** The description of args[n] for one probe: its own, or from the plain native type list. */
  private static argDesc(p: ProbeInfo, n: number): ProbeArgInfo | undefined {
    if (p.args !== undefined) return p.args[n];
    const t = p.argTypes?.[n];
    return t === undefined ? undefined : { native: t };
  }

  /** Type of args[N] for the clause's probes (dt_idcook_args): the translated type when the probes translate it, else the native one. */
  private argType(idx: Expr, cs: CookScope, loc: Loc): CType | undefined {
    const clause = cs.clause;
    if (clause === undefined || clause.matched.length === 0) return undefined;
    if (idx.constValue === undefined) return undefined;
    const n = Number(idx.constValue);
    const names = new Set<string>();
    for (const p of clause.matched) {
      if (p.argTypes === undefined && p.args === undefined) fail('D_ARGS_NONE', loc, `${p.provider}:${p.module}:${p.function}:${p.name}`);
      const d = Cooker.argDesc(p, n);
      if (d === undefined) fail('D_ARGS_IDX', loc, String(n), `${p.provider}:${p.module}:${p.function}:${p.name}`);
      names.add(d.translated ?? d.native);
    }
    if (names.size > 1) fail('D_ARGS_MULTI', loc, clause.item.probes.map((p) => p.text).join(', '));
    const t = this.cTypeName([...names][0]!);
    if (t === undefined) fail('D_ARGS_TYPE', loc, String(n));
    return t;
  }

  /**
   * args[N] as dt_idcook_args() rewrites it when the probes describe it
   * with a mapping or a translation: the native argument it stands for,
   * args[mapping] (typed natively), and for a translated argument
   * `xlate <translated type> (args[mapping])`. Undefined when args[N] is
   * the native argument N itself (or N is not a constant).
   */
  private translatedArg(e: Expr & { k: 'index' }, idx: Expr, cs: CookScope): Expr | undefined {
    const clause = cs.clause;
    if (clause === undefined || clause.matched.length === 0 || idx.constValue === undefined) return undefined;
    const n = Number(idx.constValue);
    const d = Cooker.argDesc(clause.matched[0]!, n);
    if (d === undefined) return undefined;
    const translated = d.translated !== undefined && d.translated !== d.native ? d.translated : undefined;
    const mapping = d.mapping ?? n;
    if (translated === undefined && mapping === n) return undefined;
    for (const p of clause.matched) {
      const o = Cooker.argDesc(p, n);
      if (o === undefined || (o.translated ?? o.native) !== (d.translated ?? d.native) || o.native !== d.native || (o.mapping ?? n) !== mapping) {
        fail('D_ARGS_MULTI', e.loc, clause.item.probes.map((q) => q.text).join(', '));
      }
    }
    const nativeType = this.cTypeName(d.native);
    if (nativeType === undefined) fail('D_ARGS_TYPE', e.loc, String(n));
    const base = { k: 'ident', name: 'args', loc: e.base.loc } as Expr;
    nativeArgBases.set(base, nativeType);
    const operand = { k: 'index', base, args: [{ k: 'int', value: BigInt(mapping), suffix: '', decimal: true, loc: idx.loc }], loc: e.loc } as Expr;
    if (translated === undefined) return operand;
    const target = this.cTypeName(translated);
    if (target === undefined) fail('D_ARGS_TYPE', e.loc, String(n));
    const x = { k: 'xlate', typeName: placeholderTypeName(e.loc), operand, loc: e.loc } as Expr & { k: 'xlate' };
    xlateTargets.set(x, target);
    return x;
  }

  /** `args[N]` (N constant) written in the program as the translation it stands for, else undefined. */
  private translatedArgOf(e: Expr, cs: CookScope): (Expr & { k: 'xlate' }) | undefined {
    if (e.k !== 'index' || e.base.k !== 'ident' || e.base.name !== 'args' || e.base.module !== undefined || nativeArgBases.has(e.base) || e.args.length !== 1) return undefined;
    const idx = this.cook(e.args[0]!, cs);
    const x = this.translatedArg(e, idx, cs);
    return x?.k === 'xlate' ? x : undefined;
  }

  private cookMember(e: Expr & { k: 'member' }, cs: CookScope): Expr {
    if (e.base.k === 'xlate') return this.cookTranslatedMember(e, e.base, cs);
    const tb = this.translatedArgOf(e.base, cs);
    if (tb !== undefined) return this.cookTranslatedMember(e, tb, cs);
    const base = this.cook(e.base, cs);
    const bt = base.type!;
    let sou: CType;
    const op = e.arrow ? '->' : '.';
    if (e.arrow) {
      const r = resolveType(bt);
      if (r.kind !== 'pointer') fail('D_OP_PTR', e.loc, op);
      sou = r.target;
    } else sou = bt;
    let rs = resolveType(sou);
    if (rs.kind !== 'struct' && rs.kind !== 'union') fail('D_OP_SOU', e.loc, op, dtypeName(sou));
    if (!rs.complete && rs.name !== '') {
      // A forward declaration (a kernel compilation unit that only saw `struct x;`): its definition by name, as CTF merging gives it.
      const full = this.env.lookup(`${rs.kind} ${rs.name}`);
      const rf = full === undefined ? undefined : resolveType(full);
      if (rf !== undefined && (rf.kind === 'struct' || rf.kind === 'union') && rf.complete) {
        sou = rf;
        rs = rf;
        // The code generator finds the member from the base's type.
        base.type = e.arrow ? this.env.pointerTo(rf) : rf;
      }
    }
    if (!rs.complete) fail('D_OP_INCOMPLETE', e.loc, op, dtypeName(sou));
    const m = findMember(sou, e.name);
    if (m === undefined) fail('D_TYPE_MEMBER', e.loc, e.name, dtypeName(sou));
    return withMember(e, base, m.type);
  }

  /**
   * The translator from `input` to the struct or union `output`, as
   * dt_xlator_lookup() finds it: first a translator whose input type is
   * compatible with `input` as written, then one whose resolved input type
   * is, then one whose input accepts `input` as an argument would (any
   * integer for an integer, a char pointer or array for a string, void * or
   * a pointer to a compatible type for a pointer). Within a pass the first
   * declared wins; `exact` stops after the first pass (redeclarations).
   */
  lookupTranslator(output: CType, input: CType, inputNode: Expr | undefined, exact: boolean): TranslatorInfo | undefined {
    const all = this.ctx.translators.filter((t) => typesCompatible(t.output, output));
    const first = all.find((t) => typesCompatible(t.input, input));
    if (first !== undefined || exact) return first;
    const second = all.find((t) => typesCompatible(resolveType(t.input), input));
    if (second !== undefined) return second;
    return all.find((t) => argumentCompatible(input, inputNode, t.input));
  }

  /** Output type of `xlate <T>` / `xlate <T *>`: the struct or union, and whether a pointer was asked for. */
  private xlateTarget(x: Expr & { k: 'xlate' }): { target: CType; output: CType; pointer: boolean } {
    const target = xlateTargets.get(x) ?? this.resolveTypeName(x.typeName);
    const rt = resolveType(target);
    const pointer = rt.kind === 'pointer';
    return { target, output: pointer ? rt.target : target, pointer };
  }

  private findTranslator(x: Expr & { k: 'xlate' }, operand: Expr, target: CType, output: CType): TranslatorInfo {
    const tr = isStructOrUnion(output) ? this.lookupTranslator(output, operand.type!, operand, false) : undefined;
    if (tr === undefined) return fail('D_XLATE_NONE', x.loc, dtypeName(operand.type), dtypeName(target));
    return tr;
  }

  /** A translator member's expression with the input parameter replaced by `arg`. */
  private translatorMember(tr: TranslatorInfo, body: Expr, arg: () => Expr): Expr {
    return mapExpr(body, (n) => (n.k === 'ident' && n.module === undefined && n.name === tr.inputName ? arg() : n));
  }

  /**
   * `xlate <T>(e)` or `xlate <T *>(e)` as a value: the translated struct
   * (by reference) or a pointer to it, built member by member in scratch
   * space. dtrace gives it a dynamic type: it may be assigned, kept in an
   * inline, dereferenced, used with . and ->, and (a struct, not a pointer)
   * traced or printed.
   */
  private cookXlate(x: Expr & { k: 'xlate' }, cs: CookScope): Expr {
    const { target, output } = this.xlateTarget(x);
    const operand = this.cook(x.operand, cs);
    const tr = this.findTranslator(x, operand, target, output);
    const byRef = isStructOrUnion(operand.type!) || isString(operand.type!) || isArray(operand.type!);
    let argument: VariableInfo | undefined;
    if (!byRef) {
      const name = `%xlate_${this.ctx.hiddenLocals++}`;
      argument = this.defineVariable('local', name, 'scalar', operand.type!, false, cs);
    }
    const members: { name: string; offset: number; type: CType; value: Expr }[] = [];
    // The translator's own references are not the statement's (its operand's were noted above).
    const symbolNamed = this.symbolNamed;
    const foreignTypeNamed = this.env.foreignTypeNamed;
    for (const [name, body] of tr.members) {
      const m = findMember(output, name)!;
      const v = argument;
      const value = this.cook(
        this.translatorMember(tr, body, () =>
          v !== undefined
            ? { k: 'var', scope: 'this', name: v.name, loc: x.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined }
            : { ...x.operand },
        ),
        cs,
      );
      members.push({ name, offset: m.offset, type: m.type, value });
    }
    this.symbolNamed = symbolNamed;
    this.env.foreignTypeNamed = foreignTypeNamed;
    const expansion = { size: this.env.sizeOf(output), members, ...(argument !== undefined ? { argument } : {}) };
    return into(x, { operand, type: target, lvalue: false, expansion });
  }

  private cookTranslatedMember(e: Expr & { k: 'member' }, x: Expr & { k: 'xlate' }, cs: CookScope): Expr {
    const { target, output, pointer } = this.xlateTarget(x);
    const operand = this.cook(x.operand, cs);
    const tr = this.findTranslator(x, operand, target, output);
    if (pointer !== e.arrow) {
      if (e.arrow) fail('D_OP_PTR', e.loc, '->');
      fail('D_OP_SOU', e.loc, '.', dtypeName(target));
    }
    const body = tr.members.get(e.name);
    if (body === undefined) {
      if (findMember(output, e.name) === undefined) fail('D_TYPE_MEMBER', e.loc, e.name, dtypeName(output));
      fail('D_XLATE_NOCONV', e.loc, e.name);
    }
    // The member's expression with the input parameter bound to the operand, cooked here (its own references are the translator's, not the statement's).
    const symbolNamed = this.symbolNamed;
    const foreignTypeNamed = this.env.foreignTypeNamed;
    const cooked = this.cook(this.translatorMember(tr, body, () => ({ ...x.operand })), cs);
    this.symbolNamed = symbolNamed;
    this.env.foreignTypeNamed = foreignTypeNamed;
    const m = findMember(output, e.name)!;
    const type = isString(m.type) ? STRING : m.type;
    return cooked.constValue !== undefined
      ? { k: 'cast', typeName: x.typeName, operand: cooked, loc: e.loc, type, constValue: cooked.constValue }
      : { k: 'cast', typeName: x.typeName, operand: cooked, loc: e.loc, type };
  }

  // ---- calls ---------------------------------------------------------------

  /** A call in an expression: only subroutines are allowed here; actions and aggregating functions need a statement. */
  cookCall(e: Expr & { k: 'call' }, cs: CookScope, statement: boolean): Expr {
    if (e.callee.k !== 'ident' || e.callee.module !== undefined) fail('D_FUNC_IDENT', e.loc);
    const name = e.callee.name;
    const fn = BUILTIN_FUNCTIONS.get(name);
    if (fn === undefined) {
      if (BUILTIN_VARIABLES.has(name) || this.ctx.globals.has(name)) fail('D_FUNC_IDKIND', e.loc, name);
      return fail('D_FUNC_UNDEF', e.loc, name);
    }
    // An action or aggregating function inside an expression cooks to void,
    // so that the enclosing operator or action reports it as illumos does
    // (D_TRACE_VOID, D_PRINTF_ARG_TYPE, D_KEY_TYPE...); code generation
    // rejects what remains with D_CG_EXPR.
    // The actions that may key an aggregation have a type named after them (dt_open.c's "stack(...)").
    if (fn.kind !== 'subr' && !statement) {
      const type = KEY_ACTIONS.has(name) ? actionKeyType(name, this.env.int64) : VOID;
      const cooked = e.args.map((a) => this.cook(a, cs));
      // Its prototype's length is checked as it is cooked (dt_idcook_func); actions with their own arity tags check it as actions.
      const n = cooked.length;
      if (fn.kind === 'action' && !OWN_ARITY_ACTIONS.has(name) && (n < fn.minArgs || n > fn.maxArgs)) {
        const expected = fn.minArgs === fn.maxArgs ? String(fn.minArgs) : fn.maxArgs === Infinity || n < fn.minArgs ? `at least ${fn.minArgs}` : `${fn.minArgs} to ${fn.maxArgs}`;
        fail('D_PROTO_LEN', e.loc, name, n, n === 1 ? '' : 's', expected);
      }
      return into(e, { args: cooked, type, ref: sharedRef(functionRefs, name, () => ({ kind: 'function', name })) });
    }
    const args = e.args.map((a) => this.cook(a, cs));
    if (fn.kind === 'subr') {
      const min = fn.minArgs ?? fn.params.length;
      if (args.length < min || args.length > fn.params.length) {
        const expected = min === fn.params.length ? String(min) : args.length < min ? `at least ${min}` : `${min} to ${fn.params.length}`;
        fail('D_PROTO_LEN', e.loc, name, args.length, args.length === 1 ? '' : 's', expected);
      }
      args.forEach((a, i) => this.checkParam(name, fn.params[i]!, a, i));
      const returns = fn.returns === 'void' ? VOID : fn.returns === 'string' ? STRING : this.typeOfName(fn.returns, e.loc);
      return into(e, { args, type: returns, ref: sharedRef(functionRefs, name, () => ({ kind: 'function', name })) });
    }
    return into(e, { args, type: VOID, ref: sharedRef(functionRefs, name, () => ({ kind: 'function', name })) });
  }

  checkParam(fname: string, kind: ParamKind, a: Expr, i: number): void {
    const t = a.type!;
    // The prototype as dt_open.c's function table writes the parameter's type.
    const proto = { int: 'int', ptr: 'void *', str: 'char *', scalar: 'scalar', any: 'any', agg: 'aggregation', vararg: '...' }[kind];
    const bad = (): never => fail('D_PROTO_ARG', a.loc, fname, i + 1, proto, a.k === 'agg' ? 'aggregation' : dtypeName(t));
    if (a.k === 'agg' && kind !== 'agg') bad();
    switch (kind) {
      case 'int':
        if (!isInteger(t)) bad();
        return;
      case 'ptr':
        // D strings are char pointers to a void * parameter (bcopy("abc", ...)).
        if (!isPointer(t) && !isInteger(t) && !isArray(t) && !isString(t)) bad();
        return;
      case 'str':
        // NULL is accepted where a string is expected (strtok(NULL, ...)).
        if (!isString(t) && !isCharArrayOrPointer(t) && !(isPointer(t) && a.constValue === 0n)) bad();
        return;
      case 'scalar':
        if (!isScalar(t)) bad();
        return;
      default:
        return;
    }
  }

  // ---- types as written -------------------------------------------------

  resolveTypeName(t: TypeName): CType {
    const base = this.ctx.env.resolveSpecifier(t.specifier, (spec) => this.defineTagged(spec));
    return this.ctx.env.applyDeclarator(base, t.declarator, (e) => this.constantInt(e, 'D_DECL_ARRSUB'), (tn) => this.resolveTypeName(tn));
  }

  /** Define (or refer to) a struct, union or enum written in a declaration. */
  defineTagged(spec: TypeSpecifier): CType {
    const tg = spec.tagged!;
    const key = `${tg.keyword} ${tg.name}`;
    if (tg.members === undefined && tg.enumerators === undefined) {
      const known = tg.name !== '' ? this.env.lookupWrittenIn(spec.module ?? '', key) : undefined;
      if (known !== undefined) return known;
      if (spec.module !== undefined) fail('D_TYPE_ERR', spec.loc, `failed to resolve type ${spec.module === '' ? '' : spec.module + '`'}${key}: Unknown type name`);
      // A forward declaration.
      if (tg.keyword === 'enum') return this.env.user.defineEnum({ kind: 'enum', name: tg.name, constants: [], size: 4, complete: false });
      return this.env.user.defineStruct({ kind: tg.keyword, name: tg.name, members: [], size: 0, align: 1, complete: false });
    }
    if (tg.name !== '') {
      const prior = this.env.user.lookupType(key);
      if (prior !== undefined && (prior.kind === 'struct' || prior.kind === 'union' || prior.kind === 'enum') && prior.complete) fail('D_DECL_TYPERED', spec.loc, key);
    }
    if (tg.keyword === 'enum') {
      let next = 0;
      const constants: { name: string; value: number }[] = [];
      const building: EnumType = { kind: 'enum', name: tg.name, constants, size: 4, complete: false };
      for (const en of tg.enumerators!) {
        // dt_decl_enumerator, at the token after the enumerator: its value, then CTF's duplicate check, then the global names.
        const at = en.end ?? en.loc;
        if (en.value !== undefined) {
          next = this.constantIntAt(en.value, at, 'D_DECL_ENCONST', en.name);
          if (next > 0x7fffffff || next < -0x80000000) fail('D_DECL_ENOFLOW', at, en.name);
        }
        if (constants.some((c) => c.name === en.name)) {
          throw new CompileError({ severity: 'error', tag: 'D_UNKNOWN', message: `failed to define enumerator '${en.name}': Duplicate member or variable name`, location: at });
        }
        if (this.env.chain.lookupEnumConstant(en.name) !== undefined || this.ctx.globals.has(en.name)) fail('D_DECL_IDRED', at, en.name);
        constants.push({ name: en.name, value: next });
        this.env.user.defineEnum(building);
        next = (next + 1) | 0; // an int, as dt_decl_enumerator counts
      }
      building.complete = true;
      return this.env.user.defineEnum(building);
    }
    const fields: { name: string; type: CType; bitWidth?: number }[] = [];
    const seen = new Set<string>();
    for (const m of tg.members!) {
      const base = this.env.resolveSpecifier(m.specifier, (s2) => this.defineTagged(s2));
      const t = this.env.applyDeclarator(base, m.declarator, (x) => this.constantInt(x, 'D_DECL_ARRSUB'), (tn) => this.resolveTypeName(tn));
      if (m.declarator.name !== '' && seen.has(m.declarator.name)) {
        // ctf_add_member's failure (dt_decl_member).
        throw new CompileError({ severity: 'error', tag: 'D_UNKNOWN', message: `failed to define member '${m.declarator.name}': Duplicate member or variable name`, location: m.loc });
      }
      seen.add(m.declarator.name);
      // dt_decl_member's checks, in its order.
      const idname = m.declarator.name === '' ? '(anon)' : m.declarator.name;
      if (m.bitWidth === undefined && m.declarator.name === '' && !isStructOrUnion(t)) fail('D_DECL_MNAME', m.loc);
      const rt = resolveType(t);
      if ((rt.kind === 'struct' || rt.kind === 'union') && !rt.complete) fail('D_DECL_INCOMPLETE', m.loc, dtypeName(t), m.declarator.name);
      if (isVoid(t)) throw new CompileError({ severity: 'error', tag: 'D_DECL_VOIDOBJ', message: `cannot have void member: ${idname}`, location: m.loc });
      if (m.bitWidth !== undefined) {
        const w = this.constantInt(m.bitWidth, 'D_DECL_BFCONST');
        // A nameless zero-width bit-field is ignored (dt_decl_member).
        if (m.declarator.name === '' && w === 0) continue;
        if (w <= 0) fail('D_DECL_BFCONST', m.loc);
        if (!isInteger(t)) fail('D_DECL_BFTYPE', m.loc, idname);
        if (w > this.env.sizeOf(t) * 8) fail('D_DECL_BFSIZE', m.loc, idname);
        fields.push({ name: m.declarator.name, type: t, bitWidth: w });
      } else {
        fields.push({ name: m.declarator.name, type: t });
      }
    }
    const laid = layoutStruct(tg.keyword, tg.name, fields);
    if (tg.name !== '') {
      const fwd = this.env.user.lookupType(key);
      if (fwd !== undefined && (fwd.kind === 'struct' || fwd.kind === 'union') && !fwd.complete) {
        // Complete the forward declaration in place so earlier pointers see the members.
        fwd.members = laid.members;
        fwd.size = laid.size;
        fwd.align = laid.align;
        fwd.complete = true;
        return fwd;
      }
      return this.env.user.defineStruct(laid);
    }
    return laid;
  }

  /** Evaluate an integer constant expression or fail with `tag`. */
  constantInt(e: Expr, tag: 'D_DECL_ARRSUB' | 'D_DECL_BFCONST' | 'D_DECL_ENCONST', ...args: string[]): number {
    return this.constantIntAt(e, e.loc, tag, ...args);
  }

  /** constantInt, failing at `at`. */
  constantIntAt(e: Expr, at: Loc, tag: 'D_DECL_ARRSUB' | 'D_DECL_BFCONST' | 'D_DECL_ENCONST', ...args: string[]): number {
    let c: Expr;
    try {
      c = this.cook(e, {});
    } catch {
      return fail(tag, at, ...args);
    }
    if (c.constValue === undefined || !isInteger(c.type!)) return fail(tag, at, ...args);
    if (tag === 'D_DECL_ARRSUB') {
      // dt_node_is_posconst: non-zero, and positive when signed; at most UINT_MAX elements.
      const signed = (resolveType(c.type!) as IntegerType).signed;
      const v = signed ? BigInt.asIntN(64, c.constValue) : BigInt.asUintN(64, c.constValue);
      if (v <= 0n) return fail(tag, e.loc, ...args);
      if (v > 0xffffffffn) return fail('D_DECL_ARRBIG', e.loc);
      return Number(v);
    }
    return Number(BigInt.asIntN(64, c.constValue));
  }
}

export type { AggregationInfo, IntegerType };
