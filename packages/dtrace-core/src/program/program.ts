// The compiled D program — our DOF. What the compiler hands the framework:
// probe descriptions, ECB descriptions (predicate DIFO, actions with their
// DIFOs and the record layout of the data each firing writes), aggregation
// descriptions, format strings, options and translators. Plain objects:
// they survive structuredClone as they are, and JSON through
// programToJSON/programFromJSON.
//
// Record layout of one ECB firing in a principal buffer, as illumos lays it
// out (dtrace_ecb_resize): a header, then each record at its alignment.
//
//   +-------------+----------------------+-----------+-----------+---
//   | EPID (u32)  | timestamp hi/lo (u32)| record 0  | record 1  | ...
//   +-------------+----------------------+-----------+-----------+---
//   |<------------ headerSize ---------->|<- offset of each record (from
//                                            the start of the firing)

import { type Difo, type DifoJSON, type DifType, difoFromJSON, difoToJSON } from '../dif/difo.js';
import type { TypeDescription } from './type-table.js';

export const PROGRAM_FORMAT_VERSION = 1;

/** Size of the record header (dtrace_rechdr_t: EPID and a 64-bit timestamp as two u32). */
export const DTRACE_RECHDR_SIZE = 12;

/** provider:module:function:name; empty fields match everything, globs allowed. */
export interface ProbeDescription {
  readonly provider: string;
  readonly module: string;
  readonly function: string;
  readonly name: string;
  /** Probe ID when the description names exactly one known probe, else 0. */
  readonly id: number;
}

/** One record written by an action (dtrace_recdesc_t). */
export interface RecordDescription {
  /** DTRACEACT_* / DTRACEAGG_* of the action that writes it. */
  readonly action: number;
  /** Bytes written. */
  readonly size: number;
  /** Offset from the start of the firing (header included). */
  readonly offset: number;
  readonly alignment: number;
  /** Index into CompiledProgram.formats for printf-like records, else -1. */
  readonly format: number;
  /** Action-specific argument (stack depth, tracemem size, aggregation id ...). */
  readonly arg: bigint;
  /** Library argument (DT_ACT_* for LIBACT records, quantize params ...). */
  readonly uarg: bigint;
  /**
   * The D type of the recorded value, as an index into CompiledProgram.types:
   * given for trace() and print() and each printf(), printa(), system() and
   * freopen() argument other than an aggregation.
   */
  readonly type?: number;
}

/** One action of an ECB (dtrace_actdesc_t), with the DIFO computing its value. */
export interface ActionDescription {
  readonly kind: number;
  /** DIF expression whose value the action records or uses; absent for e.g. exit's constant or commit-only. */
  readonly difo?: Difo;
  /** Number of following tuple (key) actions for aggregations and printf arguments. */
  readonly ntuple: number;
  readonly arg: bigint;
  readonly uarg: bigint;
  /** The record this action writes, if it writes one. */
  readonly record?: RecordDescription;
  /** D source text of the action, for diagnostics and -d. */
  readonly source?: string;
}

/** One enabling: a set of probes, an optional predicate and actions (one D clause). */
export interface EcbDescription {
  /** Index of the clause in the program (statement id). */
  readonly clause: number;
  readonly probes: readonly ProbeDescription[];
  readonly predicate?: Difo;
  readonly actions: readonly ActionDescription[];
  /** Total bytes a firing writes (header included), rounded to the firing alignment. */
  readonly size: number;
  readonly alignment: number;
  readonly headerSize: number;
  /** Clause has destructive actions (the framework refuses it without -w). */
  readonly destructive: boolean;
  /** Clause speculates: its records go to the speculation buffer. */
  readonly speculative: boolean;
  /**
   * The least stability attributes, written as parseAttribute reads them
   * ("Private/Private/Unknown"), of what the clause names that its DIF does
   * not show: kernel symbols (`sym, module`sym, externs) and types that are
   * not C or D definitions (kernel types in casts, sizeof, offsetof,
   * xlate). dtrace -v lowers the statement's attributes to them. Absent
   * when the clause names none.
   */
  readonly referenceAttributes?: string;
}

