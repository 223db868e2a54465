// wdtrace(1): the command-line consumer. It owns option parsing, file and
// process I/O, and output; what it traces, compiles and prints comes from
// @wdtrace/session, with I/O injected from here. Options, messages and exit
// statuses follow dtrace(1): 0 (or exit()'s status) on success, 1 when
// tracing cannot start, 2 for usage errors.
//
// A trace runs in stages: the options, the session (a booted guest when the
// invocation asks for one, else the idle machine), the probe listing (-l) or
// the compiled specifications, the output opened, the notices, and tracing.
import { CommanderError } from 'commander';
import { LoadError, parseProbeDescription, probeDescriptionString, type DTraceOptions, type Probe } from '@wdtrace/dtrace-core';
import { utf8ByteString } from '@wdtrace/dtrace-core/dif';
import { Session, type SessionEvent } from '@wdtrace/session';
import { D_VERSION, UsageError, bareDescriptions, createProgram, grabPid, parseDuration, specDescription, type ProbeSpec } from './command.js';
import { compileSpecs, libraryDirs, readBytesText, type CompiledSpecs } from './compile-specs.js';
import { dtraceOptions, preprocessorFlags, xOptions } from './dtrace-options.js';
import { GuestCliError, openGuestSession, wantsGuest } from './guest.js';
import { TraceOutput, strerror, type CliIo } from './output.js';
import { trace } from './trace.js';

export { VERSION, D_VERSION, parseDuration, createProgram } from './command.js';
export type { CliIo } from './output.js';

// D strings are bytes. Past main()'s argument edge every string here is a
// byte string (one code unit per byte, see stringBytes): the arguments and
// the files read are turned into their bytes, and what is written — trace
// output, messages, -o files — is written back byte for byte.

const defaultIo: CliIo = { out: (s) => process.stdout.write(Buffer.from(s, 'latin1')), err: (s) => process.stderr.write(Buffer.from(s, 'latin1')), input: process.stdin };

/** CPUs of a machine, the idle one as the guest. */
const MAX_CPUS = 8;

/** The parsed command line. */
type Flags = Record<string, unknown> & { x: string[]; D: string[]; U: string[]; I: string[] };

/**
 * dtrace(1)'s oprintf: a failed write of trace output (a full device, a
 * closed pipe) ends the command with one line and status 1. Writes to a
 * pipe fail later than they are made, so this listens on stdout itself.
 */
function watchStdout(): void {
  if (process.stdout.listenerCount('error') > 0) return;
  process.stdout.on('error', (e) => {
    process.stderr.write(`dtrace: failed to write to <stdout>: ${strerror(e)}\n`);
    process.exit(1);
  });
}

