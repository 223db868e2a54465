// The consumer, after libdtrace's dt_consume.c and dtrace(1)'s chew/chewrec:
// it snapshots each CPU's principal buffer (the BEGIN CPU first), decodes
// every firing by its EPID into records, and writes dtrace(1)'s output —
// the probe line or flow-indented function, trace/printf/printa/stack/
// tracemem output, library actions (clear, normalize, trunc, setopt, ...),
// error and drop messages — and the aggregation snapshot at the end.

import { DTRACEACT, DTRACEAGG, DT_ACT, dtraceActIsAggregation } from '../program/actions.js';
import type { ActionDescription, AggregationDescription, CompiledProgram, RecordDescription } from '../program/program.js';
import { TypeTable } from '../program/type-table.js';
import { DIF_TYPE_STRING } from '../dif/constants.js';
import { bytesString } from '../dif/difo.js';
import { initialAggregationData, type DTraceState, type BufferEntry, type AggregationEntry, type EnabledProbe } from '../framework/state.js';
import { faultString, DTRACEFLT } from '../framework/faults.js';
import { setOption } from '../framework/options.js';
import { formatPrintf, parsePrintfFormat, printfArgumentCount, formatStack, type Datum, type FormatPiece } from './printf.js';
import { formatPrint, isSignedType } from './print.js';
import { modString, stackFrameString, symString, uaddrToString, umodString, usymString } from './symbols.js';
import type { CType } from '../types/ctype.js';
import { createCTypeDictionary, createDTypeDictionary } from '../types/builtins.js';
import { TypeDictionaryChain, type TypeDictionary } from '../types/dictionary.js';
import { averageValue, printBytes, printDatumInteger, printLlquantize, printLquantize, printQuantize, stddevValue, traceInteger, rjust } from './aggprint.js';
import { quantizeBucketValue } from '../framework/buckets.js';

export interface ConsumerOutput {
  /** Trace output (stdout or -o file). */
  out(s: string): void;
  /** Messages: errors and drops, already prefixed "dtrace: ". */
  err(s: string): void;
  /** system(): runs a command after everything printed before it (destructive; the host decides how). */
  system?(command: string): void;
  /**
   * freopen(): sends later trace output to a file ("" restores the original
   * output). Returns the reason (strerror text) when the file cannot be
   * opened; output then stays where it was.
   */
  freopen?(path: string): string | void;
  /** ftruncate(): empties the output file and writes on from its start (ftruncate(2) and fseeko). */
  ftruncate?(): void;
}

/** One decoded firing, for --json. */
export interface JsonRecord {
  cpu: number;
  id: number;
  epid: number;
  probe: string;
  timestamp: string;
  output: string;
}

export { formatPrint, isSignedType } from './print.js';


/** A string record or key up to its NUL, as a byte string. */
function cString(b: Uint8Array): string {
  let end = b.indexOf(0);
  if (end < 0) end = b.length;
  return bytesString(b.subarray(0, end));
}

export class Consumer {
  private heading = false;
  private readonly formats = new Map<number, FormatPiece[]>();
  private readonly normals = new Map<number, bigint>();
  private readonly printed = new Set<number>();
  private indent = 0;
  /** The consumer's aggregation snapshot (dt_aggregate_t's hash), by aggregation id then key. */
  private readonly aggs = new Map<number, Map<string, AggregationEntry>>();
  /** Virtual time of the last aggregation snapshot (dt_lastagg); undefined before the first or after a forced one. */
  private lastAgg: bigint | undefined;
  /** Set when a firing recorded exit(). */
  exitSeen = false;
  json: ((r: JsonRecord) => void) | undefined;
  /** The program's type table (CompiledProgram.types), read as records ask for their types. */
  private typeTable: TypeTable | undefined;

  constructor(
    readonly state: DTraceState,
    readonly output: ConsumerOutput,
  ) {}

  private get program(): CompiledProgram {
    return this.state.program;
  }
  /**
   * The D type of the value a record holds (RecordDescription.type), when
   * the program gives it: it decides the sign of %d (pfcheck_dint) and is
   * what print() prints by. Without it %d counts its argument as signed and
   * print() prints as trace() does (dtrace_print finding no type).
   */
  private recordType(rec: RecordDescription): CType | undefined {
    const types = this.program.types;
    if (rec.type === undefined || types === undefined) return undefined;
    if (this.typeTable?.types !== types) this.typeTable = new TypeTable(types);
    return this.typeTable.get(rec.type);
  }

  private get opts() {
    return this.state.options;
  }

  private format(id: number): FormatPiece[] {
    let f = this.formats.get(id);
    if (!f) {
      const desc = this.program.formats.find((x) => x.id === id) ?? this.program.formats[id];
      if (!desc) throw new Error(`record refers to format ${id}, which the program does not define`);
      // The format is a C string: an escaped NUL ("\0", "\x") ends it.
      const nul = desc.format.indexOf('\0');
      f = parsePrintfFormat(nul < 0 ? desc.format : desc.format.slice(0, nul), this.program.dataModel);
      this.formats.set(id, f);
    }
    return f;
  }

