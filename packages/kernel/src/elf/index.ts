// ELF reading for x86-64 and ARM objects, executables and modules.
export * from './reader.js';
