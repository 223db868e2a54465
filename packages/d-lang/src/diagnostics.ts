// Diagnostics as values: what went wrong (a D_* tag from the table), where
// (line, column, file) and the message in dtrace's wording. The compiler
// never throws for bad input; it returns these.

import { DIAGNOSTICS } from './diagnostics-table.js';

export { DIAGNOSTICS };
export type DiagnosticTag = keyof typeof DIAGNOSTICS;

export interface SourceLocation {
  /** 1-based line (after #line directives). */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** File named by a #line directive or #include, when not the main input. */
  readonly file?: string;
  /** Offset in the compiled text. */
  readonly offset: number;
}

export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  /** D_* tag; warnings without a dtrace tag use D_UNKNOWN. */
  readonly tag: DiagnosticTag;
  readonly message: string;
  readonly location?: SourceLocation;
}

/** Fill a template's %s slots in order. */
export function formatTemplate(template: string, args: readonly (string | number | bigint)[]): string {
  let i = 0;
  return template.replace(/%%|%s/g, (m) => (m === '%%' ? '%' : String(args[i++] ?? '')));
}

export function makeDiagnostic(
  tag: DiagnosticTag,
  location: SourceLocation | undefined,
  ...args: (string | number | bigint)[]
): Diagnostic {
  return {
    severity: 'error',
    tag,
    message: formatTemplate(DIAGNOSTICS[tag].template, args),
    ...(location !== undefined ? { location } : {}),
  };
}

export function makeWarning(message: string, location?: SourceLocation): Diagnostic {
  return { severity: 'warning', tag: 'D_UNKNOWN', message, ...(location !== undefined ? { location } : {}) };
}

/** Thrown inside a pass to stop at the first error; caught by the pipeline and turned into a Diagnostic. */
export class CompileError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

export function fail(tag: DiagnosticTag, location: SourceLocation | undefined, ...args: (string | number | bigint)[]): never {
  throw new CompileError(makeDiagnostic(tag, location, ...args));
}

export interface FormatOptions {
  /** How the program was given: a script file (-s), a probe (-n/-P/-m/-f/-i) or program text. */
  readonly origin?: { kind: 'script'; name: string } | { kind: 'probe'; text: string } | { kind: 'text' };
  /** -x errtags: prefix the tag in brackets. */
  readonly errtags?: boolean;
}

/** The message body dtrace prints after its prefix: "[D_TAG] x.h, line 3: message" style. */
export function formatDiagnosticBody(d: Diagnostic, errtags = false): string {
  let s = '';
  if (errtags && d.severity === 'error') s += `[${d.tag}] `;
  if (d.location !== undefined) {
    if (d.location.file !== undefined) s += `${d.location.file}, line ${d.location.line}: `;
    else s += `line ${d.location.line}: `;
  }
  return s + d.message;
}

/**
 * One diagnostic as dtrace(1) prints it:
 *   dtrace: failed to compile script x.d: line 3: ...
 *   dtrace: invalid probe specifier BEGIN{x}: line 1: ...
 *   dtrace: script 'x.d' warning ... (warnings: "dtrace: warning: ...")
 */
export function formatDiagnostic(d: Diagnostic, options: FormatOptions = {}): string {
  const body = formatDiagnosticBody(d, options.errtags ?? false);
  if (d.severity === 'warning') return `dtrace: warning: ${body}`;
  const origin = options.origin ?? { kind: 'text' };
  switch (origin.kind) {
    case 'script':
      return `dtrace: failed to compile script ${origin.name}: ${body}`;
    case 'probe':
      return `dtrace: invalid probe specifier ${origin.text}: ${body}`;
    case 'text':
      return `dtrace: failed to compile script: ${body}`;
  }
}
