// wdtrace(1)'s command line: the options dtrace(1) takes (and wdtrace's
// own: --arch, --cpus, --json, --run-for), the probe specifications in the
// order given, and the words dtrace(1) uses to name and report them.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { DEFAULT_NS_PER_INSN } from '@wdtrace/kernel';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** The version string `wdtrace --version` prints. */
export const VERSION: string = pkg.version;

/** The D language version `-V` reports, as dtrace(1) does. */
export const D_VERSION = 'Sun D 1.13';

/** A probe specification in command-line order (-n, -P, -m, -f, -i, -s). */
export interface ProbeSpec {
  readonly flag: 'n' | 'P' | 'm' | 'f' | 'i' | 's';
  readonly text: string;
}

/** A bad option or argument: reported as `dtrace: message` (status 2). */
export class UsageError extends Error {}

/** -p's argument: a process ID (dtrace(1): "invalid process ID"). */
export function grabPid(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 0x7fffffff) throw new UsageError(`invalid process ID -- ${text}`);
  return Number(text);
}

/** "5s", "250ms", "2m", "100" (seconds) into nanoseconds. */
export function parseDuration(text: string): bigint {
  const m = /^(\d+)(ns|us|ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`invalid duration '${text}': expected a number with an optional unit (ns, us, ms, s, m, h)`);
  const mult = { ns: 1n, us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n }[(m[2] ?? 's') as 'ns'];
  return BigInt(m[1]!) * mult;
}

/** Gathers a repeatable option's values in order (no default, so --help shows none). */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The command tree, and the probe specifications it gathers in order as it parses. */
export function createProgram(out: (s: string) => void, err: (s: string) => void): { program: Command; specs: ProbeSpec[] } {
  const specs: ProbeSpec[] = [];
  const program = new Command('wdtrace');
  program
    .description('DTrace on emulated x86-64 and ARM machines that run in WebAssembly')
    .usage('[options] [macro-argument ...]\n       wdtrace -h -s provider.d [-o file.h]\n       wdtrace -G -s provider.d [-o provider.o] object.o ...')
    .version(`wdtrace ${VERSION}`, '--version', 'print the wdtrace version and exit')
    .helpOption('--help', 'print this help and exit')
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
    .option('-h', 'write a C header of the -s scripts\' provider definitions (to -o FILE, or SCRIPT.h)')
    .option('-G', 'make the USDT probe sites of the object operands no-ops and write the probe description object to link in (to -o FILE, or SCRIPT.o)')
    .option('-S', 'print the DIF of every compiled clause (to stderr)')
    .option('-d', 'print the program after the if/else sugar and exit')
    .option('-C', 'run the C preprocessor over the program')
    .option('-D <name[=value]>', 'define a preprocessor macro (with -C)', collect)
    .option('-U <name>', 'undefine a preprocessor macro (with -C)', collect)
    .option('-I <dir>', 'add a directory to the #include search path (with -C)', collect)
    .option('-H', 'print the path of every #included file (with -C, to stderr)')
    .option('-L <path>', 'add a directory to the D library path: its .d files are compiled before the program (same as -x libdir)', collect)
    .option('--json', 'print one JSON object per probe firing instead of formatted text')
    .option('--run-for <duration>', 'stop tracing after this much virtual time (e.g. 5s, 250ms)')
    .option('-c <command>', 'boot the guest, run the command in it (standard input is its input) and trace until it exits ($target is its pid)')
    .option('-p <pid>', 'grab process PID of the running guest and trace until it exits ($target is PID)')
    .option('--boot <command>', 'a shell command the running guest starts at boot (work to trace without -c)')
    .option('--arch <isa>', 'trace a guest machine of this ISA: x86_64 or arm (the default when kernel probes are named: x86_64)')
    .option('--thumb', 'trace the ARM guest built as Thumb-2 code: its kernel, module and programs (implies --arch arm)')
    .option('--cpus <n>', 'number of CPUs of the machine', '1')
    .option('--ns-per-insn <n>', 'virtual nanoseconds per instruction a guest CPU executes (the guest\'s time scale: 10 is a CPU of 100 MIPS)', String(DEFAULT_NS_PER_INSN))
    .argument('[macro-argument...]', 'values for $1, $2, ... in the program')
    .addHelpText('after', '\nVerbs:\n  wdtrace dis [--arch x86_64|arm] [--thumb] [--symbol NAME]... FILE\n                        disassemble an ELF file as llvm-objdump -d does\n  wdtrace dis --live PROBE-DESCRIPTION [--arch x86_64|arm] [--symbol NAME]...\n                        the guest kernel text with those probes enabled, next to the image\n  wdtrace run [--arch x86_64|arm] [--thumb] [--cpus N] [-- PROGRAM ARGS...]\n                        boot the guest and run PROGRAM (a guest path or a static ELF)\n')
    .configureOutput({ writeOut: out, writeErr: err, outputError: (s, write) => write(s.replace(/^error: /, 'dtrace: ')) })
    .exitOverride();
  for (const flag of ['n', 'P', 'm', 'f', 'i', 's'] as const) {
    program.on(`option:${flag}`, (v: string) => specs.push({ flag, text: v }));
  }
  return { program, specs };
}

/** dtrace(1)'s description of a -P/-m/-f/-i specification as a full probe description. */
export function specDescription(spec: ProbeSpec): string {
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
export function bareDescriptions(text: string): string[] | undefined {
  if (/[{}/;]/.test(text)) return undefined;
  const parts = text.split(',').map((s) => s.trim());
  return parts.every((p) => p.length > 0) ? parts : undefined;
}

/** compile_str's name for reports: a -n/-P/-m/-f/-i text cropped at its first '{', '/' or ';'. */
export function reportedName(spec: ProbeSpec): string {
  if (spec.flag === 's') return spec.text;
  const cut = spec.text.search(/[{/;]/);
  return cut < 0 ? spec.text : spec.text.slice(0, cut);
}
