// Pass: assembly, after libdtrace's dt_as.c. Each DIFO was assembled by
// src/assembler.ts as soon as the code generator completed it (labels to
// instruction offsets, integer, string and variable tables); a table
// overflow met there is reported here. The ECBs get their record layout
// (each record at its alignment after the record header) and the program
// its aggregation and option descriptions.
import {
  type ActionDescription,
  type AggregationDescription,
  type CompiledProgram,
  DTRACE_RECHDR_SIZE,
  type EcbDescription,
  PROGRAM_FORMAT_VERSION,
  type RecordDescription,
  TypeTableBuilder,
  lquantizeParams,
  llquantizeParams,
} from '@wdtrace/dtrace-core/program';
import { BUILTIN_FUNCTIONS } from '../builtins.js';
import { fail } from '../diagnostics.js';
import { dtypeName } from '../semantics.js';
import { difTypeOf } from '../diftype.js';
import type { Pass } from './pass.js';

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
  writes: 'program (the compiled program)',
  run(ctx) {
    if (ctx.difOverflow !== undefined) fail('D_UNKNOWN', undefined, `${ctx.difOverflow} table overflow`);
    const ir = ctx.ir!;
    // The D types of recorded values, for the consumer (RecordDescription.type).
    const types = new TypeTableBuilder();
    const ecbs: EcbDescription[] = ir.ecbs.map((e) => {
      let offset = DTRACE_RECHDR_SIZE;
      let alignment = 4;
      const predicate = e.predicate;
      // The code generator's actions become the program's: each record gets its offset (in place:
      // the IR action has the action description's fields, in the same order).
      const actions = e.actions as unknown as ActionDescription[];
      for (let i = 0; i < e.actions.length; i++) {
        const a = e.actions[i]!;
        if (a.record === undefined) continue;
        const al = Math.max(1, a.record.alignment);
        offset = Math.ceil(offset / al) * al;
        const t = a.record.type;
        const record: RecordDescription =
          t !== undefined
            ? { action: a.kind, size: a.record.size, offset, alignment: al, format: a.record.format, arg: a.arg, uarg: a.uarg, type: types.add(t) }
            : { action: a.kind, size: a.record.size, offset, alignment: al, format: a.record.format, arg: a.arg, uarg: a.uarg };
        (a as { record?: unknown }).record = record;
        offset += record.size;
        alignment = Math.max(alignment, al);
      }
      const size = Math.ceil(offset / alignment) * alignment;
      const ecb: EcbDescription =
        predicate !== undefined
          ? { clause: e.clause, probes: e.probes, predicate, actions, size, alignment, headerSize: DTRACE_RECHDR_SIZE, destructive: e.destructive, speculative: e.speculative }
          : { clause: e.clause, probes: e.probes, actions, size, alignment, headerSize: DTRACE_RECHDR_SIZE, destructive: e.destructive, speculative: e.speculative };
      return e.referenceAttributes !== undefined ? { ...ecb, referenceAttributes: e.referenceAttributes } : ecb;
    });
    // The packed parameters of each aggregation, from its first aggregating action.
    const argById = new Map<bigint, bigint>();
    for (const e of ecbs) {
      for (let i = 0; i < e.actions.length; i++) {
        const x = e.actions[i]!;
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
      types: types.types,
    };
    ctx.program = program;
    ctx.difArrays.release();
  },
};
