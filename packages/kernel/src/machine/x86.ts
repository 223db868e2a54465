// The x86-64 CPU port: the machine's `CpuPort` over the WebAssembly core of
// @wdtrace/isa-x86-as. Boot state per BOARD.md 6.1 and 7; exceptions other
// than #BP and #UD go straight to the guest's IDT inside the core; #BP and #UD
// stop the core and become traps for the invop handlers.
//
// Invariants:
// - The core acts on one selected CPU at a time; every method that acts on a
//   CPU's state selects the CPU it is asked about (selecting another CPU
//   flushes the core's TLB). Retired counts and CR3 are read for any CPU
//   without selecting it. During `run` (device callbacks) only the running CPU
//   is touched: interrupt lines of other CPUs are recorded and applied when
//   they next run.
// - The interrupt input is a level: `setInterruptLine` replaces whatever the
//   core had pending, so a line the guest acknowledged is never delivered.
// - NOFAULT reads and translations walk the page tables in RAM from TypeScript
//   (no accessed/dirty updates, no TLB fills, no CPU selection).
import { createX86Core, X86FastSites, X86Stop, type X86CoreExports } from '@wdtrace/isa-x86-as';
import { writeX86BootTables } from '../board/boot.js';
import { BOOTINFO_PHYS, X86_BOOT_GDT, X86_IRQ_VECTOR_BASE, X86_KERNEL_BASE } from '../board/constants.js';
import type { CpuStartRequest } from '../board/devices.js';
import { DEVICE_WINDOW, physicalWord, type MemoryWindow } from './guest-memory.js';
import { nofaultRead, nofaultReadWord, nofaultWrite, type NofaultSpace, type WordFault } from './nofault.js';
import type { CpuPort, CpuStop, FastSitePort, PortConfig, RegisterFile, SafeRead, Trap } from './types.js';

const VEC_BP = 3;
const VEC_UD = 6;
const CR0_BOOT = 0x1 | 0x20 | 0x1_0000 | 0x8000_0000; // PE, NE, WP, PG
const CR4_BOOT = 0x20; // PAE
const MSR_EFER = 0xc000_0080;
const EFER_BOOT = 0x1 | 0x100 | 0x400 | 0x800; // SCE, LME, LMA, NXE
const BOOT_RSP = X86_KERNEL_BASE + 0x1_0000n;
const BOOT_GDT_VA = X86_KERNEL_BASE + BigInt(X86_BOOT_GDT);

const lo = (v: bigint): number => Number(v & 0xffff_ffffn);
const hi = (v: bigint): number => Number((v >> 32n) & 0xffff_ffffn);
/** The 64-bit value of two 32-bit halves, made through a scratch word (one bigint, no intermediates). */
function pair(l: number, h: number): bigint {
  PAIR_SCRATCH.setUint32(0, l >>> 0, true);
  PAIR_SCRATCH.setUint32(4, h >>> 0, true);
  return PAIR_SCRATCH.getBigUint64(0, true);
}
const PAIR_SCRATCH = new DataView(new ArrayBuffer(8));
const TWO32 = 0x1_0000_0000;
const MAX_U64 = 0xffff_ffff_ffff_ffffn;
/** The table address bits of CR3 (and of a page-table entry). */
const CR3_TABLE = 0x000f_ffff_ffff_f000n;
/** Where `walk` splits an address into 32-bit halves. */
const VA_SCRATCH = new DataView(new ArrayBuffer(8));

/** The 9-bit index into the table of `level` (3 PML4 ... 0 page table) of the address whose halves are `low32`, `high32`. */
function tableIndex(low32: number, high32: number, level: number): number {
  switch (level) {
    case 0:
      return (low32 >>> 12) & 511;
    case 1:
      return (low32 >>> 21) & 511;
    case 2:
      return ((low32 >>> 30) | (high32 << 2)) & 511;
    default:
      return (high32 >>> 7) & 511;
  }
}
/** Stops without data are shared (a stop is never changed). */
const BUDGET_STOP: CpuStop = Object.freeze({ kind: 'budget' });
const HALT_STOP: CpuStop = Object.freeze({ kind: 'halt' });

/** A CPU's trap stop, filled in again at each of its traps (see Trap: handlers that keep traps get copies). */
interface TrapStop {
  readonly kind: 'trap';
  readonly trap: { readonly cpu: number; kind: Trap['kind']; pc: bigint; user: boolean };
}

