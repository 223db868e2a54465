// Pass: DIF code generation, after libdtrace's dt_cg.c. Every predicate and
// action expression becomes one DIF program (a DIFO): a tree walk that
// leaves each value in a register, allocating DIF's seven general registers
// (%r1-%r7; %r0 reads zero) as a stack. Scalars are passed by value; strings,
// structs and arrays by reference (their address). Then the clause's
// actions are laid out as records after the record header, as the framework
// writes them into the principal buffer, and the aggregations, formats and
// options of the program are collected.
//
//   expression kind        DIF
//   constant               setx / sets
//   built-in variable      ldgs id (args[]: ldga)
//   variable               ld/st + g/t/l + s        (globals, self->, this->)
//   associative array      flushts; pushtv/pushtr per key; ldgaa/ldtaa/stgaa/sttaa
//   a op b                 op r1, r2, rd            (signed/unsigned forms)
//   a < b                  cmp/scmp; b<cond> L; mov %r0; ba E; L: setx 1; E: nop
//   && || ^^ ?:            tst and branches (short-circuit)
//   *p  p->m  a[i]          address arithmetic + ld{s,u}{b,h,w}/ldx by type
//   subroutine call        flushts; push args; call subr, rd
import { CTF_K, type Difo, DIF_OP, DIF_SUBR, DIF_VAR_OTHER_UBASE, DIFV_F_MOD, DIFV_F_REF, DIFV_KIND_ARRAY, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, DIFV_SCOPE_LOCAL, DIFV_SCOPE_THREAD, DIF_TYPE_CTF, DIF_TYPE_STRING, type DifType, difTypeByRef, difTypeInteger } from '@wdtrace/dtrace-core/dif';
import { DTRACEACT, DTRACEAGG, DT_ACT, DTRACE_RECHDR_SIZE, type FormatDescription, llquantizeArg, lquantizeArg, ustackArg } from '@wdtrace/dtrace-core/program';
import { type CType, findMember, resolveType } from '@wdtrace/dtrace-core/types';
import type { Expr, VariableInfo } from '../ast.js';
import { BUILTIN_FUNCTIONS, BUILTIN_VARIABLES, KEY_ACTIONS, functionKindName } from '../builtins.js';
import type { CompileContext, CookedStatement } from '../context.js';
import { type Loc, fail } from '../diagnostics.js';
import { isArray, isCharArrayOrPointer, isInteger, isPointer, isSigned, isString, isStructOrUnion } from '../dtypes.js';
import type { IrAction, IrEcb, IrVariable } from '../ir.js';
import { difTypeOf } from '../diftype.js';
import type { DifAssembler } from '../assembler.js';
import type { Pass } from './pass.js';
import { parseSizeOption } from '../options.js';

const NREGS = 8;

/** One DIFO under construction. A compilation has one, started afresh for each DIFO (see compileDifo). */
class DifoBuilder {
  /** The DIFO being assembled as instructions are emitted (the compilation's one assembler, reset). */
  readonly asm: DifAssembler;
  private used = 1; // bit 0: %r0 is never allocated
  private nextLabel = 1;
  /** The DIFO's variables, one per (scope, kind, id): the first `nvars` (the objects are reused from DIFO to DIFO). */
  private readonly vars: { -readonly [K in keyof IrVariable]: IrVariable[K] }[] = [];
  private nvars = 0;
  /** Where the expression starts (for D_NOREG). */
  loc: Loc = 0;

  constructor(readonly ctx: CompileContext) {
    this.asm = ctx.difAssembler;
  }

  /** Begin the next DIFO. */
  start(loc: Loc): void {
    this.loc = loc;
    this.used = 1;
    this.nextLabel = 1;
    this.nvars = 0;
    this.asm.reset();
  }

  /** Registers still free. */
  freeCount(): number {
    let n = 0;
    for (let r = 1; r < NREGS; r++) if ((this.used & (1 << r)) === 0) n++;
    return n;
  }

  alloc(): number {
    for (let r = 1; r < NREGS; r++) {
      if ((this.used & (1 << r)) === 0) {
        this.used |= 1 << r;
        return r;
      }
    }
    return fail('D_NOREG', this.loc);
  }

  /** Mark a specific register used again (it must be free). */
  take(r: number): number {
    if ((this.used & (1 << r)) !== 0) throw new Error(`register %r${r} is not free`);
    this.used |= 1 << r;
    return r;
  }

  free(r: number): void {
    if (r !== 0) this.used &= ~(1 << r);
  }

  label(): number {
    return this.nextLabel++;
  }

  emit(op: number, r1: number, r2: number, rd: number): void {
    this.asm.fmt(op, r1, r2, rd);
  }

  branch(op: number, label: number): void {
    this.asm.branch(op, label);
  }

  place(label: number): void {
    this.asm.label(label);
  }

  setx(value: bigint, rd: number): void {
    // BigInt.asUintN makes a new bigint: only for values outside 0 .. 2^64-1.
    this.asm.setx(value >= 0n && value <= 0xffffffffffffffffn ? value : BigInt.asUintN(64, value), rd);
  }

  sets(value: string, rd: number): void {
    this.asm.sets(value, rd);
  }

  /** A variable load or store (index: ldga/ldta's index register). */
  access(op: number, v: IrVariable, reg: number, index?: number): void {
    this.asm.variable(op, v, reg, index);
  }

  call(subr: number, rd: number): void {
    this.asm.call(subr, rd);
  }

  variable(name: string, id: number, kind: number, scope: number, type: DifType, flag: number): IrVariable {
    for (let j = 0; j < this.nvars; j++) {
      const x = this.vars[j]!;
      if (x.id === id && x.kind === kind && x.scope === scope) {
        x.flags |= flag;
        return x;
      }
    }
    // The assembler reads a variable's flags when it finishes the DIFO and keeps nothing of it after: its object can serve again.
    let v = this.vars[this.nvars];
    if (v === undefined) {
      v = { name, id, kind, scope, type, flags: flag };
      this.vars.push(v);
    } else {
      v.name = name;
      v.id = id;
      v.kind = kind;
      v.scope = scope;
      v.type = type;
      v.flags = flag;
    }
    this.nvars++;
    return v;
  }

