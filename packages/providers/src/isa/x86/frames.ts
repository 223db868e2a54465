// x86-64 frames as the framework's stack walks see them: every C function
// of the guest kernel pushes rbp first (frame pointers are on), so a
// function has its frame from its second instruction until its `ret`
// (after `leave` or `pop %rbp` the frame is gone); before the frame exists
// the return address into the caller is at [rsp].
import type { RegisterFile } from '@wdtrace/kernel';
import type { MemoryRead } from '../support.js';

export function x86FrameEstablished(_start: bigint, pc: bigint, original: (address: bigint, length: number) => Uint8Array | undefined): boolean {
  return original(pc, 1)?.[0] !== 0xc3; // ret: the frame is gone
}

export function x86ReturnAddress(regs: RegisterFile, read: MemoryRead): bigint | undefined {
  const r = read(regs.sp(), 8);
  if (!('bytes' in r)) return undefined;
  // Through a word of its own, byte by byte: a view of the small array read (or a subarray of it) would make
  // V8 move its bytes out of its heap.
  for (let i = 0; i < 8; i++) WORD_BYTES[i] = r.bytes[i]!;
  return WORD.getBigUint64(0, true);
}
const WORD = new DataView(new ArrayBuffer(8));
const WORD_BYTES = new Uint8Array(WORD.buffer);