/** Builds the x86-64 port of a machine. */
export async function createX86Port(config: PortConfig): Promise<X86Port> {
  const core = await createX86Core(config.build, { mmioRead: config.mmioRead, mmioWrite: config.mmioWrite });
  return new X86Port(core, config);
}

export class X86Port implements CpuPort {
  readonly isa = 'x86_64' as const;
  readonly cpuCount: number;
  readonly core: X86CoreExports;
  private readonly ramBytes: number;
  private view: Uint8Array;
  private dv: DataView;
  private readonly lines: number[];
  private readonly lastVector: number[];
  private readonly lastError: number[];
  private readonly fatal: (string | undefined)[];
  private readonly regFiles: RegisterFile[];
  /** The 16 general registers of the selected CPU, a view into the core's memory (made again after memory.grow). */
  private gprView: BigUint64Array;
  /** The CPU the core acts on (only this port selects one): kept here so that no call asks the core. */
  private selected = 0;
  /** Per CPU: the stop its traps return (one object, filled in at each trap). */
  private readonly trapStops: TrapStop[];
  readonly fastSites: FastSitePort;
  private readonly sites: X86FastSites;
  /**
   * Per CPU: the retired count below which the machine lets it take the
   * fast path (FastSitePort.setLimit). The core is given 0 instead while the
   * CPU's interrupt line is asserted: at every trap the machine pushes the
   * lines, and a line still asserted is raised in the core again (see
   * setInterruptLine), which only the trap path does.
   */
  private readonly fastLimits: number[];

  constructor(core: X86CoreExports, config: PortConfig) {
    this.core = core;
    this.cpuCount = config.cpuCount;
    this.ramBytes = config.ramBytes;
    this.space = { ram: () => this.ram(), ramBytes: config.ramBytes, address: (va, offset) => (offset === 0 && va >= 0n && va <= MAX_U64 ? va : BigInt.asUintN(64, va + BigInt(offset))) };
    if (core.initRam(config.ramBytes) === 0) throw new Error(`the x86-64 core could not allocate ${config.ramBytes} bytes of RAM`);
    this.view = new Uint8Array(core.memory.buffer, core.ramOffset(), config.ramBytes);
    this.dv = new DataView(core.memory.buffer, core.ramOffset(), config.ramBytes);
    this.gprView = new BigUint64Array(core.memory.buffer, core.regsOffset(), 16);
    this.lines = Array.from({ length: config.cpuCount }, () => -1);
    this.lastVector = Array.from({ length: config.cpuCount }, () => -1);
    this.lastError = Array.from({ length: config.cpuCount }, () => 0);
    this.fatal = Array.from({ length: config.cpuCount }, () => undefined);
    // Everything but #BP and #UD goes to the guest IDT without leaving the core.
    const autoDeliver = ~((1 << VEC_BP) | (1 << VEC_UD)) >>> 0;
    for (let cpu = config.cpuCount - 1; cpu >= 0; cpu--) {
      core.selectCpu(cpu);
      core.setAutoDeliver(autoDeliver);
    }
    this.selected = core.selectedCpu();
    this.regFiles = Array.from({ length: config.cpuCount }, (_, cpu) => this.makeRegisterFile(cpu));
    this.trapStops = Array.from({ length: config.cpuCount }, (_, cpu) => ({ kind: 'trap', trap: { cpu, kind: 'breakpoint', pc: 0n, user: false } }));
    const sites = (this.sites = new X86FastSites(core));
    this.fastLimits = Array.from({ length: config.cpuCount }, () => 0);
    for (let cpu = 0; cpu < config.cpuCount; cpu++) sites.setLimit(cpu, 0);
    // The core passes rdi, rsi, rdx, rcx, the SysV argument registers, to a site's filter.
    this.fastSites = {
      set: (pc, filter, perform) => sites.set(pc, filter, perform.kind === 'emulate' ? { kind: 'emulate', code: perform.code } : perform),
      remove: (pc) => sites.remove(pc),
      firings: (pc) => sites.firings(pc),
      setLimit: (cpu, retired) => {
        this.fastLimits[cpu] = retired;
        sites.setLimit(cpu, this.lines[cpu]! >= 0 ? 0 : retired);
      },
      enable: (on) => sites.enable(on),
    };
  }

