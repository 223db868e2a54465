// Kernel and module symbol tables.
export * from './table.js';