  /**
   * dtrace_aggregate_snap: at most once per aggrate of virtual time (always
   * when `force`, as dtrace_work once tracing has stopped), merges what the
   * aggregations gathered since the last snapshot into the consumer's copy.
   * printa() and the final aggregation output print that copy. Returns
   * whether a snapshot was taken.
   */
  snapAggregations(force = false): boolean {
    const now = this.state.machine.now();
    if (force) this.lastAgg = undefined;
    if (this.lastAgg !== undefined) {
      if (now - this.lastAgg < this.opts.aggrate) return false;
      this.lastAgg += this.opts.aggrate;
    } else {
      this.lastAgg = now;
    }
    for (const [id, taken] of this.state.takeAggregations()) {
      const desc = this.state.aggregationDescs.get(id);
      if (!desc) continue;
      let table = this.aggs.get(id);
      if (!table) {
        table = new Map();
        this.aggs.set(id, table);
      }
      for (const [key, e] of taken) {
        const have = table.get(key);
        if (have) have.data = mergeAggregationData(desc, have.data, e.data);
        else table.set(key, { keys: e.keys, data: e.data.slice() });
      }
    }
    return true;
  }

  /** Virtual time at which the next aggregation snapshot is due (for a session's sleep). */
  nextAggregationSnap(): bigint | undefined {
    return this.lastAgg === undefined ? undefined : this.lastAgg + this.opts.aggrate;
  }

  /** dtrace_consume: every CPU's buffer, the CPU that ran BEGIN first (after the aggregation snapshot, as dtrace_work). */
  consume(final: boolean): void {
    // What destructive actions said (breakpoint()) came at once, before the buffered data is read.
    for (const m of this.state.kernelMessages.splice(0)) this.output.err(m);
    this.snapAggregations(final);
    const n = this.state.machine.ncpus;
    const order = [this.state.beganOn, ...Array.from({ length: n }, (_, i) => i).filter((i) => i !== this.state.beganOn)];
    for (const cpu of order) {
      const snap = this.state.snapshot(cpu, final);
      for (const e of snap.entries) this.entry(cpu, e);
      if (snap.drops > 0) this.output.err(`dtrace: ${this.dropTag('PRINCIPAL')}${snap.drops} drop${snap.drops > 1 ? 's' : ''} on CPU ${cpu}\n`);
    }
    const aggDrops = this.state.takeAggregationDrops();
    aggDrops.forEach((d, cpu) => {
      if (d > 0) this.output.err(`dtrace: ${this.dropTag('AGGREGATION')}${d} aggregation drop${d > 1 ? 's' : ''} on CPU ${cpu}\n`);
    });
    this.reportDrops();
  }

  private reported = { dynamic: 0, speculative: 0, specBusy: 0, specUnavailable: 0, doubleError: 0 };

  /** dt_handle_status: counts that grew since the last report. */
  private reportDrops(): void {
    const d = this.state.drops;
    const tags = { dynamic: 'DYNAMIC', speculative: 'SPEC', specBusy: 'SPECBUSY', specUnavailable: 'SPECUNAVAIL', doubleError: 'DBLERROR' } as const;
    const msg = (now: number, key: keyof typeof this.reported, text: (n: number, s: string) => string): void => {
      const delta = now - this.reported[key];
      if (delta > 0) this.output.err(`dtrace: ${this.dropTag(tags[key])}${text(delta, delta > 1 ? 's' : '')}\n`);
      this.reported[key] = now;
    };
    msg(d.dynamic, 'dynamic', (n, s) => `${n} dynamic variable drop${s}`);
    msg(d.speculative, 'speculative', (n, s) => `${n} speculative drop${s}`);
    msg(d.specBusy, 'specBusy', (n, s) => `${n} failed speculation${s} (available buffer(s) still busy)`);
    msg(d.specUnavailable, 'specUnavailable', (n, s) => `${n} failed speculation${s} (no speculative buffer available)`);
    msg(d.doubleError, 'doubleError', (n, s) => `${n} error${s} in ERROR probe enabling`);
  }

