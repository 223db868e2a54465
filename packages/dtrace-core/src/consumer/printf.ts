// D printf/printa formatting after libdtrace's dt_printf.c: the format
// string is parsed once into conversions (dt_printf_create), each bound to
// one entry of the conversion dictionary (the table below), and formatted
// against decoded record values (dt_printf_format). Layouts of the helpers
// (%a symbols, %Y time, %S escapes, %@ aggregation results) follow the
// pfprint_* functions.

import { type CConversion, formatCFloat, formatCInteger, formatCString } from './cformat.js';
import type { ConsumerSymbols } from '../framework/machine.js';
import { addrToString, uaddrToString } from './symbols.js';
import { bytesString } from '../dif/difo.js';


/** A decoded record value as the consumer hands it to the formatter. */
export type Datum =
  /**
   * An integer record of `size` bytes. `signed` is whether the argument's D
   * type is signed (it picks %i or %u for %d, as pfcheck_dint); absent when
   * the type is unknown, which counts as signed (D's int).
   */
  | { readonly type: 'int'; readonly value: bigint; readonly size: number; readonly signed?: boolean }
  | { readonly type: 'float'; readonly value: number; readonly size: number }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'bytes'; readonly value: Uint8Array }
  /** stack()/ustack() frames, already named; `silent` for a ustack() of depth 0, which prints nothing. */
  | { readonly type: 'stack'; readonly frames: readonly string[]; readonly silent?: boolean }
  /** An aggregation result already rendered by the aggregation printer (avg, quantize ...). */
  | { readonly type: 'aggregation'; readonly rendered: string; readonly value?: bigint; readonly signed?: boolean; readonly normal?: bigint };

type PrintKind = 'addr' | 'uaddr' | 'sint' | 'uint' | 'dint' | 'echr' | 'fp' | 'cstr' | 'estr' | 'stack' | 'time' | 'time822' | 'pct' | 'port' | 'inet' | 'wstr';

interface Conversion {
  /** Name as written after the flags, size prefix included ("lld", "hx", "@"...). */
  readonly name: string;
  /** Output conversion letter given to the C layer. */
  readonly out: string;
  readonly print: PrintKind;
  /** Types accepted, worded as libdtrace's pfproto strings (for compile-time errors). */
  readonly proto: string;
}

const XINT = 'char, short, int, long, or long long';
const CSI = 'char, short, or int';
const FP = 'float, double, or long double';
const ADDR = 'pointer or integer';
const CSTR = 'char [] or string (or use stringof)';

