// The sdt provider family, after illumos sdt.c: statically defined probes at
// the `__dtrace_probe_*` call sites krtld turned into no-ops in the kernel
// and in every loaded module. Each provider named by the sites (sdt, proc,
// sched, io) is a provider of its own; a probe is provider:module:function:
// name, and several sites with the same name in one function share it.
// Enabling writes the ISA's trapping pattern over each site (isa/x86/sdt.ts,
// isa/arm/sdt.ts), disabling restores the exact bytes that were there; a firing
// takes args[0..9] from the argument registers (then the stack) at the site.
// Argument types come from the C types written at the site (sdt.h records
// them in .dtrace_argtypes; krtld gives each site its argTypes). The proc,
// sched and io probes' arguments are translated as illumos's sdt_args table
// describes them: args[N] has a stable type (psinfo_t *, bufinfo_t * ...)
// translated from the native argument it maps from, by the translators of
// the guest's D library (library.ts).
import { globMatch, type ProbeDescriptionPattern, type ProbeRegistry, type ProviderDefinition } from '@wdtrace/dtrace-core';
import { SDT_NAMED_PROVIDERS, moduleExtent, type Machine, type SdtSite, type Trap } from '@wdtrace/kernel';
import { createIsaSupport, type FunctionArguments, type IsaSupport } from '../isa/index.js';
import { NO_ARGS, type ProbeSink } from '../provider.js';
import { tracepointsOf, type Tracepoint } from '../tracepoints.js';

/** Arguments an SDT probe passes. */
export const SDT_ARGS = 10;
/** Providers the sdt family serves: sdt itself and the named ones. */
export const SDT_PROVIDERS: readonly string[] = ['sdt', ...SDT_NAMED_PROVIDERS];

export interface SdtProbe {
  readonly provider: string;
  readonly module: string;
  readonly function: string;
  readonly name: string;
  readonly sites: SdtSite[];
  tracepoints?: Tracepoint[];
  id: number;
  /** Its module was unloaded. */
  unloaded?: boolean;
}

/**
 * The C types of a probe's arguments, as krtld read them from the sites'
 * argument-type records. The sites of one probe normally agree; when they do
 * not, the first site's types are the probe's.
 */
export function sdtArgTypes(probe: SdtProbe): readonly string[] {
  return probe.sites[0]?.argTypes ?? [];
}

/** One translated or remapped argument: the stable type and the native argument it comes from. */
export interface SdtArgMapping {
  readonly translated?: string;
  readonly mapping: number;
}

const LWP = { translated: 'lwpsinfo_t *', mapping: 0 };
const PS = { translated: 'psinfo_t *', mapping: 0 };
const IO_ARGS: readonly SdtArgMapping[] = [
  { translated: 'bufinfo_t *', mapping: 0 },
  { translated: 'devinfo_t *', mapping: 0 },
  { translated: 'fileinfo_t *', mapping: 0 },
];

/**
 * illumos sdt_args for the probes the guest has, by provider:probe: per
 * args[N], the translated type and the native argument it is translated
 * from. Probes not listed keep their native arguments as written at the site.
 */
export const SDT_ARG_TABLE: ReadonlyMap<string, readonly SdtArgMapping[]> = new Map([
  ['sched:wakeup', [LWP, PS]],
  ['sched:dequeue', [LWP, PS, { translated: 'cpuinfo_t *', mapping: 1 }]],
  ['sched:enqueue', [LWP, PS, { translated: 'cpuinfo_t *', mapping: 1 }, { mapping: 2 }]],
  ['sched:off-cpu', [LWP, PS]],
  ['proc:create', [PS]],
  ['proc:signal-send', [LWP, PS, { mapping: 1 }]],
  ['io:start', IO_ARGS],
  ['io:done', IO_ARGS],
]);

/**
 * The description of a probe's args[argno] (sdt_getargdesc): the native type
 * written at the site, and for the probes of the table the translated type
 * and the native argument it maps from; undefined past the last argument.
 */
export function sdtArgDesc(probe: SdtProbe, argno: number): { native: string; translated?: string; mapping?: number } | undefined {
  const native = sdtArgTypes(probe);
  const table = SDT_ARG_TABLE.get(`${probe.provider}:${probe.name}`);
  if (table === undefined) {
    const t = native[argno];
    return t === undefined ? undefined : { native: t };
  }
  const a = table[argno];
  const t = a === undefined ? undefined : native[a.mapping];
  if (a === undefined || t === undefined) return undefined;
  return a.translated !== undefined ? { native: t, translated: a.translated, mapping: a.mapping } : { native: t, mapping: a.mapping };
}

const hex = (v: bigint): string => `0x${v.toString(16)}`;

export class SdtProvider {
  private readonly probes = new Map<string, SdtProbe>();
  /** Arguments of the firing in progress (for getArgVal). */
  private current: FunctionArguments | undefined;
  /** Per CPU: the arguments of firings there (reused, see FunctionArguments). */
  private readonly siteArguments: FunctionArguments[] = [];
  /** NOFAULT reads of kernel memory (stack arguments). */
  private readonly read = (va: bigint, length: number) => this.machine.readKernel(va, length);
  readonly definitions: readonly ProviderDefinition[];

