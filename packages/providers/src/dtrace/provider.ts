// The dtrace provider: BEGIN, END and ERROR, created first so they get probe
// IDs 1, 2 and 3 as in illumos. BEGIN fires when tracing starts (dtrace_go),
// END when it stops (dtrace_stop), ERROR from the framework on a fault.
import type { DTraceState, ProbeRegistry, ProviderDefinition } from '@wdtrace/dtrace-core';
import { NO_ARGS } from '../provider.js';

const STABLE = 'Stable/Stable/Common';

export const DTRACE_PROVIDER_NAME = 'dtrace';

export function createDtraceProvider(): ProviderDefinition {
  return {
    name: DTRACE_PROVIDER_NAME,
    attributes: { provider: STABLE, module: 'Private/Private/Unknown', function: 'Private/Private/Unknown', name: STABLE, args: STABLE },
    ops: {
      provide(registry: ProbeRegistry): void {
        for (const name of ['BEGIN', 'END', 'ERROR']) registry.createProbe(DTRACE_PROVIDER_NAME, '', '', name);
      },
      // The framework fires these itself; nothing to patch.
      enable(): void {},
      disable(): void {},
    },
  };
}

/** Fires dtrace:::BEGIN on `cpu` (pass to DTraceState.go). */
export function fireBegin(state: DTraceState, cpu: number): void {
  const p = state.registry.lookup(DTRACE_PROVIDER_NAME, '', '', 'BEGIN');
  if (p) state.probe(p.id, cpu, NO_ARGS);
}

/** Fires dtrace:::END on `cpu` (pass to DTraceState.stop). */
export function fireEnd(state: DTraceState, cpu: number): void {
  const p = state.registry.lookup(DTRACE_PROVIDER_NAME, '', '', 'END');
  if (p) state.probe(p.id, cpu, NO_ARGS);
}
