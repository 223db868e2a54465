// The messages between the playground page and its worker. Each run has a
// number the page chose; the worker tags everything it sends with it, so
// what a stopped run still sends can be told from the next run's.
import type { Chart } from './chart.js';
import type { LiveFunction, LiveRow } from './live-text.js';
import type { TraceRequest } from './trace.js';

export type ToWorker =
  /** Trace this (a run already going is stopped first). */
  | { readonly kind: 'run'; readonly run: number; readonly request: TraceRequest }
  /** End the run as ^C does: END fires, the buffers drain, the aggregations print. */
  | { readonly kind: 'stop'; readonly run: number }
  /** The live text of one patched function of a run. */
  | { readonly kind: 'live'; readonly run: number; readonly label: string };

export interface OutputChunk {
  readonly stream: 'stdout' | 'stderr';
  /** A byte string (one character per byte), as the session gives dtrace(1)'s text. */
  readonly text: string;
}

export type FromWorker =
  /** What the run is doing before it traces (fetching the guest, booting). */
  | { readonly kind: 'status'; readonly run: number; readonly text: string }
  | { readonly kind: 'output'; readonly run: number; readonly chunks: readonly OutputChunk[] }
  /** Lines of the program the compiler reported errors at. */
  | { readonly kind: 'error-lines'; readonly run: number; readonly lines: readonly number[] }
  /** The kernel functions the program's probes patched. */
  | { readonly kind: 'live-functions'; readonly run: number; readonly functions: readonly LiveFunction[] }
  | { readonly kind: 'live-rows'; readonly run: number; readonly label: string; readonly rows: readonly LiveRow[] | undefined }
  /** The aggregations when tracing ended, drawn. */
  | { readonly kind: 'charts'; readonly run: number; readonly charts: readonly Chart[] }
  /** Tracing has ended with dtrace(1)'s exit status. */
  | { readonly kind: 'done'; readonly run: number; readonly status: number };
