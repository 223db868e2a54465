// @wdtrace/d-lang — the D compiler. See README.md for the API.
export * from './diagnostics.js';
export { parseProgram } from './parser.js';
