// Tracing the guest from the command line: which invocations need a booted
// guest, the machine they get (-c's command placed as `wdtrace run` places a
// program, --arch, --cpus), and the run of a compiled program on it with
// dtrace(1)'s ending — "dtrace: pid N has exited" when the -c command ends.
import { LoadError, type CompiledProgram, type ConsumerOutput, type DTraceOptions, type JsonRecord, type Probe, type ProbeRegistry } from '@wdtrace/dtrace-core';
import type { TypeDictionary } from '@wdtrace/dtrace-core/types';
import { defaultImages, dwarfTypeDictionary, readInitrdEntries, type Isa } from '@wdtrace/kernel';
import { GUEST_D_LIBRARIES, GuestTracer, type GuestSessionResult } from '@wdtrace/providers';
import { placeProgram } from './run.js';

/** Providers that exist only in a booted guest's kernel. */
const KERNEL_PROVIDERS = /(?:^|[\s,{};/])(?:fbt|sdt|kinst|proc|sched|io|syscall)\s*:/m;

export interface GuestRequest {
  arch?: string;
  command?: string;
  /** -p: a process of the guest to grab (the guest boots with its shell on the terminal). */
  grab?: number;
  cpus: number;
  /** Probe texts (-n, -P/-m/-f as descriptions, -s script texts). */
  texts: readonly string[];
  /** The provider named by -P options. */
  providers: readonly string[];
}

/** Whether the invocation traces a guest: --arch or -c given, or a probe of a kernel provider asked for. */
export function wantsGuest(r: GuestRequest): boolean {
  if (r.arch !== undefined || r.command !== undefined || r.grab !== undefined) return true;
  if (r.providers.some((p) => /^(?:fbt|sdt|kinst|proc|sched|io|syscall)$/.test(p))) return true;
  return r.texts.some((t) => KERNEL_PROVIDERS.test(t));
}

export class GuestCliError extends Error {}

/**
 * Builds the guest for a trace: the machine of `--arch` (or of a host -c
 * program, else x86_64), with the -c command as init's program. Guest
 * console output goes to `consoleOutput` (the command's standard output).
 */
export interface Guest {
  readonly tracer: GuestTracer;
  readonly isa: Isa;
  /** The -c command's pid ($target). */
  readonly target: number | undefined;
  /** The guest kernel's types for the compiler, from its DWARF (built once). */
  types(): TypeDictionary;
}

/**
 * `kinst::<function>:entry|return` rewritten, from the kernel's DWARF, into
 * kinst probes at every inlined copy of the function (and fbt's probe of its
 * out-of-line copy); undefined for every other description.
 */
export function guestExpand(guest: Guest, text: string): string[] | undefined {
  const fields = text.split(':');
  if (fields.length !== 4) return undefined;
  const [provider, module, fn, name] = fields as [string, string, string, string];
  if (provider !== 'kinst' || (name !== 'entry' && name !== 'return') || fn === '' || /[*?[\]]/.test(fn + module)) return undefined;
  try {
    return [...guest.tracer.kinst.expandInline(fn, name).descriptions];
  } catch {
    return undefined; // neither inlined nor out of line: the description then matches nothing
  }
}

/**
 * A probe's args[] as its provider describes them (dtrace_argdesc_t): the
 * native C type, and for a translated argument the translated type and the
 * native argument it maps from (none: the probe has no typed arguments).
 */
export function guestArgTypes(registry: ProbeRegistry, p: Probe): { native: string; translated?: string; mapping?: number }[] | undefined {
  const ops = registry.provider(p.provider)?.ops;
  if (!ops?.getArgDesc) return undefined;
  const args: { native: string; translated?: string; mapping?: number }[] = [];
  for (let n = 0; ; n++) {
    const d = ops.getArgDesc(p.id, p.providerArg, n);
    if (!d) break;
    args.push(d);
  }
  return args;
}

/** The guest kernel's D libraries (proc.d, sched.d, io.d), compiled with every program that traces the guest. */
export const guestLibraries = GUEST_D_LIBRARIES;

/** ELF e_machine of each ISA's executables. */
const ELF_MACHINE: Record<Isa, number> = { x86_64: 62, arm: 40 };

/**
 * Why a file of the guest's own file system cannot be run as the -c command,
 * in libproc's Pcreate_error() words as dtrace(1) reports a bad -c command
 * ("dtrace: failed to execute <file>: cannot execute file"); undefined when
 * it is an executable of the guest's ISA or not one of the guest's files.
 */
export function guestExecProblem(isa: Isa, path: string): string | undefined {
  const archive = defaultImages(isa).initrd;
  const entry = readInitrdEntries(archive).entries.find((e) => `/${e.name}` === path);
  if (entry === undefined) return undefined;
  const head = archive.subarray(entry.dataStart, entry.dataStart + Math.min(entry.size, 20));
  const regular = (entry.mode & 0o170000) === 0o100000;
  const executable = (entry.mode & 0o111) !== 0;
  const elf = head.length === 20 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
  // ET_EXEC for this ISA's machine: what the guest kernel's execve loads.
  const loadable = elf && (head[16]! | (head[17]! << 8)) === 2 && (head[18]! | (head[19]! << 8)) === ELF_MACHINE[isa];
  return regular && executable && loadable ? undefined : 'cannot execute file';
}

