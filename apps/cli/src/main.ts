// wdtrace(1): the command-line consumer. It owns option parsing, file and
// process I/O, and output; everything it traces and compiles comes from the
// browser-safe packages, with I/O injected from here.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** The version string `wdtrace --version` prints. */
export const VERSION: string = pkg.version;

/** Builds the command tree; output goes through `out`/`err` so tests and embedders can capture it. */
export function createProgram(out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Command {
  const program = new Command('wdtrace');
  program
    .description('DTrace on emulated x86-64 and ARM machines that run in WebAssembly')
    .version(`wdtrace ${VERSION}`, '--version', 'print the wdtrace version and exit')
    .helpOption('-h, --help', 'print this help and exit')
    .configureOutput({ writeOut: out, writeErr: err, outputError: (s, write) => write(s.replace(/^error: /, 'wdtrace: ')) })
    .exitOverride()
    .action(() => {
      program.outputHelp();
    });
  return program;
}

/** Runs the CLI on `argv` (node-style: argv[0] node, argv[1] script) and returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    process.stderr.write(`wdtrace: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
