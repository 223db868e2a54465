// The DIF assembler, after libdtrace's dt_as.c: the code generator's
// instructions, whose operands still name things (integer values, strings,
// variables, labels), become a DIFO as they are emitted. Labels resolve to
// instruction offsets (every label sits on a nop, as in dtrace's listings);
// constants enter the integer table once each; strings and variable names
// the string table, in order of first use; variables the variable table, in
// order of first use.
//
// Tables are searched linearly while small (a DIFO rarely has more than a
// handful of entries) and through a Map beyond that. Identical DIFOs of one
// compilation (the same instructions, tables and return type: an
// aggregation key such as `execname`, a common predicate) are one object.
import {
  DIF_INSTR_NOP,
  DIF_INTOFF_MAX,
  DIF_OP,
  DIF_STROFF_MAX,
  type Difo,
  type DifTranslatorRef,
  type DifType,
  type DifVariable,
  difInstrBranch,
  difInstrCall,
  difInstrFmt,
  difInstrLda,
  difInstrLdv,
  difInstrSets,
  difInstrSetx,
  difInstrStv,
  stringBytes,
} from '@wdtrace/dtrace-core/dif';
import type { IrVariable } from './ir.js';

/** Beyond this many entries a table is indexed by a Map. */
const LINEAR_LIMIT = 16;

const NO_XLREFS: readonly DifTranslatorRef[] = Object.freeze([]);
const NO_INTEGERS: readonly bigint[] = Object.freeze([]);
const NO_VARIABLES: readonly DifVariable[] = Object.freeze([]);

/** A string table with DifStringTable's layout: NUL-terminated strings of bytes (stringBytes), identical strings shared. */
class StringTable {
  private readonly strings: string[] = [];
  private readonly offsets: number[] = [];
  private readonly encoded: (Uint8Array | undefined)[] = [];
  private index: Map<string, number> | undefined;
  /** Entries in use (the arrays are not shortened: V8 would drop their storage). */
  private count = 0;
  size = 0;

  /** Empty the table for the next DIFO (the arrays are reused). */
  reset(): void {
    this.count = 0;
    this.index = undefined;
    this.size = 0;
  }

  insert(s: string): number {
    const n = this.count;
    if (this.index !== undefined) {
      const known = this.index.get(s);
      if (known !== undefined) return known;
    } else {
      for (let i = 0; i < n; i++) if (this.strings[i] === s) return this.offsets[i]!;
    }
    const offset = this.size;
    let ascii = true;
    for (let i = 0; i < s.length; i++) {
      if (s.charCodeAt(i) >= 0x80) {
        ascii = false;
        break;
      }
    }
    const bytes = ascii ? undefined : stringBytes(s);
    this.strings[n] = s;
    this.offsets[n] = offset;
    this.encoded[n] = bytes;
    this.count = n + 1;
    this.size += (bytes === undefined ? s.length : bytes.length) + 1;
    if (this.index !== undefined) this.index.set(s, offset);
    else if (n + 1 > LINEAR_LIMIT) {
      this.index = new Map();
      for (let i = 0; i <= n; i++) this.index.set(this.strings[i]!, this.offsets[i]!);
    }
    return offset;
  }

  /** The table's bytes; DIFOs with the same strings in the same order share one (immutable) array. */
  toBytes(pool: DifArrayPool): Uint8Array {
    const n = this.count;
    // Down the pool's trie of tables, one level per string: no key string is built.
    let node = pool.strtabs;
    for (let i = 0; i < n; i++) {
      const s = this.strings[i]!;
      let next = node.next;
      if (next === undefined) node.next = next = new Map();
      let child = next.get(s);
      if (child === undefined) {
        child = { table: undefined, next: undefined };
        next.set(s, child);
      }
      node = child;
    }
    const known = node.table;
    if (known !== undefined && known.length === this.size) return known;
    const out = pool.u8(this.size);
    if (known === undefined) node.table = out;
    for (let i = 0; i < n; i++) {
      const s = this.strings[i]!;
      const at = this.offsets[i]!;
      const bytes = this.encoded[i];
      if (bytes !== undefined) out.set(bytes, at);
      else for (let j = 0; j < s.length; j++) out[at + j] = s.charCodeAt(j);
    }
    return out;
  }
}

