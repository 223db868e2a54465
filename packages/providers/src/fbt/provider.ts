// The fbt provider (function boundary tracing), after illumos fbt.c: every
// function of the kernel and its loaded modules gets an entry probe at its
// first instruction and one return probe covering all its return sites
// (found by the ISA's part: isa/x86.ts, isa/arm.ts). Enabling patches the
// sites with the ISA's breakpoint; the shared tracepoint table's invop
// handler fires the probe and returns the emulation of the displaced
// instruction. Entry probes: args[0..9] from the argument registers, then
// the stack. Return probes: arg0 = byte offset of the return site in the
// function, arg1 = the return value register. Typed args from DWARF.
//
// Exclusions: only the functions of ../exclusions.ts, none today (see why
// there). What is left out otherwise is what cannot be patched faithfully:
// functions without the entry pattern (x86-64 hand-written stubs with no
// push %rbp), functions whose bytes do not decode, instructions the ISA
// part refuses, and return probes of functions that never return.
import type { ProbeArgumentSource, ProbeDescriptionPattern, ProbeRegistry, ProviderDefinition } from '@wdtrace/dtrace-core';
import { globMatch } from '@wdtrace/dtrace-core';
import { moduleExtent, type KernelFunction, type KernelModuleImage, type Machine, type Trap } from '@wdtrace/kernel';
import { ReturnArguments, createIsaSupport, type FbtFunctionPoints, type FbtPoint, type FunctionArguments, type IsaSupport } from '../isa/index.js';
import { UNTRACEABLE_FUNCTIONS } from '../exclusions.js';
import { KernelText, uniqueFunctions } from '../kernel-text.js';
import { KERNEL_FUNCTION_ATTRIBUTES, NO_ARGS, ProviderError, type ProbeSink } from '../provider.js';
import { tracepointsOf, type Tracepoint } from '../tracepoints.js';
import { fbtPoints } from './points.js';

export const FBT_PROVIDER_NAME = 'fbt';
/** Arguments an entry probe passes (args[0..9]). */
export const FBT_ENTRY_ARGS = 10;

/** The provider-private value of an fbt probe. */
export interface FbtProbe {
  readonly kind: 'entry' | 'return';
  readonly module: string;
  /** The function and its points (renewed when a module of the same name is loaded again). */
  function: KernelFunction;
  points: readonly FbtPoint[];
  /** Tracepoints of this probe (one per point), created on first enable. */
  tracepoints?: Tracepoint[];
  id: number;
  /** Its module was unloaded. */
  unloaded?: boolean;
}

/** Per-ISA share of functions with both probes (the brief's coverage figure). */
export interface FbtCoverage {
  readonly functions: number;
  readonly withEntry: number;
  readonly withReturn: number;
  readonly withBoth: number;
  /** Functions lacking a probe, with why. */
  readonly missing: readonly { readonly module: string; readonly function: string; readonly entry?: string; readonly return?: string }[];
}

export class FbtProvider {
  private readonly text: KernelText;
  private readonly probes = new Map<number, FbtProbe>();
  private readonly points = new Map<string, FbtFunctionPoints>();
  /** Arguments of the firing in progress (for getArgVal). */
  private current: ProbeArgumentSource | undefined;
  /** NOFAULT word reads of kernel memory (stack arguments). */
  private readonly read = (va: bigint, size: number) => this.machine.readWord(va, size);
  /** Per CPU: the arguments of entry firings and of return firings there (reused, see FunctionArguments). */
  private readonly entryArguments: FunctionArguments[] = [];
  private readonly returnArguments: ReturnArguments[] = [];

  private constructor(
    readonly machine: Machine,
    private readonly sink: ProbeSink,
    readonly support: IsaSupport,
  ) {
    this.text = new KernelText(machine, support);
    machine.onModuleEvent((e) => {
      if (e.kind === 'unload') this.moduleUnloaded(e.module);
    });
  }

