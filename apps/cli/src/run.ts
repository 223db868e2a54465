// `wdtrace run`: boots the guest kernel on an emulated machine and runs a
// program in it — a guest path (/bin/sh) or a static ELF from the host,
// copied into the guest's file system first — with the terminal as its
// console, and exits with the program's exit status.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  DEFAULT_NS_PER_INSN,
  ET_DYN,
  ET_EXEC,
  ElfError,
  Machine,
  MachineError,
  PT_INTERP,
  defaultImages,
  isaOfElfMachine,
  parseElf,
  readInitrdEntries,
  type InitrdFile,
  type Isa,
} from '@wdtrace/kernel';

export interface RunIo {
  out(s: string): void;
  err(s: string): void;
}

/** A bad program or option: reported as `wdtrace run: message` (status 2). */
export class RunError extends Error {}

/** Where a host program is placed in the guest. */
const HOST_DIR = '/host';

function positiveInt(name: string, max: number) {
  return (text: string): number => {
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < 1 || n > max) throw new RunError(`--${name} must be a whole number from 1 to ${max}, not '${text}'`);
    return n;
  };
}

/** Checks a host file is a static executable of `isa` (or, with no `isa`, of either); returns its ISA. */
export function checkHostProgram(path: string, bytes: Uint8Array, isa: Isa | undefined): Isa {
  let elf;
  try {
    elf = parseElf(bytes);
  } catch (e) {
    // The reader's message names the problem ("not an ELF file (bad magic)", "truncated ELF header ...").
    if (e instanceof ElfError) throw new RunError(`${path}: ${e.message}`);
    throw e;
  }
  const fileIsa = isaOfElfMachine(elf.machine);
  if (!fileIsa) throw new RunError(`${path}: an ELF file for ${elf.machineName}, which wdtrace does not emulate (x86_64 or arm)`);
  if (isa && fileIsa !== isa) throw new RunError(`${path}: an ELF file for ${fileIsa}, but the machine is ${isa} (use --arch ${fileIsa})`);
  if (elf.programHeaders.some((p) => p.type === PT_INTERP)) throw new RunError(`${path}: dynamically linked; the guest runs static executables only`);
  if (elf.type !== ET_EXEC && elf.type !== ET_DYN) throw new RunError(`${path}: not an executable (ELF type ${elf.type})`);
  return fileIsa;
}

