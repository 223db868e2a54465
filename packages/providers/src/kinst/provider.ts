// The kinst provider (instruction tracing), after FreeBSD kinst: a probe on
// any instruction boundary of a kernel function, named by its byte offset in
// decimal (`kinst::vfs_read:12`), or on every instruction of the function
// when the name is left out. Probes are made on request only — a function
// must be named — since every instruction of the kernel would be tens of
// thousands of probes. The probed instruction becomes the ISA's breakpoint
// (on ARM carrying its condition, so a probe on a conditional instruction
// fires only when it would execute); once the probe fired the original
// instruction runs out of line as if at its own address (the ISA's
// `displaced`, after FreeBSD's kinst_isa.c).
// Like FreeBSD's, a kinst probe passes no arguments.
//
// `kinst::<inline_func>:entry|return` is a rewrite, not a probe: see
// inline.ts and `expandInline`.
import { globMatch, type ProbeDescriptionPattern, type ProbeRegistry, type ProviderDefinition } from '@wdtrace/dtrace-core';
import { moduleExtent, type KernelFunction, type KernelModuleImage, type Machine, type Trap } from '@wdtrace/kernel';
import { UNTRACEABLE_FUNCTIONS } from '../exclusions.js';
import { createIsaSupport, type IsaSupport, type KernelInsn } from '../isa/index.js';
import { KernelText, uniqueFunctions } from '../kernel-text.js';
import { NO_ARGS, ProviderError, type ProbeSink } from '../provider.js';
import { tracepointsOf, type Tracepoint } from '../tracepoints.js';
import { expandInlineProbe, type InlineExpansion } from './inline.js';

export const KINST_PROVIDER_NAME = 'kinst';

/** Calls leave a function only to come back: not an exit from an inlined copy. */
const isCall = (insn: KernelInsn): boolean => insn.classes.has('call');

export interface KinstProbe {
  readonly module: string;
  /** Renewed when a module of the same name is loaded again. */
  function: KernelFunction;
  insn: KernelInsn;
  readonly offset: number;
  tracepoint?: Tracepoint;
  id: number;
  /** Its module was unloaded. */
  unloaded?: boolean;
}

/** What kinst asks fbt for the inline fallback (FbtProvider has both). */
export interface FbtLookup {
  hasEntry(module: string, fn: string): boolean;
  hasReturn(module: string, fn: string): boolean;
}

export class KinstProvider {
  private readonly text: KernelText;

  private constructor(
    readonly machine: Machine,
    private readonly sink: ProbeSink,
    readonly support: IsaSupport,
    /** fbt of the same kernel, for the inline fallback to out-of-line copies. */
    private readonly fbt?: FbtLookup,
  ) {
    this.text = new KernelText(machine, support);
    machine.onModuleEvent((e) => {
      if (e.kind !== 'unload') return;
      const { start, end } = moduleExtent(e.module);
      for (const tp of tracepointsOf(machine).forget(start, end)) this.byTracepoint.get(tp)?.forEach((p) => (p.tracepoint = undefined));
      for (const p of this.probes) if (p.module === e.module.name) p.unloaded = true;
      this.text.forget(e.module.name);
    });
  }

  private readonly probes = new Set<KinstProbe>();
  private readonly byTracepoint = new Map<Tracepoint, KinstProbe[]>();

  static async create(
    machine: Machine,
    sink: ProbeSink,
    options: { support?: IsaSupport; fbt?: FbtLookup } = {},
  ): Promise<KinstProvider> {
    return new KinstProvider(machine, sink, options.support ?? (await createIsaSupport(machine.isa)), options.fbt);
  }

  readonly definition: ProviderDefinition = {
    name: KINST_PROVIDER_NAME,
    attributes: {
      provider: 'Evolving/Evolving/Common',
      module: 'Private/Private/Unknown',
      function: 'Private/Private/Unknown',
      name: 'Private/Private/ISA',
      args: 'Private/Private/Unknown',
    },
    ops: {
      provide: (registry, desc) => this.provide(registry, desc),
      enable: (_id, arg) => this.enable(arg as KinstProbe),
      disable: (_id, arg) => this.disable(arg as KinstProbe),
      destroy: (_id, arg) => this.disable(arg as KinstProbe),
    },
  };

  /** Instructions of a function that kinst can probe, with the reason for each it cannot. */
  instructions(module: KernelModuleImage, fn: KernelFunction): { insn: KernelInsn; offset: number; refused?: string }[] {
    const excluded = module.name === 'kernel' ? UNTRACEABLE_FUNCTIONS.get(fn.name) : undefined;
    const decoded = this.text.decode(module, fn);
    return decoded.insns.map((insn) => ({ insn, offset: Number(insn.address - fn.address), refused: excluded ?? this.support.unprobeable(insn) }));
  }

