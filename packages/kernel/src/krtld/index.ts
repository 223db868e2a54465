// krtld: kernel module linking and SDT site processing.
export * from './link.js';
export * from './relocate.js';
export * from './sdt.js';
export * from './arena.js';