  /** Assemble the DIFO; a table overflow is kept on the context for the assemble pass to report. */
  finish(rtype: DifType): Difo {
    const a = this.asm.finish(rtype, this.ctx.difArrays);
    if (typeof a !== 'string') return a;
    this.ctx.difOverflow ??= a;
    return EMPTY_DIFO;
  }
}

const LOADS_SIGNED: Record<number, number> = { 1: DIF_OP.LDSB, 2: DIF_OP.LDSH, 4: DIF_OP.LDSW, 8: DIF_OP.LDX };
const LOADS_UNSIGNED: Record<number, number> = { 1: DIF_OP.LDUB, 2: DIF_OP.LDUH, 4: DIF_OP.LDUW, 8: DIF_OP.LDX };

/**
 * Registers a subtree needs when evaluated left to right (Sethi-Ullman
 * style, an upper bound). Used to decide when a value held in a register
 * must be spilled to a hidden clause-local variable before evaluating
 * the next operand.
 */
export function registerNeed(e: Expr): number {
  switch (e.k) {
    case 'unary':
      return registerNeed(e.operand) + (e.op.length > 2 ? 2 : 1);
    case 'binary':
    case 'assign': {
      const l = registerNeed(e.left);
      const r = registerNeed(e.right);
      return Math.max(l, r + 1, 2);
    }
    case 'ternary':
      return Math.max(registerNeed(e.cond), registerNeed(e.then) + 1, registerNeed(e.otherwise) + 1);
    case 'call':
    case 'index': {
      let need = 2;
      e.args.forEach((a, i) => (need = Math.max(need, registerNeed(a) + i + 1)));
      return need;
    }
    case 'member':
      return registerNeed(e.base) + 1;
    case 'cast':
      return registerNeed(e.operand) + 1;
    case 'xlate':
      // The scratch base, a member's value and its address (and a size for copies).
      return Math.max(registerNeed(e.operand), 1 + Math.max(3, ...(e.expansion?.members ?? []).map((m) => registerNeed(m.value) + 1)));
    default:
      return 1;
  }
}

class ExprGen {
  private spills = 0;

  constructor(
    readonly ctx: CompileContext,
    readonly b: DifoBuilder,
  ) {}

  /** Begin the next DIFO. */
  start(loc: Loc): void {
    this.spills = 0;
    this.b.start(loc);
  }

  /**
   * Evaluate `next` while the value in `held` must survive. When `next`
   * needs more registers than are free, `held` is spilled to a hidden
   * clause-local variable (stls) and reloaded (ldls) afterwards.
   * Returns [held register (possibly renumbered), next's register].
   */
  private keepWhile(held: number, next: Expr): [number, number] {
    const b = this.b;
    if (registerNeed(next) <= b.freeCount()) return [held, this.gen(next)];
    const name = `%spill_${this.spills++}`;
    let id = this.ctx.localIds.get(name);
    if (id === undefined) {
      id = DIF_VAR_OTHER_UBASE + this.ctx.localIds.size;
      this.ctx.localIds.set(name, id);
    }
    const v = b.variable(name, id, DIFV_KIND_SCALAR, DIFV_SCOPE_LOCAL, difTypeInteger(8), DIFV_F_REF | DIFV_F_MOD);
    b.access(DIF_OP.STLS, v, held);
    b.free(held);
    const r = this.gen(next);
    const back = b.alloc();
    b.access(DIF_OP.LDLS, v, back);
    return [back, r];
  }

  private scopeOf(v: VariableInfo): number {
    return v.scope === 'global' ? DIFV_SCOPE_GLOBAL : v.scope === 'thread' ? DIFV_SCOPE_THREAD : DIFV_SCOPE_LOCAL;
  }

  private irVar(v: VariableInfo, flag: number): IrVariable {
    return this.b.variable(v.name, v.id, v.kind === 'array' ? DIFV_KIND_ARRAY : DIFV_KIND_SCALAR, this.scopeOf(v), difTypeOf(this.ctx, v.type), flag);
  }

  private isByRef(t: CType): boolean {
    return isString(t) || isStructOrUnion(t) || isArray(t);
  }

  /** Generate `e`, returning the register that holds its value. */
  gen(e: Expr): number {
    const b = this.b;
    if (e.constValue !== undefined && e.k === 'int') {
      const r = b.alloc();
      b.setx(e.constValue, r);
      return r;
    }
    switch (e.k) {
      case 'int': {
        const r = b.alloc();
        b.setx(e.value, r);
        return r;
      }
      case 'string': {
        const r = b.alloc();
        b.sets(e.value, r);
        return r;
      }
      case 'ident':
      case 'var':
        return this.genName(e);
      case 'agg': {
        const r = b.alloc();
        b.setx(BigInt(e.ref?.kind === 'aggregation' ? e.ref.aggregation.id : 0), r);
        return r;
      }
      case 'unary':
        return this.genUnary(e);
      case 'binary':
        return this.genBinary(e);
      case 'assign':
        return this.genAssign(e);
      case 'ternary': {
        const c = this.gen(e.cond);
        const lelse = b.label();
        const lend = b.label();
        b.emit(DIF_OP.TST, c, 0, 0);
        b.free(c);
        b.branch(DIF_OP.BE, lelse);
        // Both arms leave their value in the then-arm's register; nothing is held across them.
        const rd = this.gen(e.then);
        b.free(rd);
        b.branch(DIF_OP.BA, lend);
        b.place(lelse);
        const o = this.gen(e.otherwise);
        if (o !== rd) b.emit(DIF_OP.MOV, o, 0, rd);
        b.free(o);
        b.take(rd);
        b.place(lend);
        return rd;
      }
      case 'call':
        return this.genCall(e);
      case 'index':
      case 'member':
        return this.genLoad(e);
      case 'cast':
        return this.genCast(e);
      case 'sizeoftype':
      case 'offsetof': {
        const r = b.alloc();
        b.setx(e.constValue ?? 0n, r);
        return r;
      }
      case 'xlate':
        return this.genXlate(e);
      default:
        return fail('D_UNKNOWN', e.loc, `cannot generate code for ${e.k} expression`);
    }
  }

