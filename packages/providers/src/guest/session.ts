// Tracing a booted guest: a Machine of either ISA with the kernel providers
// (fbt, sdt and its named providers, kinst) next to dtrace and profile, the
// framework's MachineInterface backed by the guest, and the session loop of
// dtrace(1): BEGIN, then the machine runs from one event to the next — the
// next timer, buffer switch (switchrate) or aggregation snapshot (aggrate) —
// until exit(), a full fill-policy buffer, the guest powering off (the -c
// program exited), the time limit, or an interrupt; then END, the last
// buffers and the aggregations.
//
// `GuestTracer.create` builds the machine and the registry first, so probe
// descriptions can be matched (and listed) before a program is compiled;
// `session` then runs one compiled program on it.
import {
  Consumer,
  DTraceState,
  ProbeRegistry,
  defaultOptions,
  type CompiledProgram,
  type ConsumerOutput,
  type DTraceOptions,
  type JsonRecord,
} from '@wdtrace/dtrace-core';
import { Machine, defaultImages, readInitrdEntries, type InitrdFile, type Isa, type MachineOptions, type RunResult } from '@wdtrace/kernel';
import { createDtraceProvider, fireBegin, fireEnd } from '../dtrace/provider.js';
import { FbtProvider } from '../fbt/provider.js';
import { KinstProvider } from '../kinst/provider.js';
import { createIsaSupport } from '../isa/index.js';
import type { KernelTarget, ProbeSink } from '../kernel-target.js';
import { ProfileProvider } from '../profile/provider.js';
import { nextWakeup } from '../session.js';
import { SdtProvider } from '../sdt/provider.js';
import { SyscallProvider } from '../syscall/provider.js';
import { GuestMachineView } from './guest-machine.js';
import { machineKernelTarget } from '../machine-target.js';
import { DIF_OP, DIF_VAR, difInstrOp, difInstrVar, type Difo } from '@wdtrace/dtrace-core/dif';
import { tracepointsOf, type Tracepoint } from '../tracepoints.js';
import { armSdtPatch } from '../sdt/isa/arm.js';
import { x86SdtPatch } from '../sdt/isa/x86.js';

export interface GuestTracerOptions {
  readonly isa: Isa;
  readonly cpus?: number;
  /** The program init runs, with its arguments (-c); without it the guest shell reads the console. */
  readonly args?: readonly string[];
  /** Files added to the guest's initrd before boot (a host program for -c). */
  readonly files?: readonly InitrdFile[];
  /** Where the guest's console output goes (the -c program's standard output and error). */
  readonly consoleOutput?: (bytes: Uint8Array) => void;
  /** Console input for the guest; it ends after this unless `interactive`. */
  readonly consoleInput?: string | Uint8Array;
  readonly interactive?: boolean;
  readonly nsPerInsn?: number;
  /** Anything else the machine takes (kernel, initrd, modules ...). */
  readonly machine?: Partial<MachineOptions>;
}

export interface GuestSessionOptions {
  readonly options?: DTraceOptions;
  /** Stop after this much virtual time (ns) even without exit(). */
  readonly timeLimit?: bigint;
  readonly json?: (r: JsonRecord) => void;
  /** Lets a caller notice ^C between steps. */
  readonly pause?: () => Promise<unknown>;
  /** Whether tracing should end now (^C): END fires and the buffers drain as after exit(). */
  readonly interrupted?: () => boolean;
  /** -p: tracing ends when this process has exited (checked at every step). */
  readonly grabbed?: number;
  /**
   * An interactive guest waits for console input: resolves when input came
   * (or the real-time wait for the next timer, `deadlineMs`, is over). Without
   * it a guest waiting for input ends the session.
   */
  readonly waitForInput?: (deadlineMs: number | undefined) => Promise<void>;
}

export interface GuestSessionResult {
  /** exit()'s status, or 0 when tracing ended otherwise. */
  readonly status: number;
  /** Virtual time when tracing stopped (ns). */
  readonly stoppedAt: bigint;
  /** DIF instructions the framework executed. */
  readonly instructions: number;
  /** How the guest's last run ended (poweroff carries the -c program's exit status). */
  readonly guest: RunResult | undefined;
  /** The consumer, for what dtrace(1) prints after tracing (the aggregations not yet printed). */
  readonly consumer: Consumer;
  /** -p: the grabbed process exited. */
  readonly grabbedExited: boolean;
}

