// @wdtrace/dtrace-core/types — the C type model, the type-dictionary
// interface the D compiler looks types and symbols up through, an in-memory
// implementation, and the built-in C and D dictionaries.
export * from './ctype.js';
export * from './dictionary.js';
export * from './builtins.js';
