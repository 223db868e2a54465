// The pass pipeline, in order. Each pass reads and writes the compile
// context; the pipeline stops at the first error diagnostic.
import type { Pass } from './pass.js';
import { parsePass } from './parse.js';
import { pragmasPass } from './pragmas.js';
import { macrosPass } from './macros.js';
import { sugarPass } from './sugar.js';
import { probesPass } from './probes.js';
import { scopesPass } from './scopes.js';
import { typesPass } from './types.js';
import { aggregationsPass } from './aggregations.js';
import { foldPass } from './fold.js';
import { codegenPass } from './codegen.js';
import { assemblePass } from './assemble.js';

export type { Pass };

export const PASSES: readonly Pass[] = [
  // Text to tree; typedef names known up front so declarations parse.
  parsePass,
  // Options first: strsize, defaultargs and zdefs change what later passes do.
  pragmasPass,
  // Macro variables become constants before anything looks at probe names or values.
  macrosPass,
  // if/else into predicated clauses; -d prints the program at this point.
  sugarPass,
  // Probe descriptions resolved after macro expansion ($target in pid$target).
  probesPass,
  // Declarations enter the symbol tables before clauses are typed.
  scopesPass,
  // Clauses in program order: variables are defined by first assignment.
  typesPass,
  // Needs typed statements; checks constant parameters and action order.
  aggregationsPass,
  // Needs constant values computed by the types pass.
  foldPass,
  // Typed, folded clauses to DIF with registers allocated.
  codegenPass,
  // Labels, tables and record layouts: the compiled program.
  assemblePass,
];

/** Index of a pass by name, to run "up to X" in tests and for -d. */
export function passIndex(name: string): number {
  const i = PASSES.findIndex((p) => p.name === name);
  if (i < 0) throw new Error(`no pass named ${name}`);
  return i;
}
