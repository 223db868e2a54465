// sdt on ARM. krtld leaves each call site as `nop` (e320f000), or, for a
// tail branch, `bx lr` with the branch's condition. Enabling writes the
// DTrace breakpoint (condition AL for the nop; the bx's own condition for a
// tail site, whose BX_LR emulation then returns); a nop site resumes after
// the site.
import { DTRACE_BREAKPOINT } from '@wdtrace/isa-arm-as';
import type { SdtSite } from '@wdtrace/kernel';
import { ArmEmulation } from '../../isa/arm.js';
import type { InvopResult } from '../../kernel-target.js';

const le32 = (w: number): Uint8Array => Uint8Array.of(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);

export function armSdtPatch(site: SdtSite): { patch: Uint8Array; result: InvopResult } {
  const word = new DataView(site.patch.buffer, site.patch.byteOffset, 4).getUint32(0, true);
  if (site.tailCall) {
    const cond = word >>> 28;
    return { patch: le32((DTRACE_BREAKPOINT | cond) >>> 0), result: { kind: 'emulate', code: ArmEmulation.BX_LR, word } };
  }
  return { patch: le32((DTRACE_BREAKPOINT | 0xe) >>> 0), result: { kind: 'resume', pc: site.address + 4n } };
}
