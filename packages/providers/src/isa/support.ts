// What the providers need to know about an instruction set, stated once: an
// `IsaSupport` object per ISA (x86/, arm/: folders holding files of the same
// names) supplies decoding, the trapping patterns and how a displaced
// instruction is performed (fbt's entry and return points with their
// emulation codes, the sdt patch, kinst's displaced execution), the ABI's
// argument and return registers, and the frame and return-address rules the
// framework's stack walks follow. Nothing ISA-shaped lives outside those
// folders. Addresses here are plain text addresses: nothing assumes kernel
// text, so a provider of user text (pid, usdt) uses the same operations.
import type { InvopResult, Isa, RegisterFile, SafeRead, SdtSite } from '@wdtrace/kernel';

/** One decoded instruction. */
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
  /** ARM: a T32 instruction (2 or 4 bytes; `word` is the halfword, or first << 16 | second). */
  readonly thumb?: boolean;
}

/** A function's instructions; `complete` is false when decoding stopped early (bytes that are no instruction). */
export interface DecodedFunction {
  readonly insns: readonly KernelInsn[];
  readonly complete: boolean;
  /** Why decoding stopped, when it did. */
  readonly stoppedAt?: { readonly address: bigint; readonly reason: string };
}

/** Address ranges (end exclusive), e.g. literal pools inside text. */
export type AddressRanges = readonly { readonly start: bigint; readonly end: bigint }[];

/** A patched instruction: the bytes written over it, and how it is performed once its probe fired. */
export interface PatchedInstruction {
  readonly patch: Uint8Array;
  readonly result: InvopResult;
}

/** A place fbt patches: the instruction, the bytes written, and how to perform it once the probe fired. */
export interface FbtPoint extends PatchedInstruction {
  readonly insn: KernelInsn;
}

/** fbt's probe points of one function. */
export interface FbtFunctionPoints {
  readonly entry?: FbtPoint;
  readonly returns: readonly FbtPoint[];
  /** Why there is no entry probe, when there is none. */
  readonly noEntry?: string;
  /** Why there is no return probe, when there is none. */
  readonly noReturn?: string;
}

/** A NOFAULT read of the memory arguments and frames live in (the kernel's, or a process's). */
export type MemoryRead = (va: bigint, length: number) => SafeRead;

/** Where the guest kernel's saved user frame (struct pt_regs) keeps a register: a member, or a word of an array member. */
export interface SavedRegister {
  readonly member: string;
  readonly index?: number;
}

/** A register uregs[] names: where the saved user frame keeps it (none: not kept) and how to read it from a CPU stopped in user mode (none: not there). */
export interface UserRegister {
  readonly name: string;
  readonly saved?: SavedRegister;
  readonly live?: (regs: RegisterFile) => bigint;
}

/** The user registers a trap frame holds, by what they are for. */
export interface UserFrameLayout {
  readonly pc: SavedRegister;
  readonly fp: SavedRegister;
  readonly sp: SavedRegister;
  /** The system-call argument registers, in order. */
  readonly syscallArgs: readonly SavedRegister[];
  /** ARM: code in Thumb state (saved flags with `mask` set) keeps its frame pointer in another register. */
  readonly thumbFp?: { readonly flags: SavedRegister; readonly mask: bigint; readonly fp: SavedRegister };
}

export interface IsaSupport {
  readonly isa: Isa;
  /** Bytes of a pointer-sized word. */
  readonly wordSize: 4 | 8;
  /** D's data model for programs that trace this ISA. */
  readonly dataModel: 'LP64' | 'ILP32';

  // ---- instructions ----
  /** Decodes `bytes` (a function's text at `address`), skipping the given data ranges (ARM literal pools); `thumb`: ARM's T32 code. */
  decode(bytes: Uint8Array, address: bigint, dataRanges?: AddressRanges, thumb?: boolean): DecodedFunction;
  /** Why a probe may not be placed on this instruction, or undefined when it may (kinst's rule). */
  unprobeable(insn: KernelInsn): string | undefined;
  /** The bytes that make `insn` trap into the invop path. */
  breakpoint(insn: KernelInsn): Uint8Array;
  /** Performs `insn` out of line, as if at its own address. */
  displaced(insn: KernelInsn): InvopResult;

  // ---- what each provider patches ----
  /** fbt: the entry point, the function's first instruction patched and performed, or why it can have none. */
  fbtEntry(first: KernelInsn, start: bigint): FbtPoint | string;
  /** fbt: the return points among the instructions of the function [start, end) — returns and tail calls, with their emulations. */
  fbtReturns(insns: readonly KernelInsn[], start: bigint, end: bigint): FbtPoint[];
  /** fbt: why a function whose decoding stopped early gets no return probe. */
  fbtIncomplete(decoded: DecodedFunction): string;
  /** fbt: why a function with no return site gets no return probe. */
  readonly fbtNoReturn: string;
  /** sdt: the trapping pattern written over a disabled site, and how the probe resumes. */
  sdtPatch(site: SdtSite): PatchedInstruction;
  /** pid: the instructions of a user function [start, end) that return to its caller (returns and tail jumps); each is probed in place and run out of line. */
  pidReturns(insns: readonly KernelInsn[], start: bigint, end: bigint): KernelInsn[];