/** The conversion dictionary, after _dtrace_conversions. */
export const PRINTF_CONVERSIONS: readonly Conversion[] = [
  { name: 'a', out: 's', print: 'addr', proto: ADDR },
  { name: 'A', out: 's', print: 'uaddr', proto: ADDR },
  { name: 'c', out: 'c', print: 'sint', proto: CSI },
  { name: 'C', out: 's', print: 'echr', proto: CSI },
  { name: 'd', out: 'd', print: 'dint', proto: XINT },
  { name: 'e', out: 'e', print: 'fp', proto: FP },
  { name: 'E', out: 'E', print: 'fp', proto: FP },
  { name: 'f', out: 'f', print: 'fp', proto: FP },
  { name: 'g', out: 'g', print: 'fp', proto: FP },
  { name: 'G', out: 'G', print: 'fp', proto: FP },
  { name: 'hd', out: 'd', print: 'sint', proto: 'short' },
  { name: 'hi', out: 'i', print: 'sint', proto: 'short' },
  { name: 'ho', out: 'o', print: 'uint', proto: 'unsigned short' },
  { name: 'hu', out: 'u', print: 'uint', proto: 'unsigned short' },
  { name: 'hx', out: 'x', print: 'uint', proto: 'short' },
  { name: 'hX', out: 'X', print: 'uint', proto: 'short' },
  { name: 'i', out: 'i', print: 'sint', proto: XINT },
  { name: 'I', out: 's', print: 'inet', proto: CSTR },
  { name: 'k', out: 's', print: 'stack', proto: 'stack' },
  { name: 'lc', out: 'c', print: 'sint', proto: 'int' },
  { name: 'ld', out: 'd', print: 'sint', proto: 'long' },
  { name: 'li', out: 'i', print: 'sint', proto: 'long' },
  { name: 'lo', out: 'o', print: 'uint', proto: 'unsigned long' },
  { name: 'lu', out: 'u', print: 'uint', proto: 'unsigned long' },
  { name: 'ls', out: 's', print: 'wstr', proto: 'wchar_t []' },
  { name: 'lx', out: 'x', print: 'uint', proto: 'long' },
  { name: 'lX', out: 'X', print: 'uint', proto: 'long' },
  { name: 'lld', out: 'd', print: 'sint', proto: 'long long' },
  { name: 'lli', out: 'i', print: 'sint', proto: 'long long' },
  { name: 'llo', out: 'o', print: 'uint', proto: 'unsigned long long' },
  { name: 'llu', out: 'u', print: 'uint', proto: 'unsigned long long' },
  { name: 'llx', out: 'x', print: 'uint', proto: 'long long' },
  { name: 'llX', out: 'X', print: 'uint', proto: 'long long' },
  { name: 'Le', out: 'e', print: 'fp', proto: 'long double' },
  { name: 'LE', out: 'E', print: 'fp', proto: 'long double' },
  { name: 'Lf', out: 'f', print: 'fp', proto: 'long double' },
  { name: 'Lg', out: 'g', print: 'fp', proto: 'long double' },
  { name: 'LG', out: 'G', print: 'fp', proto: 'long double' },
  { name: 'o', out: 'o', print: 'uint', proto: XINT },
  { name: 'p', out: 'x', print: 'uint', proto: ADDR },
  { name: 'P', out: 's', print: 'port', proto: 'uint16_t' },
  { name: 's', out: 's', print: 'cstr', proto: CSTR },
  { name: 'S', out: 's', print: 'estr', proto: CSTR },
  { name: 'T', out: 's', print: 'time822', proto: 'int64_t' },
  { name: 'u', out: 'u', print: 'uint', proto: XINT },
  { name: 'wc', out: 'c', print: 'sint', proto: 'int' },
  { name: 'ws', out: 's', print: 'wstr', proto: 'wchar_t []' },
  { name: 'x', out: 'x', print: 'uint', proto: XINT },
  { name: 'X', out: 'X', print: 'uint', proto: XINT },
  { name: 'Y', out: 's', print: 'time', proto: 'int64_t' },
  { name: '%', out: '%', print: 'pct', proto: 'void' },
];

const CONVERSIONS_BY_NAME = new Map(PRINTF_CONVERSIONS.map((c) => [c.name, c]));

/** One piece of a parsed format: literal prefix plus an optional conversion (dt_pfargd_t). */
export interface FormatPiece {
  readonly prefix: string;
  readonly conversion?: Conversion;
  readonly alt: boolean;
  readonly zeroPad: boolean;
  readonly left: boolean;
  readonly plus: boolean;
  readonly space: boolean;
  readonly group: boolean;
  readonly width: number;
  readonly precision: number;
  readonly dynamicWidth: boolean;
  readonly dynamicPrecision: boolean;
  /** %@: the value comes from the aggregation, not from a record. */
  readonly aggregation: boolean;
}

export class PrintfFormatError extends Error {}

/**
 * Output a conversion cannot produce: vfprintf fails with EOVERFLOW when its
 * output would pass INT_MAX bytes, and dtrace(1) stops ("processing
 * aborted"). A JavaScript string holds far less than INT_MAX characters, so
 * a width or precision of OUTPUT_MAX or more fails this way here.
 */
export class PrintfOverflowError extends Error {
  constructor() {
    super('processing aborted: Value too large for defined data type');
  }
}
const OUTPUT_MAX = 1 << 28;

