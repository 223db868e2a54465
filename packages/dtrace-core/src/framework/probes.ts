// The probe registry, after illumos dtrace.c's probe hash and
// dtrace_match(): providers register with an ops table (the same slots as
// dtrace_pops_t), create probes named provider:module:function:name, and
// probe descriptions match them with gmatch(3GEN) globbing per field (an
// empty field matches everything).

/** Stability attributes (name, data, class) of a provider's interfaces. */
export interface StabilityAttributes {
  readonly provider: string;
  readonly module: string;
  readonly function: string;
  readonly name: string;
  readonly args: string;
}

/** dtrace_pops_t: what the framework calls on a provider. */
export interface ProviderOps {
  /** Create probes matching `desc` (or all when undefined) that do not exist yet. */
  provide(registry: ProbeRegistry, desc?: ProbeDescriptionPattern): void;
  enable(probeId: number, providerArg: unknown): void;
  disable(probeId: number, providerArg: unknown): void;
  /** Value of args[n] beyond the five passed to probe() (optional). */
  getArgVal?(probeId: number, providerArg: unknown, argno: number): bigint;
  /**
   * dtrace_argdesc_t of args[argno] (optional): its native type, and for a
   * translated argument the translated type and which native argument it
   * is translated from (`mapping`, default argno).
   */
  getArgDesc?(probeId: number, providerArg: unknown, argno: number): { native: string; translated?: string; mapping?: number } | undefined;
  destroy?(probeId: number, providerArg: unknown): void;
}

export interface ProviderDefinition {
  readonly name: string;
  readonly attributes: StabilityAttributes;
  readonly ops: ProviderOps;
}

export interface Probe {
  readonly id: number;
  readonly provider: string;
  readonly module: string;
  readonly function: string;
  readonly name: string;
  /** Provider-private value handed back in ops calls. */
  readonly providerArg: unknown;
  /** Number of ECBs enabled on it. */
  enabledCount: number;
}

export interface ProbeDescriptionPattern {
  readonly provider: string;
  readonly module: string;
  readonly function: string;
  readonly name: string;
}

/**
 * gmatch(3GEN): `*`, `?`, `[...]` (with `!` negation and ranges) and `\`
 * escapes; an empty pattern matches everything (dtrace_match_glob semantics).
 */
export function globMatch(pattern: string, s: string): boolean {
  if (pattern === '') return true;
  const m = (pi: number, si: number): boolean => {
    while (pi < pattern.length) {
      const c = pattern[pi]!;
      if (c === '*') {
        while (pattern[pi] === '*') pi++;
        if (pi === pattern.length) return true;
        for (let k = si; k <= s.length; k++) if (m(pi, k)) return true;
        return false;
      }
      if (si >= s.length) return false;
      if (c === '?') {
        pi++;
        si++;
        continue;
      }
      if (c === '[') {
        let j = pi + 1;
        const negate = pattern[j] === '!';
        if (negate) j++;
        let matched = false;
        let first = true;
        while (j < pattern.length && (pattern[j] !== ']' || first)) {
          first = false;
          const lo = pattern[j]!;
          if (pattern[j + 1] === '-' && pattern[j + 2] !== undefined && pattern[j + 2] !== ']') {
            if (s[si]! >= lo && s[si]! <= pattern[j + 2]!) matched = true;
            j += 3;
          } else {
            if (s[si] === lo) matched = true;
            j++;
          }
        }
        if (j >= pattern.length) return false; // unterminated class: no match, as gmatch
        if (matched === negate) return false;
        pi = j + 1;
        si++;
        continue;
      }
      if (c === '\\' && pi + 1 < pattern.length) {
        if (pattern[pi + 1] !== s[si]) return false;
        pi += 2;
        si++;
        continue;
      }
      if (c !== s[si]) return false;
      pi++;
      si++;
    }
    return si === s.length;
  };
  return m(0, 0);
}

/**
 * Parses "provider:module:function:name" as dtrace does: fewer fields fill
 * from the right ("BEGIN" is :::BEGIN, "syscall::read:entry" is complete).
 */
export function parseProbeDescription(text: string): ProbeDescriptionPattern {
  const parts = text.split(':');
  if (parts.length > 4) throw new Error(`invalid probe description "${text}": too many fields`);
  while (parts.length < 4) parts.unshift('');
  return { provider: parts[0]!, module: parts[1]!, function: parts[2]!, name: parts[3]! };
}

export function probeDescriptionString(p: ProbeDescriptionPattern): string {
  return `${p.provider}:${p.module}:${p.function}:${p.name}`;
}

export class ProbeRegistry {
  private readonly providers = new Map<string, ProviderDefinition>();
  private readonly probes: Probe[] = [];
  private readonly byName = new Map<string, Probe>();
  /**
   * Asked before each match, where libdtrace calls dt_pid_create_probes:
   * may register providers that come to exist on demand (pid<N>) and
   * rewrite the description (the module `a.out`); the target sets it.
   */
  prepareDescription: ((desc: ProbeDescriptionPattern) => ProbeDescriptionPattern) | undefined;

  registerProvider(def: ProviderDefinition): void {
    if (this.providers.has(def.name)) throw new Error(`provider ${def.name} is already registered`);
    this.providers.set(def.name, def);
    def.ops.provide(this);
  }

  provider(name: string): ProviderDefinition | undefined {
    return this.providers.get(name);
  }

  providerNames(): string[] {
    return [...this.providers.keys()];
  }

  /** dtrace_probe_create: ids start at 1 and are never reused. */
  createProbe(provider: string, module: string, func: string, name: string, providerArg: unknown = undefined): number {
    const key = `${provider}:${module}:${func}:${name}`;
    const known = this.byName.get(key);
    if (known) return known.id;
    const probe: Probe = { id: this.probes.length + 1, provider, module, function: func, name, providerArg, enabledCount: 0 };
    this.probes.push(probe);
    this.byName.set(key, probe);
    return probe.id;
  }

  lookup(provider: string, module: string, func: string, name: string): Probe | undefined {
    return this.byName.get(`${provider}:${module}:${func}:${name}`);
  }

  probe(id: number): Probe | undefined {
    return this.probes[id - 1];
  }

  /** All probes matching `desc`, in id order; providers are asked to provide first (dtrace_probe_provide). */
  match(description: ProbeDescriptionPattern): Probe[] {
    const desc = this.prepareDescription ? this.prepareDescription(description) : description;
    for (const def of this.providers.values()) {
      if (globMatch(desc.provider, def.name)) def.ops.provide(this, desc);
    }
    return this.probes.filter(
      (p) => globMatch(desc.provider, p.provider) && globMatch(desc.module, p.module) && globMatch(desc.function, p.function) && globMatch(desc.name, p.name),
    );
  }

  all(): readonly Probe[] {
    return this.probes;
  }
}