  ram(): Uint8Array {
    // memory.grow detaches the old buffer: its views read as empty
    if (this.view.byteLength === 0) {
      this.view = new Uint8Array(this.core.memory.buffer, this.core.ramOffset(), this.ramBytes);
      this.dv = new DataView(this.core.memory.buffer, this.core.ramOffset(), this.ramBytes);
    }
    return this.view;
  }

  /** The general registers of the selected CPU (a live view; memory.grow detaches the old one, which then reads as empty). */
  private gprs(): BigUint64Array {
    if (this.gprView.length === 0) {
      this.gprView = new BigUint64Array(this.core.memory.buffer, this.core.regsOffset(), 16);
    }
    return this.gprView;
  }

  codeWritten(paddr: number, length: number): void {
    this.core.codeWritten(paddr, length);
  }

  private select(cpu: number): X86CoreExports {
    if (this.selected !== cpu) {
      if (cpu < 0 || cpu >= this.cpuCount) throw new RangeError(`no CPU ${cpu}`);
      this.core.selectCpu(cpu);
      this.selected = cpu;
      this.applyLine(cpu);
    }
    return this.core;
  }

  private applyLine(cpu: number): void {
    this.core.clearInterrupts();
    const line = this.lines[cpu]!;
    if (line >= 0) this.core.raiseInterrupt(X86_IRQ_VECTOR_BASE + line);
  }

  /** Long mode at CPL 0 with the boot GDT (BOARD.md 6.1 and 7). */
  private bootState(cpu: number, cr3: bigint, rip: bigint, rsp: bigint, rdi: bigint): void {
    const c = this.select(cpu);
    c.setControlRegister(4, CR4_BOOT, 0);
    c.writeMsr(MSR_EFER, EFER_BOOT, 0);
    c.setControlRegister(3, lo(cr3), hi(cr3));
    c.setControlRegister(0, CR0_BOOT, 0);
    c.setSegments(0x08, 0x10);
    c.setFlagsValue(0x2);
    c.setGdtr(lo(BOOT_GDT_VA), hi(BOOT_GDT_VA), 0x17);
    c.setIdtr(0, 0, 0);
    const regs = this.gprs();
    regs.fill(0n);
    regs[4] = rsp;
    regs[7] = rdi;
    c.setRipParts(lo(rip), hi(rip));
  }

  resetBoot(entry: bigint): void {
    const cr3 = writeX86BootTables(this.ram());
    this.bootState(0, BigInt(cr3), entry, BOOT_RSP, BigInt(BOOTINFO_PHYS));
  }

  startSecondary(request: CpuStartRequest): void {
    this.bootState(request.cpu, request.pageTable, request.entry, request.stack, request.arg);
  }

  requestStop(): void {
    this.core.requestStop();
  }

  run(cpu: number, budget: number): CpuStop {
    const c = this.select(cpu);
    const pending = this.fatal[cpu];
    if (pending !== undefined) return { kind: 'fatal', reason: pending, pc: this.pcOf(c) };
    const code = c.run(budget);
    switch (code) {
      case X86Stop.budget:
      case X86Stop.interruptWindow:
        return BUDGET_STOP;
      case X86Stop.halt:
        return HALT_STOP;
      case X86Stop.exception: {
        const vector = c.stopVector();
        const pc = pair(c.stopPcLo(), c.stopPcHi());
        this.lastVector[cpu] = vector;
        this.lastError[cpu] = c.stopErrorCode();
        // A fault of a fast site's displaced instruction is an exception, as after emulate.
        if ((vector === VEC_BP || vector === VEC_UD) && c.stoppedAtFastSite() === 0) {
          const stop = this.trapStops[cpu]!;
          const trap = stop.trap;
          trap.kind = vector === VEC_BP ? 'breakpoint' : 'undefined';
          trap.pc = pc;
          trap.user = c.getCpl() === 3;
          return stop;
        }
        return { kind: 'exception', vector, pc };
      }
      case X86Stop.tripleFault:
        return { kind: 'fatal', reason: 'triple fault', pc: pair(c.stopPcLo(), c.stopPcHi()) };
      default:
        return { kind: 'fatal', reason: `unknown stop code ${code} from the x86-64 core`, pc: this.pcOf(c) };
    }
  }

  private pcOf(c: X86CoreExports): bigint {
    return pair(c.getRipLo(), c.getRipHi());
  }