  private entry(cpu: number, e: BufferEntry): void {
    const ep = this.state.epid(e.epid);
    if (!ep) throw new Error(`buffer holds unknown EPID ${e.epid}`);
    if (e.kind === 'error') {
      const p = ep.probe;
      // dt_handle_err: the faulting address for bad address, alignment and stack faults only.
      const details = e.fault === DTRACEFLT.BADADDR || e.fault === DTRACEFLT.BADALIGN || e.fault === DTRACEFLT.BADSTACK ? ` (0x${BigInt.asUintN(64, e.address).toString(16)})` : '';
      const where = e.action === 0 ? 'predicate' : `action #${e.action}`;
      const off = e.offset !== -1 ? ` at DIF offset ${e.offset}` : '';
      this.output.err(`dtrace: error on enabled probe ID ${e.epid} (ID ${p.id}: ${p.provider}:${p.module}:${p.function}:${p.name}): ${faultString(e.fault)}${details} in ${where}${off}\n`);
      return;
    }
    let text = '';
    const quiet = (): boolean => this.opts.quiet;
    const flow = this.opts.flowindent;
    const p = ep.probe;
    if (!quiet() || flow) {
      if (!this.heading) {
        text += flow ? `${'CPU'.padStart(3)} ${'FUNCTION'.padEnd(41)}\n` : `${'CPU'.padStart(3)} ${'ID'.padStart(6)} ${'FUNCTION:NAME'.padStart(32)}\n`;
        this.heading = true;
      }
    }
    if (flow) {
      text += this.flowLine(cpu, ep);
    } else if (!quiet()) {
      text += `${String(cpu).padStart(3)} ${String(p.id).padStart(6)} ${`${p.function}:${p.name}`.padStart(32)} `;
    }
    const view = new DataView(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength);
    let tracememSize = 0;
    const recs: RecordAction[] = [];
    ep.ecb.actions.forEach((a, index) => {
      if (a.record && !dtraceActIsAggregation(a.kind)) recs.push({ ...a, record: a.record, index });
    });
    for (let i = 0; i < recs.length; i++) {
      const act = recs[i]!;
      const rec = act.record;
      const bytes = e.bytes.subarray(rec.offset, rec.offset + rec.size);
      const intValue = (): bigint => readInt(view, rec.offset, rec.size);
      if (act.kind === DTRACEACT.LIBACT) {
        const which = Number(act.arg);
        switch (which) {
          case DT_ACT.CLEAR:
            this.clear(Number(intValue()));
            continue;
          case DT_ACT.DENORMALIZE:
            this.normals.delete(Number(intValue()));
            continue;
          case DT_ACT.NORMALIZE: {
            const next = recs[++i];
            if (!next) throw new Error('normalize() record without its value');
            this.normals.set(Number(intValue()), readInt(view, next.record.offset, next.record.size));
            continue;
          }
          case DT_ACT.TRUNC: {
            const next = recs[++i];
            if (!next) throw new Error('trunc() record without its count');
            this.trunc(Number(intValue()), BigInt.asIntN(64, readInt(view, next.record.offset, next.record.size)));
            continue;
          }
          case DT_ACT.SETOPT: {
            // The option text ("name" or "name=value") is the format the record names.
            const text = this.program.formats.find((f) => f.id === Number(act.uarg))?.format ?? '';
            const eq = text.indexOf('=');
            const name = eq < 0 ? text : text.slice(0, eq);
            const value = eq < 0 ? null : text.slice(eq + 1);
            try {
              setOption(this.opts, name, value, true);
            } catch (err) {
              // dt_setopt's message ends with a newline of its own, then dt_handle_liberr adds one.
              this.libraryError(ep, `couldn't set option "${name}" to "${value ?? '1'}": ${(err as Error).message.replace(/^.*: /, '')}\n`);
            }
            continue;
          }
          case DT_ACT.FTRUNCATE:
            // Output so far goes out first; then the output file is emptied (a terminal or pipe is left alone).
            this.output.out(text);
            text = '';
            this.output.ftruncate?.();
            continue;
          default:
            continue;
        }
      }
      if (act.kind === DTRACEACT.EXIT) {
        this.exitSeen = true;
        continue;
      }
      // The kernel gives these actions no record (dtrace_ecb_action_add leaves their size 0): nothing prints.
      if (
        act.kind === DTRACEACT.SPECULATE || act.kind === DTRACEACT.COMMIT || act.kind === DTRACEACT.DISCARD ||
        act.kind === DTRACEACT.RAISE || act.kind === DTRACEACT.CHILL || act.kind === DTRACEACT.STOP ||
        act.kind === DTRACEACT.BREAKPOINT || act.kind === DTRACEACT.PANIC
      ) continue;
      if (act.kind === DTRACEACT.TRACEMEM_DYNSIZE) {
        tracememSize = Number(intValue());
        continue;
      }
      if (act.kind === DTRACEACT.STACK || act.kind === DTRACEACT.USTACK || act.kind === DTRACEACT.JSTACK) {
        const st = this.stackDatum(act.kind, rec, bytes);
        if (!st.silent) text += formatStack(st.frames, this.opts.stackindent);
        continue;
      }
      if (act.kind === DTRACEACT.SYM || act.kind === DTRACEACT.MOD || act.kind === DTRACEACT.USYM || act.kind === DTRACEACT.UMOD || act.kind === DTRACEACT.UADDR) {
        // dt_print_sym & co: "  %-50s". The user forms carry the pid first when the record has room for it.
        const symbols = this.state.machine.symbols;
        const wide = rec.size >= 16;
        const pc = readInt(view, rec.offset + (wide ? 8 : 0), wide ? 8 : rec.size);
        const pid = wide ? readInt(view, rec.offset, 8) : 0n;
        let s: string;
        switch (act.kind) {
          case DTRACEACT.SYM: s = symString(symbols, pc); break;
          case DTRACEACT.MOD: s = modString(symbols, pc); break;
          case DTRACEACT.USYM: s = usymString(symbols, pid, pc); break;
          case DTRACEACT.UMOD: s = umodString(symbols, pid, pc); break;
          default: s = uaddrToString(symbols, pid, pc);
        }
        text += '  ' + s.padEnd(50);
        continue;
      }
      if (act.kind === DTRACEACT.PRINTF || act.kind === DTRACEACT.SYSTEM || act.kind === DTRACEACT.FREOPEN) {
        // One record per argument; the first carries the format and the argument count (ntuple).
        const pieces = this.format(rec.format >= 0 ? rec.format : Number(act.arg));
        const n = rec.size === 0 ? 0 : Math.max(act.ntuple, 1);
        const args: Datum[] = [];
        for (let k = 0; k < n; k++) {
          const r = recs[i + k];
          if (!r) throw new Error('printf( ) record count mismatch');
          args.push(this.datum(r, view, e.bytes));
        }
        if (printfArgumentCount(pieces) > args.length) throw new Error(`printf( ) format needs ${printfArgumentCount(pieces)} arguments, the record has ${args.length}`);
        const s = formatPrintf(pieces, args, { symbols: this.state.machine.symbols });
        if (act.kind === DTRACEACT.PRINTF) text += s;
        else {
          // dtrace_system / dtrace_freopen: output so far goes out first.
          this.output.out(text);
          text = '';
          if (act.kind === DTRACEACT.SYSTEM) this.output.system?.(s);
          else {
            const failed = this.output.freopen?.(s);
            if (typeof failed === 'string') this.libraryError(ep, `couldn't freopen() "${s}": ${failed}`);
          }
        }
        if (n > 0) i += n - 1;
        continue;
      }
      if (act.kind === DTRACEACT.PRINTA) {
        const n = Math.max(act.ntuple, 1);
        const ids: number[] = [];
        for (let k = 0; k < n && i + k < recs.length; k++) {
          const r = recs[i + k]!;
          ids.push(Number(readInt(view, r.record.offset, r.record.size)));
        }
        i += n - 1;
        const fmt = rec.format >= 0 ? this.format(rec.format) : undefined;
        text += this.printa(ids, fmt);
        continue;
      }
      if (act.kind === DTRACEACT.TRACEMEM) {
        const size = tracememSize > 0 && tracememSize < bytes.length ? tracememSize : bytes.length;
        tracememSize = 0;
        text += printBytes(bytes.subarray(0, size), -33, quiet(), true);
        continue;
      }
      if (rec.size === 0) continue;
      if (act.kind === DTRACEACT.DIFEXPR && act.uarg === BigInt(DT_ACT.PRINT)) {
        const type = this.recordType(rec);
        if (type !== undefined) {
          text += formatPrint(type, bytes, this.state.machine.symbols);
          continue;
        }
      }
      if (rec.size === 1 || rec.size === 2 || rec.size === 4 || rec.size === 8) text += traceInteger(intValue(), rec.size, quiet());
      else text += printBytes(bytes, -33, quiet(), this.opts.rawbytes);
    }
    if (!quiet()) text += '\n';
    if (flow && (p.name === 'entry' || p.name.endsWith('-entry'))) this.indent += 2;
    this.output.out(text);
    if (this.json) {
      const ts = (BigInt(view.getUint32(4, true)) << 32n) | BigInt(view.getUint32(8, true));
      this.json({ cpu, id: p.id, epid: e.epid, probe: `${p.provider}:${p.module}:${p.function}:${p.name}`, timestamp: ts.toString(), output: text });
    }
  }

