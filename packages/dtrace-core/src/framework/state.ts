// The DTrace state (dtrace_state_t) of one consumer, after illumos dtrace.c.
//
// Roadmap:
//   DTrace ECB Functions       enabling a compiled program: ECBs per probe,
//                              EPIDs, verifier pass, destructive check
//   DTrace Probe Context       dtrace_probe(): predicate, actions, records,
//                              aggregations, speculations, faults -> ERROR
//   DTrace Buffer Functions    per-CPU principal buffers with switch, fill
//                              and ring policies, drop counting
//   DTrace Dynamic Variables   globals, thread-locals, associative arrays
//                              within dynvarsize, dynamic-variable drops
//   DTrace Control             go (BEGIN), stop (END), buffer snapshots
//
// A firing's data in a principal buffer (one "chunk" per firing):
//
//   +----------+--------------+--------------+----------+----------+---
//   | EPID u32 | timestamp hi | timestamp lo | record 0 | record 1 | ...
//   +----------+--------------+--------------+----------+----------+---
//   0          4              8              rec.offset (from the ECB's record layout)

import type { CompiledProgram, EcbDescription, ActionDescription, AggregationDescription, ProbeDescription } from '../program/program.js';
import { DTRACEACT, DTRACEAGG, dtraceActIsAggregation, dtraceActIsDestructive, DTRACE_QUANTIZE_NBUCKETS, lquantizeParams, llquantizeParams } from '../program/actions.js';
import { DIF_TF_BYREF, DIF_TF_BYUREF, DIF_TYPE_STRING, DIF_VAR } from '../dif/constants.js';
import { DIF_OP } from '../dif/opcodes.js';
import type { MachineInterface } from './machine.js';
import { type ProbeRegistry, type Probe, globMatch } from './probes.js';
import { type DTraceOptions, defaultOptions } from './options.js';
import { Arena } from './arena.js';
import { readBytes, readStringBytes, type ProbeArgumentSource, type VmFiring, type VmVariables } from './firing.js';
import { difRun, loadDifo, type LoadedDifo } from './vm.js';
import { B_BUFFER, B_COUNT, B_NDX, B_STAGE, NEED_TIMESTAMP, RECORD_STAGE_SIZE, allocateCell, blockFills, freeCell, fillFiringBlock, needsIds, setCurrentFiring, sharedBlock, unionNeeds, wasmTranslate, type WasmDifo } from './wasm.js';
import { ERROR_EPID, ERROR_RECORD_SIZE, PrincipalBuffers, type TakenBuffer } from './buffers.js';
import { SpeculationBuffers } from './specbuffers.js';
import { STEPS_PREPARED, STEPS_WHOLE, cellStart, trampoline, trampolineFault, type CellFunction, type TableFunction, type Trampoline, type TrampolineAggregation, type TrampolineCell, type TrampolineEcb, type TrampolineHooks, type TrampolineRecord } from './trampoline.js';
import { verifyDifo } from './verify.js';
import { filterGlobals, filterablePredicate, probeFilter, type FilterAggregation, type FilterEcb, type ProbeFilter, type ProbeFilterFunction } from './filter.js';
import { DifFault, DTRACEFLT } from './faults.js';
import { quantizeBucket, llquantizeBounds, llquantizeBucket, llquantizeBucketCount } from './buckets.js';
import { DynamicVariables, usesDynamicVariables } from './dynvar.js';
import { KeyedTable, absorbCell, type KeyShape, type KeyedFunction, type KeyedOwner } from './aggtable.js';
import { OwnedRegions, allocateRegion, freeRegion } from './wmem.js';

export const DTRACE_EPIDNONE = 0;

/** An enabled probe: one ECB (clause) on one probe. */
export interface EnabledProbe {
  readonly epid: number;
  readonly probe: Probe;
  readonly ecb: EcbDescription;
  readonly predicate?: LoadedDifo;
  readonly actions: readonly (LoadedDifo | undefined)[];
  /** What each action is to the aggregation that follows or precedes it (see actionRoles). */
  readonly roles: readonly ActionRole[];
  /** Aggregating action index -> index of its increment expression. */
  readonly increments: ReadonlyMap<number, number>;
  /** Whether a firing puts a record in the principal buffer (see ecbStoresData). */
  readonly storesData: boolean;
}

export type ActionRole = 'plain' | 'key' | 'increment';

/**
 * The compiler emits an aggregation as its key expressions (DIFEXPR, no
 * record), the aggregating action (ntuple = number of keys), then, for
 * quantize/lquantize/llquantize with an increment, one more DIFEXPR with the
 * same aggregation id in uarg. Keys of a following aggregation also follow,
 * so an expression is the increment only when it is not one of those keys.
 */
export function actionRoles(actions: readonly ActionDescription[]): { roles: ActionRole[]; increments: Map<number, number> } {
  const roles: ActionRole[] = actions.map(() => 'plain');
  const increments = new Map<number, number>();
  actions.forEach((a, i) => {
    if (!dtraceActIsAggregation(a.kind)) return;
    for (let k = i - a.ntuple; k < i; k++) if (k >= 0) roles[k] = 'key';
  });
  actions.forEach((a, i) => {
    if (!dtraceActIsAggregation(a.kind)) return;
    if (a.kind !== DTRACEAGG.QUANTIZE && a.kind !== DTRACEAGG.LQUANTIZE && a.kind !== DTRACEAGG.LLQUANTIZE) return;
    const next = actions[i + 1];
    if (next && next.kind === DTRACEACT.DIFEXPR && !next.record && next.uarg === a.uarg && roles[i + 1] === 'plain') {
      roles[i + 1] = 'increment';
      increments.set(i, i + 1);
    }
  });
  return { roles, increments };
}

/**
 * Whether firings of an ECB put a record in the principal buffer, as
 * dtrace_ecb_resize decides: an ECB without actions records its header (the
 * default action prints the probe line); one whose actions all store no data
 * (aggregations and their keys, expression statements such as assignments,
 * and commit(), discard(), chill() and raise(), whose records illumos sizes
 * at zero in dtrace_ecb_action_add) records nothing, unless its only action
 * is speculate().
 */
const NO_DATA_ACTIONS: ReadonlySet<number> = new Set([DTRACEACT.COMMIT, DTRACEACT.DISCARD, DTRACEACT.CHILL, DTRACEACT.RAISE]);

export function ecbStoresData(actions: readonly ActionDescription[], roles: readonly ActionRole[]): boolean {
  if (actions.length === 0) return true;
  if (actions.length === 1 && actions[0]!.kind === DTRACEACT.SPECULATE) return true;
  // Every action but an aggregation and a plain expression statement (a DIFEXPR
  // with a void result, such as an assignment) records something.
  return actions.some(
    (a, i) =>
      roles[i] === 'plain' &&
      !dtraceActIsAggregation(a.kind) &&
      !NO_DATA_ACTIONS.has(a.kind) &&
      (a.kind !== DTRACEACT.DIFEXPR || (a.record !== undefined && a.record.size > 0)),
  );
}

/** A principal-buffer entry: a firing's bytes, or the library ERROR enabling's data. */
export type BufferEntry =
  | { readonly kind: 'data'; readonly epid: number; readonly bytes: Uint8Array }
  | { readonly kind: 'error'; readonly epid: number; readonly action: number; readonly offset: number; readonly fault: number; readonly address: bigint };

/** One aggregation entry: key tuple values and the aggregated data words. */
export interface AggregationEntry {
  readonly keys: readonly (bigint | Uint8Array)[];
  data: bigint[];
}

/**
 * A speculation's state, after the kernel's DTRACESPEC_* transitions:
 * speculation() makes an inactive one active; the first speculate() makes
 * it active on one CPU, a speculate() on another CPU active on many. A
 * commit() or discard() that cannot finish on its own CPU leaves it
 * committing-many or discarding — busy — until the cleaner
 * (dtrace_speculation_clean, every cleanrate) finishes it on every CPU.
 */
type SpeculationState = 'inactive' | 'active' | 'activeone' | 'activemany' | 'committing' | 'committingmany' | 'discarding';

/**
 * A speculation: its state, and the index of its buffers (dtsp_buffer[cpu],
 * one per CPU) in the state's speculation buffers (specbuffers.ts).
 */
interface Speculation {
  state: SpeculationState;
  readonly buffers: number;
}

export interface DropCounts {
  aggregation: number;
  dynamic: number;
  speculative: number;
  specBusy: number;
  specUnavailable: number;
  doubleError: number;
}

export class LoadError extends Error {}

/**
 * A VmFiring the state reuses for each firing of one ECB, with the index + 1
 * of the action whose DIF runs (0: the predicate), which ERROR reports, and
 * where the key values of an aggregation found by hash are kept meanwhile:
 * integers, and the strings' bytes copied out of the arena as each key is
 * evaluated (a later key or the value may change them there).
 */
type ReusedFiring = { -readonly [K in keyof VmFiring]: VmFiring[K] } & {
  busy: boolean;
  ndx: number;
  readonly keyBytes: Uint8Array;
  readonly keyStarts: number[];
  readonly keyEnds: number[];
  readonly keyIntegers: bigint[];
};

/** dtrace_chill_interval and dtrace_chill_max: at most 500 ms of chill() per CPU in any one second. */
const CHILL_INTERVAL = 1_000_000_000n;
const CHILL_MAX = 500_000_000n;

export type Activity = 'inactive' | 'warmup' | 'active' | 'draining' | 'cooldown' | 'stopped';

/**
 * The activities as bits: a probe fires while the state's activity bit is in
 * its plan's mask (dtrace_probe's checks): BEGIN in warmup, END in cooldown,
 * ERROR whenever tracing runs, every other probe while active.
 */
const ACTIVITY_BIT: Readonly<Record<Activity, number>> = { inactive: 0, warmup: 1, active: 2, draining: 4, cooldown: 8, stopped: 0 };
const FIRES_ORDINARY = 2;
const FIRES_BEGIN = 1 | 2;
const FIRES_END = 2 | 8;
const FIRES_ERROR = 1 | 2 | 4 | 8;

/** The aggregating functions a trampoline updates itself (trampoline.ts). */
const CELL_FUNCTIONS: ReadonlyMap<number, CellFunction> = new Map([
  [DTRACEAGG.COUNT, 'count'], [DTRACEAGG.SUM, 'sum'], [DTRACEAGG.MIN, 'min'], [DTRACEAGG.MAX, 'max'], [DTRACEAGG.AVG, 'avg'],
]);
/** The histograms and stddev(), whose cells a trampoline updates are as long as their data (aggtable.ts). */
const TABLE_FUNCTIONS: ReadonlyMap<number, TableFunction> = new Map([
  [DTRACEAGG.QUANTIZE, 'quantize'], [DTRACEAGG.LQUANTIZE, 'lquantize'], [DTRACEAGG.LLQUANTIZE, 'llquantize'], [DTRACEAGG.STDDEV, 'stddev'],
]);
/** Their names. */
const TABLE_FUNCTION_NAMES: ReadonlySet<string> = new Set(TABLE_FUNCTIONS.values());
/** The most llquantize() buckets a trampoline searches itself (its code holds their bounds, about 23 bytes each, within MODULE_LIMIT). */
const LLQUANTIZE_TRAMPOLINE_BUCKETS = 128;

// ---------------------------------------------------------------------------
// DTrace Probe Context: firing plans.
//
// When an ECB is put on a probe, the state builds what a firing of it runs:
// the probe's plan lists its ECBs in order, each with its steps. With the
// wasm backend a trampoline generated from the plan (trampoline.ts, the
// per-probe program of DTrace on BPF) runs it, calling the steps below for
// what it does not do itself; otherwise dtrace_probe() is a loop over the
// ECBs. Either looks nothing up by name and, for a clause that stores no data
// and aggregates by keys that are integers and strings (or by none),
// allocates nothing itself (the DIF's own BigInts aside):
//
//   plans[probe id] --> ProbePlan { activities mask, isEnd }
//                        |
//                        +--> Ecb (epid 1): predicate DIFO, firing context,
//                        |      steps: [ aggregation @a (keys, value, increment) ]
//                        +--> Ecb (epid 2): steps: [ action (record), action, ... ]
//
// A step is an action as the firing runs it: keys and increments are
// evaluated with their aggregation, so they are no steps of their own.
// ---------------------------------------------------------------------------

/** A probe's firing plan: its ECBs in the order they were enabled. */
interface ProbePlan {
  /** The activities (ACTIVITY_BIT) the probe fires in. */
  readonly activities: number;
  /** dtrace:::END, which may fill the reserve of a fill buffer. */
  readonly isEnd: boolean;
  readonly ecbs: Ecb[];
  /**
   * Its trampoline (trampoline.ts) with the wasm backend: made at the first
   * firing (undefined until then, and again once an ECB is added), null
   * where it cannot be, and the union of what its predicates read of the
   * firing block.
   */
  trampoline: Trampoline | null | undefined;
  trampolineNeeds: number;
  /**
   * Whether a firing reads the clock: an ECB records its header's timestamp
   * or its DIF reads timestamp (or vtimestamp, which is timestamp where no
   * thread times are kept). A firing of a plan that does not leaves its
   * timestamp 0, which nothing reads.
   */
  needsTimestamp: boolean;
}

/** An expression evaluated for a step: an aggregation's key or increment. */
interface ExpressionStep {
  /** The action's index + 1: what ERROR reports a fault in it as. */
  readonly ndx: number;
  readonly act: ActionDescription;
  readonly difo: LoadedDifo | undefined;
  /** A key that is its DIFO's result as it is: a string (by reference) ... */
  readonly string: boolean;
  /** ... of this record size, of which at most `max` bytes (strsize) are read. */
  readonly size: number;
  readonly max: number;
}

/** How an aggregation step finds its entry (see AggregationTable). */
const LOOKUP_NONE = 0;
/** Keys that are all integers or strings as their DIFOs give them: found by a hash of their values. */
const LOOKUP_HASH = 1;
/** Any other keys (stacks, symbols, tracemem ...): by the tuple's key string. */
const LOOKUP_TUPLE = 2;

