// @wdtrace/dtrace-core/program — the compiled-program format the D compiler
// produces and the framework loads (probe, ECB, action, record, aggregation,
// format and translator descriptions), the table of the C types records
// refer to, and the DTRACEACT_* action kinds.
export * from './actions.js';
export * from './attributes.js';
export * from './program.js';
export * from './type-table.js';