  /**
   * A whole translation (dt_cg_xlate_expand): the operand into its hidden
   * clause-local, then scratch space of the output type's size (allocs
   * zero-fills it) and each member the translator defines stored at its
   * offset. The value is the scratch address: the struct by reference, or
   * the pointer for `xlate <T *>`.
   */
  private genXlate(e: Expr & { k: 'xlate' }): number {
    const b = this.b;
    const x = e.expansion;
    if (x === undefined) return fail('D_UNKNOWN', e.loc, 'untyped xlate expression');
    if (x.argument !== undefined) {
      const r = this.gen(e.operand);
      b.access(DIF_OP.STLS, this.irVar(x.argument, DIFV_F_MOD), r);
      b.free(r);
    }
    let base = b.alloc();
    b.setx(BigInt(x.size), base);
    b.emit(DIF_OP.ALLOCS, base, 0, base);
    for (const m of x.members) {
      let value: number;
      [base, value] = this.keepWhile(base, m.value);
      const addr = b.alloc();
      b.setx(BigInt(m.offset), addr);
      b.emit(DIF_OP.ADD, base, addr, addr);
      const size = isString(m.type) ? this.ctx.env.stringSize : this.ctx.env.sizeOf(m.type);
      if (this.isByRef(m.type)) {
        const s = b.alloc();
        b.setx(BigInt(size), s);
        b.emit(DIF_OP.COPYS, value, s, addr);
        b.free(s);
      } else {
        b.emit({ 1: DIF_OP.STB, 2: DIF_OP.STH, 4: DIF_OP.STW, 8: DIF_OP.STX }[size] ?? DIF_OP.STX, value, 0, addr);
      }
      b.free(addr);
      b.free(value);
    }
    return base;
  }

  private genName(e: Expr & ({ k: 'ident' } | { k: 'var' })): number {
    const b = this.b;
    const ref = e.ref;
    if (ref?.kind === 'builtin') {
      const r = b.alloc();
      const name = e.k === 'ident' ? e.name : e.name;
      const bv = BUILTIN_VARIABLES.get(name);
      const v = b.variable(name, ref.id, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, difTypeOf(this.ctx, e.type), DIFV_F_REF);
      void bv;
      b.access(DIF_OP.LDGS, v, r);
      return r;
    }
    if (ref?.kind === 'variable') {
      const v = ref.variable;
      const r = b.alloc();
      const op = v.scope === 'global' ? DIF_OP.LDGS : v.scope === 'thread' ? DIF_OP.LDTS : DIF_OP.LDLS;
      b.access(op, this.irVar(v, DIFV_F_REF), r);
      return r;
    }
    if (ref?.kind === 'symbol') {
      const r = b.alloc();
      b.setx(ref.address, r);
      if (!this.isByRef(e.type!)) this.load(e.type!, r, r);
      return r;
    }
    return fail('D_UNKNOWN', e.loc, `unresolved name ${e.k === 'ident' ? e.name : e.name}`);
  }

  /** Load a value of type `t` from the address in `addr` into `rd`. */
  private load(t: CType, addr: number, rd: number): void {
    const r = resolveType(t);
    const size = r.kind === 'integer' || r.kind === 'pointer' || r.kind === 'enum' ? r.size : 8;
    const op = (isSigned(t) ? LOADS_SIGNED : LOADS_UNSIGNED)[size] ?? DIF_OP.LDX;
    this.b.emit(op, addr, 0, rd);
  }

  /** Compute the address of an lvalue expression (member, index, dereference, symbol). */
  genAddress(e: Expr): number {
    const b = this.b;
    switch (e.k) {
      case 'unary':
        if (e.op === '*') return this.gen(e.operand);
        break;
      case 'member': {
        const base = e.arrow ? this.gen(e.base) : this.genAddress(e.base);
        const bt = e.base.type!;
        const sou = e.arrow ? (resolveType(bt) as { target: CType }).target : bt;
        const m = findMember(sou, e.name)!;
        if (m.offset !== 0) {
          const off = b.alloc();
          b.setx(BigInt(m.offset), off);
          b.emit(DIF_OP.ADD, base, off, base);
          b.free(off);
        }
        return base;
      }
      case 'index': {
        // An associative array's by-reference value (a struct, a string): its load is the value's address.
        if (e.ref?.kind === 'variable') return this.genLoad(e);
        const bt = resolveType(e.base.type!);
        const base = bt.kind === 'array' ? this.genAddress(e.base) : this.gen(e.base);
        const elem = bt.kind === 'pointer' ? bt.target : (bt as { element: CType }).element;
        const idx = this.gen(e.args[0]!);
        const size = this.ctx.env.sizeOf(elem);
        if (size !== 1) {
          const s = b.alloc();
          b.setx(BigInt(size), s);
          b.emit(DIF_OP.MUL, idx, s, idx);
          b.free(s);
        }
        b.emit(DIF_OP.ADD, base, idx, base);
        b.free(idx);
        return base;
      }
      case 'ident':
        if (e.ref?.kind === 'symbol') {
          const r = b.alloc();
          b.setx(e.ref.address, r);
          return r;
        }
        // By-reference variables (strings, structs): the value is the address.
        return this.gen(e);
      case 'var':
      case 'call':
      case 'cast':
      case 'string':
        return this.gen(e);
      default:
        break;
    }
    return fail('D_ADDROF_LVAL', e.loc);
  }

  private genLoad(e: Expr & ({ k: 'index' } | { k: 'member' })): number {
    const b = this.b;
    if (e.k === 'index' && e.ref?.kind === 'builtin') {
      const idx = this.gen(e.args[0]!);
      const name = (e.base as Expr & { k: 'ident' }).name;
      const v = b.variable(name, e.ref.id, DIFV_KIND_ARRAY, DIFV_SCOPE_GLOBAL, difTypeInteger(8), DIFV_F_REF);
      b.access(DIF_OP.LDGA, v, idx, idx);
      this.narrow(e.type!, idx);
      return idx;
    }
    if (e.k === 'index' && e.ref?.kind === 'variable') {
      const v = e.ref.variable;
      const rd = this.tuple(e.args, v.keys!);
      b.access(v.scope === 'thread' ? DIF_OP.LDTAA : DIF_OP.LDGAA, this.irVar(v, DIFV_F_REF), rd);
      return rd;
    }
    const addr = this.genAddress(e);
    const t = e.type!;
    if (this.isByRef(t)) return addr;
    const m = e.k === 'member' ? findMember(e.arrow ? (resolveType(e.base.type!) as { target: CType }).target : e.base.type!, e.name) : undefined;
    this.load(t, addr, addr);
    if (m?.bitWidth !== undefined) {
      // Little-endian bit-field: shift the field down, then mask (or sign-extend).
      const s = b.alloc();
      const storage = this.ctx.env.sizeOf(t) * 8;
      b.setx(BigInt(64 - m.bitOffset! - m.bitWidth), s);
      b.emit(DIF_OP.SLL, addr, s, addr);
      b.setx(BigInt(64 - m.bitWidth), s);
      b.emit(isSigned(t) ? DIF_OP.SRA : DIF_OP.SRL, addr, s, addr);
      b.free(s);
      void storage;
    }
    return addr;
  }