  /** The "[DTRACEDROP_...] " prefix of drop messages under the droptags option. */
  private dropTag(kind: string): string {
    return this.opts.droptags ? `[DTRACEDROP_${kind}] ` : '';
  }

  /** dt_handle_liberr: a library-side failure reported against the enabled probe. */
  private libraryError(ep: EnabledProbe, message: string): void {
    const p = ep.probe;
    this.output.err(`dtrace: error on enabled probe ID ${ep.epid} (ID ${p.id}: ${p.provider}:${p.module}:${p.function}:${p.name}): ${message}\n`);
  }

  /** dt_flowindent: " -> func" on entry, " <- func" on return, "| func:name" otherwise. */
  private flowLine(cpu: number, ep: EnabledProbe): string {
    const p = ep.probe;
    const isEntry = p.name === 'entry' || p.name.endsWith('-entry');
    const isReturn = p.name === 'return' || p.name.endsWith('-return');
    const sys = p.provider === 'syscall';
    let name: string;
    if (isReturn && this.indent > 0) this.indent -= 2;
    if (isEntry) name = `${' '.repeat(this.indent)}${sys ? ' => ' : ' -> '}${p.function}`;
    else if (isReturn) name = `${' '.repeat(this.indent)}${sys ? ' <= ' : ' <- '}${p.function}`;
    else name = `${' '.repeat(this.indent)}| ${p.function}:${p.name}`;
    return `${String(cpu).padStart(3)} ${name.padEnd(41)} `;
  }