/** A node of the string-table trie: the table of the strings on the path to it, and the nodes below by next string. */
interface StringTableNode {
  table: Uint8Array | undefined;
  next: Map<string, StringTableNode> | undefined;
}

/**
 * Per-compilation state shared by the DIFOs. Instruction buffers and string
 * tables are views into shared 64 KiB buffers: a typed array over its own
 * small buffer costs several times the memory and allocation time of a
 * view, and a program has tens of thousands of DIFOs (structuredClone of
 * the whole program clones each shared buffer once). Identical string
 * tables, and identical variable-table entries (same name offset, id, kind,
 * scope, flags and DifType object), are one immutable object each.
 */
export class DifArrayPool {
  private readonly variables = new Map<DifType, Map<number, DifVariable>>();
  /** String tables by their strings, in order: a trie with one level per string. */
  readonly strtabs: StringTableNode = { table: undefined, next: undefined };
  /** The DIFOs made so far, by a hash of their instructions (see DifAssembler.finish). */
  readonly difos = new Map<number, Difo | Difo[]>();

  /** Forget the sharing tables once the program is built (the arrays handed out stay valid). */
  release(): void {
    this.variables.clear();
    this.strtabs.table = undefined;
    this.strtabs.next = undefined;
    this.difos.clear();
  }

  /** The variable-table entry with these fields, shared when one exists. */
  variable(name: number, id: number, kind: number, scope: number, flags: number, type: DifType): DifVariable {
    let byType = this.variables.get(type);
    if (byType === undefined) {
      byType = new Map();
      this.variables.set(type, byType);
    }
    // name < 2^16, id < 2^16, kind < 2, scope < 4, flags < 4: one exact number key.
    const key = ((name * 65536 + id) * 2 + kind) * 16 + scope * 4 + flags;
    let v = byType.get(key);
    if (v === undefined) {
      v = { name, id, kind, scope, flags, type };
      byType.set(key, v);
    }
    return v;
  }

  private static readonly CHUNK = 64 * 1024;
  private chunk = new ArrayBuffer(DifArrayPool.CHUNK);
  private used = 0;

  /** Where the last take() placed its bytes. */
  private at = 0;

  /** A buffer with `bytes` free bytes (4-aligned) at this.at. */
  private take(bytes: number): ArrayBuffer {
    if (bytes > DifArrayPool.CHUNK / 4) {
      this.at = 0;
      return new ArrayBuffer(bytes);
    }
    const at = (this.used + 3) & ~3;
    if (at + bytes > DifArrayPool.CHUNK) {
      this.chunk = new ArrayBuffer(DifArrayPool.CHUNK);
      this.used = bytes;
      this.at = 0;
      return this.chunk;
    }
    this.used = at + bytes;
    this.at = at;
    return this.chunk;
  }

  u32(n: number): Uint32Array {
    const b = this.take(n * 4);
    return new Uint32Array(b, this.at, n);
  }

  u8(n: number): Uint8Array {
    const b = this.take(n);
    return new Uint8Array(b, this.at, n);
  }
}

/** A DIFO, or the table that overflowed while it was assembled. */
export type AssembledDifo = Difo | 'integer' | 'string';

/**
 * Assembles one DIFO while the code generator emits it: each instruction is
 * encoded at once, with its constant, string or variable entered in the
 * tables in order of first use; branches are patched when the DIFO is
 * finished, once every label has its offset. Variable-table entries are
 * built at the end too, with the DIFV_F_REF/MOD flags accumulated over the
 * whole DIFO.
 */