  setInterruptLine(cpu: number, line: number): void {
    const was = this.lines[cpu]!;
    const changed = was !== line;
    this.lines[cpu] = line;
    // The fast path is off while the line is asserted (see fastLimits).
    if ((was < 0) !== (line < 0)) this.sites.setLimit(cpu, line >= 0 ? 0 : this.fastLimits[cpu]!);
    // A line still asserted is raised again: the core consumed it when it was
    // taken, and a level the guest has not acknowledged is taken again.
    if (this.selected === cpu && (changed || line >= 0)) this.applyLine(cpu);
  }

  deliverStop(cpu: number): void {
    const c = this.select(cpu);
    const vector = this.lastVector[cpu]!;
    if (vector < 0) throw new Error(`CPU ${cpu} has no stop to deliver`);
    this.lastVector[cpu] = -1;
    if (c.deliverException(vector, this.lastError[cpu]!) === 2) this.fatal[cpu] = `triple fault delivering vector ${vector}`;
  }

  private afterDtraceOp(cpu: number, code: number): CpuStop | undefined {
    if (code === -1) return undefined;
    const c = this.core;
    const vector = c.stopVector();
    this.lastVector[cpu] = vector;
    this.lastError[cpu] = c.stopErrorCode();
    return { kind: 'exception', vector, pc: pair(c.stopPcLo(), c.stopPcHi()) };
  }

  emulate(cpu: number, _trap: Trap, code: number): CpuStop | undefined {
    const c = this.select(cpu);
    return this.afterDtraceOp(cpu, c.emulate(code));
  }

  executeDisplaced(cpu: number, _trap: Trap, bytes: Uint8Array): CpuStop | undefined {
    if (bytes.length < 1 || bytes.length > 15) throw new RangeError(`a displaced x86-64 instruction is 1 to 15 bytes, not ${bytes.length}`);
    const c = this.select(cpu);
    this.decodeInput().set(bytes);
    return this.afterDtraceOp(cpu, c.executeDisplaced(bytes.length));
  }

  /** The core's 16-byte input of displaced instructions (a live view, made again after memory.grow detached it). */
  private decodeInput(): Uint8Array {
    if (this.decodeInputView === undefined || this.decodeInputView.length === 0) {
      const at = (this.core as unknown as { DECODE_INPUT: WebAssembly.Global }).DECODE_INPUT.value as number;
      this.decodeInputView = new Uint8Array(this.core.memory.buffer, at, 16);
    }
    return this.decodeInputView;
  }
  private decodeInputView: Uint8Array | undefined;

  /**
   * Physical address of the top-level table (PML4) of `root` (a CR3 value),
   * or of CPU `cpu`'s CR3 when omitted — read without selecting that CPU, so
   * a NOFAULT access for one CPU while another is selected flushes no TLB.
   */
  private tableOf(cpu: number, root: bigint | undefined): number {
    if (root !== undefined) return Number(root & CR3_TABLE);
    if (cpu < 0 || cpu >= this.cpuCount) throw new RangeError(`no CPU ${cpu}`);
    const c = this.core;
    return (c.cr3HiOf(cpu) & 0xf_ffff) * TWO32 + ((c.cr3LoOf(cpu) & 0xffff_f000) >>> 0);
  }

  translate(cpu: number, va: bigint, root?: bigint, userWrite = false): number | undefined {
    return this.walk(this.tableOf(cpu, root), va, userWrite);
  }

  /**
   * 4-level walk (Intel SDM vol. 3, 4.5) over RAM from the PML4 at physical
   * `pml4`; undefined when not present or not allowed. In numbers: the
   * address and each entry are read as two 32-bit halves, so a walk
   * allocates nothing.
   */
  private walk(pml4: number, va: bigint, userWrite: boolean): number | undefined {
    // The address as two 32-bit halves (modulo 2^64), through a scratch word: no bigint is made.
    VA_SCRATCH.setBigUint64(0, va, true);
    const low32 = VA_SCRATCH.getUint32(0, true);
    const high32 = VA_SCRATCH.getUint32(4, true);
    // Canonical: bits 63..47 all equal.
    const top = high32 >>> 15;
    if (top !== 0 && top !== 0x1_ffff) return undefined;
    const dv = this.dataView();
    let table = pml4;
    for (let level = 3; level >= 0; level--) {
      const at = table + tableIndex(low32, high32, level) * 8;
      if (at + 8 > this.ramBytes) return undefined;
      const low = dv.getUint32(at, true);
      if ((low & 1) === 0) return undefined;
      if (userWrite && ((low & 2) === 0 || (low & 4) === 0)) return undefined;
      const high = (dv.getUint32(at + 4, true) & 0xf_ffff) * TWO32; // address bits 51..32
      if (level === 0) return high + ((low & 0xffff_f000) >>> 0) + (low32 & 0xfff);
      // PS: a 1 GiB (level 2) or 2 MiB (level 1) page ends the walk; the rest of the address is the offset in it.
      if (level === 2 && (low & 0x80) !== 0) return high + ((low & 0xc000_0000) >>> 0) + (low32 & 0x3fff_ffff);
      if (level === 1 && (low & 0x80) !== 0) return high + ((low & 0xffe0_0000) >>> 0) + (low32 & 0x1f_ffff);
      table = high + ((low & 0xffff_f000) >>> 0);
    }
    return undefined;
  }

