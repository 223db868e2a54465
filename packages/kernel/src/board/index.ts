// The "virt" board (BOARD.md): constants, device models and boot-time writers.
export * from './constants.js';
export * from './devices.js';
export * from './boot.js';
