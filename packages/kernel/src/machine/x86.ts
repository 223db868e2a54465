// The x86-64 CPU port: the machine's `CpuPort` over the WebAssembly core of
// @wdtrace/isa-x86-as. Boot state per BOARD.md 6.1 and 7; exceptions other
// than #BP and #UD go straight to the guest's IDT inside the core; #BP and #UD
// stop the core and become traps for the invop handlers.
//
// Invariants:
// - The core acts on one selected CPU at a time; every method selects the CPU
//   it is asked about. During `run` (device callbacks) only the running CPU
//   is touched: interrupt lines of other CPUs are recorded and applied when
//   they next run.
// - The interrupt input is a level: `setInterruptLine` replaces whatever the
//   core had pending, so a line the guest acknowledged is never delivered.
// - NOFAULT reads and translations walk the page tables in RAM from TypeScript
//   (no accessed/dirty updates, no TLB fills, no CPU selection).
import { createX86Core, X86Stop, type X86CoreExports } from '@wdtrace/isa-x86-as';
import { writeX86BootTables } from '../board/boot.js';
import { BOOTINFO_PHYS, X86_BOOT_GDT, X86_IRQ_VECTOR_BASE, X86_KERNEL_BASE } from '../board/constants.js';
import type { CpuStartRequest } from '../board/devices.js';
import { nofaultRead, nofaultWrite, type NofaultSpace } from './nofault.js';
import type { CpuPort, CpuStop, PortConfig, RegisterFile, SafeRead, Trap } from './types.js';

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
const pair = (l: number, h: number): bigint => (BigInt(h >>> 0) << 32n) | BigInt(l >>> 0);

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
  /**
   * Host-side translations of 4 KiB pages for NOFAULT reads, by page table
   * root and page. The guest changes its page tables only while it runs, so
   * the cache is emptied whenever a CPU runs.
   */
  private readonly pageCache = new Map<bigint, Map<bigint, number>>();

  constructor(core: X86CoreExports, config: PortConfig) {
    this.core = core;
    this.cpuCount = config.cpuCount;
    this.ramBytes = config.ramBytes;
    this.space = { ram: () => this.ram(), ramBytes: config.ramBytes, address: (va, offset) => BigInt.asUintN(64, va + BigInt(offset)) };
    if (core.initRam(config.ramBytes) === 0) throw new Error(`the x86-64 core could not allocate ${config.ramBytes} bytes of RAM`);
    this.view = new Uint8Array(core.memory.buffer, core.ramOffset(), config.ramBytes);
    this.dv = new DataView(core.memory.buffer, core.ramOffset(), config.ramBytes);
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
    this.regFiles = Array.from({ length: config.cpuCount }, (_, cpu) => this.makeRegisterFile(cpu));
  }

  ram(): Uint8Array {
    if (this.view.buffer !== this.core.memory.buffer || this.view.byteLength === 0) {
      this.view = new Uint8Array(this.core.memory.buffer, this.core.ramOffset(), this.ramBytes);
      this.dv = new DataView(this.core.memory.buffer, this.core.ramOffset(), this.ramBytes);
    }
    return this.view;
  }

  codeWritten(paddr: number, length: number): void {
    this.pageCache.clear(); // a host write may have touched a page table
    this.core.codeWritten(paddr, length);
  }

  private select(cpu: number): X86CoreExports {
    if (cpu < 0 || cpu >= this.cpuCount) throw new RangeError(`no CPU ${cpu}`);
    if (this.core.selectedCpu() !== cpu) {
      this.core.selectCpu(cpu);
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
    const regs = new BigUint64Array(c.memory.buffer, c.regsOffset(), 16);
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
    if (this.pageCache.size > 0) this.pageCache.clear();
    const c = this.select(cpu);
    const pending = this.fatal[cpu];
    if (pending !== undefined) return { kind: 'fatal', reason: pending, pc: this.pcOf(c) };
    const code = c.run(budget);
    switch (code) {
      case X86Stop.budget:
      case X86Stop.interruptWindow:
        return { kind: 'budget' };
      case X86Stop.halt:
        return { kind: 'halt' };
      case X86Stop.exception: {
        const vector = c.stopVector();
        const pc = pair(c.stopPcLo(), c.stopPcHi());
        this.lastVector[cpu] = vector;
        this.lastError[cpu] = c.stopErrorCode();
        if (vector === VEC_BP || vector === VEC_UD) {
          return { kind: 'trap', trap: { cpu, kind: vector === VEC_BP ? 'breakpoint' : 'undefined', pc, user: c.getCpl() === 3 } };
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
    const changed = this.lines[cpu] !== line;
    this.lines[cpu] = line;
    // A line still asserted is raised again: the core consumed it when it was
    // taken, and a level the guest has not acknowledged is taken again.
    if (this.core.selectedCpu() === cpu && (changed || line >= 0)) this.applyLine(cpu);
  }

  deliverStop(cpu: number): void {
    this.pageCache.clear(); // guest code runs: page tables may change
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
    this.pageCache.clear(); // guest code runs: page tables may change
    const c = this.select(cpu);
    return this.afterDtraceOp(cpu, c.emulate(code));
  }

  executeDisplaced(cpu: number, _trap: Trap, bytes: Uint8Array): CpuStop | undefined {
    this.pageCache.clear(); // guest code runs: page tables may change
    if (bytes.length < 1 || bytes.length > 15) throw new RangeError(`a displaced x86-64 instruction is 1 to 15 bytes, not ${bytes.length}`);
    const c = this.select(cpu);
    const input = (c as unknown as { DECODE_INPUT: WebAssembly.Global }).DECODE_INPUT.value as number;
    new Uint8Array(c.memory.buffer, input, 16).set(bytes);
    return this.afterDtraceOp(cpu, c.executeDisplaced(bytes.length));
  }

  private rootOf(cpu: number, root: bigint | undefined): bigint {
    if (root !== undefined) return root;
    const c = this.select(cpu);
    return pair(c.getControlRegisterLo(3), c.getControlRegisterHi(3));
  }

  translate(cpu: number, va: bigint, root?: bigint, userWrite = false): number | undefined {
    return this.walk(this.rootOf(cpu, root), va, userWrite);
  }

  /** 4-level walk (Intel SDM vol. 3, 4.5) over RAM; -1 never: undefined when not present or not allowed. */
  private walk(cr3: bigint, va: bigint, userWrite: boolean): number | undefined {
    va = BigInt.asUintN(64, va);
    // Canonical: bits 63..47 all equal.
    const top = va >> 47n;
    if (top !== 0n && top !== 0x1_ffffn) return undefined;
    this.ram();
    let table = Number(cr3 & 0x000f_ffff_ffff_f000n);
    for (let level = 3; level >= 0; level--) {
      const index = Number((va >> BigInt(12 + 9 * level)) & 0x1ffn);
      const at = table + index * 8;
      if (at + 8 > this.ramBytes) return undefined;
      const e = this.dv.getBigUint64(at, true);
      if ((e & 1n) === 0n) return undefined;
      if (userWrite && ((e & 2n) === 0n || (e & 4n) === 0n)) return undefined;
      const frame = Number(e & 0x000f_ffff_ffff_f000n);
      if (level > 0 && level < 3 && (e & 0x80n) !== 0n) {
        const size = 1n << BigInt(12 + 9 * level);
        const base = Number(e & 0x000f_ffff_ffff_f000n & ~(size - 1n));
        return base + Number(va & (size - 1n));
      }
      if (level === 0) return frame + Number(va & 0xfffn);
      table = frame;
    }
    return undefined;
  }

  /** `walk` for reads, through the page cache. */
  private cachedWalk(cr3: bigint, va: bigint): number | undefined {
    const page = va >> 12n;
    let pages = this.pageCache.get(cr3);
    const hit = pages?.get(page);
    if (hit !== undefined) return hit + Number(va & 0xfffn);
    const pa = this.walk(cr3, va, false);
    if (pa === undefined) return undefined;
    if (!pages) this.pageCache.set(cr3, (pages = new Map()));
    pages.set(page, pa - Number(va & 0xfffn));
    return pa;
  }

  /** Guest RAM for NOFAULT access: addresses wrap at 2^64, as the CPU forms them. */
  private readonly space: NofaultSpace;

  readVirtual(cpu: number, va: bigint, length: number, root?: bigint): SafeRead {
    const cr3 = this.rootOf(cpu, root);
    return nofaultRead(this.space, va, length, (at) => this.cachedWalk(cr3, at));
  }

  writeVirtual(cpu: number, va: bigint, bytes: Uint8Array, root?: bigint): bigint | undefined {
    const cr3 = this.rootOf(cpu, root);
    return nofaultWrite(this.space, va, bytes, (at) => this.walk(cr3, at, true), (pa, n) => this.codeWritten(pa, n));
  }

  registers(cpu: number): RegisterFile {
    if (cpu < 0 || cpu >= this.cpuCount) throw new RangeError(`no CPU ${cpu}`);
    return this.regFiles[cpu]!;
  }

  private makeRegisterFile(cpu: number): RegisterFile {
    const port = this;
    const gprs = (): BigUint64Array => {
      const c = port.select(cpu);
      return new BigUint64Array(c.memory.buffer, c.regsOffset(), 16);
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
