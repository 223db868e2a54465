// The ARM (ARMv7-A) half of the machine: a `CpuPort` over the WebAssembly
// core of @wdtrace/isa-arm-as. Boot state per BOARD.md 6.2 and 7, stops
// mapped to `CpuStop`, the IRQ input, trap emulation and displaced
// execution through the core, and side-effect-free guest reads that walk the
// short-descriptor tables here on the host (ARM ARM B3.5) so neither the
// core's TLB nor its fault registers see them.
//
// Invariants:
// - Undefined instructions (the DTrace breakpoint word included) and BKPT
//   stop to the host as traps; svc, aborts and IRQ go straight to the guest
//   vector table inside the core.
// - `vector` in an 'exception' stop is the ARM vector-table offset
//   (0x04 undefined, 0x08 svc, 0x0C prefetch abort, 0x10 data abort).
// - The device window is toxic to `readVirtual`: a read that reaches it
//   faults at its first device address.
import { ArmFastSites, createArmCore, ramView, ArmException, ArmState, StopReason, type ArmCoreExports, type WasmBuild } from '@wdtrace/isa-arm-as';
import { BOARD_ID, BOOT_STACK_TOP, BOOTINFO_PHYS, DEVICE_BASE } from '../board/constants.js';
import { DEVICE_WINDOW, type MemoryWindow } from './guest-memory.js';
import { nofaultRead, nofaultReadWord, nofaultWrite, type NofaultSpace, type WordFault } from './nofault.js';
import type { CpuPort, CpuStartRequest, CpuStop, FastSitePort, RegisterFile, SafeRead, Trap, TrapHandler } from './types.js';

/** CPSR at boot and for started secondaries: SVC mode, A, I and F masked (BOARD.md 6.2, 7). */
export const ARM_BOOT_CPSR = 0x1d3;
const MODE_MASK = 0x1f;
const MODE_USR = 0x10;
/** CPSR.T: the CPU is in Thumb state. */
const CPSR_T = 0x20;

/** Exceptions that stop to the host: the invop handlers see these first. */
const TRAP_STOP_MASK = (1 << ArmException.UNDEFINED) | (1 << ArmException.BKPT) | (1 << ArmException.DTRACE_BREAKPOINT);

/** Word indices in a CPU's state block (ArmState's byte offsets / 4). */
const W_CPSR_CTL = ArmState.CPSR_CTL >>> 2;
const W_SCTLR = ArmState.SCTLR >>> 2;
const W_TTBR0 = ArmState.TTBR0 >>> 2;
const W_TTBR1 = ArmState.TTBR1 >>> 2;
const W_TTBCR = ArmState.TTBCR >>> 2;
const W_DACR = ArmState.DACR >>> 2;
const W_RETIRED = ArmState.RETIRED >>> 2;
const W_STOP_PC = ArmState.STOP_PC >>> 2;
const W_STOP_WORD = ArmState.STOP_WORD >>> 2;
const W_PENDING_EXC = ArmState.PENDING_EXC >>> 2;
const W_CPU_ID = ArmState.CPU_ID >>> 2;
const W_IRQ_LINE = ArmState.IRQ_LINE >>> 2;

/** The ARM vector-table offset of each exception code. */
const VECTOR_OFFSET: Record<number, number> = {
  [ArmException.UNDEFINED]: 0x04,
  [ArmException.SVC]: 0x08,
  [ArmException.PREFETCH_ABORT]: 0x0c,
  [ArmException.BKPT]: 0x0c,
  [ArmException.DATA_ABORT]: 0x10,
  [ArmException.IRQ]: 0x18,
  [ArmException.FIQ]: 0x1c,
  [ArmException.DTRACE_BREAKPOINT]: 0x04,
};

export interface ArmPortOptions {
  readonly cpuCount: number;
  /** Bytes of guest RAM from physical 0. */
  readonly ramBytes: number;
  /** The board's MMIO entry points, called by the core for every device-window access. */
  mmioRead(cpu: number, paddr: number, size: number): number;
  mmioWrite(cpu: number, paddr: number, size: number, value: number): void;
  /** Which WebAssembly build of the core (default release). */
  readonly build?: WasmBuild;
}

