// The DIF object (DIFO): the compiled form of one D expression or predicate,
// after illumos dtrace_difo_t — instruction buffer, integer table, string
// table, variable table and return type — as a plain object that survives
// structuredClone (typed arrays and bigints) and, through
// difoToJSON/difoFromJSON, JSON.

import {
  CTF_K,
  DIF_TF_BYREF,
  DIF_TF_BYUREF,
  DIF_TYPE_CTF,
  DIF_TYPE_STRING,
  DIFV_KIND_ARRAY,
  DIFV_KIND_SCALAR,
  DIFV_SCOPE_GLOBAL,
  DIFV_SCOPE_LOCAL,
  DIFV_SCOPE_THREAD,
} from './constants.js';

/** dtrace_diftype_t: how a value is represented (by value or by reference) and its size. */
export interface DifType {
  /** DIF_TYPE_CTF or DIF_TYPE_STRING. */
  readonly kind: number;
  /** CTF_K_* kind of the underlying C type (CTF_K.UNKNOWN for strings). */
  readonly ckind: number;
  /** DIF_TF_BYREF / DIF_TF_BYUREF. */
  readonly flags: number;
  /** Size in bytes (for strings: the string size in effect, strsize). */
  readonly size: number;
}

/** dtrace_difv_t: one variable the DIFO references. */
export interface DifVariable {
  /** Byte offset of the variable's name in the DIFO string table. */
  readonly name: number;
  /** DIF_VAR_* for built-ins, >= DIF_VAR_OTHER_UBASE / DIF_VAR_ARRAY_UBASE for user variables. */
  readonly id: number;
  /** DIFV_KIND_ARRAY or DIFV_KIND_SCALAR. */
  readonly kind: number;
  /** DIFV_SCOPE_GLOBAL, _THREAD or _LOCAL. */
  readonly scope: number;
  /** DIFV_F_REF | DIFV_F_MOD. */
  readonly flags: number;
  readonly type: DifType;
}

/**
 * A translator member reference used by DIF_OP_XLATE / DIF_OP_XLARG
 * (dtdo_xlmtab): which translator, which member, and the member's D type.
 */
export interface DifTranslatorRef {
  /** Index into CompiledProgram.translators. */
  readonly translator: number;
  /** Member name ("" for XLARG references to the input argument). */
  readonly member: string;
  /** Input argument index the translator reads, as dx_arg (-1 when not bound). */
  readonly argument: number;
  /** D type name of the member, for listings. */
  readonly typeName: string;
}

export interface Difo {
  /** Instructions, one 32-bit word each. */
  readonly buf: Uint32Array;
  /** 64-bit constants referenced by setx (two's complement, stored unsigned). */
  readonly inttab: readonly bigint[];
  /** NUL-terminated UTF-8 strings referenced by sets and variable names, by byte offset. */
  readonly strtab: Uint8Array;
  readonly vartab: readonly DifVariable[];
  readonly rtype: DifType;
  /** Translator references for xlate/xlarg (empty for almost all DIFOs). */
  readonly xlrefs: readonly DifTranslatorRef[];
}

/** DIF type of a D integer or pointer value of `size` bytes, passed by value. */
export function difTypeInteger(size: number, ckind: number = CTF_K.INTEGER): DifType {
  return { kind: DIF_TYPE_CTF, ckind, flags: 0, size };
}

/** DIF type of a D string of `size` bytes (strsize), passed by reference. */
export function difTypeString(size: number): DifType {
  return { kind: DIF_TYPE_STRING, ckind: CTF_K.UNKNOWN, flags: DIF_TF_BYREF, size };
}

/** DIF type of a by-reference C object (struct, union, array) of `size` bytes. */
export function difTypeByRef(size: number, ckind: number, user = false): DifType {
  return { kind: DIF_TYPE_CTF, ckind, flags: user ? DIF_TF_BYUREF : DIF_TF_BYREF, size };
}

/** Read the NUL-terminated string at byte `offset` of a string table. */
export function difoString(strtab: Uint8Array, offset: number): string | undefined {
  if (offset < 0 || offset >= strtab.length) return undefined;
  let end = offset;
  while (end < strtab.length && strtab[end] !== 0) end++;
  return bytesString(strtab.subarray(offset, end));
}

/** Builds a string table: identical strings share one entry, offsets are byte offsets. */
export class DifStringTable {
  private readonly offsets = new Map<string, number>();
  private readonly bytes: number[] = [];

