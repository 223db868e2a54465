// @wdtrace/session — see README.md for what this package owns and may depend on.
// Tracing sessions as a library: a target (a booted guest, or none), D
// compiled against its probes, dtrace(1)'s work loop, and the output as
// events carrying dtrace(1)'s exact text and the data behind it.
export { Session, CompileFailure, SessionError, processEnd, signalName, type SessionOptions, type RunOptions, type SessionResult } from './session.js';
export { decodeText, messageEvent, type SessionEvent, type TextEvent, type DropKind } from './events.js';
export { aggregationData, type AggregationData, type AggregationRow, type AggregationKey, type AggregatingFunction } from './aggregations.js';
export { GuestTarget, usesVtimestamp, runningSystem, type GuestOptions } from './guest-target.js';
export { guestExecProblem, guestHasFile } from './guest-command.js';
export { IdleTarget, type IdleOptions } from './idle-target.js';
export { workLoop, nextWakeup, type LoopOptions, type LoopEnd } from './loop.js';
export { TargetCompiler, expandInlineDescription, probeArgTypes } from './compile.js';
export { formatProbeList, formatStatementInfo, matchedProbeCount } from './listing.js';
export { dwarfTypeDictionary, type DwarfDictionaryOptions } from './kernel-types.js';
export type { TracingTarget, TargetStep } from './target.js';
export { liveRows, placedProbes, kernelSymbolizer, type LiveRow } from './live-text.js';
