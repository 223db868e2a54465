// @wdtrace/dtrace-core — see README.md for what this package owns and may depend on.
export {};
