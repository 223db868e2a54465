// The syscall provider, after illumos systrace: an entry and a return probe
// for every system call in the guest kernel's table. The table is read from
// the kernel image (`syscall_list`: number, name, function, argument count,
// laid out by its DWARF); the probes fire from the two SDT sites that
// bracket every call in the dispatcher (syscall-entry, syscall-return),
// which this provider enables while any of its probes is enabled. Entry
// probes take the call's arguments from the user frame the kernel saved;
// return probes give arg0 = arg1 = the return value, -1 for an error, whose
// number becomes the thread's errno.
import { probeArgument, type ProbeArgumentSource, type ProbeRegistry, type ProviderDefinition } from '@wdtrace/dtrace-core';
import type { DwarfInfo, Machine } from '@wdtrace/kernel';
import type { IsaSupport } from '../isa/index.js';
import { KERNEL_FUNCTION_ATTRIBUTES, NO_ARGS, type ProbeSink } from '../provider.js';

export const SYSCALL_PROVIDER_NAME = 'syscall';

/** One system call of the guest kernel. */
export interface GuestSyscall {
  readonly nr: number;
  readonly name: string;
  readonly nargs: number;
}

interface SyscallProbe {
  readonly call: GuestSyscall;
  readonly kind: 'entry' | 'return';
  id: number;
}

/** What the provider reads and keeps of the thread making a system call (the session's view of the guest gives it). */
export interface SyscallThreads {
  /** The system-call arguments of the thread on `cpu`, from the user registers it entered the kernel with. */
  syscallArgs(cpu: number): readonly bigint[] | undefined;
  /** The thread (tid) on `cpu`. */
  threadId(cpu: number): number;
  /** The errno of thread `tid`'s last system call. */
  setErrno(tid: number, errno: number): void;
}

/** A firing of one of the dispatcher's SDT probes, handed to the provider before the framework sees it. */
export type SyscallTap = (cpu: number, args: readonly bigint[], rest: ProbeArgumentSource | undefined) => void;

/**
 * An entry probe's arguments: the call's own, read from the user frame the
 * first time a clause asks for one in a firing, and only its `nargs` of them.
 * One per CPU, reset for each firing.
 */
class SyscallArguments implements ProbeArgumentSource {
  /** The saved arguments once read in this firing (undefined: the thread has no user frame); null until then. */
  private saved: readonly bigint[] | undefined | null = null;
  nargs = 0;

  constructor(
    private readonly threads: SyscallThreads,
    private readonly cpu: number,
  ) {}

  /** A new firing: nothing read yet. */
  reset(nargs: number): void {
    this.saved = null;
    this.nargs = nargs;
  }

  arg(index: number): bigint {
    if (index >= this.nargs) return 0n;
    if (this.saved === null) this.saved = this.threads.syscallArgs(this.cpu);
    return this.saved?.[index] ?? 0n;
  }
}

/** Linux returns -errno for an error: values in [-4095, -1]. */
const MAX_ERRNO = 4095n;

/** The kernel's DWARF (the module list's copy, read once for every reader). */
function kernelDwarf(machine: Machine): DwarfInfo {
  const d = machine.kernelModules()[0]!.dwarf();
  if (!d) throw new Error('the guest kernel has no DWARF');
  return d;
}