export class DifAssembler {
  // The working arrays are reused for every DIFO and never shortened (V8
  // drops an array's storage when its length is set to 0): each has a
  // count of the entries in use.
  private words = new Uint32Array(256);
  private nwords = 0;
  /** Instruction offset of each label (labels count from 1 in a DIFO); -1 while unplaced. */
  private readonly labelAt: number[] = [];
  private nlabels = 0;
  /** Pairs (instruction offset, label) of the branches to patch. */
  private readonly fixups: number[] = [];
  private nfixups = 0;
  private readonly inttab: bigint[] = [];
  private nints = 0;
  private intIndex: Map<bigint, number> | undefined;
  private readonly strs = new StringTable();
  /** The variables in order of first use, with their name offsets. */
  private readonly vars: IrVariable[] = [];
  private readonly varNames: number[] = [];
  private nvars = 0;
  /** The variable table of the DIFO being finished (reused). */
  private readonly vartab: DifVariable[] = [];
  private overflow: 'integer' | 'string' | undefined;

  /**
   * Start the next DIFO. One assembler serves a whole compilation (DIFOs
   * are generated one at a time), so its working arrays are reused; what a
   * finished DIFO keeps is copied out of them.
   */
  reset(): void {
    this.nwords = 0;
    for (let l = 0; l <= this.nlabels; l++) this.labelAt[l] = -1;
    this.nlabels = 0;
    this.nfixups = 0;
    this.nints = 0;
    this.intIndex = undefined;
    this.strs.reset();
    this.nvars = 0;
    this.overflow = undefined;
  }

