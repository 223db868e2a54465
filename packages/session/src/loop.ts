// dtrace(1)'s work loop, once for every target: BEGIN, then virtual time moves
// from one event to the next — the next timer, buffer switch (switchrate) or
// aggregation snapshot (aggrate) — consuming buffers and snapshotting
// aggregations as dtrace_work does in real time, until exit(), a full
// fill-policy buffer, the guest ending, the time limit, the grabbed process
// exiting, or an interrupt; then END, the last buffers. What dtrace(1) prints
// around it (the matched-probes notice, the aggregations) is the session's.
import type { Consumer, DTraceState } from '@wdtrace/dtrace-core';
import type { RunResult } from '@wdtrace/kernel';
import { fireBegin, fireEnd, type ProfileProvider } from '@wdtrace/providers';
import type { TracingTarget } from './target.js';

export interface LoopOptions {
  /** Stop after this much virtual time (ns) from BEGIN even without exit(). */
  readonly timeLimit?: bigint;
  /** $target: the process whose end the target watches (its wait status for the report). */
  readonly target?: number;
  /** Whether tracing should end now (^C): END fires and the buffers drain as after exit(). */
  interrupted(): boolean;
  /**
   * With no timer armed, no time limit and no guest, nothing can fire: the
   * loop ends, unless this is set — then it runs on until interrupted, as
   * dtrace(1) waits for ^C.
   */
  readonly untilInterrupted?: boolean;
  /**
   * Keeps virtual time from running ahead of real time: called before each
   * step with the virtual time about to be reached; resolves true once real
   * time has caught up (it may resolve false early so interrupts are seen).
   */
  readonly pace?: (virtualNs: bigint) => Promise<boolean>;
  /** Lets the host run between steps (to notice an interrupt). */
  readonly yield?: () => Promise<unknown>;
  /** -p: tracing ends when this process has exited (checked at every step). */
  readonly grabbed?: number;
  /** Called once the program is enabled and BEGIN has fired, before the first step. */
  readonly onEnabled?: () => void;
  /**
   * An interactive guest waits for console input: resolves when input came
   * (or the real-time wait for the next timer, `deadlineMs`, is over). Without
   * it a guest waiting for input ends tracing.
   */
  readonly waitForInput?: (deadlineMs: number | undefined) => Promise<void>;
}

export interface LoopEnd {
  /** exit()'s status, or 0 when tracing ended otherwise. */
  readonly status: number;
  /** Virtual time when tracing stopped (ns). */
  readonly stoppedAt: bigint;
  /** DIF instructions the framework executed. */
  readonly instructions: number;
  /** How the guest ended, when it did (poweroff carries the -c program's exit status). */
  readonly guest: RunResult | undefined;
  /** -p: the grabbed process exited. */
  readonly grabbedExited: boolean;
}

/** dtrace_sleep: the virtual time of the next timer, buffer switch (switchrate) or aggregation snapshot (aggrate). */
export function nextWakeup(profile: ProfileProvider, consumer: Consumer, nextSwitch: bigint): bigint {
  const due = profile.nextDue();
  const snap = consumer.nextAggregationSnap();
  let t = due !== undefined && due < nextSwitch ? due : nextSwitch;
  if (snap !== undefined && snap < t) t = snap;
  return t;
}

/** Traces `state` on `target` from BEGIN to END. */
export async function workLoop(target: TracingTarget, state: DTraceState, consumer: Consumer, o: LoopOptions): Promise<LoopEnd> {
  const detach = target.attach(state, o.target);
  let guest: RunResult | undefined;
  let grabbedExited = false;
  try {
    const rate = state.options.switchrate;
    state.go(0, (cpu) => fireBegin(state, cpu));
    o.onEnabled?.();
    consumer.consume(false);
    let nextSwitch = target.now() + rate;
    // --run-for counts from BEGIN: the guest's boot happened before tracing started.
    const limit = o.timeLimit !== undefined ? target.now() + o.timeLimit : undefined;
    let steps = 0;
    while (!(state.activity === 'draining' || state.anyBufferFull() || o.interrupted() || state.panicked !== undefined)) {
      target.beforeStep(state);
      let t = nextWakeup(target.profile, consumer, nextSwitch);
      const limited = limit !== undefined && t >= limit;
      if (limited) t = limit;
      else if (!target.runsByItself && target.profile.nextDue() === undefined && limit === undefined && !o.untilInterrupted) break; // nothing can ever fire
      if (o.pace) {
        while (!o.interrupted() && !(await o.pace(t)));
        if (o.interrupted()) break;
      }
      const step = target.advance(t);
      const now = target.now();
      target.profile.fireDue(state, now);
      // dtrace_work: the aggregation snapshot, then the buffers.
      consumer.snapAggregations();
      if (now >= nextSwitch) {
        consumer.consume(false);
        while (nextSwitch <= now) nextSwitch += rate;
      }
      if (step.kind === 'input' && o.waitForInput) {
        await o.waitForInput(step.deadlineNs !== undefined ? (step.deadlineNs - Number(now)) / 1e6 : undefined);
      } else if (step.kind !== 'running') {
        if (step.kind === 'ended') guest = step.result;
        break;
      }
      if (limited && now >= limit) break;
      if (o.grabbed !== undefined && !target.processAlive(o.grabbed)) {
        grabbedExited = true;
        break;
      }
      if (o.yield && ++steps % target.stepsPerYield === 0) await o.yield();
    }
    // panic() ended the guest in probe context (BEGIN's, or a firing at the step's end).
    if (state.panicked !== undefined && guest === undefined) guest = target.ended?.();
    // dtrace_work once tracing has stopped: the aggregation snapshot is taken
    // regardless of aggrate, so a printa() of the last firings sees their data.
    consumer.snapAggregations(true);
    consumer.consume(false);
    // END fires in the kernel: a kernel that panic() brought down fires nothing more.
    if (state.panicked === undefined) state.stop(0, (cpu) => fireEnd(state, cpu));
    else state.stop(0);
    consumer.consume(true);
  } finally {
    // On any way out, the probes come out of the text (stop() does nothing the second time).
    state.stop(0);
    detach();
  }
  return { status: state.exitStatus ?? 0, stoppedAt: target.now(), instructions: state.instructions, guest, grabbedExited };
}
