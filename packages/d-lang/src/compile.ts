// The compiler's entry points for the CLI and other users: compile a D
// program to the serialisable compiled program, list its DIF (-S), print
// it after the sugar pass (-d), and format diagnostics like dtrace(1).
import type { CompiledProgram } from '@wdtrace/dtrace-core/program';
import { difListing, type Difo } from '@wdtrace/dtrace-core/dif';
import { CompileContext, type CompileOptions, type DLibrary } from './context.js';
import { CompileError, type Diagnostic, formatDiagnostic, makeDiagnostic } from './diagnostics.js';
import { PASSES, passIndex } from './passes/index.js';
import { scopesPass } from './passes/scopes.js';
import { preprocess } from './cpp.js';
import { printProgram } from './printer.js';
import { STANDARD_D_LIBRARIES } from './stdlib.js';

export interface CompileResult {
  /** Present when compilation succeeded. */
  readonly program?: CompiledProgram;
  /** Errors (at most one: compilation stops at the first) and warnings. */
  readonly diagnostics: Diagnostic[];
  /** The compile context, for -S/-d and tests. */
  readonly context: CompileContext;
}

/** Run the preprocessor (when asked) and the passes up to and including `lastPass`. */
export function runPasses(source: string, options: CompileOptions = {}, lastPass?: string): CompileResult {
  const ctx = new CompileContext(source, options);
  const diagnostics: Diagnostic[] = [];
  const stop = lastPass === undefined ? PASSES.length - 1 : passIndex(lastPass);
  try {
    if (options.cpp === true) {
      const out = preprocess(source, {
        defines: options.defines ?? [],
        undefines: options.undefines ?? [],
        includePaths: options.includePaths ?? [],
        ...(options.includeResolver !== undefined ? { resolve: options.includeResolver } : {}),
        ...(options.origin?.kind === 'script' ? { fileName: options.origin.name } : {}),
      });
      ctx.text = out.text;
      ctx.includes.push(...out.includes);
    }
    loadLibraries(ctx);
    for (let i = 0; i <= stop; i++) PASSES[i]!.run(ctx);
  } catch (e) {
    if (e instanceof CompileError) diagnostics.push(e.locate(ctx).diagnostic);
    else if (e instanceof RangeError && /call stack/i.test(e.message)) diagnostics.push(makeDiagnostic('D_UNKNOWN', undefined, 'program too deeply nested'));
    else throw e;
  }
  diagnostics.unshift(...ctx.warnings);
  const failed = diagnostics.some((d) => d.severity === 'error');
  return { ...(!failed && ctx.program !== undefined ? { program: ctx.program } : {}), diagnostics, context: ctx };
}

/**
 * The D libraries' declarations into the context, library by library, as
 * dt_load_libs() compiles each file of the library directory before the
 * program: every library is parsed with the typedef names known so far
 * (a `#line` marker gives its locations the library's file name) and its
 * declarations enter the symbol tables through the scopes pass.
 */
function loadLibraries(ctx: CompileContext): void {
  const standard = ctx.options.standardLibraries !== false && ctx.options.options?.nolibs === undefined;
  // dt_load_libs_dir skips a file named as a library loaded before it (the
  // standard ones, loaded first, even when left out as unnamed).
  const fileName = (name: string): string => name.slice(name.lastIndexOf('/') + 1);
  const seen = new Set(standard ? STANDARD_D_LIBRARIES.map((l) => fileName(l.name)) : []);
  const libraries = (ctx.options.libraries ?? []).filter((l) => {
    if (seen.has(fileName(l.name))) return false;
    seen.add(fileName(l.name));
    return true;
  });
  for (const lib of standard ? [...standardLibrariesNamed(ctx.text, libraries), ...libraries] : libraries) {
    const text = `#line 1 "${lib.name.replace(/["\\]/g, '\\$&')}"\n${lib.text}`;
    ctx.ast = ctx.parse(text);
    scopesPass.run(ctx);
  }
  ctx.ast = undefined;
}

/** The names each standard library declares. */
const standardNames = new Map(STANDARD_D_LIBRARIES.map((lib) => [lib, new Set(lib.text.match(/(?<=inline int )\w+/g) ?? [])]));

/**
 * The standard libraries that the program or the other libraries name: only
 * their inlines are visible to a program, so a library none of whose names
 * occurs in the text (after preprocessing) cannot change the compilation,
 * and leaving it out keeps compiling small programs fast.
 */
function standardLibrariesNamed(text: string, libraries: readonly DLibrary[]): DLibrary[] {
  const words = new Set<string>();
  for (const t of [text, ...libraries.map((l) => l.text)]) for (const w of t.match(/\b[A-Z_][A-Z0-9_]*\b/g) ?? []) words.add(w);
  return STANDARD_D_LIBRARIES.filter((lib) => {
    for (const n of standardNames.get(lib)!) if (words.has(n)) return true;
    return false;
  });
}

/** Compile a D program. Never throws for bad input: errors come back as diagnostics. */
export function compile(source: string, options: CompileOptions = {}): CompileResult {
  return runPasses(source, options);
}

/** The DIF of a compiled program in the layout of `dtrace -S` (every DIFO, in generation order). */
export function listDif(result: { readonly context: { readonly listings: readonly { readonly difo: Difo }[] } }): string {
  let n = 0;
  return result.context.listings
    .map((l) => difListing(l.difo, { address: `0x${(0x1000 + 0x100 * n++).toString(16)}` }))
    .join('');
}

/** The program after the sugar pass (if/else lowered), as `dtrace -d` prints it; undefined when it did not get that far. */
export function dumpSugared(source: string, options: CompileOptions = {}): { text?: string; diagnostics: Diagnostic[] } {
  const r = runPasses(source, options, 'sugar');
  if (r.diagnostics.some((d) => d.severity === 'error') || r.context.ast === undefined) return { diagnostics: r.diagnostics };
  return { text: printProgram(r.context.ast), diagnostics: r.diagnostics };
}

/** All diagnostics of a result as dtrace(1) prints them, one per line. */
export function formatDiagnostics(result: { diagnostics: readonly Diagnostic[] }, options: CompileOptions & { errtags?: boolean } = {}): string {
  return result.diagnostics
    .map((d) => formatDiagnostic(d, { ...(options.origin !== undefined ? { origin: options.origin } : {}), errtags: options.errtags ?? false }))
    .join('\n');
}
