// A session with no guest: the dtrace and profile providers on an idle
// machine whose virtual clock moves only from timer to timer. BEGIN, END,
// ERROR and profile/tick programs run here exactly as dtrace(1) runs them
// on a quiet system.
import { IdleMachine, ProbeRegistry } from '@wdtrace/dtrace-core';
import { ProfileProvider, createDtraceProvider } from '@wdtrace/providers';
import type { TargetStep, TracingTarget } from './target.js';

export interface IdleOptions {
  /** CPUs of the idle machine (default 1). */
  readonly ncpus?: number;
  /** Wall-clock time at virtual time 0 (ns since the epoch), for walltimestamp. */
  readonly walltime?: bigint;
}

const RUNNING: TargetStep = { kind: 'running' };

export class IdleTarget implements TracingTarget {
  readonly registry = new ProbeRegistry();
  readonly profile: ProfileProvider;
  readonly view: IdleMachine;
  readonly dataModel = 'LP64';
  readonly runsByItself = false;
  readonly stepsPerYield = 256;

  constructor(options: IdleOptions = {}) {
    this.view = new IdleMachine(options.ncpus ?? 1, options.walltime ?? 0n);
    // dtrace first (probe IDs 1-3), then profile.
    this.registry.registerProvider(createDtraceProvider());
    this.profile = new ProfileProvider(
      () => this.view.now(),
      () => this.view.profilePcs(),
    );
    this.registry.registerProvider(this.profile.definition);
  }

  now(): bigint {
    return this.view.now();
  }

  attach(): () => void {
    return () => {};
  }

  beforeStep(): void {}

  advance(t: bigint): TargetStep {
    this.view.advanceTo(t);
    return RUNNING;
  }

  processAlive(): boolean {
    return false;
  }
}
