// x86-64 support for the kernel providers: linear-sweep decoding with the
// core's own decoder (so what we classify is what the core executes), int3
// (0xCC) as the breakpoint, and the SysV AMD64 argument convention: rdi rsi
// rdx rcx r8 r9, then the stack.
import { createX86Decoder, type X86Decoder } from '@wdtrace/isa-x86-as';
import type { InvopResult, KernelTarget, RegisterFile } from '../kernel-target.js';
import { inRanges, stackWords, type DecodedFunction, type IsaSupport, type KernelInsn } from './common.js';

/** int3. */
export const X86_INT3 = 0xcc;
/** Register numbers (RegisterFile.get) of the integer argument registers: rdi rsi rdx rcx r8 r9. */
export const X86_ARG_REGS = [7, 6, 2, 1, 8, 9] as const;
const RAX = 0;

/** Classes that rule out a probe on an instruction (kinst): execution would not be faithful out of line. */
const UNPROBEABLE: ReadonlyMap<string, string> = new Map([
  ['int3', 'an int3 is already a breakpoint'],
  ['invalid', 'the bytes are no valid instruction'],
  ['syscall', 'syscall/sysret change privilege'],
  ['priv', 'privileged instructions (iretq, I/O, control registers) are not run out of line'],
]);

export class X86Support implements IsaSupport {
  readonly isa = 'x86_64' as const;
  readonly wordSize = 8 as const;

  constructor(private readonly decoder: X86Decoder) {}

  static async create(): Promise<X86Support> {
    return new X86Support(await createX86Decoder());
  }

  decode(bytes: Uint8Array, address: bigint, dataRanges?: readonly { start: bigint; end: bigint }[]): DecodedFunction {
    const insns: KernelInsn[] = [];
    let off = 0;
    while (off < bytes.length) {
      const at = address + BigInt(off);
      if (inRanges(dataRanges, at)) return { insns, complete: false, stoppedAt: { address: at, reason: 'data inside the function' } };
      const d = this.decoder.describe(bytes, off, at);
      if (!d) return { insns, complete: false, stoppedAt: { address: at, reason: 'the bytes end inside an instruction' } };
      insns.push({ address: at, length: d.length, bytes: d.bytes, classes: d.classes, target: d.target, text: `${d.mnemonic}${d.operands ? '\t' + d.operands : ''}` });
      if (d.classes.has('invalid')) return { insns, complete: false, stoppedAt: { address: at, reason: 'no valid instruction' } };
      off += d.length;
    }
    return { insns, complete: true };
  }

  unprobeable(insn: KernelInsn): string | undefined {
    for (const [c, why] of UNPROBEABLE) if (insn.classes.has(c)) return why;
    return undefined;
  }

  breakpoint(): Uint8Array {
    return Uint8Array.of(X86_INT3);
  }

  displaced(insn: KernelInsn): InvopResult {
    return { kind: 'displaced', bytes: insn.bytes };
  }

  entryArgs(target: KernelTarget, regs: RegisterFile, count: number): bigint[] {
    // At the first instruction [rsp] is the return address; stack arguments follow it.
    return this.args(target, regs, count, 1);
  }

  callArgs(target: KernelTarget, regs: RegisterFile, count: number): bigint[] {
    return this.args(target, regs, count, 0);
  }

  private args(target: KernelTarget, regs: RegisterFile, count: number, skip: number): bigint[] {
    const out: bigint[] = [];
    for (let i = 0; i < Math.min(count, X86_ARG_REGS.length); i++) out.push(regs.get(X86_ARG_REGS[i]!));
    return out.concat(stackWords(target, regs.sp(), 8, skip, count - out.length));
  }

  returnValue(regs: RegisterFile): bigint {
    return regs.get(RAX);
  }
}

/** Whether an instruction is the near `ret` (c3) the RET emulation performs. */
export function isNearRet(insn: KernelInsn): boolean {
  return insn.length === 1 && insn.bytes[0] === 0xc3;
}
