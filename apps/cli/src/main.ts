// wdtrace(1): the command-line consumer. It owns option parsing, file and
// process I/O, and output; everything it traces and compiles comes from the
// browser-safe packages, with I/O injected from here. Options, messages and
// exit statuses follow dtrace(1): 0 (or exit()'s status) on success, 1 when
// tracing cannot start, 2 for usage errors.
import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { Command, CommanderError } from 'commander';
import {
  LoadError,
  OptionError,
  buildProgram,
  defaultOptions,
  parseProbeDescription,
  setOption,
  IdleMachine,
  formatAttributeLines,
  formatStabilityReport,
  probeDescriptionInfo,
  programAttributes,
  type CompiledProgram,
  type ConsumerOutput,
  type DTraceOptions,
  type ProbeRegistry,
} from '@wdtrace/dtrace-core';
import { bytesString, byteStringText, utf8ByteString } from '@wdtrace/dtrace-core/dif';
import { IdleSession, createIdleRegistry } from '@wdtrace/providers';
import { compile, dumpSugared, formatDiagnostics, listDif, type CompileOptions, type CompileResult } from '@wdtrace/d-lang';
import { GuestCliError, createGuest, guestArgTypes, guestExpand, guestLibraries, runGuest, wantsGuest, type GuestRequest } from './guest.js';

/** -p's argument: a process ID (dtrace(1): "invalid process ID"). */
function grabPid(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 0x7fffffff) throw new UsageError(`invalid process ID -- ${text}`);
  return Number(text);
}

// D strings are bytes. Past main()'s argument edge every string here is a
// byte string (one code unit per byte, see stringBytes): the arguments and
// the files read are turned into their bytes, and what is written — trace
// output, messages, -o files — is written back byte for byte.

/** A byte-string path as the bytes the file system names it by. */
function fsPath(path: string): Buffer {
  return Buffer.from(path, 'latin1');
}

/** A file's bytes as a byte string. */
function readBytesText(path: string): string {
  return readFileSync(fsPath(path)).toString('latin1');
}

