// @wdtrace/isa-arm-as — host side of the ARMv7-A core: instantiates the
// WebAssembly module (debug or release build) from embedded bytes, so it
// needs no file or network access and runs the same in Node and browsers.
// The host contract (memory, MMIO imports, stop reasons) is in README.md.
import { instantiateWasm, wasmBytes, type WasmBuild } from './generated/wasm.js';

export { wasmBytes, type WasmBuild };
export { describeA32, expandModifiedImmediate, CONDITION_NAMES, REGISTER_NAMES, type A32Instruction, type A32Class } from './describe.js';
export { disassembleA32, disassembleT32, walkT32, disassembleElf, type DisassemblyLine, type ThumbLine } from './disassemble.js';
export { describeT32, thumbExpandImmediate, itStateAfter, isT32Wide } from './describe-t32.js';
export type { ArmInstruction, ArmClass } from './arm-syntax.js';
export { armObjdumpLines, columnOf, type ArmMapping } from './objdump.js';
export { ArmFastSites, type ArmFastFilter, type ArmFastPerform } from './fast-sites.js';

/** Reasons `run` returns (and `stopReason` reports). */
export const StopReason = {
  BUDGET: 1,
  HALT: 2,
  DTRACE_BREAKPOINT: 3,
  BKPT: 4,
  UNDEFINED: 5,
  PREFETCH_ABORT: 6,
  DATA_ABORT: 7,
  SVC: 8,
  /** The host's trap handler, called inside the run (`setTrapHook`), ended it. */
  TRAPPED: 9,
} as const;

/** Exception codes (pendingException, setStopMask bits are 1 << code). */
export const ArmException = {
  UNDEFINED: 1,
  SVC: 2,
  PREFETCH_ABORT: 3,
  DATA_ABORT: 4,
  IRQ: 5,
  FIQ: 6,
  BKPT: 7,
  DTRACE_BREAKPOINT: 8,
} as const;

/** Processor modes (CPSR.M). */
/** Indices of getVfpWord/setVfpWord beyond s0-s31. */
export const VfpWord = { FPSCR: 32, FPEXC: 33, CPACR: 34 } as const;

export const ArmMode = { USR: 0x10, FIQ: 0x11, IRQ: 0x12, SVC: 0x13, ABT: 0x17, UND: 0x1b, SYS: 0x1f } as const;

export { ArmEmulation } from './emulation.js';

/**
 * Byte offsets of the words of a CPU state block (assembly/state.ts) that a
 * host may read, and write (R0 + 4n: rn, PENDING_EXC, IRQ_LINE as
 * setIrqLine writes it: 0 or 1), in place between calls at
 * `activeStateOffset()` or `homeStateOffset(cpu)` (and, for IRQ_LINE, from
 * device callbacks, as setIrqLine may be called). Each is a u32;
 * RETIRED is the low word of a u64 whose high word follows. CPSR_CTL holds
 * the mode (bits 4:0) and T (bit 5) but not the flags; the CP15 words are
 * the registers of that name.
 */
export const ArmState = {
  R0: 0,
  CPSR_CTL: 88,
  SCTLR: 224,
  TTBR0: 228,
  TTBR1: 232,
  TTBCR: 236,
  DACR: 240,
  RETIRED: 296,
  STOP_REASON: 304,
  STOP_PC: 308,
  STOP_WORD: 312,
  IRQ_LINE: 324,
  PENDING_EXC: 340,
  CPU_ID: 344,
} as const;

/** The DTrace fbt breakpoint: OR the displaced instruction's condition (bits 31:28 >> 28) into the low nibble. */
export const DTRACE_BREAKPOINT = 0xe7f000f0;
/**
 * The Thumb DTrace breakpoints: `udf #0xf0` over a 16-bit instruction, and
 * `udf.w #0xf0` (first halfword << 16 | second) where a 32-bit one is
 * displaced. Their condition is the IT block's: inside a block they stop
 * only when the slot's condition passes (see the README, "Thumb").
 */
export const DTRACE_BREAKPOINT_T16 = 0xdef0;
export const DTRACE_BREAKPOINT_T32 = 0xf7f0a0f0;

/** Physical device window served by the host's mmioRead/mmioWrite. */
export const DEVICE_WINDOW = { base: 0xf0000000, end: 0xf1000000 } as const;