  private word(w: number): void {
    if (this.nwords === this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.words[this.nwords++] = w;
  }

  fmt(op: number, r1: number, r2: number, rd: number): void {
    this.word(difInstrFmt(op, r1, r2, rd));
  }

  branch(op: number, label: number): void {
    this.fixups[this.nfixups++] = this.nwords;
    this.fixups[this.nfixups++] = label;
    this.word(op);
  }

  /** A label: a nop at this offset that branches to it will target. */
  label(label: number): void {
    while (this.nlabels < label) this.labelAt[++this.nlabels] = -1;
    this.labelAt[label] = this.nwords;
    this.word(DIF_INSTR_NOP);
  }

  setx(value: bigint, rd: number): void {
    const inttab = this.inttab;
    const n = this.nints;
    let idx = -1;
    if (this.intIndex !== undefined) idx = this.intIndex.get(value) ?? -1;
    else {
      for (let j = 0; j < n; j++) {
        if (inttab[j] === value) {
          idx = j;
          break;
        }
      }
    }
    if (idx < 0) {
      idx = n;
      if (idx > DIF_INTOFF_MAX) {
        this.overflow ??= 'integer';
        idx = 0;
      } else {
        inttab[n] = value;
        this.nints = n + 1;
        if (this.intIndex !== undefined) this.intIndex.set(value, idx);
        else if (n + 1 > LINEAR_LIMIT) {
          this.intIndex = new Map();
          for (let j = 0; j <= n; j++) this.intIndex.set(inttab[j]!, j);
        }
      }
    }
    this.word(difInstrSetx(idx, rd));
  }

  sets(value: string, rd: number): void {
    let off = this.strs.insert(value);
    if (off > DIF_STROFF_MAX) {
      this.overflow ??= 'string';
      off = 0;
    }
    this.word(difInstrSets(off, rd));
  }

  /** Variable load or store: ldgs/stgs/ldts/... (16-bit id) or ldga/ldta (8-bit id and index register). */
  variable(op: number, v: IrVariable, reg: number, index = 0): void {
    let known = false;
    for (let j = 0; j < this.nvars; j++) {
      const x = this.vars[j]!;
      if (x.id === v.id && x.kind === v.kind && x.scope === v.scope) {
        known = true;
        break;
      }
    }
    if (!known) {
      this.vars[this.nvars] = v;
      this.varNames[this.nvars] = this.strs.insert(v.name);
      this.nvars++;
    }
    if (op === DIF_OP.LDGA || op === DIF_OP.LDTA) this.word(difInstrLda(op, v.id, index, reg));
    else if (op === DIF_OP.STGS || op === DIF_OP.STTS || op === DIF_OP.STLS || op === DIF_OP.STGAA || op === DIF_OP.STTAA) this.word(difInstrStv(op, v.id, reg));
    else this.word(difInstrLdv(op, v.id, reg));
  }

  call(subr: number, rd: number): void {
    this.word(difInstrCall(subr, rd));
  }

  finish(rtype: DifType, pool: DifArrayPool): AssembledDifo {
    if (this.overflow !== undefined) return this.overflow;
    const words = this.words;
    const n = this.nwords;
    const fixups = this.fixups;
    for (let j = 0; j < this.nfixups; j += 2) {
      const pc = fixups[j]!;
      const label = fixups[j + 1]!;
      const target = label <= this.nlabels ? this.labelAt[label]! : -1;
      if (target < 0) throw new Error(`DIF assembler: label ${label} is not placed`);
      words[pc] = difInstrBranch(words[pc]!, target);
    }
    // Variable-table entries and string tables are shared objects, so a DIFO made before with the same ones is the same DIFO.
    const vt = this.vartab;
    const nv = this.nvars;
    for (let j = 0; j < nv; j++) {
      const v = this.vars[j]!;
      const name = this.varNames[j]!;
      vt[j] = name <= 0xffff && v.id <= 0xffff && v.kind < 2 && v.scope < 4 && v.flags < 4 ? pool.variable(name, v.id, v.kind, v.scope, v.flags, v.type) : { name, id: v.id, kind: v.kind, scope: v.scope, flags: v.flags, type: v.type };
    }
    const strtab = this.strs.toBytes(pool);
    // Constants and strings are not in the instructions (only their table offsets): the hash takes them in too.
    let hash = (Math.imul(n, 31) + strtab.byteOffset + strtab.length) | 0;
    for (let pc = 0; pc < n; pc++) hash = (Math.imul(hash, 31) + words[pc]!) | 0;
    for (let j = 0; j < this.nints; j++) hash = (Math.imul(hash, 31) + Number(this.inttab[j]!)) | 0;
    const same = pool.difos.get(hash);
    if (same !== undefined) {
      if (!Array.isArray(same)) {
        if (this.sameAs(same, strtab, rtype)) return same;
      } else for (const d of same) if (this.sameAs(d, strtab, rtype)) return d;
    }
    const buf = pool.u32(n);
    for (let pc = 0; pc < n; pc++) buf[pc] = words[pc]!;
    // Tables built at their exact size (arrays grown by push keep spare capacity).
    const vartab = nv === 0 ? NO_VARIABLES : vt.slice(0, nv);
    const inttab = this.nints === 0 ? NO_INTEGERS : this.inttab.slice(0, this.nints);
    const difo: Difo = { buf, inttab, strtab, vartab, rtype, xlrefs: NO_XLREFS };
    if (same === undefined) pool.difos.set(hash, difo);
    else if (Array.isArray(same)) same.push(difo);
    else pool.difos.set(hash, [same, difo]);
    return difo;
  }

  /** Is `d` the DIFO being finished (its instructions in `words`, its variable table in `vartab`)? */
  private sameAs(d: Difo, strtab: Uint8Array, rtype: DifType): boolean {
    const words = this.words;
    const n = this.nwords;
    const vt = this.vartab;
    const nv = this.nvars;
    if (d.strtab !== strtab || d.buf.length !== n || d.vartab.length !== nv || d.inttab.length !== this.nints) return false;
    if (d.rtype !== rtype && (d.rtype.kind !== rtype.kind || d.rtype.ckind !== rtype.ckind || d.rtype.flags !== rtype.flags || d.rtype.size !== rtype.size)) return false;
    for (let j = 0; j < nv; j++) if (d.vartab[j] !== vt[j]) return false;
    for (let j = 0; j < this.nints; j++) if (d.inttab[j] !== this.inttab[j]) return false;
    for (let pc = 0; pc < n; pc++) if (d.buf[pc] !== words[pc]) return false;
    return true;
  }
}