/** A -s script's text for deciding whether it needs a guest (an unreadable one is reported later, when compiled). */
function readScriptText(path: string): string {
  try {
    return readBytesText(path);
  } catch {
    return '';
  }
}
import { dirname, resolve as resolvePath } from 'node:path';
import { existsSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** The version string `wdtrace --version` prints. */
export const VERSION: string = pkg.version;

/** The D language version `-V` reports, as dtrace(1) does. */
export const D_VERSION = 'Sun D 1.13';

/** A probe specification in command-line order (-n, -P, -m, -f, -i). */
interface ProbeSpec {
  readonly flag: 'n' | 'P' | 'm' | 'f' | 'i' | 's';
  readonly text: string;
}

/** Where the CLI writes: byte strings (one code unit per byte), written out byte for byte. */
export interface CliIo {
  out(s: string): void;
  err(s: string): void;
}

const defaultIo: CliIo = { out: (s) => process.stdout.write(Buffer.from(s, 'latin1')), err: (s) => process.stderr.write(Buffer.from(s, 'latin1')) };

class UsageError extends Error {}

/** "5s", "250ms", "2m", "100" (seconds) into nanoseconds. */
export function parseDuration(text: string): bigint {
  const m = /^(\d+)(ns|us|ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`invalid duration '${text}': expected a number with an optional unit (ns, us, ms, s, m, h)`);
  const mult = { ns: 1n, us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n }[(m[2] ?? 's') as 'ns'];
  return BigInt(m[1]!) * mult;
}

/** Builds the command tree; output goes through `out`/`err` so tests and embedders can capture it. */
export function createProgram(out: (s: string) => void = defaultIo.out, err: (s: string) => void = defaultIo.err): Command {
  const specs: ProbeSpec[] = [];
  const program = new Command('wdtrace');
  program
    .description('DTrace on emulated x86-64 and ARM machines that run in WebAssembly')
    .usage('[options] [macro-argument ...]')
    .version(`wdtrace ${VERSION}`, '--version', 'print the wdtrace version and exit')
    .helpOption('-h, --help', 'print this help and exit')
    .option('-n <probe>', 'enable probes matching the description (provider:module:function:name)')
    .option('-P <provider>', 'enable every probe of a provider')
    .option('-m <module>', 'enable probes in a module ([provider:]module)')
    .option('-f <function>', 'enable probes in a function ([[provider:]module:]function)')
    .option('-i <id>', 'enable the probe with this ID')
    .option('-s <script>', 'compile and enable the D program in a file (also for #! scripts)')
    .option('-l', 'list the matching probes (all probes when none is given) instead of tracing')
    .option('-v', 'print the program\'s stability attributes (with -l: each probe\'s attributes and argument types)')
    .option('-q', 'quiet: print only what the program prints (same as -x quiet)')
    .option('-F', 'indent function entry and return (same as -x flowindent)')
    .option('-w', 'allow destructive actions (same as -x destructive)')
    .option('-Z', 'permit probe descriptions that match no probes')
    .option('-e', 'exit after matching the probes, without tracing')
    .option('-b <size>', 'principal buffer size (same as -x bufsize)')
    .option('-o <file>', 'append trace output to a file')
    .option('-x <option[=value]>', 'set a run-time or consumer option (bufsize, bufpolicy, switchrate, ...)', collect)
    .option('-V', 'print the D language version and exit')
    .option('-S', 'print the DIF of every compiled clause (to stderr)')
    .option('-d', 'print the program after the if/else sugar and exit')
    .option('-C', 'run the C preprocessor over the program')
    .option('-D <name[=value]>', 'define a preprocessor macro (with -C)', collect)
    .option('-U <name>', 'undefine a preprocessor macro (with -C)', collect)
    .option('-I <dir>', 'add a directory to the #include search path (with -C)', collect)
    .option('-H', 'print the path of every #included file (with -C, to stderr)')
    .option('--json', 'print one JSON object per probe firing instead of formatted text')
    .option('--run-for <duration>', 'stop tracing after this much virtual time (e.g. 5s, 250ms)')
    .option('-c <command>', 'boot the guest, run the command in it and trace until it exits ($target is its pid)')
    .option('-p <pid>', 'boot the guest with its shell on the terminal, grab guest process PID and trace until it exits ($target is PID)')
    .option('--arch <isa>', 'trace a guest machine of this ISA: x86_64 or arm (the default when kernel probes are named: x86_64)')
    .option('--cpus <n>', 'number of CPUs of the machine', '1')
    .argument('[macro-argument...]', 'values for $1, $2, ... in the program')
    .addHelpText('after', '\nVerbs:\n  wdtrace dis [--arch x86_64|arm] [--thumb] [--symbol NAME]... FILE\n                        disassemble an ELF file as llvm-objdump -d does\n  wdtrace dis --live PROBE-DESCRIPTION [--arch x86_64|arm] [--symbol NAME]...\n                        the guest kernel text with those probes enabled, next to the image\n  wdtrace run [--arch x86_64|arm] [--cpus N] [-- PROGRAM ARGS...]\n                        boot the guest and run PROGRAM (a guest path or a static ELF)\n')
    .configureOutput({ writeOut: out, writeErr: err, outputError: (s, write) => write(s.replace(/^error: /, 'wdtrace: ')) })
    .exitOverride();
  for (const flag of ['n', 'P', 'm', 'f', 'i', 's'] as const) {
    program.on(`option:${flag}`, (v: string) => specs.push({ flag, text: v }));
  }
  (program as Command & { probeSpecs: ProbeSpec[] }).probeSpecs = specs;
  return program;
}

/** Gathers a repeatable option's values in order (no default, so --help shows none). */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Resolves true once real time since `startedAt` reaches virtual time `t`; waits at most 100 ms at a time. */
function paceTo(startedAt: number, t: bigint): Promise<boolean> {
  const wait = Number(t / 1_000_000n) - (Date.now() - startedAt);
  if (wait <= 0) return Promise.resolve(true);
  return new Promise((r) => setTimeout(() => r(wait <= 100), Math.min(wait, 100)));
}

/** dtrace(1)'s description of a -P/-m/-f/-i specification as a full probe description. */
function specDescription(spec: ProbeSpec): string {
  const fill = (parts: string[], n: number): string => {
    const p = [...parts];
    while (p.length < n) p.unshift('');
    return p.join(':');
  };
  switch (spec.flag) {
    case 'P': return `${spec.text}:::`;
    case 'm': return `${fill(spec.text.split(':'), 2)}::`;
    case 'f': return `${fill(spec.text.split(':'), 3)}:`;
    default: return spec.text;
  }
}

/** A -n argument that is only probe descriptions ("BEGIN", "tick-1s,END") — no predicate or clause. */
function bareDescriptions(text: string): string[] | undefined {
  if (/[{}/;]/.test(text)) return undefined;
  const parts = text.split(',').map((s) => s.trim());
  return parts.every((p) => p.length > 0) ? parts : undefined;
}

/** strerror(3)'s text for a failed file operation. */
function strerror(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const text: Record<string, string> = {
    ENOENT: 'No such file or directory',
    EACCES: 'Permission denied',
    EISDIR: 'Is a directory',
    ENOTDIR: 'Not a directory',
    EROFS: 'Read-only file system',
    ENOSPC: 'No space left on device',
    EEXIST: 'File exists',
    EPERM: 'Operation not permitted',
  };
  return (code !== undefined ? text[code] : undefined) ?? (e instanceof Error ? e.message : String(e));
}

/** compile_str's name for reports: a -n/-P/-m/-f/-i text cropped at its first '{', '/' or ';'. */
function reportedName(spec: ProbeSpec): string {
  if (spec.flag === 's') return spec.text;
  const cut = spec.text.search(/[{/;]/);
  return cut < 0 ? spec.text : spec.text.slice(0, cut);
}

/** Sets an option given on the command line; a bad one fails as dtrace(1) reports it ("failed to set -x name: reason"). */
function cliOption(options: DTraceOptions, name: string, value: string | null, what: string): void {
  try {
    setOption(options, name, value);
  } catch (e) {
    if (!(e instanceof OptionError)) throw e;
    throw new OptionError(`failed to set ${what}: ${e.message.replace(/^.*: /, '')}`);
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Runs the CLI on `argv` (node-style: argv[0] node, argv[1] script) and returns the exit status. */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  // Verbs load their packages on demand, so tracing does not pay for them.
  if (argv[2] === 'dis') return (await import('./dis.js')).runDis(argv.slice(3), io);
  if (argv[2] === 'run') return (await import('./run.js')).runRun(argv.slice(3), io);
  // The arguments (text) as the byte strings of their UTF-8.
  argv = argv.map((a, i) => (i < 2 ? a : utf8ByteString(a)));
  const program = createProgram(io.out, io.err);
  // dtrace(1) without arguments prints its usage to stderr (status 2).
  if (argv.length <= 2) {
    io.err(program.helpInformation());
    return 2;
  }
  const specs = (program as Command & { probeSpecs: ProbeSpec[] }).probeSpecs;
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = program.opts<Record<string, unknown>>();
  for (const repeatable of ['x', 'D', 'U', 'I']) o[repeatable] ??= [];
  try {
    return await run(o, specs, program.args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`dtrace: ${e.message}\n`);
      return 2;
    }
    if (e instanceof OptionError || e instanceof LoadError) {
      io.err(`dtrace: ${e.message}\n`);
      return 1;
    }
    io.err(`dtrace: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

async function run(o: Record<string, unknown>, specs: ProbeSpec[], macroArgs: string[], io: CliIo): Promise<number> {
  if (o.V) {
    io.out(`dtrace: ${D_VERSION}\n`);
    return 0;
  }
  const options: DTraceOptions = defaultOptions();
  for (const x of o.x as string[]) {
    const eq = x.indexOf('=');
    const name = eq < 0 ? x : x.slice(0, eq);
    // dtrace(1): dfatal("failed to set -x %s", name) and the library's reason.
    cliOption(options, name, eq < 0 ? null : x.slice(eq + 1), `-x ${name}`);
  }
  if (o.q) options.quiet = true;
  if (o.F) options.flowindent = true;
  if (o.w) options.destructive = true;
  if (o.Z) options.zdefs = true;
  if (o.b !== undefined) cliOption(options, 'bufsize', String(o.b), `-b ${String(o.b)}`);
  const ncpus = Number(o.cpus);
  if (!Number.isInteger(ncpus) || ncpus < 1 || ncpus > 64) throw new UsageError(`invalid CPU count '${String(o.cpus)}': expected 1 to 64`);

  // A booted guest when the invocation asks for one (-c, --arch) or names kernel probes.
  const guestRequest: GuestRequest = {
    arch: o.arch as string | undefined,
    command: o.c as string | undefined,
    grab: o.p !== undefined ? grabPid(String(o.p)) : undefined,
    cpus: ncpus,
    texts: specs.map((s) => (s.flag === 's' ? readScriptText(s.text) : s.text)),
    providers: specs.filter((s) => s.flag === 'P').map((s) => s.text),
  };
  let guest: Awaited<ReturnType<typeof createGuest>> | undefined;
  if (wantsGuest(guestRequest)) {
    try {
      guest = await createGuest(guestRequest, (bytes) => io.out(bytesString(bytes)));
    } catch (e) {
      if (e instanceof GuestCliError) throw new UsageError(e.message);
      throw e;
    }
  }
  if (o.l) return listProbes(specs, ncpus, io, Boolean(o.v), guest?.tracer.registry);
  if (specs.length === 0) throw new LoadError('no probes specified');

  // Each specification is compiled on its own (for its messages and its
  // matched-probes notice); several are then compiled together as one
  // program, as they share one dtrace handle's variables and aggregations.
  // Virtual time starts at 0; walltimestamp counts from the real time the session starts.
  const machine = new IdleMachine(ncpus, BigInt(Date.now()) * 1_000_000n);
  const idle = createIdleRegistry(machine);
  const registry = guest ? guest.tracer.registry : idle.registry;
  const catalogue = {
    match: (d: { provider: string; module: string; function: string; name: string }) =>
      registry.match(d).map((p) => ({ id: p.id, provider: p.provider, module: p.module, function: p.function, name: p.name, ...(guest ? { args: guestArgTypes(registry, p) } : {}) })),
    ...(guest ? { expand: (text: string) => guestExpand(guest!, text) } : {}),
  };
  const xOptions: Record<string, string | null> = {};
  for (const x of o.x as string[]) {
    const eq = x.indexOf('=');
    xOptions[eq < 0 ? x : x.slice(0, eq)] = eq < 0 ? null : x.slice(eq + 1);
  }
  const base: CompileOptions = {
    dataModel: guest?.isa === 'arm' ? 'ILP32' : 'LP64',
    macroArgs: macroArgs,
    macroVariables: { pid: process.pid, ppid: process.ppid, uid: 0, gid: 0, ...(guest?.target !== undefined ? { target: guest.target } : {}) },
    options: xOptions,
    probes: catalogue,
    // The guest kernel's types (DWARF): typed args[], casts to kernel structures, `kernel globals.
    // ... and its D libraries: the translators of the proc, sched and io probes' arguments.
    ...(guest ? { types: [guest.types()], threadType: 'struct task_struct *', libraries: guestLibraries } : {}),
    zdefs: Boolean(o.Z),
    cpp: Boolean(o.C),
    defines: o.D as string[],
    undefines: o.U as string[],
    includePaths: o.I as string[],
    listIncludes: Boolean(o.H),
    includeResolver: (path, fromFile, system) => {
      const dirs = [...(system ? [] : [fromFile ? dirname(fromFile) : '.']), ...(o.I as string[])];
      for (const dir of path.startsWith('/') ? [''] : dirs) {
        const full = path.startsWith('/') ? path : resolvePath(dir, path);
        if (existsSync(fsPath(full))) return { path: full, text: readBytesText(full) };
      }
      return undefined;
    },
  };
  const sources: string[] = [];
  // Per specification, as exec_prog reports them: the matched-probes notice and, under -v, the stability report.
  const notices: { notice: string; report?: string; statements?: string }[] = [];
  let single: CompileResult | undefined;
  for (const spec of specs) {
    let source: string;
    let origin: NonNullable<CompileOptions['origin']>;
    if (spec.flag === 's') {
      let text: string;
      try {
        text = readBytesText(spec.text);
      } catch {
        throw new LoadError(`failed to open ${spec.text}: No such file or directory`);
      }
      // A #! line is the kernel's, not D's: keep the line count, drop the text.
      if (text.startsWith('#!')) text = text.slice(text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length);
      source = text;
      origin = { kind: 'script', name: spec.text };
    } else {
      let text = spec.text;
      if (spec.flag === 'i') {
        const probe = registry.probe(Number(text));
        text = probe ? `${probe.provider}:${probe.module}:${probe.function}:${probe.name}` : `:::${text}`;
        if (!probe && !o.Z) throw new LoadError(`invalid probe specifier ${spec.text}: probe description ${spec.text} does not match any probes`);
        if (!probe) {
          notices.push({ notice: `dtrace: description '${reportedName(spec)}' matched 0 probes\n` });
          continue;
        }
      } else if (spec.flag !== 'n') {
        text = specDescription(spec);
      }
      source = text;
      origin = { kind: 'probe', text: spec.text };
    }
    const opts: CompileOptions = { ...base, origin };
    if (o.d) {
      const d = dumpSugared(source, opts);
      if (d.text === undefined) {
        io.err(formatDiagnostics({ diagnostics: d.diagnostics }, opts) + '\n');
        return 1;
      }
      io.out(d.text);
      continue;
    }
    const result = compile(source, opts);
    const warnings = result.diagnostics.filter((x) => x.severity === 'warning');
    if (warnings.length > 0) io.err(formatDiagnostics({ diagnostics: warnings }, { ...opts, errtags: options.errtags }) + '\n');
    if (!result.program) {
      io.err(formatDiagnostics({ diagnostics: result.diagnostics.filter((x) => x.severity === 'error') }, { ...opts, errtags: options.errtags }) + '\n');
      return 1;
    }
    if (o.H) for (const inc of result.context.includes) io.err(`${inc}\n`);
    if (o.S) io.err(listDif(result));
    const matched = new Set<number>();
    for (const e of result.program.ecbs) for (const d of e.probes) for (const p of registry.match(d)) matched.add(p.id);
    const kind = spec.flag === 's' ? 'script' : 'description';
    notices.push({
      notice: `dtrace: ${kind} '${reportedName(spec)}' matched ${plural(matched.size, 'probe')}\n`,
      // dtrace -v: the program's minimum attributes (dtrace_program_info), then a blank line.
      ...(o.v
        ? o.e
          ? { report: formatStabilityReport(kind, reportedName(spec), programAttributes(result.program, registry)), statements: statementInfo(result.program, registry) }
          : { report: formatStabilityReport(kind, reportedName(spec), programAttributes(result.program, registry)) + '\n' }
        : {}),
    });
    for (const opt of result.program.options) setOption(options, opt.name, opt.value);
    single = result;
    sources.push(bareDescriptions(source) ? `${source}\n{}\n` : source);
  }
  if (o.d) return 0;
  let compiledResult: CompileResult | undefined = single;
  if (sources.length > 1) {
    const opts: CompileOptions = { ...base, origin: { kind: 'text' } };
    const all = compile(sources.join('\n'), opts);
    if (!all.program) {
      io.err(formatDiagnostics({ diagnostics: all.diagnostics.filter((x) => x.severity === 'error') }, opts) + '\n');
      return 1;
    }
    compiledResult = all;
  }
  const compiled: CompiledProgram = compiledResult?.program ?? buildProgram([]);
  // The output file opens before the programs are enabled, as in dtrace(1).
  let baseWrite = io.out;
  if (typeof o.o === 'string') {
    const file = o.o;
    try {
      writeFileSync(fsPath(file), '', { flag: 'a' });
    } catch (e) {
      throw new LoadError(`failed to open output file '${file}': ${strerror(e)}`);
    }
    baseWrite = (s) => appendFileSync(fsPath(file), Buffer.from(s, 'latin1'));
  }
  // -e compiles without enabling: dtrace(1) then reports no matches (exec_prog takes dtrace_program_info),
  // and -v reports the program's attributes, then each statement's probe description (info_stmt).
  if (o.e) {
    for (const n of notices) if (n.report !== undefined) baseWrite(n.report + (n.statements ?? ''));
    return 0;
  }
  for (const n of notices) {
    if (!options.quiet) io.err(n.notice);
    if (n.report !== undefined) baseWrite(n.report);
  }
  if (!options.quiet && options.destructive) io.err('dtrace: allowing destructive actions\n');

  let redirect: string | undefined;
  const write = (s: string): void => (redirect !== undefined ? appendFileSync(fsPath(redirect), Buffer.from(s, 'latin1')) : baseWrite(s));
  const json = Boolean(o.json);
  // --json is text: the output's bytes read as UTF-8, the JSON written as UTF-8.
  const writeJson = (v: unknown): void => write(utf8ByteString(JSON.stringify(v)) + '\n');
  const startedAt = Date.now();
  const output: ConsumerOutput = {
      out: json ? () => {} : write,
      err: io.err,
      // system(): the command's output joins the trace output in order.
      system: (command) => {
        const r = spawnSync('/bin/sh', ['-c', byteStringText(command)], { encoding: 'latin1', stdio: ['ignore', 'pipe', 'pipe'] });
        if (r.stdout) write(r.stdout);
        if (r.stderr) io.err(r.stderr);
      },
      // ftruncate(): empties the file output goes to (a redirect or -o); stdout is left alone, as ftruncate(2) fails on it.
      ftruncate: () => {
        const file = redirect ?? (typeof o.o === 'string' ? o.o : undefined);
        if (file !== undefined) writeFileSync(fsPath(file), '');
      },
      freopen: (path) => {
        if (path === '') redirect = undefined;
        else {
          try {
            writeFileSync(fsPath(path), '', { flag: 'a' });
            redirect = path;
          } catch (e) {
            return strerror(e);
          }
        }
        return undefined;
      },
  };
  const timeLimit = o.runFor !== undefined ? parseDuration(String(o.runFor)) : undefined;
  if (guest) {
    let interrupted = false;
    const onGuestInt = (): void => void (interrupted = true);
    process.on('SIGINT', onGuestInt);
    try {
      const result = await runGuest(guest.tracer, compiled, output, {
        options,
        timeLimit,
        target: guest.target,
        grabbed: o.p !== undefined ? guest.target : undefined,
        input: o.p !== undefined ? process.stdin : undefined,
        json: json ? (r) => writeJson({ ...r, output: byteStringText(r.output) }) : undefined,
        pause: () => new Promise((r) => setImmediate(r)),
        interrupted: () => interrupted,
      });
      const aggs = result.consumer.printAggregations();
      if (json) {
        if (aggs !== '') writeJson({ aggregations: byteStringText(aggs) });
      } else write('\n' + aggs);
      return result.status;
    } finally {
      process.off('SIGINT', onGuestInt);
    }
  }
  const session = new IdleSession(
    compiled,
    output,
    {
      ncpus,
      options,
      machine,
      registry: idle,
      timeLimit,
      json: json ? (r) => writeJson({ ...r, output: byteStringText(r.output) }) : undefined,
      // Without --run-for the idle machine's clock follows the real one, as dtrace(1) runs until ^C.
      pace: o.runFor === undefined ? (t) => paceTo(startedAt, t) : undefined,
    },
  );
  const onInt = (): void => session.interrupt();
  process.on('SIGINT', onInt);
  try {
    const result = await session.run(() => new Promise((r) => setImmediate(r)));
    const aggs = session.consumer.printAggregations();
    if (json) {
      if (aggs !== '') writeJson({ aggregations: byteStringText(aggs) });
    } else {
      write('\n' + aggs);
    }
    return result.status;
  } finally {
    process.off('SIGINT', onInt);
  }
}

/** -l: "   ID   PROVIDER            MODULE                          FUNCTION NAME" and one line per probe. */
const STABILITY = ['Internal', 'Private', 'Obsolete', 'External', 'Unstable', 'Evolving', 'Stable', 'Standard'];
const CLASSES = ['Unknown', 'CPU', 'Platform', 'Group', 'ISA', 'Common'];

/** The least of several "name/data/class" attribute triples (dt_attr_min). */
function minAttributes(triples: string[]): [string, string, string] {
  const parts = triples.map((t) => t.split('/'));
  const least = (i: number, order: string[]): string => parts.map((p) => p[i] ?? order[0]!).reduce((a, b) => (order.indexOf(a) <= order.indexOf(b) ? a : b));
  return [least(0, STABILITY), least(1, STABILITY), least(2, CLASSES)];
}

/** dtrace(1)'s -lv block (print_probe_info). */
function probeInfo(registry: ReturnType<typeof createIdleRegistry>['registry'], p: { id: number; provider: string; module: string; function: string; name: string; providerArg: unknown }): string {
  const def = registry.provider(p.provider);
  if (!def) return '';
  const a = def.attributes;
  // dt_probe_info: the provider's attributes, lowered by those of each field that is given (neither empty nor a glob).
  const given = (field: string): boolean => field !== '' && !/[*?[\]]/.test(field);
  const [pn, pd, pc] = minAttributes([a.provider, ...(given(p.module) ? [a.module] : []), ...(given(p.function) ? [a.function] : []), ...(given(p.name) ? [a.name] : [])]);
  const [an, ad, ac] = minAttributes([a.args]);
  let out = `\n\tProbe Description Attributes\n\t\tIdentifier Names: ${pn}\n\t\tData Semantics:   ${pd}\n\t\tDependency Class: ${pc}\n`;
  out += `\n\tArgument Attributes\n\t\tIdentifier Names: ${an}\n\t\tData Semantics:   ${ad}\n\t\tDependency Class: ${ac}\n`;
  out += '\n\tArgument Types\n';
  let n = 0;
  for (; ; n++) {
    const d = def.ops.getArgDesc?.(p.id, p.providerArg, n);
    if (!d) break;
    out += `\t\targs[${n}]: ${d.translated ?? d.native}\n`;
  }
  if (n === 0) out += '\t\tNone\n';
  return out + '\n';
}

/**
 * dtrace -ev's info_stmt: each statement's probe description, and when it
 * has a representative probe (dtrace_probe_info) that probe's attributes and
 * argument types as -lv prints them (print_probe_info).
 */
function statementInfo(program: CompiledProgram, registry: ProbeRegistry): string {
  let out = '';
  for (const ecb of program.ecbs) {
    for (const d of ecb.probes) {
      out += `\n${d.provider}:${d.module}:${d.function}:${d.name}\n`;
      const info = probeDescriptionInfo(registry, d);
      if (!info) continue;
      const p = info.probe;
      out += `\n\tProbe Description Attributes\n${formatAttributeLines(info.attr)}\n\tArgument Attributes\n${formatAttributeLines(info.arga)}\n\tArgument Types\n`;
      let n = 0;
      for (; ; n++) {
        const a = registry.provider(p.provider)?.ops.getArgDesc?.(p.id, p.providerArg, n);
        if (!a) break;
        out += `\t\targs[${n}]: ${a.translated ?? a.native}\n`;
      }
      if (n === 0) out += '\t\tNone\n';
      out += '\n';
    }
  }
  return out;
}

function listProbes(specs: ProbeSpec[], ncpus: number, io: CliIo, verbose = false, guestRegistry?: ProbeRegistry): number {
  const registry = guestRegistry ?? createIdleRegistry(new IdleMachine(ncpus)).registry;
  const line = (id: string, p: string, m: string, f: string, n: string): string => `${id.padStart(5)} ${p.padStart(10)} ${m.padStart(17)} ${f.padStart(33)} ${n}\n`;
  let text = line('ID', 'PROVIDER', 'MODULE', 'FUNCTION', 'NAME');
  const seen = new Set<number>();
  const probes = specs.length === 0 ? [...registry.all()] : specs.flatMap((s) => {
    if (s.flag === 'i') {
      const p = registry.probe(Number(s.text));
      return p ? [p] : [];
    }
    return (bareDescriptions(s.text) ?? [s.text]).flatMap((d) => registry.match(parseProbeDescription(s.flag === 'n' ? d : specDescription(s))));
  });
  for (const p of probes) {
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    text += line(String(p.id), p.provider, p.module, p.function, p.name);
    if (verbose) text += probeInfo(registry, p);
  }
  io.out(text);
  return 0;
}

