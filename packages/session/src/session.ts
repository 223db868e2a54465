// A tracing session, as libdtrace's consumer side runs one: a target (a
// booted guest, or none), D compiled against its probes, the program enabled
// and traced through dtrace(1)'s work loop, and everything dtrace(1) would
// print delivered as events — text and data — to the host. Nothing here
// touches a file, a terminal or a process: the host gives input and
// interrupts (`input`, `interrupt`) and takes the events.
import { formatDiagnostics, compile as compileD, type CompileOptions, type CompileResult } from '@wdtrace/d-lang';
import {
  Consumer,
  DTraceState,
  defaultOptions,
  parseProbeDescription,
  setOption,
  type CompiledProgram,
  type ConsumerOutput,
  type DTraceOptions,
  type Probe,
  type ProbeRegistry,
} from '@wdtrace/dtrace-core';
import { bytesString } from '@wdtrace/dtrace-core/dif';
import type { Isa, Machine } from '@wdtrace/kernel';
import { aggregationData, type AggregationData } from './aggregations.js';
import { TargetCompiler } from './compile.js';
import { messageEvent, type SessionEvent } from './events.js';
import { COMMAND_PID, GuestTarget, type GuestOptions } from './guest-target.js';
import { IdleTarget, type IdleOptions } from './idle-target.js';
import { formatProbeList } from './listing.js';
import { workLoop, type LoopEnd, type LoopOptions } from './loop.js';
import type { TracingTarget } from './target.js';

export interface SessionOptions {
  /** Trace a booted guest of this configuration; without it the session has no guest (BEGIN, END, profile and tick probes). */
  readonly guest?: GuestOptions;
  /** Without a guest: the idle machine's CPUs and wall clock. */
  readonly idle?: IdleOptions;
  /** Where the session's events go as they happen (the guest's console output from the start). */
  readonly onEvent?: (event: SessionEvent) => void;
}

export interface RunOptions {
  /** Run-time and consumer options (defaults otherwise); the program's own `#pragma D option`s are set over them. */
  readonly options?: DTraceOptions;
  /** Stop after this much virtual time (ns) even without exit(). */
  readonly timeLimit?: bigint;
  /** With nothing left to fire and no guest, wait for `interrupt()` instead of ending (dtrace(1) waits for ^C). */
  readonly untilInterrupted?: boolean;
  /** Keeps virtual time from running ahead of real time (see LoopOptions.pace). */
  readonly pace?: LoopOptions['pace'];
  /** Lets the host run between steps, so it can call `interrupt()` (a timer tick, a message loop turn). */
  readonly yield?: () => Promise<unknown>;
  /** Emit a `record` event per firing (what --json prints); default true. */
  readonly records?: boolean;
  /** The host's side of system(), freopen() and ftruncate() (destructive actions, -w). */
  readonly actions?: Pick<ConsumerOutput, 'system' | 'freopen' | 'ftruncate'>;
  /** Called once the program's probes are in the text and BEGIN has fired, before the guest runs on (to look at the live kernel text). */
  readonly onEnabled?: () => void;
}

export interface SessionResult extends LoopEnd {
  /** The aggregations when tracing ended. */
  readonly aggregations: readonly AggregationData[];
}

/** A program that did not compile: the message is dtrace(1)'s report of its errors. */
export class CompileFailure extends Error {
  override name = 'CompileFailure';
  constructor(
    readonly result: CompileResult,
    options: CompileOptions,
  ) {
    super(formatDiagnostics({ diagnostics: result.diagnostics.filter((d) => d.severity === 'error') }, options));
  }
}

/** A session used in a way it cannot be (a second run, input to a guest that reads none). */
export class SessionError extends Error {
  override name = 'SessionError';
}

/** Options with an origin: a text compiled without one is taken as dtrace -n takes its argument. */
function withOrigin(source: string, options: CompileOptions): CompileOptions {
  return { origin: { kind: 'probe', text: source }, ...options };
}

/** Linux's signal names by number (the guest's ABI is Linux's on both ISAs). */
const SIGNAL_NAMES = [
  '', 'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGILL', 'SIGTRAP', 'SIGABRT', 'SIGBUS', 'SIGFPE', 'SIGKILL', 'SIGUSR1', 'SIGSEGV', 'SIGUSR2', 'SIGPIPE', 'SIGALRM', 'SIGTERM',
  'SIGSTKFLT', 'SIGCHLD', 'SIGCONT', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGURG', 'SIGXCPU', 'SIGXFSZ', 'SIGVTALRM', 'SIGPROF', 'SIGWINCH', 'SIGIO', 'SIGPWR', 'SIGSYS',
];