  /** Evaluate keys, then flush the tuple stack and push them. Returns a free register for the result. */
  private tuple(args: Expr[], keyTypes: CType[]): number {
    const b = this.b;
    const regs = args.map((a) => this.gen(a));
    b.emit(DIF_OP.FLUSHTS, 0, 0, 0);
    regs.forEach((r, i) => this.push(args[i]!.type!, keyTypes[i] ?? args[i]!.type!, r));
    for (let i = 1; i < regs.length; i++) b.free(regs[i]!);
    return regs[0] ?? b.alloc();
  }

  private push(t: CType, want: CType, r: number): void {
    const b = this.b;
    if (isString(want) || isString(t) || isCharArrayOrPointer(t) && isString(want)) {
      b.emit(DIF_OP.PUSHTR, DIF_TYPE_STRING, 0, r);
    } else if (this.isByRef(t)) {
      const s = b.alloc();
      b.setx(BigInt(this.ctx.env.sizeOf(t)), s);
      b.emit(DIF_OP.PUSHTR, DIF_TYPE_CTF, s, r);
      b.free(s);
    } else {
      b.emit(DIF_OP.PUSHTV, DIF_TYPE_CTF, 0, r);
    }
  }

  /** Narrow a 64-bit register to an integer type of fewer bytes (sign- or zero-extending). */
  narrow(t: CType, r: number): void {
    const rt = resolveType(t);
    if (rt.kind !== 'integer' && rt.kind !== 'enum') return;
    if (rt.size >= 8) return;
    const b = this.b;
    const s = b.alloc();
    b.setx(BigInt(64 - rt.size * 8), s);
    b.emit(DIF_OP.SLL, r, s, r);
    b.emit(isSigned(t) ? DIF_OP.SRA : DIF_OP.SRL, r, s, r);
    b.free(s);
  }

  private genCast(e: Expr & { k: 'cast' }): number {
    const r = this.gen(e.operand);
    const to = e.type!;
    const from = e.operand.type!;
    if (isInteger(to) && (isInteger(from) || isPointer(from))) {
      const ts = resolveType(to) as { size: number };
      const fr = resolveType(from) as { size?: number };
      if (ts.size < (fr.size ?? 8) || (ts.size < 8 && isSigned(to) !== isSigned(from))) this.narrow(to, r);
    }
    return r;
  }

  private genUnary(e: Expr & { k: 'unary' }): number {
    const b = this.b;
    switch (e.op) {
      case '-': {
        const r = this.gen(e.operand);
        b.emit(DIF_OP.SUB, 0, r, r);
        return r;
      }
      case '+':
      case 'stringof':
        return this.gen(e.operand);
      case '~': {
        const r = this.gen(e.operand);
        b.emit(DIF_OP.NOT, r, 0, r);
        return r;
      }
      case '!': {
        const r = this.gen(e.operand);
        return this.boolFromTest(r, DIF_OP.BE);
      }
      case '*': {
        const r = this.gen(e.operand);
        if (!this.isByRef(e.type!)) this.load(e.type!, r, r);
        return r;
      }
      case '&':
        return this.genAddress(e.operand);
      case 'sizeof': {
        const r = b.alloc();
        b.setx(e.constValue ?? 0n, r);
        return r;
      }
      default: {
        // ++ / -- pre and post
        const target = e.operand;
        const old = this.gen(target);
        const one = b.alloc();
        const t = target.type!;
        const rt = resolveType(t);
        b.setx(rt.kind === 'pointer' ? BigInt(Math.max(1, this.ctx.env.sizeOf(rt.target))) : 1n, one);
        const nv = b.alloc();
        b.emit(e.op.startsWith('++') ? DIF_OP.ADD : DIF_OP.SUB, old, one, nv);
        b.free(one);
        this.store(target, nv);
        if (e.op.endsWith('pre')) {
          b.free(old);
          return nv;
        }
        b.free(nv);
        return old;
      }
    }
  }

  /** rd = (condition after a tst/cmp holds for `op`) ? 1 : 0, reusing register r. */
  private boolFromTest(r: number, op: number): number {
    const b = this.b;
    const ltrue = b.label();
    const lend = b.label();
    b.emit(DIF_OP.TST, r, 0, 0);
    b.branch(op, ltrue);
    b.emit(DIF_OP.MOV, 0, 0, r);
    b.branch(DIF_OP.BA, lend);
    b.place(ltrue);
    b.setx(1n, r);
    b.place(lend);
    return r;
  }

