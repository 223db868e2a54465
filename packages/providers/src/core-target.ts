// A KernelTarget over one bare CPU core, with no board and no boot: the
// kernel image's loadable segments are copied into core RAM at their
// physical addresses and mapped at their link addresses (x86-64: 4-level
// tables with 2 MiB pages; ARM: 1 MiB sections), so kernel functions run
// in place when called directly. Traps go through the invop handlers the
// same way the machine's trap interposition sends them. It lets the kernel
// providers run on real kernel code before (and besides) a booted guest, and
// it is what their tests use.
import {
  EM_ARM,
  EM_X86_64,
  ElfFile,
  PT_LOAD,
  SymbolTable,
  linkModule,
  parseElf,
  processKernelSdtSites,
} from '@wdtrace/kernel';
import { StopReason, createArmCore, type ArmCoreExports } from '@wdtrace/isa-arm-as';
import { X86Stop, createX86Core, type X86CoreExports } from '@wdtrace/isa-x86-as';
import {
  kernelImageFromElf,
  moduleImageFromLinked,
  type InvopHandler,
  type InvopResult,
  type KernelIsaName,
  type KernelModuleImage,
  type KernelTarget,
  type ModuleEvent,
  type RegisterFile,
  type SafeRead,
  type Trap,
  ModuleEventListeners,
} from './kernel-target.js';

const RAM_BYTES = 16 << 20;
/** Physical layout of what the target adds to the kernel image. */
const PT_BASE = 0xe00000; // page tables (x86-64) / L1 table (ARM, 16 KiB aligned)
const BOOT_CODE = 0xf00000; // ARM: MMU-enable sequence, identity mapped
const STACK_TOP = 0xd00000;
const SENTINEL = 0xc00000; // return address of `call`: hlt (x86-64) / udf (ARM)
const MODULE_AREA = 0x800000;
const MODULE_AREA_END = 0xa00000;
const SCRATCH = 0xa00000; // free memory for callers' data, up to SENTINEL

/** How a trap the target met was handled. */
export interface TrapRecord {
  readonly trap: Trap;
  readonly result: InvopResult | undefined;
}

export interface CallResult {
  /** rax / r0 after the function returned. */
  readonly value: bigint;
  /** Traps offered to the invop handlers on the way, in order. */
  readonly traps: readonly TrapRecord[];
  readonly instructions: number;
}

/** Why a run stopped before the function returned. */
export class CoreTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CoreTargetError';
  }
}

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;
const globalAddress = (g: WebAssembly.Global | number): number => (typeof g === 'number' ? g : (g.value as number));

export class CoreKernelTarget implements KernelTarget {
  private readonly handlers: InvopHandler[] = [];
  private readonly listeners = new ModuleEventListeners();
  private readonly images: KernelModuleImage[] = [];
  private nextModule = MODULE_AREA;
  readonly symbols: SymbolTable;
  /** Every trap met so far. */
  readonly traps: TrapRecord[] = [];

  private constructor(
    readonly isa: KernelIsaName,
    private readonly x86: X86CoreExports | undefined,
    private readonly arm: ArmCoreExports | undefined,
    /** Virtual minus physical address of the kernel mapping. */
    readonly virtualBase: bigint,
    kernel: ElfFile,
  ) {
    this.symbols = SymbolTable.fromKernel(kernel);
    this.images.push(kernelImageFromElf(kernel));
  }

