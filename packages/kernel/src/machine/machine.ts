// The generic machine: guest RAM and CPUs (one `CpuPort` per ISA) on the
// "virt" board (BOARD.md), a virtual clock, round-robin scheduling of the
// CPUs, trap interposition for the tracing framework, NOFAULT-safe guest
// memory access, host text patching and module loading through krtld.
//
// Invariants:
// - Every CPU has its own clock, which advances by nsPerInsn with each
//   instruction that CPU retires (and by chill()'s spins on it), so a CPU
//   computes as fast in virtual time whether the others are busy or idle.
//   The CPUs run in lockstep rounds: a round takes every CPU from the machine
//   clock (`now()` between rounds) to the round's end — at most
//   `sliceInstructions` instructions later, never past the next timer
//   deadline of any CPU or the run's `untilNs` — one CPU after the other in
//   index order; then the machine clock is the round's end. So the CPUs'
//   clocks differ by less than one round, each CPU's clock never goes back,
//   and a timer deadline falls on a round's end, taken at the same
//   instruction every run.
// - A CPU that waits (x86 `hlt`, ARM `wfi`) idles to the round's end; when
//   every CPU waits, time jumps to the next timer deadline.
// - Nothing here reads the wall clock for guest-visible behaviour, so the
//   same inputs give the same console output and the same instruction counts.
// - After every slice and every device access the board's interrupt state is
//   pushed into the port (`setInterruptLine`).
// - The machine loads the kernel image with its SDT call sites patched to
//   no-ops (`processKernelSdtSites(...).patchedImage`), never the raw image.
import { Board, type BoardHost, type CpuStartRequest } from '../board/devices.js';
import { checkRamSize, placeInitrd, writeBootInfo } from '../board/boot.js';
import { DEFAULT_EPOCH_SECONDS, DEFAULT_NS_PER_INSN, MAX_CPUS } from '../board/constants.js';
import { ET_EXEC, PT_LOAD, parseElf, type ElfFile } from '../elf/reader.js';
import { processKernelSdtSites, type KernelSdtResult, type LinkedModule } from '../krtld/link.js';
import { KmodArena } from '../krtld/arena.js';
import type { SdtSite } from '../krtld/sdt.js';
import { SymbolTable } from '../symbols/table.js';
import { defaultImages } from './images.js';
import { appendToInitrd, type InitrdFile } from './initrd.js';
import type { MemoryWindow } from './guest-memory.js';
import { KernelModules, kernelImageFromElf, moduleImageFromLinked, type KernelModuleImage, type ModuleEvent } from './kernel-modules.js';
import { PORT_FACTORIES } from './ports.js';
import { keptTrap, type CpuPort, type CpuStop, type FastSiteFilter, type InvopHandler, type InvopResult, type PortConfig, type PortFactory, type RegisterFile, type SafeRead, type Trap, type TrapUse } from './types.js';
import { ELF_MACHINE, ISAS, type Isa } from '../isa.js';

const MiB = 1024 * 1024;
const STOPPED: RunResult = Object.freeze({ kind: 'stopped' });

export interface MachineOptions {
  isa: Isa;
  /** ARM: boot the guest built as Thumb-2 (the committed `arm-thumb` images) instead of A32 (default false). */
  thumb?: boolean;
  /** 1 to 8 (default 1). */
  cpus?: number;
  /** Bytes of RAM (default 64 MiB). */
  ramBytes?: number;
  /** Virtual nanoseconds per instruction a CPU retires (default DEFAULT_NS_PER_INSN, 10: a CPU of 100 MIPS). */
  nsPerInsn?: number;
  /** Unix time of virtual time 0 (default 1,700,000,000). */
  epochSeconds?: number;
  /** Kernel command-line words before `--` (e.g. `quiet`, `init=/bin/sh`). */
  cmdline?: string;
  /** The program init runs and its arguments (they follow `--` on the command line). */
  args?: readonly string[];
  /** Kernel ELF (default: the committed image of `isa`). */
  kernel?: Uint8Array;
  /** Initrd, newc cpio (default: the committed image of `isa`). */
  initrd?: Uint8Array;
  /** Files added to the initrd (e.g. a host program to run), missing directories created. */
  files?: readonly InitrdFile[];
  /** Modules handed to the kernel through kmod_table before it starts. */
  modules?: readonly { name: string; bytes: Uint8Array }[];
  /** Receives console output as it is produced. */
  consoleOutput?: (bytes: Uint8Array) => void;
  /** Console input available from the start. */
  consoleInput?: string | Uint8Array;
  /** Keep console input open after `consoleInput` (more comes through `input()`); default false: input ends after it. */
  interactive?: boolean;
  /** Longest slice one CPU runs before the next gets its turn (default 10,000 instructions). */
  sliceInstructions?: number;
  /** Diagnostics (bad device accesses). */
  log?: (message: string) => void;
  /** Build of the CPU cores (default release). */
  build?: 'debug' | 'release';
  /** A CPU port factory to use instead of the built-in one for `isa`. */
  port?: PortFactory;
}

/** Why a run ended. */
export type RunResult =
  /** The guest powered the machine off; `status` is bits 7..0 of the value written. */
  | { readonly kind: 'poweroff'; readonly status: number }
  /** The guest kernel panicked (PANIC register). */
  | { readonly kind: 'panic'; readonly status: number }
  /** The instruction or virtual-time limit of the run was reached. */
  | { readonly kind: 'limit' }
  /**
   * Interactive input only: every CPU waits and console input is still open.
   * The host waits for input (or in real time until `deadlineNs`, the next
   * timer deadline) and calls `run` again, which then moves time on.
   */
  | { readonly kind: 'input'; readonly deadlineNs?: number }
  /** Every CPU waits and nothing (timer, input) can wake one. */
  | { readonly kind: 'idle' }
  /** A CPU cannot go on (x86-64 triple fault ...). */
  | { readonly kind: 'fatal'; readonly cpu: number; readonly reason: string; readonly pc: bigint }
  /** `stop()` was called during the run; the next run goes on from there. */
  | { readonly kind: 'stopped' };

export interface RunLimits {
  /** Stop once this many more instructions (all CPUs) have retired. */
  instructions?: number;
  /** Stop once virtual time reaches this many ns since power-on. */
  untilNs?: number;
}

export class MachineError extends Error {
  override name = 'MachineError';
}

const KERNEL_BASE: Record<Isa, bigint> = { x86_64: 0xffff_ffff_8000_0000n, arm: 0xc000_0000n };

