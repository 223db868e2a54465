// Pass: assembly, after libdtrace's dt_as.c. Each IrDifo becomes a DIFO:
// labels resolve to instruction offsets (every label sits on a nop, as in
// dtrace's listings), constants enter the integer table once each, strings
// and variable names the string table, variables the variable table. Then
// the ECBs get their record layout (each record at its alignment after the
// record header) and the program its aggregation and option descriptions.
import {
  DIF_OP,
  DIF_INTOFF_MAX,
  DIF_STROFF_MAX,
  type Difo,
  DifStringTable,
  type DifVariable,
  difInstrBranch,
  difInstrCall,
  difInstrFmt,
  difInstrLda,
  difInstrLdv,
  difInstrSets,
  difInstrSetx,
  difInstrStv,
  DIF_INSTR_NOP,
} from '@wdtrace/dtrace-core/dif';
import {
  type ActionDescription,
  type AggregationDescription,
  type CompiledProgram,
  DTRACE_RECHDR_SIZE,
  type EcbDescription,
  PROGRAM_FORMAT_VERSION,
  type RecordDescription,
  lquantizeParams,
  llquantizeParams,
} from '@wdtrace/dtrace-core/program';
import { BUILTIN_FUNCTIONS } from '../builtins.js';
import { fail } from '../diagnostics.js';
import type { IrDifo } from '../ir.js';
import { dtypeName } from '../semantics.js';
import { difTypeOf } from './codegen.js';
import type { Pass } from './pass.js';

export function assembleDifo(ir: IrDifo): Difo {
  // First pass: instruction offsets of labels (a label emits a nop).
  const labelAt = new Map<number, number>();
  let n = 0;
  for (const i of ir.code) {
    if (i.k === 'label') labelAt.set(i.label, n);
    n++;
  }
  const inttab: bigint[] = [];
  const intIndex = new Map<bigint, number>();
  const strs = new DifStringTable();
  const vars: DifVariable[] = [];
  const varIndex = new Map<string, number>();
  const buf = new Uint32Array(n);
  let pc = 0;
  for (const i of ir.code) {
    switch (i.k) {
      case 'fmt':
        buf[pc] = difInstrFmt(i.op, i.r1, i.r2, i.rd);
        break;
      case 'branch': {
        const target = labelAt.get(i.label);
        if (target === undefined) throw new Error(`DIF assembler: label ${i.label} is not placed`);
        buf[pc] = difInstrBranch(i.op, target);
        break;
      }
      case 'label':
        buf[pc] = DIF_INSTR_NOP;
        break;
      case 'setx': {
        let idx = intIndex.get(i.value);
        if (idx === undefined) {
          idx = inttab.length;
          if (idx > DIF_INTOFF_MAX) fail('D_UNKNOWN', undefined, 'integer table overflow');
          inttab.push(i.value);
          intIndex.set(i.value, idx);
        }
        buf[pc] = difInstrSetx(idx, i.rd);
        break;
      }
      case 'sets': {
        const off = strs.insert(i.value);
        if (off > DIF_STROFF_MAX) fail('D_UNKNOWN', undefined, 'string table overflow');
        buf[pc] = difInstrSets(off, i.rd);
        break;
      }
      case 'var': {
        const v = i.variable;
        const key = `${v.scope}:${v.kind}:${v.id}`;
        const known = varIndex.get(key);
        if (known === undefined) {
          varIndex.set(key, vars.length);
          vars.push({ name: strs.insert(v.name), id: v.id, kind: v.kind, scope: v.scope, flags: v.flags, type: v.type });
        } else {
          vars[known] = { ...vars[known]!, flags: vars[known]!.flags | v.flags };
        }
        if (i.op === DIF_OP.LDGA || i.op === DIF_OP.LDTA) buf[pc] = difInstrLda(i.op, v.id, i.index!, i.reg);
        else if (i.op === DIF_OP.STGS || i.op === DIF_OP.STTS || i.op === DIF_OP.STLS || i.op === DIF_OP.STGAA || i.op === DIF_OP.STTAA) buf[pc] = difInstrStv(i.op, v.id, i.reg);
        else buf[pc] = difInstrLdv(i.op, v.id, i.reg);
        break;
      }
      case 'call':
        buf[pc] = difInstrCall(i.subr, i.rd);
        break;
    }
    pc++;
  }
  return { buf, inttab, strtab: strs.toBytes(), vartab: vars, rtype: ir.rtype, xlrefs: [] };
}

