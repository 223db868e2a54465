// The profile provider, after illumos profile.c: profile-N fires on every
// CPU at a fixed rate, tick-N on one CPU, both on the machine's virtual
// clock. N takes the suffixes ns/nsec, us/usec, ms/msec, s/sec, m/min,
// h/hour, d/day or hz (a bare number is hertz); intervals below 200us are
// refused, as profile_interval_min. arg0 is the kernel pc and arg1 the user
// pc of the interrupted CPU — 0 on a machine with no guest running.
import type { DTraceState, ProbeDescriptionPattern, ProbeRegistry, ProviderDefinition } from '@wdtrace/dtrace-core';

export const PROFILE_PROVIDER_NAME = 'profile';

/** Smallest interval a profile probe may have (profile_interval_min). */
export const PROFILE_INTERVAL_MIN = 200_000n;

const SUFFIXES: Record<string, bigint> = {
  ns: 1n, nsec: 1n, us: 1_000n, usec: 1_000n, ms: 1_000_000n, msec: 1_000_000n,
  s: 1_000_000_000n, sec: 1_000_000_000n, m: 60_000_000_000n, min: 60_000_000_000n,
  h: 3_600_000_000_000n, hour: 3_600_000_000_000n, d: 86_400_000_000_000n, day: 86_400_000_000_000n,
  hz: 0n, '': 0n,
};

/** Rates created without asking (profile_rates / profile_ticks). */
const DEFAULT_PROFILES = [97, 199, 499, 997, 1999, 4001, 4999];
const DEFAULT_TICKS = [1, 10, 100, 500, 1000, 5000];

export interface ProfileTimer {
  readonly kind: 'profile' | 'tick';
  /** Nanoseconds between firings. */
  readonly interval: bigint;
}

/** Parses a probe name "profile-97", "tick-1s", "profile-10ms"; undefined when it is not one. */
export function parseProfileName(name: string): ProfileTimer | undefined {
  const m = /^(profile|tick)-(\d+)([a-z]*)$/.exec(name);
  if (!m) return undefined;
  const mult = SUFFIXES[m[3]!];
  if (mult === undefined) return undefined;
  const n = BigInt(m[2]!);
  if (n === 0n) return undefined;
  const interval = mult === 0n ? 1_000_000_000n / n : n * mult;
  if (interval < PROFILE_INTERVAL_MIN) return undefined;
  return { kind: m[1] as 'profile' | 'tick', interval };
}

interface ArmedTimer {
  readonly probeId: number;
  readonly timer: ProfileTimer;
  next: bigint;
}

/** The profile provider with its timers; `fireDue` drives it from the virtual clock. */
export class ProfileProvider {
  private readonly armed = new Map<number, ArmedTimer>();
  private registry: ProbeRegistry | undefined;

  /**
   * `pcs(cpu)` gives arg0 and arg1 of a firing on `cpu`: the kernel pc (0 in
   * user mode) and the user pc (0 in the kernel); without it both are 0, as on
   * a machine with no guest.
   */
  constructor(
    private readonly now: () => bigint,
    private readonly pcs: (cpu: number) => [bigint, bigint] = () => [0n, 0n],
  ) {}

  readonly definition: ProviderDefinition = {
    name: PROFILE_PROVIDER_NAME,
    attributes: {
      provider: 'Evolving/Evolving/Common',
      module: 'Unstable/Unstable/Unknown',
      function: 'Private/Private/Unknown',
      name: 'Evolving/Evolving/Common',
      args: 'Evolving/Evolving/Common',
    },
    ops: {
      provide: (registry: ProbeRegistry, desc?: ProbeDescriptionPattern) => {
        this.registry = registry;
        if (!desc) {
          for (const r of DEFAULT_PROFILES) registry.createProbe(PROFILE_PROVIDER_NAME, '', '', `profile-${r}`, parseProfileName(`profile-${r}`));
          for (const t of DEFAULT_TICKS) registry.createProbe(PROFILE_PROVIDER_NAME, '', '', `tick-${t}`, parseProfileName(`tick-${t}`));
          return;
        }
        // Only an exact name creates a new probe; globs match what exists.
        if (/[*?[\\]/.test(desc.name) || (desc.module !== '' && desc.module !== '*') || (desc.function !== '' && desc.function !== '*')) return;
        const timer = parseProfileName(desc.name);
        if (timer) registry.createProbe(PROFILE_PROVIDER_NAME, '', '', desc.name, timer);
      },
      enable: (probeId: number, arg: unknown) => {
        const timer = arg as ProfileTimer;
        this.armed.set(probeId, { probeId, timer, next: this.now() + timer.interval });
      },
      disable: (probeId: number) => {
        this.armed.delete(probeId);
      },
      // No getArgDesc: like illumos profile, arg0/arg1 are untyped (listings say "None").
    },
  };

  /** Virtual time of the next firing of any enabled timer. */
  nextDue(): bigint | undefined {
    let t: bigint | undefined;
    for (const a of this.armed.values()) if (t === undefined || a.next < t) t = a.next;
    return t;
  }

  /** Fires every timer due at or before `now`, in time order (profile on all CPUs, tick on CPU 0). */
  fireDue(state: DTraceState, now: bigint): void {
    for (;;) {
      let due: ArmedTimer | undefined;
      for (const a of this.armed.values()) if (a.next <= now && (due === undefined || a.next < due.next || (a.next === due.next && a.probeId < due.probeId))) due = a;
      if (!due) return;
      due.next += due.timer.interval;
      if (due.timer.kind === 'profile') {
        for (let cpu = 0; cpu < state.machine.ncpus; cpu++) state.probe(due.probeId, cpu, this.pcs(cpu));
      } else {
        state.probe(due.probeId, 0, this.pcs(0));
      }
      if (!this.registry) return;
    }
  }
}
