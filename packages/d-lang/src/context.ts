// The state of one compilation, shared by the passes: options, the type
// environment, the AST, symbol tables (variables, aggregations, inlines,
// translators), the clauses with their resolved probe descriptions, and the
// compiled program at the end. Each pass reads and writes the fields its
// entry in passes/index.ts names.

import type { CompiledProgram, ProbeDescription } from '@wdtrace/dtrace-core/program';
import type { IrProgram } from './ir.js';
import type { CType, TypeDictionary } from '@wdtrace/dtrace-core/types';
import type { AggregationInfo, ClauseItem, Expr, ProgramAst, VariableInfo } from './ast.js';
import { type Diagnostic, type Loc, Locator, type SourceLocation } from './diagnostics.js';
import { TypeEnvironment } from './dtypes.js';
import { DifArrayPool, DifAssembler } from './assembler.js';
import { parseProgram } from './parser.js';
import type { Difo, DifType } from '@wdtrace/dtrace-core/dif';

/**
 * One probe argument as a provider describes it (dtrace_argdesc_t): the
 * native C type, and for a translated argument the type D programs see and
 * which native argument it is translated from (illumos sdt_argdesc's
 * mapping). args[N] is then `xlate <translated> (native args[mapping])`.
 */
export interface ProbeArgInfo {
  readonly native: string;
  readonly translated?: string;
  /** The native argument translated (default: the argument's own index). */
  readonly mapping?: number;
}

/** A probe as the framework knows it, with the argument types it offers for args[]. */
export interface ProbeInfo {
  readonly id: number;
  readonly provider: string;
  readonly module: string;
  readonly function: string;
  readonly name: string;
  /** C type names of args[0..n-1], untranslated (used when `args` is absent). */
  readonly argTypes?: readonly string[];
  /** Descriptions of args[0..n-1] with their translations; takes precedence over argTypes. */
  readonly args?: readonly ProbeArgInfo[];
}

/** A D library compiled ahead of the program (libdtrace's /usr/lib/dtrace/*.d). */
export interface DLibrary {
  /** File name used in messages ("proc.d"). */
  readonly name: string;
  readonly text: string;
}

/**
 * What a catalogue's `match` throws when a provider refuses a description it
 * would create probes for (pid's offsets and names): the D_* tag and the
 * template's arguments; the compiler reports it at the description.
 */
export class ProbeMatchError extends Error {
  constructor(
    readonly tag: string,
    readonly args: readonly string[],
  ) {
    super(`${tag}: ${args.join(', ')}`);
    this.name = 'ProbeMatchError';
  }
}

/** How the compiler asks the framework about probes. */
export interface ProbeCatalogue {
  /** Probes matching a description (fields may be globs; empty fields match all); may throw ProbeMatchError. */
  match(desc: { provider: string; module: string; function: string; name: string }): readonly ProbeInfo[];
  /**
   * A description the provider rewrites into others before matching, as
   * FreeBSD's dt_sugar rewrites `kinst::<inline function>:entry|return`
   * into probes at every inlined copy; undefined when it is not rewritten.
   */
  expand?(text: string): readonly string[] | undefined;
}

/** How the -C preprocessor reads #include files. */
export interface IncludeResolver {
  (path: string, fromFile: string | undefined, system: boolean): { path: string; text: string } | undefined;
}

