// @wdtrace/providers — see README.md for what this package owns and may depend on.
// Providers implemented so far: dtrace (BEGIN/END/ERROR) and profile
// (profile-N, tick-N on the virtual clock).
export * from './dtrace/provider.js';
export * from './profile/provider.js';
export * from './session.js';