function aggregationDataSize(func: string, arg: bigint): number {
  switch (func) {
    case 'lquantize': {
      const p = lquantizeParams(arg);
      return (p.levels + 2) * 8 + 8;
    }
    case 'llquantize': {
      const p = llquantizeParams(arg);
      return (2 + (p.high - p.low + 1) * (p.nsteps - p.nsteps / p.factor)) * 8 + 8;
    }
    default: {
      const fn = BUILTIN_FUNCTIONS.get(func);
      return fn?.kind === 'aggregating' ? fn.dataSize : 8;
    }
  }
}

export const assemblePass: Pass = {
  name: 'assemble',
  reads: 'ir, aggregations, options',
  writes: 'program (the compiled program), listings',
  run(ctx) {
    const ir = ctx.ir!;
    const ecbs: EcbDescription[] = ir.ecbs.map((e) => {
      let offset = DTRACE_RECHDR_SIZE;
      let alignment = 4;
      const predicate = e.predicate !== undefined ? assembleDifo(e.predicate) : undefined;
      if (predicate !== undefined) ctx.listings.push({ clause: e.clause, what: 'predicate', difo: predicate });
      const actions: ActionDescription[] = e.actions.map((a) => {
        const difo = a.difo !== undefined ? assembleDifo(a.difo) : undefined;
        if (difo !== undefined) ctx.listings.push({ clause: e.clause, what: a.difo!.what, difo });
        let record: RecordDescription | undefined;
        if (a.record !== undefined) {
          const al = Math.max(1, a.record.alignment);
          offset = Math.ceil(offset / al) * al;
          record = { action: a.kind, size: a.record.size, offset, alignment: al, format: a.record.format, arg: a.arg, uarg: a.uarg };
          offset += a.record.size;
          alignment = Math.max(alignment, al);
        }
        return { kind: a.kind, ...(difo !== undefined ? { difo } : {}), ntuple: a.ntuple, arg: a.arg, uarg: a.uarg, ...(record !== undefined ? { record } : {}), ...(a.source !== undefined ? { source: a.source } : {}) };
      });
      const size = Math.ceil(offset / alignment) * alignment;
      return { clause: e.clause, probes: e.probes, ...(predicate !== undefined ? { predicate } : {}), actions, size, alignment, headerSize: DTRACE_RECHDR_SIZE, destructive: e.destructive, speculative: e.speculative };
    });
    // The packed parameters of each aggregation, from its first aggregating action.
    const argById = new Map<bigint, bigint>();
    for (const e of ecbs) {
      for (const x of e.actions) {
        if ((x.kind & 0xff00) === 0x0700 && !argById.has(x.uarg)) argById.set(x.uarg, x.arg);
      }
    }
    const aggregations: AggregationDescription[] = [...ctx.aggregations.values()].map((a) => {
      const fn = BUILTIN_FUNCTIONS.get(a.func);
      const arg = argById.get(BigInt(a.id)) ?? 0n;
      return {
        id: a.id,
        name: a.name,
        function: fn?.kind === 'aggregating' ? fn.agg : 0,
        arg,
        keys: a.keys.map((k) => ({ type: difTypeOf(ctx, k), typeName: dtypeName(k) })),
        dataSize: aggregationDataSize(a.func, arg),
      };
    });
    const options = [...ctx.pragmaOptions.entries()].map(([name, value]) => ({ name, value }));
    const program: CompiledProgram = {
      version: PROGRAM_FORMAT_VERSION,
      dataModel: ctx.env.dataModel,
      options,
      ecbs,
      aggregations,
      formats: ir.formats,
      translators: [],
      speculations: ecbs.some((e) => e.speculative) ? 1 : 0,
      destructive: ecbs.some((e) => e.destructive),
    };
    ctx.program = program;
  },
};
