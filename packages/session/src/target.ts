// What a tracing session traces: a machine with its probes. Two kinds exist —
// a booted guest (guest-target.ts) and no guest at all (idle-target.ts, for
// BEGIN/END/profile programs) — and the one work loop (loop.ts) drives
// either through this interface.
import type { DTraceState, MachineInterface, ProbeRegistry } from '@wdtrace/dtrace-core';
import type { RunResult } from '@wdtrace/kernel';
import type { ProfileProvider } from '@wdtrace/providers';

/** How a step of virtual time ended. */
export type TargetStep =
  /** Time reached the step's end; tracing goes on. */
  | { readonly kind: 'running' }
  /** The guest waits for console input (interactive); `deadlineNs` is the next timer. */
  | { readonly kind: 'input'; readonly deadlineNs?: number }
  /** The guest is over (powered off, panicked, idle for good, a CPU cannot go on). */
  | { readonly kind: 'ended'; readonly result: RunResult };

export interface TracingTarget {
  /** The probes programs are compiled against and enabled on. */
  readonly registry: ProbeRegistry;
  /** The timers (profile-N, tick-N) the loop wakes up for. */
  readonly profile: ProfileProvider;
  /** The framework's view of the machine: CPUs, clock, NOFAULT loads, threads, stacks, symbols. */
  readonly view: MachineInterface;
  /** D's data model of programs for this target. */
  readonly dataModel: 'LP64' | 'ILP32';
  /** Whether virtual time moves on by itself (a running guest) or only from timer to timer. */
  readonly runsByItself: boolean;
  /** Steps between two yields to the host (a guest step may be long; idle steps are short). */
  readonly stepsPerYield: number;
  /** Virtual time now (ns since power-on). */
  now(): bigint;
  /** Lets the target's probes fire into `state` while it traces, watching process `target`'s end; returns what undoes it. */
  attach(state: DTraceState, target?: number): () => void;
  /** Before each step: probes of code that appeared since the last one (modules loaded while tracing) are enabled. */
  beforeStep(state: DTraceState): void;
  /** Moves virtual time to `t`: runs the guest there, or advances the idle clock. */
  advance(t: bigint): TargetStep;
  /** How the guest ended, once it has (a panic() in probe context ends it between steps). */
  ended?(): RunResult | undefined;
  /** Whether guest process `pid` is alive (-p's grab); a target without processes has none. */
  processAlive(pid: number): boolean;
}
