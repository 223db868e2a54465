// The syscall provider, after illumos systrace: an entry and a return probe
// for every system call in the guest kernel's table. The table is read from
// the kernel image (`syscall_list`: number, name, function, argument count,
// laid out by its DWARF); the probes fire from the two SDT sites that
// bracket every call in the dispatcher (syscall-entry, syscall-return),
// which this provider enables while any of its probes is enabled. Entry
// probes take the call's arguments from the user frame the kernel saved;
// return probes give arg0 = arg1 = the return value, -1 for an error, whose
// number becomes the thread's errno.
import type { ProbeRegistry, ProviderDefinition } from '@wdtrace/dtrace-core';
import type { DwarfInfo, Machine } from '@wdtrace/kernel';
import type { IsaSupport } from '../isa/index.js';
import { KERNEL_FUNCTION_ATTRIBUTES, type ProbeSink } from '../provider.js';

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
  /** Enabled probe ids by call number and kind. */
  private readonly enabled = new Map<string, number>();
  private registry: ProbeRegistry | undefined;
  private sitesEnabled = false;
  private siteIds: number[] = [];

  constructor(
    private readonly machine: Machine,
    private readonly support: IsaSupport,
    private readonly threads: SyscallThreads,
    private readonly sink: ProbeSink,
    /** Routes the firings of an internal probe (the dispatcher's SDT sites) to this provider. */
    private readonly tap: (probeId: number, handler: ((cpu: number, args: readonly bigint[]) => void) | undefined) => void,
  ) {}

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

  private key(nr: number, kind: 'entry' | 'return'): string {
    return `${kind}:${nr}`;
  }

  private enable(id: number): void {
    const p = this.probes.get(id);
    if (!p) return;
    this.enabled.set(this.key(p.call.nr, p.kind), id);
    if (!this.sitesEnabled) this.enableSites();
  }

  private disable(id: number): void {
    const p = this.probes.get(id);
    if (!p) return;
    this.enabled.delete(this.key(p.call.nr, p.kind));
    if (this.enabled.size === 0 && this.sitesEnabled) this.disableSites();
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
      this.tap(s.id, (cpu, args) => (s.kind === 'entry' ? this.fireEntry(cpu, args) : this.fireReturn(cpu, args)));
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
  private fireEntry(cpu: number, args: readonly bigint[]): void {
    const nr = Number(args[0] ?? -1n);
    const id = this.enabled.get(this.key(nr, 'entry'));
    if (id === undefined) return;
    const call = this.syscallTable().byNr.get(nr);
    const a = this.threads.syscallArgs(cpu)?.slice(0, call?.nargs ?? 6) ?? [];
    this.sink.probe(id, cpu, a);
  }

  /** syscall-return(nr, name, ret): -1 and errno for an error, as systrace reports it. */
  private fireReturn(cpu: number, args: readonly bigint[]): void {
    const nr = Number(args[0] ?? -1n);
    const ret = BigInt.asIntN(this.support.wordSize * 8, args[2] ?? 0n);
    const failed = ret < 0n && ret >= -MAX_ERRNO;
    this.threads.setErrno(this.threads.threadId(cpu), failed ? Number(-ret) : 0);
    const id = this.enabled.get(this.key(nr, 'return'));
    if (id === undefined) return;
    const rv = failed ? -1n : ret;
    this.sink.probe(id, cpu, [BigInt.asUintN(64, rv), BigInt.asUintN(64, rv)]);
  }
}
