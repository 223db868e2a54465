// Kernel functions called directly on a real Machine, for the provider tests
// that compare traced with native execution of one function. The guest boots
// until CPU 0 reaches start_kernel — the MMU on, the kernel mapped at its
// link addresses (all RAM at kernel base + physical), nothing of the C
// kernel run yet — and each call then sets the argument registers, a stack
// in free RAM and a return address at a breakpoint of this helper's own, and
// runs the machine until the function returns there. Traps on the way go
// through the machine's trap interposition as in a booted guest: the
// providers' handlers claim theirs; a trap nobody claims fails the call.
import { DTRACE_BREAKPOINT_T16, type ArmCoreExports } from '@wdtrace/isa-arm-as';
import { Machine, type InvopResult, type Isa, type KernelModuleImage, type RegisterFile, type Trap } from '@wdtrace/kernel';
import { createIsaSupport } from '../src/isa/index.js';

/** Physical layout of what the calls use, in RAM the kernel leaves alone until it runs its C code. */
const SCRATCH = 0xa0_0000; // 2 MiB for the tests' data, up to SENTINEL
const SENTINEL = 0xc0_0000; // the return address: this helper's breakpoint
const STACK_TOP = 0xd0_0000;

export interface TrapRecord {
  readonly trap: Trap;
  readonly result: InvopResult | undefined;
}

export interface CallResult {
  /** rax / r0 after the function returned. */
  readonly value: bigint;
  /** Traps offered to the invop handlers on the way, in order. */
  readonly traps: readonly TrapRecord[];
  /** Instructions the CPU retired in the call (emulated and displaced ones included). */
  readonly instructions: number;
}

/** How each ISA calls: the breakpoint at the return address, and the frame a caller leaves. */
const CALLING: Readonly<Record<Isa, { breakpoint: Uint8Array; enter(k: KernelCalls, regs: RegisterFile, stackTop: bigint): void }>> = {
  x86_64: {
    breakpoint: Uint8Array.of(0xcc), // int3
    enter: (k, regs, stackTop) => {
      // call pushes the return address; rbp 0 ends the frame chain.
      const sp = stackTop - 8n;
      const ret = new Uint8Array(8);
      new DataView(ret.buffer).setBigUint64(0, k.sentinel, true);
      k.machine.writeText(sp, ret);
      regs.set(4, sp);
      regs.set(5, 0n);
    },
  },
  arm: {
    breakpoint: Uint8Array.of(0xfe, 0x00, 0xf0, 0xe7), // udf: the DTrace breakpoint, condition AL
    enter: (k, regs, stackTop) => {
      // bl leaves the return address in lr; r11 0 ends the frame chain.
      regs.set(13, stackTop);
      regs.set(11, 0n);
      regs.set(14, k.sentinel);
    },
  },
};

const hex = (v: bigint): string => `0x${v.toString(16)}`;

export class KernelCalls {
  /** Every trap met so far but those at the sentinel. */
  readonly traps: TrapRecord[] = [];
  private returned = false;
  private failure: string | undefined;

  private constructor(
    readonly machine: Machine,
    private readonly argumentRegisters: readonly number[],
  ) {
    machine.addInvopHandler((trap) => {
      if (trap.pc !== this.sentinel) return undefined;
      this.returned = true;
      machine.stop();
      return { kind: 'resume', pc: trap.pc };
    });
    machine.onTrap(
      (trap, result) => {
        if (trap.pc === this.sentinel) return;
        this.traps.push({ trap, result });
        if (!result) {
          this.failure = `unclaimed ${trap.kind} trap at ${hex(trap.pc)}${trap.word !== undefined ? ` (word ${hex(BigInt(trap.word >>> 0))})` : ''}`;
          machine.stop();
        }
      },
      { keepsTraps: true },
    );
    machine.writeText(this.sentinel, CALLING[machine.isa].breakpoint);
  }

