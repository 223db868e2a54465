// The A32 barrel shifter's modified-immediate form (ARM ARM A5.2.4,
// ARMExpandImm_C): a 12-bit field  rotate(4) | imm8(8)  stands for imm8
// rotated right by twice the rotate value.
//
//   11      8 7             0
//  +---------+---------------+
//  | rotate  |     imm8      |
//  +---------+---------------+

/** ARMExpandImm: the 32-bit value encoded by a 12-bit modified immediate. */
export function expandImmediate(imm12: u32): u32 {
  return rotr<u32>(imm12 & 0xff, ((imm12 >> 8) & 0xf) << 1);
}

/**
 * ARMExpandImm_C's carry out: bit 31 of the result when the rotation is
 * non-zero, otherwise the carry that came in.
 */
export function expandImmediateCarry(imm12: u32, carryIn: u32): u32 {
  return (imm12 & 0xf00) == 0 ? carryIn & 1 : expandImmediate(imm12) >>> 31;
}
