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

/** A string table with DifStringTable's layout: NUL-terminated strings of bytes (stringBytes), identical strings shared. */
class StringTable {
  private readonly strings: string[] = [];
  private readonly offsets: number[] = [];
  private readonly encoded: (Uint8Array | undefined)[] = [];
  private index: Map<string, number> | undefined;
  size = 0;

  /** Empty the table for the next DIFO (the arrays are reused). */
  reset(): void {
    this.strings.length = 0;
    this.offsets.length = 0;
    this.encoded.length = 0;
    this.index = undefined;
    this.size = 0;
  }

  insert(s: string): number {
    const n = this.strings.length;
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
    this.strings.push(s);
    this.offsets.push(offset);
    this.encoded.push(bytes);
    this.size += (bytes === undefined ? s.length : bytes.length) + 1;
    if (this.index !== undefined) this.index.set(s, offset);
    else if (n + 1 > LINEAR_LIMIT) this.index = new Map(this.strings.map((x, i) => [x, this.offsets[i]!]));
    return offset;
  }

  /** The table's bytes; DIFOs with the same strings in the same order share one (immutable) array. */
  toBytes(pool: DifArrayPool): Uint8Array {
    const key = this.strings.length === 1 ? this.strings[0]! : this.strings.join('\0');
    const known = pool.strtabs.get(key);
    if (known !== undefined && known.length === this.size) return known;
    const out = pool.u8(this.size);
    if (known === undefined) pool.strtabs.set(key, out);
    for (let i = 0; i < this.strings.length; i++) {
      const s = this.strings[i]!;
      const at = this.offsets[i]!;
      const bytes = this.encoded[i];
      if (bytes !== undefined) out.set(bytes, at);
      else for (let j = 0; j < s.length; j++) out[at + j] = s.charCodeAt(j);
    }
    return out;
  }
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
  /** String tables by their strings joined with NULs. */
  readonly strtabs = new Map<string, Uint8Array>();
  /** The DIFOs made so far, by a hash of their instructions (see DifAssembler.finish). */
  readonly difos = new Map<number, Difo | Difo[]>();