/** A signal's name as proc_signame gives it ("SIGSEGV", "SIG40" for one without a name). */
export function signalName(sig: number): string {
  return SIGNAL_NAMES[sig] || `SIG${sig}`;
}

/**
 * dtrace(1)'s prochandler words for the end of process `pid`, from its wait
 * status (or, when that was not seen, init's report of it: the exit status,
 * or 128 + the signal).
 */
export function processEnd(pid: number, waitStatus: number | undefined, initStatus: number | undefined): string {
  if (waitStatus !== undefined) {
    if ((waitStatus & 0x7f) !== 0) return `pid ${pid} terminated by ${signalName(waitStatus & 0x7f)}`;
    const status = (waitStatus >> 8) & 0xff;
    return status !== 0 ? `pid ${pid} exited with status ${status}` : `pid ${pid} has exited`;
  }
  return initStatus ? `pid ${pid} exited with status ${initStatus}` : `pid ${pid} has exited`;
}

export class Session {
  private interrupted = false;
  private ran = false;
  private grabbed: number | undefined;
  private wakeInput: (() => void) | undefined;
  private readonly compiler: TargetCompiler;

  private constructor(
    /** What is traced: the guest, or the idle machine. */
    readonly target: TracingTarget,
    /** The booted guest, when there is one. */
    readonly guest: GuestTarget | undefined,
    private pid: number | undefined,
    private readonly emit: (event: SessionEvent) => void,
  ) {
    this.compiler = new TargetCompiler(target, guest, () => this.pid);
  }

  /** Builds the target: a guest machine (kernel loaded, nothing run yet) with its providers, or the idle machine. */
  static async create(options: SessionOptions = {}): Promise<Session> {
    const emit = options.onEvent ?? (() => {});
    if (!options.guest) return new Session(new IdleTarget(options.idle), undefined, undefined, emit);
    const guest = await GuestTarget.create(options.guest, (bytes) => emit({ kind: 'console', stream: 'stdout', text: bytesString(bytes), bytes }));
    const pid = options.guest.command !== undefined && options.guest.command.length > 0 ? COMMAND_PID : undefined;
    return new Session(guest, guest, pid, emit);
  }

  /** The guest's ISA, undefined without a guest. */
  get isa(): Isa | undefined {
    return this.guest?.machine.isa;
  }

  /** The guest machine, undefined without a guest. */
  get machine(): Machine | undefined {
    return this.guest?.machine;
  }

  /** $target: the -c command's pid, or the grabbed process's. */
  get targetPid(): number | undefined {
    return this.pid;
  }

  get registry(): ProbeRegistry {
    return this.target.registry;
  }

  /** The probes matching a description ("provider:module:function:name", fields may be globs or empty). */
  probes(description: string): Probe[] {
    return this.registry.match(parseProbeDescription(description));
  }

  /** dtrace -l's listing of `probes` (every probe when omitted); `verbose` adds -lv's attributes and argument types. */
  listProbes(probes?: Iterable<Probe>, verbose = false): string {
    return formatProbeList(this.registry, probes ?? this.registry.all(), verbose);
  }

  /** `options` completed with what the target decides: its probes, data model, kernel types, D library, $target. */
  compileOptions(options: CompileOptions = {}): CompileOptions {
    return this.compiler.options(options);
  }

  /** Compiles D against this session's probes; the result carries the program or the diagnostics. */
  compileResult(source: string, options: CompileOptions = {}): CompileResult {
    // Programs are compiled against the running kernel, as dtrace(1) compiles against a live
    // system: the guest comes up first, so process probes (pid$target) find their processes.
    this.guest?.start();
    return compileD(source, this.compileOptions(withOrigin(source, options)));
  }

  /** Compiles D against this session's probes; throws CompileFailure with dtrace(1)'s report when it does not compile. */
  compile(source: string, options: CompileOptions = {}): CompiledProgram {
    const r = this.compileResult(source, options);
    if (!r.program) throw new CompileFailure(r, withOrigin(source, options));
    return r.program;
  }