  /** Loads `kernelElf` (SDT sites disabled by krtld, as the machine loads it) into a fresh core. */
  static async create(kernelElf: Uint8Array): Promise<CoreKernelTarget> {
    // A private copy: krtld patches the bytes it is given when they are a
    // Node Buffer (whose slice() is a view, not a copy).
    const elf = parseElf(new Uint8Array(kernelElf));
    const image = parseElf(processKernelSdtSites(elf).patchedImage);
    const loads = image.programHeaders.filter((p) => p.type === PT_LOAD && p.memsz > 0);
    if (!loads.length) throw new CoreTargetError('kernel image has no loadable segment');
    const base = loads[0]!.vaddr - loads[0]!.paddr;
    for (const p of loads) {
      if (p.vaddr - p.paddr !== base) throw new CoreTargetError(`segment ${p.index} is not mapped at virtual = physical + ${hex(base)}`);
      if (p.paddr + BigInt(p.memsz) > BigInt(MODULE_AREA)) throw new CoreTargetError(`segment ${p.index} ends beyond ${hex(MODULE_AREA)}, the room this target has for the kernel`);
    }
    let target: CoreKernelTarget;
    if (image.machine === EM_X86_64) {
      const core = await createX86Core();
      core.initRam(RAM_BYTES);
      target = new CoreKernelTarget('x86_64', core, undefined, base, elf);
    } else if (image.machine === EM_ARM) {
      const core = await createArmCore();
      if (core.init(1, RAM_BYTES) !== 0) throw new CoreTargetError('ARM core refused its RAM size');
      target = new CoreKernelTarget('arm', undefined, core, base, elf);
    } else throw new CoreTargetError(`kernel machine ${image.machine} is neither x86-64 nor ARM`);
    const ram = target.ram();
    for (const p of loads) {
      const pa = Number(p.paddr);
      ram.fill(0, pa, pa + p.memsz);
      ram.set(image.bytes.subarray(p.offset, p.offset + p.filesz), pa);
    }
    target.codeWritten(0, MODULE_AREA);
    target.setUpTranslation();
    return target;
  }

  private ram(): Uint8Array {
    if (this.x86) return new Uint8Array(this.x86.memory.buffer, this.x86.ramOffset(), RAM_BYTES);
    return new Uint8Array(this.arm!.memory.buffer, this.arm!.ramOffset(), RAM_BYTES);
  }

  private codeWritten(pa: number, length: number): void {
    if (this.x86) this.x86.codeWritten(pa, length);
    else this.arm!.invalidateCodeRange(pa, length);
  }

  private setUpTranslation(): void {
    const ram = this.ram();
    const dv = new DataView(ram.buffer, ram.byteOffset, ram.byteLength);
    if (this.x86) {
      // PML4 -> PDPT -> PD with 2 MiB pages mapping virtualBase + [0, RAM) to [0, RAM).
      const pml4 = PT_BASE, pdpt = PT_BASE + 0x1000, pd = PT_BASE + 0x2000;
      const va = this.virtualBase;
      const i4 = Number((va >> 39n) & 511n), i3 = Number((va >> 30n) & 511n), i2 = Number((va >> 21n) & 511n);
      if (va & 0x1fffffn) throw new CoreTargetError(`kernel mapping base ${hex(va)} is not 2 MiB aligned`);
      dv.setBigUint64(pml4 + i4 * 8, BigInt(pdpt) | 3n, true);
      dv.setBigUint64(pdpt + i3 * 8, BigInt(pd) | 3n, true);
      for (let i = 0; i < RAM_BYTES >> 21; i++) dv.setBigUint64(pd + (i2 + i) * 8, (BigInt(i) << 21n) | 0x83n, true);
      const c = this.x86;
      c.setControlRegister(3, pml4, 0);
      c.setControlRegister(4, 0x20, 0); // PAE
      c.writeMsr(0xc0000080, 0x500 | 0x800, 0); // EFER: LME, LMA, NXE
      c.setControlRegister(0, 0x80010001, 0); // PG, WP, PE
      c.setFlagsValue(0x2);
      return;
    }
    // ARM: sections virtualBase + n MiB -> n MiB (AP=01: privileged read/write, domain 0),
    // and the section holding the MMU-enable code identity mapped.
    const va = this.virtualBase;
    if (va & 0xfffffn) throw new CoreTargetError(`kernel mapping base ${hex(va)} is not 1 MiB aligned`);
    const first = Number(va >> 20n);
    for (let i = 0; i < RAM_BYTES >> 20; i++) dv.setUint32(PT_BASE + (first + i) * 4, ((i << 20) | (1 << 10) | 2) >>> 0, true);
    dv.setUint32(PT_BASE + (BOOT_CODE >>> 20) * 4, (BOOT_CODE | (1 << 10) | 2) >>> 0, true);
    // mcr TTBR0, r0 ; mcr DACR, r1 ; mrc SCTLR, r2 ; orr r2, r2, #1 ; mcr SCTLR, r2 ; isb ; udf #0x1f
    const code = [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, 0xe7f001f0];
    code.forEach((w, i) => dv.setUint32(BOOT_CODE + i * 4, w, true));
    const c = this.arm!;
    c.invalidateCodeRange(BOOT_CODE, code.length * 4);
    c.setReg(0, 0, PT_BASE);
    c.setReg(0, 1, 1); // domain 0: client
    c.setReg(0, 15, BOOT_CODE);
    const stop = c.run(0, 100);
    if (stop !== StopReason.UNDEFINED || c.stopPc(0) >>> 0 !== BOOT_CODE + 24) {
      throw new CoreTargetError(`enabling the ARM MMU stopped with reason ${stop} at ${hex(c.stopPc(0) >>> 0)}`);
    }
    c.clearPending(0);
  }

