// pid's return sites on x86-64, as fasttrap's dt_pid_create_return_probe
// finds them (illumos dt_isadep.c for amd64): every `ret` of the function,
// and every direct `jmp` that leaves it (a tail call: the function returns
// to its caller through the callee). The probe sits on the instruction
// itself and fires before it executes, so rax is the value returned.
import { type KernelInsn } from '../support.js';

/** retf, retf iw. */
const FAR_RET = new Set([0xcb, 0xca]);

/** The opcode byte after any legacy and REX prefixes. */
function opcode(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length - 1 && (bytes[i] === 0x66 || bytes[i] === 0xf2 || bytes[i] === 0xf3 || (bytes[i]! & 0xf0) === 0x40)) i++;
  return bytes[i]!;
}

export function x86PidReturns(insns: readonly KernelInsn[], start: bigint, end: bigint): KernelInsn[] {
  return insns.filter((insn) => {
    // c3 / c2 iw (near); the far returns (cb / ca) do not end a C function.
    if (insn.classes.has('ret')) return !FAR_RET.has(opcode(insn.bytes));
    return insn.classes.has('jmp') && !insn.classes.has('indirect') && insn.target !== undefined && (insn.target < start || insn.target >= end);
  });
}
