// The D abstract syntax tree: every node carries its source location. The
// parser builds it; passes annotate expressions with their D type (`type`)
// and constant value (`constValue`) and rewrite the tree (sugar, folding).

import type { Loc } from './diagnostics.js';
import type { CType } from '@wdtrace/dtrace-core/types';

// ---------------------------------------------------------------------------
// Types as written: declaration specifiers and declarators.

export interface TypeSpecifier {
  /** Base type words in order: "unsigned", "long", "int", "struct", a typedef name ... */
  readonly words: string[];
  readonly qualifiers: string[];
  /** struct/union/enum with a body or a tag. */
  readonly tagged?: TaggedTypeSpec;
  /** Backquote scope: `kernel`struct foo` */
  readonly module?: string;
  readonly loc: Loc;
}

export interface TaggedTypeSpec {
  readonly keyword: 'struct' | 'union' | 'enum';
  readonly name: string;
  /** Members when a body is given. */
  readonly members?: { specifier: TypeSpecifier; declarator: Declarator; bitWidth?: Expr; loc: Loc }[];
  /** `end`: the token after the enumerator, where dtrace reports on it. */
  readonly enumerators?: { name: string; value?: Expr; loc: Loc; end?: Loc }[];
}

/** Derivations applied outside-in to the base type: pointer, array, function. */
export type Derivation =
  | { readonly kind: 'pointer'; readonly qualifiers: string[] }
  | { readonly kind: 'array'; readonly size?: Expr; readonly tuple?: TypeName[] }
  | { readonly kind: 'function'; readonly params: ParamDecl[]; readonly variadic: boolean };

export interface Declarator {
  /** Identifier, or "" for abstract declarators. */
  readonly name: string;
  /** From the identifier outwards: e.g. `char *a[4]` = [array 4, pointer]. */
  readonly derivations: Derivation[];
  readonly loc: Loc;
}

export interface ParamDecl {
  readonly specifier: TypeSpecifier;
  readonly declarator: Declarator;
}

export interface TypeName {
  readonly specifier: TypeSpecifier;
  readonly declarator: Declarator;
  readonly loc: Loc;
}

// ---------------------------------------------------------------------------
// Expressions.

interface ExprBase {
  readonly loc: Loc;
  /** Set by the types pass. */
  type?: CType;
  /** Set by the types pass for integer constant expressions. */
  constValue?: bigint;
  /** Set by the types pass: what an identifier, variable, call or aggregation refers to. */
  ref?: Ref;
  /** Set by the types pass: the expression designates a modifiable lvalue. */
  lvalue?: boolean;
}

/** What a name resolves to, filled in by the types pass for the code generator. */
export type Ref =
  | { readonly kind: 'builtin'; readonly id: number; readonly array: boolean }
  | { readonly kind: 'variable'; readonly variable: VariableInfo }
  | { readonly kind: 'symbol'; readonly address: bigint }
  | { readonly kind: 'function'; readonly name: string }
  | { readonly kind: 'aggregation'; readonly aggregation: AggregationInfo }
  | { readonly kind: 'translator-input' };

/** A D variable: global, thread-local (self->) or clause-local (this->); scalar or associative array. */
export interface VariableInfo {
  readonly name: string;
  readonly scope: 'global' | 'thread' | 'local';
  readonly kind: 'scalar' | 'array';
  /** DIF variable id (DIF_VAR_OTHER_UBASE upwards, per scope). */
  readonly id: number;
  type: CType;
  /** Key types of an associative array. */
  keys?: CType[];
  /** Declared with an explicit type (rather than by first assignment). */
  readonly declared: boolean;
}

/** An aggregation @name, its function and keys, fixed by its first use. */
export interface AggregationInfo {
  readonly name: string;
  readonly id: number;
  /** Name of the aggregating function. */
  func: string;
  keys: CType[];
  /** Constant parameters (lquantize/llquantize) for the consistency checks. */
  params: bigint[];
  readonly loc: Loc;
}

