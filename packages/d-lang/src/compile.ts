// The compiler's entry points for the CLI and other users: compile a D
// program to the serialisable compiled program, list its DIF (-S), print
// it after the sugar pass (-d), and format diagnostics like dtrace(1).
import type { CompiledProgram } from '@wdtrace/dtrace-core/program';
import { difListing } from '@wdtrace/dtrace-core/dif';
import { CompileContext, type CompileOptions } from './context.js';
import { CompileError, type Diagnostic, formatDiagnostic, makeDiagnostic } from './diagnostics.js';
import { PASSES, passIndex } from './passes/index.js';
import { scopesPass } from './passes/scopes.js';
import { preprocess } from './cpp.js';
import { printProgram } from './printer.js';

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
    loadLibraries(ctx);
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
  for (const lib of ctx.options.libraries ?? []) {
    const text = `#line 1 "${lib.name.replace(/["\\]/g, '\\$&')}"\n${lib.text}`;
    ctx.ast = ctx.parse(text);
    scopesPass.run(ctx);
  }
  ctx.ast = undefined;
}

/** Compile a D program. Never throws for bad input: errors come back as diagnostics. */
export function compile(source: string, options: CompileOptions = {}): CompileResult {
  return runPasses(source, options);
}

/** The DIF of a compiled program in the layout of `dtrace -S` (every DIFO, in generation order). */
export function listDif(result: CompileResult): string {
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
