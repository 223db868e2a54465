// Compiling the command line's probe specifications, as dtrace(1)'s
// exec_prog does: each -n/-P/-m/-f/-i/-s on its own — for its messages, its
// "matched N probes" notice and, under -v, its stability report — then all of
// them together as one program, since they share one dtrace handle's
// variables and aggregations: a specification that uses what an earlier one
// declared (`-n 'int done;' -n 'tick-1s /!done/ ...'`) is compiled after the
// earlier ones, as the handle has seen them. -d prints the program after the sugar pass
// instead; -S and -H print the DIF and the included files to stderr. Files
// (-s scripts, #include) are read here, byte for byte.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join as joinPath, resolve as resolvePath } from 'node:path';
import { dumpSugared, formatDiagnostics, listDif, type CompileOptions, type CompileResult, type DLibrary } from '@wdtrace/d-lang';
import { LoadError, buildProgram, formatStabilityReport, programAttributes, setOption, type CompiledProgram, type DTraceOptions } from '@wdtrace/dtrace-core';
import { formatStatementInfo, matchedProbeCount, type Session } from '@wdtrace/session';
import { bareDescriptions, reportedName, specDescription, type ProbeSpec } from './command.js';
import { fsPath, strerror, type CliIo } from './output.js';

/** A file's bytes as a byte string. */
export function readBytesText(path: string): string {
  return readFileSync(fsPath(path)).toString('latin1');
}

/** What dtrace(1) prints for one specification before tracing: the matched-probes notice, and under -v the stability report (and under -ev each statement's). */
export interface SpecNotice {
  readonly notice: string;
  readonly report?: string;
  readonly statements?: string;
}

export interface CompiledSpecs {
  readonly program: CompiledProgram;
  readonly notices: readonly SpecNotice[];
}

/** What the command line says about compiling. */
export interface CompileFlags {
  readonly macroArgs: readonly string[];
  /** -x options as given (name -> value, null for boolean ones). */
  readonly xOptions: Readonly<Record<string, string | null>>;
  readonly zdefs: boolean;
  readonly cpp: boolean;
  readonly defines: readonly string[];
  readonly undefines: readonly string[];
  readonly includePaths: readonly string[];
  readonly listIncludes: boolean;
  /** The D library directories of -L and -x libdir, in the order given. */
  readonly libraryDirs: readonly string[];
  readonly verbose: boolean;
  readonly dif: boolean;
  readonly sugar: boolean;
  readonly exitAfterMatch: boolean;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** -L's directories and -x libdir's, in the order given (dt_opt_libdir appends each). */
export function libraryDirs(l: readonly string[], x: readonly string[]): string[] {
  const dirs = [...l];
  for (const o of x) if (o.startsWith('libdir=')) dirs.push(o.slice('libdir='.length));
  return dirs;
}

/**
 * The D libraries of the library directories, as dt_load_libs_dir reads
 * them: every file named *.d of each directory in turn (a directory that
 * cannot be read is skipped silently), a file whose name an earlier library
 * already has being left out. dtrace's own libraries come first (the
 * compiler loads them, and the session the guest's), so a directory cannot
 * replace errno.d; `-x nolibs` loads none.
 */
export function readLibraryDirs(dirs: readonly string[]): DLibrary[] {
  const libraries: DLibrary[] = [];
  const seen = new Set<string>();
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(fsPath(dir), { encoding: 'buffer' }).map((n) => n.toString('latin1'));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.d')).sort()) {
      if (seen.has(name)) continue;
      const path = joinPath(dir, name);
      let text: string;
      try {
        text = readBytesText(path);
      } catch {
        continue;
      }
      seen.add(name);
      libraries.push({ name: path, text });
    }
  }
  return libraries;
}

/** The command line's compile options (the session adds the target's): macros, -x, -Z, the preprocessor reading files from here. */
export function baseOptions(f: CompileFlags): CompileOptions {
  return {
    macroArgs: f.macroArgs,
    macroVariables: { pid: process.pid, ppid: process.ppid, uid: 0, gid: 0 },
    options: f.xOptions,
    zdefs: f.zdefs,
    cpp: f.cpp,
    defines: f.defines,
    undefines: f.undefines,
    includePaths: f.includePaths,
    listIncludes: f.listIncludes,
    ...(f.libraryDirs.length > 0 && f.xOptions.nolibs === undefined ? { libraries: readLibraryDirs(f.libraryDirs) } : {}),
    includeResolver: (path, fromFile, system) => {
      const dirs = [...(system ? [] : [fromFile ? dirname(fromFile) : '.']), ...f.includePaths];
      for (const dir of path.startsWith('/') ? [''] : dirs) {
        const full = path.startsWith('/') ? path : resolvePath(dir, path);
        if (existsSync(fsPath(full))) return { path: full, text: readBytesText(full) };
      }
      return undefined;
    },
  };
}

