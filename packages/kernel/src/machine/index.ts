// The machine: CPUs of an ISA on the "virt" board, virtual time, trap
// interposition, NOFAULT access, text patching and module loading.
export * from './types.js';
export * from './machine.js';
export * from './ports.js';
export { TRANSLATION_WORDS, type GuestTranslation, type MemoryWindow } from './guest-memory.js';
export * from './images.js';
export { X86Port, createX86Port } from './x86.js';
export { ArmPort, createArmPort, type ArmPortOptions } from './arm.js';
export * from './initrd.js';
export * from './kernel-modules.js';