  private provide(registry: ProbeRegistry, desc?: ProbeDescriptionPattern): void {
    // As FreeBSD's libdtrace asks kinst for probes only for a description naming it, kinst creates
    // its per-instruction probes only when the provider field is "kinst": `-f func` or `::func:`
    // match fbt and the function-level probes, not one probe per instruction.
    if (!desc || desc.function === '' || desc.provider !== KINST_PROVIDER_NAME) return;
    if (desc.name === 'entry' || desc.name === 'return') return; // inline rewrite: expandInline
    const exactFunction = !/[*?[\\]/.test(desc.function);
    const exactOffset = /^\d+$/.test(desc.name) ? Number(desc.name) : undefined;
    let found = false;
    for (const m of this.machine.kernelModules()) {
      if (!globMatch(desc.module, m.name)) continue;
      for (const fn of uniqueFunctions(m)) {
        if (!globMatch(desc.function, fn.name)) continue;
        const insns = this.instructions(m, fn);
        for (const { insn, offset, refused } of insns) {
          const name = String(offset);
          if (desc.name !== '' && !globMatch(desc.name, name)) continue;
          if (refused) {
            if (exactFunction && exactOffset !== undefined) throw new ProviderError(KINST_PROVIDER_NAME, `cannot probe ${fn.name}+${offset} ("${insn.text}"): ${refused}`);
            continue;
          }
          found = true;
          const known = registry.lookup(KINST_PROVIDER_NAME, m.name, fn.name, name)?.providerArg as KinstProbe | undefined;
          if (known?.unloaded) {
            // The module was loaded again under the same name: same probe, new code.
            known.function = fn;
            known.insn = insn;
            known.unloaded = false;
          }
          if (known) continue;
          const probe: KinstProbe = { module: m.name, function: fn, insn, offset, id: 0 };
          probe.id = registry.createProbe(KINST_PROVIDER_NAME, m.name, fn.name, name, probe);
          this.probes.add(probe);
        }
        if (exactFunction && exactOffset !== undefined && !found) {
          const known = insns.map((i) => i.offset);
          if (exactOffset >= fn.size) throw new ProviderError(KINST_PROVIDER_NAME, `offset ${exactOffset} is beyond ${fn.name} (${fn.size} bytes)`);
          const near = known.filter((o) => Math.abs(o - exactOffset) <= 8).join(', ');
          throw new ProviderError(KINST_PROVIDER_NAME, `offset ${exactOffset} of ${fn.name} is not an instruction boundary (instructions near it start at ${near})`);
        }
      }
    }
  }

  private enable(probe: KinstProbe): void {
    if (probe.unloaded) throw new ProviderError(KINST_PROVIDER_NAME, `module ${probe.module} of ${probe.function.name}:${probe.offset} was unloaded`);
    if (probe.tracepoint) return;
    const patch = this.support.breakpoint(probe.insn);
    const result = this.support.displaced(probe.insn);
    const tp: Tracepoint = {
      address: probe.insn.address,
      patch,
      name: `kinst:${probe.module}:${probe.function.name}:${probe.offset}`,
      order: 2,
      fire: (trap: Trap) => {
        this.sink.probe(probe.id, trap.cpu, NO_ARGS);
        return result;
      },
    };
    tracepointsOf(this.machine).install(tp);
    probe.tracepoint = tp;
    this.byTracepoint.set(tp, [probe]);
  }

  private disable(probe: KinstProbe): void {
    if (!probe.tracepoint) return;
    tracepointsOf(this.machine).remove(probe.tracepoint);
    this.byTracepoint.delete(probe.tracepoint);
    probe.tracepoint = undefined;
  }

  /**
   * `kinst::<name>:entry|return` rewritten into kinst probes at every inlined
   * copy (and the fbt probe of the out-of-line copy when there is one).
   */
  expandInline(name: string, which: 'entry' | 'return'): InlineExpansion {
    const e = expandInlineProbe(
      this.machine.kernelModules(),
      name,
      which,
      (m, fn) =>
        this.instructions(m, fn).map((i) => ({
          address: i.insn.address,
          branchTarget: isCall(i.insn) ? undefined : i.insn.target,
          probeable: !i.refused,
        })),
      (module, fn, w) => (this.fbt ? (w === 'entry' ? this.fbt.hasEntry(module, fn) : this.fbt.hasReturn(module, fn)) : false),
    );
    if (e.descriptions.length === 0) {
      throw new ProviderError(KINST_PROVIDER_NAME, `${name} has no inlined copy and no out-of-line ${which} probe`);
    }
    return e;
  }
}
