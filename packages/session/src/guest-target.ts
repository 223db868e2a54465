// A booted guest as a tracing target: a Machine of either ISA with the
// kernel providers (fbt, sdt and its named providers, kinst, syscall) next to
// dtrace and profile, the framework's view of the guest, and
// what tracing a running kernel needs besides: probes of a module loaded
// while tracing runs are enabled before the guest goes on (retained
// enablings), and per-thread virtual time is kept while a program reads
// vtimestamp.
//
// `GuestTarget.create` builds the machine (kernel loaded, CPU 0 at its entry,
// nothing run yet) and the registry, so probe descriptions can be matched and
// listed before a program is compiled.
import { ProbeRegistry, type CompiledProgram, type DTraceState } from '@wdtrace/dtrace-core';
import { DIF_OP, DIF_VAR, difInstrOp, difInstrVar, type Difo } from '@wdtrace/dtrace-core/dif';
import { Machine, defaultImages, readInitrdEntries, type InitrdFile, type Isa, type MachineOptions, type RunResult, type Trap } from '@wdtrace/kernel';
import {
  GuestMachineView,
  KernelProviders,
  ProfileProvider,
  createDtraceProvider,
  createIsaSupport,
  tracepointsOf,
  type IsaSupport,
  type ProcessProgram,
  type Tracepoint,
} from '@wdtrace/providers';
import type { TargetStep, TracingTarget } from './target.js';

export interface GuestOptions {
  readonly isa: Isa;
  /** ARM: the guest built as Thumb-2 code (its kernel, module, libc and programs) instead of A32. */
  readonly thumb?: boolean;
  /** 1 to 8 (default 1). */
  readonly cpus?: number;
  /** The program init runs, with its arguments (dtrace -c); without it (and without `running`) the guest shell reads the console. */
  readonly command?: readonly string[];
  /**
   * A running system instead of one program: the guest boots and stays up,
   * idle, or running this shell command started at boot (`cpubound &`); its
   * console reads nothing. Ignored with `command`.
   */
  readonly running?: { readonly boot?: string };
  /** Files added to the guest's initrd before boot (a host program to run). */
  readonly files?: readonly InitrdFile[];
  /** Console input for the guest; it ends after this unless `interactive`. */
  readonly consoleInput?: string | Uint8Array;
  /** Console input stays open: more comes through `input()` (dtrace -p: the shell reads the terminal). */
  readonly interactive?: boolean;
  readonly nsPerInsn?: number;
  /** Anything else the machine takes (kernel, initrd, modules, cmdline ...); `cmdline` defaults to "quiet". */
  readonly machine?: Partial<MachineOptions>;
}

/** How long the program that keeps a running system up sleeps (s): years of virtual time. */
const RUNNING_SLEEP_SECONDS = 100_000_000;

/**
 * init's program on a running system: a shell that runs the boot command,
 * if any, then sleeps, so init never sees its program end and power off.
 */
