// The seam between the generic machine (machine.ts: board, virtual time,
// round-robin scheduling of CPUs, trap interposition, NOFAULT access) and the
// CPU cores of each ISA (x86.ts, arm.ts: one `CpuPort` each, wrapping the
// WebAssembly core of @wdtrace/isa-x86-as or @wdtrace/isa-arm-as).
//
// Invariants:
// - Addresses and register values cross this seam as bigint (64-bit on x86-64,
//   zero-extended 32-bit on ARM); the hot paths stay inside the ports.
// - A port never touches the board: the machine tells it the level of each
//   CPU's interrupt input and asks it to run, deliver or emulate.
// - Every host write to guest RAM that may hold code goes through
//   `codeWritten` so the cores' decode caches stay exact.
import type { CpuStartRequest } from '../board/devices.js';
import type { Isa } from '../isa.js';
import type { MemoryWindow } from './guest-memory.js';

/**
 * A trap the machine offers to the invop handlers before the guest sees it:
 * x86-64 #BP (int3; `pc` is the int3's own address) and #UD; ARM undefined
 * instruction (the DTrace breakpoint word included; `word` is the trapping
 * instruction) and BKPT.
 *
 * A port may reuse one Trap object for each of a CPU's traps (the x86-64
 * port does): a trap is the handlers' and listeners' for the length of their
 * call. One that keeps a trap past its call says so when it registers
 * (`keepsTraps`) and is given a copy of its own (see `keptTrap`).
 */
export interface Trap {
  readonly cpu: number;
  readonly kind: 'breakpoint' | 'undefined';
  /** Address of the trapping instruction. */
  readonly pc: bigint;
  /**
   * The same address as two unsigned 32-bit numbers, low and high — both or
   * neither, when the port has them at hand (the ARM port does): a handler
   * that looks the address up by them makes no bigint (ARM's `pc` is made
   * when first read).
   */
  readonly pcLow32?: number;
  readonly pcHigh32?: number;
  /** ARM: the trapping instruction word. x86-64: undefined. */
  readonly word?: number;
  /** Whether the CPU was in user mode (CPL 3 / ARM USR). */
  readonly user: boolean;
}

/** What an invop handler that claims a trap asks the machine to do. */
export type InvopResult =
  /** Perform an emulation code of the ISA (X86Emulation / the ARM core's codes); ARM passes the displaced instruction word. */
  | { readonly kind: 'emulate'; readonly code: number; readonly word?: number }
  /** Execute these original instruction bytes as if at the trap's pc (kinst, pid, sdt). */
  | { readonly kind: 'displaced'; readonly bytes: Uint8Array }
  /** The handler set the CPU state itself; resume at `pc` when given, else where the CPU is. */
  | { readonly kind: 'resume'; readonly pc?: bigint };

/**
 * A fast probe site's filter: called by the CPU core itself at the site's
 * breakpoint with the CPU and the ISA's first four argument registers
 * (zero-extended); 0 means the firing does nothing, so the core performs
 * the displaced instruction and runs on without a trap; anything else
 * takes the trap path as usual. A WebAssembly function (the core calls it
 * through its function table).
 */
export type FastSiteFilter = (cpu: number, a0: bigint, a1: bigint, a2: bigint, a3: bigint) => number;

/** The fast probe sites of a port whose core takes them (Machine.setFastSite). */
export interface FastSitePort {
  /** Registers or updates the site at `pc`; false when the core cannot take it (table full, an instruction it cannot perform so). */
  set(pc: bigint, filter: FastSiteFilter, perform: Extract<InvopResult, { kind: 'emulate' | 'displaced' }>): boolean;
  /** Takes the site out; returns the firings the core took at it. */
  remove(pc: bigint): number;
  /** The firings the core took at the site so far. */
  firings(pc: bigint): number;
  /** CPU `cpu` takes the fast path only while its retired count is below `retired` (Infinity: no bound). */
  setLimit(cpu: number, retired: number): void;
  /** Switches the fast path on or off for every site. */
  enable(on: boolean): void;
}