  // ---- KernelTarget ----

  modules(): readonly KernelModuleImage[] {
    return this.images;
  }

  onModuleEvent(listener: (e: ModuleEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Physical address of kernel virtual `va` for `length` bytes, or a clear error. */
  physical(va: bigint, length: number): number {
    const pa = va - this.virtualBase;
    if (pa < 0n || pa + BigInt(length) > BigInt(RAM_BYTES)) {
      throw new CoreTargetError(`kernel address ${hex(va)} (+${length}) is outside the mapped kernel [${hex(this.virtualBase)}, ${hex(this.virtualBase + BigInt(RAM_BYTES))})`);
    }
    return Number(pa);
  }

  readText(va: bigint, length: number): Uint8Array {
    const pa = this.physical(va, length);
    return this.ram().slice(pa, pa + length);
  }

  writeText(va: bigint, bytes: Uint8Array): void {
    const pa = this.physical(va, bytes.length);
    this.ram().set(bytes, pa);
    this.codeWritten(pa, bytes.length);
  }

  readKernel(va: bigint, length: number): SafeRead {
    if (this.x86) {
      const c = this.x86;
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const a = BigInt.asUintN(64, va + BigInt(done));
        const n = Math.min(4096, length - done);
        const got = c.readVirtualSafe(Number(a & 0xffffffffn), Number(a >> 32n), n);
        out.set(new Uint8Array(c.memory.buffer, globalAddress(c.SAFE_BUFFER), got), done);
        done += got;
        if (got < n) return { fault: (BigInt(c.safeFaultAddressHi() >>> 0) << 32n) | BigInt(c.safeFaultAddressLo() >>> 0) };
      }
      return { bytes: out };
    }
    const c = this.arm!;
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      const a = Number((va + BigInt(i)) & 0xffffffffn);
      const v = c.readVirtual(0, a, 1);
      if (c.peekFault() === 1) return { fault: BigInt(c.peekFaultAddress() >>> 0) };
      out[i] = v & 0xff;
    }
    return { bytes: out };
  }

  registers(cpu: number): RegisterFile & { set(n: number, v: bigint): void; setPc(v: bigint): void } {
    if (cpu !== 0) throw new CoreTargetError(`this target has one CPU; asked for CPU ${cpu}`);
    if (this.x86) {
      const c = this.x86;
      const regs = () => new BigUint64Array(c.memory.buffer, c.regsOffset(), 16);
      return {
        pc: () => (BigInt(c.getRipHi() >>> 0) << 32n) | BigInt(c.getRipLo() >>> 0),
        setPc: (v) => c.setRipParts(Number(v & 0xffffffffn), Number((v >> 32n) & 0xffffffffn)),
        get: (n) => regs()[n]!,
        set: (n, v) => {
          regs()[n] = BigInt.asUintN(64, v);
        },
        sp: () => regs()[4]!,
        fp: () => regs()[5]!,
        flags: () => c.getFlags() >>> 0,
        userMode: () => c.getCpl() === 3,
      };
    }
    const c = this.arm!;
    return {
      pc: () => BigInt(c.getReg(0, 15) >>> 0),
      setPc: (v) => c.setReg(0, 15, Number(v & 0xffffffffn)),
      get: (n) => BigInt(c.getReg(0, n) >>> 0),
      set: (n, v) => c.setReg(0, n, Number(BigInt.asUintN(32, v))),
      sp: () => BigInt(c.getReg(0, 13) >>> 0),
      fp: () => BigInt(c.getReg(0, 11) >>> 0),
      flags: () => c.getCpsr(0) >>> 0,
      userMode: () => (c.getCpsr(0) & 0x1f) === 0x10,
    };
  }

  addInvopHandler(handler: InvopHandler): () => void {
    this.handlers.push(handler);
    return () => {
      const i = this.handlers.indexOf(handler);
      if (i >= 0) this.handlers.splice(i, 1);
    };
  }

  /** Number of invop handlers registered now. */
  get handlerCount(): number {
    return this.handlers.length;
  }

