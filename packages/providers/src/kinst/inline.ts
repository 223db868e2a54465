// Inline-function probes for kinst, after FreeBSD's dt_sugar rewrite of
// `kinst::<inline_func>:entry|return`: DWARF DW_TAG_inlined_subroutine
// ranges give every inlined copy; the entry of a copy is its entry pc
// (DW_AT_entry_pc, else its lowest address: a copy split into several
// ranges is entered once), its return the instruction right after each range's end
// (when that still lies in the caller) and, since an early `return` in the
// inlined body compiles to a branch out of the copy, the target of every
// branch from inside the copy to a place of the caller outside it. The expansion names kinst probes as
// `kinst::<caller>:<offset>`, plus `fbt::<func>:entry|return` when the
// function also exists out of line. `formatInlineExpansion` prints the
// rewritten probe list the way `dtrace -d` shows it.
import type { KernelFunction, KernelModuleImage } from '@wdtrace/kernel';

export interface InlineSite {
  readonly module: string;
  /** The out-of-line function the copy was inlined into. */
  readonly caller: string;
  /** Byte offset in the caller. */
  readonly offset: number;
  readonly address: bigint;
}

export interface InlineExpansion {
  readonly function: string;
  readonly which: 'entry' | 'return';
  /** kinst sites, in address order, no duplicates. */
  readonly sites: readonly InlineSite[];
  /** The fbt probe covering the out-of-line copy, when there is one. */
  readonly fbt?: string;
  /** Probe descriptions the clause's description is rewritten to. */
  readonly descriptions: readonly string[];
}

/** The function of `module` containing `address`. */
function containing(module: KernelModuleImage, address: bigint): KernelFunction | undefined {
  return module.functions.find((f) => address >= f.address && address < f.address + BigInt(f.size));
}

/** An instruction of a caller, as the expansion needs it. */
export interface CallerInsn {
  readonly address: bigint;
  /** Target of a relative branch (not of a call). */
  readonly branchTarget?: bigint;
  /** Whether kinst may probe it. */
  readonly probeable: boolean;
}

/**
 * Expands `kinst::<name>:entry|return` over the given modules.
 * `instructions` gives a caller's instructions (so only instruction
 * boundaries are used, and branches out of a copy are found), and `hasFbt`
 * whether fbt has the probe for an out-of-line copy.
 */
export function expandInlineProbe(
  modules: readonly KernelModuleImage[],
  name: string,
  which: 'entry' | 'return',
  instructions: (module: KernelModuleImage, fn: KernelFunction) => readonly CallerInsn[],
  hasFbt: (module: string, fn: string, which: 'entry' | 'return') => boolean,
): InlineExpansion {
  const sites = new Map<bigint, InlineSite>();
  let fbt: string | undefined;
  for (const m of modules) {
    const dwarf = m.dwarf();
    if (!dwarf) continue;
    for (const copy of dwarf.inlinesOf(name)) {
      const inCopy = (a: bigint) => copy.ranges.some((r) => a >= r.start && a < r.end);
      const candidates: bigint[] = [];
      // A copy is entered once, at its entry pc (DW_AT_entry_pc; else its lowest address), however
      // its code is split into ranges; it can be left at the end of any range or by any branch out.
      if (which === 'entry' && copy.ranges.length > 0) {
        const lowest = copy.ranges.reduce((lo, r) => (r.start < lo ? r.start : lo), copy.ranges[0]!.start);
        candidates.push(copy.entryPc !== undefined && inCopy(copy.entryPc) ? copy.entryPc : lowest);
      }
      for (const r of copy.ranges) {
        if (which === 'return') {
          candidates.push(r.end);
          const fn = containing(m, r.start);
          for (const i of fn ? instructions(m, fn) : []) {
            if (i.address >= r.start && i.address < r.end && i.branchTarget !== undefined && !inCopy(i.branchTarget)) candidates.push(i.branchTarget);
          }
        }
      }
      for (const address of candidates) {
        const fn = containing(m, address);
        if (!fn || !instructions(m, fn).some((i) => i.address === address && i.probeable)) continue;
        if (!sites.has(address)) sites.set(address, { module: m.name, caller: fn.name, offset: Number(address - fn.address), address });
      }
    }
    if (!fbt && m.functions.some((f) => f.name === name) && hasFbt(m.name, name, which)) fbt = `fbt:${m.name}:${name}:${which}`;
  }
  const list = [...sites.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const descriptions = list.map((s) => `kinst::${s.caller}:${s.offset}`);
  if (fbt) descriptions.push(fbt.replace(/^fbt:[^:]*:/, 'fbt::'));
  return { function: name, which, sites: list, fbt, descriptions };
}

/** The rewritten probe-description list, one per line, comma separated, as `dtrace -d` prints it. */
export function formatInlineExpansion(e: InlineExpansion): string {
  return e.descriptions.join(',\n');
}
