// What the framework needs from the machine it traces, as interfaces the
// kernel package implements (dtrace-core never imports it): CPU identity and
// the virtual clock, NOFAULT-safe guest memory access, the current thread,
// stack walking and symbol lookup. `IdleMachine` is a complete machine with
// no guest: CPUs that only idle (in `kernel`idle`, IDLE_PC), a virtual clock,
// no guest memory — what the dtrace and profile providers fire on until a
// guest runs.

/** What an address lookup finds: the module (object basename) and, when known, the symbol containing it. */
export interface SymbolMatch {
  /** "kernel", a loadable module's name, or a user object's basename ("libc.so"). */
  readonly module: string;
  /** The symbol containing the address: its name and start address. */
  readonly symbol?: { readonly name: string; readonly value: bigint };
}

/** Symbol lookup the consumer needs for %a, %A, print(), stack(), ustack() and the sym() family. */
export interface ConsumerSymbols {
  /** dtrace_lookup_by_addr on a kernel address; undefined when no module contains it. */
  lookup(addr: bigint): SymbolMatch | undefined;
  /** A user address of process `pid` (Plookup_by_addr, Pobjname); undefined when the process or a mapping is unknown. */
  lookupUser?(pid: bigint, addr: bigint): SymbolMatch | undefined;
}

/** A machine with no symbol table: every address prints as hexadecimal. */
export const NO_SYMBOLS: ConsumerSymbols = { lookup: () => undefined };

/** The thread a probe fired in (curthread's identity as D sees it). */
export interface ThreadIdentity {
  readonly pid: number;
  readonly ppid: number;
  readonly tid: number;
  readonly uid: number;
  readonly gid: number;
  readonly execname: string;
  /** The kernel's thread structure (curthread), when the machine has one. */
  readonly address?: bigint;
  /** errno of the thread's last system call, when the machine knows it. */
  readonly errno?: number;
}

/** How a guest translates virtual addresses: x86-64 4-level paging, or ARMv7-A short-descriptor tables. */
export type GuestTranslation = 'x86-64' | 'armv7-short';

/** How many words `GuestMemoryWindow.translationRegisters` writes. */
export const TRANSLATION_WORDS = 6;

/**
 * Guest RAM as the framework may read it itself, with what it takes to
 * translate an address: the WebAssembly backend's loads walk the page tables
 * in it without leaving WebAssembly (wasm-walk.ts). The walk must find what
 * `load` finds for every address it translates; an address it does not take
 * (not present, not allowed, outside RAM, a device, misaligned, past the
 * address size) goes to `load`, which gives the fault.
 */
export interface GuestMemoryWindow {
  /** The WebAssembly memory that holds guest RAM (the CPU core's own). */
  readonly memory: WebAssembly.Memory;
  /** Where guest physical address 0 is in `memory`. */
  readonly ramOffset: number;
  /** Bytes of RAM from physical address 0 (below 2^32). */
  readonly ramBytes: number;
  /** Physical addresses [deviceStart, deviceEnd) are the device window: a load that reaches it faults. */
  readonly deviceStart: number;
  readonly deviceEnd: number;
  readonly translation: GuestTranslation;
  /**
   * Writes the translation registers `load` uses now into `words` from
   * `at`, TRANSLATION_WORDS of them; word 1 only when `user` (a load of user
   * memory is to come), the others always.
   * - x86-64: 0 the physical address of the PML4 of kernel loads, 1 that of
   *   user loads (0xffff_ffff for a table at or past 2^32); 2..5 unused.
   * - armv7-short: 0 TTBR0 of kernel loads, 1 TTBR0 of user loads, 2 SCTLR,
   *   3 TTBCR, 4 TTBR1, 5 DACR.
   */
  translationRegisters(words: Uint32Array, at: number, user: boolean): void;
}