/** Quotes a word for the kernel command line (double quotes group a word). */
function cmdlineWord(word: string): string {
  if (word.includes('"')) throw new MachineError(`program argument ${JSON.stringify(word)}: the kernel command line cannot carry a double quote`);
  return word === '' || /\s/.test(word) ? `"${word}"` : word;
}

export class Machine {
  readonly isa: Isa;
  /** Whether the committed Thumb-2 build of the guest was chosen (MachineOptions.thumb). */
  readonly thumb: boolean;
  readonly cpuCount: number;
  readonly ramBytes: number;
  readonly nsPerInsn: number;
  readonly port: CpuPort;
  readonly board: Board;
  /** The kernel ELF as loaded (SDT sites patched). */
  readonly kernel: ElfFile;
  /** The core kernel's SDT sites and patches. */
  readonly kernelSdt: KernelSdtResult;
  /** Kernel and module symbols. */
  readonly symbols: SymbolTable;
  /** kmod_arena bookkeeping (modules loaded through `loadModule`). */
  readonly modules: KmodArena;
  readonly cmdline: string;
  readonly initrdBase: number;
  readonly initrdSize: number;

  private readonly slice: number;
  /** Replaced, never changed in place, so a trap iterates the list as it was when the trap came (handlers may add or remove handlers). */
  private handlers: readonly InvopHandler[] = [];
  private trapListeners: readonly ((trap: Trap, result: InvopResult | undefined) => void)[] = [];
  private readonly moduleImages: KernelModules;
  /** The ET_REL object of each module `loadModule` linked, for its image (DWARF, mapping symbols). */
  private readonly moduleObjects = new Map<string, Uint8Array>();
  private stopRequested = false;
  private readonly started: boolean[];
  private readonly halted: boolean[];
  private readonly lastRetired: number[];
  /** Each CPU's clock (ns) as of its `lastRetired` count. */
  private readonly cpuTime: number[];
  /** Secondary CPUs the guest started, with the starting CPU's time then. */
  private readonly pendingStarts: { request: CpuStartRequest; at: number }[] = [];
  private readonly consoleSink: ((bytes: Uint8Array) => void) | undefined;
  private readonly out: number[] = [];
  private readonly logSink: (message: string) => void;
  private inputQueue: Uint8Array = new Uint8Array(0);
  private inputPos = 0;
  private inputClosed: boolean;
  private inputWaiters: (() => void)[] = [];
  private retiredTotal = 0;
  /** The machine clock: where the current round started (every started CPU's clock is at least this). */
  private clockNs = 0;
  /**
   * The time the host sees between runs: the machine clock, or the clock of
   * the CPU that ended a run within a round (it stopped there), whichever is
   * later; it never goes back.
   */
  private hostNs = 0;
  /** Whether a CPU was busy (did not wait) in the current round: the round then ends at its end, not at the next deadline. */
  private roundBusy = false;
  /** The CPU inside `port.run`, or -1. */
  private currentCpu = -1;
  /** The CPU whose turn of the round is in progress (its traps included), or -1. */
  private turnCpu = -1;
  private ended: RunResult | undefined;
  private idleWaited = false;
  private readonly segments: { vaddr: bigint; paddr: number; memsz: number }[];
  private readonly aliases: readonly bigint[];

  private constructor(init: {
    options: MachineOptions;
    port: CpuPort;
    board: Board;
    kernel: ElfFile;
    kernelSdt: KernelSdtResult;
    symbols: SymbolTable;
    modules: KmodArena;
    cmdline: string;
    initrdBase: number;
    initrdSize: number;
    segments: { vaddr: bigint; paddr: number; memsz: number }[];
    ramBytes: number;
    nsPerInsn: number;
    cpus: number;
  }) {
    const o = init.options;
    this.isa = o.isa;
    this.thumb = o.thumb ?? false;
    this.cpuCount = init.cpus;
    this.ramBytes = init.ramBytes;
    this.nsPerInsn = init.nsPerInsn;
    this.port = init.port;
    this.board = init.board;
    this.kernel = init.kernel;
    this.kernelSdt = init.kernelSdt;
    this.symbols = init.symbols;
    this.modules = init.modules;
    this.cmdline = init.cmdline;
    this.initrdBase = init.initrdBase;
    this.initrdSize = init.initrdSize;
    this.segments = init.segments;
    this.aliases = [...new Set(init.segments.filter((s) => s.vaddr !== BigInt(s.paddr)).map((s) => s.vaddr - BigInt(s.paddr)))];
    this.slice = o.sliceInstructions ?? 10_000;
    this.started = Array.from({ length: init.cpus }, (_, i) => i === 0);
    this.halted = Array.from({ length: init.cpus }, () => false);
    this.lastRetired = Array.from({ length: init.cpus }, () => 0);
    this.cpuTime = Array.from({ length: init.cpus }, () => 0);
    this.consoleSink = o.consoleOutput;
    this.logSink = o.log ?? (() => {});
    this.inputClosed = !o.interactive;
    if (o.consoleInput !== undefined) this.input(o.consoleInput);
    this.moduleImages = new KernelModules(kernelImageFromElf(init.kernel, init.kernelSdt.sites));
    this.modules.addListener({
      loaded: (linked) => this.moduleImages.loaded(moduleImageFromLinked(linked, this.moduleObjects.get(linked.name)!)),
      unloaded: (linked) => {
        this.moduleObjects.delete(linked.name);
        this.moduleImages.unloaded(linked.name);
      },
    });
  }

