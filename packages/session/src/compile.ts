// Compiling D against a target, as libdtrace compiles against the kernel it
// runs on: the probe catalogue the compiler matches descriptions in (with
// each probe's argument types from its provider), the data model, and for a
// guest its kernel's types (DWARF), `curthread`'s type, the D library of its
// probes' translators, kinst's inline-function rewrite and $target.
import { ProbeMatchError, type CompileOptions, type ProbeArgInfo, type ProbeCatalogue } from '@wdtrace/d-lang';
import type { Probe, ProbeDescriptionPattern, ProbeRegistry } from '@wdtrace/dtrace-core';
import type { TypeDictionary } from '@wdtrace/dtrace-core/types';
import { GUEST_D_LIBRARIES, ProviderError } from '@wdtrace/providers';
import type { GuestTarget } from './guest-target.js';
import { dwarfTypeDictionary } from './kernel-types.js';
import type { TracingTarget } from './target.js';

/**
 * A probe's args[] as its provider describes them (dtrace_argdesc_t): the
 * native C type, and for a translated argument the translated type and the
 * native argument it maps from; undefined when the provider types none.
 */
export function probeArgTypes(registry: ProbeRegistry, p: Probe): ProbeArgInfo[] | undefined {
  const ops = registry.provider(p.provider)?.ops;
  if (!ops?.getArgDesc) return undefined;
  const args: ProbeArgInfo[] = [];
  for (let n = 0; ; n++) {
    const d = ops.getArgDesc(p.id, p.providerArg, n);
    if (!d) break;
    args.push(d);
  }
  return args;
}

/**
 * `kinst::<function>:entry|return` rewritten, from the kernel's DWARF, into
 * kinst probes at every inlined copy of the function (and fbt's probe of its
 * out-of-line copy); undefined for every other description.
 */
export function expandInlineDescription(guest: GuestTarget, text: string): string[] | undefined {
  const fields = text.split(':');
  if (fields.length !== 4) return undefined;
  const [provider, module, fn, name] = fields as [string, string, string, string];
  if (provider !== 'kinst' || (name !== 'entry' && name !== 'return') || fn === '' || /[*?[\]]/.test(fn + module)) return undefined;
  try {
    return [...guest.providers.kinst.expandInline(fn, name).descriptions];
  } catch {
    return undefined; // neither inlined nor out of line: the description then matches nothing
  }
}

/** The registry's probes for a description; a provider's refusal that has a D diagnostic becomes the compiler's. */
function matchProbes(registry: ProbeRegistry, d: ProbeDescriptionPattern): Probe[] {
  try {
    return registry.match(d);
  } catch (e) {
    if (e instanceof ProviderError && e.diagnostic) throw new ProbeMatchError(e.diagnostic.tag, e.diagnostic.args);
    throw e;
  }
}

/** What the compiler sees of a target; the guest's kernel types are built once, when first asked for. */
export class TargetCompiler {
  private types: TypeDictionary | undefined;

  constructor(
    private readonly target: TracingTarget,
    private readonly guest: GuestTarget | undefined,
    /** $target: the -c command's pid or the grabbed process's, when there is one. */
    private readonly targetPid: () => number | undefined,
  ) {}

  /** The probe catalogue: the registry's probes (typed on a guest), and on a guest kinst's inline rewrite. */
  catalogue(): ProbeCatalogue {
    const registry = this.target.registry;
    const guest = this.guest;
    const typed = guest !== undefined;
    return {
      match: (d) =>
        matchProbes(registry, d).map((p) => {
          const probe = { id: p.id, provider: p.provider, module: p.module, function: p.function, name: p.name };
          return typed ? { ...probe, args: probeArgTypes(registry, p) } : probe;
        }),
      ...(guest ? { expand: (text: string) => expandInlineDescription(guest, text) } : {}),
    };
  }

  /** The guest kernel's types (typed args[], casts to kernel structures, `kernel globals). */
  kernelTypes(): TypeDictionary | undefined {
    if (!this.guest) return undefined;
    this.types ??= dwarfTypeDictionary(this.guest.view.dwarf);
    return this.types;
  }

  /** `options` completed with what the target decides (its own settings win). */
  options(options: CompileOptions = {}): CompileOptions {
    const guest = this.guest;
    return {
      ...options,
      dataModel: this.target.dataModel,
      probes: this.catalogue(),
      ...(this.targetPid() !== undefined ? { macroVariables: { ...options.macroVariables, target: this.targetPid()! } } : {}),
      ...(guest ? { types: [...(options.types ?? []), this.kernelTypes()!], threadType: 'struct task_struct *', libraries: [...GUEST_D_LIBRARIES, { name: 'regs.d', text: guest.support.regsLibrary }, ...this.usdtLibraries(guest), ...(options.libraries ?? [])] } : {}),
    };
  }

  /** The target process's USDT provider definitions (their types and translators), as libraries. */
  private usdtLibraries(guest: GuestTarget): { name: string; text: string }[] {
    const pid = this.targetPid();
    return pid === undefined ? [] : guest.providers.pid.usdtLibraries(pid);
  }
}