/** Runs `wdtrace run ARGS...`; returns the exit status. */
export async function runRun(args: string[], io: RunIo): Promise<number> {
  const program = new Command('wdtrace run')
    .description('boot the guest kernel and run PROGRAM in it (no PROGRAM: the guest shell); exits with its status')
    .usage('[--arch x86_64|arm] [--thumb] [--cpus N] [-- PROGRAM ARGS...]')
    .addOption(new Option('--arch <isa>', 'the machine to emulate (default x86_64, or the ISA of a host PROGRAM)').choices(['x86_64', 'arm']))
    .option('--thumb', 'boot the ARM guest built as Thumb-2 code (implies --arch arm)')
    .option('--cpus <n>', 'number of CPUs (1-8)', '1')
    .option('--ram <MiB>', 'RAM in MiB', '64')
    .option('--ns-per-insn <n>', 'virtual nanoseconds per instruction a CPU executes', String(DEFAULT_NS_PER_INSN))
    .option('--verbose', 'keep the kernel\'s boot messages')
    .argument('[program...]', 'a guest path (/bin/sh) or a static ELF on the host, and its arguments')
    .helpOption('-h, --help', 'print this help and exit')
    // Options after PROGRAM are its own: `wdtrace run /bin/ls -l` needs no `--`.
    .passThroughOptions()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (s, write) => write(s.replace(/^error: /, 'wdtrace run: ')) })
    .exitOverride();
  try {
    program.parse(args, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = program.opts<{ arch?: Isa; thumb?: boolean; cpus: string; ram: string; nsPerInsn: string; verbose?: boolean }>();
  try {
    const cpus = positiveInt('cpus', 8)(o.cpus);
    const ramMiB = positiveInt('ram', 3840)(o.ram);
    const nsPerInsn = positiveInt('ns-per-insn', 1_000_000)(o.nsPerInsn);
    if (o.thumb && o.arch !== undefined && o.arch !== 'arm') throw new RunError(`--thumb is for the ARM guest, not --arch ${o.arch}`);
    const { isa, files, args: guestArgs } = placeProgram(program.args, o.thumb ? 'arm' : o.arch);
    return await boot({ isa, thumb: !!o.thumb, cpus, ramBytes: ramMiB * 1024 * 1024, nsPerInsn, files, args: guestArgs, verbose: !!o.verbose }, io);
  } catch (e) {
    if (e instanceof RunError || e instanceof MachineError) {
      io.err(`wdtrace run: ${e.message}\n`);
      return e instanceof RunError ? 2 : 1;
    }
    throw e;
  }
}

/**
 * Where PROGRAM ARGS... run: a guest path stays as it is; a host static ELF
 * is copied into the guest under /host and decides the ISA when `arch` does
 * not. Throws RunError for a missing file, a non-ELF file or a wrong ISA.
 */
export function placeProgram(words: readonly string[], arch: Isa | undefined): { isa: Isa; files: InitrdFile[]; args: string[] } {
  let isa: Isa = arch ?? 'x86_64';
  const files: InitrdFile[] = [];
  const args = [...words];
  if (words.length > 0) {
    const path = words[0]!;
    if (!guestHas(arch ?? hostIsaOf(path) ?? 'x86_64', path)) {
      if (!existsSync(path)) throw new RunError(`${path}: no such file in the guest file system or on the host`);
      if (!statSync(path).isFile()) throw new RunError(`${path}: not a regular file`);
      const bytes = new Uint8Array(readFileSync(path));
      isa = checkHostProgram(path, bytes, arch);
      const guestPath = `${HOST_DIR}/${basename(path)}`;
      files.push({ path: guestPath, data: bytes, mode: 0o755 });
      args[0] = guestPath;
    }
  }
  return { isa, files, args };
}

/** The ISA of a host ELF file, if `path` names one. */
function hostIsaOf(path: string): Isa | undefined {
  try {
    if (!existsSync(path) || !statSync(path).isFile()) return undefined;
    const head = readFileSync(path).subarray(0, 20);
    if (head[0] !== 0x7f || head[1] !== 0x45 || head[2] !== 0x4c || head[3] !== 0x46) return undefined;
    return isaOfElfMachine(head[18]! | (head[19]! << 8));
  } catch {
    return undefined;
  }
}

/** Whether `path` names a file of the default initrd of `isa`. */
function guestHas(isa: Isa, path: string): boolean {
  if (!path.startsWith('/')) return false;
  const { entries } = readInitrdEntries(defaultImages(isa).initrd);
  return entries.some((e) => `/${e.name}` === path);
}

interface BootPlan {
  isa: Isa;
  /** ARM: the guest built as Thumb-2. */
  thumb: boolean;
  cpus: number;
  ramBytes: number;
  nsPerInsn: number;
  files: InitrdFile[];
  args: string[];
  verbose: boolean;
}

async function boot(plan: BootPlan, io: RunIo): Promise<number> {
  const machine = await Machine.create({
    isa: plan.isa,
    thumb: plan.thumb,
    cpus: plan.cpus,
    ramBytes: plan.ramBytes,
    nsPerInsn: plan.nsPerInsn,
    cmdline: plan.verbose ? '' : 'quiet',
    args: plan.args,
    files: plan.files,
    interactive: true,
    consoleOutput: (bytes) => process.stdout.write(bytes),
  });
  const stdin = process.stdin;
  const onData = (chunk: Buffer) => machine.input(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  const onEnd = () => machine.closeInput();
  stdin.on('data', onData);
  stdin.on('end', onEnd);
  stdin.on('error', onEnd);
  try {
    const result = await machine.runUntilPowerOff();
    switch (result.kind) {
      case 'poweroff':
        return result.status;
      case 'panic':
        io.err(`wdtrace run: the guest kernel panicked (status ${result.status})\n`);
        return result.status || 1;
      case 'fatal':
        io.err(`wdtrace run: CPU ${result.cpu} stopped: ${result.reason} at 0x${result.pc.toString(16)} (${machine.symbols.format(result.pc)})\n`);
        return 1;
      default:
        io.err(`wdtrace run: the machine stopped with every CPU idle and nothing left to wake them\n`);
        return 1;
    }
  } finally {
    stdin.off('data', onData);
    stdin.off('end', onEnd);
    stdin.off('error', onEnd);
    stdin.pause();
    stdin.unref?.();
  }
}