  /**
   * The frames of a stack() record (dt_print_stack: `depth` program counters
   * of record size / depth bytes each, up to the first zero) or of a
   * ustack()/jstack() record (dt_print_ustack: the pid, then 64-bit program
   * counters; nothing at all for a depth of 0).
   */
  private stackDatum(kind: number, rec: { readonly size: number; readonly arg: bigint }, bytes: Uint8Array): { type: 'stack'; frames: string[]; silent: boolean } {
    const symbols = this.state.machine.symbols;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const frames: string[] = [];
    if (kind === DTRACEACT.STACK) {
      const depth = Number(rec.arg) > 0 ? Number(rec.arg) : Math.floor(rec.size / 8);
      const pcSize = depth > 0 ? rec.size / depth : 8;
      if (pcSize !== 4 && pcSize !== 8) throw new Error(`stack() record of ${rec.size} bytes for ${depth} frames: bad stack program counter size`);
      for (let i = 0; i < depth; i++) {
        const pc = pcSize === 4 ? BigInt(view.getUint32(i * 4, true)) : view.getBigUint64(i * 8, true);
        if (pc === 0n) break;
        frames.push(stackFrameString(symbols, pc));
      }
      return { type: 'stack', frames, silent: false };
    }
    const depth = Number(rec.arg & 0xffffffffn);
    if (depth === 0 || bytes.length < 8) return { type: 'stack', frames, silent: true };
    const pid = view.getBigUint64(0, true);
    for (let i = 0; i < depth && 8 + i * 8 + 8 <= bytes.length; i++) {
      const pc = view.getBigUint64(8 + i * 8, true);
      if (pc === 0n) break;
      frames.push(uaddrToString(symbols, pid, pc));
    }
    return { type: 'stack', frames, silent: false };
  }

  private datum(r: RecordAction, view: DataView, bytes: Uint8Array): Datum {
    const rec = r.record;
    if (r.kind === DTRACEACT.STACK || r.kind === DTRACEACT.USTACK || r.kind === DTRACEACT.JSTACK) {
      return this.stackDatum(r.kind, { size: rec.size, arg: r.arg }, bytes.subarray(rec.offset, rec.offset + rec.size));
    }
    const rtype = r.difo?.rtype;
    if ((rtype && rtype.kind === DIF_TYPE_STRING) || ![1, 2, 4, 8].includes(rec.size)) {
      return { type: 'bytes', value: bytes.subarray(rec.offset, rec.offset + rec.size) };
    }
    return { type: 'int', value: readInt(view, rec.offset, rec.size), size: rec.size, signed: isSignedType(this.recordType(rec)) };
  }

  // -------------------------------------------------------------------------
  // Aggregations: snapshot, sort, print.

  private clear(id: number): void {
    const table = this.aggs.get(id);
    const desc = this.state.aggregationDescs.get(id);
    if (!table || !desc) return;
    for (const e of table.values()) e.data = e.data.map((_, k) => (k === 0 && (desc.function === DTRACEAGG.LQUANTIZE || desc.function === DTRACEAGG.LLQUANTIZE) ? e.data[0]! : 0n));
  }

  private trunc(id: number, keep: bigint): void {
    const table = this.aggs.get(id);
    const desc = this.state.aggregationDescs.get(id);
    if (!table || !desc) return;
    const entries = [...table.entries()].sort((a, b) => compareValues(desc, b[1], a[1]) || compareKeys(desc, b[1], a[1]));
    if (keep < 0n) entries.reverse();
    const n = Number(keep < 0n ? -keep : keep);
    for (const [k] of entries.slice(n)) table.delete(k);
  }

  /** The normalization normalize() set for an aggregation (1 without one): its printed values are divided by it. */
  normalization(id: number): bigint {
    return this.normals.get(id) ?? 1n;
  }

  /** Entries of one aggregation, sorted as dtrace_aggregate_walk_sorted with the aggsort* options. */
  sortedEntries(id: number): AggregationEntry[] {
    const table = this.aggs.get(id);
    const desc = this.state.aggregationDescs.get(id)!;
    if (!table) return [];
    const entries = [...table.values()];
    const byKey = this.opts.aggsortkey;
    entries.sort((a, b) => {
      const kv = compareKeys(desc, a, b, this.opts.aggsortkeypos);
      const vv = compareValues(desc, a, b);
      const r = byKey ? kv || vv : vv || kv;
      return this.opts.aggsortrev ? -r : r;
    });
    return entries;
  }

