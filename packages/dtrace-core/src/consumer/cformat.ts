// A C printf(3) engine for one conversion at a time, the layer libdtrace's
// dt_printf() reaches through snprintf: flags (# 0 - + space '), width,
// precision and the conversions d i u o x X c s e E f g G p and %. Integer
// values are bigints so 64-bit values print exactly. Pure and browser-safe.

/** One fully resolved conversion: what dt_printf_format hands to snprintf. */
export interface CConversion {
  alt: boolean; //    '#'
  zeroPad: boolean; // '0'
  left: boolean; //   '-'
  plus: boolean; //   '+'
  space: boolean; //  ' '
  group: boolean; //  '\'' (thousands grouping; the C locale has none)
  width: number; //   0 = none
  precision: number; // -1 = none
  conv: string; //    final conversion letter
}

function pad(body: string, c: CConversion, prefixLen = 0): string {
  if (body.length >= c.width) return body;
  const fill = c.width - body.length;
  if (c.left) return body + ' '.repeat(fill);
  if (c.zeroPad && prefixLen >= 0) {
    return body.slice(0, prefixLen) + '0'.repeat(fill) + body.slice(prefixLen);
  }
  return ' '.repeat(fill) + body;
}

/** Formats an integer conversion (d i u o x X c p). `value` is already sign/zero-extended by the caller. */
export function formatCInteger(c: CConversion, value: bigint): string {
  const conv = c.conv;
  if (conv === 'c') {
    const ch = String.fromCharCode(Number(BigInt.asUintN(8, value)));
    return pad(ch, { ...c, zeroPad: false });
  }
  let negative = false;
  let magnitude = value;
  let digits: string;
  let prefix = '';
  if (conv === 'd' || conv === 'i') {
    if (value < 0n) {
      negative = true;
      magnitude = -value;
    }
    digits = magnitude.toString(10);
    prefix = negative ? '-' : c.plus ? '+' : c.space ? ' ' : '';
  } else {
    magnitude = BigInt.asUintN(64, value);
    if (conv === 'o') digits = magnitude.toString(8);
    else if (conv === 'x' || conv === 'p') digits = magnitude.toString(16);
    else if (conv === 'X') digits = magnitude.toString(16).toUpperCase();
    else digits = magnitude.toString(10);
    if (c.alt && magnitude !== 0n) {
      if (conv === 'x') prefix = '0x';
      else if (conv === 'X') prefix = '0X';
    }
  }
  if (c.precision >= 0) {
    if (c.precision === 0 && magnitude === 0n) digits = '';
    if (digits.length < c.precision) digits = '0'.repeat(c.precision - digits.length) + digits;
  }
  if (conv === 'o' && c.alt && !digits.startsWith('0')) digits = '0' + digits;
  const zero = c.zeroPad && c.precision < 0 && !c.left;
  return pad(prefix + digits, { ...c, zeroPad: zero }, prefix.length);
}

/** Formats %s with precision (maximum bytes) and width. */
export function formatCString(c: CConversion, s: string): string {
  const body = c.precision >= 0 ? s.slice(0, c.precision) : s;
  return pad(body, { ...c, zeroPad: false });
}

function exponentForm(v: number, precision: number, upper: boolean, alt: boolean): string {
  let s = v.toExponential(precision);
  // JS prints e+5; C prints at least two exponent digits: e+05.
  s = s.replace(/e([+-])(\d)$/, 'e$10$2');
  if (alt && precision === 0) s = s.replace('e', '.e');
  return upper ? s.toUpperCase() : s;
}

function stripZeros(s: string): string {
  const e = s.search(/[eE]/);
  const mant = e >= 0 ? s.slice(0, e) : s;
  const exp = e >= 0 ? s.slice(e) : '';
  if (!mant.includes('.')) return s;
  return mant.replace(/0+$/, '').replace(/\.$/, '') + exp;
}

/** Formats a floating conversion (e E f g G). */
export function formatCFloat(c: CConversion, v: number): string {
  const conv = c.conv;
  const upper = conv === 'E' || conv === 'G';
  let body: string;
  const negative = v < 0 || Object.is(v, -0);
  const a = Math.abs(v);
  if (!Number.isFinite(a)) {
    body = Number.isNaN(a) ? 'nan' : 'inf';
    if (upper) body = body.toUpperCase();
  } else if (conv === 'f' || conv === 'F') {
    const p = c.precision < 0 ? 6 : c.precision;
    body = a.toFixed(Math.min(p, 100));
    if (c.alt && p === 0) body += '.';
  } else if (conv === 'e' || conv === 'E') {
    body = exponentForm(a, c.precision < 0 ? 6 : Math.min(c.precision, 100), upper, c.alt);
  } else {
    let p = c.precision < 0 ? 6 : c.precision;
    if (p === 0) p = 1;
    const x = a === 0 ? 0 : Math.floor(Math.log10(Number(a.toExponential(p - 1))));
    if (x < -4 || x >= p) body = exponentForm(a, p - 1, upper, c.alt);
    else body = a.toFixed(p - 1 - x);
    if (!c.alt) body = stripZeros(body);
  }
  const sign = negative && !Number.isNaN(v) ? '-' : c.plus ? '+' : c.space ? ' ' : '';
  const zero = c.zeroPad && !c.left && Number.isFinite(a);
  return pad(sign + body, { ...c, zeroPad: zero }, sign.length);
}