  private genBinary(e: Expr & { k: 'binary' }): number {
    const b = this.b;
    const op = e.op;
    if (op === ',') {
      const l = this.gen(e.left);
      b.free(l);
      return this.gen(e.right);
    }
    if (op === '&&' || op === '||') {
      const lfalse = b.label();
      const ltrue = b.label();
      const lend = b.label();
      // The result register is allocated only after both operands were evaluated and freed.
      const l = this.gen(e.left);
      b.emit(DIF_OP.TST, l, 0, 0);
      b.free(l);
      if (op === '&&') {
        b.branch(DIF_OP.BE, lfalse);
        const r = this.gen(e.right);
        b.emit(DIF_OP.TST, r, 0, 0);
        b.free(r);
        b.branch(DIF_OP.BE, lfalse);
        const rd = b.alloc();
        b.setx(1n, rd);
        b.branch(DIF_OP.BA, lend);
        b.place(lfalse);
        b.emit(DIF_OP.MOV, 0, 0, rd);
        b.place(lend);
        return rd;
      }
      // ||: true as soon as one operand is non-zero.
      b.branch(DIF_OP.BNE, ltrue);
      const r = this.gen(e.right);
      b.emit(DIF_OP.TST, r, 0, 0);
      b.free(r);
      b.branch(DIF_OP.BNE, ltrue);
      const rd = b.alloc();
      b.emit(DIF_OP.MOV, 0, 0, rd);
      b.branch(DIF_OP.BA, lend);
      b.place(ltrue);
      b.setx(1n, rd);
      b.place(lend);
      return rd;
    }
    if (op === '^^') {
      const l = this.boolFromTest(this.gen(e.left), DIF_OP.BNE);
      const r = this.boolFromTest(this.gen(e.right), DIF_OP.BNE);
      b.emit(DIF_OP.XOR, l, r, l);
      b.free(r);
      return l;
    }
    const [l, r] = this.keepWhile(this.gen(e.left), e.right);
    const lt = e.left.type!;
    const rt = e.right.type!;
    if (op === '==' || op === '!=' || op === '<' || op === '>' || op === '<=' || op === '>=') {
      const strings = isString(lt) || isString(rt);
      b.emit(strings ? DIF_OP.SCMP : DIF_OP.CMP, l, r, 0);
      b.free(r);
      const unsigned = !strings && (!isSigned(lt) || !isSigned(rt) || isPointer(lt) || isPointer(rt));
      const bop =
        op === '=='
          ? DIF_OP.BE
          : op === '!='
            ? DIF_OP.BNE
            : op === '<'
              ? unsigned ? DIF_OP.BLU : DIF_OP.BL
              : op === '>'
                ? unsigned ? DIF_OP.BGU : DIF_OP.BG
                : op === '<='
                  ? unsigned ? DIF_OP.BLEU : DIF_OP.BLE
                  : unsigned ? DIF_OP.BGEU : DIF_OP.BGE;
      const ltrue = b.label();
      const lend = b.label();
      b.branch(bop, ltrue);
      b.emit(DIF_OP.MOV, 0, 0, l);
      b.branch(DIF_OP.BA, lend);
      b.place(ltrue);
      b.setx(1n, l);
      b.place(lend);
      return l;
    }
    // Pointer arithmetic scales the integer operand by the pointed-to size.
    const lp = isPointer(lt) || isArray(lt);
    const rp = isPointer(rt) || isArray(rt);
    const elemSize = (t: CType): number => {
      const x = resolveType(t);
      const el = x.kind === 'pointer' ? x.target : (x as { element: CType }).element;
      return Math.max(1, this.ctx.env.sizeOf(el));
    };
    if ((op === '+' || op === '-') && lp !== rp) {
      const [ptrT, intReg] = lp ? [lt, r] : [rt, l];
      const size = elemSize(ptrT);
      if (size !== 1) {
        const s = b.alloc();
        b.setx(BigInt(size), s);
        b.emit(DIF_OP.MUL, intReg, s, intReg);
        b.free(s);
      }
    }
    const signed = isSigned(e.type!);
    const dop =
      op === '+'
        ? DIF_OP.ADD
        : op === '-'
          ? DIF_OP.SUB
          : op === '*'
            ? DIF_OP.MUL
            : op === '/'
              ? signed ? DIF_OP.SDIV : DIF_OP.UDIV
              : op === '%'
                ? signed ? DIF_OP.SREM : DIF_OP.UREM
                : op === '<<'
                  ? DIF_OP.SLL
                  : op === '>>'
                    ? isSigned(lt) ? DIF_OP.SRA : DIF_OP.SRL
                    : op === '&'
                      ? DIF_OP.AND
                      : op === '|'
                        ? DIF_OP.OR
                        : DIF_OP.XOR;
    b.emit(dop, l, r, l);
    b.free(r);
    if (op === '-' && lp && rp) {
      const size = elemSize(lt);
      if (size !== 1) {
        const s = b.alloc();
        b.setx(BigInt(size), s);
        b.emit(DIF_OP.SDIV, l, s, l);
        b.free(s);
      }
    }
    return l;
  }

  /** Store register `value` into the lvalue `target`. */
  store(target: Expr, value: number): void {
    const b = this.b;
    const ref = target.ref;
    if ((target.k === 'ident' || target.k === 'var') && ref?.kind === 'variable') {
      const v = ref.variable;
      const op = v.scope === 'global' ? DIF_OP.STGS : v.scope === 'thread' ? DIF_OP.STTS : DIF_OP.STLS;
      b.access(op, this.irVar(v, DIFV_F_MOD), value);
      return;
    }
    if (target.k === 'index' && ref?.kind === 'variable') {
      const v = ref.variable;
      const regs = target.args.map((a) => this.gen(a));
      b.emit(DIF_OP.FLUSHTS, 0, 0, 0);
      regs.forEach((r, i) => this.push(target.args[i]!.type!, v.keys![i] ?? target.args[i]!.type!, r));
      regs.forEach((r) => b.free(r));
      b.access(v.scope === 'thread' ? DIF_OP.STTAA : DIF_OP.STGAA, this.irVar(v, DIFV_F_MOD), value);
      return;
    }
    const addr = this.genAddress(target);
    const t = target.type!;
    const size = this.ctx.env.sizeOf(t);
    const field = target.k === 'member' ? findMember(target.arrow ? (resolveType(target.base.type!) as { target: CType }).target : target.base.type!, target.name) : undefined;
    if (field?.bitWidth !== undefined) {
      this.storeBitField(addr, size, field.bitOffset ?? 0, field.bitWidth, value);
      b.free(addr);
      return;
    }
    if (this.isByRef(t)) {
      const s = b.alloc();
      b.setx(BigInt(size), s);
      b.emit(DIF_OP.COPYS, value, s, addr);
      b.free(s);
    } else {
      const op = { 1: DIF_OP.STB, 2: DIF_OP.STH, 4: DIF_OP.STW, 8: DIF_OP.STX }[size] ?? DIF_OP.STX;
      b.emit(op, value, 0, addr);
    }
    b.free(addr);
  }

