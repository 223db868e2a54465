// Tracing from the command line: the compiled program run by the session
// until it ends — exit(), the -c command or the grabbed process exiting, the
// --run-for limit, or ^C or SIGTERM (both end tracing as dtrace(1)'s handler
// does: END fires, the buffers drain and the aggregations print). Without
// --run-for, on the idle machine or a running guest (no -c), virtual time is
// kept from running ahead of real time, as dtrace(1) waits in real time
// until ^C: tick-1s fires once a second.
import type { CompiledProgram, DTraceOptions } from '@wdtrace/dtrace-core';
import type { Session } from '@wdtrace/session';
import { attachTerminal } from './guest.js';
import type { TraceOutput } from './output.js';

/** Resolves true once real time since `startedAt` reaches virtual time `t` since `base`; waits at most 100 ms at a time. */
function paceTo(startedAt: number, base: bigint, t: bigint): Promise<boolean> {
  const wait = Number((t - base) / 1_000_000n) - (Date.now() - startedAt);
  if (wait <= 0) return Promise.resolve(true);
  return new Promise((r) => setTimeout(() => r(wait <= 100), Math.min(wait, 100)));
}

export interface TraceRequest {
  readonly options: DTraceOptions;
  /** --run-for, in virtual ns. */
  readonly timeLimit?: bigint;
  /** --json: records are wanted. */
  readonly json: boolean;
  /** -c: the standard input that feeds the command (the guest's console input) while tracing. */
  readonly input?: NodeJS.ReadableStream;
}

/** Traces `program`; returns the exit status (exit()'s, or 0). */
export async function trace(session: Session, program: CompiledProgram, r: TraceRequest, out: TraceOutput): Promise<number> {
  const onInt = (): void => session.interrupt();
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onInt);
  const detach = r.input !== undefined ? attachTerminal(session, r.input) : undefined;
  // The guest's kernel comes up first: tracing (and real time's pacing) starts on the running system.
  session.guest?.start();
  const startedAt = Date.now();
  const base = session.target.now();
  const paced = r.timeLimit === undefined && !(session.guest?.interactive ?? false);
  try {
    const result = await session.run(program, {
      options: r.options,
      timeLimit: r.timeLimit,
      records: r.json,
      actions: out.actions,
      yield: () => new Promise((resolve) => setImmediate(resolve)),
      untilInterrupted: true,
      pace: paced ? (t) => paceTo(startedAt, base, t) : undefined,
    });
    return result.status;
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onInt);
    detach?.();
  }
}
