// What every provider shares: where probes fire (the framework's
// dtrace_probe()), the error a provider raises for a request it cannot
// satisfy, and the stability attributes of the providers named after the
// kernel's own functions.

/** Where probes fire: dtrace-core's DTraceState satisfies this (dtrace_probe()). */
export interface ProbeSink {
  probe(probeId: number, cpu: number, args: readonly bigint[]): void;
}

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