export interface CompileOptions {
  /** ILP32 for ARMv7 guests, LP64 (default) for x86-64. */
  readonly dataModel?: 'ILP32' | 'LP64';
  /** Where the program came from, for messages and for accepting a bare probe description. */
  readonly origin?: { kind: 'script'; name: string } | { kind: 'probe'; text: string } | { kind: 'text' };
  /** Macro arguments $1, $2 ... (after the script name). */
  readonly macroArgs?: readonly string[];
  /** Values of $pid, $ppid, $uid, $gid, $target ... */
  readonly macroVariables?: Readonly<Partial<Record<'egid' | 'euid' | 'gid' | 'pid' | 'pgid' | 'ppid' | 'projid' | 'sid' | 'target' | 'taskid' | 'uid', number>>>;
  /** -x options (name -> value, null for boolean ones). */
  readonly options?: Readonly<Record<string, string | null>>;
  /** Type dictionaries beyond D's and C's (the kernel's, from DWARF). */
  readonly types?: readonly TypeDictionary[];
  /** Probe lookups; without it descriptions are not matched and args[] are untyped (int64_t). */
  readonly probes?: ProbeCatalogue;
  /**
   * The C type of `curthread` in the traced kernel (illumos: `kthread_t *`;
   * the guest: `struct task_struct *`), resolved against `types`; default
   * `uintptr_t` when there is no kernel.
   */
  readonly threadType?: string;
  /** -Z: permit descriptions that match no probes. */
  readonly zdefs?: boolean;
  /** -C: run the C preprocessor first. */
  readonly cpp?: boolean;
  /** -D name[=value] */
  readonly defines?: readonly string[];
  /** -U name */
  readonly undefines?: readonly string[];
  /** -I directories, searched in order by the include resolver. */
  readonly includePaths?: readonly string[];
  readonly includeResolver?: IncludeResolver;
  /** -H: collect the names of included files. */
  readonly listIncludes?: boolean;
  /**
   * D libraries whose declarations (typedefs, structs, inlines, translators)
   * the program sees, in order, as libdtrace loads its library directory
   * before compiling; their errors name the library file. Clauses in a
   * library are ignored.
   */
  readonly libraries?: readonly DLibrary[];
  /**
   * Load the standard D libraries (errno.d, signal.d, unistd.d: see
   * STANDARD_D_LIBRARIES) ahead of `libraries` (default true; `-x nolibs`
   * also turns them off).
   */
  readonly standardLibraries?: boolean;
}

/** A clause after probe resolution. */
export interface ResolvedClause {
  readonly item: ClauseItem;
  readonly probes: ProbeDescription[];
  /** Probes matched (when a catalogue was given), for args[] types. */
  readonly matched: ProbeInfo[];
  /** Typed predicate and statements, set by the types pass. */
  cooked?: {
    predicate?: Expr;
    statements: CookedStatement[];
    /** The least attributes of the kernel symbols and types the clause names (EcbDescription.referenceAttributes), when it names any. */
    referenceAttributes?: string;
  };
}

/** A clause statement after typing: a plain expression, an action call, or an aggregation. */
export type CookedStatement =
  | { readonly kind: 'expr'; readonly expr: Expr; readonly loc: Loc }
  | { readonly kind: 'action'; readonly name: string; readonly args: Expr[]; readonly loc: Loc }
  | {
      readonly kind: 'aggregate';
      readonly aggregation: AggregationInfo;
      readonly keys: Expr[];
      readonly args: Expr[];
      readonly loc: Loc;
    };

export interface TranslatorInfo {
  readonly id: number;
  readonly output: CType;
  readonly input: CType;
  readonly inputName: string;
  readonly members: Map<string, Expr>;
}

/**
 * A provider definition (`provider p { probe q(int) : (string); };`) as the
 * program declares it, for `-h` and `-G`: each probe's name (`__` read as
 * `-`), its native argument types and, when a translated list follows the
 * colon, the translated types.
 */
export interface ProviderDefinition {
  readonly name: string;
  readonly probes: readonly { readonly name: string; readonly native: readonly CType[]; readonly translated?: readonly CType[] }[];
}

export interface InlineInfo {
  readonly name: string;
  readonly type: CType;
  readonly value: Expr;
}

