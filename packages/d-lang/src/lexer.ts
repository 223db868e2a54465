// The D lexer: source text to tokens, after libdtrace's dt_lex.l. It runs on
// demand for the parser, in one of two modes: 'clause' at the top level of a
// program (where probe descriptions such as `syscall::read:entry` or
// `profile-97hz` are single tokens) and 'expr' inside predicates, actions
// and declarations. It also recognises the control lines that survive
// preprocessing: #pragma, and # / #line markers that reset line numbers.

import { type SourceLocation, fail, makeDiagnostic, CompileError } from './diagnostics.js';

export type TokenKind =
  | 'ident'
  | 'keyword'
  | 'int'
  | 'string'
  | 'char'
  | 'punct'
  | 'pspec'
  | 'macro'
  | 'agg'
  | 'pragma'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Identifier/keyword/punctuator text, probe description, decoded string, pragma body. */
  readonly text: string;
  /** Integer constant value (int and char tokens). */
  readonly value?: bigint;
  /** Integer suffix letters (lower-cased "u", "l", "ul", "ll", "ull") and whether the constant was decimal. */
  readonly suffix?: string;
  readonly decimal?: boolean;
  /** $$1: macro argument used as a string. */
  readonly stringMacro?: boolean;
  readonly loc: SourceLocation;
  /** Offset just past the token. */
  readonly end: number;
  /** Token is the first on its line (for control lines). */
  readonly lineStart: boolean;
}

export const D_KEYWORDS: ReadonlySet<string> = new Set([
  'auto',
  'break',
  'case',
  'char',
  'const',
  'continue',
  'counter',
  'default',
  'do',
  'double',
  'else',
  'enum',
  'extern',
  'float',
  'for',
  'goto',
  'if',
  'import',
  'inline',
  'int',
  'long',
  'offsetof',
  'probe',
  'provider',
  'register',
  'restrict',
  'return',
  'self',
  'short',
  'signed',
  'sizeof',
  'static',
  'string',
  'stringof',
  'struct',
  'switch',
  'this',
  'translator',
  'typedef',
  'union',
  'unsigned',
  'void',
  'volatile',
  'while',
  'xlate',
]);

const PUNCT3 = ['...', '<<=', '>>='];
const PUNCT2 = ['->', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '^^', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|='];
const PUNCT1 = '()[]{}.&*+-~!/%<>^|?:;,=`';

// Character classes as lookup tables for speed.
const IDENT_START = new Uint8Array(128);
const IDENT_PART = new Uint8Array(128);
const PSPEC_START = new Uint8Array(128);
const PSPEC_PART = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  const alpha = /[A-Za-z_]/.test(ch);
  const digit = /[0-9]/.test(ch);
  IDENT_START[c] = alpha ? 1 : 0;
  IDENT_PART[c] = alpha || digit ? 1 : 0;
  // RGX_PSPEC of dt_lex.l: [-$:a-zA-Z_.?*\\\[\]!][-$:0-9a-zA-Z_.`?*\\\[\]!]*
  PSPEC_START[c] = alpha || '-$:.?*\\[]!'.includes(ch) ? 1 : 0;
  PSPEC_PART[c] = alpha || digit || '-$:.`?*\\[]!'.includes(ch) ? 1 : 0;
}

export type LexMode = 'clause' | 'expr';

export class Lexer {
  private pos = 0;
  private line = 1;
  private lineStartOffset = 0;
  private file: string | undefined;
  private atLineStart = true;

  constructor(readonly text: string) {}

  get offset(): number {
    return this.pos;
  }

  /** Save/restore for re-lexing a token in another mode. */
  mark(): { pos: number; line: number; lineStartOffset: number; file: string | undefined; atLineStart: boolean } {
    return { pos: this.pos, line: this.line, lineStartOffset: this.lineStartOffset, file: this.file, atLineStart: this.atLineStart };
  }