  /** Forget the sharing tables once the program is built (the arrays handed out stay valid). */
  release(): void {
    this.variables.clear();
    this.strtabs.clear();
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

export type AssembledDifo = { readonly difo: Difo; readonly overflow?: undefined } | { readonly difo?: undefined; readonly overflow: 'integer' | 'string' };

/**
 * Assembles one DIFO while the code generator emits it: each instruction is
 * encoded at once, with its constant, string or variable entered in the
 * tables in order of first use; branches are patched when the DIFO is
 * finished, once every label has its offset. Variable-table entries are
 * built at the end too, with the DIFV_F_REF/MOD flags accumulated over the
 * whole DIFO.
 */
export class DifAssembler {
  private readonly words: number[] = [];
  private readonly labelAt: number[] = [];
  /** Pairs (instruction offset, label) of the branches to patch. */
  private readonly fixups: number[] = [];
  private readonly inttab: bigint[] = [];
  private intIndex: Map<bigint, number> | undefined;
  private readonly strs = new StringTable();
  /** The variables in order of first use, with their name offsets. */
  private readonly vars: IrVariable[] = [];
  private readonly varNames: number[] = [];
  /** The variable table of the DIFO being finished (reused). */
  private readonly vartab: DifVariable[] = [];
  private overflow: 'integer' | 'string' | undefined;

  /**
   * Start the next DIFO. One assembler serves a whole compilation (DIFOs
   * are generated one at a time), so its working arrays are reused; what a
   * finished DIFO keeps is copied out of them.
   */
  reset(): void {
    this.words.length = 0;
    this.labelAt.length = 0;
    this.fixups.length = 0;
    this.inttab.length = 0;
    this.intIndex = undefined;
    this.strs.reset();
    this.vars.length = 0;
    this.varNames.length = 0;
    this.overflow = undefined;
  }

  fmt(op: number, r1: number, r2: number, rd: number): void {
    this.words.push(difInstrFmt(op, r1, r2, rd));
  }

  branch(op: number, label: number): void {
    this.fixups.push(this.words.length, label);
    this.words.push(op);
  }

  /** A label: a nop at this offset that branches to it will target. */
  label(label: number): void {
    this.labelAt[label] = this.words.length;
    this.words.push(DIF_INSTR_NOP);
  }

  setx(value: bigint, rd: number): void {
    const inttab = this.inttab;
    let idx = -1;
    if (this.intIndex !== undefined) idx = this.intIndex.get(value) ?? -1;
    else {
      for (let j = 0; j < inttab.length; j++) {
        if (inttab[j] === value) {
          idx = j;
          break;
        }
      }
    }
    if (idx < 0) {
      idx = inttab.length;
      if (idx > DIF_INTOFF_MAX) {
        this.overflow ??= 'integer';
        idx = 0;
      } else {
        inttab.push(value);
        if (this.intIndex !== undefined) this.intIndex.set(value, idx);
        else if (inttab.length > LINEAR_LIMIT) this.intIndex = new Map(inttab.map((v, j) => [v, j]));
      }
    }
    this.words.push(difInstrSetx(idx, rd));
  }

  sets(value: string, rd: number): void {
    let off = this.strs.insert(value);
    if (off > DIF_STROFF_MAX) {
      this.overflow ??= 'string';
      off = 0;
    }
    this.words.push(difInstrSets(off, rd));
  }

  /** Variable load or store: ldgs/stgs/ldts/... (16-bit id) or ldga/ldta (8-bit id and index register). */
  variable(op: number, v: IrVariable, reg: number, index = 0): void {
    let known = false;
    for (let j = 0; j < this.vars.length; j++) {
      const x = this.vars[j]!;
      if (x.id === v.id && x.kind === v.kind && x.scope === v.scope) {
        known = true;
        break;
      }
    }
    if (!known) {
      this.vars.push(v);
      this.varNames.push(this.strs.insert(v.name));
    }
    if (op === DIF_OP.LDGA || op === DIF_OP.LDTA) this.words.push(difInstrLda(op, v.id, index, reg));
    else if (op === DIF_OP.STGS || op === DIF_OP.STTS || op === DIF_OP.STLS || op === DIF_OP.STGAA || op === DIF_OP.STTAA) this.words.push(difInstrStv(op, v.id, reg));
    else this.words.push(difInstrLdv(op, v.id, reg));
  }

  call(subr: number, rd: number): void {
    this.words.push(difInstrCall(subr, rd));
  }

  finish(rtype: DifType, pool: DifArrayPool): AssembledDifo {
    if (this.overflow !== undefined) return { overflow: this.overflow };
    const words = this.words;
    const n = words.length;
    const fixups = this.fixups;
    for (let j = 0; j < fixups.length; j += 2) {
      const pc = fixups[j]!;
      const target = this.labelAt[fixups[j + 1]!];
      if (target === undefined) throw new Error(`DIF assembler: label ${fixups[j + 1]} is not placed`);
      words[pc] = difInstrBranch(words[pc]!, target);
    }
    // Variable-table entries and string tables are shared objects, so a DIFO made before with the same ones is the same DIFO.
    const vt = this.vartab;
    vt.length = this.vars.length;
    for (let j = 0; j < this.vars.length; j++) {
      const v = this.vars[j]!;
      const name = this.varNames[j]!;
      vt[j] = name <= 0xffff && v.id <= 0xffff && v.kind < 2 && v.scope < 4 && v.flags < 4 ? pool.variable(name, v.id, v.kind, v.scope, v.flags, v.type) : { name, id: v.id, kind: v.kind, scope: v.scope, flags: v.flags, type: v.type };
    }
    const strtab = this.strs.toBytes(pool);
    // Constants and strings are not in the instructions (only their table offsets): the hash takes them in too.
    let hash = (Math.imul(n, 31) + strtab.byteOffset + strtab.length) | 0;
    for (let pc = 0; pc < n; pc++) hash = (Math.imul(hash, 31) + words[pc]!) | 0;
    for (let j = 0; j < this.inttab.length; j++) hash = (Math.imul(hash, 31) + Number(this.inttab[j]!)) | 0;
    const same = pool.difos.get(hash);
    if (same !== undefined) {
      if (!Array.isArray(same)) {
        if (this.sameAs(same, strtab, rtype)) return { difo: same };
      } else for (const d of same) if (this.sameAs(d, strtab, rtype)) return { difo: d };
    }
    const buf = pool.u32(n);
    for (let pc = 0; pc < n; pc++) buf[pc] = words[pc]!;
    // Tables built at their exact size (arrays grown by push keep spare capacity).
    const vartab = vt.slice();
    const inttab = this.inttab.length === 0 ? NO_INTEGERS : this.inttab.slice();
    const difo: Difo = { buf, inttab, strtab, vartab, rtype, xlrefs: NO_XLREFS };
    if (same === undefined) pool.difos.set(hash, difo);
    else if (Array.isArray(same)) same.push(difo);
    else pool.difos.set(hash, [same, difo]);
    return { difo };
  }

  /** Is `d` the DIFO being finished (its instructions in `words`, its variable table in `vartab`)? */
  private sameAs(d: Difo, strtab: Uint8Array, rtype: DifType): boolean {
    const words = this.words;
    const vt = this.vartab;
    if (d.strtab !== strtab || d.buf.length !== words.length || d.vartab.length !== vt.length || d.inttab.length !== this.inttab.length) return false;
    if (d.rtype !== rtype && (d.rtype.kind !== rtype.kind || d.rtype.ckind !== rtype.ckind || d.rtype.flags !== rtype.flags || d.rtype.size !== rtype.size)) return false;
    for (let j = 0; j < vt.length; j++) if (d.vartab[j] !== vt[j]) return false;
    for (let j = 0; j < this.inttab.length; j++) if (d.inttab[j] !== this.inttab[j]) return false;
    for (let pc = 0; pc < words.length; pc++) if (d.buf[pc] !== words[pc]) return false;
    return true;
  }
}
