// The AAPCS as the providers read it: arguments in r0-r3, then on the stack
// (bl does not push: at a call and at the callee's first instruction the
// fifth argument is at [sp]); the return value in r0. System calls (EABI)
// pass r0-r5, which the guest kernel's struct pt_regs saves in its r[] array.
import type { RegisterFile } from '@wdtrace/kernel';
import { FunctionArguments, type MemoryRead, type UserFrameLayout } from '../support.js';

export const ARM_ARGUMENT_REGISTERS = [0, 1, 2, 3] as const;
export const ARM_SYSCALL_ARGUMENT_REGISTERS = [0, 1, 2, 3, 4, 5] as const;

const ABI = { argumentRegisters: ARM_ARGUMENT_REGISTERS, wordSize: 4 } as const;

export const ARM_USER_FRAME: UserFrameLayout = {
  pc: { member: 'pc' },
  fp: { member: 'r', index: 11 },
  sp: { member: 'sp_usr' },
  syscallArgs: ARM_SYSCALL_ARGUMENT_REGISTERS.map((index) => ({ member: 'r', index })),
  // CPSR.T: Thumb code's frame pointer is r7.
  thumbFp: { flags: { member: 'cpsr' }, mask: 0x20n, fp: { member: 'r', index: 7 } },
};

/** At a call and at the callee's first instruction alike, the fifth argument is at [sp]. */
export function armArguments(regs: RegisterFile, read: MemoryRead, count: number): FunctionArguments {
  return new FunctionArguments(ABI, regs, read, 0, count);
}

export function armReturnValue(regs: RegisterFile): bigint {
  return regs.get(0);
}
