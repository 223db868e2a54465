// Tracing from the command line: the compiled program run by the session
// until it ends — exit(), the -c command or the grabbed process exiting, the
// --run-for limit, or ^C (SIGINT ends tracing as dtrace(1)'s handler does:
// END fires and the buffers drain). Without a guest and without --run-for
// the idle machine's clock follows the real one, as dtrace(1) waits in real
// time until ^C.
import type { CompiledProgram, DTraceOptions } from '@wdtrace/dtrace-core';
import type { Session } from '@wdtrace/session';
import { attachTerminal } from './guest.js';
import type { TraceOutput } from './output.js';

/** Resolves true once real time since `startedAt` reaches virtual time `t`; waits at most 100 ms at a time. */
function paceTo(startedAt: number, t: bigint): Promise<boolean> {
  const wait = Number(t / 1_000_000n) - (Date.now() - startedAt);
  if (wait <= 0) return Promise.resolve(true);
  return new Promise((r) => setTimeout(() => r(wait <= 100), Math.min(wait, 100)));
}

export interface TraceRequest {
  readonly options: DTraceOptions;
  /** --run-for, in virtual ns. */
  readonly timeLimit?: bigint;
  /** --json: records are wanted. */
  readonly json: boolean;
  /** -p: the terminal feeds the guest's shell while tracing. */
  readonly terminal: boolean;
}

/** Traces `program`; returns the exit status (exit()'s, or 0). */
export async function trace(session: Session, program: CompiledProgram, r: TraceRequest, out: TraceOutput): Promise<number> {
  const startedAt = Date.now();
  const onInt = (): void => session.interrupt();
  process.on('SIGINT', onInt);
  const detach = r.terminal ? attachTerminal(session, process.stdin) : undefined;
  try {
    const result = await session.run(program, {
      options: r.options,
      timeLimit: r.timeLimit,
      records: r.json,
      actions: out.actions,
      yield: () => new Promise((resolve) => setImmediate(resolve)),
      untilInterrupted: true,
      pace: session.guest === undefined && r.timeLimit === undefined ? (t) => paceTo(startedAt, t) : undefined,
    });
    return result.status;
  } finally {
    process.off('SIGINT', onInt);
    detach?.();
  }
}