  /**
   * dtrace -p: boots the (interactive) guest until process `pid` exists or the
   * guest waits at its prompt; returns whether it is alive. Tracing then
   * ends when it exits, and $target is `pid`.
   */
  grab(pid: number): boolean {
    if (!this.guest) throw new SessionError('there is no guest to grab a process in');
    this.grabbed = pid;
    this.pid = pid;
    if (!this.guest.bootUntilProcess(pid)) return false;
    // A stopped process runs on once grabbed, as dtrace's grab sets it running.
    this.guest.view.continueIfStopped(pid);
    return true;
  }

  /** Console input for an interactive guest (the terminal, under -p). */
  input(bytes: Uint8Array): void {
    this.interactiveMachine().input(bytes);
    this.wakeInput?.();
  }

  /** The end of console input. */
  closeInput(): void {
    this.interactiveMachine().closeInput();
    this.wakeInput?.();
  }

  /** Ends tracing at the next step, as ^C does: END fires and the buffers drain as after exit(). */
  interrupt(): void {
    this.interrupted = true;
  }

  /** Traces `program` from BEGIN to END; the events come as it runs. A session runs one program. */
  async run(program: CompiledProgram, o: RunOptions = {}): Promise<SessionResult> {
    if (this.ran) throw new SessionError('a session runs one program (its machine has moved on)');
    this.ran = true;
    const options = o.options ?? defaultOptions();
    for (const opt of program.options) setOption(options, opt.name, opt.value);
    const state = new DTraceState(program, this.target.registry, this.target.view, options);
    const consumer = new Consumer(state, {
      out: (text) => this.emit({ kind: 'output', stream: 'stdout', text }),
      err: (text) => this.emit(messageEvent(text)),
      ...o.actions,
    });
    if (o.records ?? true) consumer.json = (record) => this.emit({ kind: 'record', record });
    // Tracing starts on the running kernel: BEGIN fires once it is up.
    this.guest?.start();
    const end = await workLoop(this.target, state, consumer, {
      timeLimit: o.timeLimit,
      target: this.pid,
      interrupted: () => this.interrupted,
      untilInterrupted: o.untilInterrupted,
      pace: o.pace,
      yield: o.yield,
      grabbed: this.grabbed,
      onEnabled: o.onEnabled,
      waitForInput: this.guest?.interactive ? (deadlineMs) => this.waitForInput(deadlineMs) : undefined,
    });
    this.reportGuestEnd(end, state.options.quiet);
    const printout = consumer.printAggregations();
    const aggregations = aggregationData(consumer);
    this.emit({ kind: 'aggregations', stream: 'stdout', text: '\n' + printout, printout, aggregations });
    return { ...end, aggregations };
  }

  /** dtrace(1)'s words when the traced process or the guest ended. */
  private reportGuestEnd(end: LoopEnd, quiet: boolean): void {
    const g = end.guest;
    const say = (text: string) => this.emit({ kind: 'message', stream: 'stderr', text });
    // A notice, which -q silences (dtrace.c's notice()).
    if (this.pid !== undefined && (g?.kind === 'poweroff' || end.grabbedExited)) {
      if (!quiet) say(`dtrace: ${processEnd(this.pid, this.guest?.exitStatus(), g?.kind === 'poweroff' ? g.status : undefined)}\n`);
    } else if (g?.kind === 'panic') say(`dtrace: the guest kernel panicked (status ${g.status})\n`);
    else if (g?.kind === 'fatal') say(`dtrace: guest CPU ${g.cpu} stopped: ${g.reason} at ${this.guest!.view.symbols.lookup(g.pc)?.symbol?.name ?? `0x${g.pc.toString(16)}`}\n`);
  }

  private interactiveMachine(): Machine {
    if (!this.guest?.interactive) throw new SessionError('the guest does not read console input (create it interactive)');
    return this.guest.machine;
  }

  /** Resolves when console input comes, input ends, or `deadlineMs` of real time passes (the guest then runs on). */
  private waitForInput(deadlineMs: number | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = deadlineMs !== undefined ? setTimeout(() => done(), Math.max(0, deadlineMs)) : undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.wakeInput = undefined;
        resolve();
      };
      this.wakeInput = done;
    });
  }
}
