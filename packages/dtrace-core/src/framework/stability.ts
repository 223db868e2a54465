// Stability attributes of a compiled program, after libdtrace's
// dtrace_program_info: the minimum probe description attributes and the
// minimum statement attributes over every statement, which dtrace -v
// reports. A statement's description attributes are its probe
// description's (dt_probe_info); its statement attributes are the least of
// what the clause's predicate and actions reference (dt_node_list_cook
// from Stable/Stable/Common): the built-in variables and functions with
// attributes below that (dt_open.c's table) and the context variables
// probeprov, probemod, probefunc, probename and args[], which take their
// provider's attributes (dt_setcontext). The references are read from the
// clause's DIF; what the DIF does not show — kernel symbols and kernel types
// the clause names (_dtrace_symattr, _dtrace_typattr) — the compiler
// records in the ECB's referenceAttributes, which the statement's
// attributes are lowered to as well.

import { DIF_OP } from '../dif/opcodes.js';
import { DIF_SUBR, DIF_VAR } from '../dif/constants.js';
import type { Difo } from '../dif/difo.js';
import { type Attribute, DEPENDENCY_CLASSES, STABILITY_LEVELS, attributeMin, className, parseAttribute, stabilityName } from '../program/attributes.js';
import type { CompiledProgram, ProbeDescription } from '../program/program.js';
import type { Probe, ProbeRegistry, StabilityAttributes } from './probes.js';

const attr = (name: string, data: string, klass: string): Attribute => ({
  name: STABILITY_LEVELS.indexOf(name as never),
  data: STABILITY_LEVELS.indexOf(data as never),
  class: DEPENDENCY_CLASSES.indexOf(klass as never),
});

/** _dtrace_maxattr, _dtrace_defattr and the attributes of _dtrace_prvdesc (an unknown or glob provider). */
export const MAX_ATTRIBUTE = attr('Standard', 'Standard', 'Common');
export const DEFAULT_ATTRIBUTE = attr('Stable', 'Stable', 'Common');
const UNSTABLE = attr('Unstable', 'Unstable', 'Common');
const EVOLVING = attr('Evolving', 'Evolving', 'Common');

/** Built-in variables below Stable/Stable/Common (the others cannot lower a statement's attributes). */
const VARIABLE_ATTRIBUTES = new Map<number, Attribute>([[DIF_VAR.CURTHREAD, attr('Stable', 'Private', 'Common')]]);
/** Subroutines declared Evolving/Evolving/Common (DT_ATTR_EVOLCMN); the rest are Stable. */
const EVOLVING_SUBROUTINES = new Set<number>([
  DIF_SUBR.MUTEX_OWNED, DIF_SUBR.MUTEX_OWNER, DIF_SUBR.MUTEX_TYPE_ADAPTIVE, DIF_SUBR.MUTEX_TYPE_SPIN,
  DIF_SUBR.RW_READ_HELD, DIF_SUBR.RW_WRITE_HELD, DIF_SUBR.RW_ISWRITER,
  DIF_SUBR.GETMAJOR, DIF_SUBR.GETMINOR, DIF_SUBR.DDI_PATHNAME,
  DIF_SUBR.HTONS, DIF_SUBR.HTONL, DIF_SUBR.HTONLL, DIF_SUBR.NTOHS, DIF_SUBR.NTOHL, DIF_SUBR.NTOHLL,
]);

export interface ProviderPattr {
  readonly provider: Attribute;
  readonly module: Attribute;
  readonly function: Attribute;
  readonly name: Attribute;
  readonly args: Attribute;
}

const PRVDESC: ProviderPattr = { provider: UNSTABLE, module: UNSTABLE, function: UNSTABLE, name: UNSTABLE, args: UNSTABLE };

function pattr(a: StabilityAttributes): ProviderPattr {
  return { provider: parseAttribute(a.provider), module: parseAttribute(a.module), function: parseAttribute(a.function), name: parseAttribute(a.name), args: parseAttribute(a.args) };
}

