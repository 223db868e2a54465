// The playground's wdtrace: what the CLI does for `wdtrace [--arch ISA]
// [--cpus N] OPTIONS -n SOURCE [-c COMMAND]`, over @wdtrace/session in the
// worker — a guest of the ISA (without --arch: the idle machine, unless the
// program needs a guest), running -c's command or, without one, a running
// system (idle, or running --boot's command) traced until exit(), --run-for
// or Stop, the same checks and messages, the matched-probes notice, -l, -d,
// -e and -v, then the trace — written to the host in the order dtrace(1)
// writes it, with the exit status. The guest images come
// from the host (the site fetches them); nothing here touches the DOM.
import { dtraceOptions, xOptions } from '@wdtrace/cli/dtrace-options';
import { dumpSugared, formatDiagnostics, type CompileOptions } from '@wdtrace/d-lang';
import { formatStabilityReport, parseProbeDescription, programAttributes, setOption, type CompiledProgram } from '@wdtrace/dtrace-core';
import { MAX_CPUS, type GuestImages } from '@wdtrace/kernel';
import { Session, formatStatementInfo, matchedProbeCount, guestExecProblem, guestHasFile, type AggregationData, type RunOptions, type SessionEvent } from '@wdtrace/session';
import { OptionsError, needsGuest, parseOptions, type TraceFlags } from './command-line.js';
import type { Arch, Isa } from './state.js';

export interface TraceRequest {
  readonly source: string;
  readonly isa: Arch;
  readonly command: string;
  readonly cpus: number;
  readonly options: string;
}

export interface TraceHost {
  /** dtrace(1)'s output, in order: each piece with the stream it goes to. */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** The lines of the program the compiler reported errors at. */
  errorLines(lines: number[]): void;
  /** The program's probes are in the kernel's text now (before the guest runs on). */
  enabled(session: Session, program: CompiledProgram): void;
  /** The aggregations when tracing ended, as data. */
  aggregations(data: readonly AggregationData[], session: Session): void;
  /** Lets the page's messages in between steps; resolves true when the page asked to stop. */
  pause(): Promise<boolean>;
}

/**
 * The host's side of the destructive actions, in a page: there is no shell
 * for system() (it says so on standard error) and no file for freopen()
 * (dtrace reports it as it reports a file it cannot open); ftruncate() of
 * the page's output does nothing, as the CLI's does to a terminal.
 */
function pageActions(host: TraceHost): NonNullable<RunOptions['actions']> {
  return {
    system: (command) => host.write('stderr', `dtrace: system("${command}") not run: the playground has no shell\n`),
    freopen: (path) => (path === '' ? undefined : 'Read-only file system'),
    ftruncate: () => {},
  };
}

/** A bad option or argument: dtrace(1) reports it with status 2. */
class UsageError extends Error {}

