// @wdtrace/dtrace-core/program — the compiled-program format the D compiler
// produces and the framework loads (probe, ECB, action, record, aggregation,
// format and translator descriptions) and the DTRACEACT_* action kinds.
export * from './actions.js';
export * from './program.js';