/** Reads the guest kernel's system-call table from its image. */
export function guestSyscalls(machine: Machine, wordSize: 4 | 8): GuestSyscall[] {
  const sym = machine.symbols.byName('syscall_list');
  if (!sym) throw new Error('the guest kernel has no syscall_list table');
  const d = kernelDwarf(machine);
  const id = d.namedTypes.get('struct syscall_entry');
  const t = id === undefined ? undefined : d.types.get(id);
  if (!t || t.kind !== 'struct') throw new Error("the guest kernel's DWARF has no struct syscall_entry");
  const off = (name: string): number => {
    const m = t.members.find((x) => x.name === name);
    if (!m) throw new Error(`struct syscall_entry has no member ${name}`);
    return m.offset;
  };
  const bytes = imageBytes(machine, sym.address, sym.size);
  const view32 = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const readWord = (o: number): bigint => (wordSize === 8 ? view32.getBigUint64(o, true) : BigInt(view32.getUint32(o, true)));
  const calls: GuestSyscall[] = [];
  for (let base = 0; base + t.size <= bytes.length; base += t.size) {
    const nr = Number(BigInt.asIntN(wordSize * 8, readWord(base + off('nr'))));
    const name = imageString(machine, readWord(base + off('name')));
    const nargs = view32.getInt32(base + off('nargs'), true);
    calls.push({ nr, name, nargs });
  }
  return calls;
}

/** Bytes of the kernel image at a linked address (initialised data and text). */
function imageBytes(machine: Machine, address: bigint, length: number): Uint8Array {
  for (const s of machine.kernel.sections) {
    if (s.addr === 0n || address < s.addr || address + BigInt(length) > s.addr + BigInt(s.size) || s.type === 8) continue;
    const at = Number(address - s.addr);
    return machine.kernel.sectionData(s).subarray(at, at + length);
  }
  throw new Error(`no initialised kernel data at 0x${address.toString(16)}`);
}

function imageString(machine: Machine, address: bigint): string {
  const out: number[] = [];
  for (let i = 0; i < 64; i++) {
    const b = imageBytes(machine, address + BigInt(i), 1)[0]!;
    if (b === 0) break;
    out.push(b);
  }
  return String.fromCharCode(...out);
}

export class SyscallProvider {
  private table: { calls: readonly GuestSyscall[]; byNr: Map<number, GuestSyscall> } | undefined;
  private readonly probes = new Map<number, SyscallProbe>();
  /** Enabled probe ids by system-call number, entry and return. */
  private readonly enabled = { entry: new Map<number, number>(), return: new Map<number, number>() };
  private registry: ProbeRegistry | undefined;
  private sitesEnabled = false;
  private siteIds: number[] = [];

  constructor(
    private readonly machine: Machine,
    private readonly support: IsaSupport,
    private readonly threads: SyscallThreads,
    private readonly sink: ProbeSink,
    /** Routes the firings of an internal probe (the dispatcher's SDT sites) to this provider. */
    private readonly tap: (probeId: number, handler: SyscallTap | undefined) => void,
  ) {}

  /** Per CPU: the arguments of entry firings, and the array of return firings (both reused). */
  private readonly entryArguments: SyscallArguments[] = [];
  private readonly returnArguments: bigint[][] = [];

  /** The guest's system calls, read from the kernel image when first needed (not at start-up). */
  get calls(): readonly GuestSyscall[] {
    return this.syscallTable().calls;
  }

  private syscallTable(): { calls: readonly GuestSyscall[]; byNr: Map<number, GuestSyscall> } {
    if (!this.table) {
      const calls = guestSyscalls(this.machine, this.support.wordSize);
      this.table = { calls, byNr: new Map(calls.map((c) => [c.nr, c])) };
    }
    return this.table;
  }

  readonly definition: ProviderDefinition = {
    name: SYSCALL_PROVIDER_NAME,
    attributes: KERNEL_FUNCTION_ATTRIBUTES,
    ops: {
      provide: (registry) => this.provide(registry),
      enable: (id) => this.enable(id),
      disable: (id) => this.disable(id),
      getArgDesc: (id, _arg, n) => {
        const p = this.probes.get(id);
        if (!p) return undefined;
        const count = p.kind === 'entry' ? p.call.nargs : 2;
        return n < count ? { native: 'long' } : undefined;
      },
    },
  };