  // ---- modules ----

  /** Links a module (ET_REL) with krtld after the kernel, writes it and announces it to listeners. */
  loadModule(name: string, object: Uint8Array): KernelModuleImage {
    const base = this.virtualBase + BigInt(this.nextModule);
    const linked = linkModule(object, { name, base, resolve: this.symbols.resolver(), limit: MODULE_AREA_END - this.nextModule });
    for (const s of linked.segments) this.writeText(s.address, s.bytes);
    this.nextModule = (this.nextModule + linked.size + 0xfff) & ~0xfff;
    this.symbols.addModule(linked);
    const image = moduleImageFromLinked(linked, object);
    this.images.push(image);
    this.listeners.emit({ kind: 'load', module: image });
    return image;
  }

  /** Unloads a module: listeners hear of it, its symbols go; its memory is left as it is. */
  unloadModule(name: string): void {
    const i = this.images.findIndex((m) => m.name === name);
    if (i <= 0) throw new CoreTargetError(i === 0 ? 'the kernel cannot be unloaded' : `no module ${name} is loaded`);
    const [image] = this.images.splice(i, 1);
    this.symbols.removeModule(name);
    this.listeners.emit({ kind: 'unload', module: image! });
  }

  // ---- running ----

  /** Kernel virtual address of 2 MiB of free memory for a caller's data (strings, buffers). */
  get scratch(): bigint {
    return this.virtualBase + BigInt(SCRATCH);
  }

  /** Address a called function returns to; reaching it ends `call`. */
  get sentinel(): bigint {
    return this.virtualBase + BigInt(SENTINEL);
  }

  /**
   * Calls the kernel function at `address` with integer arguments (at most
   * the register ones), running until it returns to the sentinel. Traps are
   * offered to the invop handlers; an unclaimed trap or any other stop is an
   * error naming the stop and pc.
   */
  call(address: bigint, args: readonly bigint[] = [], budget = 1_000_000): CallResult {
    const regs = this.registers(0);
    const ram = this.ram();
    const dv = new DataView(ram.buffer, ram.byteOffset, ram.byteLength);
    const sentinel = this.sentinel;
    const trapsBefore = this.traps.length;
    if (this.x86) {
      this.x86.wake(); // the hlt that ended the previous call leaves the CPU halted
      if (args.length > 6) throw new CoreTargetError(`call passes at most 6 register arguments, got ${args.length}`);
      ram[SENTINEL] = 0xf4; // hlt
      this.x86.codeWritten(SENTINEL, 1);
      [7, 6, 2, 1, 8, 9].slice(0, args.length).forEach((r, i) => regs.set(r, args[i]!));
      const sp = this.virtualBase + BigInt(STACK_TOP - 8);
      dv.setBigUint64(STACK_TOP - 8, sentinel, true);
      regs.set(4, sp);
      regs.set(5, 0n);
      regs.setPc(address);
    } else {
      if (args.length > 4) throw new CoreTargetError(`call passes at most 4 register arguments, got ${args.length}`);
      dv.setUint32(SENTINEL, 0xe7f002f0, true); // udf #0x20
      this.arm!.invalidateCodeRange(SENTINEL, 4);
      args.forEach((a, i) => regs.set(i, a));
      regs.set(13, this.virtualBase + BigInt(STACK_TOP));
      regs.set(11, 0n);
      regs.set(14, sentinel);
      regs.setPc(address);
    }
    const start = this.retired();
    for (;;) {
      const left = budget - Number(this.retired() - start);
      if (left <= 0) throw new CoreTargetError(`function at ${hex(address)} did not return within ${budget} instructions (pc ${hex(regs.pc())})`);
      const trap = this.runUntilTrap(left);
      if (!trap) continue;
      if (trap === 'returned') {
        this.clearStop();
        return { value: regs.get(0), traps: this.traps.slice(trapsBefore), instructions: Number(this.retired() - start) };
      }
      const result = this.offer(trap);
      if (!result) throw new CoreTargetError(`unclaimed ${trap.kind} trap at ${hex(trap.pc)}${trap.word !== undefined ? ` (word ${hex(trap.word >>> 0)})` : ''}`);
      this.perform(trap, result);
    }
  }