/** An empty field, or one strisglob calls a pattern (it has '*', '?', '[' or '\\'). */
const isGlob = (field: string): boolean => field === '' || /[*?[\\]/.test(field);

/**
 * dt_probe_info and dt_setcontext for one probe description: its
 * description attributes, and the provider attributes its context
 * variables take (both Unstable when no representative probe is found —
 * none matches, or several do where the provider does not promise them
 * identical: arguments less than Evolving data stability, or an Evolving
 * or better name field left empty or globbed).
 */
function describe(registry: ProbeRegistry, desc: ProbeDescription): { descattr: Attribute; context: ProviderPattr } {
  const info = probeDescriptionInfo(registry, desc);
  return info ? { descattr: info.attr, context: info.context } : { descattr: PRVDESC.provider, context: PRVDESC };
}

/** dtrace_probeinfo_t of a probe description that has a representative probe. */
export interface ProbeDescriptionInfo {
  /** dtp_attr: the description's attributes. */
  readonly attr: Attribute;
  /** dtp_arga: the arguments' attributes. */
  readonly arga: Attribute;
  /** The representative probe (its argument types are the description's). */
  readonly probe: Probe;
  /** The attributes of the representative probe's provider (what the context variables take). */
  readonly context: ProviderPattr;
}

/**
 * dt_probe_info: the attributes of a probe description and its
 * representative probe, the first it matches; undefined when it matches
 * none, or several that its provider does not promise to be alike.
 */
export function probeDescriptionInfo(registry: ProbeRegistry, desc: ProbeDescription): ProbeDescriptionInfo | undefined {
  const matches = registry.match(desc);
  const first = matches[0];
  const def = first ? registry.provider(first.provider) : undefined;
  if (!first || !def) return undefined;
  const own = pattr(def.attributes);
  if (matches.length > 1) {
    const evolving = STABILITY_LEVELS.indexOf('Evolving');
    if (own.args.data < evolving || (own.module.name >= evolving && isGlob(desc.module)) || (own.function.name >= evolving && isGlob(desc.function)) || (own.name.name >= evolving && isGlob(desc.name))) {
      return undefined;
    }
  }
  const pap = isGlob(desc.provider) ? PRVDESC : own;
  let attr = pap.provider;
  if (!isGlob(desc.module)) attr = attributeMin(attr, pap.module);
  if (!isGlob(desc.function)) attr = attributeMin(attr, pap.function);
  if (!isGlob(desc.name)) attr = attributeMin(attr, pap.name);
  return { attr, arga: pap.args, probe: first, context: own };
}

/** The least attribute of what a DIFO references: built-in variables and subroutine calls. */
function difoAttribute(difo: Difo | undefined, context: ProviderPattr, into: Attribute): Attribute {
  if (!difo) return into;
  let a = into;
  for (const instr of difo.buf) {
    const op = instr >>> 24;
    const index = (instr >>> 8) & 0xffff;
    if (op === DIF_OP.LDGS || op === DIF_OP.LDGA) {
      switch (index) {
        case DIF_VAR.PROBEPROV: a = attributeMin(a, context.provider); break;
        case DIF_VAR.PROBEMOD: a = attributeMin(a, context.module); break;
        case DIF_VAR.PROBEFUNC: a = attributeMin(a, context.function); break;
        case DIF_VAR.PROBENAME: a = attributeMin(a, context.name); break;
        case DIF_VAR.ARGS: if (op === DIF_OP.LDGA) a = attributeMin(a, context.args); break;
        default: {
          const v = VARIABLE_ATTRIBUTES.get(index);
          if (v) a = attributeMin(a, v);
        }
      }
    } else if (op === DIF_OP.CALL && EVOLVING_SUBROUTINES.has(index)) {
      a = attributeMin(a, EVOLVING);
    }
  }
  return a;
}

/** dtrace_proginfo_t's attributes: the minimum probe description and statement attributes of a program. */
export interface ProgramAttributes {
  readonly descattr: Attribute;
  readonly stmtattr: Attribute;
}

/** dtrace_program_info's attributes of `program`, its descriptions looked up in `registry`. */
export function programAttributes(program: CompiledProgram, registry: ProbeRegistry): ProgramAttributes {
  if (program.ecbs.length === 0) return { descattr: DEFAULT_ATTRIBUTE, stmtattr: DEFAULT_ATTRIBUTE };
  let descattr = MAX_ATTRIBUTE;
  let stmtattr = MAX_ATTRIBUTE;
  for (const ecb of program.ecbs) {
    for (const desc of ecb.probes) {
      const d = describe(registry, desc);
      descattr = attributeMin(descattr, d.descattr);
      let s = difoAttribute(ecb.predicate, d.context, ecb.referenceAttributes !== undefined ? attributeMin(DEFAULT_ATTRIBUTE, parseAttribute(ecb.referenceAttributes)) : DEFAULT_ATTRIBUTE);
      for (const act of ecb.actions) s = difoAttribute(act.difo, d.context, s);
      stmtattr = attributeMin(stmtattr, s);
    }
  }
  return { descattr, stmtattr };
}

/** The three lines of an attribute in dtrace(1)'s reports. */
export function formatAttributeLines(x: Attribute): string {
  return `\t\tIdentifier Names: ${stabilityName(x.name)}\n\t\tData Semantics:   ${stabilityName(x.data)}\n\t\tDependency Class: ${className(x.class)}\n`;
}

/** dtrace(1)'s -v report for one program ("Stability attributes for description BEGIN:" ...). */
export function formatStabilityReport(desc: string, name: string, a: ProgramAttributes): string {
  return `\nStability attributes for ${desc} ${name}:\n\n\tMinimum Probe Description Attributes\n${formatAttributeLines(a.descattr)}\n\tMinimum Statement Attributes\n${formatAttributeLines(a.stmtattr)}`;
}
