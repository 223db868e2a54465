// The run-time and consumer options the command line sets: -x name[=value]
// in order, then -q, -F, -w, -Z and -b, each failing as dtrace(1) reports a
// bad one ("failed to set -x name: reason").
import { OptionError, defaultOptions, setOption, type DTraceOptions } from '@wdtrace/dtrace-core';

/** The command line's option flags. */
export interface OptionFlags {
  readonly x: readonly string[];
  readonly q?: boolean;
  readonly F?: boolean;
  readonly w?: boolean;
  readonly Z?: boolean;
  readonly b?: string;
}

/** The -x options that set up the preprocessor (preprocessorFlags) rather than the compiler or the framework. */
const PREPROCESSOR_OPTIONS = new Set(['cpp', 'define', 'undef', 'incdir', 'stdc']);

/** -x options as given for the compiler: name -> value (null for a boolean one), less the preprocessor's. */
export function xOptions(x: readonly string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [name, value] of x.map(splitOption)) if (!PREPROCESSOR_OPTIONS.has(name)) out[name] = value;
  return out;
}

function splitOption(x: string): [string, string | null] {
  const eq = x.indexOf('=');
  return eq < 0 ? [x, null] : [x.slice(0, eq), x.slice(eq + 1)];
}

/** Sets an option given on the command line; a bad one fails as dtrace(1) reports it. */
function cliOption(options: DTraceOptions, name: string, value: string | null, what: string): void {
  try {
    setOption(options, name, value);
  } catch (e) {
    if (!(e instanceof OptionError)) throw e;
    throw new OptionError(`failed to set ${what}: ${e.message.replace(/^.*: /, '')}`);
  }
}

/** The preprocessor's setup from the command line: -C, -D, -U and -I, and the -x options that set the same (cpp, define, undef, incdir, stdc). */
export interface PreprocessorFlags {
  readonly cpp: boolean;
  readonly defines: readonly string[];
  readonly undefines: readonly string[];
  readonly includePaths: readonly string[];
}

/**
 * dt_options.c's preprocessor options: -x cpp is -C, -x define/undef/incdir
 * add -D/-U/-I arguments after those of the flags, and -x stdc picks how
 * __STDC__ is defined (dt_preproc: 0 in the a and t modes, 1 in c, not at all
 * in s; a when not given).
 */
export function preprocessorFlags(f: PreprocessorFlags, x: readonly string[]): PreprocessorFlags {
  let cpp = f.cpp;
  const defines = [...f.defines];
  const undefines = [...f.undefines];
  const includePaths = [...f.includePaths];
  let stdc = 'a';
  for (const [name, value] of x.map(splitOption)) {
    if (name === 'cpp') cpp = true;
    else if (value === null) continue;
    else if (name === 'define') defines.push(value);
    else if (name === 'undef') undefines.push(value);
    else if (name === 'incdir') includePaths.push(value);
    else if (name === 'stdc') {
      if (!['a', 'c', 's', 't'].includes(value)) throw new OptionError(`failed to set -x stdc: Invalid value for specified option`);
      stdc = value;
    }
  }
  if (stdc !== 's') defines.unshift(`__STDC__=${stdc === 'c' ? 1 : 0}`);
  return { cpp, defines, undefines, includePaths };
}

export function dtraceOptions(f: OptionFlags): DTraceOptions {
  const options = defaultOptions();
  // dtrace(1): dfatal("failed to set -x %s", name) and the library's reason.
  for (const [name, value] of f.x.map(splitOption)) cliOption(options, name, value, `-x ${name}`);
  if (f.q) options.quiet = true;
  if (f.F) options.flowindent = true;
  if (f.w) options.destructive = true;
  if (f.Z) options.zdefs = true;
  if (f.b !== undefined) cliOption(options, 'bufsize', String(f.b), `-b ${String(f.b)}`);
  return options;
}