/** "5s", "250ms", "2m", "100" (seconds) in nanoseconds, as --run-for reads them. */
function parseDuration(text: string): bigint {
  const m = /^(\d+)(ns|us|ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`invalid duration '${text}': expected a number with an optional unit (ns, us, ms, s, m, h)`);
  const unit = { ns: 1n, us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
  return BigInt(m[1]!) * unit[(m[2] ?? 's') as keyof typeof unit];
}

/** compile_str's name for reports: the text cropped at its first '{', '/' or ';'. */
function reportedName(source: string): string {
  const cut = source.search(/[{/;]/);
  return cut < 0 ? source : source.slice(0, cut);
}

/** -l's probes: those of each comma-separated description when the text is only descriptions, else of the text as one. */
function listed(session: Session, source: string): ReturnType<Session['probes']> {
  const bare = /[{}/;]/.test(source) ? undefined : source.split(',').map((s) => s.trim());
  const descriptions = bare?.every((d) => d !== '') ? bare : [source];
  // $target names -c's command, as when the description is compiled (pid$target:a.out::entry).
  const target = (d: string): string => (session.targetPid === undefined ? d : d.replace(/\$target\b/g, String(session.targetPid)));
  return descriptions.flatMap((d) => session.registry.match(parseProbeDescription(target(d))));
}

/** Resolves true once real time since `startedAt` reaches virtual time `t` since `base`; waits at most 100 ms at a time (dtrace(1) on a live system waits for ^C in real time). */
function paceTo(startedAt: number, base: bigint, t: bigint): Promise<boolean> {
  const wait = Number((t - base) / 1_000_000n) - (Date.now() - startedAt);
  if (wait <= 0) return Promise.resolve(true);
  return new Promise((resolve) => setTimeout(() => resolve(wait <= 100), Math.min(wait, 100)));
}

/** The guest images of an ISA, from the host (fetched on first use in the site). */
export type ImageLoader = (isa: Isa) => Promise<GuestImages>;

/** Traces the request; returns the exit status dtrace(1) would have. */
export async function trace(request: TraceRequest, images: ImageLoader, host: TraceHost): Promise<number> {
  try {
    return await traceOrThrow(request, images, host);
  } catch (e) {
    host.write('stderr', `dtrace: ${e instanceof Error ? e.message : String(e)}\n`);
    return e instanceof UsageError || e instanceof OptionsError ? 2 : 1;
  }
}

/**
 * The session: a booted guest of the request's ISA (or, without one, when
 * the program needs a guest or --boot asks for one), else the idle machine.
 * The guest runs -c's command, or without one is a running system, as the
 * CLI's: booted and staying up, idle or running --boot's command.
 */
async function openSession(request: TraceRequest, flags: TraceFlags, images: ImageLoader, onEvent: (e: SessionEvent) => void): Promise<Session> {
  // One range for the idle machine and the guest, as the CLI's: a machine has 1 to 8 CPUs.
  if (!Number.isInteger(request.cpus) || request.cpus < 1 || request.cpus > MAX_CPUS) throw new UsageError(`invalid CPU count '${request.cpus}': a machine has 1 to ${MAX_CPUS} CPUs`);
  const isa: Isa | undefined = request.isa !== 'none' ? request.isa : needsGuest(request.source, request.command) || flags.boot !== undefined ? 'x86_64' : undefined;
  // Virtual time starts at 0; walltimestamp counts from the real time the session starts.
  if (isa === undefined) return Session.create({ idle: { ncpus: request.cpus, walltime: BigInt(Date.now()) * 1_000_000n }, onEvent });
  // -c's command: a program of the guest's own (there is no host to bring one from).
  const words = request.command.trim().split(/\s+/).filter((w) => w !== '');
  if (words.length > 0 && flags.boot !== undefined) throw new UsageError('--boot starts a running system; it cannot be combined with -c');
  const guest = await images(isa);
  if (words.length > 0) {
    if (!guestHasFile(isa, words[0]!, guest.initrd)) throw new UsageError(`failed to execute ${words[0]}: no such file in the guest file system`);
    const problem = guestExecProblem(isa, words[0]!, guest.initrd);
    if (problem !== undefined) throw new Error(`failed to execute ${words[0]}: ${problem}`);
  }
  return Session.create({
    guest: {
      isa,
      cpus: request.cpus,
      command: words.length > 0 ? words : undefined,
      running: words.length > 0 ? undefined : { boot: flags.boot },
      machine: { kernel: guest.kernel, initrd: guest.initrd, modules: Object.entries(guest.modules).map(([name, bytes]) => ({ name, bytes })) },
    },
    onEvent,
  });
}

async function traceOrThrow(request: TraceRequest, images: ImageLoader, host: TraceHost): Promise<number> {
  const flags: TraceFlags = parseOptions(request.options);
  const options = dtraceOptions({ x: flags.x, q: flags.quiet, F: flags.flowindent, w: flags.destructive, Z: flags.zdefs, b: flags.bufsize });
  const session = await openSession(request, flags, images, (e) => {
    if ('stream' in e) host.write(e.stream, e.text);
  });
  if (flags.list) {
    host.write('stdout', session.listProbes(listed(session, request.source), flags.verbose));
    return 0;
  }

  const compileOptions: CompileOptions = {
    origin: { kind: 'probe', text: request.source },
    macroVariables: { pid: 1, ppid: 0, uid: 0, gid: 0 },
    options: xOptions(flags.x),
    zdefs: flags.zdefs,
  };
  const reportOptions = { ...compileOptions, errtags: options.errtags };
  if (flags.sugar) {
    const d = dumpSugared(request.source, session.compileOptions(compileOptions));
    if (d.text === undefined) {
      host.errorLines(d.diagnostics.flatMap((x) => (x.location ? [x.location.line] : [])));
      host.write('stderr', formatDiagnostics({ diagnostics: d.diagnostics }, compileOptions) + '\n');
      return 1;
    }
    host.write('stdout', d.text);
    return 0;
  }
  const result = session.compileResult(request.source, compileOptions);
  const warnings = result.diagnostics.filter((x) => x.severity === 'warning');
  if (warnings.length > 0) host.write('stderr', formatDiagnostics({ diagnostics: warnings }, reportOptions) + '\n');
  if (!result.program) {
    const errors = result.diagnostics.filter((x) => x.severity === 'error');
    host.errorLines(errors.flatMap((x) => (x.location && x.location.file === undefined ? [x.location.line] : [])));
    host.write('stderr', formatDiagnostics({ diagnostics: errors }, reportOptions) + '\n');
    return 1;
  }
  const program = result.program;
  const matched = matchedProbeCount(program, session.registry);
  for (const opt of program.options) setOption(options, opt.name, opt.value);
  const name = reportedName(request.source);
  const report = flags.verbose ? formatStabilityReport('description', name, programAttributes(program, session.registry)) : undefined;
  if (flags.exitAfterMatch) {
    if (report !== undefined) host.write('stdout', report + formatStatementInfo(program, session.registry));
    return 0;
  }
  if (!options.quiet) host.write('stderr', `dtrace: description '${name}' matched ${matched} probe${matched === 1 ? '' : 's'}\n`);
  if (report !== undefined) host.write('stdout', report + '\n');
  if (!options.quiet && options.destructive) host.write('stderr', 'dtrace: allowing destructive actions\n');

  const timeLimit = flags.runFor !== undefined ? parseDuration(flags.runFor) : undefined;
  // The guest's kernel comes up first: tracing (and real time's pacing) starts on the running system.
  session.guest?.start();
  const startedAt = Date.now();
  const base = session.target.now();
  const end = await session.run(program, {
    options,
    timeLimit,
    // Without a command and a time limit (the idle machine, a running system), virtual time follows
    // real time until Stop, as in the CLI until ^C.
    pace:
      request.command.trim() === '' && timeLimit === undefined
        ? async (t) => {
            const caughtUp = await paceTo(startedAt, base, t);
            if (await host.pause()) session.interrupt();
            return caughtUp;
          }
        : undefined,
    records: false,
    untilInterrupted: true,
    actions: pageActions(host),
    onEnabled: () => host.enabled(session, program),
    yield: async () => {
      if (await host.pause()) session.interrupt();
    },
  });
  host.aggregations(end.aggregations, session);
  return end.status;
}
