// The SysV AMD64 ABI as the providers read it: integer arguments in rdi rsi
// rdx rcx r8 r9, then on the stack (above the return address at a
// function's first instruction); the return value in rax. System calls (the
// Linux ABI the guest kernel keeps) pass rdi rsi rdx r10 r8 r9, which the
// kernel's struct pt_regs saves under those names.
import type { RegisterFile } from '@wdtrace/kernel';
import { FunctionArguments, type MemoryRead, type UserFrameLayout } from '../support.js';

const RAX = 0;
/** Register numbers (RegisterFile.get) of rdi rsi rdx rcx r8 r9. */
export const X86_ARGUMENT_REGISTERS = [7, 6, 2, 1, 8, 9] as const;
/** rdi rsi rdx r10 r8 r9. */
export const X86_SYSCALL_ARGUMENT_REGISTERS = [7, 6, 2, 10, 8, 9] as const;

const ABI = { argumentRegisters: X86_ARGUMENT_REGISTERS, wordSize: 8 } as const;

export const X86_USER_FRAME: UserFrameLayout = {
  pc: { member: 'rip' },
  fp: { member: 'rbp' },
  sp: { member: 'rsp' },
  syscallArgs: ['rdi', 'rsi', 'rdx', 'r10', 'r8', 'r9'].map((member) => ({ member })),
};

/** At the first instruction [rsp] is the return address; stack arguments follow it. */
export function x86EntryArguments(regs: RegisterFile, read: MemoryRead, count: number): FunctionArguments {
  return new FunctionArguments(ABI, regs, read, 1, count);
}

/** Before the call the seventh argument is at [rsp]. */
export function x86CallArguments(regs: RegisterFile, read: MemoryRead, count: number): FunctionArguments {
  return new FunctionArguments(ABI, regs, read, 0, count);
}

export function x86ReturnValue(regs: RegisterFile): bigint {
  return regs.get(RAX);
}