export async function createGuest(r: GuestRequest, consoleOutput: (bytes: Uint8Array) => void): Promise<Guest> {
  if (r.arch !== undefined && r.arch !== 'x86_64' && r.arch !== 'arm') throw new GuestCliError(`invalid --arch '${r.arch}': expected x86_64 or arm`);
  if (r.cpus > 8) throw new GuestCliError(`invalid CPU count '${r.cpus}': the guest machine has 1 to 8 CPUs`);
  const words = r.command !== undefined ? r.command.trim().split(/\s+/).filter((w) => w !== '') : [];
  if (r.command !== undefined && words.length === 0) throw new GuestCliError('-c requires a command');
  let placed;
  try {
    placed = placeProgram(words, r.arch as Isa | undefined);
  } catch (e) {
    throw new GuestCliError(`failed to execute ${words[0] ?? ''}: ${(e as Error).message.replace(/^[^:]*: /, '')}`);
  }
  // A file of the guest that is no program for it is refused before the guest boots, as dtrace(1) refuses a bad -c command.
  const problem = words.length > 0 ? guestExecProblem(placed.isa, placed.args[0]!) : undefined;
  if (problem !== undefined) throw new LoadError(`failed to execute ${words[0]}: ${problem}`);
  const tracer = await GuestTracer.create({
    isa: placed.isa,
    cpus: r.cpus,
    args: placed.args.length > 0 ? placed.args : undefined,
    files: placed.files,
    consoleOutput,
    // -p: the guest's shell reads the terminal.
    interactive: r.grab !== undefined,
    machine: { cmdline: 'quiet' },
  });
  if (r.grab !== undefined && !tracer.bootUntilProcess(r.grab)) throw new LoadError(`failed to grab pid ${r.grab}: No such process`);
  let types: TypeDictionary | undefined;
  return {
    tracer,
    isa: placed.isa,
    // init (pid 1) forks the program first: it is pid 2 on this deterministic machine.
    target: r.grab ?? (words.length > 0 ? 2 : undefined),
    types: () => (types ??= dwarfTypeDictionary(tracer.view.dwarf)),
  };
}

export interface GuestRunOptions {
  options: DTraceOptions;
  timeLimit?: bigint;
  json?: (r: JsonRecord) => void;
  /** Called between steps so ^C can be noticed. */
  pause: () => Promise<unknown>;
  /** Whether ^C was pressed: tracing then ends as after exit() (END, the aggregations). */
  interrupted: () => boolean;
  /** The -c command's pid, for "dtrace: pid N has exited". */
  target?: number;
  /** -p: the grabbed pid; tracing ends when it exits. */
  grabbed?: number;
  /** -p: console input from the terminal, fed to the guest while it runs. */
  input?: NodeJS.ReadableStream;
}

/** Runs `program` on the guest; returns the session result (the caller prints the aggregations). */
export async function runGuest(tracer: GuestTracer, program: CompiledProgram, output: ConsumerOutput, o: GuestRunOptions): Promise<GuestSessionResult> {
  const feed = o.input ? attachInput(tracer, o.input) : undefined;
  const result = await tracer.session(program, output, {
    options: o.options,
    timeLimit: o.timeLimit,
    json: o.json,
    pause: o.pause,
    interrupted: o.interrupted,
    grabbed: o.grabbed,
    waitForInput: feed?.wait,
  }).finally(() => feed?.detach());
  const g = result.guest;
  // A notice, which -q silences (dtrace.c's notice()).
  if (o.target !== undefined && (g?.kind === 'poweroff' || result.grabbedExited)) {
    if (!o.options.quiet) output.err(`dtrace: pid ${o.target} has exited\n`);
  }
  else if (g?.kind === 'panic') output.err(`dtrace: the guest kernel panicked (status ${g.status})\n`);
  else if (g?.kind === 'fatal') output.err(`dtrace: guest CPU ${g.cpu} stopped: ${g.reason} at ${tracer.view.symbols.lookup(g.pc)?.symbol?.name ?? `0x${g.pc.toString(16)}`}\n`);
  return result;
}

/**
 * Feeds the terminal to the guest console. `wait` resolves when input
 * arrives, the input ends, or (at most) `deadlineMs` of real time passes —
 * the guest then runs on; `detach` lets the terminal go.
 */
function attachInput(tracer: GuestTracer, input: NodeJS.ReadableStream): { wait: (deadlineMs: number | undefined) => Promise<void>; detach: () => void } {
  let wake: (() => void) | undefined;
  const onData = (chunk: Buffer): void => {
    tracer.machine.input(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    wake?.();
  };
  const onEnd = (): void => {
    tracer.machine.closeInput();
    wake?.();
  };
  input.on('data', onData);
  input.on('end', onEnd);
  input.on('error', onEnd);
  return {
    wait: (deadlineMs) =>
      new Promise<void>((resolve) => {
        const timer = deadlineMs !== undefined ? setTimeout(() => resolve(), Math.max(0, deadlineMs)) : undefined;
        wake = () => {
          if (timer) clearTimeout(timer);
          wake = undefined;
          resolve();
        };
      }),
    detach: () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
      input.pause();
      (input as { unref?: () => void }).unref?.();
    },
  };
}
