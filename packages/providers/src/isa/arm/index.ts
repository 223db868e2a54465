// ARM's IsaSupport (A32): the parts of this folder put together.
import type { IsaSupport } from '../support.js';
import { armRegsLibrary, armUserRegister } from './uregs.js';
import { ARM_ARGUMENT_REGISTERS, ARM_SYSCALL_ARGUMENT_REGISTERS, ARM_USER_FRAME, armArgs, armReturnValue } from './abi.js';
import { breakpointArm, decodeArm, displacedArm, unprobeableArm } from './decode.js';
import { armFbtEntry, armFbtReturns } from './fbt.js';
import { armFrameEstablished, armReturnAddress } from './frames.js';
import { armPidReturns } from './pid.js';
import { armSdtPatch } from './sdt.js';

export const ARM_SUPPORT: IsaSupport = {
  isa: 'arm',
  wordSize: 4,
  dataModel: 'ILP32',
  decode: decodeArm,
  unprobeable: unprobeableArm,
  breakpoint: breakpointArm,
  displaced: displacedArm,
  fbtEntry: armFbtEntry,
  fbtReturns: armFbtReturns,
  fbtIncomplete: () => 'the function is not whole words of A32 code',
  fbtNoReturn: 'no return instruction or tail branch',
  sdtPatch: armSdtPatch,
    pidReturns: armPidReturns,
  argumentRegisters: ARM_ARGUMENT_REGISTERS,
  entryArgs: armArgs,
  callArgs: armArgs,
  returnValue: armReturnValue,
  syscallArgRegisters: ARM_SYSCALL_ARGUMENT_REGISTERS,
  userFrame: ARM_USER_FRAME,
  userRegister: armUserRegister,
  regsLibrary: armRegsLibrary(),
  // The low bit of an ARM function symbol marks Thumb code; it is no part of the address.
  codeAddress: (value) => value & ~1n,
  frameEstablished: armFrameEstablished,
  returnAddress: armReturnAddress,
};
