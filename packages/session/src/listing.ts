// dtrace(1)'s probe listings: -l (one line per probe), -lv (each probe's
// attributes and argument types, print_probe_info) and -ev (each statement's
// description and its representative probe, info_stmt).
import { formatAttributeLines, probeDescriptionInfo, type CompiledProgram, type Probe, type ProbeRegistry } from '@wdtrace/dtrace-core';

const STABILITY = ['Internal', 'Private', 'Obsolete', 'External', 'Unstable', 'Evolving', 'Stable', 'Standard'];
const CLASSES = ['Unknown', 'CPU', 'Platform', 'Group', 'ISA', 'Common'];

/** The least of several "name/data/class" attribute triples (dt_attr_min). */
function minAttributes(triples: string[]): [string, string, string] {
  const parts = triples.map((t) => t.split('/'));
  const least = (i: number, order: string[]): string => parts.map((p) => p[i] ?? order[0]!).reduce((a, b) => (order.indexOf(a) <= order.indexOf(b) ? a : b));
  return [least(0, STABILITY), least(1, STABILITY), least(2, CLASSES)];
}

/** The "Argument Types" block of a probe: each args[n]'s (translated) type, or None. */
function argumentTypes(registry: ProbeRegistry, p: Probe): string {
  let out = '\n\tArgument Types\n';
  let n = 0;
  for (; ; n++) {
    const d = registry.provider(p.provider)?.ops.getArgDesc?.(p.id, p.providerArg, n);
    if (!d) break;
    out += `\t\targs[${n}]: ${d.translated ?? d.native}\n`;
  }
  if (n === 0) out += '\t\tNone\n';
  return out + '\n';
}

/** dtrace(1)'s -lv block (print_probe_info). */
function probeInfo(registry: ProbeRegistry, p: Probe): string {
  const def = registry.provider(p.provider);
  if (!def) return '';
  const a = def.attributes;
  // dt_probe_info: the provider's attributes, lowered by those of each field that is given (neither empty nor a glob).
  const given = (field: string): boolean => field !== '' && !/[*?[\]]/.test(field);
  const [pn, pd, pc] = minAttributes([a.provider, ...(given(p.module) ? [a.module] : []), ...(given(p.function) ? [a.function] : []), ...(given(p.name) ? [a.name] : [])]);
  const [an, ad, ac] = minAttributes([a.args]);
  let out = `\n\tProbe Description Attributes\n\t\tIdentifier Names: ${pn}\n\t\tData Semantics:   ${pd}\n\t\tDependency Class: ${pc}\n`;
  out += `\n\tArgument Attributes\n\t\tIdentifier Names: ${an}\n\t\tData Semantics:   ${ad}\n\t\tDependency Class: ${ac}\n`;
  return out + argumentTypes(registry, p);
}

/** -l: "   ID   PROVIDER            MODULE                          FUNCTION NAME" and one line per probe (each once); -lv adds each probe's attributes and argument types. */
export function formatProbeList(registry: ProbeRegistry, probes: Iterable<Probe>, verbose = false): string {
  const line = (id: string, p: string, m: string, f: string, n: string): string => `${id.padStart(5)} ${p.padStart(10)} ${m.padStart(17)} ${f.padStart(33)} ${n}\n`;
  let text = line('ID', 'PROVIDER', 'MODULE', 'FUNCTION', 'NAME');
  const seen = new Set<number>();
  for (const p of probes) {
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    text += line(String(p.id), p.provider, p.module, p.function, p.name);
    if (verbose) text += probeInfo(registry, p);
  }
  return text;
}

/**
 * dtrace -ev's info_stmt: each statement's probe description, and when it
 * has a representative probe (dtrace_probe_info) that probe's attributes and
 * argument types as -lv prints them.
 */
export function formatStatementInfo(program: CompiledProgram, registry: ProbeRegistry): string {
  let out = '';
  for (const ecb of program.ecbs) {
    for (const d of ecb.probes) {
      out += `\n${d.provider}:${d.module}:${d.function}:${d.name}\n`;
      const info = probeDescriptionInfo(registry, d);
      if (!info) continue;
      out += `\n\tProbe Description Attributes\n${formatAttributeLines(info.attr)}\n\tArgument Attributes\n${formatAttributeLines(info.arga)}`;
      out += argumentTypes(registry, info.probe);
    }
  }
  return out;
}

/** dtrace's "matched N probes": as dtrace_enabling_match counts, every probe description of every clause adds the probes it matches. */
export function matchedProbeCount(program: CompiledProgram, registry: ProbeRegistry): number {
  let matched = 0;
  for (const e of program.ecbs) for (const d of e.probes) matched += registry.match(d).length;
  return matched;
}