  private valueText(desc: AggregationDescription, e: AggregationEntry): string {
    const normal = this.normals.get(desc.id) ?? 1n;
    switch (desc.function) {
      case DTRACEAGG.AVG: return ' ' + rjust(String(averageValue(e.data, normal)), 16);
      case DTRACEAGG.STDDEV: return ' ' + rjust(String(stddevValue(e.data, normal)), 16);
      case DTRACEAGG.QUANTIZE: return printQuantize(e.data, normal);
      case DTRACEAGG.LQUANTIZE: return printLquantize(e.data, normal);
      case DTRACEAGG.LLQUANTIZE: return printLlquantize(e.data, normal);
      default: return printDatumInteger(e.data[0]!, 8, normal);
    }
  }

  /** sym(), func(), mod() and the user forms as keys name their address as those records do (dt_print_sym & co). */
  private symbolKey(typeName: string | undefined, key: bigint | Uint8Array): string | undefined {
    const symbols = this.state.machine.symbols;
    // The user forms record the pid, then the address.
    let pid = 0n;
    let k: bigint;
    if (key instanceof Uint8Array) {
      if (key.length < 16) return undefined;
      const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
      pid = view.getBigUint64(0, true);
      k = view.getBigUint64(8, true);
    } else k = key;
    switch (typeName) {
      case 'sym':
      case 'func':
        return symString(symbols, k);
      case 'mod':
        return modString(symbols, k);
      case 'usym':
      case 'ufunc':
        return usymString(symbols, pid, k);
      case 'umod':
        return umodString(symbols, pid, k);
      case 'uaddr':
        return uaddrToString(symbols, pid, k);
      default:
        return undefined;
    }
  }

  private keyText(desc: AggregationDescription, e: AggregationEntry): string {
    let s = '';
    e.keys.forEach((k, idx) => {
      if (k instanceof Uint8Array) {
        const kt = desc.keys[idx];
        const user = kt?.typeName === 'stack' || kt?.typeName === 'ustack' ? undefined : this.symbolKey(kt?.typeName, k);
        if (kt?.typeName === 'stack' || kt?.typeName === 'ustack') {
          const st = this.stackKey(kt.typeName, k);
          if (!st.silent) s += formatStack(st.frames, this.opts.stackindent);
        } else if (user !== undefined) s += '  ' + user.padEnd(50);
        else s += printBytes(k, -50, false, false);
      } else {
        const sym = this.symbolKey(desc.keys[idx]?.typeName, k);
        const size = desc.keys[idx]?.type.size ?? 8;
        s += sym !== undefined ? '  ' + sym.padEnd(50) : printDatumInteger(k, [1, 2, 4, 8].includes(size) ? size : 8);
      }
    });
    return s;
  }

  /** dt_print_aggs for one aggregation, all entries. */
  private printAggregation(id: number): string {
    const desc = this.state.aggregationDescs.get(id);
    if (!desc) return '';
    let out = '';
    for (const e of this.sortedEntries(id)) {
      // dt_print_aggs ends every entry with a newline, histograms included.
      out += this.keyText(desc, e) + this.valueText(desc, e) + '\n';
    }
    return out;
  }

  /** The %@ value of an entry: the number itself for count/sum/min/max, the printed form otherwise. */
  private aggregationDatum(desc: AggregationDescription, e: AggregationEntry | undefined): Datum {
    const entry = e ?? { keys: [], data: initialAggregationData(desc).map((v, k) => (k === 0 && (desc.function === DTRACEAGG.MIN || desc.function === DTRACEAGG.MAX) ? 0n : v)) };
    const normal = this.normals.get(desc.id) ?? 1n;
    const rendered = this.valueText(desc, entry);
    switch (desc.function) {
      // pfprint_average / pfprint_stddev format the computed value with the conversion.
      // pfprint_average: data[1] / normal / data[0] in unsigned 64-bit arithmetic.
      case DTRACEAGG.AVG: {
        const d = entry.data;
        const v = d[0] === 0n ? 0n : BigInt.asUintN(64, d[1]!) / (BigInt.asUintN(64, normal) || 1n) / BigInt.asUintN(64, d[0]!);
        return { type: 'aggregation', rendered, value: v };
      }
      case DTRACEAGG.STDDEV: return { type: 'aggregation', rendered, value: stddevValue(entry.data, normal) };
      // The quantizations print their histogram whatever the conversion.
      case DTRACEAGG.QUANTIZE:
      case DTRACEAGG.LQUANTIZE:
      case DTRACEAGG.LLQUANTIZE: return { type: 'aggregation', rendered };
      // count() is uint64_t to %@, the others int64_t (dt_printf_validate).
      // The value goes to the conversion with the normalization, which divides it as the conversion reads it.
      case DTRACEAGG.COUNT: return { type: 'aggregation', rendered, value: BigInt.asUintN(64, entry.data[0]!), signed: false, normal };
      default: return { type: 'aggregation', rendered, value: BigInt.asIntN(64, entry.data[0]!), normal };
    }
  }