  reset(m: ReturnType<Lexer['mark']>): void {
    this.pos = m.pos;
    this.line = m.line;
    this.lineStartOffset = m.lineStartOffset;
    this.file = m.file;
    this.atLineStart = m.atLineStart;
  }

  location(offset = this.pos): SourceLocation {
    const column = offset - this.lineStartOffset + 1;
    return this.file === undefined ? { line: this.line, column, offset } : { line: this.line, column, offset, file: this.file };
  }

  private newline(at: number): void {
    this.line++;
    this.lineStartOffset = at + 1;
    this.atLineStart = true;
  }

  /** Skip blanks, newlines and comments; handle control lines. Returns a pragma token when one is found. */
  private skip(): Token | undefined {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (c === 10) {
        this.newline(this.pos);
        this.pos++;
      } else if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11) {
        this.pos++;
      } else if (c === 47 && t.charCodeAt(this.pos + 1) === 42) {
        const start = this.location();
        const end = t.indexOf('*/', this.pos + 2);
        if (end < 0) fail('D_SYNTAX', start, 'end of input');
        for (let i = this.pos; i < end; i++) if (t.charCodeAt(i) === 10) this.newline(i);
        this.pos = end + 2;
      } else if (c === 47 && t.charCodeAt(this.pos + 1) === 47) {
        while (this.pos < t.length && t.charCodeAt(this.pos) !== 10) this.pos++;
      } else if (c === 35 && this.atLineStart) {
        const tok = this.controlLine();
        if (tok !== undefined) return tok;
      } else {
        return undefined;
      }
    }
  }

  /** A line starting with '#': #pragma, # N "file", #line N "file"; anything else is invalid. */
  private controlLine(): Token | undefined {
    const t = this.text;
    const start = this.pos;
    const loc = this.location();
    let end = t.indexOf('\n', start);
    if (end < 0) end = t.length;
    // Continuation lines are joined by the preprocessor; here one line is one directive.
    const body = t.slice(start + 1, end).trim();
    this.pos = end;
    const m = /^(?:line\s+)?(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?/.exec(body);
    if (m !== null) {
      // The line after the marker has number N.
      this.line = Number(m[1]) - 1;
      if (m[2] !== undefined) this.file = m[2] === '<stdin>' || m[2] === '' ? undefined : m[2];
      return undefined;
    }
    const word = /^([A-Za-z_]\w*)/.exec(body);
    if (word !== null && word[1] === 'pragma') {
      return { kind: 'pragma', text: body.slice(6).trim(), loc, end, lineStart: true };
    }
    if (body === '') return undefined; // a lone '#' is a null directive
    return fail('D_PRAGCTL_INVAL', loc, word !== null ? word[1]! : body.split(/\s/)[0]!);
  }

  next(mode: LexMode): Token {
    const pragma = this.skip();
    if (pragma !== undefined) return pragma;
    const t = this.text;
    const start = this.pos;
    const loc = this.location();
    const lineStart = this.atLineStart;
    this.atLineStart = false;
    if (start >= t.length) return { kind: 'eof', text: '', loc, end: start, lineStart };
    const c = t.charCodeAt(start);

    if (mode === 'clause' && c < 128 && PSPEC_START[c] === 1) {
      let p = start + 1;
      while (p < t.length) {
        const d = t.charCodeAt(p);
        if (d < 128 && PSPEC_PART[d] === 1) p++;
        else break;
      }
      const text = t.slice(start, p);
      // A plain identifier is a keyword or identifier even in clause mode (declarations).
      if (/^[A-Za-z_]\w*$/.test(text)) {
        this.pos = p;
        return { kind: D_KEYWORDS.has(text) ? 'keyword' : 'ident', text, loc, end: p, lineStart };
      }
      this.pos = p;
      return { kind: 'pspec', text, loc, end: p, lineStart };
    }

    if (c < 128 && IDENT_START[c] === 1) {
      let p = start + 1;
      while (p < t.length) {
        const d = t.charCodeAt(p);
        if (d < 128 && IDENT_PART[d] === 1) p++;
        else break;
      }
      const text = t.slice(start, p);
      this.pos = p;
      return { kind: D_KEYWORDS.has(text) ? 'keyword' : 'ident', text, loc, end: p, lineStart };
    }

    if (c >= 48 && c <= 57) return this.number(start, loc, lineStart);
    if (c === 34) return this.string(start, loc, lineStart);
    if (c === 39) return this.charConst(start, loc, lineStart);

    if (c === 64) {
      // @ or @name
      let p = start + 1;
      while (p < t.length) {
        const d = t.charCodeAt(p);
        if (d < 128 && IDENT_PART[d] === 1) p++;
        else break;
      }
      this.pos = p;
      return { kind: 'agg', text: t.slice(start + 1, p), loc, end: p, lineStart };
    }

    if (c === 36) {
      // $1, $$1, $target, $pid ...
      let p = start + 1;
      let stringMacro = false;
      if (t.charCodeAt(p) === 36) {
        stringMacro = true;
        p++;
      }
      const nameStart = p;
      while (p < t.length) {
        const d = t.charCodeAt(p);
        if (d < 128 && IDENT_PART[d] === 1) p++;
        else break;
      }
      if (p === nameStart) fail('D_SYNTAX', loc, `"${t.slice(start, p + 1)}"`);
      this.pos = p;
      return { kind: 'macro', text: t.slice(nameStart, p), stringMacro, loc, end: p, lineStart };
    }

    for (const p3 of PUNCT3) {
      if (t.startsWith(p3, start)) {
        this.pos = start + 3;
        return { kind: 'punct', text: p3, loc, end: this.pos, lineStart };
      }
    }
    const two = t.slice(start, start + 2);
    if (PUNCT2.includes(two)) {
      this.pos = start + 2;
      return { kind: 'punct', text: two, loc, end: this.pos, lineStart };
    }
    const one = t[start]!;
    if (PUNCT1.includes(one)) {
      this.pos = start + 1;
      return { kind: 'punct', text: one, loc, end: this.pos, lineStart };
    }
    return fail('D_SYNTAX', loc, `"${one}"`);
  }

  private number(start: number, loc: SourceLocation, lineStart: boolean): Token {
    const t = this.text;
    let p = start;
    let digits: string;
    let radix: 10 | 16 | 8 = 10;
    if (t[p] === '0' && (t[p + 1] === 'x' || t[p + 1] === 'X')) {
      radix = 16;
      p += 2;
      const ds = p;
      while (/[0-9a-fA-F]/.test(t[p] ?? '')) p++;
      digits = t.slice(ds, p);
      if (digits === '') fail('D_INT_DIGIT', loc, t[p] ?? '', t.slice(start, p + 1));
    } else {
      const ds = p;
      while (/[0-9]/.test(t[p] ?? '')) p++;
      digits = t.slice(ds, p);
      if (digits.length > 1 && digits[0] === '0') {
        radix = 8;
        const bad = /[89]/.exec(digits);
        if (bad !== null) fail('D_INT_DIGIT', loc, bad[0], digits);
      }
    }
    if (t[p] === '.' || t[p] === 'e' || t[p] === 'E') {
      if (radix === 10 && (t[p] === '.' ? /[0-9]/.test(t[p + 1] ?? '') : true)) {
        fail('D_SYNTAX', loc, `"${t.slice(start, p + 1)}"`);
      }
    }
    const sfxStart = p;
    while (/[uUlL]/.test(t[p] ?? '')) p++;
    const suffix = t.slice(sfxStart, p).toLowerCase();
    if (suffix !== '' && !['u', 'l', 'ul', 'lu', 'll', 'ull', 'llu'].includes(suffix)) {
      fail('D_SYNTAX', loc, `"${t.slice(start, p)}"`);
    }
    if (/[A-Za-z0-9_]/.test(t[p] ?? '')) {
      fail('D_INT_DIGIT', loc, t[p]!, t.slice(start, p + 1));
    }
    let value: bigint;
    if (radix === 16) value = BigInt('0x' + digits);
    else if (radix === 8) value = BigInt('0o' + digits.slice(1));
    else value = BigInt(digits);
    if (value > 0xffffffffffffffffn) fail('D_INT_OFLOW', loc, t.slice(start, p));
    this.pos = p;
    const norm = suffix.includes('u') ? (suffix.includes('ll') ? 'ull' : suffix.includes('l') ? 'ul' : 'u') : suffix;
    return { kind: 'int', text: t.slice(start, p), value, suffix: norm, decimal: radix === 10, loc, end: p, lineStart };
  }

  /** One escape sequence starting after the backslash at p; returns [char code, next position]. */
  private escape(p: number): [number, number] {
    const t = this.text;
    const c = t[p];
    switch (c) {
      case 'n':
        return [10, p + 1];
      case 't':
        return [9, p + 1];
      case 'r':
        return [13, p + 1];
      case 'a':
        return [7, p + 1];
      case 'b':
        return [8, p + 1];
      case 'f':
        return [12, p + 1];
      case 'v':
        return [11, p + 1];
      case 'x': {
        let q = p + 1;
        while (q < p + 3 && /[0-9a-fA-F]/.test(t[q] ?? '')) q++;
        if (q === p + 1) return ['x'.charCodeAt(0), p + 1];
        return [parseInt(t.slice(p + 1, q), 16), q];
      }
      default:
        if (c !== undefined && c >= '0' && c <= '7') {
          let q = p;
          while (q < p + 3 && /[0-7]/.test(t[q] ?? '')) q++;
          return [parseInt(t.slice(p, q), 8) & 0xff, q];
        }
        return [t.charCodeAt(p), p + 1];
    }
  }

  private string(start: number, loc: SourceLocation, lineStart: boolean): Token {
    const t = this.text;
    let p = start + 1;
    let out = '';
    for (;;) {
      if (p >= t.length) fail('D_SYNTAX', loc, 'end of input');
      const c = t[p]!;
      if (c === '"') break;
      if (c === '\n') throw new CompileError(makeDiagnostic('D_STR_NL', this.location(p)));
      if (c === '\\') {
        if (t[p + 1] === '\n') {
          this.newline(p + 1);
          p += 2;
          continue;
        }
        const [code, q] = this.escape(p + 1);
        out += String.fromCharCode(code);
        p = q;
        continue;
      }
      out += c;
      p++;
    }
    this.pos = p + 1;
    return { kind: 'string', text: out, loc, end: this.pos, lineStart };
  }

  private charConst(start: number, loc: SourceLocation, lineStart: boolean): Token {
    const t = this.text;
    let p = start + 1;
    const bytes: number[] = [];
    for (;;) {
      if (p >= t.length) fail('D_SYNTAX', loc, 'end of input');
      const c = t[p]!;
      if (c === "'") break;
      if (c === '\n') fail('D_CHR_NL', this.location(p));
      if (c === '\\') {
        const [code, q] = this.escape(p + 1);
        bytes.push(code & 0xff);
        p = q;
        continue;
      }
      bytes.push(t.charCodeAt(p) & 0xff);
      p++;
    }
    if (bytes.length === 0) fail('D_CHR_NULL', loc);
    if (bytes.length > 8) fail('D_CHR_OFLOW', loc);
    // Multi-character constants pack big-endian like C compilers do.
    let value = 0n;
    for (const b of bytes) value = (value << 8n) | BigInt(b);
    if (bytes.length === 1 && value > 127n) value -= 256n; // char is signed
    this.pos = p + 1;
    return { kind: 'char', text: t.slice(start, p + 1), value, loc, end: this.pos, lineStart };
  }
}