  // ---- ABI ----
  /** Register numbers (RegisterFile.get) of the integer argument registers, in order. */
  readonly argumentRegisters: readonly number[];
  /** Arguments 0..count-1 at a function's first instruction (the return address not yet pushed on ARM, on the stack on x86-64). */
  entryArgs(regs: RegisterFile, count: number, read: MemoryRead): bigint[];
  /** Arguments 0..count-1 at a call instruction (SDT sites): the callee's arguments, before the call. */
  callArgs(regs: RegisterFile, count: number, read: MemoryRead): bigint[];
  /** The return-value register (rax / r0). */
  returnValue(regs: RegisterFile): bigint;
  /** Register numbers of the system-call arguments of a CPU stopped in user mode. */
  readonly syscallArgRegisters: readonly number[];
  /** Where the guest kernel's trap frame keeps the user registers. */
  readonly userFrame: UserFrameLayout;
  /** uregs[index], numbered as this ISA's regs.d numbers it; undefined for a number that names no register. */
  userRegister(index: number): UserRegister | undefined;
  /** D's regs.d for this ISA: the R_* inline constants that index uregs[]. */
  readonly regsLibrary: string;
  /** An ELF function symbol's value as a code address (ARM: without the Thumb bit). */
  codeAddress(symbolValue: bigint): bigint;

  // ---- frames ----
  /**
   * Whether the function at `start` has set up its frame when stopped at
   * `pc` (not its first instruction): false at a return where the frame is
   * already gone, or in a function that builds no frame. `original` reads
   * the text as linked; `thumb`: the function is ARM T32 code.
   */
  frameEstablished(start: bigint, pc: bigint, original: (address: bigint, length: number) => Uint8Array | undefined, thumb?: boolean): boolean;
  /** The return address into the caller when the frame is not set up (the first instruction, a return): x86-64 [sp], ARM lr. */
  returnAddress(regs: RegisterFile, read: MemoryRead): bigint | undefined;
}

/** Reads `count` words of `wordSize` at `start`, 0 for words that fault. */
export function readWords(read: MemoryRead, start: bigint, wordSize: 4 | 8, count: number): bigint[] {
  if (count <= 0) return [];
  const whole = read(start, count * wordSize);
  if ('bytes' in whole) return wordsOf(whole.bytes, wordSize);
  // Some word faulted: read one at a time and give 0 for the unreadable ones.
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const w = read(start + BigInt(i * wordSize), wordSize);
    out.push('fault' in w ? 0n : wordsOf(w.bytes, wordSize)[0]!);
  }
  return out;
}

/** The little-endian words of `bytes`. */
function wordsOf(bytes: Uint8Array, wordSize: 4 | 8): bigint[] {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: bigint[] = [];
  for (let o = 0; o + wordSize <= bytes.length; o += wordSize) out.push(wordSize === 8 ? dv.getBigUint64(o, true) : BigInt(dv.getUint32(o, true)));
  return out;
}

/** Arguments: the argument registers first, then stack words from `sp + skip` words. */
export function registerThenStackArgs(support: Pick<IsaSupport, 'argumentRegisters' | 'wordSize'>, regs: RegisterFile, count: number, read: MemoryRead, skip: number): bigint[] {
  const inRegisters = Math.min(count, support.argumentRegisters.length);
  const out = support.argumentRegisters.slice(0, inRegisters).map((r) => regs.get(r));
  return out.concat(readWords(read, regs.sp() + BigInt(skip * support.wordSize), support.wordSize, count - inRegisters));
}

/** Whether `a` lies in one of the ranges. */
export function inRanges(ranges: AddressRanges | undefined, a: bigint): boolean {
  if (!ranges) return false;
  for (const r of ranges) if (a >= r.start && a < r.end) return true;
  return false;
}

/** Branch targets inside [start, end) of a function's direct jumps. */
export function internalTargets(insns: readonly KernelInsn[], start: bigint, end: bigint): Set<bigint> {
  const s = new Set<bigint>();
  for (const i of insns) if (i.target !== undefined && i.target >= start && i.target < end) s.add(i.target);
  return s;
}

/** The little-endian 32-bit word at the start of `bytes`, undefined when there are fewer than 4. */
export function word32(bytes: Uint8Array | undefined): number | undefined {
  return bytes && bytes.length >= 4 ? (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0 : undefined;
}