  private retired(): bigint {
    if (this.x86) return (BigInt(this.x86.retiredHi() >>> 0) << 32n) | BigInt(this.x86.retiredLo() >>> 0);
    return (BigInt(this.arm!.retiredHigh(0) >>> 0) << 32n) | BigInt(this.arm!.retiredLow(0) >>> 0);
  }

  /** Runs; returns the trap it stopped at, undefined when the budget ran out; throws on other stops. */
  private runUntilTrap(budget: number): Trap | 'returned' | undefined {
    if (this.x86) {
      const c = this.x86;
      const stop = c.run(budget);
      if (stop === X86Stop.budget) return undefined;
      const pc = (BigInt(c.stopPcHi() >>> 0) << 32n) | BigInt(c.stopPcLo() >>> 0);
      if (stop === X86Stop.halt) {
        if (this.registers(0).pc() - 1n === this.sentinel) return 'returned';
        throw new CoreTargetError(`x86-64 core halted at ${hex(this.registers(0).pc() - 1n)}`);
      }
      if (stop === X86Stop.exception && (c.stopVector() === 3 || c.stopVector() === 6)) {
        return { cpu: 0, kind: c.stopVector() === 3 ? 'breakpoint' : 'undefined', pc, user: c.getCpl() === 3 };
      }
      throw new CoreTargetError(`x86-64 core stopped (${stop}, vector ${c.stopVector()}) at ${hex(pc)}`);
    }
    const c = this.arm!;
    const stop = c.run(0, budget);
    if (stop === StopReason.BUDGET) return undefined;
    const pc = BigInt(c.stopPc(0) >>> 0);
    const user = (c.getCpsr(0) & 0x1f) === 0x10;
    if (stop === StopReason.UNDEFINED && pc === this.sentinel) return 'returned';
    if (stop === StopReason.DTRACE_BREAKPOINT || stop === StopReason.UNDEFINED) return { cpu: 0, kind: 'undefined', pc, word: c.stopWord(0) >>> 0, user };
    if (stop === StopReason.BKPT) return { cpu: 0, kind: 'breakpoint', pc, word: c.stopWord(0) >>> 0, user };
    throw new CoreTargetError(`ARM core stopped (reason ${stop}) at ${hex(pc)}, fault address ${hex(c.faultAddress(0) >>> 0)}`);
  }

  private clearStop(): void {
    if (this.arm) this.arm.clearPending(0);
  }

  /** Offers a trap to the handlers in order; the first that claims it wins. */
  offer(trap: Trap): InvopResult | undefined {
    let result: InvopResult | undefined;
    for (const h of [...this.handlers]) {
      result = h(trap);
      if (result) break;
    }
    this.traps.push({ trap, result });
    return result;
  }

  /** Performs a claimed trap's result, as the machine does. */
  perform(trap: Trap, result: InvopResult): void {
    if (this.x86) {
      const c = this.x86;
      let r = -1;
      if (result.kind === 'emulate') r = c.emulate(result.code);
      else if (result.kind === 'displaced') {
        if (result.bytes.length === 0 || result.bytes.length > 15) throw new CoreTargetError(`displaced instruction of ${result.bytes.length} bytes at ${hex(trap.pc)}`);
        new Uint8Array(c.memory.buffer, globalAddress(c.DECODE_INPUT), 16).set(result.bytes);
        r = c.executeDisplaced(result.bytes.length);
      } else if (result.pc !== undefined) this.registers(0).setPc(result.pc);
      if (r !== -1) throw new CoreTargetError(`performing ${result.kind} at ${hex(trap.pc)} stopped with ${r} (vector ${c.stopVector()})`);
      return;
    }
    const c = this.arm!;
    c.clearPending(0);
    const pc = Number(trap.pc & 0xffffffffn);
    let r = 0;
    if (result.kind === 'emulate') r = c.emulate(0, result.code, result.word! >>> 0, pc);
    else if (result.kind === 'displaced') {
      if (result.bytes.length !== 4) throw new CoreTargetError(`displaced ARM instruction of ${result.bytes.length} bytes at ${hex(trap.pc)}`);
      const w = new DataView(result.bytes.buffer, result.bytes.byteOffset, 4).getUint32(0, true);
      r = c.executeDisplaced(0, w, pc);
    } else if (result.pc !== undefined) c.setReg(0, 15, Number(result.pc & 0xffffffffn));
    if (r !== 0) throw new CoreTargetError(`performing ${result.kind} at ${hex(trap.pc)} stopped with reason ${r}`);
  }
}