interface AggregationStep {
  readonly aggregation: true;
  readonly ndx: number;
  readonly act: ActionDescription;
  /** Its aggregation's table; none when the program does not describe it (a LoadError when reached). */
  readonly table: AggregationTable | undefined;
  readonly lookup: number;
  readonly keys: readonly ExpressionStep[];
  readonly value: LoadedDifo | undefined;
  readonly increment: ExpressionStep | undefined;
  /**
   * Keys found by hash whose values are the same at every firing of the
   * step's probe (probefunc, probemod, probename, probeprov, constants: see
   * probeConstant): the entry they found, kept while the table holds it
   * (its `takes` count is `constantTakes`), and the DIF instructions their
   * evaluation counted, which each firing that reuses the entry counts too.
   */
  readonly constantKeys: boolean;
  constantBucket: AggregationBucket | undefined;
  constantTakes: number;
  constantInstructions: number;
  /**
   * The globals of the probe's trampoline that update the entry without
   * JavaScript (trampoline.ts), and the entry they were armed for (none
   * while disarmed: before the first firing, after each snapshot).
   */
  cell: TrampolineCell | undefined;
  cellBucket: AggregationBucket | undefined;
  /**
   * Its aggregation's keyed table (aggtable.ts) when the probe's trampoline
   * finds its entries there by their integer keys: each entry it makes or
   * finds goes in the table.
   */
  keyed: KeyedTable | undefined;
}

/** Whether a DIFO reads timestamp or vtimestamp (see ProbePlan.needsTimestamp). */
function readsTimestamp(ld: LoadedDifo | undefined): boolean {
  if (ld === undefined) return false;
  const text = ld.difo.buf;
  for (let i = 0; i < text.length; i++) {
    const instr = text[i]!;
    if (instr >>> 24 !== DIF_OP.LDGS) continue;
    const id = (instr >>> 8) & 0xffff;
    if (id === DIF_VAR.TIMESTAMP || id === DIF_VAR.VTIMESTAMP) return true;
  }
  return false;
}

/** The builtins that name the probe: the same at every firing of one probe. */
const PROBE_NAME_VARS: ReadonlySet<number> = new Set([DIF_VAR.PROBEPROV, DIF_VAR.PROBEMOD, DIF_VAR.PROBEFUNC, DIF_VAR.PROBENAME]);

/**
 * Whether a DIFO gives the same value at every firing of a probe: it only
 * reads the builtins that name the probe and constants (setx, sets), moves
 * registers and returns. Such a DIFO cannot fault nor branch, and reads no
 * memory a clause could change.
 */