/** A handler of the probe-firing path: returns undefined to decline the trap. */
export type InvopHandler = (trap: Trap) => InvopResult | undefined;

/** How a handler or a trap listener takes the traps it is given. */
export interface TrapUse {
  /** It keeps traps past its call: it is given copies of its own (a port may reuse its trap objects). */
  readonly keepsTraps?: boolean;
  /** A handler that claims only traps taken in user mode (a process's probes): fast probe sites, which are kernel sites, need not ask it. */
  readonly userTrapsOnly?: boolean;
}

/** A copy of `trap` that no port changes: what a handler or listener that keeps traps is given. */
export function keptTrap(trap: Trap): Trap {
  return Object.freeze(trap.word === undefined ? { cpu: trap.cpu, kind: trap.kind, pc: trap.pc, user: trap.user } : { cpu: trap.cpu, kind: trap.kind, pc: trap.pc, word: trap.word, user: trap.user });
}

/** Why `CpuPort.run` returned. */
export type CpuStop =
  /** The instruction budget ran out. */
  | { readonly kind: 'budget' }
  /** hlt / wfi with the interrupt input low: the CPU waits for an interrupt. */
  | { readonly kind: 'halt' }
  /** A trap for the invop handlers (see `Trap`). */
  | { readonly kind: 'trap'; readonly trap: Trap }
  /**
   * Any other exception the core stopped for; the machine delivers it with
   * `deliverStop`. `vector`: x86-64 the IDT vector, ARM the vector-table
   * offset (0x04 undefined, 0x0C prefetch abort/bkpt, 0x10 data abort).
   */
  | { readonly kind: 'exception'; readonly vector: number; readonly pc: bigint }
  /** The CPU cannot go on (x86-64 triple fault, an exception with no vector yet). */
  | { readonly kind: 'fatal'; readonly reason: string; readonly pc: bigint }
  /** The port's trap handler (`setTrapHandler`), called inside the run, ended it: the trap is handled. */
  | { readonly kind: 'trapped' };

/**
 * Handles a trap a CPU took inside `CpuPort.run`, as the machine handles a
 * 'trap' stop, and answers how many more instructions the run may execute
 * (from where the CPU now is), or -1 to end it with a 'trapped' stop.
 */
export type TrapHandler = (trap: Trap) => number;

/** A NOFAULT read's answer: the bytes, or the first virtual address that did not translate (or is toxic). */
export type SafeRead = { readonly bytes: Uint8Array } | { readonly fault: bigint };

/** One CPU's registers, in the ISA's own numbering. */
export interface RegisterFile {
  pc(): bigint;
  setPc(value: bigint): void;
  /** x86-64: 0-15 = rax rcx rdx rbx rsp rbp rsi rdi r8-r15. ARM: r0-r15 of the current mode's bank. */
  get(n: number): bigint;
  set(n: number, value: bigint): void;
  sp(): bigint;
  /** Frame pointer: rbp / r11. */
  fp(): bigint;
  /** RFLAGS / CPSR. */
  flags(): number;
  userMode(): boolean;
  /** CR3 / TTBR0: the address space the CPU is in. */
  pageTableRoot(): bigint;
  /** Instructions retired by this CPU since power-on. */
  retired(): bigint;
}

