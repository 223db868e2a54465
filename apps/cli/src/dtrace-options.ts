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

/** -x options as given: name -> value (null for a boolean one). */
export function xOptions(x: readonly string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [name, value] of x.map(splitOption)) out[name] = value;
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
