// Diagnostics as values: what went wrong (a D_* tag from the table), where
// (line, column, file) and the message in dtrace's wording. The compiler
// never throws for bad input; it returns these.

import { DIAGNOSTICS } from './diagnostics-table.js';

export { DIAGNOSTICS };
export type DiagnosticTag = keyof typeof DIAGNOSTICS;

/**
 * Where a token or tree node starts, as one number: the offset of that
 * point in the compilation's location space, where each parsed text (the
 * program, each D library) has its own range (see Locator). Line and
 * column are worked out only when a diagnostic needs them.
 */
export type Loc = number;

/** A resolved location, as diagnostics carry it. */
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

export function makeDiagnostic(tag: DiagnosticTag, location: SourceLocation | undefined, ...args: (string | number | bigint)[]): Diagnostic;
export function makeDiagnostic(tag: DiagnosticTag, location: SourceLocation | Loc | undefined, ...args: (string | number | bigint)[]): PendingDiagnostic;
export function makeDiagnostic(
  tag: DiagnosticTag,
  location: SourceLocation | Loc | undefined,
  ...args: (string | number | bigint)[]
): PendingDiagnostic {
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

/** A diagnostic whose location may still be a Loc (resolved by CompileError.locate). */
export type PendingDiagnostic = Omit<Diagnostic, 'location'> & { readonly location?: SourceLocation | Loc };

/** Resolves a Loc into line, column and file. */
export interface Locating {
  locate(loc: Loc): SourceLocation | undefined;
}

/**
 * Thrown inside a pass to stop at the first error; caught by the pipeline
 * and turned into a Diagnostic. A Loc given as the location is resolved by
 * locate() where the error is caught (until then `diagnostic` has no location).
 */
export class CompileError extends Error {
  diagnostic: Diagnostic;
  /** The unresolved location. */
  private at: Loc | undefined;

  constructor(diagnostic: PendingDiagnostic) {
    super(diagnostic.message);
    const { location, ...rest } = diagnostic;
    if (typeof location === 'number') {
      this.diagnostic = rest;
      this.at = location;
    } else this.diagnostic = diagnostic as Diagnostic;
  }

  /** Resolve the location with the texts' locators (once; later calls do nothing). */
  locate(locating: Locating): this {
    if (this.at !== undefined) {
      const location = locating.locate(this.at);
      this.at = undefined;
      if (location !== undefined) this.diagnostic = { ...this.diagnostic, location };
    }
    return this;
  }
}

export function fail(tag: DiagnosticTag, location: SourceLocation | Loc | undefined, ...args: (string | number | bigint)[]): never {
  throw new CompileError(makeDiagnostic(tag, location, ...args));
}

/**
 * The lines of one parsed text: its base in the location space and the
 * line markers (`# N "file"`, `#line N`) the lexer met, so that a Loc in
 * it resolves to line, column and file as dtrace counts them.
 */
export class Locator implements Locating {
  /** Markers (offset of the marker line's newline, the line number before it, file) in offset order. */
  private readonly markers: { at: number; line: number; file: string | undefined }[] = [];

  constructor(
    readonly text: string,
    readonly base: Loc,
  ) {}

  /** The text's last Loc (its end of input). */
  get end(): Loc {
    return this.base + this.text.length;
  }

  /** A line marker ending at `at` (its newline): the next line is `line + 1`, in `file` (undefined: the main input; null: unchanged). */
  mark(at: number, line: number, file: string | undefined | null): void {
    const last = this.markers[this.markers.length - 1];
    // The lexer re-reads tokens when it backtracks: a marker is recorded once.
    if (last !== undefined && last.at >= at) return;
    this.markers.push({ at, line, file: file === null ? last?.file : file });
  }

  locate(loc: Loc): SourceLocation | undefined {
    const offset = loc - this.base;
    if (offset < 0 || offset > this.text.length) return undefined;
    let line = 1;
    let from = 0;
    let file: string | undefined;
    for (const m of this.markers) {
      if (m.at > offset) break;
      line = m.line;
      from = m.at;
      file = m.file;
    }
    const t = this.text;
    for (let i = t.indexOf('\n', from); i >= 0 && i < offset; i = t.indexOf('\n', i + 1)) line++;
    const column = offset - (offset === 0 ? 0 : t.lastIndexOf('\n', offset - 1) + 1) + 1;
    return file === undefined ? { line, column, offset } : { line, column, offset, file };
  }
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
