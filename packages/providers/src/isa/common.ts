// What the kernel providers need from an ISA: decoding a function's text into
// instructions, the trapping pattern for a probe on an instruction, the
// argument-passing convention and the return-value register. One
// implementation per ISA (x86.ts, arm.ts).
import type { InvopResult, KernelIsaName, KernelTarget, RegisterFile } from '../kernel-target.js';

/** One decoded instruction of kernel text. */
export interface KernelInsn {
  readonly address: bigint;
  readonly length: number;
  /** The instruction's bytes as decoded (the unpatched text). */
  readonly bytes: Uint8Array;
  /** Decoder classes (x86: ret call jmp push_rbp leave pop_rbp ...; ARM: push pop ldm-pc bx-lr branch ...). */
  readonly classes: ReadonlySet<string>;
  /** Target of a relative branch or call. */
  readonly target?: bigint;
  readonly text: string;
  /** ARM: the instruction word and its condition field (15 for unconditional encodings). */
  readonly word?: number;
  readonly cond?: number;
  /** ARM: encoding name from the core's decode table. */
  readonly encoding?: string;
}

/** A function's instructions; `complete` is false when decoding stopped early (bytes that are no instruction). */
export interface DecodedFunction {
  readonly insns: readonly KernelInsn[];
  readonly complete: boolean;
  /** Why decoding stopped, when it did. */
  readonly stoppedAt?: { readonly address: bigint; readonly reason: string };
}

export interface IsaSupport {
  readonly isa: KernelIsaName;
  /** Decodes `bytes` (a function's text at `address`), skipping the given data ranges (ARM literal pools). */
  decode(bytes: Uint8Array, address: bigint, dataRanges?: readonly { readonly start: bigint; readonly end: bigint }[]): DecodedFunction;
  /** Why a probe may not be placed on this instruction, or undefined when it may (kinst's rule). */
  unprobeable(insn: KernelInsn): string | undefined;
  /** The bytes that make `insn` trap into the invop path (x86-64 int3; ARM the DTrace breakpoint with its condition). */
  breakpoint(insn: KernelInsn): Uint8Array;
  /** Performs `insn` out of line, as if at its own address. */
  displaced(insn: KernelInsn): InvopResult;
  /** Arguments 0..count-1 at a function's first instruction (return address not yet pushed on ARM, on the stack on x86-64). */
  entryArgs(target: KernelTarget, regs: RegisterFile, count: number): bigint[];
  /** Arguments 0..count-1 at a call instruction (SDT sites): the callee's arguments, before the call. */
  callArgs(target: KernelTarget, regs: RegisterFile, count: number): bigint[];
  /** The return-value register (rax / r0). */
  returnValue(regs: RegisterFile): bigint;
  /** Bytes of a pointer-sized word. */
  readonly wordSize: 4 | 8;
}

/** Reads `count` stack words at `sp + skip * wordSize`, 0 for words that fault. */
export function stackWords(target: KernelTarget, sp: bigint, wordSize: 4 | 8, skip: number, count: number): bigint[] {
  if (count <= 0) return [];
  const start = sp + BigInt(skip * wordSize);
  const r = target.readKernel(start, count * wordSize);
  const out: bigint[] = [];
  if ('bytes' in r) {
    const dv = new DataView(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
    for (let i = 0; i < count; i++) out.push(wordSize === 8 ? dv.getBigUint64(i * 8, true) : BigInt(dv.getUint32(i * 4, true)));
    return out;
  }
  // Some word faulted: read one at a time and give 0 for the unreadable ones.
  for (let i = 0; i < count; i++) {
    const w = target.readKernel(start + BigInt(i * wordSize), wordSize);
    if ('fault' in w) out.push(0n);
    else {
      const dv = new DataView(w.bytes.buffer, w.bytes.byteOffset, w.bytes.byteLength);
      out.push(wordSize === 8 ? dv.getBigUint64(0, true) : BigInt(dv.getUint32(0, true)));
    }
  }
  return out;
}

/** Whether `a` lies in one of the ranges. */
export function inRanges(ranges: readonly { readonly start: bigint; readonly end: bigint }[] | undefined, a: bigint): boolean {
  if (!ranges) return false;
  for (const r of ranges) if (a >= r.start && a < r.end) return true;
  return false;
}
