// @wdtrace/dtrace-core/dif — the DIF instruction set (opcode table, encodings,
// constants), the DIF object shape and the disassembler shared by the D
// compiler, the verifier and the VM.
export * from './opcodes.js';
export * from './constants.js';
export * from './instr.js';
export * from './difo.js';
export * from './disassemble.js';
