// The pid provider (fasttrap), after illumos fasttrap.c and libdtrace's
// dt_pid.c: probes on the instructions of one user process,
// `pid<N>:<module>:<function>:entry|return|<hex offset>`.
//
// There are two ways a pid probe comes to be, as in illumos:
// - on demand: a description naming `pid<N>` makes the provider `pid<N>`
//   exist (`prepare`, what dt_pid_create_probes does while D compiles), and
//   matching it creates the probes of the process's executable that the
//   description names: `return`, `entry`, then each instruction offset the
//   name matches (every instruction when the name is left out); the module
//   `a.out` stands for the executable, whose probes carry its base name;
// - for a process that does not run its program yet (dtrace -c's command,
//   created before the guest boots), the probes are made against the file it
//   will run, and placed when it execs that file.
//
// Placing: each probed instruction becomes the ISA's breakpoint in that
// process's text only — the guest gives every process private copies of
// its text pages, and the writes go through that process's page tables —
// and once the probe fired the original instruction runs out of line as if
// at its own address (kinst's displaced execution, in user mode). The trap
// is claimed only for a user-mode trap in an address space that has the
// tracepoint; any other int3 / undefined instruction reaches the guest as
// usual.
//
// Process lifecycle, as fasttrap keeps it: while any pid probe is enabled,
// tracepoints of the provider's own on the kernel's proc SDT sites watch
// - proc:::create: a forked child (its own address space) gets the original
//   bytes back at every tracepoint of its parent: the child's text has none
//   (fasttrap_fork); a vfork child shares the parent's text and fires its
//   probes, as illumos's fasttrap does for vfork children;
// - proc:::exec-success: a process waiting for its program goes live and its
//   enabled probes are placed; a live process that execs something else
//   loses its probes (the old text is gone with its address space);
// - proc:::exit: the process's tracepoints are taken out and its probes
//   retired; they never fire again.
//
// USDT providers (`<provider><pid>`) are the process's own, as fasttrap's
// meta provider makes them from the helper a program registers when it
// starts: they exist for every process whose program carries USDT probes.
// A description naming one (`kv5`, `kv$target`) makes it; a description
// whose provider is a glob or empty (`kv*:::`, `*:::request-start`,
// `:::request-start`) makes every matching one of the live processes (and
// of the -c command about to run). While such an enabling traces, a process
// that execs a program with USDT probes, or forks from one, brings its
// providers into being and the enablings are matched again
// (dtrace_helper_provide's dtrace_enabling_matchall), so `-Z -n 'kv*:::'`
// catches a server started later; `onNewProviders` tells the target.
//
// Arguments: entry and offset probes get the argument registers (entry also
// the stack arguments after them); return probes get arg0 = the offset of
// the returning instruction in the function and arg1 = the return value.
import { globMatch, type ProbeArgumentSource, type ProbeDescriptionPattern, type ProbeRegistry, type ProviderDefinition } from '@wdtrace/dtrace-core';
import { USDT_SECTION, parseElf, usdtEnabledPatch, type KernelFunction, type Machine, type SafeRead, type Trap, type UsdtProviderDefinition } from '@wdtrace/kernel';
import { programUsdt, type ProgramUsdt, type ResolvedUsdtSite } from '../usdt/sites.js';
import { StapArguments } from '../usdt/stapsdt.js';
import type { GuestMachineView } from '../guest-view.js';
import { ReturnArguments, type FunctionArguments, type IsaSupport, type KernelInsn } from '../isa/index.js';
import { NO_ARGS, ProviderError, type ProbeSink } from '../provider.js';
import { TracepointTable, tracepointsOf, type Tracepoint } from '../tracepoints.js';
import { ProgramImage } from './image.js';

export const PID_PROVIDER_PREFIX = 'pid';

/** The program a process runs, or will run (`pending`: it has not exec'd it yet). */
export interface ProcessProgram {
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly pending: boolean;
}

type PidProbeKind = 'entry' | 'return' | 'offset' | 'usdt';

/** A usdt probe's provider, probe and sites in the process's program. */
export interface UsdtProbeInfo {
  readonly provider: UsdtProviderDefinition;
  readonly probe: UsdtProviderDefinition['probes'][number];
  /** The probe sites (each traps and fires), and the is-enabled sites (each yields 1 while the probe is enabled). */
  readonly sites: readonly ResolvedUsdtSite[];
  readonly enabledSites: readonly ResolvedUsdtSite[];
}