  /**
   * Store the low `width` bits of `value` into the bit-field at bit `shift`
   * of the `unit`-byte storage unit at `addr`, as dt_cg_field_set does: load
   * the unit, clear the field, or in the masked and shifted value, store the
   * unit back. The other fields of the unit keep their bits.
   */
  private storeBitField(addr: number, unit: number, shift: number, width: number, value: number): void {
    const b = this.b;
    const fmask = (1n << BigInt(width)) - 1n;
    const bits = b.alloc();
    b.setx(fmask, bits);
    b.emit(DIF_OP.AND, value, bits, bits);
    const s = b.alloc();
    if (shift !== 0) {
      b.setx(BigInt(shift), s);
      b.emit(DIF_OP.SLL, bits, s, bits);
    }
    const old = b.alloc();
    b.emit(LOADS_UNSIGNED[unit] ?? DIF_OP.LDX, addr, 0, old);
    b.setx(BigInt.asUintN(64, ~(fmask << BigInt(shift))), s);
    b.emit(DIF_OP.AND, old, s, old);
    b.free(s);
    b.emit(DIF_OP.OR, old, bits, old);
    b.free(bits);
    b.emit({ 1: DIF_OP.STB, 2: DIF_OP.STH, 4: DIF_OP.STW, 8: DIF_OP.STX }[unit] ?? DIF_OP.STX, old, 0, addr);
    b.free(old);
  }

  private genAssign(e: Expr & { k: 'assign' }): number {
    const b = this.b;
    let value = this.gen(e.right);
    if (e.op !== '=') {
      let cur: number;
      [value, cur] = this.keepWhile(value, e.left);
      const bop = e.op.slice(0, -1);
      const signed = isSigned(e.left.type!);
      const lt = resolveType(e.left.type!);
      if ((bop === '+' || bop === '-') && lt.kind === 'pointer') {
        const s = b.alloc();
        b.setx(BigInt(Math.max(1, this.ctx.env.sizeOf(lt.target))), s);
        b.emit(DIF_OP.MUL, value, s, value);
        b.free(s);
      }
      const dop = ({
        '+': DIF_OP.ADD,
        '-': DIF_OP.SUB,
        '*': DIF_OP.MUL,
        '/': signed ? DIF_OP.SDIV : DIF_OP.UDIV,
        '%': signed ? DIF_OP.SREM : DIF_OP.UREM,
        '<<': DIF_OP.SLL,
        '>>': signed ? DIF_OP.SRA : DIF_OP.SRL,
        '&': DIF_OP.AND,
        '|': DIF_OP.OR,
        '^': DIF_OP.XOR,
      } as Record<string, number>)[bop]!;
      b.emit(dop, cur, value, cur);
      b.free(value);
      value = cur;
    }
    if (isInteger(e.left.type!) && e.right.type !== undefined && isInteger(e.right.type)) {
      const ls = this.ctx.env.sizeOf(e.left.type!);
      const rs = this.ctx.env.sizeOf(e.right.type);
      if (ls < rs || (ls < 8 && e.op !== '=')) this.narrow(e.left.type!, value);
    }
    this.store(e.left, value);
    return value;
  }

  private genCall(e: Expr & { k: 'call' }): number {
    const b = this.b;
    const name = (e.callee as Expr & { k: 'ident' }).name;
    const fn = BUILTIN_FUNCTIONS.get(name);
    if (fn === undefined || fn.kind !== 'subr') return fail('D_CG_EXPR', e.loc, functionKindName(fn?.kind ?? 'subr'), name);
    const regs = e.args.map((a) => this.gen(a));
    b.emit(DIF_OP.FLUSHTS, 0, 0, 0);
    regs.forEach((r, i) => this.push(e.args[i]!.type!, e.args[i]!.type!, r));
    for (let i = 1; i < regs.length; i++) b.free(regs[i]!);
    const rd = regs[0] ?? b.alloc();
    b.call(fn.subr, rd);
    return rd;
  }
}

// ---------------------------------------------------------------------------
// Clauses to ECB descriptions.

/** The code generator of each compilation (DIFOs are generated one at a time). */
const generators = new WeakMap<CompileContext, ExprGen>();

function compileDifo(ctx: CompileContext, e: Expr, rtypeOverride?: DifType): Difo {
  let g = generators.get(ctx);
  if (g === undefined) {
    g = new ExprGen(ctx, new DifoBuilder(ctx));
    generators.set(ctx, g);
  }
  g.start(e.loc);
  const b = g.b;
  const r = g.gen(e);
  b.emit(DIF_OP.RET, 0, 0, r);
  return b.finish(rtypeOverride ?? difTypeOf(ctx, e.type));
}

function constDifo(ctx: CompileContext, value: bigint, loc: Loc): Difo {
  return compileDifo(ctx, { k: 'int', value, suffix: '', decimal: true, loc, type: ctx.env.int, constValue: value, ref: undefined, lvalue: undefined });
}

/** The record of a value of type `t`; `type` is what the consumer is told the value is (undefined: nothing). */
function recordOf(ctx: CompileContext, t: CType | undefined, format: number, type: CType | undefined): NonNullable<IrAction['record']> {
  const dt = difTypeOf(ctx, t);
  if (dt.kind === DIF_TYPE_STRING) return { size: dt.size, alignment: 1, format, type };
  if (dt.flags !== 0) return { size: dt.size, alignment: 8, format, type };
  return { size: dt.size, alignment: Math.max(1, Math.min(8, dt.size)), format, type };
}

/** Stands in for a DIFO whose tables overflowed (the assemble pass reports the overflow). */
const EMPTY_DIFO: Difo = { buf: new Uint32Array(0), inttab: [], strtab: new Uint8Array(0), vartab: [], rtype: { kind: DIF_TYPE_CTF, ckind: CTF_K.INTEGER, flags: 0, size: 0 }, xlrefs: [] };

const VOID_RTYPE: DifType = { kind: DIF_TYPE_CTF, ckind: CTF_K.INTEGER, flags: 0, size: 0 };

class ClauseGen {
  readonly actions: IrAction[] = [];
  destructive = false;
  speculative = false;

  constructor(
    readonly ctx: CompileContext,
    readonly formats: FormatDescription[],
  ) {}

  private format(kind: FormatDescription['kind'], text: string): number {
    const id = this.formats.length;
    this.formats.push({ id, kind, format: text });
    return id;
  }

