// Sessions on a booted guest for the tests: what a session prints collected
// by stream, and a whole trace of a command with its output.
import { defaultOptions } from '@wdtrace/dtrace-core';
import type { Isa } from '@wdtrace/kernel';
import { Session, type GuestOptions, type SessionEvent } from '../src/index.js';

/** What a session printed so far: trace output, messages, the final aggregations and the guest's console (as UTF-8). */
export class Collected {
  out = '';
  err = '';
  /** Trace output and messages as they came, interleaved. */
  both = '';
  /** The error and drop messages alone (the consumer's reports, without the session's notices). */
  errorsAndDrops = '';
  printout = '';
  guestOut = '';
  private readonly decoder = new TextDecoder();

  readonly onEvent = (e: SessionEvent): void => {
    if (e.kind === 'console') this.guestOut += this.decoder.decode(e.bytes, { stream: true });
    else if (e.kind === 'output') {
      this.out += e.text;
      this.both += e.text;
    } else if (e.kind === 'aggregations') this.printout += e.printout;
    else if ('stream' in e && e.stream === 'stderr') {
      this.err += e.text;
      this.both += e.text;
      if (e.kind === 'error' || e.kind === 'drop') this.errorsAndDrops += e.text;
    }
  };
}

/** A session on a guest of `options` (cmdline quiet), its output collected. */
export async function guestSession(options: GuestOptions): Promise<{ session: Session; collected: Collected }> {
  const collected = new Collected();
  const session = await Session.create({ guest: options, onEvent: collected.onEvent });
  return { session, collected };
}

/**
 * Boots a guest running `args`, traces it with `script` until it powers off;
 * `out` is the trace output with the messages, then the aggregations.
 */
export async function traceGuest(isa: Isa, script: string, args: string[], options: { quiet?: boolean; thumb?: boolean } = {}) {
  const { session, collected } = await guestSession({ isa, thumb: options.thumb, command: args });
  const program = session.compile(script);
  const run = await session.run(program, options.quiet ? { options: { ...defaultOptions(), quiet: true } } : {});
  return { out: collected.both + collected.printout, guestOut: collected.guestOut, run, session };
}
