// What the providers need to know about an instruction set, stated once: an
// `IsaSupport` object per ISA (x86/, arm/: folders holding files of the same
// names) supplies decoding, the trapping patterns and how a displaced
// instruction is performed (fbt's entry and return points with their
// emulation codes, the sdt patch, kinst's displaced execution), the ABI's
// argument and return registers, and the frame and return-address rules the
// framework's stack walks follow. Nothing ISA-shaped lives outside those
// folders. Addresses here are plain text addresses: nothing assumes kernel
// text, so a provider of user text (pid, usdt) uses the same operations.
import type { ProbeArgumentSource } from '@wdtrace/dtrace-core';
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
  /** The `count` arguments at a function's first instruction (the return address not yet pushed on ARM, on the stack on x86-64), read from `regs` and `read` on demand. */
  entryArguments(regs: RegisterFile, read: MemoryRead, count: number): FunctionArguments;
  /** The `count` arguments at a call instruction (SDT sites): the callee's arguments, before the call. */
  callArguments(regs: RegisterFile, read: MemoryRead, count: number): FunctionArguments;
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

/**
 * A function's arguments where a probe stops it — at its first instruction
 * or at a call — read only when a clause asks for one (as illumos's
 * dtrace_getarg() fetches stack arguments), never all of them on every
 * firing: the ABI's argument registers first, then the stack words from
 * `sp + skip` words on. A stack word that cannot be read is 0. One object per
 * provider and CPU serves every firing on that CPU: it reads the CPU's
 * registers as they are while the firing lasts (the CPU stays stopped at the
 * trap), and a firing passes it to the framework with no argument array.
 */
export class FunctionArguments implements ProbeArgumentSource {
  private readonly registers: readonly number[];
  private readonly wordSize: 4 | 8;

  constructor(
    abi: Pick<IsaSupport, 'argumentRegisters' | 'wordSize'>,
    private readonly regs: RegisterFile,
    /** NOFAULT reads of the memory the stack is in (the kernel's, or the process's). */
    private readonly read: MemoryRead,
    /** Words between the stack pointer and the first stack argument (x86-64's return address at a function's entry). */
    private readonly skip: number,
    /** Arguments the probe has: args[count] and beyond are 0 (set per firing where a provider's probes differ). */
    public count: number,
  ) {
    this.registers = abi.argumentRegisters;
    this.wordSize = abi.wordSize;
  }

  arg(index: number): bigint {
    if (index >= this.count) return 0n;
    const inRegisters = this.registers.length;
    if (index < inRegisters) return this.regs.get(this.registers[index]!);
    const word = this.wordSize;
    const r = this.read(this.regs.sp() + BigInt((this.skip + index - inRegisters) * word), word);
    if ('fault' in r) return 0n;
    const b = r.bytes;
    const low = (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
    if (word === 4) return BigInt(low);
    const high = (b[4]! | (b[5]! << 8) | (b[6]! << 16) | (b[7]! << 24)) >>> 0;
    return (BigInt(high) << 32n) | BigInt(low);
  }
}

/**
 * A return probe's arguments: arg0 the byte offset of the returning
 * instruction in its function (set for each firing), arg1 the return value
 * register, read if a clause asks. One per provider and CPU, as FunctionArguments.
 */
export class ReturnArguments implements ProbeArgumentSource {
  offset = 0n;

  constructor(
    private readonly abi: Pick<IsaSupport, 'returnValue'>,
    private readonly regs: RegisterFile,
  ) {}

  arg(index: number): bigint {
    return index === 0 ? this.offset : index === 1 ? this.abi.returnValue(this.regs) : 0n;
  }
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
