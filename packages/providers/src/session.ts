// A tracing session on a machine with no guest: registers the dtrace and
// profile providers, loads a compiled program, fires BEGIN, then advances
// the virtual clock from timer to timer — consuming buffers every
// switchrate and snapshotting aggregations every aggrate, as dtrace(1)'s
// loop does in real time — until exit(), a full
// fill-policy buffer, the time limit, or an interrupt; then fires END,
// drains the buffers and prints the aggregations. What dtrace(1) prints
// around it (the matched-probes notice, the final newline) is the caller's.
import {
  Consumer,
  DTraceState,
  IdleMachine,
  ProbeRegistry,
  defaultOptions,
  type CompiledProgram,
  type ConsumerOutput,
  type DTraceOptions,
  type JsonRecord,
} from '@wdtrace/dtrace-core';
import { createDtraceProvider, fireBegin, fireEnd } from './dtrace/provider.js';
import { ProfileProvider } from './profile/provider.js';

/** The registry every session starts from: dtrace first (IDs 1-3), then profile. */
export function createIdleRegistry(machine: IdleMachine): { registry: ProbeRegistry; profile: ProfileProvider } {
  const registry = new ProbeRegistry();
  registry.registerProvider(createDtraceProvider());
  const profile = new ProfileProvider(() => machine.now());
  registry.registerProvider(profile.definition);
  return { registry, profile };
}

/** dtrace_sleep: the virtual time of the next timer, buffer switch (switchrate) or aggregation snapshot (aggrate). */
export function nextWakeup(profile: ProfileProvider, consumer: Consumer, nextSwitch: bigint): bigint {
  const due = profile.nextDue();
  const snap = consumer.nextAggregationSnap();
  let t = due !== undefined && due < nextSwitch ? due : nextSwitch;
  if (snap !== undefined && snap < t) t = snap;
  return t;
}

export interface IdleSessionOptions {
  readonly ncpus?: number;
  readonly options?: DTraceOptions;
  /** Stop after this much virtual time (ns) even without exit(). */
  readonly timeLimit?: bigint;
  readonly json?: (r: JsonRecord) => void;
  /** Wall-clock time at virtual time 0 (ns since the epoch), for walltimestamp. */
  readonly bootWalltime?: bigint;
  /**
   * Keeps virtual time from running ahead of real time: called before each
   * step with the virtual time about to be reached; resolves true once real
   * time has caught up (it may resolve false early so interrupts are seen).
   */
  readonly pace?: (virtualNs: bigint) => Promise<boolean>;
  /** An existing machine and registry (e.g. the one the compiler matched probes against). */
  readonly machine?: IdleMachine;
  readonly registry?: { registry: ProbeRegistry; profile: ProfileProvider };
}

export interface SessionResult {
  /** exit()'s status, or 0 when tracing ended otherwise. */
  readonly status: number;
  /** Virtual time when tracing stopped (ns). */
  readonly stoppedAt: bigint;
  readonly instructions: number;
}

export class IdleSession {
  readonly machine: IdleMachine;
  readonly registry: ProbeRegistry;
  readonly profile: ProfileProvider;
  readonly state: DTraceState;
  readonly consumer: Consumer;
  private interrupted = false;

  constructor(program: CompiledProgram, output: ConsumerOutput, private readonly opts: IdleSessionOptions = {}) {
    this.machine = opts.machine ?? new IdleMachine(opts.ncpus ?? 1, opts.bootWalltime ?? 0n);
    const { registry, profile } = opts.registry ?? createIdleRegistry(this.machine);
    this.registry = registry;
    this.profile = profile;
    this.state = new DTraceState(program, registry, this.machine, opts.options ?? defaultOptions());
    this.consumer = new Consumer(this.state, output);
    this.consumer.json = opts.json;
  }

  /** Asks the session to stop at the next opportunity (SIGINT). */
  interrupt(): void {
    this.interrupted = true;
  }

  private finished(): boolean {
    return this.interrupted || this.state.activity === 'draining' || this.state.anyBufferFull();
  }

  /** Runs to completion; `yieldEvery` firings it awaits `pause` (lets a CLI notice ^C). */
  async run(pause?: () => Promise<void>): Promise<SessionResult> {
    const state = this.state;
    const rate = state.options.switchrate;
    state.go(0, (cpu) => fireBegin(state, cpu));
    this.consumer.consume(false);
    let nextSwitch = this.machine.now() + rate;
    let steps = 0;
    while (!this.finished()) {
      const t = nextWakeup(this.profile, this.consumer, nextSwitch);
      const due = this.profile.nextDue();
      if (this.opts.timeLimit !== undefined && t > this.opts.timeLimit) {
        this.machine.advanceTo(this.opts.timeLimit);
        break;
      }
      if (due === undefined && this.opts.timeLimit === undefined && !pause) break; // nothing can ever fire
      if (this.opts.pace) {
        while (!this.interrupted && !(await this.opts.pace(t)));
        if (this.interrupted) break;
      }
      this.machine.advanceTo(t);
      this.profile.fireDue(state, t);
      // dtrace_work: the aggregation snapshot, then the buffers.
      this.consumer.snapAggregations();
      if (t >= nextSwitch) {
        this.consumer.consume(false);
        nextSwitch += rate;
      }
      if (pause && ++steps % 256 === 0) await pause();
    }
    this.consumer.consume(false);
    state.stop(0, (cpu) => fireEnd(state, cpu));
    this.consumer.consume(true);
    return { status: state.exitStatus ?? 0, stoppedAt: this.machine.now(), instructions: state.instructions };
  }
}