function probeConstant(ld: LoadedDifo): boolean {
  const text = ld.difo.buf;
  for (let i = 0; i < text.length; i++) {
    const instr = text[i]!;
    switch (instr >>> 24) {
      case DIF_OP.LDGS:
        if (!PROBE_NAME_VARS.has((instr >>> 8) & 0xffff)) return false;
        break;
      case DIF_OP.SETX:
      case DIF_OP.SETS:
      case DIF_OP.MOV:
      case DIF_OP.NOP:
      case DIF_OP.RET:
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Any other action: its value is recorded (when it has a record) and acted on (speculate, commit, exit ...). */
interface ActionStep {
  readonly aggregation: false;
  readonly ndx: number;
  readonly act: ActionDescription;
  readonly difo: LoadedDifo | undefined;
  /** The DIFO's result is the record (an integer, or a string copied to it straight from the arena): no stack, user address or tracemem. */
  readonly plain: boolean;
  /** The result is a string (by reference). */
  readonly string: boolean;
  /** The result is by reference (a string, or bytes). */
  readonly byRef: boolean;
}

type Step = AggregationStep | ActionStep;

/** Actions whose value is not the DIFO's result as it is (see recordValue). */
const SPECIAL_RECORD_KINDS: ReadonlySet<number> = new Set([
  DTRACEACT.STACK, DTRACEACT.USTACK, DTRACEACT.JSTACK, DTRACEACT.USYM, DTRACEACT.UMOD, DTRACEACT.UADDR, DTRACEACT.TRACEMEM,
]);
/** Actions that act besides recording (runSteps' switch): a trampoline does not write their records. */
const ACTING_KINDS: ReadonlySet<number> = new Set([
  DTRACEACT.SPECULATE, DTRACEACT.COMMIT, DTRACEACT.DISCARD, DTRACEACT.RAISE, DTRACEACT.STOP, DTRACEACT.CHILL, DTRACEACT.BREAKPOINT, DTRACEACT.PANIC, DTRACEACT.EXIT,
]);
/** Aggregation keys that become their symbol or module (see symbolKey). */
const SYMBOL_KEY_KINDS: ReadonlySet<number> = new Set([DTRACEACT.SYM, DTRACEACT.MOD, DTRACEACT.USYM, DTRACEACT.UMOD]);

/** An ECB as the state keeps it: the EnabledProbe the consumer reads, with its plan. */
class Ecb implements EnabledProbe {
  /** The firing context reused by each firing (see DTraceState.firing); made at the first. */
  firing: ReusedFiring | undefined;
  /** Where the records of an ECB that stores no data are written (nothing reads them). */
  readonly sink: { readonly bytes: Uint8Array; readonly view: DataView } | undefined;
  /** The most string-key bytes one of its aggregation steps copies (ReusedFiring.keyBytes). */
  readonly keyBytes: number;
  /** The records its probe's trampoline writes in the stage, as offset, size pairs (see trampoline.ts). */

  constructor(
    readonly epid: number,
    readonly probe: Probe,
    readonly ecb: EcbDescription,
    readonly predicate: LoadedDifo | undefined,
    readonly actions: readonly (LoadedDifo | undefined)[],
    readonly roles: readonly ActionRole[],
    readonly increments: ReadonlyMap<number, number>,
    readonly storesData: boolean,
    readonly steps: readonly Step[],
  ) {
    if (storesData) this.sink = undefined;
    else {
      const bytes = new Uint8Array(ecb.size);
      this.sink = { bytes, view: new DataView(bytes.buffer) };
    }
    let keyBytes = 0;
    for (const step of steps) {
      if (step.aggregation && step.lookup === LOOKUP_HASH) keyBytes = Math.max(keyBytes, step.keys.reduce((n, k) => n + (k.string ? k.max : 0), 0));
    }
    this.keyBytes = keyBytes;
  }
}

/** A chunk the firing plan builds an ECB's records in, one per nesting depth of runSteps, zeroed for each firing. */
interface Chunk {
  readonly bytes: Uint8Array;
  readonly view: DataView;
}

/**
 * An entry of an aggregation as the framework keeps it. count(), and sum()
 * of a value from 0 to SMALL_ADDEND, add to `pending`, a number, which the
 * data word takes in when read (or before the number could lose a unit):
 * such a firing allocates no BigInt. The word wraps as an int64_t either way.
 */
const SMALL_ADDEND = 0xffffffffn;
const PENDING_LIMIT = 2 ** 52;

class AggregationBucket implements AggregationEntry, KeyedOwner {
  private words: bigint[];
  private pending = 0;
  /** The trampoline globals armed for this entry: what they hold is its data still to be taken in. */
  readonly cells: TrampolineCell[] = [];
  /** Its slot in its aggregation's keyed table, while it has one: its cell there is data still to be taken in. */
  slot = -1;
  keyed: KeyedTable | undefined = undefined;

  constructor(
    readonly keys: readonly (bigint | Uint8Array)[],
    data: bigint[],
  ) {
    this.words = data;
  }

  get data(): bigint[] {
    if (this.pending !== 0) this.fold();
    for (let i = 0; i < this.cells.length; i++) this.absorb(this.cells[i]!);
    const keyed = this.keyed;
    if (keyed !== undefined) absorbCell(keyed.fn, keyed.cellAddress(this.slot), this.words);
    return this.words;
  }

  /** Takes in its cell of a keyed table (KeyedOwner). */
  absorbCell(fn: KeyedFunction, address: number): void {
    absorbCell(fn, address, this.words);
  }

  /**
   * Takes in what a trampoline's cell in the shared memory added, and
   * empties it (count, sum: wrapping int64 additions; min, max; avg: count
   * and sum).
   */
  absorb(c: TrampolineCell): void {
    absorbCell(c.fn, c.armed.value as number, this.words);
  }

  /** Takes in an armed cell (every one without `only`), disarms it and hands it back (at a snapshot, when a trampoline is replaced, at stop). */
  settle(only?: TrampolineCell): void {
    for (const c of this.cells) {
      if (only !== undefined && c !== only) continue;
      this.absorb(c);
      if (c.release !== undefined) c.release(c.armed.value as number);
      else freeCell(c.armed.value as number);
      c.armed.value = 0;
    }
    if (only === undefined) this.cells.length = 0;
    else this.cells.splice(this.cells.indexOf(only), 1);
  }

  /** Adds `n` (a safe integer, at most 2^32) to the first data word. */
  add(n: number): void {
    this.pending += n;
    if (this.pending >= PENDING_LIMIT) this.fold();
  }

  private fold(): void {
    this.words[0] = BigInt.asIntN(64, this.words[0]! + BigInt(this.pending));
    this.pending = 0;
  }

  set data(d: bigint[]) {
    this.pending = 0;
    this.words = d;
  }

  /** As the plain { keys, data } entry it stands for. */
  toJSON(): AggregationEntry {
    return { keys: this.keys, data: this.data };
  }
}

/**
 * One aggregation's entries (dtrace_aggbuffer), keyed by the tuple as a
 * string (keyPart). Besides, the entries of tuples of integers and strings
 * are found by a hash of the key values (the strings' bytes up to their
 * NUL), without building the key string, and a tuple of no key is kept
 * aside; both hold only entries of `entries` and are emptied with it at
 * each snapshot.
 */
class AggregationTable {
  entries = new Map<string, AggregationBucket>();
  noKey: AggregationBucket | undefined;
  /** How many times the entries were handed over (take): an entry found before the last take is no longer the table's. */
  takes = 0;
  /** The steps whose trampoline cells are armed for an entry of this table (disarmed at take). */
  armed: AggregationStep[] = [];
  private readonly byHash = new Map<number, AggregationBucket | AggregationBucket[]>();
  /** lquantize's parameters, as bigints. */
  readonly lquantize: { readonly base: bigint; readonly levels: number; readonly limit: bigint; readonly step: bigint } | undefined;

  constructor(readonly desc: AggregationDescription) {
    if (desc.function === DTRACEAGG.LQUANTIZE) {
      const { base, levels, step } = lquantizeParams(desc.arg);
      this.lquantize = { base: BigInt(base), levels, limit: BigInt(base + levels * step), step: BigInt(step) };
    } else {
      this.lquantize = undefined;
    }
  }

  /** Hands the entries over and starts empty (the aggregation buffer switch). */
  take(): Map<string, AggregationBucket> {
    this.takes++;
    this.disarm();
    const taken = this.entries;
    this.entries = new Map();
    this.noKey = undefined;
    this.byHash.clear();
    return taken;
  }

  /** The keyed table a trampoline finds its entries in by integer keys (aggtable.ts), once one does. */
  keyed: KeyedTable | undefined;

  /** Takes in and disarms every trampoline cell armed for the entries (see AggregationBucket.settle), and empties the keyed table. */
  disarm(): void {
    this.keyed?.clear();
    for (const step of this.armed) {
      step.cellBucket?.settle();
      step.cellBucket = undefined;
    }
    if (this.armed.length !== 0) this.armed = [];
  }

  /** The entries whose key values hash to `h`: one, several, or none. */
  hashed(h: number): AggregationBucket | AggregationBucket[] | undefined {
    return this.byHash.get(h);
  }

  rememberHash(h: number, bucket: AggregationBucket): void {
    const found = this.byHash.get(h);
    if (found === undefined) this.byHash.set(h, bucket);
    else if (Array.isArray(found)) found.push(bucket);
    else this.byHash.set(h, [found, bucket]);
  }
}

/** A 64-bit word: an integer key's halves to hash, a record's or timestamp's low bytes, read without BigInt arithmetic. */
const WORD = new DataView(new ArrayBuffer(8));
const WORD_BYTES = new Uint8Array(WORD.buffer);

/**
 * Writes the low `size` bytes of `v` into `out` at `off`, little-endian,
 * through WORD: a DataView of a small new array (`out.buffer`) would make
 * V8 move its bytes out of its heap, which costs more than the record.
 */
function putWord(out: Uint8Array, off: number, v: bigint, size: number): void {
  WORD.setBigUint64(0, BigInt.asUintN(64, v), true);
  for (let i = 0; i < size; i++) out[off + i] = WORD_BYTES[i]!;
}

/** The little-endian 64-bit word of `bytes` at `off`, read through WORD (see putWord). */
function getWord(bytes: Uint8Array, off: number): bigint {
  for (let i = 0; i < 8; i++) WORD_BYTES[i] = bytes[off + i]!;
  return WORD.getBigUint64(0, true);
}

/** Whether a trampoline runs (a firing inside it, in any state, takes the JavaScript loop). */
let trampolineRunning = false;

export class DTraceState {
  readonly options: DTraceOptions;
  readonly arena: Arena;
  readonly enabled: EnabledProbe[] = [];
  /** The firing plan of each probe with an ECB, in the order the probes were first enabled ... */
  private readonly plans = new Map<number, ProbePlan>();
  /** ... and by probe id, for dtrace_probe(). */
  private readonly planById: (ProbePlan | undefined)[] = [];
  /** Each CPU's principal buffer, in the shared memory (buffers.ts). */
  private readonly buffers: PrincipalBuffers;
  /** What the buffers held when tracing stopped (they are then freed), until read. */
  private leftovers: (TakenBuffer | undefined)[] | undefined;
  /** The chunks of runSteps, by nesting depth (a firing inside one runs in the next). */
  private readonly chunks: Chunk[] = [];
  private chunkDepth = 0;
  private readonly tables = new Map<number, AggregationTable>();
  readonly aggregationDescs = new Map<number, AggregationDescription>();
  private aggregationBytes = 0;
  private readonly aggDrops: number[] = [];
  readonly drops: DropCounts = dropCounts(() => this.dynvars?.drops ?? 0);
  private readonly speculations: Speculation[] = [];
  /** Each speculation's per-CPU buffers, in the shared memory (specbuffers.ts). */
  private readonly specBuffers: SpeculationBuffers;
  private readonly globals = new Map<number, bigint | Uint8Array>();
  /** The dynamic-variable space (dynvar.ts): made before the DIFOs are translated when the program uses it, else at its first use; freed at stop. */
  private dynvars: DynamicVariables | undefined;
  private activityNow: Activity = 'inactive';
  /** ACTIVITY_BIT of the activity. */
  private activityBit = 0;
  get activity(): Activity {
    return this.activityNow;
  }
  set activity(a: Activity) {
    this.activityNow = a;
    this.activityBit = ACTIVITY_BIT[a];
    if (this.filterShared !== undefined) this.filterShared.gate.value = a === 'active' ? 1 : 0;
    // Fill buffers keep room for the END enablings (dts_reserve); only END may use it.
    this.buffers.setEnding(a === 'cooldown');
  }
  /** The panic() message once a panic action ran (dtrace_panicked): the machine is down and tracing ends. */
  panicked: string | undefined;
  /** What destructive actions said on the console since the consumer last looked (breakpoint()). */
  readonly kernelMessages: string[] = [];
  /** Per CPU: the start of the current chill interval and the chill time spent in it (cpu_dtrace_chillmark, cpu_dtrace_chilled). */
  private readonly chills: { mark: bigint; chilled: bigint }[] = [];
  /** exit() status once an exit action ran. */
  exitStatus: number | undefined;
  beganOn = 0;
  endedOn = 0;
  /** Instructions executed by the DIF VM (bench), with those of the probes' filters (filter.ts). */
  get instructions(): number {
    return this.instructionsHere + (this.filterShared?.instructions.value as number | undefined ?? 0);
  }
  set instructions(n: number) {
    this.instructionsHere = n - (this.filterShared?.instructions.value as number | undefined ?? 0);
  }
  /** This state's own count: firings add to it directly, since reading the filters' WebAssembly global costs a call each time. */
  private instructionsHere = 0;
  private inError = false;
  readonly matchedProbes: number;
  /** Bytes a fill buffer keeps for END's data (the sizes of the END ECBs). */
  private readonly endReserve: number;

  constructor(
    readonly program: CompiledProgram,
    readonly registry: ProbeRegistry,
    readonly machine: MachineInterface,
    options?: DTraceOptions,
  ) {
    this.options = options ?? defaultOptions();
    if (program.destructive && !this.options.destructive) {
      throw new LoadError('could not enable tracing: Destructive actions not allowed');
    }
    // String tables and by-reference globals live in the arena's static area.
    const difoSize = (d: ActionDescription['difo']): number =>
      d === undefined ? 0 : d.strtab.length + 16 + d.vartab.reduce((n, v) => n + (v.type.flags & (DIF_TF_BYREF | DIF_TF_BYUREF) ? v.type.size + 8 : 0), 0);
    const staticSize = 64 * 1024 + program.ecbs.reduce((n, e) => n + e.actions.reduce((m, a) => m + difoSize(a.difo), difoSize(e.predicate)), 0);
    // In the shared memory where it fits, so that trampolines read its strings (see arena.ts).
    const scratchSize = Math.max(this.options.scratchsize, this.options.strsize * 8);
    const arenaStart = allocateRegion(staticSize + scratchSize);
    this.arena = new Arena(staticSize, scratchSize, arenaStart === undefined ? undefined : { start: arenaStart, buffer: () => sharedBlock().memory.buffer });
    if (arenaStart !== undefined) arenaRegions.register(this, arenaStart, this.arena);
    for (let i = 0; i < machine.ncpus; i++) {
      this.aggDrops.push(0);
    }
    // dtrace_state_go refuses more speculations than an int counts (ENOMEM); the
    // others are made as speculation() first needs them.
    if (this.options.nspec > 0x7fffffff) throw new LoadError('could not enable tracing: Not enough space');
    this.nspec = this.options.nspec;
    for (const a of program.aggregations) {
      this.aggregationDescs.set(a.id, a);
      this.tables.set(a.id, new AggregationTable(a));
    }
    // The table's address is in the translated DIFOs' code: it is made first.
    const difos = program.ecbs.flatMap((e) => [e.predicate, ...e.actions.map((a) => a.difo)]);
    try {
      if (difos.some((d) => d !== undefined && usesDynamicVariables(d.buf))) this.dynamicVariables();
      this.matchedProbes = this.loadEcbs(program, registry);
    } catch (e) {
      this.abandon();
      throw e;
    }
    const ends = this.enabled.filter((ep) => ep.probe.provider === 'dtrace' && ep.probe.name === 'END');
    this.endReserve = ends.reduce((n, ep) => n + ep.ecb.size, 0);
    try {
      this.checkBufferSizes(ends);
    } catch (e) {
      this.abandon();
      throw e;
    }
    const largest = program.ecbs.reduce((n, e) => Math.max(n, e.size), ERROR_RECORD_SIZE);
    this.buffers = new PrincipalBuffers(machine.ncpus, this.options.bufpolicy, this.options.bufsize, this.endReserve, largest);
    this.buffers.sizeOf = this.sizeOfEpid;
    this.specBuffers = new SpeculationBuffers(machine.ncpus, this.options.specsize);
  }

  /** Hands back what a state that fails to enable holds of the shared memory: its dynamic-variable table and its arena's region. */
  private abandon(): void {
    this.dynvars?.free();
    this.releaseArena();
  }

  /** Moves the arena's bytes out of the shared memory (they stay readable) and hands its region back. */
  private releaseArena(): void {
    const start = this.arena.unshare();
    if (start === undefined) return;
    arenaRegions.unregister(this.arena);
    freeRegion(start);
  }

  /** The size of an ECB's records by its epid. */
  private readonly sizeOfEpid = (epid: number): number => this.enabled[epid - 1]!.ecb.size;
  /** The size of an ECB's record header by its epid: 12 bytes or more hold its timestamp. */
  private readonly headerOfEpid = (epid: number): number => this.enabled[epid - 1]!.ecb.headerSize;

  /** Loads, verifies and attaches every ECB of the program: how many probes matched. */
  private loadEcbs(program: CompiledProgram, registry: ProbeRegistry): number {
    let matched = 0;
    for (const ecb of program.ecbs) {
      const predicate = ecb.predicate ? this.load(ecb.predicate, `clause ${ecb.clause} predicate`) : undefined;
      const actions = ecb.actions.map((a, i) => (a.difo ? this.load(a.difo, `clause ${ecb.clause} action #${i + 1}`) : undefined));
      if (!this.options.destructive && ecb.actions.some((a) => dtraceActIsDestructive(a.kind))) {
        throw new LoadError('could not enable tracing: Destructive actions not allowed');
      }
      const loaded = { ecb, predicate, actions, probes: new Set<number>() };
      this.loadedEcbs.push(loaded);
      for (const desc of ecb.probes) {
        const probes = registry.match(desc);
        if (probes.length === 0 && !this.options.zdefs) throw new LoadError(`probe description ${describe(desc)} does not match any probes`);
        for (const probe of probes) if (this.attach(loaded, probe)) matched++;
      }
    }
    return matched;
  }

  /**
   * dtrace_state_go's buffer checks, made before anything is traced. A buffer
   * that is needed but smaller than a uint64_t fails with ENOSPC, which
   * dtrace_go reports as EDT_BUFTOOSMALL. With the fill policy every buffer
   * (principal, aggregation, speculation), its size rounded down to 8 bytes,
   * must hold the prereserved space of the END enablings, each ECB's needed
   * bytes plus its alignment (dtrace_state_prereserve); otherwise
   * dtrace_state_buffer fails with E2BIG, reported as EDT_ENDTOOBIG.
   */
  private checkBufferSizes(ends: readonly EnabledProbe[]): void {
    const o = this.options;
    const speculates = this.program.ecbs.some((e) => e.speculative);
    const aggregates = this.program.aggregations.length > 0;
    const sizes: number[] = [o.bufsize];
    if (aggregates) sizes.push(o.aggsize);
    if (speculates) sizes.push(o.specsize);
    if ((this.enabled.length > 0 && o.bufsize < 8) || (speculates && o.specsize < 8) || (aggregates && o.aggsize < 8)) {
      throw new LoadError('could not enable tracing: Enabling exceeds size of buffer');
    }
    if (o.bufpolicy !== 'fill') return;
    const reserve = ends.reduce((n, ep) => n + ep.ecb.size + ep.ecb.alignment, 0);
    for (const size of sizes) {
      if (size >= 8 && size - (size % 8) < reserve) throw new LoadError('could not enable tracing: END enablings exceed size of principal buffer');
    }
  }

  private load(difo: NonNullable<ActionDescription['difo']>, where: string): LoadedDifo {
    const v = verifyDifo(difo);
    if (v.errors.length > 0) throw new LoadError(`invalid DIF in ${where}: ${v.errors[0]}`);
    if (v.destructive && !this.options.destructive) throw new LoadError('could not enable tracing: Destructive actions not allowed');
    const ld = loadDifo(difo, this.arena);
    if (this.options.backend === 'wasm') {
      const start = this.arena.sharedStart;
      if (start !== undefined) ld.arenaStrings = { start, size: this.arena.size, strsize: this.options.strsize };
      const w = wasmTranslate(ld, this.machine, this.dynvars);
      if (w !== undefined) {
        ld.compiled = w.run;
        this.translated.set(ld, w);
      }
    }
    return ld;
  }

  /** The WebAssembly translation of each DIFO that has one. */
  private readonly translated = new Map<LoadedDifo, WasmDifo>();

  /** Each ECB with its loaded DIF and the probes it is enabled on (for retained enablings). */
  private readonly loadedEcbs: { ecb: EcbDescription; predicate: LoadedDifo | undefined; actions: (LoadedDifo | undefined)[]; probes: Set<number> }[] = [];

  /** Puts an ECB on a probe, in its plan; returns whether the probe had no ECB before. */
  private attach(loaded: (typeof this.loadedEcbs)[number], probe: Probe): boolean {
    if (loaded.probes.has(probe.id)) return false;
    loaded.probes.add(probe.id);
    const { ecb, predicate, actions } = loaded;
    const { roles, increments } = actionRoles(ecb.actions);
    const steps = this.steps(ecb, actions, roles, increments);
    const ep = new Ecb(this.enabled.length + 1, probe, ecb, predicate, actions, roles, increments, ecbStoresData(ecb.actions, roles), steps);
    this.enabled.push(ep);
    let plan = this.plans.get(probe.id);
    const fresh = !plan;
    if (!plan) {
      const dtrace = probe.provider === 'dtrace';
      const isEnd = dtrace && probe.name === 'END';
      const activities = !dtrace ? FIRES_ORDINARY : probe.name === 'BEGIN' ? FIRES_BEGIN : isEnd ? FIRES_END : probe.name === 'ERROR' ? FIRES_ERROR : FIRES_ORDINARY;
      plan = { activities, isEnd, ecbs: [], trampoline: undefined, trampolineNeeds: 0, needsTimestamp: false };
      this.plans.set(probe.id, plan);
      this.planById[probe.id] = plan;
    }
    if (plan.trampoline) this.retireCells(plan);
    plan.ecbs.push(ep);
    plan.trampoline = undefined;
    this.dropFilter(probe.id);
    if ((ep.storesData && ecb.headerSize >= 12) || readsTimestamp(predicate) || actions.some(readsTimestamp)) plan.needsTimestamp = true;
    return fresh;
  }

  private expressionStep(index: number, act: ActionDescription, difo: LoadedDifo | undefined): ExpressionStep {
    const rtype = difo?.difo.rtype;
    const string = rtype !== undefined && (rtype.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) !== 0 && rtype.kind === DIF_TYPE_STRING;
    const size = string ? (act.record?.size ?? rtype.size) : 0;
    return { ndx: index + 1, act, difo, string, size, max: Math.min(size, this.options.strsize) };
  }

  /** An ECB's steps: its actions as a firing runs them, keys and increments with their aggregation. */
  private steps(ecb: EcbDescription, loaded: readonly (LoadedDifo | undefined)[], roles: readonly ActionRole[], increments: ReadonlyMap<number, number>): Step[] {
    const steps: Step[] = [];
    const acts = ecb.actions;
    for (let i = 0; i < acts.length; i++) {
      const act = acts[i]!;
      const difo = loaded[i];
      if (roles[i] === 'key' || roles[i] === 'increment') continue;
      if (!dtraceActIsAggregation(act.kind)) {
        const rtype = difo?.difo.rtype;
        const byRef = rtype !== undefined && (rtype.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) !== 0;
        steps.push({ aggregation: false, ndx: i + 1, act, difo, plain: difo !== undefined && !SPECIAL_RECORD_KINDS.has(act.kind), string: byRef && rtype.kind === DIF_TYPE_STRING, byRef });
        continue;
      }
      const keys: ExpressionStep[] = [];
      for (let k = i - act.ntuple; k < i; k++) keys.push(this.expressionStep(k, acts[k]!, loaded[k]));
      const inc = increments.get(i);
      const increment = inc === undefined ? undefined : this.expressionStep(inc, acts[inc]!, loaded[inc]);
      // Keys that are their DIFOs' results as they are (integers and strings) are found by hash.
      const hashable = keys.every((k) => k.difo !== undefined && !SPECIAL_RECORD_KINDS.has(k.act.kind) && !SYMBOL_KEY_KINDS.has(k.act.kind) && (k.string || (k.difo.difo.rtype.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) === 0));
      const table = this.tables.get(Number(act.uarg));
      const lookup = !table ? LOOKUP_TUPLE : keys.length === 0 ? LOOKUP_NONE : hashable ? LOOKUP_HASH : LOOKUP_TUPLE;
      const constantKeys = lookup === LOOKUP_HASH && keys.every((k) => probeConstant(k.difo!));
      steps.push({ aggregation: true, ndx: i + 1, act, table, lookup, keys, value: difo, increment, constantKeys, constantBucket: undefined, constantTakes: 0, constantInstructions: 0, cell: undefined, cellBucket: undefined, keyed: undefined });
    }
    return steps;
  }

  /**
   * Retained enablings (dtrace_enabling_matchall): after a provider created
   * probes — a module loaded while tracing runs — every ECB's descriptions
   * are matched again and the new probes enabled. Returns how many probes
   * were added.
   */
  matchNewProbes(): number {
    const added: Probe[] = [];
    for (const loaded of this.loadedEcbs) {
      for (const desc of loaded.ecb.probes) {
        for (const probe of this.registry.match(desc)) {
          if (this.attach(loaded, probe)) added.push(probe);
        }
      }
    }
    if (this.activity !== 'inactive' && this.activity !== 'stopped') {
      for (const probe of added) if (probe.enabledCount++ === 0) this.registry.provider(probe.provider)?.ops.enable(probe.id, probe.providerArg);
    }
    return added.length;
  }

  /** Enables every matched probe with its provider (dtrace_ecb_enable). */
  enable(): void {
    for (const probeId of this.plans.keys()) {
      const probe = this.registry.probe(probeId)!;
      if (probe.enabledCount++ === 0) this.registry.provider(probe.provider)?.ops.enable(probe.id, probe.providerArg);
    }
  }

  disable(): void {
    for (const probeId of this.plans.keys()) {
      const probe = this.registry.probe(probeId)!;
      if (--probe.enabledCount === 0) this.registry.provider(probe.provider)?.ops.disable(probe.id, probe.providerArg);
    }
  }

  epid(epid: number): EnabledProbe | undefined {
    return this.enabled[epid - 1];
  }

  // DTrace Probe Context: filters (filter.ts). A probe whose ECBs all have a
  // pure translated predicate offers its provider a function that runs
  // them where the probe site is trapped, without JavaScript; made when
  // first asked for, dropped (and its valid word cleared) when an ECB is
  // put on the probe. The gate the filters share is open while the state is
  // active; a fill buffer (whose full state makes a firing do nothing
  // before its predicates) gets no filters.

  /** The filters made, by probe id (null: the probe cannot have one). */
  private readonly filters = new Map<number, ProbeFilter | null>();
  private readonly filterShared = filterGlobals();

  /** The filter of probe `probeId` (see filter.ts), or undefined when it has none now. */
  probeFilter(probeId: number): ProbeFilterFunction | undefined {
    if (this.options.backend !== 'wasm' || this.activityNow !== 'active' || this.options.bufpolicy === 'fill' || this.filterShared === undefined) return undefined;
    let f = this.filters.get(probeId);
    if (f === undefined) {
      f = this.makeFilter(probeId);
      this.filters.set(probeId, f);
    }
    return f?.fn;
  }

  private makeFilter(probeId: number): ProbeFilter | null {
    const plan = this.planById[probeId];
    if (plan === undefined || plan.activities !== FIRES_ORDINARY || plan.ecbs.length === 0) return null;
    // The cells and keyed tables a filter updates are its trampoline's.
    const t = plan.trampoline === undefined ? this.makeTrampoline(plan) : plan.trampoline;
    const ecbs: FilterEcb[] = [];
    for (let i = 0; i < plan.ecbs.length; i++) {
      const ep = plan.ecbs[i]!;
      const ld = ep.predicate;
      const w = ld === undefined ? undefined : this.translated.get(ld);
      if (ld !== undefined && (w === undefined || !filterablePredicate(ld, w))) return null;
      const aggregation = t === null ? undefined : this.filterAggregation(ep, t, i);
      if (ld === undefined && aggregation === undefined) return null;
      ecbs.push({ epid: ep.epid, predicate: ld, translated: w, aggregation });
    }
    return probeFilter(probeId, ecbs, this.filterShared!) ?? null;
  }

  /**
   * The aggregation a filter does whole for ECB `i` of a plan whose
   * trampoline is `t` (see filter.ts): its one action, storing no data, is
   * an aggregation the trampoline updates in a cell or finds in a keyed
   * table, whose keys, value and increment a filter may run.
   */
  private filterAggregation(ep: Ecb, t: Trampoline, i: number): FilterAggregation | undefined {
    if (ep.storesData || ep.steps.length !== 1) return undefined;
    const step = ep.steps[0]!;
    if (!step.aggregation || step.table === undefined) return undefined;
    const pure = (ld: LoadedDifo | undefined): WasmDifo | undefined => {
      const w = ld === undefined ? undefined : this.translated.get(ld);
      return w !== undefined && filterablePredicate(ld!, w) ? w : undefined;
    };
    const value = pure(step.value);
    if (step.value !== undefined && value === undefined) return undefined;
    const increment = pure(step.increment?.difo);
    if (step.increment !== undefined && increment === undefined) return undefined;
    const cell = t.cells.get(i);
    if (cell !== undefined) {
      // stddev() and llquantize() are the trampoline's alone (their locals and bounds).
      if (cell.fn === 'stddev' || cell.fn === 'llquantize') return undefined;
      return { fn: cell.fn, value, increment, linear: step.table.lquantize, cell };
    }
    const table = step.keyed;
    if (table === undefined || step.lookup !== LOOKUP_HASH || table.nkeys !== step.keys.length) return undefined;
    if (table.fn === 'stddev' || table.fn === 'llquantize') return undefined;
    const keys: { value: WasmDifo; ndx: number }[] = [];
    for (const key of step.keys) {
      const w = key.string ? undefined : pure(key.difo);
      if (w === undefined) return undefined;
      keys.push({ value: w, ndx: key.ndx });
    }
    return { fn: table.fn, value, increment, linear: step.table.lquantize, keyed: { keys, descriptor: table.descriptor, slotSize: table.slotSize } };
  }

  private dropFilter(probeId: number): void {
    const f = this.filters.get(probeId);
    if (f) f.valid.value = 0;
    this.filters.delete(probeId);
  }

  isEnabled(probeId: number): boolean {
    return this.plans.has(probeId);
  }

  // -------------------------------------------------------------------------
  // DTrace Probe Context: dtrace_probe(). Runs each ECB of the probe; a fault
  // abandons that ECB's data and fires dtrace:::ERROR.

  probe(probeId: number, cpu: number, args: readonly bigint[], rest?: ProbeArgumentSource): void {
    const plan = this.planById[probeId];
    if (plan === undefined || (plan.activities & this.activityBit) === 0) return;
    if (!plan.isEnd && this.buffers.isFull(cpu)) return;
    const timestamp = plan.needsTimestamp ? this.machine.now() : 0n;
    // Clause-local (this->) variables live for the whole firing, across its
    // clauses. One map per nesting depth (ERROR fires inside a firing) is
    // cleared and reused: a firing allocates none.
    const depth = this.firingDepth++;
    const locals = (this.localsByDepth[depth] ??= new Map<number, bigint | Uint8Array>());
    if (locals.size > 0) locals.clear();
    try {
      // With the wasm backend a probe's trampoline runs its ECBs; a firing
      // inside a trampoline's (ERROR, a probe fired from a call-out) takes
      // the loop below, as every firing with the dif backend.
      if (this.options.backend === 'wasm' && !trampolineRunning) {
        let t = plan.trampoline;
        if (t === undefined) t = this.makeTrampoline(plan);
        if (t !== null) {
          this.fireTrampoline(probeId, plan, t, cpu, args, rest, timestamp, locals);
          return;
        }
      }
      const ecbs = plan.ecbs;
      for (let i = 0; i < ecbs.length; i++) {
        // The activity is checked for each ECB, as dtrace_probe does: once a
        // clause has called exit(), the later clauses of the same firing do not run.
        if ((plan.activities & this.activityBit) === 0) break;
        this.runEcb(ecbs[i]!, cpu, args, rest, timestamp, locals);
      }
    } finally {
      this.firingDepth--;
    }
  }
  private firingDepth = 0;
  private readonly localsByDepth: Map<number, bigint | Uint8Array>[] = [];

  // -------------------------------------------------------------------------
  // DTrace Probe Context: trampolines. A probe's trampoline (trampoline.ts)
  // calls its ECBs' translated predicates itself and these hooks for the
  // rest; the firing it runs is kept in the fields below while it runs (one
  // trampoline runs at a time: see probe()).

  private makeTrampoline(plan: ProbePlan): Trampoline | null {
    let needs = 0;
    const ecbs = plan.ecbs.map((ep): TrampolineEcb => {
      const w = ep.predicate === undefined ? undefined : this.translated.get(ep.predicate);
      if (w !== undefined) needs = unionNeeds(needs, w.needs);
      const aggregation = this.cellAggregation(ep);
      if (aggregation?.value !== undefined) needs = unionNeeds(needs, aggregation.value.needs);
      for (const key of aggregation?.keyed?.keys ?? []) needs = unionNeeds(needs, key.value.needs);
      if (aggregation?.increment !== undefined) needs = unionNeeds(needs, aggregation.increment.value.needs);
      const records = this.stagedRecords(ep);
      for (const r of records ?? []) if (r.value !== undefined) needs = unionNeeds(needs, r.value.needs);
      // The trampoline writes the header's timestamp from the block.
      if (records !== undefined && ep.ecb.headerSize >= 12) needs |= NEED_TIMESTAMP;
      return { epid: ep.epid, predicate: w, interpreted: ep.predicate !== undefined && w === undefined, aggregation, records, size: ep.ecb.size, headerSize: ep.ecb.headerSize };
    });
    // A trampoline that would only call back for every ECB's whole run
    // (no translated predicate, no cell, no staged records) saves nothing
    // and costs two crossings per ECB: the loop in probe() runs them.
    if (ecbs.every((e) => e.predicate === undefined && e.aggregation === undefined && e.records === undefined)) {
      plan.trampoline = null;
      return null;
    }
    plan.trampolineNeeds = needs;
    // Probes whose plans run the same clauses share one trampoline instance
    // when nothing in it is the probe's own (no epids, no records, whose
    // headers hold the probe's epids, no cells armed for the probe's
    // entries): fbt:::entry's thousands of probes make one.
    let shareKey: string | undefined;
    if (!needsIds(needs) && ecbs.every((e) => e.records === undefined && (e.aggregation === undefined || e.aggregation.keyed !== undefined))) {
      shareKey = plan.ecbs.map((ep) => this.clauseIds.get(ep.ecb) ?? this.clauseIds.set(ep.ecb, this.clauseIds.size).size - 1).join(',');
    }
    const shared = shareKey === undefined ? undefined : this.sharedTrampolines.get(shareKey);
    const t = shared ?? trampoline(ecbs, needsIds(needs), this.trampolineHooks);
    if (t !== undefined && shareKey !== undefined && shared === undefined) this.sharedTrampolines.set(shareKey, t);
    if (t !== undefined) {
      for (const [i, cell] of t.cells) (plan.ecbs[i]!.steps[0] as AggregationStep).cell = cell;
      ecbs.forEach((e, i) => {
        if (e.aggregation?.keyed !== undefined) {
          const step = plan.ecbs[i]!.steps[0] as AggregationStep;
          step.keyed = step.table!.keyed;
        }
      });
    }
    plan.trampoline = t ?? null;
    return plan.trampoline;
  }

  /**
   * The aggregation a trampoline can update itself for `ep` (see
   * trampoline.ts): its one action aggregates with count(), sum(), min(),
   * max() or avg(), by no key or keys the same at each firing, and its
   * value's DIF, if any, is translated and calls nothing out.
   */
  private cellAggregation(ep: Ecb): TrampolineEcb['aggregation'] {
    if (ep.steps.length !== 1) return undefined;
    const step = ep.steps[0]!;
    if (!step.aggregation || step.table === undefined) return undefined;
    const fn = CELL_FUNCTIONS.get(step.table.desc.function) ?? TABLE_FUNCTIONS.get(step.table.desc.function);
    if (fn === undefined) return undefined;
    const value = step.value === undefined ? undefined : this.translated.get(step.value);
    if (step.value !== undefined && (value === undefined || value.callsOut)) return undefined;
    let logLinear: bigint[] | undefined;
    if (fn === 'llquantize') {
      // Bounds a signed 64-bit compare orders as the interpreter's BigInts do.
      logLinear = llquantizeBounds(step.table.desc.arg);
      if (logLinear.length > LLQUANTIZE_TRAMPOLINE_BUCKETS || logLinear.some((b) => b > 0x7fffffffffffffffn)) return undefined;
    }
    let increment: TrampolineAggregation['increment'];
    if (step.increment !== undefined) {
      const w = this.translated.get(step.increment.difo!);
      if (w === undefined || w.callsOut) return undefined;
      increment = { value: w, ndx: step.increment.ndx };
    }
    // No key, or keys the same at every firing: a cell the plan arms (see aggregateStep), a histogram's and stddev()'s as long as their data.
    if (step.lookup === LOOKUP_NONE || step.constantKeys) return { fn, value, ndx: step.ndx, increment, linear: step.table.lquantize, logLinear };
    // Keys whose DIF is translated, integers or strings in the arena: found in the aggregation's keyed table.
    if (step.lookup !== LOOKUP_HASH) return undefined;
    // Keys may call out (execname, a string a subroutine makes: they run in the ECB's firing context, which the
    // trampoline makes for them), unless the predicate does: its context then holds what it left in scratch.
    const predicate = ep.predicate === undefined ? undefined : this.translated.get(ep.predicate);
    const predicateCallsOut = ep.predicate !== undefined && (predicate === undefined || predicate.callsOut);
    const keys: { value: WasmDifo; ndx: number; limit: number | undefined }[] = [];
    const shapes: KeyShape[] = [];
    for (const key of step.keys) {
      const w = key.difo === undefined ? undefined : this.translated.get(key.difo);
      if (w === undefined || (w.callsOut && predicateCallsOut)) return undefined;
      // A string key keys by its bytes in the arena, as hashKeys takes them: up to the NUL, at most strsize and one less than its record.
      const limit = key.string ? Math.min(key.max, Math.max(0, key.size - 1)) : undefined;
      if (limit !== undefined && this.arena.sharedStart === undefined) return undefined;
      keys.push({ value: w, ndx: key.ndx, limit });
      shapes.push(limit === undefined ? { string: false } : { string: true, limit });
    }
    if (step.table.keyed === undefined) {
      const made = KeyedTable.make(fn, shapes, initialAggregationData(step.table.desc).length);
      if (made !== undefined) keyedRegions.register(this, made, made);
      step.table.keyed = made;
    }
    const table = step.table.keyed;
    if (table === undefined || !sameShapes(table.shapes, shapes)) return undefined;
    const arenaStart = this.arena.sharedStart;
    const arena = arenaStart === undefined ? undefined : { start: arenaStart, size: this.arena.size };
    const keyed = { keys, descriptor: table.descriptor, slotSize: table.slotSize, offsets: table.keyOffsets, keysSize: table.keysSize, arena };
    return { fn, value, ndx: step.ndx, keyed, increment, linear: step.table.lquantize, logLinear };
  }

  /**
   * The records a trampoline writes itself for `ep` (see trampoline.ts):
   * every action records an integer of 1, 2, 4 or 8 bytes (its DIF's
   * value, translated and calling nothing out, or the action's argument)
   * and does nothing else; its chunk fits the record stage.
   */
  private stagedRecords(ep: Ecb): TrampolineRecord[] | undefined {
    if (!ep.storesData || ep.steps.length === 0 || ep.ecb.size > RECORD_STAGE_SIZE || ep.ecb.actions.length !== ep.steps.length) return undefined;
    const records: TrampolineRecord[] = [];
    for (const step of ep.steps) {
      if (step.aggregation) return undefined;
      const act = step.act;
      const rec = act.record;
      if (rec === undefined || ACTING_KINDS.has(act.kind) || SPECIAL_RECORD_KINDS.has(act.kind) || step.byRef) return undefined;
      if ((rec.size !== 1 && rec.size !== 2 && rec.size !== 4 && rec.size !== 8) || rec.offset < ep.ecb.headerSize || rec.offset + rec.size > ep.ecb.size) return undefined;
      let value: WasmDifo | undefined;
      if (step.difo !== undefined) {
        value = this.translated.get(step.difo);
        if (value === undefined || value.callsOut) return undefined;
      }
      records.push({ offset: rec.offset, size: rec.size, value, constant: BigInt.asIntN(64, act.arg), ndx: step.ndx });
    }
    return records;
  }

  /** Takes in what a plan's trampoline cells hold before the trampoline is replaced (an ECB added to the probe). */
  private retireCells(plan: ProbePlan): void {
    for (const ep of plan.ecbs) {
      const step = ep.steps[0];
      if (step === undefined || !step.aggregation || step.cell === undefined) continue;
      if (step.cellBucket !== undefined) {
        step.cellBucket.settle(step.cell);
        step.table!.armed = step.table!.armed.filter((s) => s !== step);
        step.cellBucket = undefined;
      }
      step.cell = undefined;
    }
  }

  /** Trampolines shared by the probes whose plans run the same clauses (see makeTrampoline), by their clauses' ids. */
  private readonly sharedTrampolines = new Map<string, Trampoline>();
  private readonly clauseIds = new Map<EcbDescription, number>();

  private tramProbe = 0;
  private tramPlan: ProbePlan | undefined;
  private tramCpu = 0;
  private tramArgs: readonly bigint[] = [];
  private tramRest: ProbeArgumentSource | undefined;
  private tramTimestamp = 0n;
  private tramLocals = new Map<number, bigint | Uint8Array>();
  /** The firing context prepare() made for the ECB whose predicate runs (busy until its steps run or the next ECB's is made). */
  private tramPrepared: ReusedFiring | undefined;
  /** blockFills() when the trampoline's block was last filled. */
  private tramFills = 0;

  /** Fills the firing block with what the trampoline's predicates read, when something else filled it since. */
  private trampolineRefill(force: boolean): void {
    if (!force && blockFills() === this.tramFills) return;
    const needs = this.tramPlan!.trampolineNeeds;
    if (needs !== 0) fillFiringBlock(sharedBlock(), this.machine, this.tramCpu, this.tramProbe, 0, this.tramArgs, this.tramRest, this.tramTimestamp, undefined, needs);
    this.tramFills = blockFills();
  }

  private readonly trampolineHooks: TrampolineHooks = {
    prepare: (i) => {
      const ep = this.tramPlan!.ecbs[i]!;
      if (this.tramPrepared !== undefined) this.tramPrepared.busy = false;
      const f = this.firing(ep, this.tramCpu, this.tramArgs, this.tramRest, this.tramTimestamp, this.tramLocals);
      f.busy = true;
      this.arena.resetScratch();
      this.tramPrepared = f;
      if (ep.predicate !== undefined) this.translated.get(ep.predicate)?.reset();
      // Keys the trampoline runs in this context (see cellAggregation) start with empty tuple stacks too.
      const step = ep.steps[0];
      if (step !== undefined && step.aggregation && step.keyed !== undefined) for (const key of step.keys) if (key.difo !== undefined) this.translated.get(key.difo)?.reset();
      setCurrentFiring(f, this.tramPlan!.trampolineNeeds);
    },
    steps: (i, mode) => {
      const plan = this.tramPlan!;
      const ep = plan.ecbs[i]!;
      if (mode === STEPS_WHOLE) {
        this.runEcb(ep, this.tramCpu, this.tramArgs, this.tramRest, this.tramTimestamp, this.tramLocals);
      } else {
        let f = this.tramPrepared;
        if (mode === STEPS_PREPARED && f !== undefined) {
          this.tramPrepared = undefined;
        } else {
          f = this.firing(ep, this.tramCpu, this.tramArgs, this.tramRest, this.tramTimestamp, this.tramLocals);
          f.busy = true;
          this.arena.resetScratch();
        }
        this.runSteps(ep, f, this.tramCpu, this.tramTimestamp);
      }
      if ((plan.activities & this.activityBit) === 0) return 0;
      if (i + 1 < plan.ecbs.length) this.trampolineRefill(false);
      return 1;
    },
    append: (i) => {
      // A chunk the trampoline wrote in the stage (it did not fit below the
      // buffer's limit): the buffer's policy places or drops it.
      const size = this.tramPlan!.ecbs[i]!.ecb.size;
      const at = this.buffers.reserve(this.tramCpu, size);
      if (at >= 0) sharedBlock().u8.copyWithin(at, B_STAGE, B_STAGE + size);
    },
  };

  /**
   * A firing run by the probe's trampoline. A fault in a predicate unwinds
   * out of it to here: the ECB it was at fires ERROR, and the trampoline
   * goes on from the next ECB.
   */
  private fireTrampoline(
    probeId: number, plan: ProbePlan, t: Trampoline, cpu: number, args: readonly bigint[], rest: ProbeArgumentSource | undefined,
    timestamp: bigint, locals: Map<number, bigint | Uint8Array>,
  ): void {
    trampolineRunning = true;
    this.tramProbe = probeId;
    this.tramPlan = plan;
    this.tramCpu = cpu;
    this.tramArgs = args;
    this.tramRest = rest;
    this.tramTimestamp = timestamp;
    this.tramLocals = locals;
    const counter = sharedBlock().i32;
    counter[B_BUFFER >> 2] = this.buffers.descriptor(cpu);
    const outer = counter[B_COUNT >> 2]!;
    counter[B_COUNT >> 2] = 0;
    // A fault unwinding out of a predicate reads as action 0 (a value's writes its ndx first).
    counter[B_NDX >> 2] = 0;
    this.trampolineRefill(true);
    let from = 0;
    try {
      for (;;) {
        try {
          t.fire(from);
          return;
        } catch (e) {
          if (!(e instanceof DifFault)) throw e;
          const { ecb: i, ndx } = trampolineFault();
          const ep = plan.ecbs[i]!;
          if (ndx === 0) this.translated.get(ep.predicate!)?.reset();
          const f = this.tramPrepared;
          if (f !== undefined) {
            this.instructionsHere += f.instructions;
            f.busy = false;
            this.tramPrepared = undefined;
          }
          this.error(ep, cpu, ndx, e);
          if ((plan.activities & this.activityBit) === 0) return;
          from = i + 1;
          if (from >= plan.ecbs.length) return;
          this.trampolineRefill(false);
        }
      }
    } finally {
      // The memory may have grown meanwhile (a buffer's region): a fresh view.
      const words = sharedBlock().i32;
      this.instructionsHere += words[B_COUNT >> 2]!;
      words[B_COUNT >> 2] = outer;
      if (this.tramPrepared !== undefined) {
        this.tramPrepared.busy = false;
        this.tramPrepared = undefined;
      }
      setCurrentFiring(undefined);
      trampolineRunning = false;
    }
  }

  /**
   * The firing context of `ep` (dtrace_mstate_t): one object per ECB, reset
   * for each firing, so that a firing allocates none. An ECB never runs
   * inside its own firing (only ERROR's run inside another's, and ERROR does
   * not nest); should it, it gets a fresh object.
   */
  private firing(ep: Ecb, cpu: number, args: readonly bigint[], rest: ProbeArgumentSource | undefined, timestamp: bigint, locals: Map<number, bigint | Uint8Array>): ReusedFiring {
    let f = ep.firing;
    if (f === undefined || f.busy) {
      const state = this;
      const fresh: ReusedFiring = {
        machine: this.machine,
        arena: this.arena,
        variables: this.variables,
        locals,
        cpu,
        probeId: ep.probe.id,
        epid: ep.epid,
        args,
        restArgs: rest,
        probe: ep.probe,
        timestamp,
        strsize: this.options.strsize,
        dataModel: this.program.dataModel,
        speculation: () => state.speculationAllocate(fresh.cpu),
        instructions: 0,
        strtokRest: undefined,
        busy: false,
        ndx: 0,
        keyBytes: new Uint8Array(ep.keyBytes),
        keyStarts: [],
        keyEnds: [],
        keyIntegers: [],
      };
      if (f === undefined) ep.firing = fresh;
      f = fresh;
    }
    f.locals = locals;
    f.cpu = cpu;
    f.args = args;
    f.restArgs = rest;
    f.timestamp = timestamp;
    f.instructions = 0;
    f.strtokRest = undefined;
    f.ndx = 0;
    return f;
  }

  /**
   * One ECB of a firing: the predicate, then the steps. Its data goes in a
   * chunk (records are written into it where they are computed), copied
   * into the CPU's buffer once the actions ran (a firing the actions cause
   * meanwhile puts its records first, as before), or, when the ECB stores
   * no data, in its sink, which nothing reads.
   */
  private runEcb(ep: Ecb, cpu: number, args: readonly bigint[], rest: ProbeArgumentSource | undefined, timestamp: bigint, locals: Map<number, bigint | Uint8Array>): void {
    const f = this.firing(ep, cpu, args, rest, timestamp, locals);
    f.busy = true;
    this.arena.resetScratch();
    if (ep.predicate !== undefined) {
      let passed: boolean;
      try {
        passed = difRun(ep.predicate, f) !== 0n;
      } catch (e) {
        this.instructionsHere += f.instructions;
        f.busy = false;
        if (!(e instanceof DifFault)) throw e;
        this.error(ep, cpu, f.ndx, e);
        return;
      }
      if (!passed) {
        this.instructionsHere += f.instructions;
        f.busy = false;
        return;
      }
    }
    this.runSteps(ep, f, cpu, timestamp);
  }

  /** The steps of an ECB whose predicate passed, in its firing context `f` (made busy, scratch reset). */
  private runSteps(ep: Ecb, f: ReusedFiring, cpu: number, timestamp: bigint): void {
    let chunked = false;
    try {
      const ecb = ep.ecb;
      const size = ecb.size;
      let bytes: Uint8Array;
      let view: DataView;
      let base = 0;
      if (ep.sink !== undefined) {
        bytes = ep.sink.bytes;
        view = ep.sink.view;
      } else {
        const chunk = this.chunk(this.chunkDepth++, size);
        chunked = true;
        bytes = chunk.bytes;
        view = chunk.view;
        view.setUint32(base, ep.epid, true);
        if (ecb.headerSize >= 12) {
          // The timestamp's high word, then its low word.
          WORD.setBigUint64(0, timestamp, true);
          view.setUint32(base + 4, WORD.getUint32(4, true), true);
          view.setUint32(base + 8, WORD.getUint32(0, true), true);
        }
      }
      /** The speculation buffers speculate() chose (-1: none; the clause's data is not recorded). */
      let spec = -1;
      let speculating = false;
      // commit() first records the clause's own data, then copies the speculation after it (DTRACEACT_COMMIT).
      let committed = false;
      const steps = ep.steps;
      for (let i = 0; i < steps.length; i++) {
        const step = steps[i]!;
        if (step.aggregation) {
          this.aggregateStep(step, f, cpu);
          continue;
        }
        const act = step.act;
        f.ndx = step.ndx;
        let value: bigint | Uint8Array;
        let recorded = false;
        if (step.plain) {
          const v = difRun(step.difo!, f);
          value = v;
          if (step.string && act.record !== undefined) recorded = this.recordArenaString(bytes, base, size, act, v);
          if (step.byRef && !recorded) value = this.recordFrom(act, step.difo!, f, v);
        } else {
          value = this.recordValue(act, step.difo, f);
        }
        switch (act.kind) {
          case DTRACEACT.SPECULATE: {
            speculating = true;
            spec = this.speculationBuffer(cpu, value as bigint);
            break;
          }
          case DTRACEACT.COMMIT: {
            const which = this.speculationId(value as bigint);
            if (ep.storesData && !speculating) this.appendBytes(cpu, bytes, base, size);
            committed = true;
            this.speculationCommit(which, cpu);
            break;
          }
          case DTRACEACT.DISCARD: this.speculationDiscard(this.speculationId(value as bigint), cpu); break;
          case DTRACEACT.RAISE:
            if (this.machine.raise && !this.machine.raise(cpu, value as bigint)) throw new DifFault(DTRACEFLT.ILLOP, 0n);
            break;
          case DTRACEACT.STOP: this.machine.stop?.(cpu); break;
          case DTRACEACT.CHILL: this.chill(cpu, value as bigint, f); break;
          case DTRACEACT.BREAKPOINT:
            // debug_enter() with no kernel debugger to enter: the message, and the probe returns.
            this.kernelMessages.push(`dtrace: ${this.destructiveActionAt('breakpoint', ep)}: no kernel debugger is present; tracing continues\n`);
            break;
          case DTRACEACT.PANIC: this.panic(ep, cpu); break;
          case DTRACEACT.EXIT:
            if (this.activity === 'active' || this.activity === 'warmup') {
              this.activity = 'draining';
              this.exitStatus = Number(BigInt.asIntN(32, value as bigint));
            } else if (this.activity === 'cooldown') {
              this.exitStatus = Number(BigInt.asIntN(32, value as bigint));
            }
            break;
        }
        if (act.record !== undefined && !recorded) this.writeRecord(bytes, view, base, size, act, value);
      }
      this.instructionsHere += f.instructions;
      if (speculating) {
        if (spec >= 0) this.specAppend(spec, cpu, bytes, base, size);
      } else if (ep.storesData && !committed) {
        this.appendBytes(cpu, bytes, base, size);
      }
    } catch (e) {
      this.instructionsHere += f.instructions;
      if (!(e instanceof DifFault)) throw e;
      f.busy = false;
      if (chunked) {
        this.chunkDepth--;
        chunked = false;
      }
      this.error(ep, cpu, f.ndx, e);
    } finally {
      if (chunked) this.chunkDepth--;
      f.busy = false;
    }
  }

  /** The chunk of nesting depth `depth`, its first `size` bytes zeroed. */
  private chunk(depth: number, size: number): Chunk {
    let c = this.chunks[depth];
    if (c === undefined || c.bytes.length < size) {
      const bytes = new Uint8Array(Math.max(size, 256));
      c = { bytes, view: new DataView(bytes.buffer) };
      this.chunks[depth] = c;
    } else {
      c.bytes.fill(0, 0, size);
    }
    return c;
  }

  /**
   * One aggregating action (dtrace_aggregate): its keys, value and increment
   * are evaluated in that order, then the entry of the keys takes the value.
   * The entry is found before the value is evaluated (a key's bytes may be
   * changed by it), and made after (a fault leaves no entry behind).
   */
  private aggregateStep(step: AggregationStep, f: ReusedFiring, cpu: number): void {
    const t = step.table;
    let bucket: AggregationBucket | undefined;
    // The keys of a missing entry, and the hash to find it by next time (LOOKUP_HASH).
    let keys: (bigint | Uint8Array)[] | undefined;
    let hash = 0;
    let hashed = false;
    if (step.lookup === LOOKUP_NONE) {
      bucket = t!.noKey;
    } else if (step.constantKeys && step.constantBucket !== undefined && step.constantTakes === t!.takes) {
      // The keys would evaluate to what they did when they found this entry.
      bucket = step.constantBucket;
      f.instructions += step.constantInstructions;
    } else if (step.lookup === LOOKUP_HASH) {
      const before = f.instructions;
      keys = this.hashKeys(step, f);
      step.constantInstructions = f.instructions - before;
      if (keys === undefined) {
        hash = this.keyHash(step, f);
        hashed = true;
        bucket = this.hashedBucket(t!, hash, step, f);
        if (bucket === undefined) keys = this.hashedKeyValues(step, f, step.keys.length);
      }
    } else {
      keys = [];
      for (const key of step.keys) {
        f.ndx = key.ndx;
        keys.push(this.symbolKey(key.act.kind, this.recordValue(key.act, key.difo, f)));
      }
    }
    f.ndx = step.ndx;
    const value = step.value !== undefined ? difRun(step.value, f) : 1n;
    let increment = 1n;
    const inc = step.increment;
    if (inc !== undefined) {
      f.ndx = inc.ndx;
      increment = BigInt.asIntN(64, difRun(inc.difo!, f));
    }
    if (t === undefined) throw new LoadError(`aggregation ${Number(step.act.uarg)} is not described by the program`);
    if (bucket === undefined) {
      if (keys === undefined) keys = [];
      const keyString = keys.length === 1 ? keyPart(keys[0]!) : keys.map(keyPart).join('|');
      bucket = t.entries.get(keyString);
      if (bucket === undefined) {
        const size = t.desc.dataSize + keys.reduce((n, k) => n + (k instanceof Uint8Array ? k.length : 8), 0);
        if (this.aggregationBytes + size > this.options.aggsize) {
          this.aggDrops[cpu]!++;
          return;
        }
        this.aggregationBytes += size;
        bucket = new AggregationBucket(keys, initialAggregationData(t.desc));
        t.entries.set(keyString, bucket);
      }
      if (step.lookup === LOOKUP_NONE) t.noKey = bucket;
      else if (hashed) t.rememberHash(hash, bucket);
    }
    if (step.constantKeys) {
      step.constantBucket = bucket;
      step.constantTakes = t.takes;
    }
    if (step.keyed !== undefined && bucket.keyed === undefined) {
      // The probe's trampoline finds this entry in the keyed table from the next firing on (until the next snapshot);
      // the table takes no entry whose keys are not of its shapes (see KeyedTable.insert).
      step.keyed.insert(bucket.keys, bucket);
    }
    if (step.cell !== undefined && step.cellBucket !== bucket) {
      // The probe's trampoline updates this entry from the next firing on (until the next snapshot), in a cell of the shared memory.
      const address = this.armCell(step.cell, t.desc);
      if (address !== 0) {
        step.cell.instructions.value = step.constantKeys ? step.constantInstructions : 0;
        step.cell.armed.value = address;
        step.cellBucket = bucket;
        bucket.cells.push(step.cell);
        t.armed.push(step);
      }
    }
    this.aggregate(t, bucket, value, increment);
  }

  /**
   * A cell for `cell` to update: 16 bytes of the cells' page for count(),
   * sum(), min(), max() and avg(); for a histogram and stddev(), a region
   * as long as a keyed table's cell (aggtable.ts: the data's words, or
   * stddev()'s five), held by the state and handed back when the cell is
   * (`release`). 0 when the memory has none.
   */
  private armCell(cell: TrampolineCell, desc: AggregationDescription): number {
    if (!TABLE_FUNCTION_NAMES.has(cell.fn)) {
      cell.release = undefined;
      return allocateCell(cellStart(cell.fn));
    }
    const words = cell.fn === 'stddev' ? 5 : initialAggregationData(desc).length;
    const address = this.cellRegions.allocate(words * 8);
    if (address === undefined) return 0;
    cell.release = this.releaseCellRegion;
    return address;
  }
  /** Histograms' and stddev()'s cells (see armCell). */
  private readonly cellRegions = new OwnedRegions(this);
  private readonly releaseCellRegion = (address: number): void => this.cellRegions.release(address);

  /**
   * Evaluates the keys of a LOOKUP_HASH step into the firing's key scratch:
   * integers as they are, strings in the arena copied as recordFrom copies
   * them (up to the NUL, at most strsize bytes and one less than the
   * record). Returns undefined then; for a string outside the arena (guest
   * memory), the keys as recordValue makes them, found by their key string.
   */
  private hashKeys(step: AggregationStep, f: ReusedFiring): (bigint | Uint8Array)[] | undefined {
    const scratch = f.keyBytes;
    let top = 0;
    const keys = step.keys;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      f.ndx = key.ndx;
      const v = difRun(key.difo!, f);
      if (!key.string) {
        f.keyIntegers[k] = v;
        continue;
      }
      const off = this.arena.offsetOf(v, 1);
      if (off < 0) {
        // The keys so far, this one, and the rest as recordValue makes them.
        const values = this.hashedKeyValues(step, f, k);
        values.push(this.recordFrom(key.act, key.difo!, f, v));
        for (let r = k + 1; r < keys.length; r++) {
          f.ndx = keys[r]!.ndx;
          values.push(this.recordValue(keys[r]!.act, keys[r]!.difo, f));
        }
        return values;
      }
      // The arena's bytes after the key's run: a run that grew the shared memory detached the view before it.
      const arena = this.arena.bytes;
      const limit = Math.min(arena.length, off + key.max, off + Math.max(0, key.size - 1));
      f.keyStarts[k] = top;
      for (let i = off; i < limit; i++) {
        const b = arena[i]!;
        if (b === 0) break;
        scratch[top++] = b;
      }
      f.keyEnds[k] = top;
    }
    return undefined;
  }

  /** FNV-1a over the key values in the firing's key scratch: each string's record size and bytes, each integer's 64 bits. */
  private keyHash(step: AggregationStep, f: ReusedFiring): number {
    let h = 0x811c9dc5 | 0;
    const keys = step.keys;
    const scratch = f.keyBytes;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      if (key.string) {
        h = Math.imul(h ^ key.size, 0x01000193);
        for (let i = f.keyStarts[k]!, end = f.keyEnds[k]!; i < end; i++) h = Math.imul(h ^ scratch[i]!, 0x01000193);
      } else {
        WORD.setBigUint64(0, f.keyIntegers[k]!, true);
        h = Math.imul(h ^ WORD.getUint32(0, true), 0x01000193);
        h = Math.imul(h ^ WORD.getUint32(4, true), 0x01000193);
      }
    }
    return h;
  }

  /** The entry among those hashed to `hash` whose keys are the values in the firing's key scratch. */
  private hashedBucket(t: AggregationTable, hash: number, step: AggregationStep, f: ReusedFiring): AggregationBucket | undefined {
    const found = t.hashed(hash);
    if (found === undefined) return undefined;
    if (!Array.isArray(found)) return this.sameKeys(found, step, f) ? found : undefined;
    for (const b of found) if (this.sameKeys(b, step, f)) return b;
    return undefined;
  }

  /** Whether an entry's keys are the values in the firing's key scratch: a string key is its bytes, then zeros to its record size. */
  private sameKeys(bucket: AggregationBucket, step: AggregationStep, f: ReusedFiring): boolean {
    const keys = step.keys;
    const have = bucket.keys;
    const scratch = f.keyBytes;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const stored = have[k];
      if (!key.string) {
        if (stored !== f.keyIntegers[k]) return false;
        continue;
      }
      if (!(stored instanceof Uint8Array) || stored.length !== key.size) return false;
      const start = f.keyStarts[k]!;
      const n = f.keyEnds[k]! - start;
      for (let i = 0; i < n; i++) if (stored[i] !== scratch[start + i]) return false;
      if (n < stored.length && stored[n] !== 0) return false;
    }
    return true;
  }

  /** The first `count` key values of the firing's key scratch, as recordValue makes them (strings padded with zeros to their record size). */
  private hashedKeyValues(step: AggregationStep, f: ReusedFiring, count: number): (bigint | Uint8Array)[] {
    const values: (bigint | Uint8Array)[] = [];
    for (let k = 0; k < count; k++) {
      const key = step.keys[k]!;
      if (!key.string) {
        values.push(f.keyIntegers[k]!);
        continue;
      }
      const out = new Uint8Array(key.size);
      out.set(f.keyBytes.subarray(f.keyStarts[k]!, f.keyEnds[k]!));
      values.push(out);
    }
    return values;
  }

  /** One address per module for mod()/umod() keys: the first seen in it (it names the module when printed). */
  private readonly moduleKeys = new Map<string, bigint>();
  private moduleAddress(module: string, address: bigint): bigint {
    let a = this.moduleKeys.get(module);
    if (a === undefined) this.moduleKeys.set(module, (a = address));
    return a;
  }

  /**
   * sym()/func()/usym()/ufunc() keys aggregate by the symbol, not the address
   * (dt_aggregate_sym/usym): the address becomes its symbol's start; mod()
   * and umod() keys by the module. Other keys are returned as they are.
   */
  private symbolKey(kind: number, key: bigint | Uint8Array): bigint | Uint8Array {
    const symbols = this.machine.symbols;
    if (kind === DTRACEACT.SYM || kind === DTRACEACT.MOD) {
      if (typeof key !== 'bigint') return key;
      const m = symbols.lookup(key);
      if (kind === DTRACEACT.SYM) return m?.symbol?.value ?? key;
      return m ? this.moduleAddress(m.module, key) : key;
    }
    if ((kind === DTRACEACT.USYM || kind === DTRACEACT.UMOD) && key instanceof Uint8Array && key.length >= 16) {
      const pid = getWord(key, 0);
      const address = getWord(key, 8);
      const m = symbols.lookupUser?.(pid, address);
      const to = kind === DTRACEACT.USYM ? m?.symbol?.value : m ? this.moduleAddress(`${pid}\u0000${m.module}`, address) : undefined;
      if (to === undefined) return key;
      const out = key.slice();
      putWord(out, 8, to, 8);
      return out;
    }
    return key;
  }

  /** Evaluates an action's DIFO and returns what its record holds: a value, or bytes for by-reference data. */
  private recordValue(act: ActionDescription, difo: LoadedDifo | undefined, f: VmFiring): bigint | Uint8Array {
    if (act.kind === DTRACEACT.STACK || act.kind === DTRACEACT.USTACK || act.kind === DTRACEACT.JSTACK) {
      const depth = Number(act.arg & 0xffffffffn) || (act.kind === DTRACEACT.STACK ? this.options.stackframes : this.options.ustackframes);
      const pcs = act.kind === DTRACEACT.STACK ? this.machine.kernelStack(f.cpu, depth) : this.machine.userStack(f.cpu, depth);
      // An aggregation key has no record: pointer-sized pcs for stack(), as a record would hold.
      const pointer = this.program.dataModel === 'ILP32' ? 4 : 8;
      const size = act.record?.size ?? (act.kind === DTRACEACT.STACK ? depth * pointer : (depth + 1) * 8);
      const out = new Uint8Array(size);
      let off = 0;
      // stack(): pointer-sized program counters (record size / depth); ustack(): the pid, then 64-bit ones.
      let pcSize = 8;
      if (act.kind === DTRACEACT.STACK) {
        pcSize = size / depth === 4 ? 4 : 8;
      } else if (size >= 8) {
        putWord(out, 0, BigInt(this.machine.thread(f.cpu).pid), 8);
        off = 8;
      }
      for (let i = 0; i < pcs.length && i < depth; i++) {
        if (off + pcSize > size) break;
        putWord(out, off, pcs[i]!, pcSize);
        off += pcSize;
      }
      return out;
    }
    // A user-address record (or key, which has no record) holds the pid, then the address.
    if ((act.kind === DTRACEACT.USYM || act.kind === DTRACEACT.UMOD || act.kind === DTRACEACT.UADDR) && difo && (act.record?.size ?? 16) >= 16) {
      // The pid of the current process, then the address (as the kernel records them).
      const out = new Uint8Array(16);
      putWord(out, 0, BigInt(this.machine.thread(f.cpu).pid), 8);
      putWord(out, 8, difRun(difo, f), 8);
      return out;
    }
    if (!difo) return act.arg;
    return this.recordFrom(act, difo, f, difRun(difo, f));
  }

  /** What the record of an action holds, given its DIFO's result `v` (not for stacks and user addresses, see recordValue). */
  private recordFrom(act: ActionDescription, difo: LoadedDifo, f: VmFiring, v: bigint): bigint | Uint8Array {
    const rtype = difo.difo.rtype;
    if (act.kind === DTRACEACT.TRACEMEM) {
      const size = act.record?.size ?? Number(act.arg);
      return readBytes(f, v, size);
    }
    if (rtype.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) {
      const size = act.record?.size ?? rtype.size;
      if (rtype.kind === DIF_TYPE_STRING) {
        const out = new Uint8Array(size);
        const max = Math.min(size, this.options.strsize);
        const off = this.arena.offsetOf(v, 1);
        if (off >= 0) {
          // A string in the arena (scratch, a variable, a string table) is copied once, up to its NUL.
          const bytes = this.arena.bytes;
          const limit = Math.min(bytes.length, off + max, off + Math.max(0, size - 1));
          let end = off;
          while (end < limit && bytes[end] !== 0) end++;
          out.set(bytes.subarray(off, end));
          return out;
        }
        const s = readStringBytes(f, v, max);
        out.set(s.subarray(0, Math.max(0, size - 1)));
        return out;
      }
      return readBytes(f, v, size);
    }
    return v;
  }

  /**
   * A string result at `v` in the arena, copied into its record in the chunk
   * as recordFrom copies it (up to its NUL, at most strsize bytes and one
   * less than the record; the rest of a fresh chunk is zero). Returns false,
   * copying nothing, for a string outside the arena.
   */
  private recordArenaString(bytes: Uint8Array, base: number, size: number, act: ActionDescription, v: bigint): boolean {
    const off = this.arena.offsetOf(v, 1);
    if (off < 0) return false;
    const rec = act.record!;
    this.recordFits(act, size);
    const arena = this.arena.bytes;
    const limit = Math.min(arena.length, off + Math.min(rec.size, this.options.strsize), off + Math.max(0, rec.size - 1));
    let end = off;
    while (end < limit && arena[end] !== 0) end++;
    bytes.set(arena.subarray(off, end), base + rec.offset);
    return true;
  }

  private recordFits(act: ActionDescription, size: number): void {
    const rec = act.record!;
    if (rec.offset + rec.size > size) throw new LoadError(`record of action ${act.kind} does not fit its ECB (offset ${rec.offset}, size ${rec.size}, ECB size ${size})`);
  }

  /** Writes a record into the chunk of `size` bytes at `base` of `bytes` (`view` over the same bytes). */
  private writeRecord(bytes: Uint8Array, view: DataView, base: number, size: number, act: ActionDescription, value: bigint | Uint8Array): void {
    this.recordFits(act, size);
    const rec = act.record!;
    const at = base + rec.offset;
    if (value instanceof Uint8Array) {
      bytes.set(value.subarray(0, rec.size), at);
      return;
    }
    // setBigUint64 stores the value modulo 2^64, as BigInt.asUintN(64) would make it;
    // a smaller record holds its low bytes.
    if (rec.size === 8) {
      view.setBigUint64(at, value, true);
      return;
    }
    WORD.setBigUint64(0, value, true);
    switch (rec.size) {
      case 1: view.setUint8(at, WORD.getUint8(0)); break;
      case 2: view.setUint16(at, WORD.getUint16(0, true), true); break;
      case 4: view.setUint32(at, WORD.getUint32(0, true), true); break;
      default: for (let i = 0; i < Math.min(8, rec.size); i++) bytes[at + i] = WORD.getUint8(i);
    }
  }

  // -------------------------------------------------------------------------
  // DTrace Destructive Action Functions (probe context; -w was checked at enabling)

  /** "<what> action at probe P:M:F:N (ecb ADDR)": the ECB is named by its EPID, the framework's handle on it. */
  private destructiveActionAt(what: string, ep: EnabledProbe): string {
    const p = ep.probe;
    return `${what} action at probe ${p.provider}:${p.module}:${p.function}:${p.name} (ecb 0x${ep.epid.toString(16)})`;
  }

  /**
   * dtrace_action_chill: spin `ns` of virtual time on `cpu`, unless the CPU
   * would then have chilled more than CHILL_MAX within one CHILL_INTERVAL
   * (an illegal operation, as illumos refuses it). Time read after it in the
   * clause has moved on.
   */
  private chill(cpu: number, ns: bigint, f: VmFiring): void {
    const now = this.machine.now();
    const c = (this.chills[cpu] ??= { mark: now, chilled: 0n });
    if (now - c.mark > CHILL_INTERVAL) {
      c.mark = now;
      c.chilled = 0n;
    }
    if (ns < 0n || c.chilled + ns > CHILL_MAX) throw new DifFault(DTRACEFLT.ILLOP, 0n);
    this.machine.chill?.(cpu, ns);
    c.chilled += ns;
    f.timestamp = this.machine.now();
  }

  /**
   * dtrace_action_panic: the first panic() wins (dtrace_panicked); the
   * machine panics with dtrace's message. Tracing then ends: the kernel
   * runs no more. A machine with no kernel to panic says so.
   */
  private panic(ep: EnabledProbe, cpu: number): void {
    if (this.panicked !== undefined) return;
    this.panicked = `dtrace: ${this.destructiveActionAt('panic', ep)}`;
    if (this.machine.panic) this.machine.panic(cpu, this.panicked);
    else this.kernelMessages.push(`${this.panicked}: there is no guest kernel to panic; tracing ends\n`);
  }

  /** Fires dtrace:::ERROR for a fault: the library's ERROR record plus the user's ERROR clauses. */
  private error(ep: EnabledProbe, cpu: number, ndx: number, fault: DifFault): void {
    if (this.inError) {
      this.drops.doubleError++;
      return;
    }
    this.appendError(cpu, ep.epid, ndx, fault);
    const errorProbe = this.registry.lookup('dtrace', '', '', 'ERROR');
    if (!errorProbe || !this.plans.has(errorProbe.id)) return;
    this.inError = true;
    try {
      // Arguments are uint64_t: an offset of -1 (a fault outside DIF) is 0xffffffffffffffff, as dtrace_probe receives it.
      this.probe(errorProbe.id, cpu, [0n, BigInt(ep.epid), BigInt(ndx), BigInt.asUintN(64, BigInt(fault.difOffset)), BigInt(fault.fault), fault.address]);
    } finally {
      this.inError = false;
    }
  }

  // -------------------------------------------------------------------------
  // DTrace Buffer Functions

  /** A record the firing plan built (`size` bytes of `bytes` from `start`), copied into the CPU's buffer as its policy allows. */
  private appendBytes(cpu: number, bytes: Uint8Array, start: number, size: number): void {
    const at = this.buffers.reserve(cpu, size);
    if (at < 0) return;
    const u8 = sharedBlock().u8;
    if (size > 64) u8.set(start === 0 && size === bytes.length ? bytes : bytes.subarray(start, start + size), at);
    else for (let k = 0; k < size; k++) u8[at + k] = bytes[start + k]!;
  }

  /** The library ERROR enabling's record: epid 0 (DTRACE_EPIDNONE), then the faulting ECB's epid, the action, the DIF offset, the fault and its address. */
  private appendError(cpu: number, epid: number, ndx: number, fault: DifFault): void {
    const at = this.buffers.reserve(cpu, ERROR_RECORD_SIZE);
    if (at < 0) return;
    const b = sharedBlock();
    b.u8.fill(0, at, at + ERROR_RECORD_SIZE);
    const view = new DataView(b.memory.buffer, at, ERROR_RECORD_SIZE);
    view.setUint32(0, ERROR_EPID, true);
    view.setUint32(4, epid, true);
    view.setUint32(8, ndx, true);
    view.setInt32(12, fault.difOffset, true);
    view.setUint32(16, fault.fault, true);
    view.setBigUint64(24, BigInt.asUintN(64, fault.address), true);
    view.setUint8(32, fault.address < 0n ? 1 : 0);
  }

  /**
   * dtrace_buffer_switch / BUFSNAP: hands the consumer the CPU's buffered
   * entries and drops, leaving an empty buffer. A ring buffer is only read
   * when tracing stops (its oldest data is overwritten meanwhile). The
   * records are copied out of the shared memory; after tracing stopped
   * they are what the buffers held then.
   */
  snapshot(cpu: number, final: boolean): { entries: BufferEntry[]; drops: number } {
    this.cleanSpeculations(final);
    if (this.options.bufpolicy === 'ring' && !final) return { entries: [], drops: 0 };
    if (this.options.bufpolicy === 'fill' && !final && !this.buffers.isFull(cpu)) return { entries: [], drops: 0 };
    let taken: TakenBuffer | undefined;
    if (this.leftovers !== undefined) {
      taken = this.leftovers[cpu];
      this.leftovers[cpu] = undefined;
    } else taken = this.buffers.take(cpu);
    return taken === undefined ? { entries: [], drops: 0 } : { entries: this.bufferEntries(taken.bytes), drops: taken.drops };
  }

  /** The entries of a buffer's records, as a consumer walks them (dtrace_bufdesc): by epid, each ECB's size. */
  private bufferEntries(bytes: Uint8Array): BufferEntry[] {
    const entries: BufferEntry[] = [];
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at < bytes.length; ) {
      const epid = view.getUint32(at, true);
      if (epid === ERROR_EPID) {
        const magnitude = view.getBigUint64(at + 24, true);
        const address = view.getUint8(at + 32) !== 0 ? BigInt.asIntN(64, magnitude) : magnitude;
        entries.push({ kind: 'error', epid: view.getUint32(at + 4, true), action: view.getUint32(at + 8, true), offset: view.getInt32(at + 12, true), fault: view.getUint32(at + 16, true), address });
        at += ERROR_RECORD_SIZE;
        continue;
      }
      const size = this.enabled[epid - 1]!.ecb.size;
      entries.push({ kind: 'data', epid, bytes: bytes.subarray(at, at + size) });
      at += size;
    }
    return entries;
  }

  /** Whether a fill-policy buffer filled (dtrace(1) then stops, as with exit). */
  anyBufferFull(): boolean {
    return this.buffers.anyFull();
  }

  /**
   * DTRACEIOC_AGGSNAP: hands the consumer what every aggregation gathered
   * since the last snapshot and starts empty ones (the aggregation buffer
   * switch), so aggsize bounds the entries of one snapshot interval.
   */
  takeAggregations(): Map<number, Map<string, AggregationEntry>> {
    const taken = new Map<number, Map<string, AggregationEntry>>();
    for (const [id, table] of this.tables) taken.set(id, table.take());
    this.aggregationBytes = 0;
    return taken;
  }

  /** What every aggregation gathered since the last snapshot, left in place (the entries are live). */
  get aggregations(): ReadonlyMap<number, ReadonlyMap<string, AggregationEntry>> {
    return new Map([...this.tables].map(([id, t]) => [id, t.entries]));
  }

  takeAggregationDrops(): number[] {
    const d = this.aggDrops.slice();
    this.aggDrops.fill(0);
    return d;
  }

  // -------------------------------------------------------------------------
  // Aggregations: keyed by the tuple (see AggregationTable and aggregateStep);
  // sizes accounted against aggsize.

  /** dtrace_aggregate_*: `value` (and `increment`) into an entry's data. */
  private aggregate(t: AggregationTable, entry: AggregationBucket, value: bigint, increment: bigint): void {
    const desc = t.desc;
    if (desc.function === DTRACEAGG.COUNT) {
      entry.add(1);
      return;
    }
    if (desc.function === DTRACEAGG.SUM && value >= 0n && value <= SMALL_ADDEND) {
      entry.add(Number(value));
      return;
    }
    const v = BigInt.asIntN(64, value);
    const d = entry.data;
    switch (desc.function) {
      case DTRACEAGG.SUM: d[0] = BigInt.asIntN(64, d[0]! + v); break;
      case DTRACEAGG.MIN: if (v < d[0]!) d[0] = v; break;
      case DTRACEAGG.MAX: if (v > d[0]!) d[0] = v; break;
      case DTRACEAGG.AVG: d[0] = d[0]! + 1n; d[1] = BigInt.asIntN(64, d[1]! + v); break;
      case DTRACEAGG.STDDEV: {
        d[0] = d[0]! + 1n;
        d[1] = BigInt.asIntN(64, d[1]! + v);
        const sq = ((d[3]! << 64n) | BigInt.asUintN(64, d[2]!)) + v * v;
        d[2] = BigInt.asUintN(64, sq);
        d[3] = sq >> 64n;
        break;
      }
      // Bucket counts are int64_t: they wrap as the kernel's additions do.
      case DTRACEAGG.QUANTIZE: {
        const b = quantizeBucket(v);
        d[b] = BigInt.asIntN(64, d[b]! + increment);
        break;
      }
      case DTRACEAGG.LQUANTIZE: {
        const { base, levels, limit, step } = t.lquantize!;
        let b: number;
        if (v < base) b = 0;
        else if (v >= limit) b = levels + 1;
        else b = Number((v - base) / step) + 1;
        d[1 + b] = BigInt.asIntN(64, d[1 + b]! + increment);
        break;
      }
      case DTRACEAGG.LLQUANTIZE: {
        const b = llquantizeBucket(desc.arg, v);
        d[1 + b] = BigInt.asIntN(64, d[1 + b]! + increment);
        break;
      }
      default:
        throw new LoadError(`unknown aggregating function ${desc.function}`);
    }
  }

  // -------------------------------------------------------------------------
  // Speculations

  /** nspec when tracing started: speculation ids are 1..nspec. */
  private readonly nspec: number;

  /** A speculation id (dtrace_specid_t, 32 bits); one beyond nspec is an illegal operation, as in speculate(), commit() and discard(). */
  private speculationId(value: bigint): number {
    const which = Number(BigInt.asUintN(32, value));
    if (which > this.nspec) throw new DifFault(DTRACEFLT.ILLOP, 0n);
    return which;
  }

  /** Virtual time of the cleaner's next run (the dts_cleaner cyclic, every cleanrate from dtrace_go). */
  private nextClean: bigint | undefined;

  /**
   * dtrace_speculation_clean: the cleaner runs every cleanrate; it is run
   * here, before a speculation is used or a buffer read, when a run of it
   * has come due since the last. It finishes committing-many speculations
   * (each CPU's buffer into that CPU's principal buffer) and discarding
   * ones, and makes them inactive. `force` runs it regardless (the final
   * read, which comes after the cleaner has had time to run).
   */
  private cleanSpeculations(force = false): void {
    if (this.nextClean === undefined) return;
    const now = this.machine.now();
    if (!force && now < this.nextClean) return;
    const rate = this.options.cleanrate > 0n ? this.options.cleanrate : 1n;
    if (now >= this.nextClean) this.nextClean += ((now - this.nextClean) / rate + 1n) * rate;
    const ncpus = this.machine.ncpus;
    this.speculations.forEach((spec, i) => {
      if (spec.state === 'discarding') {
        for (let cpu = 0; cpu < ncpus; cpu++) this.specBuffers.clear(spec.buffers, cpu);
        spec.state = 'inactive';
      } else if (spec.state === 'committingmany') {
        for (let cpu = 0; cpu < ncpus; cpu++) if (this.specBuffers.used(spec.buffers, cpu) > 0) this.speculationCommit(i + 1, cpu);
        spec.state = 'inactive';
      }
    });
  }

  /**
   * speculation() (dtrace_speculation): the first inactive speculation
   * becomes active and its id is returned. With none, 0 — counted as
   * failed because busy when some speculation is still being committed or
   * discarded, as unavailable otherwise.
   */
  private speculationAllocate(cpu: number): number {
    void cpu;
    this.cleanSpeculations();
    let busy = false;
    for (let i = 0; i < this.speculations.length; i++) {
      const s = this.speculations[i]!;
      if (s.state === 'inactive') {
        s.state = 'active';
        return i + 1;
      }
      if (s.state === 'committing' || s.state === 'committingmany' || s.state === 'discarding') busy = true;
    }
    // Every speculation made so far is in use: the next id (inactive, never made yet), while there is one.
    // Its buffers are laid out now; a speculation the memory cannot hold is unavailable.
    if (this.speculations.length < this.nspec && this.activityNow !== 'stopped') {
      const buffers = this.specBuffers.make();
      if (buffers !== undefined) {
        this.speculations.push({ state: 'active', buffers });
        return this.speculations.length;
      }
    }
    if (busy) this.drops.specBusy++;
    else this.drops.specUnavailable++;
    return 0;
  }

  /**
   * speculate() (dtrace_speculation_buffer): the buffer of `cpu` of an
   * active speculation; none (the clause's data is not recorded) for id 0
   * or a speculation that is inactive or being committed or discarded. An
   * id beyond nspec is an illegal operation.
   */
  private speculationBuffer(cpu: number, value: bigint): number {
    this.cleanSpeculations();
    const which = this.speculationId(value);
    if (which === 0) return -1;
    const spec = this.speculations[which - 1];
    if (!spec) return -1; // never allocated: inactive
    const buf = spec.buffers;
    switch (spec.state) {
      case 'active':
        spec.state = 'activeone';
        return buf;
      case 'activeone':
        // Data in this CPU's buffer means it is the one CPU; otherwise another CPU's speculate() makes it active on many.
        if (this.specBuffers.used(buf, cpu) === 0) spec.state = 'activemany';
        return buf;
      case 'activemany':
        return buf;
      default:
        return -1;
    }
  }

  /** A speculative chunk the firing plan built (`size` bytes of `bytes` from `start`), copied into `cpu`'s buffer of `spec` unless it drops. */
  private specAppend(spec: number, cpu: number, bytes: Uint8Array, start: number, size: number): void {
    const at = this.specBuffers.reserve(spec, cpu, size);
    if (at < 0) return;
    const u8 = sharedBlock().u8;
    if (size > 64) u8.set(start === 0 && size === bytes.length ? bytes : bytes.subarray(start, start + size), at);
    else for (let k = 0; k < size; k++) u8[at + k] = bytes[start + k]!;
  }

  /**
   * commit() (dtrace_speculation_commit): copies this CPU's buffer of the
   * speculation into its principal buffer. Active on this CPU only (or
   * nowhere), the speculation is inactive again at once; otherwise it is
   * committing-many until the cleaner has committed the other CPUs' data.
   */
  private speculationCommit(id: number, cpu: number): void {
    this.cleanSpeculations();
    const spec = this.speculations[id - 1];
    if (!spec) return;
    const src = spec.buffers;
    const current = spec.state;
    let next: SpeculationState = current;
    switch (current) {
      case 'inactive':
      case 'discarding':
      case 'committing':
        return;
      case 'committingmany':
        break;
      case 'active':
        next = 'committing';
        break;
      case 'activeone':
        next = this.specBuffers.used(src, cpu) > 0 ? 'committing' : 'committingmany';
        break;
      case 'activemany':
        next = 'committingmany';
        break;
    }
    spec.state = next;
    this.drops.speculative += this.specBuffers.commit(src, cpu, this.buffers, this.sizeOfEpid, { timestamp: this.machine.now(), headerOf: this.headerOfEpid });
    if (current === 'active' || (current === 'activeone' && next === 'committing')) spec.state = 'inactive';
  }

  /**
   * discard() (dtrace_speculation_discard): drops this CPU's buffer; a
   * speculation active only here is inactive at once, one active nowhere
   * or elsewhere is discarding until the cleaner has run.
   */
  private speculationDiscard(id: number, cpu: number): void {
    this.cleanSpeculations();
    const spec = this.speculations[id - 1];
    if (!spec) return;
    const buf = spec.buffers;
    switch (spec.state) {
      case 'active':
      case 'activemany':
        spec.state = 'discarding';
        break;
      case 'activeone':
        spec.state = this.specBuffers.used(buf, cpu) > 0 ? 'inactive' : 'discarding';
        break;
      default:
        return;
    }
    this.specBuffers.clear(buf, cpu);
  }

  // -------------------------------------------------------------------------
  // DTrace Dynamic Variables: thread-locals and associative arrays live in
  // the dynamic-variable table (dynvar.ts), in the shared WebAssembly memory,
  // which translated DIFOs also read and write; a store of 0 frees, a store
  // past dynvarsize drops.

  /** The table, made at the first need; a state whose table could not be made (no memory) fails to enable. */
  private dynamicVariables(): DynamicVariables {
    if (this.dynvars === undefined) {
      const t = DynamicVariables.create(this.options.dynvarsize);
      if (t === undefined) throw new LoadError('could not enable tracing: Not enough space');
      this.dynvars = t;
      // A state dropped without stop() still hands its region back.
      dynvarRegions.register(this, t, t);
    }
    return this.dynvars;
  }

  /** The dynamic variables' region goes back to the shared memory (at stop). */
  private freeDynamicVariables(): void {
    if (this.dynvars === undefined) return;
    dynvarRegions.unregister(this.dynvars);
    this.dynvars.free();
  }

  readonly variables: VmVariables = {
    loadGlobal: (id) => this.globals.get(id) ?? 0n,
    storeGlobal: (id, v) => {
      this.globals.set(id, v);
    },
    loadThread: (id, thread) => this.dynamicVariables().loadThread(id, thread),
    storeThread: (id, thread, v) => this.dynamicVariables().storeThread(id, thread, v),
    loadAssoc: (id, tuple, thread) => this.dynamicVariables().loadAssoc(id, tuple, thread),
    storeAssoc: (id, tuple, thread, v) => this.dynamicVariables().storeAssoc(id, tuple, thread, v),
  };

  // -------------------------------------------------------------------------
  // DTrace Control: BEGIN fires in warmup on the current CPU, END in cooldown.

  /** dtrace_go: enable, fire BEGIN, become active. */
  go(cpu = 0, fireBegin: (cpu: number) => void = () => {}): void {
    if (!this.buffers.layout()) throw new LoadError('could not enable tracing: Not enough space');
    this.enable();
    this.nextClean = this.machine.now() + this.options.cleanrate;
    this.activity = 'warmup';
    this.beganOn = cpu;
    fireBegin(cpu);
    if (this.activity === 'warmup') this.activity = 'active';
  }

  /** dtrace_stop: fire END (cooldown), then stop. */
  stop(cpu = 0, fireEnd: (cpu: number) => void = () => {}): void {
    if (this.activity === 'stopped') return;
    this.activity = 'cooldown';
    this.endedOn = cpu;
    fireEnd(cpu);
    this.activity = 'stopped';
    this.disable();
    // Nothing fires any more: the trampolines' cells are taken in and handed back, and the keyed tables' regions.
    for (const t of this.tables.values()) {
      t.disarm();
      if (t.keyed === undefined) continue;
      keyedRegions.unregister(t.keyed);
      t.keyed.free();
      t.keyed = undefined;
    }
    this.cellRegions.freeAll();
    this.freeDynamicVariables();
    // The cleaner's last run (the final read would run it), then the buffers' records are copied out and their regions freed.
    this.cleanSpeculations(true);
    this.leftovers = Array.from({ length: this.machine.ncpus }, (_, cpu) => this.buffers.take(cpu));
    this.buffers.free();
    this.specBuffers.free();
    this.releaseArena();
  }
}

