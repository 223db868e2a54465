// Stability attributes (dtrace_attribute_t): name stability, data
// stability and dependency class, as dtrace(1) reports them and provider
// definitions write them ("Evolving/Evolving/ISA"). The compiled program
// carries the attributes of what a clause names that its DIF does not show
// (EcbDescription.referenceAttributes) in that written form.

/** dtrace_stability_name's levels, lowest first. */
export const STABILITY_LEVELS = ['Internal', 'Private', 'Obsolete', 'External', 'Unstable', 'Evolving', 'Stable', 'Standard'] as const;
/** dtrace_class_name's classes, lowest first. */
export const DEPENDENCY_CLASSES = ['Unknown', 'CPU', 'Platform', 'Group', 'ISA', 'Common'] as const;

/** dtrace_attribute_t: name stability, data stability, dependency class (indexes into the tables above). */
export interface Attribute {
  readonly name: number;
  readonly data: number;
  readonly class: number;
}

/** An attribute as written ("Evolving/Evolving/ISA"); missing or unknown parts are the lowest. */
export function parseAttribute(text: string): Attribute {
  const [n, d, c] = text.split('/');
  return {
    name: Math.max(0, STABILITY_LEVELS.indexOf((n ?? '') as never)),
    data: Math.max(0, STABILITY_LEVELS.indexOf((d ?? '') as never)),
    class: Math.max(0, DEPENDENCY_CLASSES.indexOf((c ?? '') as never)),
  };
}

/** dt_attr_min. */
export function attributeMin(a: Attribute, b: Attribute): Attribute {
  return { name: Math.min(a.name, b.name), data: Math.min(a.data, b.data), class: Math.min(a.class, b.class) };
}

export function stabilityName(level: number): string {
  return STABILITY_LEVELS[level] ?? 'Unknown';
}
export function className(klass: number): string {
  return DEPENDENCY_CLASSES[klass] ?? 'Unknown';
}

/** An attribute in its written form, as parseAttribute reads it. */
export function attributeText(a: Attribute): string {
  return `${stabilityName(a.name)}/${stabilityName(a.data)}/${className(a.class)}`;
}

/** _dtrace_symattr: the attributes of a reference to a kernel symbol (`sym, module`sym, an extern). */
export const SYMBOL_REFERENCE_ATTRIBUTES = 'Private/Private/Unknown';
/** _dtrace_typattr: the attributes of a type named in a program that is not one of the C or D definitions (a kernel type). */
export const TYPE_REFERENCE_ATTRIBUTES = 'Private/Private/Unknown';