  private builtinTypes: TypeDictionary | undefined;

  /**
   * Whether an aggregation key of the named D type is signed: the name is
   * looked up in the built-in C and D dictionaries (pointers are unsigned;
   * names they do not know count as signed).
   */
  private keySigned(typeName: string | undefined): boolean {
    if (typeName === undefined) return true;
    if (typeName.endsWith('*')) return false;
    if (!this.builtinTypes) {
      const c = createCTypeDictionary(this.program.dataModel);
      const d = createDTypeDictionary(c);
      this.builtinTypes = new TypeDictionaryChain('D', c.dataModel, [d, c]);
    }
    return isSignedType(this.builtinTypes.lookupType(typeName));
  }

  private keyArgs(desc: AggregationDescription, e: AggregationEntry): Datum[] {
    return e.keys.map((k, idx): Datum => {
      const typeName = desc.keys[idx]?.typeName;
      if (k instanceof Uint8Array) {
        if (typeName === 'stack' || typeName === 'ustack') return this.stackKey(typeName, k);
        const user = this.symbolKey(typeName, k);
        return user !== undefined ? { type: 'string', value: user } : { type: 'bytes', value: k };
      }
      const sym = this.symbolKey(typeName, k);
      if (sym !== undefined) return { type: 'string', value: sym };
      return { type: 'int', value: k, size: desc.keys[idx]?.type.size ?? 8, signed: this.keySigned(typeName) };
    });
  }

  /** A stack() key holds pointer-sized program counters; a ustack() key the pid, then 64-bit ones. */
  private stackKey(typeName: 'stack' | 'ustack', k: Uint8Array): Datum & { type: 'stack'; silent: boolean } {
    return typeName === 'stack'
      ? this.stackDatum(DTRACEACT.STACK, { size: k.length, arg: BigInt(k.length / (this.program.dataModel === 'ILP32' ? 4 : 8)) }, k)
      : this.stackDatum(DTRACEACT.USTACK, { size: k.length, arg: BigInt(k.length / 8 - 1) }, k);
  }

  /**
   * printa(): without a format, "\n" then the default layout; with one, the
   * format per entry. Several aggregations are joined on their keys
   * (dtrace_aggregate_walk_joined): one row per key, a value per
   * aggregation (zero where it has no entry), sorted on the aggsortpos-th.
   */
  printa(ids: readonly number[], pieces?: FormatPiece[]): string {
    for (const id of ids) this.printed.add(id);
    const descs = ids.map((id) => this.state.aggregationDescs.get(id)).filter((d): d is AggregationDescription => d !== undefined);
    if (descs.length === 0) return pieces ? '' : '\n';
    if (descs.length === 1) {
      const desc = descs[0]!;
      if (!pieces) return '\n' + this.printAggregation(desc.id);
      let out = '';
      for (const e of this.sortedEntries(desc.id)) {
        out += formatPrintf(pieces, this.keyArgs(desc, e), { symbols: this.state.machine.symbols }, this.aggregationDatum(desc, e));
      }
      return out;
    }
    const keyOf = (e: AggregationEntry): string => e.keys.map((k) => (k instanceof Uint8Array ? 's' + cString(k) : 'i' + k.toString())).join('|');
    const rows = new Map<string, { keys: AggregationEntry; byAgg: (AggregationEntry | undefined)[] }>();
    descs.forEach((desc, n) => {
      for (const e of this.aggs.get(desc.id)?.values() ?? []) {
        const k = keyOf(e);
        let row = rows.get(k);
        if (!row) {
          row = { keys: e, byAgg: descs.map(() => undefined) };
          rows.set(k, row);
        }
        row.byAgg[n] = e;
      }
    });
    const pos = Math.min(this.opts.aggsortpos, descs.length - 1);
    const sortDesc = descs[pos]!;
    const scalar = (e: AggregationEntry | undefined): bigint => (e ? aggregateScalar(sortDesc, e) : 0n);
    const sorted = [...rows.values()].sort((a, b) => {
      const x = scalar(a.byAgg[pos]);
      const y = scalar(b.byAgg[pos]);
      const vv = x < y ? -1 : x > y ? 1 : 0;
      const kv = compareKeys(descs[0]!, a.keys, b.keys, this.opts.aggsortkeypos);
      const r = this.opts.aggsortkey ? kv || vv : vv || kv;
      return this.opts.aggsortrev ? -r : r;
    });
    let out = pieces ? '' : '\n';
    for (const row of sorted) {
      if (pieces) {
        out += formatPrintf(pieces, this.keyArgs(descs[0]!, row.keys), { symbols: this.state.machine.symbols }, descs.map((d, n) => this.aggregationDatum(d, row.byAgg[n])));
      } else {
        out += this.keyText(descs[0]!, row.keys);
        descs.forEach((d, n) => {
          const e = row.byAgg[n] ?? { keys: row.keys.keys, data: initialAggregationData(d) };
          out += this.valueText(d, e);
        });
        out += '\n';
      }
    }
    return out;
  }