  /** A machine of `isa` on the committed guest (`thumb`: ARM's Thumb-2 build), booted to start_kernel. */
  static async create(isa: Isa, options: { thumb?: boolean } = {}): Promise<KernelCalls> {
    const machine = await Machine.create({ isa, thumb: options.thumb, cmdline: 'quiet', modules: [] });
    const startSymbol = machine.symbols.byName('start_kernel')!;
    const start = startSymbol.address;
    // A Thumb start_kernel is stopped by the 16-bit DTrace breakpoint.
    const breakpoint = startSymbol.thumb ? Uint8Array.of(DTRACE_BREAKPOINT_T16 & 0xff, DTRACE_BREAKPOINT_T16 >>> 8) : CALLING[isa].breakpoint;
    const original = machine.readText(start, breakpoint.length);
    machine.writeText(start, breakpoint);
    let reached = false;
    const remove = machine.addInvopHandler((trap) => {
      if (trap.pc !== start) return undefined;
      reached = true;
      machine.writeText(start, original);
      machine.stop();
      return { kind: 'resume', pc: start };
    });
    const r = machine.run({ instructions: 10_000_000 });
    remove();
    if (!reached) throw new Error(`the ${isa} guest did not reach start_kernel: ${JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? hex(v) : v))}`);
    return new KernelCalls(machine, (await createIsaSupport(isa)).argumentRegisters);
  }

  /** Kernel virtual address of physical 0. */
  get virtualBase(): bigint {
    return this.machine.kernelBase;
  }

  /** Kernel virtual address of 2 MiB of free memory for a test's data (strings, buffers). */
  get scratch(): bigint {
    return this.virtualBase + BigInt(SCRATCH);
  }

  /** The address a called function returns to; reaching it ends `call`. */
  get sentinel(): bigint {
    return this.virtualBase + BigInt(SENTINEL);
  }

  /** The stack pointer a call starts with. */
  get stackTop(): bigint {
    return this.virtualBase + BigInt(STACK_TOP);
  }

  /** Invop handlers registered beyond this helper's own. */
  get handlerCount(): number {
    return this.machine.invopHandlerCount - 1;
  }

  /**
   * Calls the kernel function at `address` with integer arguments (at most
   * the register ones) and runs until it returns to the sentinel; an
   * unclaimed trap, another stop or an exhausted budget is an error naming
   * where the CPU was. `stackTop`: where the caller's stack ends (the
   * return address goes under it on x86-64), `this.stackTop` by default.
   */
  call(address: bigint, args: readonly bigint[] = [], budget = 1_000_000, stackTop = this.stackTop): CallResult {
    if (args.length > this.argumentRegisters.length) throw new Error(`call passes at most ${this.argumentRegisters.length} register arguments, got ${args.length}`);
    const regs = this.machine.registers(0);
    args.forEach((a, i) => regs.set(this.argumentRegisters[i]!, a));
    CALLING[this.machine.isa].enter(this, regs, stackTop);
    regs.setPc(address);
    if (this.machine.isa === 'arm') {
      // Enter the function in its instruction set, as a bl/blx would (CPSR.T).
      const thumb = this.machine.symbols.functionAt(address)?.thumb === true;
      const core = (this.machine.port as unknown as { core: ArmCoreExports }).core;
      core.setCpsr(0, thumb ? core.getCpsr(0) | 0x20 : core.getCpsr(0) & ~0x20);
      if (thumb) regs.set(7, 0n); // Thumb code's frame chain runs through r7
    }
    const trapsBefore = this.traps.length;
    const retiredBefore = regs.retired();
    this.returned = false;
    const r = this.machine.run({ instructions: budget });
    if (this.failure) throw new Error(this.failure);
    if (!this.returned) {
      const how = r.kind === 'limit' ? `did not return within ${budget} instructions` : `stopped (${r.kind})`;
      throw new Error(`function at ${hex(address)} ${how} at pc ${hex(regs.pc())}`);
    }
    return { value: regs.get(0), traps: this.traps.slice(trapsBefore), instructions: Number(regs.retired() - retiredBefore) };
  }

  /** Links a module (ET_REL) into the kernel as the machine loads one; returns its image. */
  loadModule(name: string, object: Uint8Array): KernelModuleImage {
    this.machine.loadModule(object, name);
    return this.machine.kernelModules().find((m) => m.name === name)!;
  }

  /** Forgets a module as the machine does once the kernel reports it unloaded: listeners hear of it, its symbols go. */
  unloadModule(name: string): void {
    this.machine.modules.release(name);
  }
}