  /** Builds a machine, loads the kernel, initrd and boot modules, and puts CPU 0 at the kernel's entry. */
  static async create(options: MachineOptions): Promise<Machine> {
    const isa = options.isa;
    if (!ISAS.includes(isa)) throw new MachineError(`unknown ISA ${JSON.stringify(isa)} (x86_64 or arm)`);
    const cpus = options.cpus ?? 1;
    if (!Number.isInteger(cpus) || cpus < 1 || cpus > MAX_CPUS) throw new MachineError(`cpus must be 1 to ${MAX_CPUS}, not ${cpus}`);
    const ramBytes = options.ramBytes ?? 64 * MiB;
    const ramError = checkRamSize(isa, ramBytes);
    if (ramError) throw new MachineError(ramError);
    const nsPerInsn = options.nsPerInsn ?? DEFAULT_NS_PER_INSN;
    if (!Number.isInteger(nsPerInsn) || nsPerInsn < 1) throw new MachineError(`nsPerInsn must be a whole number of at least 1, not ${nsPerInsn}`);
    const slice = options.sliceInstructions ?? 10_000;
    if (!Number.isInteger(slice) || slice < 1) throw new MachineError(`sliceInstructions must be a positive whole number, not ${slice}`);

    if (options.thumb && isa !== 'arm') throw new MachineError(`the guest is built as Thumb-2 code only for arm, not ${isa}`);
    const images = options.kernel && options.initrd ? undefined : defaultImages(isa, { thumb: options.thumb });
    const kernelBytes = options.kernel ?? images!.kernel;
    let initrd = options.initrd ?? images!.initrd;
    if (options.files?.length) {
      try {
        initrd = appendToInitrd(initrd, options.files);
      } catch (e) {
        throw new MachineError((e as Error).message);
      }
    }

    let raw: ElfFile;
    try {
      raw = parseElf(kernelBytes);
    } catch (e) {
      throw new MachineError(`kernel image: ${(e as Error).message}`);
    }
    if (raw.machine !== ELF_MACHINE[isa]) throw new MachineError(`kernel image is for ${raw.machineName}, not ${isa}`);
    if (raw.type !== ET_EXEC) throw new MachineError(`kernel image is not an executable (ELF type ${raw.type})`);
    const kernelSdt = processKernelSdtSites(raw);
    const kernel = parseElf(kernelSdt.patchedImage);

    let wordList = options.cmdline ?? '';
    if (options.args && options.args.length > 0) wordList = `${wordList}${wordList ? ' ' : ''}-- ${options.args.map(cmdlineWord).join(' ')}`;

    // The port calls back into the machine; the board is created right after it.
    let machine: Machine | undefined;
    const config: PortConfig = {
      cpuCount: cpus,
      ramBytes,
      build: options.build ?? 'release',
      mmioRead: (cpu, paddr, size) => machine!.mmioRead(cpu, paddr, size),
      mmioWrite: (cpu, paddr, size, value) => machine!.mmioWrite(cpu, paddr, size, value),
    };
    const factory = options.port ?? PORT_FACTORIES[isa];
    if (!factory) throw new MachineError(`no CPU port for ${isa} is built into this machine`);
    const port = await factory(config);
    const ram = port.ram();

    // Kernel segments at p_paddr, bss zeroed (BOARD.md section 6).
    const segments: { vaddr: bigint; paddr: number; memsz: number }[] = [];
    let kernelEnd = 0;
    for (const ph of kernel.programHeaders) {
      if (ph.type !== PT_LOAD || ph.memsz === 0) continue;
      const paddr = Number(ph.paddr);
      if (paddr + ph.memsz > ramBytes) throw new MachineError(`kernel segment ${ph.index} (0x${paddr.toString(16)}, ${ph.memsz} bytes) does not fit in ${ramBytes / MiB} MiB of RAM`);
      ram.set(kernel.segmentData(ph), paddr);
      ram.fill(0, paddr + ph.filesz, paddr + ph.memsz);
      segments.push({ vaddr: ph.vaddr, paddr, memsz: ph.memsz });
      kernelEnd = Math.max(kernelEnd, paddr + ph.memsz);
    }
    if (segments.length === 0) throw new MachineError('kernel image has no loadable segment');
    kernelEnd = Math.ceil(kernelEnd / 4096) * 4096;
    let initrdBase: number;
    try {
      initrdBase = placeInitrd(ramBytes, kernelEnd, initrd.length);
    } catch (e) {
      throw new MachineError((e as Error).message);
    }
    ram.set(initrd, initrdBase);
    try {
      writeBootInfo(ram, {
        cpuCount: cpus,
        ramSize: ramBytes,
        initrdBase: initrd.length ? initrdBase : 0,
        initrdSize: initrd.length,
        nsPerInsn,
        kernelEnd,
        cmdline: wordList,
        epochSeconds: options.epochSeconds ?? DEFAULT_EPOCH_SECONDS,
      });
    } catch (e) {
      throw new MachineError(`boot information: ${(e as Error).message}`);
    }

    const symbols = SymbolTable.fromKernel(kernel);
    const layout = KmodArena.layoutFrom(isa, (name) => {
      const s = symbols.byName(name, 'kernel');
      return s ? { address: s.address, size: s.size } : undefined;
    });
    const modules = new KmodArena(layout, symbols.resolver());
    modules.addListener({ loaded: (m) => symbols.addModule(m), unloaded: (m) => void symbols.removeModule(m.name) });

    let clock: (cpu: number) => number = () => 0;
    let boardHost: BoardHost | undefined;
    const board = new Board(
      { cpuCount: cpus, nsPerInsn, initrdBase: initrd.length ? initrdBase : 0, initrdSize: initrd.length },
      { now: (cpu) => clock(cpu) },
      {
        consoleOutput: (b) => boardHost!.consoleOutput(b),
        consoleInput: () => boardHost!.consoleInput(),
        consoleInputReady: () => boardHost!.consoleInputReady(),
        consoleInputClosed: () => boardHost!.consoleInputClosed(),
        startCpu: (r) => boardHost!.startCpu(r),
        powerOff: (s, p) => boardHost!.powerOff(s, p),
        log: (m) => boardHost!.log(m),
      },
    );
    machine = new Machine({ options, port, board, kernel, kernelSdt, symbols, modules, cmdline: wordList, initrdBase, initrdSize: initrd.length, segments, ramBytes, nsPerInsn, cpus });
    const m = machine;
    clock = (cpu) => m.cpuNow(cpu);
    boardHost = m.boardHost();
    port.resetBoot(kernel.header.entry);
    port.setTrapHandler?.(m.trapInRun);
    for (const mod of options.modules ?? []) m.loadModule(mod.bytes, mod.name);
    return m;
  }

  // ---- time and instruction counts ---------------------------------------

  /**
   * Virtual time in ns since power-on: during a CPU's turn (in probe context
   * of a trap it took), that CPU's clock; between runs, the host's time —
   * where the run ended: the end of a round, or the CPU that stopped within
   * one.
   */
  now(): number {
    return this.turnCpu >= 0 ? this.cpuNow(this.turnCpu) : this.hostNs;
  }

  /** CPU `cpu`'s clock in ns since power-on (the time it reads from the timer). */
  cpuNow(cpu: number): number {
    const t = this.cpuTime[this.checkCpu(cpu)]!;
    if (cpu !== this.currentCpu) return t;
    return t + (this.port.retiredCount(cpu) - this.lastRetired[cpu]!) * this.nsPerInsn;
  }

  /** Instructions retired by all CPUs. */
  get instructions(): number {
    return this.retiredTotal;
  }

  /** Instructions retired by one CPU. */
  retired(cpu: number): number {
    return this.lastRetired[this.checkCpu(cpu)]!;
  }