  /**
   * dtrace_aggregate_print: every aggregation printa() has not printed, in
   * id order, from a final snapshot (dtrace(1) prints after tracing stops,
   * when dtrace_work snapshots regardless of aggrate).
   */
  printAggregations(): string {
    this.snapAggregations(true);
    let out = '';
    const ids = [...this.state.aggregationDescs.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      if (this.printed.has(id)) continue;
      out += this.printAggregation(id);
    }
    return out;
  }
}

/** An action that writes a record, with its index in the ECB's action list. */
type RecordAction = ActionDescription & { readonly record: RecordDescription; readonly index: number };

function readInt(view: DataView, off: number, size: number): bigint {
  switch (size) {
    case 1: return BigInt(view.getUint8(off));
    case 2: return BigInt(view.getUint16(off, true));
    case 4: return BigInt(view.getUint32(off, true));
    default: return view.getBigUint64(off, true);
  }
}

/** The aggregating function's merge of two partial results (dt_aggregate_snap_cpu's dtahe_aggregate). */
function mergeAggregationData(desc: AggregationDescription, a: bigint[], b: readonly bigint[]): bigint[] {
  switch (desc.function) {
    case DTRACEAGG.MIN: return [a[0]! < b[0]! ? a[0]! : b[0]!];
    case DTRACEAGG.MAX: return [a[0]! > b[0]! ? a[0]! : b[0]!];
    case DTRACEAGG.STDDEV: {
      const sq = ((a[3]! << 64n) | BigInt.asUintN(64, a[2]!)) + ((b[3]! << 64n) | BigInt.asUintN(64, b[2]!));
      return [a[0]! + b[0]!, BigInt.asIntN(64, a[1]! + b[1]!), BigInt.asUintN(64, sq), sq >> 64n];
    }
    case DTRACEAGG.LQUANTIZE:
    case DTRACEAGG.LLQUANTIZE:
      // Word 0 holds the packed parameters.
      return a.map((v, i) => (i === 0 ? v : BigInt.asIntN(64, v + (b[i] ?? 0n))));
    default:
      return a.map((v, i) => BigInt.asIntN(64, v + (b[i] ?? 0n)));
  }
}

function aggregateScalar(desc: AggregationDescription, e: AggregationEntry): bigint {
  switch (desc.function) {
    case DTRACEAGG.AVG: return averageValue(e.data);
    case DTRACEAGG.STDDEV: return stddevValue(e.data);
    case DTRACEAGG.QUANTIZE: return e.data.reduce((s, c, i) => s + c * quantizeBucketValue(i), 0n);
    case DTRACEAGG.LQUANTIZE:
    case DTRACEAGG.LLQUANTIZE: return e.data.slice(1).reduce((s, c, i) => s + c * BigInt(i), 0n);
    default: return BigInt.asIntN(64, e.data[0]!);
  }
}

function compareValues(desc: AggregationDescription, a: AggregationEntry, b: AggregationEntry): number {
  const x = aggregateScalar(desc, a);
  const y = aggregateScalar(desc, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareKeys(desc: AggregationDescription, a: AggregationEntry, b: AggregationEntry, startPos = 0): number {
  const n = Math.max(a.keys.length, b.keys.length);
  for (let k = 0; k < n; k++) {
    const idx = (k + startPos) % Math.max(n, 1);
    const x = a.keys[idx];
    const y = b.keys[idx];
    let r: number;
    // Rows of printa() joining aggregations of other signatures: a missing key
    // sorts first, then integer keys before byte keys.
    if (x === undefined || y === undefined) r = x === undefined ? (y === undefined ? 0 : -1) : 1;
    else if (typeof x !== typeof y) r = typeof x === 'bigint' ? -1 : 1;
    else if (x instanceof Uint8Array && y instanceof Uint8Array) {
      const sx = cString(x);
      const sy = cString(y);
      r = sx < sy ? -1 : sx > sy ? 1 : 0;
    } else {
      const size = desc.keys[idx]?.type.size ?? 8;
      const vx = BigInt.asIntN(size * 8, x as bigint);
      const vy = BigInt.asIntN(size * 8, y as bigint);
      r = vx < vy ? -1 : vx > vy ? 1 : 0;
    }
    if (r !== 0) return r;
  }
  return 0;
}

export function isStringKey(desc: AggregationDescription, idx: number): boolean {
  return desc.keys[idx]?.type.kind === DIF_TYPE_STRING;
}