export function runningSystem(boot: string | undefined): string[] {
  const sleep = `/bin/sleep ${RUNNING_SLEEP_SECONDS}`;
  const work = boot?.trim() ?? '';
  if (work === '') return ['/bin/sh', '-c', sleep];
  return ['/bin/sh', '-c', `${work}${work.endsWith('&') ? ' ' : '; '}${sleep}`];
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

/**
 * The pid the guest gives the -c command: init (pid 1) forks it first on this
 * deterministic machine (on a running system, the boot shell; else the shell).
 */
export const COMMAND_PID = 2;

/** Directories whose programs a process's name is looked up in (the guest's own, and host programs -c placed). */
const PROGRAM_DIRECTORIES = ['/bin/', '/sbin/', '/host/'];

/** Whether a program reads vtimestamp (illumos keeps per-thread virtual time only then). */
export function usesVtimestamp(program: CompiledProgram): boolean {
  const reads = (d: Difo | undefined): boolean => d !== undefined && d.buf.some((i) => difInstrOp(i) === DIF_OP.LDGS && difInstrVar(i) === DIF_VAR.VTIMESTAMP);
  return program.ecbs.some((e) => reads(e.predicate) || e.actions.some((a) => reads(a.difo)));
}

/**
 * Whether a program's descriptions may match USDT providers that come to
 * exist while it traces: a provider field that is a glob or empty (other
 * than dtrace's BEGIN, END and ERROR), as `kv*:::request-start` or
 * `:::command-start`.
 */
export function matchesLaterUsdt(program: CompiledProgram): boolean {
  return program.ecbs.some((e) =>
    e.probes.some((d) => (d.provider === '' ? !(d.module === '' && d.function === '' && ['BEGIN', 'END', 'ERROR'].includes(d.name)) : /[*?[\\]/.test(d.provider))),
  );
}

export class GuestTarget implements TracingTarget {
  readonly registry = new ProbeRegistry();
  readonly profile: ProfileProvider;
  readonly dataModel: 'LP64' | 'ILP32';
  readonly runsByItself = true;
  readonly stepsPerYield = 1;
  /** Whether the guest's console input stays open (its shell reads the terminal). */
  readonly interactive: boolean;
  /** Set when a module was loaded since the last step: its probes are matched before the guest goes on. */
  private loadedSince = false;
  /** Set when a process came to have USDT providers while tracing: the enablings are matched again before the guest goes on. */
  private newProviders = false;
  /** Whether the kernel is up (`start` ran). */
  private started = false;
  /** The traced process ($target) whose end is watched while tracing. */
  private watched: number | undefined;
  /** Its wait status once it has exited (exit status << 8, or the killing signal), when seen. */
  private watchedStatus: number | undefined;
  /** Set when the watched process passed proc:::exit: the next steps look for its status. */
  private watchedExiting = false;

  private constructor(
    readonly machine: Machine,
    readonly support: IsaSupport,
    readonly view: GuestMachineView,
    readonly providers: KernelProviders,
    options: GuestOptions,
  ) {
    this.dataModel = support.dataModel;
    this.interactive = options.interactive ?? false;
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
    for (const d of providers.definitions) this.registry.registerProvider(d);
    // pid<N> providers come to exist when a description names them (dt_pid_create_probes); `a.out` names the executable.
    this.registry.prepareDescription = (desc) => providers.pid.prepare(this.registry, desc);
    // A process that execs a program with USDT probes (or forks from one) while a glob enabling traces:
    // the guest stops so its probes are matched before it runs on (dtrace_helper_provide's matchall).
    providers.pid.onNewProviders = () => {
      this.newProviders = true;
      machine.stop();
    };
    machine.onModuleEvent((e) => {
      if (e.kind === 'load') this.loadedSince = true;
    });
  }

  /** Builds the machine (kernel loaded, CPU 0 at its entry, nothing run yet) and its providers. */
  static async create(options: GuestOptions, consoleOutput?: (bytes: Uint8Array) => void): Promise<GuestTarget> {
    // The sample module is loaded at boot unless the caller says which modules to load.
    const images = { thumb: options.thumb ?? options.machine?.thumb };
    const modules = options.machine?.modules ?? Object.entries(defaultImages(options.isa, images).modules).map(([name, bytes]) => ({ name, bytes }));
    const machine = await Machine.create({
      cmdline: 'quiet',
      ...options.machine,
      modules,
      isa: options.isa,
      thumb: images.thumb,
      cpus: options.cpus,
      args: options.command ?? (options.running ? runningSystem(options.running.boot) : undefined),
      files: options.files,
      consoleOutput,
      consoleInput: options.consoleInput,
      interactive: options.interactive,
      nsPerInsn: options.nsPerInsn,
    });
    const support = await createIsaSupport(machine.isa);
    const programFile = guestFiles(options.machine?.initrd ?? defaultImages(options.isa, images).initrd, options.files ?? []);
    const view = new GuestMachineView(machine, support, { epochSeconds: options.machine?.epochSeconds, programFile });
    const command = options.command?.[0];
    // The pid provider's images: a live process's program by its name, or -c's command for the process that will run it.
    const programOf = (pid: number): ProcessProgram | undefined => {
      const name = view.processName(pid);
      if (name !== undefined) {
        const path = name.startsWith('/') ? name : PROGRAM_DIRECTORIES.map((d) => d + name).find((p) => programFile(p) !== undefined);
        const bytes = path === undefined ? undefined : programFile(path);
        return path !== undefined && bytes !== undefined ? { path, bytes, pending: false } : undefined;
      }
      if (pid !== COMMAND_PID || command === undefined) return undefined;
      const bytes = programFile(command);
      return bytes ? { path: command, bytes, pending: true } : undefined;
    };
    const providers = await KernelProviders.create(machine, view, support, programOf);
    if (command !== undefined) providers.pid.awaitedPids = [COMMAND_PID];
    return new GuestTarget(machine, support, view, providers, options);
  }

  now(): bigint {
    return this.view.now();
  }

  attach(state: DTraceState, target?: number): () => void {
    this.providers.fireInto(state);
    this.loadedSince = false;
    this.newProviders = false;
    const switchWatch = usesVtimestamp(state.program) ? this.watchSwitches() : undefined;
    const exitWatch = target !== undefined ? this.watchExit(target) : undefined;
    const helperWatch = matchesLaterUsdt(state.program);
    if (helperWatch) this.providers.pid.watchHelpers(true);
    return () => {
      if (helperWatch) this.providers.pid.watchHelpers(false);
      exitWatch?.();
      switchWatch?.();
      this.providers.fireInto(undefined);
    };
  }

  /**
   * Brings the kernel up, as tracing finds a live system: runs the guest from
   * power-on until the first program init starts (process 2, the -c command,
   * the shell or the boot command) has been exec'd — the point where dtrace -c
   * has its process created and stopped, before it runs a user instruction.
   * BEGIN fires after this, on a kernel with its CPUs online, its memory
   * mapped and its processes running. Nothing happens the second time.
   */
  start(limit = 4_000_000_000): void {
    if (this.started) return;
    this.started = true;
    let execd = false;
    const tps = this.siteTracepoints('proc', 'exec-success', 'boot:kernel:exec:success', (trap) => {
      if (this.view.thread(trap.cpu).pid === COMMAND_PID) {
        execd = true;
        this.machine.stop();
      }
    });
    const table = tracepointsOf(this.machine);
    for (const tp of tps) table.install(tp);
    try {
      const begin = this.machine.instructions;
      while (!execd && this.machine.instructions - begin < limit) {
        const r = this.machine.run({ instructions: 10_000_000 });
        if (r.kind !== 'limit' && r.kind !== 'stopped') break;
      }
    } finally {
      for (const tp of tps) table.remove(tp);
    }
  }

  /** The wait status of the traced process once it has exited (exit status << 8, or the signal that killed it). */
  exitStatus(): number | undefined {
    return this.watchedStatus;
  }

  beforeStep(state: DTraceState): void {
    // Retained enablings: probes of a module loaded while tracing runs are matched and enabled
    // before the guest runs on (the load event comes before krtld has written the module's text).
    if (!this.loadedSince && !this.newProviders) return;
    this.loadedSince = false;
    this.newProviders = false;
    state.matchNewProbes();
  }

  advance(t: bigint): TargetStep {
    const result: RunResult = this.machine.run({ untilNs: Number(t) });
    if (result.kind === 'stopped' && this.watchedExiting) {
      this.collectExitStatus();
      return { kind: 'running' };
    }
    // Stopped for new USDT providers: the next step matches them first.
    if (result.kind === 'stopped' && this.newProviders) return { kind: 'running' };
    if (result.kind === 'limit') return { kind: 'running' };
    if (result.kind === 'input') return { kind: 'input', deadlineNs: result.deadlineNs };
    return { kind: 'ended', result };
  }

  ended(): RunResult | undefined {
    return this.machine.result;
  }

  processAlive(pid: number): boolean {
    return this.view.processAlive(pid);
  }

  /**
   * Brings the kernel up (`start`), then runs the guest until process `pid`
   * exists, the guest waits for console input with every CPU idle (its shell
   * at the prompt), or `boundNs` of virtual time has passed; returns whether
   * the process is alive (-p's grab).
   */
  bootUntilProcess(pid: number, boundNs = 1_000_000_000): boolean {
    this.start();
    const until = Number(this.now()) + boundNs;
    while (!this.view.processAlive(pid)) {
      const r = this.machine.run({ instructions: 1_000_000, untilNs: until });
      if (r.kind !== 'limit' || Number(this.now()) >= until) return this.view.processAlive(pid);
    }
    return true;
  }

  /**
   * Watches process `pid` end, as libproc tells dtrace(1) its wait status: a
   * tracepoint of its own at the proc:::exit sites (shared with that probe
   * when it is enabled, but firing none) stops the machine when the process's
   * main thread exits; the next step finds the status in its task once it is
   * a zombie, before its parent can reap it. Returns what takes it out again.
   */
  private watchExit(pid: number): () => void {
    this.watched = pid;
    const tps = this.siteTracepoints('proc', 'exit', 'target:kernel:exit:watch', (trap) => {
      const thread = this.view.thread(trap.cpu);
      if (thread.pid === pid && thread.tid === pid) {
        this.watchedExiting = true;
        this.machine.stop();
      }
    });
    const table = tracepointsOf(this.machine);
    for (const tp of tps) table.install(tp);
    return () => {
      for (const tp of tps) table.remove(tp);
    };
  }

  /** Runs the guest on in small steps until the exiting traced process is a zombie, and keeps its wait status. */
  private collectExitStatus(): void {
    this.watchedExiting = false;
    for (let i = 0; i < 10_000 && this.watchedStatus === undefined; i++) {
      this.watchedStatus = this.view.exitStatus(this.watched!);
      if (this.watchedStatus !== undefined) break;
      const r = this.machine.run({ instructions: 16 });
      if (r.kind !== 'limit' && r.kind !== 'stopped') break;
    }
  }

  /** Tracepoints at every site of SDT probe provider:name that call `hook` and fire no probe. */
  private siteTracepoints(provider: string, probe: string, name: string, hook: (trap: Trap) => void): Tracepoint[] {
    const sites = this.machine.kernelModules().flatMap((m) => m.sdtSites).filter((s) => s.provider === provider && s.probe === probe);
    return sites.map((site) => {
      const { patch, result } = this.support.sdtPatch(site);
      return {
        address: site.address,
        patch,
        name,
        fire: (trap: Trap) => {
          hook(trap);
          return result;
        },
      };
    });
  }

  /**
   * Keeps per-thread virtual time for vtimestamp: a tracepoint of its own at
   * the scheduler's switch point (the sites of sched:::off-cpu, shared with
   * that probe when it is enabled too, but firing no probe) tells the view
   * of every context switch. Returns what takes it out again.
   */
  private watchSwitches(): () => void {
    const table = tracepointsOf(this.machine);
    const sites = this.machine.kernelModules().flatMap((m) => m.sdtSites).filter((s) => s.provider === 'sched' && s.probe === 'off-cpu');
    const tps: Tracepoint[] = sites.map((site) => {
      const { patch, result } = this.support.sdtPatch(site);
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
}
