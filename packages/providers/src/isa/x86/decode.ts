// x86-64 instructions for the providers: linear-sweep decoding with the
// core's own decoder (so what is classified is what the core executes),
// which instructions refuse a probe, and int3 (0xCC) as the breakpoint; a
// displaced instruction runs out of line in the core (rip-relative operands,
// jumps, calls and ret behave exactly as in place).
import type { InvopResult } from '@wdtrace/kernel';
import type { X86Decoder } from '@wdtrace/isa-x86-as';
import { inRanges, type AddressRanges, type DecodedFunction, type KernelInsn } from '../support.js';

/** int3: the breakpoint of every x86-64 probe. */
export const INT3 = Uint8Array.of(0xcc);

/** Classes that rule out a probe on an instruction (kinst): execution would not be faithful out of line. */
const UNPROBEABLE: ReadonlyMap<string, string> = new Map([
  ['int3', 'an int3 is already a breakpoint'],
  ['invalid', 'the bytes are no valid instruction'],
  ['syscall', 'syscall/sysret change privilege'],
  ['priv', 'privileged instructions (iretq, I/O, control registers) are not run out of line'],
]);

export function decodeX86(decoder: X86Decoder, bytes: Uint8Array, address: bigint, dataRanges?: AddressRanges): DecodedFunction {
  const insns: KernelInsn[] = [];
  let off = 0;
  while (off < bytes.length) {
    const at = address + BigInt(off);
    if (inRanges(dataRanges, at)) return { insns, complete: false, stoppedAt: { address: at, reason: 'data inside the function' } };
    const d = decoder.describe(bytes, off, at);
    if (!d) return { insns, complete: false, stoppedAt: { address: at, reason: 'the bytes end inside an instruction' } };
    insns.push({ address: at, length: d.length, bytes: d.bytes, classes: d.classes, target: d.target, text: `${d.mnemonic}${d.operands ? '\t' + d.operands : ''}` });
    if (d.classes.has('invalid')) return { insns, complete: false, stoppedAt: { address: at, reason: 'no valid instruction' } };
    off += d.length;
  }
  return { insns, complete: true };
}

export function unprobeableX86(insn: KernelInsn): string | undefined {
  for (const [c, why] of UNPROBEABLE) if (insn.classes.has(c)) return why;
  return undefined;
}

export function displacedX86(insn: KernelInsn): InvopResult {
  return { kind: 'displaced', bytes: insn.bytes };
}

/** Whether an instruction is the near `ret` (c3) the RET emulation performs. */
export function isNearRet(insn: KernelInsn): boolean {
  return insn.length === 1 && insn.bytes[0] === 0xc3;
}
