// RFLAGS helpers shared by every arithmetic instruction.
//
// PF (bit 2) is set when the low byte of a result has an even number of set
// bits (Intel SDM vol. 1, 3.4.3.1). It is read from a 256-entry table held in
// a static data segment, so computing it costs one load.

const PF: u32 = 1 << 2;

// PARITY_TABLE[b] = PF if popcount(b) is even, else 0.
const PARITY_TABLE: usize = memory.data<u8>([
  4,0,0,4,0,4,4,0,0,4,4,0,4,0,0,4, 0,4,4,0,4,0,0,4,4,0,0,4,0,4,4,0,
  0,4,4,0,4,0,0,4,4,0,0,4,0,4,4,0, 4,0,0,4,0,4,4,0,0,4,4,0,4,0,0,4,
  0,4,4,0,4,0,0,4,4,0,0,4,0,4,4,0, 4,0,0,4,0,4,4,0,0,4,4,0,4,0,0,4,
  4,0,0,4,0,4,4,0,0,4,4,0,4,0,0,4, 0,4,4,0,4,0,0,4,4,0,0,4,0,4,4,0,
  0,4,4,0,4,0,0,4,4,0,0,4,0,4,4,0, 4,0,0,4,0,4,4,0,0,4,4,0,4,0,0,4,
  4,0,0,4,0,4,4,0,0,4,4,0,4,0,0,4, 0,4,4,0,4,0,0,4,4,0,0,4,0,4,4,0,
  4,0,0,4,0,4,4,0,0,4,4,0,4,0,0,4, 0,4,4,0,4,0,0,4,4,0,0,4,0,4,4,0,
  0,4,4,0,4,0,0,4,4,0,0,4,0,4,4,0, 4,0,0,4,0,4,4,0,0,4,4,0,4,0,0,4,
]);

/** PF as it stands in RFLAGS (0 or 1 << 2) for a result whose low byte is `result`. */
// @ts-ignore: decorator
@inline
export function parityFlag(result: u32): u32 {
  return <u32>load<u8>(PARITY_TABLE + (result & 0xff)) & PF;
}