export interface IntExpr extends ExprBase {
  readonly k: 'int';
  readonly value: bigint;
  readonly suffix: string;
  readonly decimal: boolean;
  readonly isChar?: boolean;
}
export interface StringExpr extends ExprBase {
  readonly k: 'string';
  readonly value: string;
}
export interface IdentExpr extends ExprBase {
  readonly k: 'ident';
  readonly name: string;
  /** `mod`name or `name (module "" for the bare backquote). */
  readonly module?: string;
}
export interface VarExpr extends ExprBase {
  readonly k: 'var';
  readonly scope: 'self' | 'this';
  readonly name: string;
}
export interface AggExpr extends ExprBase {
  readonly k: 'agg';
  readonly name: string;
}
export interface MacroExpr extends ExprBase {
  readonly k: 'macro';
  readonly name: string;
  readonly asString: boolean;
}
export interface UnaryExpr extends ExprBase {
  readonly k: 'unary';
  readonly op: '-' | '+' | '!' | '~' | '*' | '&' | '++pre' | '--pre' | '++post' | '--post' | 'sizeof' | 'stringof';
  readonly operand: Expr;
}
export interface SizeofTypeExpr extends ExprBase {
  readonly k: 'sizeoftype';
  readonly typeName: TypeName;
}
export interface BinaryExpr extends ExprBase {
  readonly k: 'binary';
  readonly op: string;
  readonly left: Expr;
  readonly right: Expr;
}
export interface AssignExpr extends ExprBase {
  readonly k: 'assign';
  /** '=', '+=', ... */
  readonly op: string;
  readonly left: Expr;
  readonly right: Expr;
}
export interface TernaryExpr extends ExprBase {
  readonly k: 'ternary';
  readonly cond: Expr;
  readonly then: Expr;
  readonly otherwise: Expr;
}
export interface CallExpr extends ExprBase {
  readonly k: 'call';
  readonly callee: Expr;
  readonly args: Expr[];
}
export interface IndexExpr extends ExprBase {
  readonly k: 'index';
  readonly base: Expr;
  readonly args: Expr[];
}
export interface MemberExpr extends ExprBase {
  readonly k: 'member';
  readonly base: Expr;
  readonly arrow: boolean;
  readonly name: string;
}
export interface CastExpr extends ExprBase {
  readonly k: 'cast';
  readonly typeName: TypeName;
  readonly operand: Expr;
}
export interface OffsetofExpr extends ExprBase {
  readonly k: 'offsetof';
  readonly typeName: TypeName;
  readonly member: string;
}
export interface XlateExpr extends ExprBase {
  readonly k: 'xlate';
  readonly typeName: TypeName;
  readonly operand: Expr;
  /** Set by the types pass: how the translated struct is built (dt_cg_xlate_expand). */
  expansion?: XlateExpansion;
}

/**
 * A whole translation, `xlate <T>(e)` or `xlate <T *>(e)` used as a value:
 * scratch space of the output type's size, each member the translator
 * defines stored at its offset (the others stay zero). The operand is
 * evaluated once, into a hidden clause-local the member expressions read.
 */
export interface XlateExpansion {
  /** Size of the output struct or union. */
  readonly size: number;
  /** Hidden clause-local holding the operand (absent when the operand is substituted as is). */
  readonly argument?: VariableInfo;
  readonly members: readonly { readonly name: string; readonly offset: number; readonly type: CType; readonly value: Expr }[];
}

export type Expr =
  | IntExpr
  | StringExpr
  | IdentExpr
  | VarExpr
  | AggExpr
  | MacroExpr
  | UnaryExpr
  | SizeofTypeExpr
  | BinaryExpr
  | AssignExpr
  | TernaryExpr
  | CallExpr
  | IndexExpr
  | MemberExpr
  | CastExpr
  | OffsetofExpr
  | XlateExpr;

// ---------------------------------------------------------------------------
// Statements and the program.

export type Statement =
  | { readonly k: 'expr'; expr: Expr; readonly loc: Loc }
  | { readonly k: 'if'; cond: Expr; then: Statement[]; otherwise?: Statement[]; readonly loc: Loc };

export interface ProbeSpec {
  /** As written (macro variables not yet expanded). */
  readonly text: string;
  readonly loc: Loc;
}

export interface ClauseItem {
  readonly k: 'clause';
  probes: ProbeSpec[];
  predicate?: Expr;
  /** undefined for a description without a body (default action). */
  body?: Statement[];
  /** Where the body's closing '}' is (the clause's own line in dtrace's diagnostics). */
  end?: Loc;
  readonly loc: Loc;
}

export interface InitDeclarator {
  readonly declarator: Declarator;
  readonly init?: Expr;
}

export interface DeclarationItem {
  readonly k: 'decl';
  readonly storage?: 'typedef' | 'extern' | 'static' | 'register' | 'auto' | 'self' | 'this';
  readonly specifier: TypeSpecifier;
  readonly declarators: InitDeclarator[];
  readonly loc: Loc;
}

export interface InlineItem {
  readonly k: 'inline';
  readonly specifier: TypeSpecifier;
  readonly declarator: Declarator;
  readonly value: Expr;
  readonly loc: Loc;
}

export interface TranslatorItem {
  readonly k: 'translator';
  readonly output: TypeName;
  readonly input: TypeName;
  readonly inputName: string;
  readonly members: { name: string; value: Expr; loc: Loc }[];
  readonly loc: Loc;
  /** The definition's closing ';', where dtrace reports on the translator. */
  readonly end?: Loc;
}

export interface ProviderItem {
  readonly k: 'provider';
  readonly name: string;
  readonly probes: { name: string; params: TypeName[]; xlated?: TypeName[]; loc: Loc }[];
  readonly loc: Loc;
}

export interface PragmaItem {
  readonly k: 'pragma';
  readonly text: string;
  readonly loc: Loc;
}

export type ProgramItem = ClauseItem | DeclarationItem | InlineItem | TranslatorItem | ProviderItem | PragmaItem;

export interface ProgramAst {
  items: ProgramItem[];
  readonly loc: Loc;
  /** The end of the input, where dtrace's checks after parsing report. */
  readonly end?: Loc;
}