export interface PidProbe {
  readonly process: PidProcess;
  readonly function: KernelFunction;
  readonly kind: PidProbeKind;
  /** The probed instructions: the first (entry), each return site (return), the one at the offset. */
  readonly insns: readonly KernelInsn[];
  id: number;
  enabled: boolean;
  tracepoints?: Tracepoint[];
  /** A usdt probe's description (kind 'usdt'). */
  readonly usdt?: UsdtProbeInfo;
}

/** A process the provider has probes in. */
export interface PidProcess {
  readonly pid: number;
  readonly image: ProgramImage;
  state: 'pending' | 'live' | 'retired';
  /** Its address space's root table, while live. */
  root?: bigint;
  /** Its text's tracepoints, while live. */
  table?: TracepointTable;
  readonly probes: PidProbe[];
  readonly definition: ProviderDefinition;
  /** The USDT probes of its program (null: none), read when first asked for. */
  usdt?: ProgramUsdt | null;
  /** Its usdt providers (`<provider><pid>`) made so far, by name. */
  readonly usdtDefinitions: Map<string, ProviderDefinition>;
}

const USDT_ATTRIBUTES = {
  provider: 'Evolving/Evolving/ISA',
  module: 'Private/Private/Unknown',
  function: 'Private/Private/Unknown',
  name: 'Evolving/Evolving/ISA',
  args: 'Evolving/Evolving/ISA',
} as const;

const PID_ATTRIBUTES = {
  provider: 'Evolving/Evolving/ISA',
  module: 'Private/Private/Unknown',
  function: 'Private/Private/Unknown',
  name: 'Evolving/Evolving/ISA',
  args: 'Private/Private/Unknown',
} as const;

