// What a clause can read of a firing's arguments (arg0..arg9), read while
// the firing lasts: the providers pass most arguments through a source that
// is read on demand and reused by the next firing, so a test that keeps
// them copies their values out during the firing.
import { probeArgument, type ProbeArgumentSource } from '@wdtrace/dtrace-core';

/** arg0..arg9 of the firing in progress; none when it passes neither values nor a source (kinst). */
export function firingArgs(args: readonly bigint[], rest: ProbeArgumentSource | undefined): bigint[] {
  if (rest === undefined) return [...args];
  return Array.from({ length: 10 }, (_, i) => probeArgument(args, rest, i));
}
