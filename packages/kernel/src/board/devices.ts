// The board's devices (BOARD.md section 3): console, timer, interrupt
// controller, initrd window, power and CPU start, behind one MMIO entry point
// the CPU cores call for every access to the device window.
//
// Invariants:
// - Only aligned 32-bit accesses reach a register; anything else reads 0 and
//   is ignored, and is reported once per address through `host.log`.
// - Time is the machine's virtual clock as each CPU sees it, read through
//   `clock.now(cpu)`; the board never advances it.
// - Interrupt state is per CPU: `pending[cpu]` and `enable[cpu]` are the
//   controller's banked masks; a CPU's interrupt input is asserted while
//   `pending & enable` is non-zero (`interruptAsserted`).
import {
  CONSOLE_BASE,
  DEVICE_BASE,
  DEVICE_SIZE,
  INITRD_BASE,
  INTC_BASE,
  IRQ_CONSOLE,
  IRQ_IPI,
  IRQ_TIMER,
  MAX_CPUS,
  POWER_BASE,
  SMP_BASE,
  TIMER_BASE,
} from './constants.js';

/** The machine's virtual clock as the board sees it. */
export interface VirtualClock {
  /** Nanoseconds since power-on on CPU `cpu`'s clock. Never decreases. */
  now(cpu: number): number;
}

/** Initial state for a secondary CPU, copied from the start registers when START is written. */
export interface CpuStartRequest {
  cpu: number;
  entry: bigint;
  stack: bigint;
  arg: bigint;
  pageTable: bigint;
}

/** What the board needs from the machine that hosts it. */
export interface BoardHost {
  /** A byte the guest wrote to the console. */
  consoleOutput(byte: number): void;
  /** The next console input byte, or -1 when none is waiting. Consumes it. */
  consoleInput(): number;
  /** Whether console input is waiting (without consuming it). */
  consoleInputReady(): boolean;
  /** Whether the host's input is closed. */
  consoleInputClosed(): boolean;
  /** The guest asked for a secondary CPU to start. */
  startCpu(request: CpuStartRequest): void;
  /** The guest powered the machine off (or panicked). */
  powerOff(status: number, panic: boolean): void;
  /** A diagnostic about a bad device access. */
  log(message: string): void;
}

export interface BoardConfig {
  cpuCount: number;
  nsPerInsn: number;
  initrdBase: number;
  initrdSize: number;
}

const NONE = 0xffff_ffff;

/** Whether a physical address lies in the device window (a toxic range for NOFAULT reads). */
export function isDeviceAddress(paddr: number): boolean {
  return paddr >= DEVICE_BASE && paddr < DEVICE_BASE + DEVICE_SIZE;
}

export class Board {
  readonly cpuCount: number;
  private readonly config: BoardConfig;
  private readonly host: BoardHost;
  private readonly clock: VirtualClock;

  // Interrupt controller (banked).
  private readonly pending: Uint32Array;
  private readonly enable: Uint32Array;
  // Timer (banked): deadline in ns, armed flag; latched TIME_HI per CPU.
  private readonly deadline: Float64Array;
  private readonly armed: Uint8Array;
  private readonly latchedHigh: Uint32Array;
  private armedCount = 0;
  // Console.
  private consoleIrqEnable = 0;
  // CPU start registers and running set.
  private readonly startRegs = new Uint32Array(8);
  private running = 1;
  private readonly reported = new Set<string>();

  constructor(config: BoardConfig, clock: VirtualClock, host: BoardHost) {
    if (!Number.isInteger(config.cpuCount) || config.cpuCount < 1 || config.cpuCount > MAX_CPUS) {
      throw new RangeError(`cpu count must be 1 to ${MAX_CPUS}, not ${config.cpuCount}`);
    }
    this.config = config;
    this.cpuCount = config.cpuCount;
    this.clock = clock;
    this.host = host;
    this.pending = new Uint32Array(config.cpuCount);
    this.enable = new Uint32Array(config.cpuCount);
    this.deadline = new Float64Array(config.cpuCount);
    this.armed = new Uint8Array(config.cpuCount);
    this.latchedHigh = new Uint32Array(config.cpuCount);
  }

