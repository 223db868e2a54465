// What every provider shares: where probes fire (the framework's
// dtrace_probe()) and how a firing's arguments travel there, the error a
// provider raises for a request it cannot satisfy, and the stability
// attributes of the providers named after the kernel's own functions.

import type { ProbeArgumentSource, ProbeFilterFunction } from '@wdtrace/dtrace-core';

/**
 * Where probes fire: dtrace-core's DTraceState satisfies this (dtrace_probe()).
 * A firing passes the arguments it has as values in `args` and the others
 * through `rest`, which reads them only if a clause asks (FunctionArguments).
 * Neither may be kept past the call: providers reuse both for the next
 * firing on the CPU.
 */
export interface ProbeSink {
  probe(probeId: number, cpu: number, args: readonly bigint[], rest?: ProbeArgumentSource): void;
  /**
   * The probe's filter now (DTraceState.probeFilter): a function of the
   * CPU and arguments 0..3 that answers 0 when a firing with them would do
   * nothing; undefined when the probe has none.
   */
  probeFilter?(probeId: number): ProbeFilterFunction | undefined;
}

/** The argument array of a firing whose arguments all come from its source (or that has none). */
export const NO_ARGS: readonly bigint[] = Object.freeze([]);

/** Error for a probe request the provider cannot satisfy; says what and where. */
export class ProviderError extends Error {
  constructor(
    provider: string,
    message: string,
    /** The D compiler's diagnostic for it, when there is one (D_* tag and its template's arguments). */
    readonly diagnostic?: { readonly tag: string; readonly args: readonly string[] },
  ) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderError';
  }
}

/** Stability of the providers whose functions are the kernel's (fbt, syscall: illumos's attributes for both). */
export const KERNEL_FUNCTION_ATTRIBUTES = {
  provider: 'Evolving/Evolving/Common',
  module: 'Private/Private/Unknown',
  function: 'Private/Private/ISA',
  name: 'Evolving/Evolving/Common',
  args: 'Private/Private/ISA',
} as const;
