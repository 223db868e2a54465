// sdt on x86-64. krtld leaves each call site as the 5-byte nop
// `0f 1f 44 00 00` (or, for a tail jump, `ret` + a 4-byte nop). Enabling
// writes `f0 0f 1f 40 00` — `lock nopl 0x0(%rax)`, the same length, which
// raises #UD because nop cannot be locked — and the probe resumes after the
// site. A tail-call site gets int3 on its ret, performed by the RET emulation.
import { X86Emulation } from '@wdtrace/isa-x86-as';
import type { SdtSite } from '@wdtrace/kernel';
import type { PatchedInstruction } from '../support.js';
import { INT3 } from './decode.js';

/** `lock nopl 0x0(%rax)`: traps with #UD. */
export const X86_SDT_ENABLED = Uint8Array.of(0xf0, 0x0f, 0x1f, 0x40, 0x00);

export function x86SdtPatch(site: SdtSite): PatchedInstruction {
  if (site.tailCall) return { patch: INT3, result: { kind: 'emulate', code: X86Emulation.ret } };
  return { patch: X86_SDT_ENABLED, result: { kind: 'resume', pc: site.address + BigInt(site.patch.length) } };
}
