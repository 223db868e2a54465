// x86-64 CPU core — entry module of the WebAssembly build.
// Everything the host calls is exported from here; the core's parts live in
// the files this module re-exports.
export { parityFlag } from './flags';
export { DECODE_RECORD, DECODE_INPUT } from './decode';
import { decodeInstruction, writeDecodeRecord, DECODE_INPUT } from './decode';

/**
 * Decodes the instruction whose bytes the host placed at DECODE_INPUT
 * (`available` of them, at most 16) and fills DECODE_RECORD.
 * Returns the length, or -1 (bytes run out) / -2 (longer than 15 bytes).
 */
export function decode(available: i32): i32 {
  const n = decodeInstruction(DECODE_INPUT, available > 16 ? 16 : available);
  writeDecodeRecord();
  return n;
}
