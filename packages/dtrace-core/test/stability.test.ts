// dtrace_program_info's attributes: description attributes after
// dt_probe_info, statement attributes from what the clauses reference.
import { describe, expect, it } from 'vitest';
import { ProbeRegistry, type StabilityAttributes } from '../src/framework/probes.js';
import { programAttributes, formatStabilityReport } from '../src/framework/stability.js';
import { stabilityName, className, type Attribute } from '../src/program/attributes.js';
import { DTRACEACT } from '../src/program/index.js';
import { DIF_OP, DIF_VAR, difInstrLdv, difInstrRet, difInstrSetx } from '../src/dif/index.js';
import { buildDifo, buildEcb, buildProgram, DIF_INT64 } from '../src/builder.js';

function registry(): ProbeRegistry {
  const r = new ProbeRegistry();
  const add = (name: string, attributes: StabilityAttributes, probes: [string, string, string][]) =>
    r.registerProvider({ name, attributes, ops: { provide: (reg) => probes.forEach(([m, f, n]) => reg.createProbe(name, m, f, n)), enable() {}, disable() {} } });
  add('fbt', { provider: 'Evolving/Evolving/Common', module: 'Private/Private/Unknown', function: 'Private/Private/ISA', name: 'Evolving/Evolving/Common', args: 'Private/Private/ISA' }, [['kernel', 'a', 'entry'], ['kernel', 'b', 'entry']]);
  add('io', { provider: 'Evolving/Evolving/ISA', module: 'Private/Private/Unknown', function: 'Private/Private/Unknown', name: 'Evolving/Evolving/ISA', args: 'Evolving/Evolving/ISA' }, [['', 'x', 'start'], ['', 'y', 'start']]);
  return r;
}

const text = (a: Attribute): string => `${stabilityName(a.name)}/${stabilityName(a.data)}/${className(a.class)}`;
const loadVar = (op: number, id: number) => buildDifo([...(op === DIF_OP.LDGA ? [difInstrSetx(0, 2)] : []), difInstrLdv(op, id, 1), difInstrRet(1)], { inttab: [0n], rtype: DIF_INT64 });
const attrs = (probes: string[], difos = [loadVar(DIF_OP.LDGS, DIF_VAR.TIMESTAMP)]) => {
  const a = programAttributes(buildProgram([buildEcb(0, probes, difos.map((difo) => ({ kind: DTRACEACT.DIFEXPR, difo })))]), registry());
  return [text(a.descattr), text(a.stmtattr)];
};

describe('programAttributes (dtrace_program_info)', () => {
  it('takes the provider field and each named field of a description matching one probe', () => {
    expect(attrs(['fbt:kernel:a:entry'])).toEqual(['Private/Private/Unknown', 'Stable/Stable/Common']);
    // Evolving provider and name, Private/Private/ISA function.
    expect(attrs(['fbt::a:entry'])).toEqual(['Private/Private/ISA', 'Stable/Stable/Common']);
    expect(attrs(['fbt:::entry'.replace(':::', ':kernel::')])).toEqual(['Unstable/Unstable/Common', 'Stable/Stable/Common']);
  });
  it('uses Unstable attributes for an empty or glob provider, and for several probes the provider does not promise alike', () => {
    expect(attrs([':::start'])).toEqual(['Unstable/Unstable/Common', 'Stable/Stable/Common']);
    // fbt's arguments are Private: two matches give no representative probe, args[] is Unstable too.
    expect(attrs(['fbt:::entry'], [loadVar(DIF_OP.LDGA, DIF_VAR.ARGS)])).toEqual(['Unstable/Unstable/Common', 'Unstable/Unstable/Common']);
    // io promises Evolving arguments, but its Evolving name field is globbed here.
    expect(attrs(['io:::st*'])).toEqual(['Unstable/Unstable/Common', 'Stable/Stable/Common']);
    // With the name given, the function (Private) may be left empty.
    expect(attrs(['io:::start'], [loadVar(DIF_OP.LDGA, DIF_VAR.ARGS), loadVar(DIF_OP.LDGS, DIF_VAR.PROBEFUNC)])).toEqual(['Evolving/Evolving/ISA', 'Private/Private/Unknown']);
  });
  it('lowers statements by curthread, the context variables and the program\'s least clause', () => {
    expect(attrs(['fbt::a:entry'], [loadVar(DIF_OP.LDGS, DIF_VAR.CURTHREAD)])).toEqual(['Private/Private/ISA', 'Stable/Private/Common']);
    expect(attrs(['fbt::a:entry'], [loadVar(DIF_OP.LDGS, DIF_VAR.PROBEMOD)])).toEqual(['Private/Private/ISA', 'Private/Private/Unknown']);
    expect(text(programAttributes(buildProgram([]), registry()).descattr)).toBe('Stable/Stable/Common');
  });
  it('lowers a statement to the attributes of the kernel symbols and types its clause names (referenceAttributes)', () => {
    const ecb = (clause: number, referenceAttributes?: string) => {
      const e = buildEcb(clause, ['fbt::a:entry'], [{ kind: DTRACEACT.DIFEXPR, difo: loadVar(DIF_OP.LDGS, DIF_VAR.TIMESTAMP) }]);
      return referenceAttributes !== undefined ? { ...e, referenceAttributes } : e;
    };
    const stmt = (...ecbs: ReturnType<typeof ecb>[]) => text(programAttributes(buildProgram(ecbs), registry()).stmtattr);
    expect(stmt(ecb(0))).toBe('Stable/Stable/Common');
    expect(stmt(ecb(0, 'Private/Private/Unknown'))).toBe('Private/Private/Unknown');
    expect(stmt(ecb(0), ecb(1, 'Private/Private/Unknown'))).toBe('Private/Private/Unknown');
    // The least of each part with what the DIF references: curthread's Stable/Private/Common.
    const e = buildEcb(0, ['fbt::a:entry'], [{ kind: DTRACEACT.DIFEXPR, difo: loadVar(DIF_OP.LDGS, DIF_VAR.CURTHREAD) }]);
    expect(stmt({ ...e, referenceAttributes: 'Evolving/Evolving/ISA' })).toBe('Evolving/Private/ISA');
    // Never above Stable/Stable/Common.
    expect(stmt(ecb(0, 'Standard/Standard/Common'))).toBe('Stable/Stable/Common');
  });
  it('formats dtrace(1)\'s report', () => {
    const a = programAttributes(buildProgram([buildEcb(0, ['io::x:start'], [])]), registry());
    expect(formatStabilityReport('script', 'x.d', a)).toBe(
      '\nStability attributes for script x.d:\n\n\tMinimum Probe Description Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: Unknown\n' +
        '\n\tMinimum Statement Attributes\n\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n',
    );
  });
});