/** Parses a D format string the way dt_printf_create does; throws PrintfFormatError worded like libdtrace. */
export function parsePrintfFormat(format: string, dataModel: 'LP64' | 'ILP32' = 'LP64'): FormatPiece[] {
  const pieces: FormatPiece[] = [];
  let q = 0;
  let argc = 0;
  for (;;) {
    const p0 = format.indexOf('%', q);
    if (p0 < 0) break;
    argc++;
    const prefix = format.slice(q, p0);
    let p = p0;
    let alt = false, zeroPad = false, left = false, plus = false, space = false, group = false;
    let width = 0, precision = 0, dot = 0, digits = 0;
    let dynamicWidth = false, dynamicPrecision = false, aggregation = false;
    let name = '';
    for (;;) {
      const c = format[++p];
      if (c === undefined) {
        throw new PrintfFormatError(`format conversion #${argc} name expected before end of format string`);
      }
      if (c >= '0' && c <= '9') {
        if (dot === 0 && digits === 0 && c === '0') {
          zeroPad = true;
          left = false;
          continue;
        }
        let n = 0;
        while (p < format.length && format[p]! >= '0' && format[p]! <= '9') n = n * 10 + format.charCodeAt(p++) - 48;
        p--;
        if (dot) precision = n;
        else width = n;
        digits++;
        continue;
      }
      if (c === '#') { alt = true; continue; }
      if (c === '*') {
        if (dot ? dynamicPrecision : dynamicWidth) {
          throw new PrintfFormatError(`format conversion #${argc} has more than one '*' specified for the output ${dot ? 'precision' : 'width'}`);
        }
        if (dot) dynamicPrecision = true;
        else dynamicWidth = true;
        continue;
      }
      if (c === '+') { plus = true; continue; }
      if (c === '-') { left = true; zeroPad = false; continue; }
      if (c === '.') {
        if (dot++ !== 0) throw new PrintfFormatError(`format conversion #${argc} has more than one '.' specified`);
        digits = 0;
        continue;
      }
      if (c === '?') { width = dataModel === 'LP64' ? 16 : 8; continue; }
      if (c === '@') { aggregation = true; continue; }
      if (c === "'") { group = true; continue; }
      if (c === ' ') { space = true; continue; }
      if (c === '$') throw new PrintfFormatError(`format conversion #${argc} uses unsupported positional format (%n$)`);
      if (c === '%') {
        if (format[p - 1] === '%') { name += c; break; }
        throw new PrintfFormatError(`format conversion #${argc} cannot be combined with other format flags: %%`);
      }
      if (c === 'h' || c === 'l' || c === 'L' || c === 'w') {
        if (name.length < 6) name += c;
        continue;
      }
      name += c;
      break;
    }
    // %@ with a plain letter uses the aggregation value; the conversion itself still names the printing.
    const conversion = CONVERSIONS_BY_NAME.get(name);
    if (!conversion) throw new PrintfFormatError(`format conversion #${argc} is undefined: %${name}`);
    pieces.push({ prefix, conversion, alt, zeroPad, left, plus, space, group, width, precision, dynamicWidth, dynamicPrecision, aggregation });
    q = p + 1;
  }
  if (q < format.length || format.length === 0) {
    pieces.push({
      prefix: format.slice(q), alt: false, zeroPad: false, left: false, plus: false, space: false, group: false,
      width: 0, precision: 0, dynamicWidth: false, dynamicPrecision: false, aggregation: false,
    });
  }
  return pieces;
}

/** Number of record arguments a parsed format consumes (dynamic width/precision included; %% and %@ consume none). */
export function printfArgumentCount(pieces: readonly FormatPiece[]): number {
  let n = 0;
  for (const p of pieces) {
    if (!p.conversion || p.conversion.print === 'pct') continue;
    if (p.dynamicWidth) n++;
    if (p.dynamicPrecision) n++;
    if (!p.aggregation) n++;
  }
  return n;
}