  /** Whether CPU `cpu` has been started. */
  cpuStarted(cpu: number): boolean {
    return this.started[this.checkCpu(cpu)]!;
  }

  registers(cpu: number): RegisterFile {
    return this.port.registers(this.checkCpu(cpu));
  }

  private checkCpu(cpu: number): number {
    if (!Number.isInteger(cpu) || cpu < 0 || cpu >= this.cpuCount) throw new MachineError(`no CPU ${cpu} (the machine has ${this.cpuCount})`);
    return cpu;
  }

  // ---- console -----------------------------------------------------------

  /** Appends console input. */
  input(data: string | Uint8Array): void {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const rest = this.inputQueue.subarray(this.inputPos);
    const q = new Uint8Array(rest.length + bytes.length);
    q.set(rest);
    q.set(bytes, rest.length);
    this.inputQueue = q;
    this.inputPos = 0;
    this.wakeInputWaiters();
  }

  /** Ends console input (the guest sees end of file once the queue is drained). */
  closeInput(): void {
    this.inputClosed = true;
    this.wakeInputWaiters();
  }

  private wakeInputWaiters(): void {
    const w = this.inputWaiters;
    this.inputWaiters = [];
    for (const f of w) f();
  }

  private flushOutput(): void {
    if (this.out.length === 0) return;
    const bytes = Uint8Array.from(this.out);
    this.out.length = 0;
    this.consoleSink?.(bytes);
  }

  private boardHost(): BoardHost {
    return {
      consoleOutput: (b) => {
        this.out.push(b);
        if (this.out.length >= 4096) this.flushOutput();
      },
      consoleInput: () => (this.inputPos < this.inputQueue.length ? this.inputQueue[this.inputPos++]! : -1),
      consoleInputReady: () => this.inputPos < this.inputQueue.length,
      consoleInputClosed: () => this.inputClosed,
      startCpu: (r) => this.pendingStarts.push({ request: r, at: this.now() }),
      powerOff: (status, panic) => {
        if (this.ended === undefined) this.ended = panic ? { kind: 'panic', status } : { kind: 'poweroff', status };
        this.port.requestStop?.();
      },
      log: (m) => this.logSink(m),
    };
  }

  // ---- device window -----------------------------------------------------

  private mmioRead(cpu: number, paddr: number, size: number): number {
    // Cores pass the address as a WebAssembly i32: device addresses arrive negative.
    const v = this.board.mmioRead(cpu, paddr >>> 0, size);
    this.pushLine(cpu);
    return v | 0;
  }

  private mmioWrite(cpu: number, paddr: number, size: number, value: number): void {
    this.board.mmioWrite(cpu, paddr >>> 0, size, value);
    this.board.update();
    this.pushLines();
    if (this.fastOn) this.setFastLimit(cpu);
  }

  private pushLine(cpu: number): void {
    this.port.setInterruptLine(cpu, this.board.lowestAssertedLine(cpu));
  }

  private pushLines(): void {
    for (let cpu = 0; cpu < this.cpuCount; cpu++) this.port.setInterruptLine(cpu, this.board.lowestAssertedLine(cpu));
  }

  // ---- running -----------------------------------------------------------

  /** The result that ended the machine (power-off, panic, fatal), if any. */
  get result(): RunResult | undefined {
    return this.ended;
  }

  /**
   * Runs the CPUs until the guest powers off or panics, a CPU cannot go on,
   * a limit is reached, or every CPU waits with nothing to wake it.
   */
  run(limits: RunLimits = {}): RunResult {
    const result = this.runRounds(limits);
    this.hostNs = Math.max(this.hostNs, this.clockNs);
    return result;
  }

  private runRounds(limits: RunLimits): RunResult {
    if (this.ended) return this.ended;
    const stopAt = limits.instructions === undefined ? Infinity : this.retiredTotal + limits.instructions;
    const untilNs = limits.untilNs ?? Infinity;
    for (;;) {
      this.applyStarts();
      if (this.retiredTotal >= stopAt || this.clockNs >= untilNs) {
        this.flushOutput();
        return { kind: 'limit' };
      }
      // Deadlines the CPUs' clocks have reached fire first, so the next one lies ahead of the clock.
      this.board.update();
      const deadline = this.board.nextDeadline();
      let end = Math.min(this.clockNs + this.slice * this.nsPerInsn, untilNs);
      if (deadline !== undefined && deadline > this.clockNs) end = Math.min(end, deadline);
      // The round: each CPU in index order runs as many whole instructions as
      // fit before its clock reaches `end`, again while one that waited was
      // woken by another within the round.
      let last = -1;
      for (;;) {
        let progressed = false;
        for (let cpu = 0; cpu < this.cpuCount; cpu++) {
          this.applyStarts();
          if (!this.started[cpu]) continue;
          if (this.retiredTotal >= stopAt) {
            this.flushOutput();
            return this.stoppedWithin(last, { kind: 'limit' });
          }
          this.board.update();
          this.pushLines();
          if (this.halted[cpu] && !this.board.interruptAsserted(cpu)) continue;
          if (end - this.cpuTime[cpu]! < this.nsPerInsn) {
            // No whole instruction fits before the round's end: the CPU is busy all the same.
            this.roundBusy = true;
            continue;
          }
          const r = this.turn(cpu, end, stopAt);
          last = cpu;
          if (r.progressed) progressed = this.roundBusy = true;
          if (r.result) return this.stoppedWithin(cpu, r.result);
        }
        if (!progressed) break;
      }
      if (this.roundBusy) {
        this.endRound(end);
        this.idleWaited = false;
        continue;
      }
      // Every CPU waits: jump to the next timer deadline.
      if (!this.inputClosed && !this.idleWaited) {
        // Interactive: let the host wait (for input, or in real time until the deadline).
        this.flushOutput();
        return { kind: 'input', deadlineNs: deadline };
      }
      this.idleWaited = false;
      if (deadline === undefined || deadline <= this.clockNs) {
        this.flushOutput();
        return this.inputClosed ? { kind: 'idle' } : { kind: 'input' };
      }
      this.endRound(Math.min(deadline, untilNs));
    }
  }

  /** A run ends within a round, after CPU `cpu`'s turn (-1: none this run): the host meets the machine where that CPU stopped. */
  private stoppedWithin(cpu: number, result: RunResult): RunResult {
    if (cpu >= 0) this.hostNs = Math.max(this.hostNs, this.cpuTime[cpu]!);
    return result;
  }