  /** Every system call's two probes, made once whatever the description (there are few). */
  private provide(registry: ProbeRegistry): void {
    this.registry = registry;
    if (this.probes.size > 0) return;
    for (const call of this.calls) {
      for (const kind of ['entry', 'return'] as const) {
        const p: SyscallProbe = { call, kind, id: 0 };
        p.id = registry.createProbe(SYSCALL_PROVIDER_NAME, '', call.name, kind, p);
        this.probes.set(p.id, p);
      }
    }
  }

  private enable(id: number): void {
    const p = this.probes.get(id);
    if (!p) return;
    this.enabled[p.kind].set(p.call.nr, id);
    if (!this.sitesEnabled) this.enableSites();
  }

  private disable(id: number): void {
    const p = this.probes.get(id);
    if (!p) return;
    this.enabled[p.kind].delete(p.call.nr);
    if (this.enabled.entry.size === 0 && this.enabled.return.size === 0 && this.sitesEnabled) this.disableSites();
  }

  /** The dispatcher's SDT probes, enabled as the framework enables probes (shared counts). */
  private sites(): { id: number; kind: 'entry' | 'return' }[] {
    const registry = this.registry!;
    const one = (name: string) => registry.match({ provider: 'sdt', module: 'kernel', function: 'do_syscall', name })[0];
    const entry = one('syscall-entry');
    const ret = one('syscall-return');
    if (!entry || !ret) throw new Error('the guest kernel has no syscall-entry/syscall-return sites in do_syscall');
    return [
      { id: entry.id, kind: 'entry' },
      { id: ret.id, kind: 'return' },
    ];
  }

  private enableSites(): void {
    const registry = this.registry!;
    for (const s of this.sites()) {
      const probe = registry.probe(s.id)!;
      this.tap(s.id, s.kind === 'entry' ? (cpu, args, rest) => this.fireEntry(cpu, args, rest) : (cpu, args, rest) => this.fireReturn(cpu, args, rest));
      if (probe.enabledCount++ === 0) registry.provider(probe.provider)!.ops.enable(probe.id, probe.providerArg);
      this.siteIds.push(s.id);
    }
    this.sitesEnabled = true;
  }

  private disableSites(): void {
    const registry = this.registry!;
    for (const id of this.siteIds) {
      const probe = registry.probe(id)!;
      this.tap(id, undefined);
      if (--probe.enabledCount === 0) registry.provider(probe.provider)!.ops.disable(probe.id, probe.providerArg);
    }
    this.siteIds = [];
    this.sitesEnabled = false;
  }

  /** syscall-entry(nr, name): the arguments from the saved user frame. */
  private fireEntry(cpu: number, args: readonly bigint[], rest: ProbeArgumentSource | undefined): void {
    const nr = Number(probeArgument(args, rest, 0));
    const id = this.enabled.entry.get(nr);
    if (id === undefined) return;
    const call = this.syscallTable().byNr.get(nr);
    const a = (this.entryArguments[cpu] ??= new SyscallArguments(this.threads, cpu));
    a.reset(call?.nargs ?? 6);
    this.sink.probe(id, cpu, NO_ARGS, a);
  }

  /** syscall-return(nr, name, ret): -1 and errno for an error, as systrace reports it. */
  private fireReturn(cpu: number, args: readonly bigint[], rest: ProbeArgumentSource | undefined): void {
    const nr = Number(probeArgument(args, rest, 0));
    const ret = BigInt.asIntN(this.support.wordSize * 8, probeArgument(args, rest, 2));
    const failed = ret < 0n && ret >= -MAX_ERRNO;
    this.threads.setErrno(this.threads.threadId(cpu), failed ? Number(-ret) : 0);
    const id = this.enabled.return.get(nr);
    if (id === undefined) return;
    const rv = BigInt.asUintN(64, failed ? -1n : ret);
    const a = (this.returnArguments[cpu] ??= [0n, 0n]);
    a[0] = rv;
    a[1] = rv;
    this.sink.probe(id, cpu, a);
  }
}
