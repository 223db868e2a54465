// Builders for small hand-assembled compiled programs: DIFOs for constants,
// built-in and global variables, ECBs with records laid out like
// dtrace_ecb_resize, and the program around them. Tests of the framework,
// the providers and the CLI use them to run real DIF without the compiler;
// the CLI uses them for -n descriptions that have no clause body.
import {
  DIF_OP,
  DifStringTable,
  type Difo,
  type DifType,
  type DifVariable,
  difInstrFmt,
  difInstrRet,
  difInstrSets,
  difInstrSetx,
  difInstrLdv,
  difInstrStv,
  difInstrBranch,
  difTypeInteger,
  difTypeString,
  DIFV_KIND_SCALAR,
  DIFV_SCOPE_GLOBAL,
  DIF_VAR_OTHER_UBASE,
} from './dif/index.js';
import {
  PROGRAM_FORMAT_VERSION,
  DTRACE_RECHDR_SIZE,
  type ActionDescription,
  type AggregationDescription,
  type CompiledProgram,
  type EcbDescription,
  type FormatDescription,
  type ProbeDescription,
} from './program/index.js';
import { parseProbeDescription } from './framework/probes.js';

export const DIF_INT64 = difTypeInteger(8);
export const DIF_STRING256 = difTypeString(256);

export function buildDifo(buf: number[], opts: { inttab?: bigint[]; strings?: string[]; vartab?: DifVariable[]; rtype?: DifType } = {}): Difo {
  const st = new DifStringTable();
  for (const s of opts.strings ?? []) st.insert(s);
  return { buf: Uint32Array.from(buf), inttab: opts.inttab ?? [], strtab: st.toBytes(), vartab: opts.vartab ?? [], rtype: opts.rtype ?? DIF_INT64, xlrefs: [] };
}

/** Constant integer: setx, ret. */
export const difoInt = (v: bigint | number): Difo => buildDifo([difInstrSetx(0, 1), difInstrRet(1)], { inttab: [BigInt(v)] });
/** Constant string: sets, ret. */
export const difoString = (s: string): Difo => buildDifo([difInstrSets(0, 1), difInstrRet(1)], { strings: [s], rtype: DIF_STRING256 });
/** Built-in or user global scalar: ldgs, ret. */
export const difoLoadGlobal = (id: number, rtype: DifType = DIF_INT64): Difo =>
  buildDifo([difInstrLdv(DIF_OP.LDGS, id, 1), difInstrRet(1)], { rtype, vartab: id >= DIF_VAR_OTHER_UBASE ? [globalVar(id, rtype)] : [] });
export function globalVar(id: number, type: DifType = DIF_INT64): DifVariable {
  return { name: 0, id, kind: DIFV_KIND_SCALAR, scope: DIFV_SCOPE_GLOBAL, flags: 0, type };
}
/** g = g + 1 (the value of g++ after increment). */
export const difoIncrementGlobal = (id: number): Difo =>
  buildDifo(
    [difInstrLdv(DIF_OP.LDGS, id, 1), difInstrSetx(0, 2), difInstrFmt(DIF_OP.ADD, 1, 2, 1), difInstrStv(DIF_OP.STGS, id, 1), difInstrRet(1)],
    { inttab: [1n], vartab: [globalVar(id)] },
  );
/** Predicate g == n. */
export const difoGlobalEquals = (id: number, n: bigint): Difo =>
  buildDifo(
    [difInstrLdv(DIF_OP.LDGS, id, 1), difInstrSetx(0, 2), difInstrFmt(DIF_OP.CMP, 1, 2, 0), difInstrBranch(DIF_OP.BNE, 6), difInstrSetx(1, 1), difInstrRet(1), difInstrSetx(2, 1), difInstrRet(1)],
    { inttab: [n, 1n, 0n], vartab: [globalVar(id)] },
  );

export interface ActionSpec {
  kind: number;
  difo?: Difo;
  size?: number;
  format?: number;
  arg?: bigint;
  uarg?: bigint;
  ntuple?: number;
  /** Writes no record (aggregations, tuple keys are recorded in the aggregation). */
  noRecord?: boolean;
}

/** Lays out records like dtrace_ecb_resize: each at its natural alignment after the 12-byte header. */
export function buildEcb(clause: number, probes: string[], actions: ActionSpec[], predicate?: Difo): EcbDescription {
  let off = DTRACE_RECHDR_SIZE;
  const acts: ActionDescription[] = actions.map((a) => {
    const size = a.size ?? (a.difo ? (a.difo.rtype.kind === 1 ? a.difo.rtype.size : a.difo.rtype.size) : 0);
    if (a.noRecord) return { kind: a.kind, difo: a.difo, ntuple: a.ntuple ?? 0, arg: a.arg ?? 0n, uarg: a.uarg ?? 0n };
    const align = size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
    off = Math.ceil(off / align) * align;
    const record = { action: a.kind, size, offset: off, alignment: align, format: a.format ?? -1, arg: a.arg ?? 0n, uarg: a.uarg ?? 0n };
    off += size;
    return { kind: a.kind, difo: a.difo, ntuple: a.ntuple ?? 0, arg: a.arg ?? 0n, uarg: a.uarg ?? 0n, record };
  });
  const size = Math.ceil(off / 8) * 8;
  const descs: ProbeDescription[] = probes.map((p) => ({ ...parseProbeDescription(p), id: 0 }));
  return { clause, probes: descs, predicate, actions: acts, size, alignment: 8, headerSize: DTRACE_RECHDR_SIZE, destructive: false, speculative: false };
}

export function buildProgram(ecbs: EcbDescription[], extra: { aggregations?: AggregationDescription[]; formats?: FormatDescription[]; destructive?: boolean } = {}): CompiledProgram {
  return {
    version: PROGRAM_FORMAT_VERSION,
    dataModel: 'LP64',
    options: [],
    ecbs,
    aggregations: extra.aggregations ?? [],
    formats: extra.formats ?? [],
    translators: [],
    speculations: 0,
    destructive: extra.destructive ?? false,
  };
}
