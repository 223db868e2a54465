// ARM's IsaSupport: the parts of this folder put together, A32 (decode.ts,
// fbt.ts, sdt.ts, frames.ts) and Thumb-2 (thumb.ts). Which set an
// instruction is in travels with it (KernelInsn.thumb), from the function
// symbol's bit 0 when the text was decoded.
import type { IsaSupport } from '../support.js';
import { armRegsLibrary, armUserRegister } from './uregs.js';
import { ARM_ARGUMENT_REGISTERS, ARM_SYSCALL_ARGUMENT_REGISTERS, ARM_USER_FRAME, armArguments, armReturnValue } from './abi.js';
import { breakpointArm, decodeArm, displacedArm, unprobeableArm } from './decode.js';
import { armFbtEntry, armFbtReturns } from './fbt.js';
import { armFrameEstablished, armReturnAddress } from './frames.js';
import { armPidReturns } from './pid.js';
import { armSdtPatch } from './sdt.js';
import { breakpointThumb, decodeThumb, displacedThumb, isThumbSdtSite, thumbFbtEntry, thumbFbtReturns, thumbFrameEstablished, thumbSdtPatch, unprobeableThumb } from './thumb.js';

export const ARM_SUPPORT: IsaSupport = {
  isa: 'arm',
  wordSize: 4,
  dataModel: 'ILP32',
  decode: (bytes, address, dataRanges, thumb) => (thumb ? decodeThumb(bytes, address, dataRanges) : decodeArm(bytes, address, dataRanges)),
  unprobeable: (insn) => (insn.thumb ? unprobeableThumb(insn) : unprobeableArm(insn)),
  breakpoint: (insn) => (insn.thumb ? breakpointThumb(insn) : breakpointArm(insn)),
  displaced: (insn) => (insn.thumb ? displacedThumb(insn) : displacedArm(insn)),
  fbtEntry: (first, start) => (first.thumb ? thumbFbtEntry(first, start) : armFbtEntry(first, start)),
  fbtReturns: (insns, start, end) => (insns[0]?.thumb ? thumbFbtReturns(insns, start, end) : armFbtReturns(insns, start, end)),
  fbtIncomplete: (decoded) => (decoded.insns[0]?.thumb ? `the function is not whole T32 instructions${decoded.stoppedAt ? ` (${decoded.stoppedAt.reason})` : ''}` : 'the function is not whole words of A32 code'),
  fbtNoReturn: 'no return instruction or tail branch',
  sdtPatch: (site) => (isThumbSdtSite(site) ? thumbSdtPatch(site) : armSdtPatch(site)),
  pidReturns: (insns, start, end) => (insns[0]?.thumb ? thumbFbtReturns(insns, start, end).map((p) => p.insn) : armPidReturns(insns, start, end)),
  argumentRegisters: ARM_ARGUMENT_REGISTERS,
  entryArguments: armArguments,
  callArguments: armArguments,
  returnValue: armReturnValue,
  syscallArgRegisters: ARM_SYSCALL_ARGUMENT_REGISTERS,
  userFrame: ARM_USER_FRAME,
  userRegister: armUserRegister,
  regsLibrary: armRegsLibrary(),
  // The low bit of an ARM function symbol marks Thumb code; it is no part of the address.
  codeAddress: (value) => value & ~1n,
  frameEstablished: (start, pc, original, thumb) => (thumb ? thumbFrameEstablished(start, pc, original) : armFrameEstablished(start, pc, original)),
  returnAddress: armReturnAddress,
};