  /** The RAM view `walk` reads entries through (made again after memory.grow). */
  private dataView(): DataView {
    this.ram();
    return this.dv;
  }

  /** Guest RAM for NOFAULT access: addresses wrap at 2^64, as the CPU forms them. */
  private readonly space: NofaultSpace;
  /** The PML4 of the NOFAULT access in progress, for `readTranslation` / `writeTranslation`. */
  private accessTable = 0;
  private readonly readTranslation = (va: bigint): number | undefined => this.walk(this.accessTable, va, false);
  private readonly writeTranslation = (va: bigint): number | undefined => this.walk(this.accessTable, va, true);
  private readonly written = (pa: number, n: number): void => this.codeWritten(pa, n);

  readVirtual(cpu: number, va: bigint, length: number, root?: bigint, into?: Uint8Array): SafeRead {
    this.accessTable = this.tableOf(cpu, root);
    return nofaultRead(this.space, va, length, this.readTranslation, into);
  }

  readWord(cpu: number, va: bigint, size: number, root?: bigint): bigint | undefined {
    this.accessTable = this.tableOf(cpu, root);
    return nofaultReadWord(this.space, va, size, this.readTranslation, this.faultOfWord);
  }

  private readonly faultOfWord: WordFault = { fault: 0n };
  get wordFault(): bigint {
    return this.faultOfWord.fault;
  }

  writeVirtual(cpu: number, va: bigint, bytes: Uint8Array, root?: bigint): bigint | undefined {
    this.accessTable = this.tableOf(cpu, root);
    return nofaultWrite(this.space, va, bytes, this.writeTranslation, this.written);
  }

  /** Guest RAM for a reader that walks it itself: the PML4s `readWord` walks (guest-memory.ts). */
  memoryWindow(kernelCpu: () => number): MemoryWindow {
    return {
      memory: this.core.memory,
      ramOffset: this.core.ramOffset(),
      ramBytes: this.ramBytes,
      ...DEVICE_WINDOW,
      translation: 'x86-64',
      translationRegisters: (words, at, userCpu) => {
        words[at] = physicalWord(this.tableOf(kernelCpu(), undefined));
        if (userCpu !== undefined) words[at + 1] = physicalWord(this.tableOf(userCpu, undefined));
      },
    };
  }

  retiredCount(cpu: number): number {
    if (cpu < 0 || cpu >= this.cpuCount) throw new RangeError(`no CPU ${cpu}`);
    return this.core.retiredOf(cpu);
  }

  registers(cpu: number): RegisterFile {
    if (cpu < 0 || cpu >= this.cpuCount) throw new RangeError(`no CPU ${cpu}`);
    return this.regFiles[cpu]!;
  }

  private makeRegisterFile(cpu: number): RegisterFile {
    const port = this;
    const gprs = (): BigUint64Array => {
      port.select(cpu);
      return port.gprs();
    };
    return {
      pc: () => port.pcOf(port.select(cpu)),
      setPc: (v) => port.select(cpu).setRipParts(lo(v), hi(v)),
      get: (n) => gprs()[n]!,
      set: (n, v) => {
        gprs()[n] = BigInt.asUintN(64, v);
      },
      sp: () => gprs()[4]!,
      fp: () => gprs()[5]!,
      flags: () => port.select(cpu).getFlags() >>> 0,
      userMode: () => port.select(cpu).getCpl() === 3,
      pageTableRoot: () => {
        const c = port.select(cpu);
        return pair(c.getControlRegisterLo(3), c.getControlRegisterHi(3));
      },
      retired: () => {
        const c = port.select(cpu);
        return pair(c.retiredLo(), c.retiredHi());
      },
    };
  }
}