/** The arenas' regions of states dropped without stop(), handed back when they are collected. */
const arenaRegions = new FinalizationRegistry<number>((start) => freeRegion(start));

/** Whether two tables' keys are alike (see aggtable.ts KeyShape). */
function sameShapes(a: readonly KeyShape[], b: readonly KeyShape[]): boolean {
  return a.length === b.length && a.every((s, k) => {
    const t = b[k]!;
    return s.string ? t.string && t.limit === s.limit : !t.string;
  });
}

/** Regions of states dropped without stop(), handed back when they are collected. */
const dynvarRegions = new FinalizationRegistry<DynamicVariables>((t) => t.free());
/** The keyed aggregation tables of states dropped without stop(), handed back likewise. */
const keyedRegions = new FinalizationRegistry<KeyedTable>((t) => t.free());

/** The state's drop counts: dynamic-variable drops are the table's count. */
function dropCounts(dynamic: () => number): DropCounts {
  return {
    aggregation: 0,
    get dynamic(): number {
      return dynamic();
    },
    set dynamic(_: number) {
      throw new TypeError('dynamic-variable drops are counted by the table');
    },
    speculative: 0,
    specBusy: 0,
    specUnavailable: 0,
    doubleError: 0,
  };
}

function describe(d: ProbeDescription): string {
  return `${d.provider}:${d.module}:${d.function}:${d.name}`;
}

