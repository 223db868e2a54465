// ARM frames as the framework's stack walks see them: a function that builds
// a frame starts with `push {..., r11, lr}` (the guest is built with frame
// pointers); it has its frame after that until it returns, and `bx lr`
// returns with the frame already gone. Before the frame exists the return
// address into the caller is in lr.
import type { RegisterFile } from '@wdtrace/kernel';
import { word32 } from '../support.js';

/** push {..., r11, lr} (stmdb sp!, with r11 and lr in the list), any condition. */
const PUSH_FRAME = { mask: 0x0fff4800, value: 0x092d4800 };
/** bx lr, any condition. */
const BX_LR = { mask: 0x0fffffff, value: 0x012fff1e };

export function armFrameEstablished(start: bigint, pc: bigint, original: (address: bigint, length: number) => Uint8Array | undefined): boolean {
  const first = word32(original(start, 4));
  const at = word32(original(pc, 4));
  const pushesFrame = first !== undefined && (first & PUSH_FRAME.mask) === PUSH_FRAME.value;
  return pushesFrame && at !== undefined && (at & BX_LR.mask) !== BX_LR.value;
}

export function armReturnAddress(regs: RegisterFile): bigint {
  return regs.get(14);
}