/** Stops without data are shared (a stop is never changed). */
const BUDGET_STOP: CpuStop = Object.freeze({ kind: 'budget' });
const HALT_STOP: CpuStop = Object.freeze({ kind: 'halt' });
const TRAPPED_STOP: CpuStop = Object.freeze({ kind: 'trapped' });

/**
 * A CPU's trap, filled in again at each of its traps (see Trap: handlers
 * that keep traps get copies). The pc is kept as a number; its bigint is
 * made when first read. The trap's own enumerable properties are Trap's
 * (pc an accessor), so it reads and compares as a plain trap does.
 */
class ArmTrap implements Trap {
  kind: Trap['kind'] = 'undefined';
  word = 0;
  user = false;
  declare readonly pc: bigint;
  #pc = 0;
  #pcBig: bigint | undefined = undefined;

  constructor(readonly cpu: number) {
    Object.defineProperty(this, 'pc', { enumerable: true, get: () => (this.#pcBig ??= BigInt(this.#pc)) });
  }

  get pcLow32(): number {
    return this.#pc;
  }

  get pcHigh32(): number {
    return 0;
  }

  fill(kind: Trap['kind'], pc: number, word: number, user: boolean): this {
    this.kind = kind;
    this.#pc = pc;
    this.#pcBig = undefined;
    this.word = word;
    this.user = user;
    return this;
  }
}

/** A CPU's trap stop, its trap filled in again at each trap. */
interface ArmTrapStop {
  readonly kind: 'trap';
  readonly trap: ArmTrap;
}

export class ArmPort implements CpuPort {
  readonly isa = 'arm' as const;
  readonly cpuCount: number;
  /** The WebAssembly core (exposed for tests and tools that need more than the seam). */
  readonly core: ArmCoreExports;
  private readonly ramSize: number;
  private ramCache: Uint8Array | undefined;
  private readonly files: ArmRegisterFile[] = [];
  /**
   * The core's memory as words, for the CPU state blocks read and written in
   * place (made again after memory.grow). The active CPU's live block is at
   * `activeBlock`; every other CPU's is its home block.
   */
  private words: Uint32Array;
  private readonly activeBlock: number;
  private readonly homeBlocks: number;
  private readonly blockWords: number;
  /** Set while the core runs: device callbacks then see the running CPU's retired count through the core (it keeps part of it in a register). */
  private running = false;
  /** Per CPU: the stop its traps return, and the trap a trap handler is given (one object each, filled in at each trap). */
  private readonly trapStops: ArmTrapStop[];
  readonly fastSites: FastSitePort;
  /** Traps taken inside `run` go here (setTrapHandler). */
  private trapHandler: TrapHandler | undefined;

  private constructor(core: ArmCoreExports, cpuCount: number, ramSize: number) {
    this.core = core;
    this.cpuCount = cpuCount;
    this.ramSize = ramSize;
    this.words = new Uint32Array(core.memory.buffer);
    this.activeBlock = core.activeStateOffset() >>> 2;
    this.homeBlocks = core.homeStateOffset(0) >>> 2;
    this.blockWords = core.stateSize() >>> 2;
    this.space = { ram: () => this.ram(), ramBytes: ramSize, address: (va, offset) => (offset === 0 ? va : va + BigInt(offset)) };
    for (let cpu = 0; cpu < cpuCount; cpu++) this.files.push(new ArmRegisterFile(this, cpu));
    const sites = new ArmFastSites(core);
    // The core passes r0-r3, the AAPCS argument registers, to a site's filter.
    this.fastSites = {
      set: (pc, filter, perform) => {
        if (pc > 0xffff_ffffn) return false;
        if (perform.kind === 'displaced') return sites.set(Number(pc), filter, perform);
        // Without its word an emulation would be of the breakpoint (see emulate).
        return perform.word !== undefined && sites.set(Number(pc), filter, { kind: 'emulate', code: perform.code, word: perform.word });
      },
      remove: (pc) => (pc <= 0xffff_ffffn ? sites.remove(Number(pc)) : 0),
      firings: (pc) => (pc <= 0xffff_ffffn ? sites.firings(Number(pc)) : 0),
      setLimit: (cpu, retired) => sites.setLimit(cpu, retired),
      enable: (on) => sites.enable(on),
    };
    this.trapStops = Array.from({ length: cpuCount }, (_, cpu) => ({ kind: 'trap', trap: new ArmTrap(cpu) }));
  }

  /** Instantiates the core with `cpuCount` CPUs (all powered off but CPU 0's reset state) and `ramSize` bytes of RAM. */
  static async create(options: ArmPortOptions): Promise<ArmPort> {
    const { cpuCount, ramBytes: ramSize } = options;
    if (!Number.isInteger(cpuCount) || cpuCount < 1) throw new RangeError(`ARM machine: cpu count must be a positive integer, not ${cpuCount}`);
    if (!Number.isInteger(ramSize) || ramSize <= 0 || ramSize > DEVICE_BASE) {
      throw new RangeError(`ARM machine: RAM size must be a positive number of bytes below 0x${DEVICE_BASE.toString(16)}, not ${ramSize}`);
    }
    // The port is made after its core, whose trap callback calls into it.
    let port: ArmPort | undefined;
    const core = await createArmCore(options.build ?? 'release', {
      mmioRead: (cpu, paddr, size) => options.mmioRead(cpu, paddr, size),
      mmioWrite: (cpu, paddr, size, value) => options.mmioWrite(cpu, paddr, size, value),
      trap: (cpu, reason) => port!.trapInRun(cpu, reason),
    });
    if (core.init(cpuCount, ramSize) !== 0) throw new RangeError(`ARM machine: the core cannot lay out ${cpuCount} CPUs and ${ramSize} bytes of RAM`);
    port = new ArmPort(core, cpuCount, ramSize);
    for (let cpu = 0; cpu < cpuCount; cpu++) core.setStopMask(cpu, TRAP_STOP_MASK);
    return port;
  }

  ram(): Uint8Array {
    // memory.grow detaches the old buffer: its views read as empty
    if (!this.ramCache || this.ramCache.byteLength === 0) this.ramCache = ramView(this.core);
    return this.ramCache;
  }

  codeWritten(paddr: number, length: number): void {
    if (length > 0) this.core.invalidateCodeRange(paddr >>> 0, length >>> 0);
  }

  resetBoot(entry: bigint): void {
    this.powerOn(0, entry, BigInt(BOOT_STACK_TOP));
    this.core.setReg(0, 0, 0);
    this.core.setReg(0, 1, BOARD_ID);
    this.core.setReg(0, 2, BOOTINFO_PHYS);
  }

  startSecondary(request: CpuStartRequest): void {
    this.checkCpu(request.cpu);
    this.powerOn(request.cpu, request.entry, request.stack);
    this.core.setReg(request.cpu, 0, Number(BigInt.asUintN(32, request.arg)));
  }

  /** Architectural reset, then the boot state every ARM CPU starts in. */
  private powerOn(cpu: number, entry: bigint, stack: bigint): void {
    const core = this.core;
    core.reset(cpu);
    core.setStopMask(cpu, TRAP_STOP_MASK);
    core.setCpsr(cpu, ARM_BOOT_CPSR);
    core.setReg(cpu, 13, Number(BigInt.asUintN(32, stack)));
    core.setReg(cpu, 15, Number(BigInt.asUintN(32, entry)));
  }

  run(cpu: number, budget: number): CpuStop {
    const before = this.retiredCount(cpu);
    let reason: number;
    this.running = true;
    try {
      reason = this.core.run(cpu, budget);
    } finally {
      this.running = false;
    }
    switch (reason) {
      case StopReason.BUDGET:
        if (budget > 0 && this.retiredCount(cpu) === before) {
          const pc = BigInt(this.stateWord(cpu, ArmState.R0 + 15 * 4));
          return { kind: 'fatal', reason: `CPU ${cpu} retired nothing in ${budget} steps: it keeps taking prefetch aborts at 0x${pc.toString(16)} (is its vector table mapped?)`, pc };
        }
        return BUDGET_STOP;
      case StopReason.HALT:
        return HALT_STOP;
      case StopReason.TRAPPED:
        return TRAPPED_STOP;
      case StopReason.DTRACE_BREAKPOINT:
      case StopReason.UNDEFINED:
      case StopReason.BKPT: {
        const stop = this.trapStops[cpu]!;
        this.trapOf(stop.trap, reason);
        return stop;
      }
      default:
        return this.exceptionStop(cpu);
    }
  }

  /** Fills in `trap` with the details of its CPU's trap stop of `reason`, read in place (no call into the core). */
  private trapOf(trap: ArmTrap, reason: number): ArmTrap {
    const words = this.memoryWords();
    const block = this.blockOf(trap.cpu, words);
    return trap.fill(reason === StopReason.BKPT ? 'breakpoint' : 'undefined', words[block + W_STOP_PC]!, words[block + W_STOP_WORD]!, (words[block + W_CPSR_CTL]! & MODE_MASK) === MODE_USR);
  }

  setTrapHandler(handler: TrapHandler | undefined): void {
    this.trapHandler = handler;
    this.core.setTrapHook(handler ? 1 : 0);
  }

  /**
   * The core's trap callback: CPU `cpu` took a trap inside `run`, whose
   * instructions so far have retired (the core keeps none of its count in a
   * register while the handler runs).
   */
  private trapInRun(cpu: number, reason: number): number {
    const trap = this.trapOf(this.trapStops[cpu]!.trap, reason);
    this.running = false;
    try {
      return this.trapHandler!(trap);
    } finally {
      this.running = true;
    }
  }

  private exceptionStop(cpu: number): CpuStop {
    const words = this.memoryWords();
    const block = this.blockOf(cpu, words);
    const exc = words[block + W_PENDING_EXC]!;
    const pc = BigInt(words[block + W_STOP_PC]!);
    const vector = VECTOR_OFFSET[exc];
    if (vector === undefined) return { kind: 'fatal', reason: `CPU ${cpu} stopped with stop reason ${this.core.stopReason(cpu)} and no pending exception`, pc };
    return { kind: 'exception', vector, pc };
  }

  requestStop(): void {
    this.core.requestStop();
  }

  setInterruptLine(cpu: number, line: number): void {
    // The core's setIrqLine, in place.
    const words = this.memoryWords();
    words[this.blockOf(cpu, words) + W_IRQ_LINE] = line >= 0 ? 1 : 0;
  }

  deliverStop(cpu: number): void {
    this.core.deliverStop(cpu);
  }

  emulate(cpu: number, trap: Trap, code: number, word?: number): CpuStop | undefined {
    const displaced = word ?? trap.word;
    if (displaced === undefined) throw new Error(`ARM emulate: code ${code} at 0x${trap.pc.toString(16)} needs the displaced instruction word`);
    this.clearPending(cpu);
    // The core checks the class itself (decoding the word once per trap) and
    // changes nothing but the stop reason when the word is not of it.
    const reason = this.core.emulate(cpu, code, displaced >>> 0, trap.pcLow32 ?? Number(trap.pc));
    if (reason === StopReason.UNDEFINED && !this.core.emulationMatches(code, displaced >>> 0)) {
      throw new Error(`ARM emulate: 0x${(displaced >>> 0).toString(16).padStart(8, '0')} at 0x${trap.pc.toString(16)} is not of emulation class ${code}`);
    }
    return this.afterDisplaced(cpu, reason);
  }

  /**
   * Runs the displaced instruction in the instruction set the CPU stopped
   * in: CPSR.T set means T32 (2 bytes, or 4 for a 32-bit instruction, its
   * halfwords in memory order), with the CPU's ITSTATE applying and advancing.
   */
  executeDisplaced(cpu: number, trap: Trap, bytes: Uint8Array): CpuStop | undefined {
    if ((this.stateWord(cpu, ArmState.CPSR_CTL) & CPSR_T) !== 0) {
      if (bytes.length !== 2 && bytes.length !== 4) throw new Error(`ARM displaced execution at 0x${trap.pc.toString(16)}: a T32 instruction is 2 or 4 bytes, not ${bytes.length}`);
      const hw0 = bytes[0]! | (bytes[1]! << 8);
      const value = bytes.length === 2 ? hw0 : ((hw0 << 16) | bytes[2]! | (bytes[3]! << 8)) >>> 0;
      this.clearPending(cpu);
      return this.afterDisplaced(cpu, this.core.executeDisplacedT32(cpu, value, trap.pcLow32 ?? Number(trap.pc)));
    }
    if (bytes.length !== 4) throw new Error(`ARM displaced execution at 0x${trap.pc.toString(16)}: an A32 instruction is 4 bytes, not ${bytes.length}`);
    const word = (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0;
    this.clearPending(cpu);
    return this.afterDisplaced(cpu, this.core.executeDisplaced(cpu, word, trap.pcLow32 ?? Number(trap.pc)));
  }

  /**
   * A displaced instruction that stopped (an undefined one, a bkpt) is
   * reported for delivery; aborts and svc were taken in-guest already; a
   * displaced wfi with the interrupt input low waits like one in place.
   */
  private afterDisplaced(cpu: number, reason: number): CpuStop | undefined {
    if (reason === 0) return undefined;
    if (reason === StopReason.HALT) return HALT_STOP;
    return this.exceptionStop(cpu);
  }

  /** Guest RAM for NOFAULT access: an address past 2^32 is left as it is, and nothing translates it. */
  private readonly space: NofaultSpace;
  /** The CPU and root of the NOFAULT access in progress, for `readTranslation` / `writeTranslation`. */
  private accessCpu = 0;
  private accessRoot: bigint | undefined;
  private readonly readTranslation = (va: bigint): number | undefined => this.translateFor(this.accessCpu, va, this.accessRoot, false);
  private readonly writeTranslation = (va: bigint): number | undefined => this.translateFor(this.accessCpu, va, this.accessRoot, true);
  private readonly written = (pa: number, n: number): void => this.codeWritten(pa, n);

  readVirtual(cpu: number, va: bigint, length: number, root?: bigint, into?: Uint8Array): SafeRead {
    this.checkCpu(cpu);
    this.accessCpu = cpu;
    this.accessRoot = root;
    return nofaultRead(this.space, va, length, this.readTranslation, into);
  }

  readWord(cpu: number, va: bigint, size: number, root?: bigint): bigint | undefined {
    this.checkCpu(cpu);
    this.accessCpu = cpu;
    this.accessRoot = root;
    return nofaultReadWord(this.space, va, size, this.readTranslation, this.faultOfWord);
  }

  private readonly faultOfWord: WordFault = { fault: 0n };
  get wordFault(): bigint {
    return this.faultOfWord.fault;
  }

  writeVirtual(cpu: number, va: bigint, bytes: Uint8Array, root?: bigint): bigint | undefined {
    this.checkCpu(cpu);
    this.accessCpu = cpu;
    this.accessRoot = root;
    return nofaultWrite(this.space, va, bytes, this.writeTranslation, this.written);
  }

  translate(cpu: number, va: bigint, root?: bigint, userWrite?: boolean): number | undefined {
    this.checkCpu(cpu);
    return this.translateFor(cpu, va, root, userWrite ?? false);
  }

  private translateFor(cpu: number, va: bigint, root: bigint | undefined, userWrite: boolean): number | undefined {
    if (va < 0n || va > 0xffff_ffffn) return undefined;
    const pa = this.walk(cpu, Number(va), root);
    if (pa < 0 || (userWrite && !this.walkUserWrite)) return undefined;
    return pa;
  }

  /** Guest RAM for a reader that walks it itself: the registers `readWord` walks with on `kernelCpu()`, and the user TTBR0 (guest-memory.ts). */
  memoryWindow(kernelCpu: () => number): MemoryWindow {
    return {
      memory: this.core.memory,
      ramOffset: this.core.ramOffset(),
      ramBytes: this.ramSize,
      ...DEVICE_WINDOW,
      translation: 'armv7-short',
      translationRegisters: (out, at, userCpu) => {
        const words = this.memoryWords();
        const base = this.blockOf(kernelCpu(), words);
        out[at] = words[base + W_TTBR0]!;
        if (userCpu !== undefined) out[at + 1] = words[this.blockOf(userCpu, words) + W_TTBR0]!;
        out[at + 2] = words[base + W_SCTLR]!;
        out[at + 3] = words[base + W_TTBCR]!;
        out[at + 4] = words[base + W_TTBR1]!;
        out[at + 5] = words[base + W_DACR]!;
      },
    };
  }

  retiredCount(cpu: number): number {
    if (this.running) return (this.core.retiredHigh(cpu) >>> 0) * 0x1_0000_0000 + (this.core.retiredLow(cpu) >>> 0);
    const words = this.memoryWords();
    const block = this.blockOf(cpu, words);
    return words[block + W_RETIRED + 1]! * 0x1_0000_0000 + words[block + W_RETIRED]!;
  }

  registers(cpu: number): RegisterFile {
    this.checkCpu(cpu);
    return this.files[cpu]!;
  }

  /** A 32-bit word of CPU `cpu`'s state block (an ArmState byte offset), read in place. */
  stateWord(cpu: number, offset: number): number {
    const words = this.memoryWords();
    return words[this.blockOf(cpu, words) + (offset >>> 2)]!;
  }

  /** Writes a 32-bit word of CPU `cpu`'s state block in place: a register (ArmState.R0 + 4n), as the core's setReg does. */
  setStateWord(cpu: number, offset: number, value: number): void {
    const words = this.memoryWords();
    words[this.blockOf(cpu, words) + (offset >>> 2)] = value;
  }

  /** Drops the pending exception of a claimed stop (the core's clearPending, in place). */
  private clearPending(cpu: number): void {
    const words = this.memoryWords();
    words[this.blockOf(cpu, words) + W_PENDING_EXC] = 0;
  }

  /** The core's memory as words (made again after memory.grow, which detaches the old buffer: its views read as empty). */
  private memoryWords(): Uint32Array {
    if (this.words.length === 0) this.words = new Uint32Array(this.core.memory.buffer);
    return this.words;
  }

  /** Word index of CPU `cpu`'s live state: the active block when the core has that CPU selected, else its home block. */
  private blockOf(cpu: number, words: Uint32Array): number {
    return words[this.activeBlock + W_CPU_ID] === cpu ? this.activeBlock : this.homeBlocks + cpu * this.blockWords;
  }

  /** Whether the mapping the last successful `walk` found lets user mode write. */
  private walkUserWrite = false;

  /**
   * Short-descriptor translation table walk (ARM ARM B3.5) for a privileged
   * read, without touching the core's TLB or fault registers. `root`
   * replaces TTBR0 (another process's address space). Returns the physical
   * address, -1 when the access faults; `walkUserWrite` tells what the
   * mapping allows. Numbers only: a walk allocates nothing.
   */
  private walk(cpu: number, va: number, root?: bigint): number {
    const words = this.memoryWords();
    const block = this.blockOf(cpu, words);
    const sctlr = words[block + W_SCTLR]!;
    if ((sctlr & 1) === 0) {
      this.walkUserWrite = true;
      return va >>> 0;
    }
    const ttbcr = words[block + W_TTBCR]!;
    const n = ttbcr & 7;
    let l1: number;
    if (n === 0 || va >>> (32 - n) === 0) {
      const ttbr0 = root === undefined ? words[block + W_TTBR0]! : Number(BigInt.asUintN(32, root));
      const tableBase = (ttbr0 & ~((1 << (14 - n)) - 1)) >>> 0;
      l1 = (tableBase | (((va >>> 20) & (0xfff >>> n)) << 2)) >>> 0;
    } else {
      l1 = ((words[block + W_TTBR1]! & 0xffffc000) | ((va >>> 20) << 2)) >>> 0;
    }
    const d1 = this.tableWord(l1);
    if (d1 < 0) return -1;
    const type1 = d1 & 3;
    let pa: number;
    let domain: number;
    let ap: number;
    if (type1 === 2) {
      if (d1 & (1 << 18)) {
        domain = 0;
        pa = ((d1 & 0xff000000) | (va & 0x00ffffff)) >>> 0;
      } else {
        domain = (d1 >>> 5) & 0xf;
        pa = ((d1 & 0xfff00000) | (va & 0x000fffff)) >>> 0;
      }
      ap = ((d1 >>> 10) & 3) | ((d1 >>> 13) & 4);
    } else if (type1 === 1) {
      domain = (d1 >>> 5) & 0xf;
      const d2 = this.tableWord(((d1 & 0xfffffc00) | (((va >>> 12) & 0xff) << 2)) >>> 0);
      if (d2 < 0) return -1;
      const type2 = d2 & 3;
      if (type2 === 0) return -1;
      pa = type2 === 1 ? ((d2 & 0xffff0000) | (va & 0xffff)) >>> 0 : ((d2 & 0xfffff000) | (va & 0xfff)) >>> 0;
      ap = ((d2 >>> 4) & 3) | ((d2 >>> 7) & 4);
    } else {
      return -1;
    }
    const access = (words[block + W_DACR]! >>> (domain * 2)) & 3;
    if (access === 0 || access === 2) return -1;
    if (access === 3) {
      this.walkUserWrite = true; // manager: no permission checks
      return pa;
    }
    // Client domains check AP[2:0] (B3.7.1): 0 and 4 forbid privileged reads, only 3 lets user mode write.
    if (ap === 0 || ap === 4) return -1;
    this.walkUserWrite = ap === 3;
    return pa;
  }

  /** A translation-table word from RAM, or -1 when the table lies outside RAM. */
  private tableWord(pa: number): number {
    if (pa + 4 > this.ramSize) return -1;
    const ram = this.ram();
    return (ram[pa]! | (ram[pa + 1]! << 8) | (ram[pa + 2]! << 16) | (ram[pa + 3]! << 24)) >>> 0;
  }

  private checkCpu(cpu: number): void {
    if (!Number.isInteger(cpu) || cpu < 0 || cpu >= this.cpuCount) throw new RangeError(`ARM machine: no CPU ${cpu} (the machine has ${this.cpuCount})`);
  }
}

/** One CPU's registers as the current mode sees them. */
class ArmRegisterFile implements RegisterFile {
  constructor(
    private readonly port: ArmPort,
    private readonly cpu: number,
  ) {}

  pc(): bigint {
    return BigInt(this.port.stateWord(this.cpu, ArmState.R0 + 15 * 4));
  }
  setPc(value: bigint): void {
    this.port.setStateWord(this.cpu, ArmState.R0 + 15 * 4, Number(BigInt.asUintN(32, value)));
  }
  get(n: number): bigint {
    checkRegister(n);
    return BigInt(this.port.stateWord(this.cpu, ArmState.R0 + n * 4));
  }
  set(n: number, value: bigint): void {
    checkRegister(n);
    this.port.setStateWord(this.cpu, ArmState.R0 + n * 4, Number(BigInt.asUintN(32, value)));
  }
  sp(): bigint {
    return this.get(13);
  }
  /** The frame pointer: r11 in A32 code, r7 in Thumb code (as clang and GCC build frames for each set). */
  fp(): bigint {
    return this.get((this.port.stateWord(this.cpu, ArmState.CPSR_CTL) & CPSR_T) !== 0 ? 7 : 11);
  }
  flags(): number {
    return this.port.core.getCpsr(this.cpu) >>> 0;
  }
  userMode(): boolean {
    return (this.port.stateWord(this.cpu, ArmState.CPSR_CTL) & MODE_MASK) === MODE_USR;
  }
  pageTableRoot(): bigint {
    return BigInt(this.port.stateWord(this.cpu, ArmState.TTBR0));
  }
  retired(): bigint {
    const core = this.port.core;
    return (BigInt(core.retiredHigh(this.cpu) >>> 0) << 32n) | BigInt(core.retiredLow(this.cpu) >>> 0);
  }
}

function checkRegister(n: number): void {
  if (!Number.isInteger(n) || n < 0 || n > 15) throw new RangeError(`ARM register number must be 0-15, not ${n}`);
}

/** The machine's port factory for ARM (`PortFactory` of ports.ts). */
export function createArmPort(options: ArmPortOptions): Promise<ArmPort> {
  return ArmPort.create(options);
}
