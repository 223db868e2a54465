// x86-64's IsaSupport: the parts of this folder put together. The decoder is
// the core's own, so creating it instantiates the core's WebAssembly module.
import { createX86Decoder } from '@wdtrace/isa-x86-as';
import { x86PidReturns } from './pid.js';
import type { IsaSupport } from '../support.js';
import { x86RegsLibrary, x86UserRegister } from './uregs.js';
import { X86_ARGUMENT_REGISTERS, X86_SYSCALL_ARGUMENT_REGISTERS, X86_USER_FRAME, x86CallArguments, x86EntryArguments, x86ReturnValue } from './abi.js';
import { INT3, decodeX86, displacedX86, unprobeableX86 } from './decode.js';
import { x86FbtEntry, x86FbtIncomplete, x86FbtReturns } from './fbt.js';
import { x86FrameEstablished, x86ReturnAddress } from './frames.js';
import { x86SdtPatch } from './sdt.js';

export async function createX86Support(): Promise<IsaSupport> {
  const decoder = await createX86Decoder();
  return {
    isa: 'x86_64',
    wordSize: 8,
    dataModel: 'LP64',
    decode: (bytes, address, dataRanges) => decodeX86(decoder, bytes, address, dataRanges),
    unprobeable: unprobeableX86,
    breakpoint: () => INT3,
    displaced: displacedX86,
    fbtEntry: x86FbtEntry,
    fbtReturns: x86FbtReturns,
    fbtIncomplete: x86FbtIncomplete,
    fbtNoReturn: 'no ret or tail jump',
    sdtPatch: x86SdtPatch,
    pidReturns: x86PidReturns,
    argumentRegisters: X86_ARGUMENT_REGISTERS,
    entryArguments: x86EntryArguments,
    callArguments: x86CallArguments,
    returnValue: x86ReturnValue,
    syscallArgRegisters: X86_SYSCALL_ARGUMENT_REGISTERS,
    userFrame: X86_USER_FRAME,
    userRegister: x86UserRegister,
    regsLibrary: x86RegsLibrary(),
    codeAddress: (value) => value,
    frameEstablished: x86FrameEstablished,
    returnAddress: x86ReturnAddress,
  };
}