/** Page-table roots compared without their attribute bits. */
const sameRoot = (a: bigint, b: bigint): boolean => (a & ~0xfffn) === (b & ~0xfffn);
const isGlob = (s: string): boolean => /[*?[\\]/.test(s);
const ENTRY_ARGS = 10;

/** The argument sources of one CPU's firings, by kind of probe. */
interface CpuArguments {
  readonly entry: FunctionArguments;
  /** An offset probe's: the argument registers only. */
  readonly offset: FunctionArguments;
  readonly ret: ReturnArguments;
  /** A -G USDT site's: the call's arguments (count set per firing). */
  readonly call: FunctionArguments;
  readonly stap: StapArguments;
}

/** Whether a program carries USDT probes (a -G description or SDT notes), by its bytes. */
const programHasUsdt = new WeakMap<Uint8Array, boolean>();

function hasUsdt(bytes: Uint8Array): boolean {
  let known = programHasUsdt.get(bytes);
  if (known === undefined) {
    try {
      const elf = parseElf(bytes);
      known = elf.sectionByName(USDT_SECTION) !== undefined || elf.sectionByName('.note.stapsdt') !== undefined;
    } catch {
      known = false;
    }
    programHasUsdt.set(bytes, known);
  }
  return known;
}

export class PidProvider {
  private readonly processes = new Map<number, PidProcess>();
  /** The kernel tracepoints watching fork, exec and exit while a pid probe is enabled or helpers are watched. */
  private watch: Tracepoint[] | undefined;
  private enabledCount = 0;
  /** Whether processes that come to have USDT providers are watched for (`watchHelpers`). */
  private helpers = false;
  /** Traps of pid probes claimed (all processes). */
  firings = 0;
  /** Processes about to run a program that are not live yet (the -c command): their USDT providers match globs too. */
  awaitedPids: readonly number[] = [];
  /** Called when a process came to have USDT providers while helpers are watched: the enablings are to be matched again. */
  onNewProviders: (() => void) | undefined;

  constructor(
    readonly machine: Machine,
    private readonly view: GuestMachineView,
    readonly support: IsaSupport,
    private readonly sink: ProbeSink,
    /** The program process `pid` runs or will run, undefined when it has none the provider can read. */
    private readonly programOf: (pid: number) => ProcessProgram | undefined,
  ) {}

  /** The pid of a `pid<N>` provider name, undefined for any other name. */
  static pidOf(providerName: string): number | undefined {
    const m = /^pid([1-9]\d*)$/.exec(providerName);
    return m ? Number(m[1]) : undefined;
  }

  /**
   * Before a description is matched (dt_pid_create_probes): a `pid<N>`
   * provider comes to exist for process N, and the module `a.out` is the
   * process's executable. Returns the description to match.
   */
  prepare(registry: ProbeRegistry, desc: ProbeDescriptionPattern): ProbeDescriptionPattern {
    const pid = PidProvider.pidOf(desc.provider);
    if (pid === undefined) {
      if (desc.provider === '' || isGlob(desc.provider)) {
        this.provideUsdtProviders(registry, desc.provider === '' ? '*' : desc.provider);
        return desc;
      }
      // `<provider><pid>`: the usdt provider of that process's program, when it defines one of that name.
      const usdt = /^([A-Za-z_][\w-]*?)([1-9]\d*)$/.exec(desc.provider);
      const process = usdt ? this.usdtProvider(registry, usdt[1]!, Number(usdt[2])) : undefined;
      return process && desc.module === 'a.out' ? { ...desc, module: process.image.module } : desc;
    }
    const process = this.process(pid);
    if (!process) return desc;
    if (!registry.provider(process.definition.name)) registry.registerProvider(process.definition);
    return desc.module === 'a.out' ? { ...desc, module: process.image.module } : desc;
  }

  /**
   * The usdt providers whose names `pattern` matches, of every live process
   * and awaited one whose program carries USDT probes, come to exist.
   */
  private provideUsdtProviders(registry: ProbeRegistry, pattern: string): void {
    const pids = [...new Set([...this.view.userPids(), ...this.awaitedPids])].sort((a, b) => a - b);
    for (const pid of pids) {
      const program = this.programOf(pid);
      if (!program || !hasUsdt(program.bytes)) continue;
      const process = this.process(pid);
      if (!process || process.state === 'retired') continue;
      for (const p of this.usdtOf(process)?.providers ?? []) {
        if (globMatch(pattern, `${p.name}${pid}`)) this.usdtProvider(registry, p.name, pid);
      }
    }
  }

  /**
   * While a program that may match USDT providers yet to come traces: a
   * process that execs a program with USDT probes, or forks from one, calls
   * `onNewProviders` (its providers exist from then on).
   */
  watchHelpers(on: boolean): void {
    this.helpers = on;
    this.updateWatch();
  }

  /** The process record of `pid`, made when its program can be read. */
  private process(pid: number): PidProcess | undefined {
    const known = this.processes.get(pid);
    if (known && known.state !== 'retired') return known;
    const program = this.programOf(pid);
    if (!program) return known;
    let image: ProgramImage;
    try {
      image = new ProgramImage(program.path, program.bytes, this.support);
    } catch {
      return known; // not an ELF object: no probes
    }
    const name = `${PID_PROVIDER_PREFIX}${pid}`;
    const process: PidProcess = {
      pid,
      image,
      state: 'pending',
      probes: [],
      usdtDefinitions: new Map(),
      definition: {
        name,
        attributes: PID_ATTRIBUTES,
        ops: {
          provide: (registry, desc) => this.provide(process, registry, desc),
          enable: (_id, arg) => this.enable(arg as PidProbe),
          disable: (_id, arg) => this.disable(arg as PidProbe),
          destroy: (_id, arg) => this.disable(arg as PidProbe),
        },
      },
    };
    if (!program.pending) {
      const root = this.view.processRoot(pid);
      if (root === undefined) return known;
      this.goLive(process, root);
    }
    this.processes.set(pid, process);
    return process;
  }

  // ---- probe creation ------------------------------------------------------

  private provide(process: PidProcess, registry: ProbeRegistry, desc?: ProbeDescriptionPattern): void {
    // Probes are made only for a description that names this provider (dt_pid), never for a glob over providers.
    if (!desc || desc.provider !== process.definition.name || process.state === 'retired') return;
    if (desc.module !== '' && !globMatch(desc.module, process.image.module)) return;
    const name = desc.name === '' ? '*' : desc.name;
    for (const fn of process.image.functions) {
      if (!globMatch(desc.function, fn.name)) continue;
      const decoded = process.image.decode(fn);
      const make = (probeName: string, kind: PidProbeKind, insns: KernelInsn[]): void => {
        if (insns.length === 0 || registry.lookup(process.definition.name, process.image.module, fn.name, probeName)) return;
        const probe: PidProbe = { process, function: fn, kind, insns, id: 0, enabled: false };
        probe.id = registry.createProbe(process.definition.name, process.image.module, fn.name, probeName, probe);
        process.probes.push(probe);
      };
      const probeable = decoded.insns.filter((i) => !this.support.unprobeable(i));
      let matched = false;
      if (globMatch(name, 'return')) {
        make('return', 'return', this.support.pidReturns(probeable, fn.address, fn.address + BigInt(fn.size)));
        matched = true;
      }
      if (globMatch(name, 'entry')) {
        const first = probeable[0];
        make('entry', 'entry', first && first.address === fn.address ? [first] : []);
        matched = true;
      }
      if (isGlob(name)) {
        for (const insn of probeable) {
          const off = (insn.address - fn.address).toString(16);
          if (globMatch(name, off)) make(off, 'offset', [insn]);
        }
      } else if (!matched) {
        this.provideOffset(process, fn, name, decoded.insns, make);
      }
    }
  }

  /** One offset probe, `name` a hex offset (dt_pid_create_offset_probe's checks and words). */
  private provideOffset(process: PidProcess, fn: KernelFunction, name: string, insns: readonly KernelInsn[], make: (n: string, k: PidProbeKind, i: KernelInsn[]) => void): void {
    const prov = process.definition.name;
    if (!/^(?:0x)?[0-9a-fA-F]+$/.test(name)) throw new ProviderError(prov, `'${name}' is an invalid probe name`, { tag: 'D_PROC_NAME', args: [name] });
    const off = BigInt(name.startsWith('0x') ? name : `0x${name}`);
    const hex = off.toString(16);
    if (off >= BigInt(fn.size)) throw new ProviderError(prov, `offset 0x${hex} outside of ${process.image.module}:${fn.name}`, { tag: 'D_PROC_OFF', args: [hex, process.image.module, fn.name] });
    const insn = insns.find((i) => i.address - fn.address === off);
    if (!insn) throw new ProviderError(prov, `offset 0x${hex} is not aligned on an instruction`, { tag: 'D_PROC_ALIGN', args: [hex] });
    const why = this.support.unprobeable(insn);
    if (why) {
      const what = `'${fn.name}+0x${hex}' ("${insn.text}"): ${why}`;
      throw new ProviderError(prov, `failed to create probe at ${what}`, { tag: 'D_PROC_CREATEFAIL', args: [String(process.pid), what] });
    }
    make(off.toString(16), 'offset', [insn]);
  }

  // ---- usdt ---------------------------------------------------------------

  /**
   * The D source of the provider definitions in process `pid`'s program —
   * their types and translators — as libraries for programs that trace it
   * (args[] of a translated argument is translated by them).
   */
  usdtLibraries(pid: number): { name: string; text: string }[] {
    const process = this.process(pid);
    const usdt = process ? this.usdtOf(process) : undefined;
    if (!process || !usdt) return [];
    return usdt.sources.map((text, i) => ({ name: `${process.image.module}.usdt${i === 0 ? '' : i}.d`, text }));
  }

  /** The USDT probes of a process's program (read once). */
  usdtOf(process: PidProcess): ProgramUsdt | undefined {
    if (process.usdt === undefined) process.usdt = programUsdt(process.image.elf) ?? null;
    return process.usdt ?? undefined;
  }

  /**
   * The usdt provider `<name><pid>` comes to exist (registered) when process
   * `pid`'s program defines a provider `name`; returns the process then.
   */
  private usdtProvider(registry: ProbeRegistry, name: string, pid: number): PidProcess | undefined {
    const process = this.process(pid);
    if (!process || process.state === 'retired') return undefined;
    const provider = this.usdtOf(process)?.providers.find((p) => p.name === name);
    if (!provider) return undefined;
    const full = `${name}${pid}`;
    let definition = process.usdtDefinitions.get(full);
    if (!definition) {
      definition = {
        name: full,
        attributes: USDT_ATTRIBUTES,
        ops: {
          provide: (reg, desc) => this.provideUsdt(process, provider, reg, desc),
          enable: (_id, arg) => this.enable(arg as PidProbe),
          disable: (_id, arg) => this.disable(arg as PidProbe),
          destroy: (_id, arg) => this.disable(arg as PidProbe),
          // args[N]: the native type of argument N, and the translated type when the definition gives one.
          getArgDesc: (_id, arg, argno) => {
            const q = (arg as PidProbe).usdt!.probe;
            const native = q.native[argno];
            if (native === undefined) return undefined;
            const translated = q.translated?.[argno];
            return translated !== undefined && translated !== native ? { native, translated, mapping: argno } : { native };
          },
        },
      };
      process.usdtDefinitions.set(full, definition);
    }
    if (!registry.provider(full)) registry.registerProvider(definition);
    return process;
  }

  /** The probes of one usdt provider: one per probe name and function, on every site of that pair. */
  private provideUsdt(process: PidProcess, provider: UsdtProviderDefinition, registry: ProbeRegistry, desc?: ProbeDescriptionPattern): void {
    const name = `${provider.name}${process.pid}`;
    if (process.state === 'retired' || (desc && desc.module !== '' && !globMatch(desc.module, process.image.module))) return;
    const usdt = this.usdtOf(process);
    if (!usdt) return;
    for (const q of provider.probes) {
      if (desc && desc.name !== '' && !globMatch(desc.name, q.name)) continue;
      const mine = usdt.sites.filter((s) => s.provider === provider.name && s.probe === q.name);
      for (const fnName of [...new Set(mine.map((s) => s.function))]) {
        if (desc && desc.function !== '' && !globMatch(desc.function, fnName)) continue;
        if (registry.lookup(name, process.image.module, fnName, q.name)) continue;
        const sites = mine.filter((s) => s.function === fnName);
        const fn = process.image.functions.find((f) => f.address === sites[0]!.functionAddress) ?? process.image.function(fnName);
        if (!fn) continue;
        const decoded = process.image.decode(fn);
        const insns = sites.filter((s) => !s.isEnabled).map((s) => decoded.insns.find((i) => i.address === s.address)).filter((i): i is KernelInsn => i !== undefined);
        const probe: PidProbe = {
          process,
          function: fn,
          kind: 'usdt',
          insns,
          id: 0,
          enabled: false,
          usdt: { provider, probe: q, sites: sites.filter((s) => !s.isEnabled), enabledSites: sites.filter((s) => s.isEnabled) },
        };
        probe.id = registry.createProbe(name, process.image.module, fnName, q.name, probe);
        process.probes.push(probe);
      }
    }
  }

  /** A usdt probe's tracepoints: a trap at each probe site; at each is-enabled site the bytes that yield 1. */
  private usdtTracepoints(probe: PidProbe, info: UsdtProbeInfo): Tracepoint[] {
    const name = `${probe.process.definition.name}:${info.provider.name}:${probe.function.name}:${info.probe.name}`;
    const argc = info.probe.native.length;
    const decoded = probe.process.image.decode(probe.function);
    const tps: Tracepoint[] = [];
    for (const site of info.sites) {
      const insn = decoded.insns.find((i) => i.address === site.address);
      if (!insn) continue;
      const result = this.support.displaced(insn);
      const stap = site.stapArgs;
      const nextPc = insn.address + BigInt(insn.length);
      tps.push({
        address: insn.address,
        patch: this.support.breakpoint(insn),
        name,
        order: 1,
        fire: (trap: Trap) => {
          this.firings++;
          // A -G site is a call made no-op: its arguments are the call's. An SDT note says where each one is.
          const a = this.argumentsOn(trap.cpu);
          let args: ProbeArgumentSource;
          if (stap) args = a.stap.at(stap, insn.address, nextPc);
          else {
            a.call.count = argc;
            args = a.call;
          }
          this.sink.probe(probe.id, trap.cpu, NO_ARGS, args);
          return result;
        },
      });
    }
    for (const site of info.enabledSites) {
      const disabled = probe.process.image.fileBytes(site.address, this.support.isa === 'x86_64' ? 5 : 4);
      if (!disabled) continue;
      const insn = probe.process.image.decode(probe.function).insns.find((i) => i.address === site.address);
      const result = insn ? this.support.displaced(insn) : undefined;
      tps.push({
        address: site.address,
        patch: usdtEnabledPatch(this.support.isa, site, disabled),
        name: `${name} (is-enabled)`,
        order: 1,
        // The patch does not trap; a trap here is another probe's (a pid probe on the same instruction is placed first).
        fire: () => result!,
      });
    }
    return tps;
  }

  /**
   * An SDT note's semaphore counts the enabled probes of its site, as
   * systemtap's uprobes do: the program tests it as its is-enabled check.
   */
  private countSemaphores(probe: PidProbe, delta: 1 | -1): void {
    const root = probe.process.root;
    if (root === undefined) return;
    for (const address of new Set(probe.usdt!.sites.map((s) => s.semaphore).filter((a): a is bigint => a !== undefined))) {
      const r = this.machine.readUser(root, address, 2);
      if ('fault' in r) continue;
      const n = (r.bytes[0]! | (r.bytes[1]! << 8)) + delta;
      this.machine.writeUser(root, address, Uint8Array.of(n & 0xff, (n >> 8) & 0xff));
    }
  }

  // ---- enabling -----------------------------------------------------------

  private enable(probe: PidProbe): void {
    if (probe.enabled) return;
    probe.enabled = true;
    this.enabledCount++;
    this.updateWatch();
    if (probe.process.state === 'live') this.place(probe);
  }

  private disable(probe: PidProbe): void {
    if (!probe.enabled) return;
    probe.enabled = false;
    this.unplace(probe);
    this.enabledCount--;
    this.updateWatch();
  }

  /** The fork/exec/exit watch is in place while a pid probe is enabled or helpers are watched. */
  private updateWatch(): void {
    if (this.enabledCount > 0 || this.helpers) this.startWatching();
    else this.stopWatching();
  }

  private place(probe: PidProbe): void {
    const table = probe.process.table;
    if (!table || probe.tracepoints) return;
    if (probe.usdt) {
      table.place(probe, this.usdtTracepoints(probe, probe.usdt));
      this.countSemaphores(probe, 1);
      return;
    }
    const fn = probe.function;
    const name = `${probe.process.definition.name}:${probe.process.image.module}:${fn.name}`;
    const tps = probe.insns.map((insn): Tracepoint => {
      const result = this.support.displaced(insn);
      const offset = insn.address - fn.address;
      return {
        address: insn.address,
        patch: this.support.breakpoint(insn),
        name: `${name}:${probe.kind === 'offset' ? offset.toString(16) : probe.kind}`,
        order: probe.kind === 'entry' ? 0 : probe.kind === 'offset' ? 1 : 2,
        fire: (trap: Trap) => {
          this.firings++;
          this.sink.probe(probe.id, trap.cpu, NO_ARGS, this.args(probe, trap.cpu, offset));
          return result;
        },
      };
    });
    table.place(probe, tps);
  }

  private unplace(probe: PidProbe): void {
    if (probe.usdt && probe.tracepoints) this.countSemaphores(probe, -1);
    if (probe.tracepoints && probe.process.table) probe.process.table.unplace(probe);
    probe.tracepoints = undefined;
  }

  /** A firing's arguments on `cpu`: read from the registers and the process's memory when a clause asks. */
  private args(probe: PidProbe, cpu: number, offset: bigint): ProbeArgumentSource {
    const a = this.argumentsOn(cpu);
    if (probe.kind === 'return') {
      a.ret.offset = offset;
      return a.ret;
    }
    return probe.kind === 'entry' ? a.entry : a.offset;
  }

  /** The argument sources of firings on `cpu`, made on its first firing and reused (see FunctionArguments). */
  private argumentsOn(cpu: number): CpuArguments {
    let a = this.cpuArguments[cpu];
    if (a === undefined) {
      const regs = this.machine.registers(cpu);
      // The process's memory: the address space the CPU is in while the firing lasts.
      const read = (va: bigint, length: number): SafeRead => this.machine.readUser(regs.pageTableRoot(), va, length);
      a = {
        entry: this.support.entryArguments(regs, read, ENTRY_ARGS),
        offset: this.support.entryArguments(regs, read, this.support.argumentRegisters.length),
        ret: new ReturnArguments(this.support, regs),
        call: this.support.callArguments(regs, read, 0),
        stap: new StapArguments(regs, read),
      };
      this.cpuArguments[cpu] = a;
    }
    return a;
  }
  private readonly cpuArguments: CpuArguments[] = [];

  // ---- processes ----------------------------------------------------------

  /** The process runs its program in the address space at `root`: its enabled probes are placed. */
  private goLive(process: PidProcess, root: bigint): void {
    process.state = 'live';
    process.root = root;
    const machine = this.machine;
    process.table = new TracepointTable(
      {
        readText: (va, length) => machine.readUserText(root, va, length),
        writeText: (va, bytes) => machine.writeUserText(root, va, bytes),
        addInvopHandler: (h) => machine.addInvopHandler(h),
      },
      (trap) => trap.user && sameRoot(machine.registers(trap.cpu).pageTableRoot(), root),
    );
    for (const p of process.probes) if (p.enabled) this.place(p);
  }

  /** The process's probes never fire again; `restore` takes its tracepoints out of its (still mapped) text first. */
  private retire(process: PidProcess, restore: boolean): void {
    for (const p of process.probes) {
      if (restore) this.unplace(p);
      p.tracepoints = undefined;
    }
    if (!restore) process.table?.forget(0n, (1n << 64n) - 1n);
    process.table = undefined;
    process.root = undefined;
    process.state = 'retired';
  }

  private startWatching(): void {
    if (this.watch) return;
    const table = tracepointsOf(this.machine);
    const sites = this.machine.kernelModules().flatMap((m) => m.sdtSites).filter((s) => s.provider === 'proc' && ['create', 'exec-success', 'exit'].includes(s.probe));
    this.watch = sites.map((site) => {
      const { patch, result } = this.support.sdtPatch(site);
      return {
        address: site.address,
        patch,
        name: `pid:kernel:${site.function}:${site.probe}`,
        fire: (trap: Trap) => {
          if (site.probe === 'create') this.forked(trap);
          else if (site.probe === 'exec-success') {
            this.execed(trap);
            this.execedHelpers(trap);
          }
          else this.exiting(trap);
          return result;
        },
      };
    });
    for (const tp of this.watch) table.install(tp);
  }

  private stopWatching(): void {
    if (!this.watch) return;
    const table = tracepointsOf(this.machine);
    for (const tp of this.watch) table.remove(tp);
    this.watch = undefined;
  }

  /** The process on the trapping CPU and its record, when the provider has one. */
  private current(trap: Trap): { task: bigint; tid: number; process?: PidProcess } | undefined {
    const task = this.view.currentTask(trap.cpu);
    if (task === undefined) return undefined;
    const { pid, tid } = this.view.taskIds(task);
    return { task, tid, process: this.processes.get(pid) };
  }

  /** Whether process `pid` runs a program with USDT probes (the helpers' check). */
  private runsUsdt(pid: number): boolean {
    const program = this.programOf(pid);
    return program !== undefined && !program.pending && hasUsdt(program.bytes);
  }

  /** proc:::create: the child's own copy of the text gets the original bytes at every tracepoint. */
  private forked(trap: Trap): void {
    const cur = this.current(trap);
    // The child of a process with USDT providers has its own (dtrace_helpers_duplicate).
    if (this.helpers && cur && this.runsUsdt(this.view.taskIds(cur.task).pid)) this.onNewProviders?.();
    const parent = cur?.process;
    if (!parent || parent.state !== 'live' || !parent.table || parent.root === undefined) return;
    const child = this.support.callArguments(this.machine.registers(trap.cpu), (va, n) => this.machine.readKernel(va, n), 1).arg(0);
    const childRoot = child ? this.view.taskRoot(child) : undefined;
    if (childRoot === undefined || sameRoot(childRoot, parent.root)) return; // vfork / thread: the same text
    for (const p of parent.probes) {
      for (const tp of p.tracepoints ?? []) {
        this.machine.writeUserText(childRoot, tp.address, parent.table.readOriginal(tp.address, tp.patch.length));
      }
    }
  }

  /** proc:::exec-success: the process now runs its new program. */
  private execed(trap: Trap): void {
    const cur = this.current(trap);
    const process = cur?.process;
    if (!cur || !process) return;
    if (process.state === 'pending') {
      const root = this.view.taskRoot(cur.task);
      if (root !== undefined) this.goLive(process, root);
    } else if (process.state === 'live') {
      this.retire(process, false); // the old address space is gone
    }
  }

  /** proc:::exec-success: the process's old record is gone (execed) and a program with USDT probes brings its providers. */
  private execedHelpers(trap: Trap): void {
    const cur = this.current(trap);
    if (cur && this.helpers && this.runsUsdt(this.view.taskIds(cur.task).pid)) this.onNewProviders?.();
  }

  /** proc:::exit of the process's leader: its probes are retired. */
  private exiting(trap: Trap): void {
    const cur = this.current(trap);
    if (cur?.process?.state === 'live' && cur.tid === cur.process.pid) this.retire(cur.process, true);
  }

  /** The process record of `pid` (tests, the listing). */
  processOf(pid: number): PidProcess | undefined {
    return this.processes.get(pid);
  }
}