  /** Ends the round at `end`: the machine clock moves there, and so does the clock of every CPU that waited. */
  private endRound(end: number): void {
    this.clockNs = end;
    this.roundBusy = false;
    for (let cpu = 0; cpu < this.cpuCount; cpu++) if (this.cpuTime[cpu]! < end) this.cpuTime[cpu] = end;
  }

  /**
   * CPU `cpu`'s turn of a round: it runs until its clock reaches `end`. A
   * handled trap or exception does not end the turn, so CPUs interleave under
   * tracing as they do untraced (and virtual time stays the same); a wait
   * (halt) does. Returns whether the CPU got anywhere, and a result when the
   * run must return (mid-round: the next run goes on with the round).
   */
  private turn(cpu: number, end: number, stopAt: number): { progressed: boolean; result?: RunResult } {
    let progressed = false;
    this.turnCpu = cpu;
    this.turnEnd = end;
    this.turnStopAt = stopAt;
    this.turnResult = undefined;
    this.trappedInRun = false;
    try {
      let budget = this.turnBudget(cpu);
      for (;;) {
        const stop = this.runSlice(cpu, budget);
        // A trap or exception handled with no instruction retired is progress too (the CPU is somewhere new).
        if (this.sliceRetired > 0 || stop.kind === 'trap' || stop.kind === 'exception' || this.trappedInRun) progressed = true;
        // A trap handled inside the run (trapInRun) ended the turn.
        if (stop.kind === 'trapped') break;
        budget = this.afterStop(cpu, stop.kind === 'trap' || stop.kind === 'exception', this.handleStop(cpu, stop));
        if (budget < 0) break;
      }
    } finally {
      this.turnCpu = -1;
    }
    const result = this.turnResult;
    return result ? { progressed, result } : { progressed };
  }

  /** The turn in progress: the time it ends at, the machine's instruction count it stops at, and a result it ended with. */
  private turnEnd = 0;
  private turnStopAt = Infinity;
  private turnResult: RunResult | undefined;
  /** Whether the turn's CPU took a trap inside a run (trapInRun). */
  private trappedInRun = false;

  /** How many instructions CPU `cpu` may run in the rest of its turn. */
  private turnBudget(cpu: number): number {
    const budget = Math.floor((this.turnEnd - this.cpuTime[cpu]!) / this.nsPerInsn);
    return this.turnStopAt === Infinity ? budget : Math.min(budget, this.turnStopAt - this.retiredTotal);
  }

  /**
   * After CPU `cpu`'s stop was handled (`fatal`: what handling it ended the
   * machine with): how many more instructions its turn runs, or -1 when the
   * turn is over — `turnResult` then holds the result the run returns, if
   * any. A handled trap or exception does not end the turn; a wait does.
   */
  private afterStop(cpu: number, trapOrException: boolean, fatal: RunResult | undefined): number {
    this.flushOutput();
    if (fatal) {
      this.turnResult = fatal;
      return -1;
    }
    if (this.ended) {
      this.turnResult = this.ended;
      return -1;
    }
    if (this.stopRequested) {
      this.stopRequested = false;
      this.turnResult = STOPPED;
      return -1;
    }
    if (!trapOrException || this.halted[cpu]) return -1;
    if (this.turnEnd - this.cpuTime[cpu]! < this.nsPerInsn || this.retiredTotal >= this.turnStopAt) return -1;
    return this.turnBudget(cpu);
  }

  /**
   * The port's trap handler: the turn's CPU took `trap` inside its run. It
   * is handled here as `turn` handles a trap stop — the slice's bookkeeping,
   * the invop handlers, the turn's checks — and the answer is how many more
   * instructions the run goes on for (-1: the turn is over). So a trap costs
   * neither a stop nor a second run call, and every CPU runs and interleaves
   * exactly as with trap stops.
   */
  private readonly trapInRun = (trap: Trap): number => {
    const cpu = trap.cpu;
    this.trappedInRun = true;
    this.account(cpu);
    this.board.update();
    this.pushLines();
    this.halted[cpu] = false;
    const more = this.afterStop(cpu, true, this.handleTrap(cpu, trap));
    if (this.fastOn) this.setFastLimit(cpu);
    return more;
  };

  private sliceRetired = 0;

  private runSlice(cpu: number, budget: number): CpuStop {
    const before = this.lastRetired[cpu]!;
    if (this.fastOn) this.setFastLimit(cpu);
    this.currentCpu = cpu;
    let stop: CpuStop;
    try {
      stop = this.port.run(cpu, budget);
    } finally {
      this.currentCpu = -1;
      this.account(cpu);
      this.sliceRetired = this.lastRetired[cpu]! - before;
    }
    this.board.update();
    this.pushLines();
    return stop;
  }

  /** Counts the instructions CPU `cpu` retired since last counted, on its clock and the machine's total. */
  private account(cpu: number): void {
    const after = this.port.retiredCount(cpu);
    const n = after - this.lastRetired[cpu]!;
    this.retiredTotal += n;
    this.cpuTime[cpu]! += n * this.nsPerInsn;
    this.lastRetired[cpu] = after;
  }

  private applyStarts(): void {
    while (this.pendingStarts.length) {
      const { request: r, at } = this.pendingStarts.shift()!;
      this.port.startSecondary(r);
      this.started[r.cpu] = true;
      this.halted[r.cpu] = false;
      this.lastRetired[r.cpu] = this.port.retiredCount(r.cpu);
      // The new CPU's clock starts where the CPU that started it was.
      this.cpuTime[r.cpu] = Math.max(this.cpuTime[r.cpu]!, this.clockNs, at);
    }
  }

  /** Handles a CPU's stop; returns a result when the machine cannot go on. */
  private handleStop(cpu: number, stop: CpuStop): RunResult | undefined {
    switch (stop.kind) {
      case 'budget':
        this.halted[cpu] = false;
        return undefined;
      case 'halt':
        this.halted[cpu] = true;
        return undefined;
      case 'exception':
        this.halted[cpu] = false;
        this.port.deliverStop(cpu);
        return undefined;
      case 'trap':
        this.halted[cpu] = false;
        return this.handleTrap(cpu, stop.trap);
      case 'fatal':
        this.ended = { kind: 'fatal', cpu, reason: stop.reason, pc: stop.pc };
        this.flushOutput();
        return this.ended;
      case 'trapped':
        // Handled inside the run already (trapInRun).
        return undefined;
    }
  }

  private handleTrap(cpu: number, trap: Trap): RunResult | undefined {
    const handlers = this.handlers;
    for (let i = 0; i < handlers.length; i++) {
      const r = handlers[i]!(trap);
      if (r) {
        this.tellTrapListeners(trap, r);
        return this.perform(cpu, trap, r);
      }
    }
    this.tellTrapListeners(trap, undefined);
    this.port.deliverStop(cpu);
    return undefined;
  }