/** The guest's files by path: the initrd's, and those added to it. */
function guestFiles(initrd: Uint8Array, added: readonly InitrdFile[]): (path: string) => Uint8Array | undefined {
  let files: Map<string, Uint8Array> | undefined;
  return (path) => {
    if (!files) {
      files = new Map();
      for (const e of readInitrdEntries(initrd).entries) files.set('/' + e.name.replace(/^\.?\//, ''), initrd.subarray(e.dataStart, e.dataStart + e.size));
      for (const f of added) files.set(f.path, f.data);
    }
    return files.get(path);
  };
}

/** Whether a program reads vtimestamp (illumos enables per-thread virtual time only then). */
function usesVtimestamp(program: CompiledProgram): boolean {
  const reads = (d: Difo | undefined): boolean => d !== undefined && d.buf.some((i) => difInstrOp(i) === DIF_OP.LDGS && difInstrVar(i) === DIF_VAR.VTIMESTAMP);
  return program.ecbs.some((e) => reads(e.predicate) || e.actions.some((a) => reads(a.difo)));
}

/** A late-bound probe sink: providers are built before the state that receives their firings. */
class ForwardingSink implements ProbeSink {
  state: DTraceState | undefined;
  /** Probes another provider builds on (the syscall provider on the dispatcher's SDT sites). */
  readonly taps = new Map<number, (cpu: number, args: readonly bigint[]) => void>();
  constructor(private readonly view: GuestMachineView) {}
  probe(probeId: number, cpu: number, args: readonly bigint[]): void {
    if (!this.state) return;
    this.view.firingCpu = cpu;
    this.taps.get(probeId)?.(cpu, args);
    this.state.probe(probeId, cpu, args);
  }
}

export class GuestTracer {
  readonly registry = new ProbeRegistry();
  readonly profile: ProfileProvider;
  private readonly sink: ForwardingSink;
  private used = false;

  private constructor(
    readonly machine: Machine,
    readonly view: GuestMachineView,
    readonly target: KernelTarget,
    readonly fbt: FbtProvider,
    readonly sdt: SdtProvider,
    readonly kinst: KinstProvider,
    readonly syscall: SyscallProvider,
    sink: ForwardingSink,
  ) {
    this.sink = sink;
    this.registry.registerProvider(createDtraceProvider());
    // profile-N / tick-N: arg0 the kernel pc, arg1 the user pc of the CPU where the timer caught it.
    this.profile = new ProfileProvider(
      () => view.now(),
      (cpu) => {
        view.firingCpu = cpu;
        const regs = machine.registers(cpu);
        return regs.userMode() ? [0n, regs.pc()] : [regs.pc(), 0n];
      },
    );
    this.registry.registerProvider(this.profile.definition);
    this.registry.registerProvider(fbt.definition);
    for (const d of sdt.definitions) this.registry.registerProvider(d);
    this.registry.registerProvider(kinst.definition);
    this.registry.registerProvider(syscall.definition);
  }

  /**
   * Boots the guest until process `pid` exists or the guest waits for console
   * input with every CPU idle (its shell at the prompt), at most `limit`
   * instructions; returns whether the process is alive (-p's grab).
   */
  bootUntilProcess(pid: number, limit = 200_000_000): boolean {
    const start = this.machine.instructions;
    while (!this.view.processAlive(pid)) {
      const r = this.machine.run({ instructions: 1_000_000 });
      if (r.kind !== 'limit' || this.machine.instructions - start >= limit) return this.view.processAlive(pid);
    }
    return true;
  }

  /** Builds the machine (kernel loaded, CPU 0 at its entry, nothing run yet) and its providers. */
  static async create(options: GuestTracerOptions): Promise<GuestTracer> {
    // The sample module is loaded at boot unless the caller says which modules to load.
    const modules = options.machine?.modules ?? Object.entries(defaultImages(options.isa).modules).map(([name, bytes]) => ({ name, bytes }));
    const machine = await Machine.create({
      ...options.machine,
      modules,
      isa: options.isa,
      cpus: options.cpus,
      args: options.args,
      files: options.files,
      consoleOutput: options.consoleOutput,
      consoleInput: options.consoleInput,
      interactive: options.interactive,
      nsPerInsn: options.nsPerInsn,
    });
    const target = machineKernelTarget(machine, {
      moduleObject: (name) => modules.find((m) => m.name === name)?.bytes ?? defaultImages(machine.isa).modules[name],
    });
    // The kernel's DWARF is read once, for the providers' argument types and the view alike.
    const view = new GuestMachineView(machine, {
      epochSeconds: options.machine?.epochSeconds,
      dwarf: () => target.modules()[0]!.dwarf(),
      programFile: guestFiles(options.machine?.initrd ?? defaultImages(options.isa).initrd, options.files ?? []),
    });
    const sink = new ForwardingSink(view);
    const support = await createIsaSupport(machine.isa);
    const fbt = await FbtProvider.create(target, sink, support);
    const sdt = await SdtProvider.create(target, sink, support);
    const kinst = await KinstProvider.create(target, sink, { support, fbt });
    const syscall = new SyscallProvider(machine, view, sink, (id, handler) => (handler ? sink.taps.set(id, handler) : sink.taps.delete(id)));
    return new GuestTracer(machine, view, target, fbt, sdt, kinst, syscall, sink);
  }

  /**
   * Keeps per-thread virtual time for vtimestamp: a tracepoint of its own at
   * the scheduler's switch point (the sites of sched:::off-cpu, shared with
   * that probe when it is enabled too, but firing no probe) tells the view
   * of every context switch. Returns what takes it out again.
   */
  private watchSwitches(): () => void {
    const table = tracepointsOf(this.target);
    const sites = this.target.modules().flatMap((m) => m.sdtSites).filter((s) => s.provider === 'sched' && s.probe === 'off-cpu');
    const tps: Tracepoint[] = sites.map((site) => {
      const { patch, result } = this.machine.isa === 'x86_64' ? x86SdtPatch(site) : armSdtPatch(site);
      return {
        address: site.address,
        patch,
        name: 'vtimestamp:kernel:schedule:switch',
        fire: (trap) => {
          this.view.switching(trap.cpu);
          return result;
        },
      };
    });
    this.view.startVtime();
    for (const tp of tps) table.install(tp);
    return () => {
      for (const tp of tps) table.remove(tp);
      this.view.stopVtime();
    };
  }

  /** Runs `program` on the guest once; the tracer cannot be reused afterwards (the guest has moved on). */
  async session(program: CompiledProgram, output: ConsumerOutput, opts: GuestSessionOptions = {}): Promise<GuestSessionResult> {
    if (this.used) throw new Error('a guest tracer runs one session');
    this.used = true;
    const state = new DTraceState(program, this.registry, this.view, opts.options ?? defaultOptions());
    const consumer = new Consumer(state, output);
    consumer.json = opts.json;
    this.sink.state = state;
    // Retained enablings: probes of a module loaded while tracing runs are matched and enabled
    // before the guest runs on (the load event comes before krtld has written the module's text).
    let loadedSince = false;
    const unsubscribe = this.target.onModuleEvent?.((e) => {
      if (e.kind === 'load') loadedSince = true;
    });
    let guest: RunResult | undefined;
    let grabbedExited = false;
    const switchWatch = usesVtimestamp(program) ? this.watchSwitches() : undefined;
    try {
      const rate = state.options.switchrate;
      state.go(0, (cpu) => fireBegin(state, cpu));
      consumer.consume(false);
      let nextSwitch = this.view.now() + rate;
      while (!(state.activity === 'draining' || state.anyBufferFull() || opts.interrupted?.())) {
        let t = nextWakeup(this.profile, consumer, nextSwitch);
        if (loadedSince) {
          loadedSince = false;
          state.matchNewProbes();
        }
        const limited = opts.timeLimit !== undefined && t >= opts.timeLimit;
        if (limited) t = opts.timeLimit!;
        guest = this.machine.run({ untilNs: Number(t) });
        const now = this.view.now();
        this.profile.fireDue(state, now);
        consumer.snapAggregations();
        if (now >= nextSwitch) {
          consumer.consume(false);
          while (nextSwitch <= now) nextSwitch += rate;
        }
        if (guest.kind === 'input' && opts.waitForInput) {
          await opts.waitForInput(guest.deadlineNs !== undefined ? (guest.deadlineNs - Number(now)) / 1e6 : undefined);
        } else if (guest.kind !== 'limit') break; // powered off, panicked, idle for good, or a CPU cannot go on
        if (limited && now >= opts.timeLimit!) break;
        if (opts.grabbed !== undefined && !this.view.processAlive(opts.grabbed)) {
          grabbedExited = true;
          break;
        }
        if (opts.pause) await opts.pause();
      }
      consumer.consume(false);
      state.stop(0, (cpu) => fireEnd(state, cpu));
      consumer.consume(true);
    } finally {
      // On any way out, the probes come out of the kernel text (stop() does nothing the second time).
      state.stop(0);
      switchWatch?.();
      unsubscribe?.();
      this.sink.state = undefined;
    }
    return { status: state.exitStatus ?? 0, stoppedAt: this.view.now(), instructions: state.instructions, guest, consumer, grabbedExited };
  }
}