  // ---- MMIO entry points --------------------------------------------------

  mmioRead(cpu: number, paddr: number, size: number): number {
    if (size !== 4 || paddr % 4 !== 0) return this.badAccess('read', paddr, size);
    const page = paddr - (paddr % 0x1000);
    const off = paddr - page;
    switch (page) {
      case CONSOLE_BASE:
        return this.consoleRead(off);
      case TIMER_BASE:
        return this.timerRead(cpu, off);
      case INTC_BASE:
        return this.intcRead(cpu, off);
      case INITRD_BASE:
        return this.initrdRead(off);
      case SMP_BASE:
        return off < 0x20 ? this.startRegs[off >> 2]! : off === 0x24 ? this.running : 0;
      default:
        return 0;
    }
  }

  mmioWrite(cpu: number, paddr: number, size: number, value: number): void {
    if (size !== 4 || paddr % 4 !== 0) {
      this.badAccess('write', paddr, size);
      return;
    }
    value >>>= 0;
    const page = paddr - (paddr % 0x1000);
    const off = paddr - page;
    switch (page) {
      case CONSOLE_BASE:
        if (off === 0x00) this.host.consoleOutput(value & 0xff);
        else if (off === 0x0c) this.consoleIrqEnable = value & 1;
        return;
      case TIMER_BASE:
        this.timerWrite(cpu, off, value);
        return;
      case INTC_BASE:
        this.intcWrite(cpu, off, value);
        return;
      case POWER_BASE:
        if (off === 0x00 || off === 0x04) this.host.powerOff(value & 0xff, off === 0x04);
        return;
      case SMP_BASE:
        if (off < 0x20) this.startRegs[off >> 2] = value;
        else if (off === 0x20) this.startSecondary(value);
        return;
      default:
        return;
    }
  }

  // ---- Interrupt lines ---------------------------------------------------

  /** Sets IRQ `line` pending on `cpu`. */
  raise(cpu: number, line: number): void {
    this.pending[cpu]! |= 1 << line;
  }

  /**
   * Brings time-driven and level-triggered lines up to date: expired timer
   * deadlines set IRQ 0 (one-shot), waiting console input keeps IRQ 1 set on
   * CPU 0. The machine calls this at instruction-block boundaries.
   */
  update(): void {
    if (this.armedCount > 0) {
      for (let cpu = 0; cpu < this.cpuCount; cpu++) {
        if (this.armed[cpu] && this.deadline[cpu]! <= this.clock.now(cpu)) {
          this.armed[cpu] = 0;
          this.armedCount--;
          this.raise(cpu, IRQ_TIMER);
        }
      }
    }
    if (this.consoleIrqEnable && this.host.consoleInputReady()) this.raise(0, IRQ_CONSOLE);
  }

  /** Whether `cpu`'s interrupt input is asserted. */
  interruptAsserted(cpu: number): boolean {
    return (this.pending[cpu]! & this.enable[cpu]!) !== 0;
  }

  /** The lowest asserted line of `cpu`, or -1 (x86-64 delivers it as vector 32 + line). */
  lowestAssertedLine(cpu: number): number {
    const m = this.pending[cpu]! & this.enable[cpu]!;
    return m === 0 ? -1 : 31 - Math.clz32(m & -m);
  }

  /** CPU `cpu`'s armed timer deadline in ns, or undefined when its timer is not armed. */
  timerDeadline(cpu: number): number | undefined {
    return this.armed[cpu] ? this.deadline[cpu]! : undefined;
  }

  /** The earliest armed deadline of any CPU in ns, or undefined (for idle fast-forward). */
  nextDeadline(): number | undefined {
    let best: number | undefined;
    for (let cpu = 0; cpu < this.cpuCount; cpu++) {
      if (this.armed[cpu] && (best === undefined || this.deadline[cpu]! < best)) best = this.deadline[cpu]!;
    }
    return best;
  }

