// sdt on ARM. krtld leaves each call site as `nop` (e320f000), or, for a
// tail branch, `bx lr` with the branch's condition. Enabling writes the
// DTrace breakpoint (condition AL for the nop; the bx's own condition for a
// tail site, whose BX_LR emulation then returns); a nop site resumes after
// the site.
import { ArmEmulation } from '@wdtrace/isa-arm-as';
import type { SdtSite } from '@wdtrace/kernel';
import { word32, type PatchedInstruction } from '../support.js';
import { COND_AL, breakpointWord } from './decode.js';

export function armSdtPatch(site: SdtSite): PatchedInstruction {
  const word = word32(site.patch)!;
  if (site.tailCall) return { patch: breakpointWord(word >>> 28), result: { kind: 'emulate', code: ArmEmulation.BX_LR, word } };
  return { patch: breakpointWord(COND_AL), result: { kind: 'resume', pc: site.address + 4n } };
}
