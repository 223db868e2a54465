// fbt's probe points of one function, the machine-independent part (after
// illumos' fbt_provide_module): the entry point and every return point the
// ISA finds, none at all for a function with no instructions, and no return
// probe for one whose decoding stopped early — its unseen returns would be
// missed, so it gets none rather than some.
import type { DecodedFunction, FbtFunctionPoints, FbtPoint, IsaSupport } from '../isa/index.js';

export function fbtPoints(support: IsaSupport, start: bigint, size: number, decoded: DecodedFunction): FbtFunctionPoints {
  const insns = decoded.insns;
  if (insns.length === 0) return { returns: [], noEntry: 'no instructions', noReturn: 'no instructions' };
  const e = support.fbtEntry(insns[0]!, start);
  const entry: FbtPoint | undefined = typeof e === 'string' ? undefined : e;
  const noEntry = typeof e === 'string' ? e : undefined;
  if (!decoded.complete) return { entry, returns: [], noEntry, noReturn: support.fbtIncomplete(decoded) };
  const returns = support.fbtReturns(insns, start, start + BigInt(size));
  return { entry, returns, noEntry, noReturn: returns.length ? undefined : support.fbtNoReturn };
}