/** The functions the ARM core exports (all numbers are i32/u32). */
export interface ArmCoreExports {
  memory: WebAssembly.Memory;
  expandImmediate(imm12: number): number;
  expandImmediateCarry(imm12: number, carryIn: number): number;
  /** Lays out `cpus` CPUs and `ramBytes` of RAM, resets all CPUs; 0 or -1. */
  init(cpus: number, ramBytes: number): number;
  reset(cpu: number): void;
  /** Runs up to `budget` instructions; returns a StopReason. */
  run(cpu: number, budget: number): number;
  /** Enters the guest's vector for the exception the last stop reported. */
  deliverStop(cpu: number): void;
  setStopMask(cpu: number, mask: number): void;
  /** From a device callback during run(): stop after the current instruction (run returns BUDGET). */
  requestStop(): void;
  /**
   * 1: from now on a trap (DTrace breakpoint, bkpt, undefined instruction)
   * does not end `run`: the core calls the host's `trap` (ArmCoreHost) from
   * inside it and goes on as that answers. 0: traps stop the run (default).
   */
  setTrapHook(on: number): void;
  setIrqLine(cpu: number, level: number): void;
  setFiqLine(cpu: number, level: number): void;
  /** Executes the A32 `word` as if at `address`; 0 when completed, else a StopReason. */
  executeDisplaced(cpu: number, word: number, address: number): number;
  /**
   * Executes the T32 instruction `value` (a halfword, or first << 16 | second)
   * in Thumb state as if at `address`, under the CPU's ITSTATE (which then
   * advances); 0 when completed, else a StopReason.
   */
  executeDisplacedT32(cpu: number, value: number, address: number): number;
  /** Emulates a displaced instruction by code (EmulationCode); 0 when done, else a StopReason. */
  emulate(cpu: number, code: number, word: number, address: number): number;
  /** Whether `word` is of emulation class `code` (what `emulate` checks before it runs it); 1 or 0. */
  emulationMatches(code: number, word: number): number;
  takeException(exc: number, pc: number): void;
  decodeA32(word: number): number;
  decodeT16(halfword: number): number;
  decodeT32(value: number): number;
  ramOffset(): number;
  ramBytes(): number;
  /** A CPU's state block, written home first (copies the active CPU's block). */
  stateOffset(cpu: number): number;
  stateSize(): number;
  /** The active CPU's live state block (its ArmState.CPU_ID word names the CPU); copies nothing. */
  activeStateOffset(): number;
  /** A CPU's home state block, current unless the CPU is the active one; copies nothing. */
  homeStateOffset(cpu: number): number;
  getReg(cpu: number, n: number): number;
  setReg(cpu: number, n: number, v: number): void;
  getBankedReg(cpu: number, mode: number, n: number): number;
  setBankedRegister(cpu: number, mode: number, n: number, v: number): void;
  getCpsr(cpu: number): number;
  setCpsr(cpu: number, v: number): void;
  getSpsr(cpu: number, mode: number): number;
  setSpsr(cpu: number, mode: number, v: number): void;
  /** VFP state by word: 0-31 s0-s31 (dn = s2n | s2n+1 << 32), 32 FPSCR, 33 FPEXC, 34 CPACR (see VfpWord). */
  getVfpWord(cpu: number, index: number): number;
  setVfpWord(cpu: number, index: number, v: number): void;
  retiredLow(cpu: number): number;
  retiredHigh(cpu: number): number;
  stopReason(cpu: number): number;
  stopPc(cpu: number): number;
  stopWord(cpu: number): number;
  faultAddress(cpu: number): number;
  faultStatus(cpu: number): number;
  pendingException(cpu: number): number;
  clearPending(cpu: number): void;
  invalidateCodeRange(paddr: number, len: number): void;
  flushTlb(cpu: number): void;
  readVirtual(cpu: number, va: number, size: number): number;
  peekFault(): number;
  peekFaultAddress(): number;
  /** The core's function table (growable): fast sites' filters go into it (ArmFastSites). */
  table: WebAssembly.Table;
  /** Fast probe sites (assembly/fastsite.ts): where their table and the per-CPU limits are, its capacity, the switch. */
  fastSitesOffset(): number;
  fastLimitsOffset(): number;
  fastSiteCapacity(): number;
  setFastSites(on: number): void;
}

/** Host callbacks: the device window, and traps taken inside `run`. */
export interface ArmCoreHost {
  mmioRead?(cpu: number, paddr: number, size: number): number;
  mmioWrite?(cpu: number, paddr: number, size: number, value: number): void;
  /**
   * A trap of `cpu` with the hook on (`setTrapHook(1)`), called from inside
   * `run`: the stop is recorded as if `run` had returned `reason` (stopPc,
   * stopWord, pendingException; r15 is the trapping instruction) and the
   * instructions before it have retired. Handle it as after a return (any
   * export but `run` may be called, for any CPU), then return how many more
   * instructions the run may execute from where the CPU now is, or -1 to
   * end it (`run` returns StopReason.TRAPPED). A core created without this
   * callback refuses `setTrapHook(1)`.
   */
  trap?(cpu: number, reason: number): number;
}

/** Instantiates a fresh ARMv7-A core; unclaimed device accesses read 0 and ignore writes. */
export async function createArmCore(build: WasmBuild = 'release', host: ArmCoreHost = {}): Promise<ArmCoreExports> {
  const env = {
    mmioRead: (cpu: number, paddr: number, size: number): number => (host.mmioRead ? host.mmioRead(cpu, paddr >>> 0, size) | 0 : 0),
    mmioWrite: (cpu: number, paddr: number, size: number, value: number): void => {
      host.mmioWrite?.(cpu, paddr >>> 0, size, value >>> 0);
    },
    trap: (cpu: number, reason: number): number => host.trap!(cpu, reason),
  };
  const instance = await instantiateWasm(build, { env });
  const raw = instance.exports as unknown as ArmCoreExports & { abandonRun(): void };
  // A host callback that throws unwinds through run(); leave the core usable.
  const run = (cpu: number, budget: number): number => {
    try {
      return raw.run(cpu, budget);
    } catch (error) {
      raw.abandonRun();
      throw error;
    }
  };
  const setTrapHook = (on: number): void => {
    if (on && !host.trap) throw new Error('setTrapHook: this ARM core was created without a trap callback');
    raw.setTrapHook(on ? 1 : 0);
  };
  return { ...raw, run, setTrapHook };
}

/** Guest RAM as a byte view (re-create after `init`, which may grow memory). */
export function ramView(core: ArmCoreExports): Uint8Array {
  return new Uint8Array(core.memory.buffer, core.ramOffset(), core.ramBytes());
}

/** Copies bytes into guest RAM at a physical address and invalidates decoded code there. */
export function writeRam(core: ArmCoreExports, paddr: number, bytes: Uint8Array): void {
  if (paddr < 0 || paddr + bytes.length > core.ramBytes()) {
    throw new RangeError(`writeRam: [0x${paddr.toString(16)}, +${bytes.length}) is outside guest RAM of ${core.ramBytes()} bytes`);
  }
  ramView(core).set(bytes, paddr);
  core.invalidateCodeRange(paddr, bytes.length);
}
