// The kernel providers of one guest Machine, built together: fbt, the sdt
// family (sdt, proc, sched, io), kinst (with fbt for its inline fallback)
// syscall (on the dispatcher's SDT sites) and pid (user processes), sharing the machine's
// tracepoint table and one ISA support. They are built before the
// framework state that receives their firings: `sink` is set while a program
// traces and cleared after, and firings with no sink set go nowhere.
import type { ProbeArgumentSource, ProviderDefinition } from '@wdtrace/dtrace-core';
import type { Machine } from '@wdtrace/kernel';
import { FbtProvider } from './fbt/provider.js';
import type { GuestMachineView } from './guest-view.js';
import { createIsaSupport, type IsaSupport } from './isa/index.js';
import { KinstProvider } from './kinst/provider.js';
import { PidProvider, type ProcessProgram } from './pid/provider.js';
import type { ProbeSink } from './provider.js';
import { SdtProvider } from './sdt/provider.js';
import { SyscallProvider, type SyscallTap } from './syscall/provider.js';

/** Firings on their way to the framework: the CPU is set in the view first, and probes other providers build on are tapped. */
class KernelSink implements ProbeSink {
  target: ProbeSink | undefined;
  /** Probes another provider builds on (the syscall provider on the dispatcher's SDT sites). */
  readonly taps = new Map<number, SyscallTap>();
  constructor(private readonly view: GuestMachineView) {}
  probe(probeId: number, cpu: number, args: readonly bigint[], rest?: ProbeArgumentSource): void {
    if (!this.target) return;
    this.view.firingCpu = cpu;
    if (this.taps.size !== 0) this.taps.get(probeId)?.(cpu, args, rest);
    this.target.probe(probeId, cpu, args, rest);
  }
  /** A tapped probe has none: its firings must reach the tap. */
  probeFilter(probeId: number): ReturnType<NonNullable<ProbeSink['probeFilter']>> {
    if (this.target === undefined || (this.taps.size !== 0 && this.taps.has(probeId))) return undefined;
    return this.target.probeFilter?.(probeId);
  }
}

export class KernelProviders {
  private constructor(
    readonly fbt: FbtProvider,
    readonly sdt: SdtProvider,
    readonly kinst: KinstProvider,
    readonly syscall: SyscallProvider,
    /** pid (fasttrap): user processes' instructions; its `pid<N>` providers come to exist on demand (`pid.prepare`). */
    readonly pid: PidProvider,
    private readonly kernelSink: KernelSink,
  ) {}

  /** Builds the providers of `machine`, whose framework view is `view`. */
  static async create(
    machine: Machine,
    view: GuestMachineView,
    support?: IsaSupport,
    /** The program a process runs or will run (the pid provider's images); none by default. */
    programOf: (pid: number) => ProcessProgram | undefined = () => undefined,
  ): Promise<KernelProviders> {
    const isa = support ?? (await createIsaSupport(machine.isa));
    const sink = new KernelSink(view);
    const fbt = await FbtProvider.create(machine, sink, isa);
    const sdt = await SdtProvider.create(machine, sink, isa);
    const kinst = await KinstProvider.create(machine, sink, { support: isa, fbt });
    const syscall = new SyscallProvider(machine, isa, view, sink, (id, handler) => (handler ? sink.taps.set(id, handler) : sink.taps.delete(id)));
    const pid = new PidProvider(machine, view, isa, sink, programOf);
    return new KernelProviders(fbt, sdt, kinst, syscall, pid, sink);
  }

  /** Their definitions in registration order (fbt, sdt's family, kinst, syscall). */
  get definitions(): ProviderDefinition[] {
    return [this.fbt.definition, ...this.sdt.definitions, this.kinst.definition, this.syscall.definition];
  }

  /** Sends firings to `target` (the framework state tracing now); undefined between programs. */
  fireInto(target: ProbeSink | undefined): void {
    this.kernelSink.target = target;
  }
}