export interface MachineInterface {
  /**
   * Guest RAM for loads the framework translates itself; absent on a
   * machine without guest memory, where every load goes through `load`.
   */
  readonly guestMemory?: GuestMemoryWindow | undefined;
  /** Number of CPUs; CPU ids are 0..ncpus-1. */
  readonly ncpus: number;
  /** Virtual time since boot, in nanoseconds (timestamp). */
  now(): bigint;
  /** Wall-clock time in nanoseconds since the epoch (walltimestamp). */
  walltime(): bigint;
  /**
   * NOFAULT-safe load of `size` bytes (1, 2, 4, 8, little-endian) at a guest
   * virtual address, kernel (`user` false) or current user space. Returns
   * undefined when the access would fault: the framework turns that into
   * DTRACEFLT_BADADDR instead of a guest fault.
   */
  load(addr: bigint, size: number, user: boolean): bigint | undefined;
  /**
   * Destructive copyout (copyout(), copyoutstr()): writes `bytes` into the
   * current user address space at `addr`, in order. Returns undefined when
   * all was written, else the first address that is not user-writable (the
   * bytes before it stay written, as a NOFAULT copy leaves them). A machine
   * without user memory leaves it out: every copyout faults at its
   * destination.
   */
  storeUser?(addr: bigint, bytes: Uint8Array): bigint | undefined;
  /**
   * raise() (destructive, -w): posts signal `sig` to the thread on `cpu`;
   * the kernel sends it through its own signal path when the thread goes
   * back to user mode, as illumos's t_dtrace_sig (one pending signal: a
   * second raise() before then is ignored). Returns false when `sig` is no
   * signal of the machine's (the action's illegal operation). A machine
   * without threads leaves it out: raise() does nothing.
   */
  raise?(cpu: number, sig: bigint): boolean;
  /**
   * stop() (destructive, -w): the process of the thread on `cpu` stops when
   * the thread goes back to user mode (t_dtrace_stop), until continued.
   */
  stop?(cpu: number): void;
  /**
   * chill() (destructive, -w): `cpu` spins for `ns` nanoseconds of virtual
   * time before the probe returns.
   */
  chill?(cpu: number, ns: bigint): void;
  /**
   * panic() (destructive, -w): the kernel panics on `cpu` with `message`
   * (its console shows the panic as its own panic() prints it) and the
   * machine runs no more.
   */
  panic?(cpu: number, message: string): void;
  /** The thread running on `cpu` now. */
  thread(cpu: number): ThreadIdentity;
  /**
   * Virtual time of the thread running on `cpu` (vtimestamp, illumos's
   * t_dtrace_vtime): the nanoseconds it has spent on a CPU while tracing
   * kept count; undefined when the machine does not keep it (vtimestamp is
   * then timestamp).
   */
  vtime?(cpu: number): bigint | undefined;
  /**
   * Kernel stack of `cpu` at the probe, as dtrace_getpcstack gives it:
   * program counters innermost first — the probed function's own pc, then
   * each caller's return address — without the frames of the trap and
   * probe machinery, at most `depth` of them. stack() records them.
   */
  kernelStack(cpu: number, depth: number): bigint[];
  /**
   * The return address into the caller of the function the probe is in
   * (dtrace_caller), when it differs from kernelStack's second frame — at a
   * function's entry or return the first frame already is that caller.
   */
  caller?(cpu: number): bigint;
  /**
   * uregs[index] of the thread on `cpu` (dtrace_getreg): its user register
   * numbered as the ISA's regs.d numbers them; undefined when the index names
   * no register or the thread has no user registers (the access faults).
   */
  userRegister?(cpu: number, index: number): bigint | undefined;
  /** User stack of the thread on `cpu` (dtrace_getupcstack): pc, then return addresses, at most `depth`. ustack() records them after the pid. */
  userStack(cpu: number, depth: number): bigint[];
  /** Symbol lookups for %a, %A, print(), stack(), ustack() and sym()/mod()/usym()/umod()/uaddr(). */
  readonly symbols: ConsumerSymbols;
}

/**
 * Where an idle machine's CPUs are: the kernel's idle loop, `kernel`idle`.
 * A profile probe catches an idle CPU there, so its arg0 (the kernel pc) is
 * this address and arg1 (the user pc) is 0, as on an idle illumos CPU.
 */
export const IDLE_PC = 0xffff_ffff_8000_0000n;
const IDLE_SYMBOL: SymbolMatch = { module: 'kernel', symbol: { name: 'idle', value: IDLE_PC } };
/** Bytes of the idle loop the idle machine's symbol table covers. */
const IDLE_SIZE = 16n;

/** The pid-0 idle thread every CPU of an idle machine runs. */
export const IDLE_THREAD: ThreadIdentity = { pid: 0, ppid: 0, tid: 0, uid: 0, gid: 0, execname: 'sched' };

/**
 * A machine with no guest: `ncpus` idle CPUs and a virtual clock that the
 * caller advances. Every guest load faults (there is no guest memory).
 */
export class IdleMachine implements MachineInterface {
  private clock = 0n;
  /** The idle loop is the only code the machine knows: every other address prints as hexadecimal. */
  readonly symbols: ConsumerSymbols = { lookup: (a) => (a >= IDLE_PC && a < IDLE_PC + IDLE_SIZE ? IDLE_SYMBOL : undefined) };

  constructor(
    readonly ncpus = 1,
    /** Wall-clock time at virtual time 0, ns since the epoch. */
    private readonly bootWalltime = 0n,
  ) {
    if (!Number.isInteger(ncpus) || ncpus < 1) throw new RangeError(`machine needs at least one CPU, got ${ncpus}`);
  }

  now(): bigint {
    return this.clock;
  }
  /** chill(): the CPU spins, so virtual time moves on by `ns`. */
  chill(_cpu: number, ns: bigint): void {
    this.clock += ns;
  }
  walltime(): bigint {
    return this.bootWalltime + this.clock;
  }
  /** Moves virtual time forward to `t` (never backwards). */
  advanceTo(t: bigint): void {
    if (t > this.clock) this.clock = t;
  }
  load(): bigint | undefined {
    return undefined;
  }
  thread(): ThreadIdentity {
    return IDLE_THREAD;
  }
  kernelStack(): bigint[] {
    return [];
  }
  userStack(): bigint[] {
    return [];
  }
  /** A profile probe's arg0 and arg1 on `cpu`: the idle loop's pc in the kernel, no user pc. */
  profilePcs(): [bigint, bigint] {
    return [IDLE_PC, 0n];
  }
}
