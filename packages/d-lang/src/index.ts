// @wdtrace/d-lang — the D compiler. See README.md for the API.
export { compile, runPasses, listDif, dumpSugared, formatDiagnostics, type CompileResult } from './compile.js';
export type { CompileOptions, DLibrary, ProbeArgInfo, ProbeCatalogue, ProbeInfo, IncludeResolver } from './context.js';
export { ProbeMatchError } from './context.js';
export {
  DIAGNOSTICS,
  type Diagnostic,
  type DiagnosticTag,
  type Loc,
  type SourceLocation,
  formatDiagnostic,
  formatDiagnosticBody,
} from './diagnostics.js';
export { parseProgram } from './parser.js';
export { preprocess } from './cpp.js';
export { PASSES } from './passes/index.js';
export { STANDARD_D_LIBRARIES } from './stdlib.js';
export { programHeader, probeFunctionSymbol, isEnabledFunctionSymbol, headerFunctionName, headerMacroName } from './header.js';
export type { ProviderDefinition } from './context.js';
