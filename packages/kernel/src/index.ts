// @wdtrace/kernel — see README.md for what this package owns and may depend on.
export * from './isa.js';
export * from './elf/index.js';
export * from './krtld/index.js';
export * from './symbols/index.js';
export * from './dwarf/index.js';
export * from './board/index.js';
export * from './machine/index.js';
export * from './usdt/link.js';
