// The DIF assembler, after libdtrace's dt_as.c: one DIFO's instructions,
// whose operands still name things (integer values, strings, variables,
// labels), become a DIFO. Labels resolve to instruction offsets (every
// label sits on a nop, as in dtrace's listings); constants enter the
// integer table once each; strings and variable names the string table,
// in order of first use; variables the variable table, in order of first
// use. The code generator calls it as soon as a DIFO is complete, so the
// instruction objects never outlive their DIFO.
//
// Tables are searched linearly while small (a DIFO rarely has more than a
// handful of entries) and through a Map beyond that.
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
  utf8Encode,
} from '@wdtrace/dtrace-core/dif';
import type { IrInstr } from './ir.js';

/** Beyond this many entries a table is indexed by a Map. */
const LINEAR_LIMIT = 16;

const NO_XLREFS: readonly DifTranslatorRef[] = Object.freeze([]);
const NO_INTEGERS: readonly bigint[] = Object.freeze([]);

/** A string table with DifStringTable's layout: NUL-terminated UTF-8 strings, identical strings shared. */
class StringTable {
  private readonly strings: string[] = [];
  private readonly offsets: number[] = [];
  private readonly encoded: (Uint8Array | undefined)[] = [];
  private index: Map<string, number> | undefined;
  size = 0;

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
    const bytes = ascii ? undefined : utf8Encode(s);
    this.strings.push(s);
    this.offsets.push(offset);
    this.encoded.push(bytes);
    this.size += (bytes === undefined ? s.length : bytes.length) + 1;
    if (this.index !== undefined) this.index.set(s, offset);
    else if (n + 1 > LINEAR_LIMIT) this.index = new Map(this.strings.map((x, i) => [x, this.offsets[i]!]));
    return offset;
  }

  toBytes(pool: DifArrayPool): Uint8Array {
    const out = pool.u8(this.size);
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
 * the whole program clones each shared buffer once). Identical
 * variable-table entries (same name offset, id, kind, scope, flags and
 * DifType object) are one immutable object.
 */
export class DifArrayPool {
  private readonly variables = new Map<DifType, Map<number, DifVariable>>();

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

  private take(bytes: number): [ArrayBuffer, number] {
    if (bytes > DifArrayPool.CHUNK / 4) return [new ArrayBuffer(bytes), 0];
    const at = (this.used + 3) & ~3;
    if (at + bytes > DifArrayPool.CHUNK) {
      this.chunk = new ArrayBuffer(DifArrayPool.CHUNK);
      this.used = bytes;
      return [this.chunk, 0];
    }
    this.used = at + bytes;
    return [this.chunk, at];
  }

  u32(n: number): Uint32Array {
    const [b, at] = this.take(n * 4);
    return new Uint32Array(b, at, n);
  }

  u8(n: number): Uint8Array {
    const [b, at] = this.take(n);
    return new Uint8Array(b, at, n);
  }
}

export type AssembledDifo = { readonly difo: Difo; readonly overflow?: undefined } | { readonly difo?: undefined; readonly overflow: 'integer' | 'string' };

export function assembleDifo(code: readonly IrInstr[], rtype: DifType, pool: DifArrayPool): AssembledDifo {
  const n = code.length;
  // First pass: instruction offsets of labels (a label emits a nop).
  const labelAt: number[] = [];
  for (let pc = 0; pc < n; pc++) {
    const i = code[pc]!;
    if (i.k === 'label') labelAt[i.label] = pc;
  }
  const inttab: bigint[] = [];
  let intIndex: Map<bigint, number> | undefined;
  const strs = new StringTable();
  const vars: DifVariable[] = [];
  const buf = pool.u32(n);
  for (let pc = 0; pc < n; pc++) {
    const i = code[pc]!;
    switch (i.k) {
      case 'fmt':
        buf[pc] = difInstrFmt(i.op, i.r1, i.r2, i.rd);
        break;
      case 'branch': {
        const target = labelAt[i.label];
        if (target === undefined) throw new Error(`DIF assembler: label ${i.label} is not placed`);
        buf[pc] = difInstrBranch(i.op, target);
        break;
      }
      case 'label':
        buf[pc] = DIF_INSTR_NOP;
        break;
      case 'setx': {
        let idx = -1;
        if (intIndex !== undefined) idx = intIndex.get(i.value) ?? -1;
        else for (let j = 0; j < inttab.length; j++) {
          if (inttab[j] === i.value) {
            idx = j;
            break;
          }
        }
        if (idx < 0) {
          idx = inttab.length;
          if (idx > DIF_INTOFF_MAX) return { overflow: 'integer' };
          inttab.push(i.value);
          if (intIndex !== undefined) intIndex.set(i.value, idx);
          else if (inttab.length > LINEAR_LIMIT) intIndex = new Map(inttab.map((v, j) => [v, j]));
        }
        buf[pc] = difInstrSetx(idx, i.rd);
        break;
      }
      case 'sets': {
        const off = strs.insert(i.value);
        if (off > DIF_STROFF_MAX) return { overflow: 'string' };
        buf[pc] = difInstrSets(off, i.rd);
        break;
      }
      case 'var': {
        const v = i.variable;
        let known = -1;
        for (let j = 0; j < vars.length; j++) {
          const x = vars[j]!;
          if (x.id === v.id && x.kind === v.kind && x.scope === v.scope) {
            known = j;
            break;
          }
        }
        if (known < 0) {
          const name = strs.insert(v.name);
          vars.push(name <= 0xffff && v.id <= 0xffff && v.kind < 2 && v.scope < 4 && v.flags < 4 ? pool.variable(name, v.id, v.kind, v.scope, v.flags, v.type) : { name, id: v.id, kind: v.kind, scope: v.scope, flags: v.flags, type: v.type });
        } else if ((vars[known]!.flags | v.flags) !== vars[known]!.flags) {
          vars[known] = { ...vars[known]!, flags: vars[known]!.flags | v.flags };
        }
        const op = i.op;
        if (op === DIF_OP.LDGA || op === DIF_OP.LDTA) buf[pc] = difInstrLda(op, v.id, i.index!, i.reg);
        else if (op === DIF_OP.STGS || op === DIF_OP.STTS || op === DIF_OP.STLS || op === DIF_OP.STGAA || op === DIF_OP.STTAA) buf[pc] = difInstrStv(op, v.id, i.reg);
        else buf[pc] = difInstrLdv(op, v.id, i.reg);
        break;
      }
      case 'call':
        buf[pc] = difInstrCall(i.subr, i.rd);
        break;
    }
  }
  return { difo: { buf, inttab: inttab.length === 0 ? NO_INTEGERS : inttab, strtab: strs.toBytes(pool), vartab: vars, rtype, xlrefs: NO_XLREFS } };
}