  /** Byte offset of `s`, adding it if needed. */
  insert(s: string): number {
    const known = this.offsets.get(s);
    if (known !== undefined) return known;
    const offset = this.bytes.length;
    let ascii = true;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) for (let i = 0; i < s.length; i++) this.bytes.push(s.charCodeAt(i));
    else for (const b of stringBytes(s)) this.bytes.push(b);
    this.bytes.push(0);
    this.offsets.set(s, offset);
    return offset;
  }

  get size(): number {
    return this.bytes.length;
  }

  toBytes(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

// TextEncoder/TextDecoder exist in browsers and Node alike.
const encoder = new TextEncoder();
const decoder = new TextDecoder();
export function utf8Encode(s: string): Uint8Array {
  return encoder.encode(s);
}
export function utf8Decode(b: Uint8Array): string {
  return decoder.decode(b);
}

/**
 * D strings are bytes. The compiler, the VM and the consumer hold them as
 * JS strings whose code units are the bytes (0-255), converting only at
 * the edges: a source file's bytes come in as they are, output goes out
 * byte for byte. `stringBytes` gives a string's bytes; a code unit above
 * 0xff (text that was never bytes, from a caller that passed ordinary
 * Unicode) is written as its UTF-8.
 */
export function stringBytes(s: string): Uint8Array {
  let wide = false;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0xff) {
      wide = true;
      break;
    }
  }
  if (!wide) {
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  const parts: number[] = [];
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c <= 0xff) parts.push(c);
    else for (const b of encoder.encode(ch)) parts.push(b);
  }
  return Uint8Array.from(parts);
}

/** The byte string of `b`: one code unit per byte. */
export function bytesString(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 4096) s += String.fromCharCode.apply(null, b.subarray(i, Math.min(b.length, i + 4096)) as unknown as number[]);
  return s;
}

/** Unicode text (a probe or process name, a path) as the byte string of its UTF-8. */
export function utf8ByteString(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return bytesString(encoder.encode(s));
  return s;
}

/** A byte string read as UTF-8 text (for JSON and other text outputs); invalid sequences become U+FFFD. */
export function byteStringText(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return decoder.decode(stringBytes(s));
  return s;
}

/** JSON form of a DIFO: numbers and strings only. */
export interface DifoJSON {
  buf: number[];
  inttab: string[];
  strtab: number[];
  vartab: DifVariable[];
  rtype: DifType;
  xlrefs: DifTranslatorRef[];
}

export function difoToJSON(d: Difo): DifoJSON {
  return {
    buf: Array.from(d.buf),
    inttab: d.inttab.map((v) => v.toString()),
    strtab: Array.from(d.strtab),
    vartab: d.vartab.map((v) => ({ ...v, type: { ...v.type } })),
    rtype: { ...d.rtype },
    xlrefs: d.xlrefs.map((x) => ({ ...x })),
  };
}

export function difoFromJSON(j: DifoJSON): Difo {
  return {
    buf: Uint32Array.from(j.buf),
    inttab: j.inttab.map((s) => BigInt.asUintN(64, BigInt(s))),
    strtab: Uint8Array.from(j.strtab),
    vartab: j.vartab.map((v) => ({ ...v, type: { ...v.type } })),
    rtype: { ...j.rtype },
    xlrefs: (j.xlrefs ?? []).map((x) => ({ ...x })),
  };
}

/** Short names used by listings. */
export function difvKindName(kind: number): string {
  return kind === DIFV_KIND_ARRAY ? 'arr' : kind === DIFV_KIND_SCALAR ? 'scl' : String(kind);
}
export function difvScopeName(scope: number): string {
  return scope === DIFV_SCOPE_GLOBAL
    ? 'glb'
    : scope === DIFV_SCOPE_THREAD
      ? 'tls'
      : scope === DIFV_SCOPE_LOCAL
        ? 'loc'
        : String(scope);
}

const CKIND_NAMES = [
  'unknown',
  'integer',
  'float',
  'pointer',
  'array',
  'function',
  'struct',
  'union',
  'enum',
  'forward',
  'typedef',
  'volatile',
  'const',
  'restrict',
];

/** A DIF type as dt_dis prints it: "D type (integer) (size 4)", "string (unknown) by ref (size 256)". */
export function difTypeDescription(t: DifType): string {
  const kind =
    t.kind === DIF_TYPE_CTF ? 'D type' : t.kind === DIF_TYPE_STRING ? 'string' : `0x${t.kind.toString(16)}`;
  const ckind = CKIND_NAMES[t.ckind] ?? `0x${t.ckind.toString(16)}`;
  if (t.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) {
    return `${kind} (${ckind}) by ${t.flags & DIF_TF_BYUREF ? 'user ' : ''}ref (size ${t.size})`;
  }
  return `${kind} (${ckind}) (size ${t.size})`;
}