export class CompileContext {
  readonly env: TypeEnvironment;
  ast?: ProgramAst;
  /** Text after preprocessing. */
  text: string;
  readonly warnings: Diagnostic[] = [];
  /** Files included by the preprocessor (-H). */
  readonly includes: string[] = [];
  readonly pragmaOptions = new Map<string, string | null>();
  readonly globals = new Map<string, VariableInfo>();
  readonly threadLocals = new Map<string, VariableInfo>();
  /** Clause-local ids are program-wide so one name keeps one id across clauses. */
  readonly localIds = new Map<string, number>();
  /** Clause-locals declared at the top level (`this int x;`), visible in every clause. */
  readonly declaredLocals = new Map<string, VariableInfo>();
  readonly aggregations = new Map<string, AggregationInfo>();
  readonly inlines = new Map<string, InlineInfo>();
  readonly translators: TranslatorInfo[] = [];
  /** The program's provider definitions, in the order declared. */
  readonly providers: ProviderDefinition[] = [];
  readonly externs = new Map<string, { type: CType; address: bigint }>();
  clauses: ResolvedClause[] = [];
  /** Hidden clause-locals created so far (operands of xlate expansions). */
  hiddenLocals = 0;
  /** Macro arguments referenced, for -x argref / defaultargs checks. */
  readonly macroArgsUsed = new Set<number>();
  /** The code generator's output, consumed by the assembler. */
  ir?: IrProgram;
  program?: CompiledProgram;
  /** The DIF assembler, reset for each DIFO (DIFOs are generated one at a time). */
  readonly difAssembler = new DifAssembler();
  /** Buffers of the DIFOs' typed arrays (see DifArrayPool). */
  readonly difArrays = new DifArrayPool();
  /** The DIF type of D strings at the current strsize (codegen's difTypeOf). */
  stringDifType: DifType | undefined;
  /** DIF types of D types (codegen's difTypeOf), computed once each. */
  readonly difTypes = new Map<CType, DifType>();
  /** The first DIF table overflow met while assembling (reported by the assemble pass). */
  difOverflow: 'integer' | 'string' | undefined;
  /** The locators of the texts parsed (libraries, then the program), in order of their bases. */
  private readonly locators: Locator[] = [];

  /** Every DIFO for -S, in generation order: each ECB's predicate, then its actions'. */
  get listings(): { clause: number; difo: Difo }[] {
    const out: { clause: number; difo: Difo }[] = [];
    for (const e of this.program?.ecbs ?? []) {
      if (e.predicate !== undefined) out.push({ clause: e.clause, difo: e.predicate });
      for (const a of e.actions) if (a.difo !== undefined) out.push({ clause: e.clause, difo: a.difo });
    }
    return out;
  }

  constructor(
    readonly source: string,
    readonly options: CompileOptions,
  ) {
    this.text = source;
    this.env = new TypeEnvironment(options.dataModel ?? 'LP64', options.types ?? []);
  }

  /**
   * Parse a text (a library or the program) with the typedef names known
   * so far; its Locs follow those of the texts parsed before it.
   */
  parse(text: string): ProgramAst {
    const last = this.locators[this.locators.length - 1];
    const locator = new Locator(text, last === undefined ? 0 : last.end + 1);
    this.locators.push(locator);
    return parseProgram(text, {
      isTypedefName: (name) => !name.includes(' ') && this.env.lookup(name) !== undefined,
      isScopedTypeName: (module, name) => this.env.hasScopedType(module, name),
      locator,
      fromFile: this.options.origin?.kind === 'script',
    });
  }

  /** Line, column and file of a Loc in any text parsed. */
  locate(loc: Loc): SourceLocation | undefined {
    for (const l of this.locators) if (loc <= l.end) return l.locate(loc);
    return undefined;
  }

  option(name: string): string | null | undefined {
    if (this.pragmaOptions.has(name)) return this.pragmaOptions.get(name);
    const o = this.options.options;
    if (o !== undefined && Object.prototype.hasOwnProperty.call(o, name)) return o[name];
    return undefined;
  }
}