export function initialAggregationData(desc: AggregationDescription): bigint[] {
  switch (desc.function) {
    case DTRACEAGG.MIN: return [0x7fffffffffffffffn];
    case DTRACEAGG.MAX: return [-0x8000000000000000n];
    case DTRACEAGG.AVG: return [0n, 0n];
    case DTRACEAGG.STDDEV: return [0n, 0n, 0n, 0n];
    case DTRACEAGG.QUANTIZE: return new Array<bigint>(DTRACE_QUANTIZE_NBUCKETS).fill(0n);
    case DTRACEAGG.LQUANTIZE: {
      const { levels } = lquantizeParams(desc.arg);
      return [desc.arg, ...new Array<bigint>(levels + 2).fill(0n)];
    }
    case DTRACEAGG.LLQUANTIZE: {
      const p = llquantizeParams(desc.arg);
      return [desc.arg, ...new Array<bigint>(llquantizeBucketCount(p.factor, p.low, p.high, p.nsteps)).fill(0n)];
    }
    default: return [0n];
  }
}

export { globMatch };

/**
 * One key's part of an aggregation's key string (the parts joined by '|'):
 * an integer in hexadecimal, or bytes (a string, a stack) as their length,
 * the length up to the last non-zero byte and those bytes, one character
 * each. Every part says where it ends, so two tuples never make the same
 * key string (strings may hold '|'), and it is cheap for the mostly empty
 * strsize buffers strings arrive in.
 */
function keyPart(k: bigint | Uint8Array): string {
  return k instanceof Uint8Array ? bytesKey(k) : 'i' + k.toString(16);
}

function bytesKey(k: Uint8Array): string {
  let end = k.length;
  while (end > 0 && k[end - 1] === 0) end--;
  let text = 's' + k.length + ',' + end + ':';
  // A short key (a stack(), a string) byte by byte: a subarray of a small array would make V8 move its bytes out of its heap.
  if (end <= 64) {
    for (let i = 0; i < end; i++) text += String.fromCharCode(k[i]!);
    return text;
  }
  for (let i = 0; i < end; i += 4096) text += String.fromCharCode.apply(null, k.subarray(i, Math.min(end, i + 4096)) as unknown as number[]);
  return text;
}
