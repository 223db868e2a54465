// fbt on x86-64, after illumos' fbt_provide_module (intel/dtrace/fbt.c):
// - entry: the function's first instruction, `push %rbp` in every C
//   function; it becomes int3 and the core's PUSH_RBP emulation performs
//   it. Hand-written code without a frame (trap and system-call entry
//   stubs) gets its entry probe too, the first instruction then run out of
//   line — as on ARM, where every entry is whatever instruction is first —
//   unless that instruction transfers control or waits (those stay
//   unprobed: their displaced form would have nowhere to resume);
// - return: each near `ret`. When the ret directly follows `leave` or
//   `pop %rbp` (and no jump lands on the ret itself), the probe goes on that
//   instruction instead, as illumos does on i386, so the probe fires while
//   the function's frame is still there; the emulation is LEAVE or POP_RBP.
//   Otherwise the ret itself is patched (RET emulation).
// - a direct `jmp` out of the function is a tail call: a return site too,
//   performed out of line (the jump behaves exactly as in place); arg1 is
//   then rax as it stands, not a value the function computed.
import { X86Emulation } from '@wdtrace/isa-x86-as';
import { internalTargets, type DecodedFunction, type FbtPoint, type KernelInsn } from '../support.js';
import { INT3, displacedX86, isNearRet } from './decode.js';

const emulated = (insn: KernelInsn, code: X86Emulation): FbtPoint => ({ insn, patch: INT3, result: { kind: 'emulate', code } });
const displaced = (insn: KernelInsn): FbtPoint => ({ insn, patch: INT3, result: displacedX86(insn) });

/** Control transfers and waits cannot be the displaced first instruction of an entry probe. */
const NOT_DISPLACEABLE = ['ret', 'call', 'jmp', 'jcc', 'loop', 'int3', 'syscall', 'invalid'];
const NOT_DISPLACEABLE_MNEMONICS = /^(?:iret|sysret|sysexit|hlt|int\b|into|ud[012]?)/;

function displaceableEntry(insn: KernelInsn): boolean {
  if (NOT_DISPLACEABLE.some((c) => insn.classes.has(c))) return false;
  return !NOT_DISPLACEABLE_MNEMONICS.test(insn.text);
}

/** The entry point: the first instruction, or why it can have no probe. */
export function x86FbtEntry(first: KernelInsn): FbtPoint | string {
  if (first.classes.has('push_rbp')) return emulated(first, X86Emulation.pushRbp);
  if (displaceableEntry(first)) return displaced(first);
  return `first instruction is "${first.text}", which transfers control or waits (no frame: hand-written code)`;
}

/** The return points: each near ret (or the leave / pop %rbp before it), and direct jumps out of the function. */
export function x86FbtReturns(insns: readonly KernelInsn[], start: bigint, end: bigint): FbtPoint[] {
  const targets = internalTargets(insns, start, end);
  const returns: FbtPoint[] = [];
  for (let i = 0; i < insns.length; i++) {
    const insn = insns[i]!;
    if (isNearRet(insn)) {
      const prev = i > 0 ? insns[i - 1]! : undefined;
      if (prev && !targets.has(insn.address) && prev.classes.has('leave')) returns.push(emulated(prev, X86Emulation.leave));
      else if (prev && !targets.has(insn.address) && prev.classes.has('pop_rbp')) returns.push(emulated(prev, X86Emulation.popRbp));
      else returns.push(emulated(insn, X86Emulation.ret));
      continue;
    }
    if (insn.classes.has('jmp') && !insn.classes.has('indirect') && insn.target !== undefined && (insn.target < start || insn.target >= end)) {
      returns.push(displaced(insn));
    }
  }
  return returns;
}

/** Why a function whose decoding stopped early has no return probe. */
export function x86FbtIncomplete(decoded: DecodedFunction): string {
  return `decoding stopped at 0x${decoded.stoppedAt!.address.toString(16)}: ${decoded.stoppedAt!.reason}`;
}