function sizedSigned(v: bigint, size: number): bigint {
  return size >= 8 ? BigInt.asIntN(64, v) : BigInt.asIntN(size * 8, v);
}
function sizedUnsigned(v: bigint, size: number): bigint {
  return size >= 8 ? BigInt.asUintN(64, v) : BigInt.asUintN(size * 8, v);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const two = (n: number): string => String(n).padStart(2, '0');

/** localtime_r: the wall time of a walltimestamp, to the second, read through the local time methods. */
function localTime(ns: bigint): Date {
  return new Date(Number(ns / 1_000_000_000n) * 1000);
}

/**
 * %Y: ctime_r's "Thu Nov 14 14:13:20 2023" reordered as pfprint_time does,
 * "2023 Nov 14 14:13:20" (the day space-padded, as ctime's "%3d"), in the
 * local time zone (TZ), as ctime_r.
 */
export function formatWalltime(ns: bigint): string {
  const d = localTime(ns);
  const day = String(d.getDate()).padStart(2, ' ');
  return `${d.getFullYear()} ${MONTHS[d.getMonth()]} ${day} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** %T: RFC 822 form, as pfprint_time822: localtime_r, then strftime "%a, %d %b %G %T %Z". */
export function formatTime822(ns: bigint): string {
  const d = localTime(ns);
  return `${DAYS[d.getDay()]}, ${two(d.getDate())} ${MONTHS[d.getMonth()]} ${isoWeekYear(d)} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${zoneAbbreviation(d)}`;
}

/** strftime's %G: the ISO 8601 week-based year, the year of the Thursday of the (local) date's week. */
function isoWeekYear(d: Date): number {
  const weekday = d.getDay() || 7;
  return new Date(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate() + 4 - weekday)).getUTCFullYear();
}

/**
 * Locales whose short zone names cover the tz database's abbreviations:
 * ICU names a zone's abbreviation ("PST", "CET", "AEDT", "IST", "JST") only
 * in the locales where it is in use, and "GMT+1" elsewhere.
 */
const ZONE_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-NZ', 'en-IN', 'en-ZA', 'en-CA', 'ja-JP'];
const zoneNames = new Map<string, string>();

/**
 * strftime's %Z: the abbreviation of the local time zone at `d` ("UTC",
 * "PST", "CEST"), from the first of ZONE_LOCALES that has one; a zone the
 * tz database gives only a numeric abbreviation ("-03", "+0530") — or one
 * ICU knows no abbreviation of — prints that numeric form.
 */
function zoneAbbreviation(d: Date): string {
  // Date's own text names the zone and offset in effect (".. GMT-0800 (Pacific Standard Time)"): the cache key.
  const key = d.toString().replace(/^.*?GMT/, '');
  const known = zoneNames.get(key);
  if (known !== undefined) return known;
  let name: string | undefined;
  for (const locale of ZONE_LOCALES) {
    let part: string | undefined;
    try {
      part = new Intl.DateTimeFormat(locale, { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value;
    } catch {
      break;
    }
    if (part !== undefined && /^[A-Z]{2,6}$/.test(part)) {
      name = part;
      break;
    }
  }
  if (name === undefined) {
    const east = -d.getTimezoneOffset();
    const abs = Math.abs(east);
    name = `${east < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}${abs % 60 !== 0 ? two(abs % 60) : ''}`;
  }
  zoneNames.set(key, name);
  return name;
}

/** strchr2esc: a string with C escapes for non-printing characters (%S, %C). */
export function escapeString(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    switch (ch) {
      case '\0': out += '\\0'; break;
      case '\x07': out += '\\a'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\v': out += '\\v'; break;
      case '\\': out += '\\\\'; break;
      case '"': out += '\\"'; break;
      default:
        // Anything outside '!'..'~' but the space, bytes 0x80 and up included (a signed char below '!').
        out += c < 0x20 || c >= 0x7f ? '\\' + (c & 0xff).toString(8).padStart(3, '0') : ch;
    }
  }
  return out;
}


function datumInteger(d: Datum | undefined, what: string): { value: bigint; size: number; signed: boolean } {
  if (d?.type === 'int') return { value: d.value, size: d.size, signed: d.signed ?? true };
  // The %@ value is int64_t, or uint64_t for count() (dt_printf_validate's aggnode).
  if (d?.type === 'aggregation' && d.value !== undefined) return { value: d.value, size: 8, signed: d.signed ?? true };
  throw new PrintfFormatError(`${what} expects an integer argument`);
}

function datumString(d: Datum | undefined): string {
  if (d?.type === 'string') return d.value;
  if (d?.type === 'bytes') {
    let end = d.value.indexOf(0);
    if (end < 0) end = d.value.length;
    return bytesString(d.value.subarray(0, end));
  }
  if (d?.type === 'int') return String(d.value);
  throw new PrintfFormatError('%s expects a string argument');
}

export interface PrintfContext {
  readonly symbols: ConsumerSymbols;
  /** Normalization factor of the aggregation value (normalize()), 1 otherwise. */
  readonly normal?: bigint;
}

/**
 * Formats parsed pieces against record values, as dt_printf_format. `args`
 * holds the record values in order; `aggregation` is the value (or, for a
 * printa of several aggregations, the values in order) that %@ uses.
 * Returns the text; the number of args consumed is `printfArgumentCount`.
 */
export function formatPrintf(pieces: readonly FormatPiece[], args: readonly Datum[], ctx: PrintfContext, aggregation?: Datum | readonly Datum[]): string {
  let out = '';
  let next = 0;
  // printa() of several aggregations: each %@ takes the next one's value, the last one repeats.
  const aggs: readonly Datum[] = aggregation === undefined ? [] : Array.isArray(aggregation) ? aggregation : [aggregation as Datum];
  let curagg = 0;
  const take = (): Datum => {
    const d = args[next++];
    if (d === undefined) throw new PrintfFormatError('printf( ) argument count mismatch: too few arguments for format');
    return d;
  };
  for (const piece of pieces) {
    out += piece.prefix;
    const conv = piece.conversion;
    if (!conv) continue;
    if (conv.print === 'pct') {
      out += '%';
      continue;
    }
    let width = piece.width;
    let precision = piece.precision;
    // dt_printf_getint: the record sign-extended by its size, then taken as an int.
    const getint = (what: string): number => {
      const d = datumInteger(take(), what);
      return Number(BigInt.asIntN(32, sizedSigned(d.value, d.size)));
    };
    if (piece.dynamicWidth) width = getint('a * width');
    if (piece.dynamicPrecision) precision = getint('a * precision');
    let datum: Datum | undefined;
    if (piece.aggregation) {
      datum = aggs[curagg];
      if (curagg < aggs.length - 1) curagg++;
    } else {
      datum = take();
    }
    // normalize(): the conversion divides the aggregation's value as it reads it (pfprint_sint signed, pfprint_uint unsigned).
    const normal = piece.aggregation ? (datum?.type === 'aggregation' ? datum.normal : undefined) ?? ctx.normal ?? 1n : 1n;
    if (Math.abs(width) >= OUTPUT_MAX || precision >= OUTPUT_MAX) throw new PrintfOverflowError();
    const c: CConversion = {
      alt: piece.alt,
      zeroPad: piece.zeroPad,
      left: width < 0 || piece.left,
      plus: piece.plus,
      space: piece.space,
      group: piece.group,
      width: Math.abs(width),
      precision: precision > 0 ? precision : -1,
      conv: conv.out,
    };
    if (datum?.type === 'aggregation' && datum.value === undefined) {
      // avg, stddev and the quantizations print through their own printers (pfprint_average ...).
      out += datum.rendered;
      continue;
    }
    switch (conv.print) {
      case 'sint':
      case 'uint':
      case 'dint': {
        const { value, size, signed } = datumInteger(datum, `%${conv.name}`);
        // pfcheck_dint marks %d of a signed argument DT_PFCONV_SIGNED, so pfprint_dint prints it with pfprint_sint;
        // the %@ conversions of printa() are not checked against a type and keep pfprint_uint.
        const kind = conv.print === 'dint' && signed && datum?.type === 'int' ? 'sint' : conv.print;
        out += formatCInteger({ ...c, conv: integerLetter(conv, signed) }, integerArgument(kind, conv.out, value, size, normal, signed));
        break;
      }
      case 'fp': {
        const v = datum?.type === 'float' ? datum.value : Number(datumInteger(datum, `%${conv.name}`).value);
        out += formatCFloat(c, v / Number(normal));
        break;
      }
      case 'addr': {
        const { value } = datumInteger(datum, '%a');
        out += formatCString(c, addrToString(ctx.symbols, sizedUnsigned(value, 8)));
        break;
      }
      case 'uaddr': {
        // pfprint_uaddr: a 16-byte record carries the pid before the address.
        const pid = datum?.type === 'bytes' && datum.value.length >= 16 ? new DataView(datum.value.buffer, datum.value.byteOffset).getBigUint64(0, true) : 0n;
        const value = datum?.type === 'bytes' && datum.value.length >= 16 ? new DataView(datum.value.buffer, datum.value.byteOffset).getBigUint64(8, true) : datumInteger(datum, '%A').value;
        out += formatCString(c, uaddrToString(ctx.symbols, pid, sizedUnsigned(value, 8)));
        break;
      }
      case 'echr': {
        const { value } = datumInteger(datum, '%C');
        out += formatCString(c, escapeString(String.fromCharCode(Number(BigInt.asUintN(8, value)))));
        break;
      }
      case 'cstr':
      case 'inet':
      case 'wstr':
        out += formatCString(c, datumString(datum));
        break;
      case 'estr':
        out += formatCString(c, escapeString(datumString(datum)));
        break;
      case 'port':
        out += formatCString(c, String(sizedUnsigned(datumInteger(datum, '%P').value, 2)));
        break;
      case 'time':
        out += formatCString(c, formatWalltime(datumInteger(datum, '%Y').value));
        break;
      case 'time822':
        out += formatCString(c, formatTime822(datumInteger(datum, '%T').value));
        break;
      case 'stack': {
        if (datum?.type !== 'stack') throw new PrintfFormatError('%k expects a stack() or ustack() argument');
        // pfprint_stack: a left-justified width becomes the indent (the frames then print unpadded); otherwise the indent is 0.
        const indent = c.left ? c.width : 0;
        if (!datum.silent) out += formatStack(datum.frames, indent, c.left ? { ...c, width: 0 } : c);
        break;
      }
    }
  }
  return out;
}

/**
 * The letter C printf finally sees for an integer conversion: pfcheck_dint
 * rewrites %d into %i for a signed argument and %u for an unsigned one; the
 * other conversions keep their output letter (%hd prints with "d", %lx with
 * "x": the size prefix of the name is not passed on).
 */
function integerLetter(conv: Conversion, signed: boolean): string {
  if (conv.print === 'dint') return signed ? 'd' : 'u';
  return conv.out === 'i' ? 'd' : conv.out;
}

/**
 * The value C printf prints for an integer record, after dt_printf.c:
 * pfprint_sint sign-extends records of 1, 2 and 4 bytes to an int and
 * pfprint_uint zero-extends them to an unsigned int (8-byte records pass
 * as long long with an "ll" prefix). %d goes through pfprint_dint, which
 * takes pfprint_sint when pfcheck_dint found the argument's type signed
 * (DT_PFCONV_SIGNED) and pfprint_uint otherwise (an unsigned type, or an
 * aggregation's %@d), so a negative char or short prints -1 with %d and
 * an unsigned char 255. The letter then reads that int as signed (%d %i)
 * or unsigned (%u %o %x).
 */
function integerArgument(kind: PrintKind, letter: string, raw: bigint, size: number, normal: bigint, signedType: boolean): bigint {
  const wide = size >= 8;
  const bits = wide ? 64 : size * 8;
  let v: bigint;
  if (kind === 'sint') {
    v = BigInt.asIntN(bits, raw);
    if (normal !== 1n) v = wide ? v / BigInt.asIntN(64, normal) : BigInt.asIntN(32, v / (BigInt.asIntN(32, normal) || 1n));
  } else {
    v = BigInt.asUintN(bits, raw);
    if (normal !== 1n) v = wide ? v / (BigInt.asUintN(64, normal) || 1n) : v / (BigInt.asUintN(32, normal) || 1n);
  }
  const readsSigned = kind === 'dint' ? signedType : letter === 'd' || letter === 'i';
  if (letter === 'c') return v;
  return readsSigned ? BigInt.asIntN(wide ? 64 : 32, v) : BigInt.asUintN(wide ? 64 : 32, v);
}

/** dt_print_stack: a newline, then one indented frame per line. */
export function formatStack(frames: readonly string[], indent: number, c?: CConversion): string {
  let out = '\n';
  for (const f of frames) out += ' '.repeat(indent) + (c ? formatCString(c, f) : f) + '\n';
  return out;
}