  private tellTrapListeners(trap: Trap, result: InvopResult | undefined): void {
    const listeners = this.trapListeners;
    for (let i = 0; i < listeners.length; i++) listeners[i]!(trap, result);
  }

  private perform(cpu: number, trap: Trap, r: InvopResult): RunResult | undefined {
    let stop: CpuStop | undefined;
    switch (r.kind) {
      case 'emulate':
        stop = this.port.emulate(cpu, trap, r.code, r.word);
        break;
      case 'displaced':
        stop = this.port.executeDisplaced(cpu, trap, r.bytes);
        break;
      case 'resume':
        if (r.pc !== undefined) this.port.registers(cpu).setPc(r.pc);
        break;
    }
    // An emulated or displaced instruction retires like any other.
    this.account(cpu);
    return stop ? this.handleStop(cpu, stop) : undefined;
  }

  /**
   * Runs until the guest powers off or panics (or a limit). Waits for console
   * input when every CPU waits for it, and lets the host's event loop run
   * between chunks of work.
   */
  async runUntilPowerOff(limits: RunLimits = {}): Promise<RunResult> {
    const stopAt = limits.instructions === undefined ? Infinity : this.retiredTotal + limits.instructions;
    const chunk = 5_000_000;
    for (;;) {
      const left = stopAt - this.retiredTotal;
      const r = this.run({ instructions: Math.min(chunk, left), untilNs: limits.untilNs });
      if (r.kind === 'limit') {
        if (this.retiredTotal >= stopAt || (limits.untilNs !== undefined && this.now() >= limits.untilNs)) return r;
        await new Promise((resolve) => setTimeout(resolve, 0));
        continue;
      }
      if (r.kind === 'input') {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          this.inputWaiters.push(resolve);
          if (r.deadlineNs !== undefined) timer = setTimeout(resolve, Math.min(1000, Math.max(0, (r.deadlineNs - this.now()) / 1e6)));
        });
        clearTimeout(timer);
        this.idleWaited = true;
        continue;
      }
      return r;
    }
  }

  /**
   * Spends `ns` of virtual time on CPU `cpu` (default: the CPU whose turn is
   * in progress, else CPU 0), in place — a spin of DTrace's chill(): its
   * clock moves on, no instruction retires, and the other CPUs run on
   * meanwhile (it sits out the rounds until their clocks catch up).
   */
  spin(ns: number, cpu = this.turnCpu >= 0 ? this.turnCpu : 0): void {
    if (!Number.isFinite(ns) || ns < 0) throw new MachineError(`cannot spin for ${ns} ns`);
    this.checkCpu(cpu);
    if (this.turnCpu >= 0) {
      this.cpuTime[cpu]! += ns;
      return;
    }
    // Between runs (BEGIN, a timer's firing) the CPU spins from the host's time on.
    this.cpuTime[cpu] = Math.max(this.cpuTime[cpu]!, this.hostNs) + ns;
    this.hostNs = this.cpuTime[cpu]!;
  }

  /**
   * Panics the guest kernel from the host (DTrace's panic()): the console
   * shows the panic as the kernel's own panic() prints it, and the machine
   * ends as that panic ends it (the panic marker, status 255). The run in
   * progress returns once the current trap is handled.
   */
  panic(cpu: number, message: string): void {
    if (this.ended !== undefined) return;
    for (const b of new TextEncoder().encode(`\nKernel panic on CPU ${this.checkCpu(cpu)}: ${message}\n`)) this.out.push(b);
    this.flushOutput();
    this.ended = { kind: 'panic', status: 255 };
    this.port.requestStop?.();
  }

  /**
   * Ends the run in progress once the current instruction (or trap) is
   * handled — for an invop handler or a device access that finds the host
   * must act before the guest goes on. That run returns `{ kind: 'stopped' }`;
   * the next one goes on from there.
   */
  stop(): void {
    this.stopRequested = true;
    if (this.currentCpu >= 0) this.port.requestStop?.();
  }

  // ---- trap interposition ------------------------------------------------

  /**
   * Registers an invop handler (asked after those registered before it);
   * returns a remover. A handler that keeps the traps it is given says so
   * (`keepsTraps`): it is then given copies (see Trap).
   */
  addInvopHandler(handler: InvopHandler, use: TrapUse = {}): () => void {
    const h: InvopHandler = use.keepsTraps ? (trap) => handler(keptTrap(trap)) : handler;
    if (use.userTrapsOnly) this.userTrapHandlers.add(h);
    this.handlers = [...this.handlers, h];
    this.updateFastPath();
    return () => {
      this.handlers = without(this.handlers, h);
      this.updateFastPath();
    };
  }

  /** How many invop handlers are registered. */
  get invopHandlerCount(): number {
    return this.handlers.length;
  }

  /**
   * Hears of every trap offered to the invop handlers, after they answered:
   * the result of the one that claimed it, or undefined when none did (the
   * guest then took it). Returns the remover. A listener that keeps the
   * traps it is given says so (`keepsTraps`): it is then given copies (see Trap).
   */
  onTrap(listener: (trap: Trap, result: InvopResult | undefined) => void, use: TrapUse = {}): () => void {
    const l: typeof listener = use.keepsTraps ? (trap, result) => listener(keptTrap(trap), result) : listener;
    this.trapListeners = [...this.trapListeners, l];
    this.updateFastPath();
    return () => {
      this.trapListeners = without(this.trapListeners, l);
      this.updateFastPath();
    };
  }

  // ---- fast probe sites --------------------------------------------------
  //
  // A probe site whose firing the CPU core can decide itself (the port's
  // fastSites): at the site's breakpoint the core calls the site's filter
  // and, when it answers 0 (the firing would do nothing), performs the
  // displaced instruction itself and runs on; otherwise the trap takes the
  // trap path as usual. The breakpoint stays in the guest's code either way.
  // The core takes the fast path only where the trap path would do nothing
  // more: every handler asked before the sites' handler claims only user
  // traps (the core's fast path is for kernel mode), nobody listens to
  // traps, and the CPU's retired count is below the count at which its
  // timer deadline passes (the trap path brings the board up to date at
  // each trap and would raise the timer's interrupt there; the limits are
  // set again before each run, after each trap and after each device write).

  private readonly userTrapHandlers = new WeakSet<InvopHandler>();
  /** The handler the fast sites stand for (one at a time), and their addresses. */
  private fastHandler: InvopHandler | undefined;
  private readonly fastAddresses = new Set<bigint>();
  private fastOn = false;

  /**
   * Makes `address` a fast site of `handler` (the invop handler that claims
   * its traps, as registered): `filter` decides, and `perform` is what
   * `handler` answers for the trap there. Returns false where the port or
   * its core cannot take it (another handler has fast sites, no fast sites
   * on this ISA, a full table, an instruction the core cannot perform so).
   */
  setFastSite(handler: InvopHandler, address: bigint, filter: FastSiteFilter, perform: Extract<InvopResult, { kind: 'emulate' | 'displaced' }>): boolean {
    const sites = this.port.fastSites;
    if (sites === undefined || (this.fastHandler !== undefined && this.fastHandler !== handler)) return false;
    if (!sites.set(address, filter, perform)) return false;
    this.fastHandler = handler;
    this.fastAddresses.add(address);
    this.updateFastPath();
    return true;
  }

  /** Takes out the fast site at `address`; returns the firings the core took there (0 for no site). */
  removeFastSite(address: bigint): number {
    if (!this.fastAddresses.delete(address)) return 0;
    const n = this.port.fastSites!.remove(address);
    if (this.fastAddresses.size === 0) this.fastHandler = undefined;
    this.updateFastPath();
    return n;
  }

  /** The firings the core took at the fast site at `address` so far (0 for no site). */
  fastSiteFirings(address: bigint): number {
    return this.fastAddresses.has(address) ? this.port.fastSites!.firings(address) : 0;
  }

  /** How many fast sites there are. */
  get fastSiteCount(): number {
    return this.fastAddresses.size;
  }

  private updateFastPath(): void {
    const sites = this.port.fastSites;
    if (sites === undefined) return;
    let on = this.fastAddresses.size > 0 && this.trapListeners.length === 0;
    if (on) {
      const handlers = this.handlers;
      let i = 0;
      while (i < handlers.length && handlers[i] !== this.fastHandler && this.userTrapHandlers.has(handlers[i]!)) i++;
      on = handlers[i] === this.fastHandler;
    }
    if (on !== this.fastOn) {
      this.fastOn = on;
      sites.enable(on);
    }
    if (on) for (let cpu = 0; cpu < this.cpuCount; cpu++) this.setFastLimit(cpu);
  }

  /** CPU `cpu`'s fast-path limit: the retired count before which its timer deadline has not passed (one short, so no rounding of the clock can cross it). */
  private setFastLimit(cpu: number): void {
    if (!this.fastOn) return;
    const deadline = this.board.timerDeadline(cpu);
    const limit = deadline === undefined ? Infinity : this.lastRetired[cpu]! + Math.ceil((deadline - this.cpuTime[cpu]!) / this.nsPerInsn) - 1;
    this.port.fastSites!.setLimit(cpu, limit);
  }

  // ---- NOFAULT access ----------------------------------------------------
  //
  // Kernel reads go through the page tables of the CPU whose turn is in
  // progress — in probe context, the CPU that took the trap, as a probe's
  // loads go through its own CPU's address space — else CPU 0's. No access
  // selects a CPU in the core (which would flush its TLB).

  /** The CPU whose address space a NOFAULT access without page tables of its own goes through. */
  private accessCpu(): number {
    return this.turnCpu >= 0 ? this.turnCpu : 0;
  }

  /**
   * Reads kernel virtual memory without faults or side effects (the device
   * window refuses). With `into` (at least `length` bytes), the bytes are
   * read into it and those returned are its first `length`, so a caller
   * that reads often allocates no bytes.
   */
  readKernel(va: bigint, length: number, into?: Uint8Array): SafeRead {
    return this.readVirtual(va, length, undefined, into);
  }

  /** Reads a process's memory through the page tables at `pageTableRoot` (CR3 / TTBR0). */
  readUser(pageTableRoot: bigint, va: bigint, length: number): SafeRead {
    return this.readVirtual(va, length, pageTableRoot);
  }

  /**
   * One little-endian word of `size` bytes (1 to 8) of kernel memory, or of
   * the address space at `pageTableRoot`, read as `readKernel` / `readUser`
   * read it but allocating no bytes and no result: the value, or undefined
   * when an address faulted — `wordFault` then holds the first one.
   */
  readWord(va: bigint, size: number, pageTableRoot?: bigint): bigint | undefined {
    if (!Number.isInteger(size) || size < 1 || size > 8) throw new MachineError(`a word is 1 to 8 bytes, not ${size}`);
    return this.port.readWord(this.accessCpu(), va, size, pageTableRoot);
  }

  /** Guest RAM and `readWord`'s translation registers for a reader that walks the page tables itself (guest-memory.ts); undefined when the port offers none. */
  memoryWindow(): MemoryWindow | undefined {
    return this.port.memoryWindow?.(() => this.accessCpu());
  }

  /** The first address that faulted in the last `readWord` that returned undefined. */
  get wordFault(): bigint {
    return this.port.wordFault;
  }

  private readVirtual(va: bigint, length: number, root: bigint | undefined, into?: Uint8Array): SafeRead {
    if (!Number.isInteger(length) || length < 0) throw new MachineError(`read length must be a whole number of bytes, not ${length}`);
    if (into !== undefined && into.length < length) throw new MachineError(`a read of ${length} bytes into ${into.length}`);
    return this.port.readVirtual(this.accessCpu(), va, length, root, into);
  }

  /** Reads a NUL-terminated string of at most `max` bytes (without the NUL); `root` undefined = kernel memory. */
  readString(va: bigint, max = 256, root?: bigint): { text: string; bytes: Uint8Array } | { fault: bigint } {
    const parts: Uint8Array[] = [];
    let total = 0;
    let at = va;
    while (total < max) {
      const toPage = 4096 - Number(at & 0xfffn);
      const n = Math.min(toPage, max - total);
      const r = this.port.readVirtual(this.accessCpu(), at, n, root);
      if ('fault' in r) return r;
      const z = r.bytes.indexOf(0);
      if (z >= 0) {
        parts.push(r.bytes.subarray(0, z));
        total += z;
        break;
      }
      parts.push(r.bytes);
      total += n;
      at += BigInt(n);
    }
    const bytes = new Uint8Array(total);
    let o = 0;
    for (const p of parts) {
      bytes.set(p.subarray(0, Math.min(p.length, total - o)), o);
      o += p.length;
    }
    return { text: new TextDecoder().decode(bytes), bytes };
  }

  /**
   * Destructive copyout: writes `bytes` into user-writable pages of the
   * address space at `pageTableRoot`, in order, as DTrace's NOFAULT copy does:
   * at the first address that is not user-writable it stops (what came before
   * stays written) and returns that address; undefined when all was written.
   */
  writeUser(pageTableRoot: bigint, va: bigint, bytes: Uint8Array): bigint | undefined {
    return this.port.writeVirtual(this.accessCpu(), va, bytes, pageTableRoot);
  }

  /** copyoutstr: the string and its NUL, at most `max` bytes in all (truncated, still NUL-terminated). */
  writeUserString(pageTableRoot: bigint, va: bigint, text: string, max = 256): bigint | undefined {
    const enc = new TextEncoder().encode(text);
    const n = Math.min(enc.length, Math.max(0, max - 1));
    const bytes = new Uint8Array(n + 1);
    bytes.set(enc.subarray(0, n));
    return this.writeUser(pageTableRoot, va, bytes);
  }

  // ---- host text patching and modules ------------------------------------

  /** Physical address of a kernel virtual address: the kernel page tables, else the image's own mapping. */
  kernelPhysical(va: bigint): number | undefined {
    const pa = this.port.translate(0, va);
    // Before the ARM kernel turns its MMU on, addresses are physical: a kernel
    // virtual address then names no RAM and the image's mapping applies.
    if (pa !== undefined && pa < this.ramBytes) return pa;
    for (const s of this.segments) {
      if (va >= s.vaddr && va < s.vaddr + BigInt(s.memsz)) return s.paddr + Number(va - s.vaddr);
    }
    return undefined;
  }

  private physicalRanges(va: bigint, length: number): { pa: number; off: number; n: number }[] {
    const out: { pa: number; off: number; n: number }[] = [];
    let done = 0;
    while (done < length) {
      const at = va + BigInt(done);
      const pa = this.kernelPhysical(at);
      if (pa === undefined || pa >= this.ramBytes) throw new MachineError(`kernel address 0x${at.toString(16)} is not mapped to RAM`);
      const n = Math.min(length - done, 4096 - Number(at & 0xfffn));
      out.push({ pa, off: done, n });
      done += n;
    }
    return out;
  }

  /** Writes kernel text (or any kernel memory) from the host and drops decoded code there. */
  writeText(va: bigint, bytes: Uint8Array): void {
    const ranges = this.physicalRanges(va, bytes.length);
    const ram = this.port.ram();
    for (const r of ranges) {
      ram.set(bytes.subarray(r.off, r.off + r.n), r.pa);
      this.port.codeWritten(r.pa, r.n);
    }
  }

  /** Reads kernel text (throws for unmapped addresses, unlike the NOFAULT reads). */
  readText(va: bigint, length: number): Uint8Array {
    const out = new Uint8Array(length);
    const ram = this.port.ram();
    for (const r of this.physicalRanges(va, length)) out.set(ram.subarray(r.pa, r.pa + r.n), r.off);
    return out;
  }

  /**
   * Writes a process's text from the host (pid and usdt tracepoints): through
   * the page tables at `pageTableRoot`, whatever the pages' protection, and
   * drops decoded code there. Only that address space's pages change (the
   * guest gives every process private copies of its text). Throws for an
   * unmapped address, writing nothing.
   */
  writeUserText(pageTableRoot: bigint, va: bigint, bytes: Uint8Array): void {
    const ranges = this.userPhysicalRanges(pageTableRoot, va, bytes.length);
    const ram = this.port.ram();
    for (const r of ranges) {
      ram.set(bytes.subarray(r.off, r.off + r.n), r.pa);
      this.port.codeWritten(r.pa, r.n);
    }
  }

  /** Reads a process's text through the page tables at `pageTableRoot` (throws for unmapped addresses). */
  readUserText(pageTableRoot: bigint, va: bigint, length: number): Uint8Array {
    const out = new Uint8Array(length);
    const ram = this.port.ram();
    for (const r of this.userPhysicalRanges(pageTableRoot, va, length)) out.set(ram.subarray(r.pa, r.pa + r.n), r.off);
    return out;
  }

  private userPhysicalRanges(root: bigint, va: bigint, length: number): { pa: number; off: number; n: number }[] {
    const out: { pa: number; off: number; n: number }[] = [];
    let done = 0;
    while (done < length) {
      const at = va + BigInt(done);
      const pa = this.port.translate(0, at, root);
      if (pa === undefined || pa >= this.ramBytes) throw new MachineError(`user address 0x${at.toString(16)} is not mapped to RAM`);
      const n = Math.min(length - done, 4096 - Number(at & 0xfffn));
      out.push({ pa, off: done, n });
      done += n;
    }
    return out;
  }

  /**
   * Links a module into kmod_arena and hands it to the kernel through
   * kmod_table (BOARD.md section 8); the kernel runs its _init at its next
   * check. Returns the linked module (its SDT sites are disabled).
   */
  loadModule(bytes: Uint8Array, name: string): LinkedModule {
    this.moduleObjects.set(name, bytes);
    let load;
    try {
      load = this.modules.load(name, bytes);
    } catch (e) {
      if (!this.modules.module(name)) this.moduleObjects.delete(name);
      throw e;
    }
    for (const w of load.writes) this.writeText(w.address, w.bytes);
    return load.module;
  }

  /** The kernel's code as tracing sees it: the core kernel first, then each loaded module. */
  kernelModules(): readonly KernelModuleImage[] {
    return this.moduleImages.list();
  }

  /** Hears of modules loaded and unloaded (after their text is in place); returns the remover. */
  onModuleEvent(listener: (event: ModuleEvent) => void): () => void {
    return this.moduleImages.listen(listener);
  }

  /**
   * Differences d such that kernel text linked at v also runs at v - d: the
   * kernel's physical load address, where early boot code (and a secondary
   * CPU's entry path) runs before the MMU maps the kernel at its link
   * address. A trap at such an alias is a trap at the linked address.
   */
  textAliases(): readonly bigint[] {
    return this.aliases;
  }

  /** SDT sites of the core kernel and every loaded module. */
  sdtSites(): SdtSite[] {
    const sites = [...this.kernelSdt.sites];
    for (const name of this.modules.loaded) sites.push(...(this.modules.module(name)?.sites ?? []));
    return sites;
  }

  /** The kernel's own base of its higher-half mapping for this ISA. */
  get kernelBase(): bigint {
    return KERNEL_BASE[this.isa];
  }
}

/** `list` without the first occurrence of `item` (the same list when it is not there). */
function without<T>(list: readonly T[], item: T): readonly T[] {
  const i = list.indexOf(item);
  return i < 0 ? list : [...list.slice(0, i), ...list.slice(i + 1)];
}