/** One aggregation (@name). Keys and values are described by records relative to the key tuple. */
export interface AggregationDescription {
  readonly id: number;
  /** Name without "@" ("" for the anonymous aggregation "@"). */
  readonly name: string;
  /** DTRACEAGG_* */
  readonly function: number;
  /** Packed parameters (lquantize/llquantize), else 0n. */
  readonly arg: bigint;
  /** Key records (types and sizes) in order. */
  readonly keys: readonly { readonly type: DifType; readonly typeName: string }[];
  /** Size of the aggregated data in bytes (count 8, avg 16, stddev 32, quantize 127*8 ...). */
  readonly dataSize: number;
}

/** A printf/printa/system/freopen format string, parsed by the consumer. */
export interface FormatDescription {
  readonly id: number;
  readonly kind: 'printf' | 'printa' | 'system' | 'freopen' | 'setopt';
  readonly format: string;
}

/** A translator whose members DIF xlate instructions can reference. */
export interface TranslatorDescription {
  readonly id: number;
  readonly inputType: string;
  readonly outputType: string;
  readonly members: readonly { readonly name: string; readonly type: DifType; readonly difo: Difo }[];
}

/** `#pragma D option` and -x settings, by name; value null for boolean options set without a value. */
export interface OptionSetting {
  readonly name: string;
  readonly value: string | null;
}

export interface CompiledProgram {
  readonly version: number;
  readonly dataModel: 'ILP32' | 'LP64';
  readonly options: readonly OptionSetting[];
  readonly ecbs: readonly EcbDescription[];
  readonly aggregations: readonly AggregationDescription[];
  readonly formats: readonly FormatDescription[];
  readonly translators: readonly TranslatorDescription[];
  /** Speculation buffer count needed (nspec hint), 0 when the program does not speculate. */
  readonly speculations: number;
  /** Program uses destructive actions (needs -w). */
  readonly destructive: boolean;
  /** The C types records refer to (RecordDescription.type); read them with TypeTable. */
  readonly types?: readonly TypeDescription[];
}

// ---------------------------------------------------------------------------
// JSON form: bigints as decimal strings, DIFOs through difoToJSON.

type Jsonified<T> = T extends bigint
  ? string
  : T extends Difo
    ? DifoJSON
    : T extends readonly (infer E)[]
      ? Jsonified<E>[]
      : T extends object
        ? { -readonly [K in keyof T]: Jsonified<T[K]> }
        : T;

export type CompiledProgramJSON = Jsonified<CompiledProgram>;

function isDifo(v: unknown): v is Difo {
  return typeof v === 'object' && v !== null && (v as Difo).buf instanceof Uint32Array;
}

function toJSONValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (isDifo(v)) return difoToJSON(v);
  if (Array.isArray(v)) return v.map(toJSONValue);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toJSONValue(x);
    return out;
  }
  return v;
}

export function programToJSON(p: CompiledProgram): CompiledProgramJSON {
  return toJSONValue(p) as CompiledProgramJSON;
}

const BIGINT_FIELDS = new Set(['arg', 'uarg']);
const DIFO_FIELDS = new Set(['difo', 'predicate']);

function fromJSONValue(v: unknown, key: string): unknown {
  if (BIGINT_FIELDS.has(key) && typeof v === 'string') return BigInt(v);
  if (DIFO_FIELDS.has(key) && typeof v === 'object' && v !== null) return difoFromJSON(v as DifoJSON);
  if (Array.isArray(v)) return v.map((x) => fromJSONValue(x, ''));
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = fromJSONValue(x, k);
    return out;
  }
  return v;
}

export function programFromJSON(j: CompiledProgramJSON): CompiledProgram {
  const p = fromJSONValue(j, '') as CompiledProgram;
  if (p.version !== PROGRAM_FORMAT_VERSION) {
    throw new Error(`compiled program format version ${String(p.version)} is not supported (expected ${PROGRAM_FORMAT_VERSION})`);
  }
  return p;
}