  /** A module went away: its probes stay listed but can no longer be enabled. */
  private moduleUnloaded(m: KernelModuleImage): void {
    const { start, end } = moduleExtent(m);
    tracepointsOf(this.machine).forget(start, end);
    for (const p of this.probes.values()) {
      if (p.module !== m.name) continue;
      p.tracepoints = undefined;
      p.unloaded = true;
    }
    for (const k of [...this.points.keys()]) if (k.startsWith(`${m.name}\u0000`)) this.points.delete(k);
    this.text.forget(m.name);
  }

  static async create(machine: Machine, sink: ProbeSink, support?: IsaSupport): Promise<FbtProvider> {
    return new FbtProvider(machine, sink, support ?? (await createIsaSupport(machine.isa)));
  }

  /** The probe points of a function (cached). */
  pointsOf(module: KernelModuleImage, fn: KernelFunction): FbtFunctionPoints {
    const key = `${module.name}\u0000${fn.name}`;
    let p = this.points.get(key);
    if (!p) {
      const excluded = module.name === 'kernel' ? UNTRACEABLE_FUNCTIONS.get(fn.name) : undefined;
      p = excluded ? { returns: [], noEntry: `excluded: ${excluded}`, noReturn: `excluded: ${excluded}` } : fbtPoints(this.support, fn.address, fn.size, this.text.decode(module, fn));
      this.points.set(key, p);
    }
    return p;
  }

  /** Whether fbt has an entry probe for `name` in `module` (kinst's inline fallback asks). */
  hasEntry(moduleName: string, name: string): boolean {
    const m = this.machine.kernelModules().find((x) => x.name === moduleName);
    const fn = m ? uniqueFunctions(m).find((f) => f.name === name) : undefined;
    return !!(m && fn && this.pointsOf(m, fn).entry);
  }

  /** Whether fbt has a return probe for `name` in `module`. */
  hasReturn(moduleName: string, name: string): boolean {
    const m = this.machine.kernelModules().find((x) => x.name === moduleName);
    const fn = m ? uniqueFunctions(m).find((f) => f.name === name) : undefined;
    return !!(m && fn && this.pointsOf(m, fn).returns.length > 0);
  }

  coverage(moduleName?: string): FbtCoverage {
    let functions = 0, withEntry = 0, withReturn = 0, withBoth = 0;
    const missing: { module: string; function: string; entry?: string; return?: string }[] = [];
    for (const m of this.machine.kernelModules()) {
      if (moduleName !== undefined && m.name !== moduleName) continue;
      for (const fn of uniqueFunctions(m)) {
        const p = this.pointsOf(m, fn);
        functions++;
        const e = !!p.entry, r = p.returns.length > 0;
        if (e) withEntry++;
        if (r) withReturn++;
        if (e && r) withBoth++;
        else missing.push({ module: m.name, function: fn.name, entry: e ? undefined : p.noEntry, return: r ? undefined : p.noReturn });
      }
    }
    return { functions, withEntry, withReturn, withBoth, missing };
  }

  readonly definition: ProviderDefinition = {
    name: FBT_PROVIDER_NAME,
    attributes: KERNEL_FUNCTION_ATTRIBUTES,
    ops: {
      provide: (registry, desc) => this.provide(registry, desc),
      enable: (_id, arg) => this.enable(arg as FbtProbe),
      disable: (_id, arg) => this.disable(arg as FbtProbe),
      getArgVal: (_id, _arg, argno) => this.current?.arg(argno) ?? 0n,
      getArgDesc: (_id, arg, argno) => this.argDesc(arg as FbtProbe, argno),
      destroy: (id, arg) => {
        const p = arg as FbtProbe;
        if (p.tracepoints) this.disable(p);
        this.probes.delete(id);
      },
    },
  };