  private constructor(
    readonly machine: Machine,
    private readonly sink: ProbeSink,
    private readonly support: IsaSupport,
  ) {
    this.definitions = SDT_PROVIDERS.map((name) => this.definitionFor(name));
    machine.onModuleEvent((e) => {
      if (e.kind !== 'unload') return;
      const { start, end } = moduleExtent(e.module);
      tracepointsOf(machine).forget(start, end);
      for (const p of this.probes.values()) {
        if (p.module !== e.module.name) continue;
        p.tracepoints = undefined;
        p.unloaded = true;
      }
    });
  }

  static async create(machine: Machine, sink: ProbeSink, support?: IsaSupport): Promise<SdtProvider> {
    return new SdtProvider(machine, sink, support ?? (await createIsaSupport(machine.isa)));
  }

  /** The definition of one provider of the family ('sdt', 'proc', 'sched', 'io'). */
  definition(name: string): ProviderDefinition {
    const d = this.definitions.find((x) => x.name === name);
    if (!d) throw new Error(`sdt: no provider named "${name}" (have ${SDT_PROVIDERS.join(', ')})`);
    return d;
  }

  private definitionFor(name: string): ProviderDefinition {
    return {
      name,
      attributes: {
        provider: 'Evolving/Evolving/ISA',
        module: 'Private/Private/Unknown',
        function: 'Private/Private/Unknown',
        name: 'Evolving/Evolving/ISA',
        args: 'Evolving/Evolving/ISA',
      },
      ops: {
        provide: (registry, desc) => this.provide(name, registry, desc),
        enable: (_id, arg) => this.enable(arg as SdtProbe),
        disable: (_id, arg) => this.disable(arg as SdtProbe),
        getArgVal: (_id, _arg, argno) => this.current?.arg(argno) ?? 0n,
        getArgDesc: (_id, arg, argno) => sdtArgDesc(arg as SdtProbe, argno),
        destroy: (_id, arg) => this.disable(arg as SdtProbe),
      },
    };
  }

  private provide(provider: string, registry: ProbeRegistry, desc?: ProbeDescriptionPattern): void {
    for (const m of this.machine.kernelModules()) {
      if (desc && !globMatch(desc.module, m.name)) continue;
      for (const site of m.sdtSites) {
        if (site.provider !== provider) continue;
        if (desc && (!globMatch(desc.function, site.function) || !globMatch(desc.name, site.probe))) continue;
        const key = `${provider}:${m.name}:${site.function}:${site.probe}`;
        let p = this.probes.get(key);
        if (p?.unloaded) {
          // The module was loaded again under the same name: same probe, new sites.
          p.sites.length = 0;
          p.unloaded = false;
        }
        if (!p) {
          p = { provider, module: m.name, function: site.function, name: site.probe, sites: [], id: 0 };
          this.probes.set(key, p);
        }
        if (!p.sites.some((s) => s.address === site.address)) p.sites.push(site);
        if (p.id === 0) p.id = registry.createProbe(provider, m.name, site.function, site.probe, p);
      }
    }
  }

  private enable(probe: SdtProbe): void {
    if (probe.unloaded) throw new Error(`${probe.provider}:${probe.module}:${probe.function}:${probe.name}: module ${probe.module} was unloaded`);
    if (probe.tracepoints) return;
    const table = tracepointsOf(this.machine);
    const name = `${probe.provider}:${probe.module}:${probe.function}:${probe.name}`;
    const tps = probe.sites.map((site): Tracepoint => {
      // The site must still hold what krtld wrote, or the text is not what the site describes.
      const now = table.readOriginal(site.address, site.patch.length);
      if (!now.every((b, i) => b === site.patch[i])) {
        throw new Error(`${name}: the site at ${hex(site.address)} holds ${[...now].map((b) => b.toString(16).padStart(2, '0')).join(' ')}, not the no-op krtld wrote`);
      }
      const { patch, result } = this.support.sdtPatch(site);
      return {
        address: site.address,
        patch,
        name,
        fire: (trap: Trap) => {
          this.fire(probe, trap.cpu);
          return result;
        },
      };
    });
    table.place(probe, tps);
  }

  private disable(probe: SdtProbe): void {
    tracepointsOf(this.machine).unplace(probe);
  }

  /** Fires `probe` on `cpu`; its arguments are read only if a clause asks for them. */
  private fire(probe: SdtProbe, cpu: number): void {
    const args = (this.siteArguments[cpu] ??= this.support.callArguments(this.machine.registers(cpu), this.read, SDT_ARGS));
    this.current = args;
    try {
      this.sink.probe(probe.id, cpu, NO_ARGS, args);
    } finally {
      this.current = undefined;
    }
  }
}
