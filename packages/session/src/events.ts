// A session's output as a stream of events. Every event that dtrace(1) would
// print carries its exact text and the stream it goes to, so writing `text`
// to `stream` in order reproduces dtrace(1)'s output byte for byte; the same
// events carry the data behind the text (drops, errors, aggregations), and
// `record` events give each firing's output structured, as --json prints it.
//
// Texts are byte strings, as D strings are bytes: one character per byte
// (write them as latin1); `decodeText` reads one as UTF-8.
import type { JsonRecord } from '@wdtrace/dtrace-core';
import { byteStringText } from '@wdtrace/dtrace-core/dif';
import type { AggregationData } from './aggregations.js';

/** Which buffer or count a drop message reports (dtrace(1)'s drop tags). */
export type DropKind = 'principal' | 'aggregation' | 'dynamic' | 'speculative' | 'speculation-busy' | 'speculation-unavailable' | 'error-enabling';

export type SessionEvent =
  /** Trace output: what the program's actions print, as the buffers are consumed. */
  | { readonly kind: 'output'; readonly stream: 'stdout'; readonly text: string }
  /** The guest's console output (the traced command's standard output and error). */
  | { readonly kind: 'console'; readonly stream: 'stdout'; readonly text: string; readonly bytes: Uint8Array }
  /** Data dropped: dtrace(1)'s drop message and what it counts. */
  | { readonly kind: 'drop'; readonly stream: 'stderr'; readonly text: string; readonly drop: DropKind; readonly count: number; readonly cpu?: number }
  /** A fault in probe context (or a library action that failed), reported against the enabled probe. */
  | { readonly kind: 'error'; readonly stream: 'stderr'; readonly text: string; readonly epid: number; readonly probeId: number; readonly probe: string; readonly message: string }
  /** Any other message of dtrace(1) on standard error ("dtrace: pid 2 has exited", a guest panic). */
  | { readonly kind: 'message'; readonly stream: 'stderr'; readonly text: string }
  /** The aggregations printed when tracing ends: the text (a newline, then every aggregation printa() did not print) and the data. */
  | { readonly kind: 'aggregations'; readonly stream: 'stdout'; readonly text: string; readonly printout: string; readonly aggregations: readonly AggregationData[] }
  /** One firing that recorded data, as --json prints it (no text of its own: its output came as an `output` event). */
  | { readonly kind: 'record'; readonly record: JsonRecord };

/** Events that dtrace(1) prints. */
export type TextEvent = Extract<SessionEvent, { readonly text: string }>;

/** A byte string (one character per byte) read as UTF-8 text. */
export function decodeText(byteString: string): string {
  return byteStringText(byteString);
}

const DROPS: readonly [RegExp, DropKind][] = [
  [/^aggregation drops?$/, 'aggregation'],
  [/^drops?$/, 'principal'],
  [/^dynamic variable drops?$/, 'dynamic'],
  [/^speculative drops?$/, 'speculative'],
  [/^failed speculations? \(available buffer\(s\) still busy\)$/, 'speculation-busy'],
  [/^failed speculations? \(no speculative buffer available\)$/, 'speculation-unavailable'],
  [/^errors? in ERROR probe enabling$/, 'error-enabling'],
];

/**
 * An event for a message the consumer wrote to standard error: its drop
 * reports (dt_handle_drop, with or without drop tags) and its errors on an
 * enabled probe (dt_handle_err, dt_handle_liberr) carry their data; anything
 * else is a plain message.
 */
export function messageEvent(text: string): SessionEvent {
  const drop = /^dtrace: (?:\[DTRACEDROP_\w+\] )?(\d+) (.*?)(?: on CPU (\d+))?\n$/.exec(text);
  if (drop) {
    const kind = DROPS.find(([re]) => re.test(drop[2]!))?.[1];
    if (kind) return { kind: 'drop', stream: 'stderr', text, drop: kind, count: Number(drop[1]), ...(drop[3] !== undefined ? { cpu: Number(drop[3]) } : {}) };
  }
  const error = /^dtrace: error on enabled probe ID (\d+) \(ID (\d+): ([^)]*)\): ([\s\S]*?)\n?$/.exec(text);
  if (error) return { kind: 'error', stream: 'stderr', text, epid: Number(error[1]), probeId: Number(error[2]), probe: error[3]!, message: error[4]! };
  return { kind: 'message', stream: 'stderr', text };
}