/** Runs the CLI on `argv` (node-style: argv[0] node, argv[1] script) and returns the exit status. */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  if (io === defaultIo) watchStdout();
  // Verbs load their packages on demand, so tracing does not pay for them.
  if (argv[2] === 'dis') return (await import('./dis.js')).runDis(argv.slice(3), io);
  if (argv[2] === 'run') return (await import('./run.js')).runRun(argv.slice(3), io);
  // The arguments (text) as the byte strings of their UTF-8.
  argv = argv.map((a, i) => (i < 2 ? a : utf8ByteString(a)));
  const { program, specs } = createProgram(io.out, io.err);
  // dtrace(1) without arguments prints its usage to stderr (status 2).
  if (argv.length <= 2) {
    io.err(program.helpInformation());
    return 2;
  }
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = program.opts<Flags>();
  for (const repeatable of ['x', 'D', 'U', 'I'] as const) o[repeatable] ??= [];
  try {
    return await run(o, specs, program.args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`dtrace: ${e.message}\n`);
      return 2;
    }
    io.err(`dtrace: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

async function run(o: Flags, specs: ProbeSpec[], macroArgs: string[], io: CliIo): Promise<number> {
  if (o.V) {
    io.out(`dtrace: ${D_VERSION}\n`);
    return 0;
  }
  if (o.h || o.G) {
    if ((o.h && o.G) || o.l) throw new UsageError('only one of the [-AGhlV] options can be specified at a time');
    const { runHeader, runLink } = await import('./link.js');
    const out = typeof o.o === 'string' ? o.o : undefined;
    return o.h ? runHeader(specs, compileFlags(o, []), out, io) : runLink(specs, compileFlags(o, []), out, macroArgs, io);
  }
  // Every option's value is checked before anything is compiled or traced.
  const timeLimit = o.runFor !== undefined ? parseDuration(String(o.runFor)) : undefined;
  const options = dtraceOptions({ x: o.x, q: Boolean(o.q), F: Boolean(o.F), w: Boolean(o.w), Z: Boolean(o.Z), b: o.b === undefined ? undefined : String(o.b) });
  const output = new TraceOutput(io, Boolean(o.json), typeof o.o === 'string' ? o.o : undefined);
  // A running system's console is not trace output; a -c command's is its terminal.
  if (o.c === undefined) output.consoleTo = 'err';
  const session = await openSession(o, specs, output.event, io.input !== undefined);
  if (o.l) {
    // `wdtrace -l` alone lists the idle machine's few probes: say how to see the kernel's.
    if (session.guest === undefined && specs.length === 0) {
      io.err('dtrace: no guest machine: listing the probes of the idle machine (BEGIN, END, ERROR, profile); add --arch x86_64 or --arch arm to list the guest kernel\'s probes\n');
    }
    const { probes, unmatched } = listedProbes(session, specs);
    io.out(session.listProbes(probes, Boolean(o.v)));
    // dtrace -l: list_stmt's error for each description that matches nothing.
    for (const d of unmatched) io.err(`dtrace: failed to match ${d}: No probe matches description\n`);
    return unmatched.length > 0 ? 1 : 0;
  }
  if (specs.length === 0) throw new LoadError('no probes specified');
  const compiled = compileSpecs(session, specs, compileFlags(o, macroArgs), options, io);
  if (typeof compiled === 'number') return compiled;
  // The output file opens before the programs are enabled, as in dtrace(1).
  output.open();
  if (o.e) {
    // -e compiles without enabling: dtrace(1) then reports no matches (exec_prog takes dtrace_program_info),
    // and -v reports the program's attributes, then each statement's probe description (info_stmt).
    for (const n of compiled.notices) if (n.report !== undefined) output.write(n.report + (n.statements ?? ''));
    return 0;
  }
  announce(compiled, options, io, output);
  return trace(session, compiled.program, {
    options,
    timeLimit,
    json: Boolean(o.json),
    input: session.guest?.interactive ? io.input : undefined,
  }, output);
}

/** A -s script's text for deciding whether it needs a guest (an unreadable one is reported later, when compiled). */
function readScriptText(path: string): string {
  try {
    return readBytesText(path);
  } catch {
    return '';
  }
}

/** The session: a booted guest when the invocation asks for one (-c, -p, --arch) or names kernel probes; else the idle machine. */
async function openSession(o: Flags, specs: ProbeSpec[], onEvent: (e: SessionEvent) => void, hasInput: boolean): Promise<Session> {
  const ncpus = Number(o.cpus);
  // One range for the idle machine and the guest: a machine has 1 to 8 CPUs.
  if (!/^\d+$/.test(String(o.cpus)) || ncpus < 1 || ncpus > MAX_CPUS) throw new UsageError(`invalid CPU count '${String(o.cpus)}': a machine has 1 to ${MAX_CPUS} CPUs`);
  const nsPerInsn = Number(o.nsPerInsn);
  if (!/^\d+$/.test(String(o.nsPerInsn)) || nsPerInsn < 1 || nsPerInsn > 1_000_000) throw new UsageError(`invalid --ns-per-insn '${String(o.nsPerInsn)}': expected a whole number from 1 to 1000000`);
  const request = {
    arch: o.arch as string | undefined,
    thumb: o.thumb === true,
    command: o.c as string | undefined,
    grab: o.p !== undefined ? grabPid(String(o.p)) : undefined,
    boot: o.boot as string | undefined,
    input: hasInput,
    cpus: ncpus,
    nsPerInsn,
    texts: specs.map((s) => (s.flag === 's' ? readScriptText(s.text) : s.text)),
    providers: specs.filter((s) => s.flag === 'P').map((s) => s.text),
  };
  if (!wantsGuest(request)) {
    // Virtual time starts at 0; walltimestamp counts from the real time the session starts.
    return Session.create({ idle: { ncpus, walltime: BigInt(Date.now()) * 1_000_000n }, onEvent });
  }
  try {
    return await openGuestSession(request, onEvent);
  } catch (e) {
    if (e instanceof GuestCliError) throw new UsageError(e.message);
    throw e;
  }
}

/** -l: the probes the specifications name (every probe when none is given), and the descriptions that match none. */
function listedProbes(session: Session, specs: ProbeSpec[]): { probes: Probe[]; unmatched: string[] } {
  if (specs.length === 0) {
    // Every probe: the usdt providers of the processes too (they exist once a process runs its program).
    session.registry.prepareDescription?.(parseProbeDescription(':::'));
    return { probes: [...session.registry.all()], unmatched: [] };
  }
  const unmatched: string[] = [];
  const probes = specs.flatMap((s) => {
    if (s.flag === 'i') {
      const p = session.registry.probe(Number(s.text));
      if (!p) unmatched.push(`:::${s.text}`);
      return p ? [p] : [];
    }
    // $target names -c's command or -p's process, as when the description is compiled (pid$target:a.out::entry).
    const target = (d: string): string => (session.targetPid === undefined ? d : d.replace(/\$target\b/g, String(session.targetPid)));
    return (bareDescriptions(s.text) ?? [s.text]).flatMap((d) => {
      const desc = parseProbeDescription(target(s.flag === 'n' ? d : specDescription(s)));
      const matched = session.registry.match(desc);
      if (matched.length === 0) unmatched.push(probeDescriptionString(desc));
      return matched;
    });
  });
  return { probes, unmatched };
}

function compileFlags(o: Flags, macroArgs: string[]) {
  return {
    macroArgs,
    xOptions: xOptions(o.x),
    zdefs: Boolean(o.Z),
    ...preprocessorFlags({ cpp: Boolean(o.C), defines: o.D, undefines: o.U, includePaths: o.I }, o.x),
    listIncludes: Boolean(o.H),
    libraryDirs: libraryDirs((o.L as string[] | undefined) ?? [], o.x),
    verbose: Boolean(o.v),
    dif: Boolean(o.S),
    sugar: Boolean(o.d),
    exitAfterMatch: Boolean(o.e),
  };
}

/** Before tracing: each specification's matched-probes notice (and -v report), and the destructive-actions notice. */
function announce(compiled: CompiledSpecs, options: DTraceOptions, io: CliIo, output: TraceOutput): void {
  for (const n of compiled.notices) {
    if (!options.quiet) io.err(n.notice);
    if (n.report !== undefined) output.write(n.report);
  }
  if (!options.quiet && options.destructive) io.err('dtrace: allowing destructive actions\n');
}