  private provide(registry: ProbeRegistry, desc?: ProbeDescriptionPattern): void {
    if (desc && desc.name !== '' && !globMatch(desc.name, 'entry') && !globMatch(desc.name, 'return')) return;
    for (const m of this.machine.kernelModules()) {
      if (desc && !globMatch(desc.module, m.name)) continue;
      for (const fn of uniqueFunctions(m)) {
        if (desc && !globMatch(desc.function, fn.name)) continue;
        const entry = registry.lookup(FBT_PROVIDER_NAME, m.name, fn.name, 'entry')?.providerArg as FbtProbe | undefined;
        const ret = registry.lookup(FBT_PROVIDER_NAME, m.name, fn.name, 'return')?.providerArg as FbtProbe | undefined;
        if ((entry && !entry.unloaded) || (ret && !ret.unloaded)) continue;
        const p = this.pointsOf(m, fn);
        // A module loaded again under the same name: its probes keep their ids and get the new code.
        const renew = (probe: FbtProbe | undefined, points: readonly FbtPoint[], kind: 'entry' | 'return') => {
          if (!points.length) return;
          if (probe) {
            probe.function = fn;
            probe.points = points;
            probe.unloaded = false;
          } else this.createProbe(registry, { kind, module: m.name, function: fn, points, id: 0 });
        };
        renew(entry, p.entry ? [p.entry] : [], 'entry');
        renew(ret, p.returns, 'return');
      }
    }
  }

  private createProbe(registry: ProbeRegistry, probe: FbtProbe): void {
    probe.id = registry.createProbe(FBT_PROVIDER_NAME, probe.module, probe.function.name, probe.kind, probe);
    this.probes.set(probe.id, probe);
  }

  private enable(probe: FbtProbe): void {
    if (probe.unloaded) throw new ProviderError(FBT_PROVIDER_NAME, `module ${probe.module} of ${probe.function.name}:${probe.kind} was unloaded`);
    if (probe.tracepoints) return;
    const table = tracepointsOf(this.machine);
    const name = `fbt:${probe.module}:${probe.function.name}:${probe.kind}`;
    const tps: Tracepoint[] = probe.points.map((pt) => {
      // A return firing's arg0: the return site's offset in the function.
      const offset = pt.insn.address - probe.function.address;
      const result = pt.result;
      return {
        address: pt.insn.address,
        patch: pt.patch,
        name,
        order: probe.kind === 'entry' ? 0 : 1,
        fire: (trap: Trap) => {
          this.fire(probe, offset, trap.cpu);
          return result;
        },
        // An entry firing's arguments 0..3 are the first four argument registers: it may be a fast site.
        ...(probe.kind === 'entry' ? { fastFilter: () => this.sink.probeFilter?.(probe.id), fastResult: result } : {}),
      };
    });
    table.place(probe, tps);
  }

  private disable(probe: FbtProbe): void {
    tracepointsOf(this.machine).unplace(probe);
  }

  /** Fires `probe` on `cpu`; its arguments are read only if a clause asks for them. */
  private fire(probe: FbtProbe, offset: bigint, cpu: number): void {
    let args: ProbeArgumentSource;
    if (probe.kind === 'entry') {
      args = this.entryArguments[cpu] ??= this.support.entryArguments(this.machine.registers(cpu), this.read, FBT_ENTRY_ARGS);
    } else {
      const r = (this.returnArguments[cpu] ??= new ReturnArguments(this.support, this.machine.registers(cpu)));
      r.offset = offset;
      args = r;
    }
    this.current = args;
    try {
      this.sink.probe(probe.id, cpu, NO_ARGS, args);
    } finally {
      this.current = undefined;
    }
  }

  private argDesc(probe: FbtProbe, argno: number): { native: string } | undefined {
    const m = this.machine.kernelModules().find((x) => x.name === probe.module);
    const dwarf = m?.dwarf();
    const fn = dwarf?.functions.find((f) => f.name === probe.function.name && !f.inlineOnly && f.lowPc === probe.function.address)
      ?? dwarf?.functions.find((f) => f.name === probe.function.name && !f.inlineOnly);
    if (probe.kind === 'return') {
      if (argno === 0) return { native: 'int' };
      if (argno === 1 && fn && fn.returns !== undefined) return { native: dwarf!.typeName(fn.returns) };
      return undefined;
    }
    const param = fn?.params[argno];
    if (!fn || !param) return undefined;
    return { native: dwarf!.typeName(param.type) };
  }
}