/** What the generic machine needs from an ISA's CPU cores. */
export interface CpuPort {
  readonly isa: Isa;
  readonly cpuCount: number;
  /** Guest physical RAM from address 0 (a live view; ask again after anything that can grow memory). */
  ram(): Uint8Array;
  /** The host wrote guest RAM [paddr, paddr + length): drop decoded code there. */
  codeWritten(paddr: number, length: number): void;
  /** Put CPU 0 in the boot state of BOARD.md section 6 for a kernel entered at `entry`. */
  resetBoot(entry: bigint): void;
  /** Start a secondary CPU as BOARD.md section 7 says. */
  startSecondary(request: CpuStartRequest): void;
  /** Run `cpu` for at most `budget` instructions. */
  run(cpu: number, budget: number): CpuStop;
  /**
   * Traps taken inside `run` (optional; undefined: traps end the run as
   * 'trap' stops again). With a handler set, a trap does not end `run`: the
   * port calls the handler while the CPU stays inside it (no stop, no second
   * `run` call), and the run goes on for as many instructions as the handler
   * answers. The handler may call any method of the port but `run`, for any
   * CPU; the trap's CPU's retired count is exact then.
   */
  setTrapHandler?(handler: TrapHandler | undefined): void;
  /** Fast probe sites, where the core can take them (see Machine.setFastSite). */
  readonly fastSites?: FastSitePort;
  /**
   * Called from a device access during `run` (power-off): the running CPU
   * stops after the current instruction and `run` returns a `budget` stop.
   */
  requestStop?(): void;
  /**
   * The CPU's interrupt input: the lowest asserted board line (BOARD.md
   * section 4), or -1 when none is. The core takes it at the next
   * instruction boundary where interrupts are unmasked.
   */
  setInterruptLine(cpu: number, line: number): void;
  /** Deliver the exception or unclaimed trap the last stop of `cpu` reported to the guest's own vector, as the hardware would. */
  deliverStop(cpu: number): void;
  /** Perform an emulation code for a claimed trap; returns a stop when the emulation itself faulted (deliver it). */
  emulate(cpu: number, trap: Trap, code: number, word?: number): CpuStop | undefined;
  /** Execute `bytes` as the instruction at the trap's pc (pc-relative semantics as in place); a stop when it faulted. */
  executeDisplaced(cpu: number, trap: Trap, bytes: Uint8Array): CpuStop | undefined;
  /**
   * Side-effect-free read of guest virtual memory through the page tables
   * rooted at `root` (CR3 / TTBR0 value; the CPU's current one when omitted),
   * with kernel privilege. The device window is toxic: a read that reaches it
   * returns a fault at the first such address. With `into` (at least
   * `length` bytes) the bytes are read into it, and those returned are its
   * first `length`.
   */
  readVirtual(cpu: number, va: bigint, length: number, root?: bigint, into?: Uint8Array): SafeRead;
  /**
   * `readVirtual` of one little-endian word of `size` bytes (1 to 8),
   * allocating no bytes and no result: the value, or undefined when an
   * address faulted — `wordFault` then holds the first one.
   */
  readWord(cpu: number, va: bigint, size: number, root?: bigint): bigint | undefined;
  /** The first address that faulted in the last `readWord` that returned undefined. */
  readonly wordFault: bigint;
  /**
   * Copyout: writes `bytes` at `va` into pages user mode may write (through
   * the tables at `root`, the CPU's current ones when omitted), in order;
   * stops at the first address it may not write (what came before stays
   * written) and returns it; undefined when all was written.
   */
  writeVirtual(cpu: number, va: bigint, bytes: Uint8Array, root?: bigint): bigint | undefined;
  /**
   * Translate a virtual address to physical without side effects; undefined
   * when unmapped. With `userWrite`, only a page user mode may write
   * translates (the destructive actions' copyout).
   */
  translate(cpu: number, va: bigint, root?: bigint, userWrite?: boolean): number | undefined;
  registers(cpu: number): RegisterFile;
  /** Guest RAM and the translation registers of `readWord` on `kernelCpu()` (read when they are filled), for a reader that walks the tables itself (guest-memory.ts). */
  memoryWindow?(kernelCpu: () => number): MemoryWindow;
  /** Instructions retired by `cpu` since power-on, as a number (exact below 2^53): `registers(cpu).retired()` without a bigint. */
  retiredCount(cpu: number): number;
}

export type { CpuStartRequest };

/** What a port needs from the machine. */
export interface PortConfig {
  readonly cpuCount: number;
  readonly ramBytes: number;
  readonly build: 'debug' | 'release';
  /** The board's device window: loads and stores of `size` bytes at physical `paddr` by CPU `cpu`. */
  mmioRead(cpu: number, paddr: number, size: number): number;
  mmioWrite(cpu: number, paddr: number, size: number, value: number): void;
}

/** Builds the CPU port of a machine. */
export type PortFactory = (config: PortConfig) => Promise<CpuPort>;