/** One specification's source and where it came from; undefined for an -i that matches nothing under -Z (its notice is pushed). */
function specSource(session: Session, spec: ProbeSpec, f: CompileFlags, notices: SpecNotice[]): { source: string; origin: NonNullable<CompileOptions['origin']> } | undefined {
  if (spec.flag === 's') {
    let text: string;
    try {
      text = readBytesText(spec.text);
    } catch (e) {
      throw new LoadError(`failed to open ${spec.text}: ${strerror(e)}`);
    }
    // A #! line is the kernel's, not D's: keep the line count, drop the text.
    if (text.startsWith('#!')) text = text.slice(text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length);
    return { source: text, origin: { kind: 'script', name: spec.text } };
  }
  let text = spec.text;
  if (spec.flag === 'i') {
    const probe = session.registry.probe(Number(text));
    if (!probe && !f.zdefs) throw new LoadError(`invalid probe specifier ${spec.text}: probe description ${spec.text} does not match any probes`);
    if (!probe) {
      notices.push({ notice: `dtrace: description '${reportedName(spec)}' matched 0 probes\n` });
      return undefined;
    }
    text = `${probe.provider}:${probe.module}:${probe.function}:${probe.name}`;
  } else if (spec.flag !== 'n') {
    text = specDescription(spec);
  }
  return { source: text, origin: { kind: 'probe', text: spec.text } };
}

/**
 * Compiles every specification; returns the program and the notices, or an
 * exit status when compiling is all there is to do (-d) or failed (the
 * diagnostics are printed).
 */
export function compileSpecs(session: Session, specs: readonly ProbeSpec[], f: CompileFlags, options: DTraceOptions, io: CliIo): CompiledSpecs | number {
  const base = baseOptions(f);
  const registry = session.registry;
  const sources: string[] = [];
  const notices: SpecNotice[] = [];
  let single: CompileResult | undefined;
  /** ECBs and DIFOs of the specifications compiled so far (what an earlier-first compile starts with). */
  let ecbsBefore = 0;
  let listingsBefore = 0;
  let includesBefore = 0;
  /** Warnings printed (an earlier specification's come again when a later one is compiled after it). */
  const warned = new Set<string>();
  for (const spec of specs) {
    const s = specSource(session, spec, f, notices);
    if (!s) continue;
    const opts: CompileOptions = { ...base, origin: s.origin };
    if (f.sugar) {
      const d = dumpSugared(s.source, session.compileOptions(opts));
      if (d.text === undefined) {
        io.err(formatDiagnostics({ diagnostics: d.diagnostics }, opts) + '\n');
        return 1;
      }
      io.out(d.text);
      continue;
    }
    // The handle has seen the earlier specifications (their variables, types and declarations):
    // this one is compiled after them, its lines numbered from 1 again, and what is its own kept.
    const result = session.compileResult(sources.length === 0 ? s.source : `${sources.join('\n')}\n#line 1\n${s.source}`, opts);
    const own = { ecbs: ecbsBefore, listings: listingsBefore, includes: includesBefore };
    const warnings = result.diagnostics.filter((x) => x.severity === 'warning' && !warned.has(formatDiagnostics({ diagnostics: [x] }, opts)));
    for (const w of warnings) warned.add(formatDiagnostics({ diagnostics: [w] }, opts));
    if (warnings.length > 0) io.err(formatDiagnostics({ diagnostics: warnings }, { ...opts, errtags: options.errtags }) + '\n');
    if (!result.program) {
      io.err(formatDiagnostics({ diagnostics: result.diagnostics.filter((x) => x.severity === 'error') }, { ...opts, errtags: options.errtags }) + '\n');
      return 1;
    }
    if (f.listIncludes) for (const inc of result.context.includes.slice(own.includes)) io.err(`${inc}\n`);
    const program = { ...result.program, ecbs: result.program.ecbs.slice(own.ecbs) };
    ecbsBefore = result.program.ecbs.length;
    listingsBefore = result.context.listings.length;
    includesBefore = result.context.includes.length;
    if (f.dif) io.err(listDif({ context: { listings: result.context.listings.slice(own.listings) } }));
    const matched = matchedProbeCount(program, registry);
    const kind = spec.flag === 's' ? 'script' : 'description';
    const report = f.verbose ? formatStabilityReport(kind, reportedName(spec), programAttributes(program, registry)) : undefined;
    notices.push({
      notice: `dtrace: ${kind} '${reportedName(spec)}' matched ${plural(matched, 'probe')}\n`,
      // dtrace -v: the program's minimum attributes (dtrace_program_info), then a blank line.
      ...(report !== undefined ? (f.exitAfterMatch ? { report, statements: formatStatementInfo(program, registry) } : { report: report + '\n' }) : {}),
    });
    for (const opt of result.program.options) setOption(options, opt.name, opt.value);
    single = result;
    sources.push(bareDescriptions(s.source) ? `${s.source}\n{}\n` : s.source);
  }
  if (f.sugar) return 0;
  if (sources.length <= 1) return { program: single?.program ?? buildProgram([]), notices };
  const opts: CompileOptions = { ...base, origin: { kind: 'text' } };
  const all = session.compileResult(sources.join('\n'), opts);
  if (!all.program) {
    io.err(formatDiagnostics({ diagnostics: all.diagnostics.filter((x) => x.severity === 'error') }, opts) + '\n');
    return 1;
  }
  return { program: all.program, notices };
}