  // ---- Devices -------------------------------------------------------------

  private consoleRead(off: number): number {
    switch (off) {
      case 0x04: {
        const b = this.host.consoleInput();
        return b < 0 ? NONE : b & 0xff;
      }
      case 0x08: {
        const ready = this.host.consoleInputReady();
        return (ready ? 1 : 0) | 2 | (!ready && this.host.consoleInputClosed() ? 4 : 0);
      }
      case 0x0c:
        return this.consoleIrqEnable;
      default:
        return 0;
    }
  }

  private timerRead(cpu: number, off: number): number {
    switch (off) {
      case 0x00: {
        const t = this.clock.now(cpu);
        this.latchedHigh[cpu] = Math.floor(t / 2 ** 32);
        return t % 2 ** 32;
      }
      case 0x04:
        return this.latchedHigh[cpu]!;
      case 0x08:
        return this.deadline[cpu]! % 2 ** 32;
      case 0x0c:
        return Math.floor(this.deadline[cpu]! / 2 ** 32);
      case 0x10:
        return this.armed[cpu]!;
      case 0x14:
        return this.config.nsPerInsn;
      default:
        return 0;
    }
  }

  private timerWrite(cpu: number, off: number, value: number): void {
    const d = this.deadline[cpu]!;
    switch (off) {
      case 0x08:
        this.deadline[cpu] = Math.floor(d / 2 ** 32) * 2 ** 32 + value;
        return;
      case 0x0c:
        this.deadline[cpu] = value * 2 ** 32 + (d % 2 ** 32);
        return;
      case 0x10: {
        const on = value & 1;
        if (on !== this.armed[cpu]) this.armedCount += on ? 1 : -1;
        this.armed[cpu] = on;
        // A deadline already in the past fires before the CPU's next instruction.
        if (on) this.update();
        return;
      }
      default:
        return;
    }
  }

  private intcRead(cpu: number, off: number): number {
    switch (off) {
      case 0x00:
        return cpu;
      case 0x04:
        return this.cpuCount;
      case 0x08:
        return this.pending[cpu]!;
      case 0x0c:
        return this.enable[cpu]!;
      case 0x10: {
        const line = this.lowestAssertedLine(cpu);
        if (line < 0) return NONE;
        this.pending[cpu]! &= ~(1 << line);
        return line;
      }
      default:
        return 0;
    }
  }

  private intcWrite(cpu: number, off: number, value: number): void {
    switch (off) {
      case 0x0c:
        this.enable[cpu] = value;
        return;
      case 0x14:
        this.pending[cpu]! &= ~value;
        return;
      case 0x18:
        for (let target = 0; target < this.cpuCount; target++) if (value & (1 << target)) this.raise(target, IRQ_IPI);
        return;
      default:
        return;
    }
  }

  private initrdRead(off: number): number {
    const { initrdBase: base, initrdSize: size } = this.config;
    switch (off) {
      case 0x00:
        return base % 2 ** 32;
      case 0x04:
        return Math.floor(base / 2 ** 32);
      case 0x08:
        return size % 2 ** 32;
      case 0x0c:
        return Math.floor(size / 2 ** 32);
      default:
        return 0;
    }
  }

  private startSecondary(cpu: number): void {
    if (cpu === 0 || cpu >= this.cpuCount || this.running & (1 << cpu)) return;
    const r = this.startRegs;
    const pair = (i: number) => (BigInt(r[i + 1]!) << 32n) | BigInt(r[i]!);
    this.running |= 1 << cpu;
    this.host.startCpu({ cpu, entry: pair(0), stack: pair(2), arg: pair(4), pageTable: pair(6) });
  }

  private badAccess(kind: string, paddr: number, size: number): number {
    const key = `${kind}:${paddr}`;
    if (!this.reported.has(key)) {
      this.reported.add(key);
      this.host.log(`device window: ${size}-byte ${kind} at 0x${paddr.toString(16)} ignored (only aligned 32-bit accesses reach a register)`);
    }
    return 0;
  }
}
