// wdtrace(1): the command-line consumer. It owns option parsing, file and
// process I/O, and output; everything it traces and compiles comes from the
// browser-safe packages, with I/O injected from here. Options, messages and
// exit statuses follow dtrace(1): 0 (or exit()'s status) on success, 1 when
// tracing cannot start, 2 for usage errors.
import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import {
  LoadError,
  OptionError,
  buildEcb,
  buildProgram,
  defaultOptions,
  parseProbeDescription,
  setOption,
  IdleMachine,
  type CompiledProgram,
  type DTraceOptions,
  type EcbDescription,
} from '@wdtrace/dtrace-core';
import { IdleSession, createIdleRegistry } from '@wdtrace/providers';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** The version string `wdtrace --version` prints. */
export const VERSION: string = pkg.version;

/** The D language version `-V` reports, as dtrace(1) does. */
export const D_VERSION = 'Sun D 1.13';

/** A probe specification in command-line order (-n, -P, -m, -f, -i). */
interface ProbeSpec {
  readonly flag: 'n' | 'P' | 'm' | 'f' | 'i';
  readonly text: string;
}

export interface CliIo {
  out(s: string): void;
  err(s: string): void;
}

const defaultIo: CliIo = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

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
    .option('-l', 'list the matching probes (all probes when none is given) instead of tracing')
    .option('-q', 'quiet: print only what the program prints (same as -x quiet)')
    .option('-F', 'indent function entry and return (same as -x flowindent)')
    .option('-w', 'allow destructive actions (same as -x destructive)')
    .option('-Z', 'permit probe descriptions that match no probes')
    .option('-e', 'exit after matching the probes, without tracing')
    .option('-b <size>', 'principal buffer size (same as -x bufsize)')
    .option('-o <file>', 'append trace output to a file')
    .option('-x <option[=value]>', 'set a run-time or consumer option (bufsize, bufpolicy, switchrate, ...)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('-V', 'print the D language version and exit')
    .option('--json', 'print one JSON object per probe firing instead of formatted text')
    .option('--run-for <duration>', 'stop tracing after this much virtual time (e.g. 5s, 250ms)')
    .option('--cpus <n>', 'number of CPUs of the machine', '1')
    .argument('[macro-argument...]', 'values for $1, $2, ... in the program')
    .configureOutput({ writeOut: out, writeErr: err, outputError: (s, write) => write(s.replace(/^error: /, 'wdtrace: ')) })
    .exitOverride();
  for (const flag of ['n', 'P', 'm', 'f', 'i'] as const) {
    program.on(`option:${flag}`, (v: string) => specs.push({ flag, text: v }));
  }
  (program as Command & { probeSpecs: ProbeSpec[] }).probeSpecs = specs;
  return program;
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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Runs the CLI on `argv` (node-style: argv[0] node, argv[1] script) and returns the exit status. */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const program = createProgram(io.out, io.err);
  const specs = (program as Command & { probeSpecs: ProbeSpec[] }).probeSpecs;
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = program.opts<Record<string, unknown>>();
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

async function run(o: Record<string, unknown>, specs: ProbeSpec[], _macroArgs: string[], io: CliIo): Promise<number> {
  if (o.V) {
    io.out(`dtrace: ${D_VERSION}\n`);
    return 0;
  }
  const options: DTraceOptions = defaultOptions();
  for (const x of o.x as string[]) {
    const eq = x.indexOf('=');
    setOption(options, eq < 0 ? x : x.slice(0, eq), eq < 0 ? null : x.slice(eq + 1));
  }
  if (o.q) options.quiet = true;
  if (o.F) options.flowindent = true;
  if (o.w) options.destructive = true;
  if (o.b !== undefined) setOption(options, 'bufsize', String(o.b));
  const ncpus = Number(o.cpus);
  if (!Number.isInteger(ncpus) || ncpus < 1 || ncpus > 64) throw new UsageError(`invalid CPU count '${String(o.cpus)}': expected 1 to 64`);

  if (o.l) return listProbes(specs, ncpus, io);
  if (specs.length === 0) {
    throw new UsageError('no probes specified (use -n, -P, -m, -f or -i; --help lists the options)');
  }

  // Every specification becomes one clause with the default action.
  const machine = new IdleMachine(ncpus);
  const { registry } = createIdleRegistry(machine);
  const ecbs: EcbDescription[] = [];
  const notices: string[] = [];
  for (const spec of specs) {
    let descs: string[];
    if (spec.flag === 'n') {
      const bare = bareDescriptions(spec.text);
      if (!bare) {
        throw new LoadError(`failed to compile description '${spec.text}': predicates and clauses need the D compiler, which this build of wdtrace does not include yet`);
      }
      descs = bare;
    } else if (spec.flag === 'i') {
      const id = Number(spec.text);
      const probe = Number.isInteger(id) ? registry.probe(id) : undefined;
      if (!probe) {
        if (o.Z) {
          notices.push(`dtrace: description '${spec.text}' matched 0 probes\n`);
          continue;
        }
        throw new LoadError(`invalid probe specifier ${spec.text}: probe description ${spec.text} does not match any probes`);
      }
      descs = [`${probe.provider}:${probe.module}:${probe.function}:${probe.name}`];
    } else {
      descs = [specDescription(spec)];
    }
    let matched = 0;
    const live: string[] = [];
    for (const d of descs) {
      let pattern;
      try {
        pattern = parseProbeDescription(d);
      } catch (e) {
        throw new LoadError(`invalid probe specifier ${spec.text}: ${(e as Error).message}`);
      }
      const n = registry.match(pattern).length;
      if (n === 0 && !o.Z) {
        throw new LoadError(`invalid probe specifier ${spec.text}: probe description ${pattern.provider}:${pattern.module}:${pattern.function}:${pattern.name} does not match any probes`);
      }
      if (n > 0) live.push(d);
      matched += n;
    }
    if (live.length > 0) ecbs.push(buildEcb(ecbs.length, live, []));
    notices.push(`dtrace: description '${spec.text}' matched ${plural(matched, 'probe')}\n`);
  }
  const compiled: CompiledProgram = buildProgram(ecbs);
  if (!options.quiet) for (const n of notices) io.err(n);
  if (o.e) return 0;

  let write = io.out;
  if (typeof o.o === 'string') {
    const file = o.o;
    writeFileSync(file, '', { flag: 'a' });
    write = (s) => appendFileSync(file, s);
  }
  const json = Boolean(o.json);
  const session = new IdleSession(
    compiled,
    { out: json ? () => {} : write, err: io.err },
    {
      ncpus,
      options,
      timeLimit: o.runFor !== undefined ? parseDuration(String(o.runFor)) : undefined,
      json: json ? (r) => write(JSON.stringify(r) + '\n') : undefined,
    },
  );
  const onInt = (): void => session.interrupt();
  process.on('SIGINT', onInt);
  try {
    const result = await session.run(() => new Promise((r) => setImmediate(r)));
    const aggs = session.consumer.printAggregations();
    if (json) {
      if (aggs !== '') write(JSON.stringify({ aggregations: aggs }) + '\n');
    } else {
      write('\n' + aggs);
    }
    return result.status;
  } finally {
    process.off('SIGINT', onInt);
  }
}

/** -l: "   ID   PROVIDER            MODULE                          FUNCTION NAME" and one line per probe. */
function listProbes(specs: ProbeSpec[], ncpus: number, io: CliIo): number {
  const machine = new IdleMachine(ncpus);
  const { registry } = createIdleRegistry(machine);
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
  }
  io.out(text);
  return 0;
}