  private intOption(name: string, dflt: number): number {
    const v = this.ctx.option(name);
    return v === undefined || v === null ? dflt : Number(v);
  }

  /** The action of stack(), ustack(), jstack() and the sym() family, as a statement or an aggregation key records it. */
  private recordingAction(name: string, args: readonly Expr[]): IrAction {
    const ctx = this.ctx;
    switch (name) {
      case 'stack': {
        const n = args[0]?.constValue ?? BigInt(this.intOption('stackframes', 20));
        return { kind: DTRACEACT.STACK, ntuple: 0, arg: n, uarg: 0n, record: { size: Number(n) * ctx.env.pointerSize, alignment: 8, format: -1 } };
      }
      case 'ustack':
      case 'jstack': {
        const dflt = name === 'ustack' ? this.intOption('ustackframes', 100) : this.intOption('jstackframes', 50);
        const n = Number(args[0]?.constValue ?? BigInt(dflt));
        const strsize = Number(args[1]?.constValue ?? BigInt(name === 'jstack' ? parseSizeOption(String(ctx.option('jstackstrsize') ?? '512')) ?? 512 : 0));
        return { kind: name === 'ustack' ? DTRACEACT.USTACK : DTRACEACT.JSTACK, ntuple: 0, arg: ustackArg(n, strsize), uarg: 0n, record: { size: (n + 1) * 8 + strsize, alignment: 8, format: -1 } };
      }
      default: {
        const fn = BUILTIN_FUNCTIONS.get(name)!;
        const kind = fn.kind === 'action' ? fn.act : DTRACEACT.SYM;
        // The user forms record the pid, then the address (the process the address belongs to).
        const user = kind === DTRACEACT.USYM || kind === DTRACEACT.UMOD || kind === DTRACEACT.UADDR;
        return { kind, difo: compileDifo(ctx, args[0]!, difTypeInteger(8)), ntuple: 0, arg: 0n, uarg: 0n, record: { size: user ? 16 : 8, alignment: 8, format: -1 } };
      }
    }
  }

  statement(st: CookedStatement): void {
    const ctx = this.ctx;
    if (st.kind === 'expr') {
      this.actions.push({ kind: DTRACEACT.DIFEXPR, difo: compileDifo(ctx, st.expr, VOID_RTYPE), ntuple: 0, arg: 0n, uarg: 0n });
      return;
    }
    if (st.kind === 'aggregate') {
      const a = st.aggregation;
      st.keys.forEach((k, i) => {
        // stack(), sym() and friends as keys record as the actions do.
        const keyAction = k.k === 'call' && k.ref?.kind === 'function' && KEY_ACTIONS.has(k.ref.name) ? k.ref.name : undefined;
        if (keyAction !== undefined) {
          // A key is evaluated with its aggregation, not recorded in the principal buffer: no record.
          const { record: _record, ...action } = this.recordingAction(keyAction, (k as Expr & { k: 'call' }).args);
          this.actions.push({ ...action, uarg: BigInt(a.id) });
        }
        else this.actions.push({ kind: DTRACEACT.DIFEXPR, difo: compileDifo(ctx, k, difTypeOf(ctx, a.keys[i])), ntuple: 0, arg: 0n, uarg: BigInt(a.id) });
      });
      const fn = BUILTIN_FUNCTIONS.get(a.func)!;
      const kind = fn.kind === 'aggregating' ? fn.agg : DTRACEAGG.COUNT;
      let arg = 0n;
      if (a.func === 'lquantize') arg = lquantizeArg(Number(a.params[0]), Number((a.params[1]! - a.params[0]!) / a.params[2]!), Number(a.params[2]));
      if (a.func === 'llquantize') arg = llquantizeArg(Number(a.params[0]), Number(a.params[1]), Number(a.params[2]), Number(a.params[3]));
      const value = st.args[0];
      const difo = value !== undefined ? compileDifo(ctx, value) : undefined;
      this.actions.push(difo !== undefined ? { kind, difo, ntuple: st.keys.length, arg, uarg: BigInt(a.id) } : { kind, ntuple: st.keys.length, arg, uarg: BigInt(a.id) });
      // An increment argument (quantize's 2nd, lquantize's 5th, llquantize's 6th) rides as its own expression.
      const incIndex = a.func === 'quantize' ? 1 : a.func === 'lquantize' ? 4 : a.func === 'llquantize' ? 5 : -1;
      if (incIndex > 0 && st.args[incIndex] !== undefined) {
        this.actions.push({ kind: DTRACEACT.DIFEXPR, difo: compileDifo(ctx, st.args[incIndex]!), ntuple: 0, arg: 0n, uarg: BigInt(a.id) });
      }
      return;
    }
    const name = st.name;
    const fn = BUILTIN_FUNCTIONS.get(name)!;
    if (fn.kind === 'action' && fn.destructive === true) this.destructive = true;
    const rec = (t: CType | undefined, format = -1): IrAction['record'] => recordOf(ctx, t, format, t);
    switch (name) {
      case 'trace':
      case 'print': {
        const a = st.args[0]!;
        this.actions.push({ kind: DTRACEACT.DIFEXPR, difo: compileDifo(ctx, a), ntuple: 0, arg: 0n, uarg: name === 'print' ? BigInt(DT_ACT.PRINT) : 0n, record: rec(a.type) });
        return;
      }
      case 'printf':
      case 'system':
      case 'freopen':
      case 'printa': {
        const fmtArg = st.args[0]!;
        const kind = name === 'printf' ? DTRACEACT.PRINTF : name === 'printa' ? DTRACEACT.PRINTA : name === 'system' ? DTRACEACT.SYSTEM : DTRACEACT.FREOPEN;
        let f = -1;
        let rest = st.args;
        if (fmtArg.k === 'string') {
          f = this.format(name, fmtArg.value);
          rest = st.args.slice(1);
        }
        if (rest.length === 0) {
          this.actions.push({ kind, ntuple: 0, arg: BigInt(f), uarg: 0n, record: { size: 0, alignment: 1, format: f } });
          return;
        }
        rest.forEach((a, i) => {
          this.actions.push({
            kind,
            difo: compileDifo(ctx, a),
            ntuple: i === 0 ? rest.length : 0,
            arg: BigInt(f),
            uarg: 0n,
            // An aggregation argument (printa) records the aggregation's id: no D type is given for it.
            record: a.k === 'agg' ? recordOf(ctx, ctx.env.int64, i === 0 ? f : -1, undefined) : rec(a.type, i === 0 ? f : -1),
          });
        });
        return;
      }
      case 'stack':
      case 'ustack':
      case 'jstack':
      case 'sym':
      case 'func':
      case 'mod':
      case 'usym':
      case 'ufunc':
      case 'umod':
      case 'uaddr':
        this.actions.push(this.recordingAction(name, st.args));
        return;
      case 'exit':
        this.actions.push({ kind: DTRACEACT.EXIT, difo: compileDifo(ctx, st.args[0]!, difTypeInteger(4)), ntuple: 0, arg: 0n, uarg: 0n, record: { size: 4, alignment: 4, format: -1 } });
        return;
      case 'speculate':
        this.speculative = true;
        this.actions.push({ kind: DTRACEACT.SPECULATE, difo: compileDifo(ctx, st.args[0]!, difTypeInteger(4)), ntuple: 0, arg: 0n, uarg: 0n });
        return;
      case 'commit':
      case 'discard':
        this.actions.push({ kind: name === 'commit' ? DTRACEACT.COMMIT : DTRACEACT.DISCARD, difo: compileDifo(ctx, st.args[0]!, difTypeInteger(4)), ntuple: 0, arg: 0n, uarg: 0n, record: { size: 4, alignment: 4, format: -1 } });
        return;
      case 'tracemem': {
        const size = st.args[1]!.constValue!;
        if (st.args[2] !== undefined) {
          this.actions.push({ kind: DTRACEACT.TRACEMEM_DYNSIZE, difo: compileDifo(ctx, st.args[2], difTypeInteger(8)), ntuple: 0, arg: size, uarg: 0n, record: { size: 8, alignment: 8, format: -1 } });
        }
        this.actions.push({ kind: DTRACEACT.TRACEMEM, difo: compileDifo(ctx, st.args[0]!, difTypeByRef(Number(size), CTF_K.ARRAY)), ntuple: 0, arg: size, uarg: 0n, record: { size: Number(size), alignment: 1, format: -1 } });
        return;
      }
      case 'clear':
      case 'denormalize':
      case 'normalize':
      case 'trunc': {
        const code = { clear: DT_ACT.CLEAR, denormalize: DT_ACT.DENORMALIZE, normalize: DT_ACT.NORMALIZE, trunc: DT_ACT.TRUNC }[name];
        for (const a of st.args) {
          this.actions.push({ kind: DTRACEACT.LIBACT, difo: compileDifo(ctx, a, difTypeInteger(8)), ntuple: 0, arg: BigInt(code), uarg: 0n, record: { size: 8, alignment: 8, format: -1 } });
        }
        if (name === 'trunc' && st.args.length === 1) {
          this.actions.push({ kind: DTRACEACT.LIBACT, difo: constDifo(ctx, 0n, st.loc), ntuple: 0, arg: BigInt(code), uarg: 0n, record: { size: 8, alignment: 8, format: -1 } });
        }
        return;
      }
      case 'setopt': {
        const opt = (st.args[0] as Expr & { k: 'string' }).value;
        const val = st.args[1] !== undefined ? (st.args[1] as Expr & { k: 'string' }).value : '';
        const f = this.format('setopt', val === '' ? opt : `${opt}=${val}`);
        this.actions.push({ kind: DTRACEACT.LIBACT, ntuple: 0, arg: BigInt(DT_ACT.SETOPT), uarg: BigInt(f), record: { size: 0, alignment: 1, format: f } });
        return;
      }
      case 'ftruncate':
        this.actions.push({ kind: DTRACEACT.LIBACT, ntuple: 0, arg: BigInt(DT_ACT.FTRUNCATE), uarg: 0n, record: { size: 0, alignment: 1, format: -1 } });
        return;
      case 'stop':
      case 'panic':
      case 'breakpoint':
        this.actions.push({ kind: fn.kind === 'action' ? fn.act : 0, ntuple: 0, arg: 0n, uarg: 0n, record: { size: 0, alignment: 1, format: -1 } });
        return;
      case 'raise':
      case 'chill':
        this.actions.push({ kind: fn.kind === 'action' ? fn.act : 0, difo: compileDifo(ctx, st.args[0]!, difTypeInteger(name === 'raise' ? 4 : 8)), ntuple: 0, arg: 0n, uarg: 0n, record: { size: name === 'raise' ? 4 : 8, alignment: name === 'raise' ? 4 : 8, format: -1 } });
        return;
      default:
        return fail('D_UNKNOWN', st.loc, `no code generator for ${name}( )`);
    }
  }
}

export const codegenPass: Pass = {
  name: 'codegen',
  reads: 'clauses[].cooked, aggregations, options',
  writes: 'ir (ECBs with their DIFOs), formats',
  run(ctx) {
    const formats: FormatDescription[] = [];
    const ecbs: IrEcb[] = [];
    ctx.clauses.forEach((clause, index) => {
      const cooked = clause.cooked!;
      const g = new ClauseGen(ctx, formats);
      const predicate = cooked.predicate !== undefined ? compileDifo(ctx, cooked.predicate, difTypeInteger(4)) : undefined;
      for (let i = 0; i < cooked.statements.length; i++) g.statement(cooked.statements[i]!);
      if (clause.item.body === undefined || (cooked.statements.length === 0 && clause.item.body === undefined)) {
        // A description without a body takes the default action: trace the probe (an empty record, printed as the probe).
      }
      const ecb: IrEcb =
        predicate !== undefined
          ? { clause: index, probes: clause.probes, predicate, actions: g.actions.slice(), destructive: g.destructive, speculative: g.speculative }
          : { clause: index, probes: clause.probes, actions: g.actions.slice(), destructive: g.destructive, speculative: g.speculative };
      ecbs.push(cooked.referenceAttributes !== undefined ? { ...ecb, referenceAttributes: cooked.referenceAttributes } : ecb);
    });
    ctx.ir = { ecbs, formats };
    if (ecbs.some((e) => e.destructive)) {
      const d = ctx.option('destructive');
      void d;
    }
    void DIF_SUBR;
  },
};

export const RECORD_HEADER_SIZE = DTRACE_RECHDR_SIZE;
