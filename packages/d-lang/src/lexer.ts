// The D lexer: source text to tokens, after libdtrace's dt_lex.l. It runs on
// demand for the parser, in one of two modes: 'clause' at the top level of a
// program (where probe descriptions such as `syscall::read:entry` or
// `profile-97hz` are single tokens) and 'expr' inside predicates, actions
// and declarations. It also recognises the control lines that survive
// preprocessing: #pragma, and # / #line markers that reset line numbers
// (recorded in the text's Locator: tokens carry only their Loc, and line
// numbers are counted when a diagnostic needs one).

import { type Loc, Locator, fail, makeDiagnostic, CompileError } from './diagnostics.js';

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
  readonly value: bigint | undefined;
  /**
   * An int token's suffix (tokenSuffix) and whether it was decimal
   * (TOKEN_DECIMAL), a macro's $$ (TOKEN_STRING_MACRO): bits, so that a
   * token is a small object (the parser makes hundreds of thousands).
   */
  readonly flags: number;
  readonly loc: Loc;
  /** Offset just past the token (in the lexer's text). */
  readonly end: number;
}

/** Integer suffixes as lexed (lower-cased), by their index in a token's flags (bits 0-2). */
const SUFFIXES = ['', 'u', 'l', 'ul', 'll', 'ull'];
export const TOKEN_DECIMAL = 8;
export const TOKEN_STRING_MACRO = 16;

/** An int token's suffix letters ("", "u", "l", "ul", "ll", "ull"). */
export function tokenSuffix(t: Token): string {
  return SUFFIXES[t.flags & 7]!;
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

const PUNCT2 = ['->', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '^^', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|='];
const PUNCT1 = '()[]{}.&*+-~!/%<>^|?:;,=`';
/** Two-character punctuators by (first code * 128 + second code), one-character ones by code. */
const PUNCT2_BY_CODES = new Map(PUNCT2.map((p) => [p.charCodeAt(0) * 128 + p.charCodeAt(1), p]));
const PUNCT1_BY_CODE: (string | undefined)[] = Array.from({ length: 128 }, (_, c) => (PUNCT1.includes(String.fromCharCode(c)) ? String.fromCharCode(c) : undefined));

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

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHexDigit = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

export type LexMode = 'clause' | 'expr';

/** A lexer position. */
export interface LexerMark {
  pos: number;
  atLineStart: boolean;
}

type MutableToken = { -readonly [K in keyof Token]: Token[K] };

/** A token object to lex into (every token has the same fields: one object shape for the parser's property loads). */
export function blankToken(): Token {
  return { kind: 'eof', text: '', value: undefined, flags: 0, loc: 0, end: 0 };
}

/** Size of a lexer's table of identifier strings (a power of two). */
const NAMES = 1024;

export class Lexer {
  private pos = 0;
  private atLineStart = true;
  /** Loc of the text's first character. */
  private readonly base: Loc;
  /** The object next() lexes into. */
  private target: MutableToken = blankToken();
  /** Identifier strings met, by a hash of their characters: a repeated name is not sliced again. */
  private readonly names: (string | undefined)[] = new Array<string | undefined>(NAMES).fill(undefined);

  constructor(
    readonly text: string,
    /** Where line markers are recorded; its base places the text's Locs. */
    readonly locator: Locator = new Locator(text, 0),
  ) {
    this.base = locator.base;
  }

  get offset(): number {
    return this.pos;
  }

  /** Save/restore for re-lexing a token in another mode. */
  mark(): LexerMark {
    return { pos: this.pos, atLineStart: this.atLineStart };
  }

  /** mark() into an existing object (no allocation per token). */
  markInto(m: LexerMark): void {
    m.pos = this.pos;
    m.atLineStart = this.atLineStart;
  }

  reset(m: LexerMark): void {
    this.pos = m.pos;
    this.atLineStart = m.atLineStart;
  }

  /** The text from `start` to `end` (an identifier whose characters hash to `hash`), the same string as before when it was met. */
  private name(start: number, end: number, hash: number): string {
    const slot = hash & (NAMES - 1);
    const known = this.names[slot];
    if (known !== undefined && known.length === end - start && this.text.startsWith(known, start)) return known;
    const s = this.text.slice(start, end);
    this.names[slot] = s;
    return s;
  }

  /** The token lexed: its fields written into the target object. */
  private token(
    kind: TokenKind,
    text: string,
    value: bigint | undefined,
    suffix: string | undefined,
    decimal: boolean | undefined,
    stringMacro: boolean | undefined,
    loc: Loc,
    end: number,
    _lineStart: boolean,
  ): Token {
    const o = this.target;
    o.kind = kind;
    o.text = text;
    o.value = value;
    o.flags = suffix === undefined && decimal === undefined && stringMacro === undefined ? 0 : SUFFIXES.indexOf(suffix ?? '') | (decimal === true ? TOKEN_DECIMAL : 0) | (stringMacro === true ? TOKEN_STRING_MACRO : 0);
    o.loc = loc;
    o.end = end;
    return o;
  }

  location(offset = this.pos): Loc {
    return this.base + offset;
  }

  /** A newline at `at` (lines themselves are counted by the Locator). */
  private newline(_at: number): void {
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
        const end = t.indexOf('*/', this.pos + 2);
        if (end < 0) {
          throw new CompileError({ severity: 'error', tag: 'D_SYNTAX', message: 'end-of-file encountered before matching */', location: this.base + t.length });
        }
        const nl = t.indexOf('\n', this.pos);
        if (nl >= 0 && nl < end) this.newline(nl);
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
    const end = t.indexOf('\n', start);
    // dt_lex.l's control-line state ends at a newline only.
    if (end < 0) throw new CompileError({ severity: 'error', tag: 'D_SYNTAX', message: 'end-of-file encountered before end of control line', location: this.base + t.length });
    // Continuation lines are joined by the preprocessor; here one line is one directive.
    const body = t.slice(start + 1, end).trim();
    this.pos = end;
    const m = /^(?:line\s+)?(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?/.exec(body);
    if (m !== null) {
      // The line after the marker has number N.
      this.locator.mark(end, Number(m[1]) - 1, m[2] === undefined ? null : m[2] === '<stdin>' || m[2] === '' ? undefined : m[2]);
      return undefined;
    }
    const word = /^([A-Za-z_]\w*)/.exec(body);
    if (word !== null && word[1] === 'pragma') {
      return this.token('pragma', body.slice(6).trim(), undefined, undefined, undefined, undefined, loc, end, true);
    }
    if (body === '') return undefined; // a lone '#' is a null directive
    return fail('D_PRAGCTL_INVAL', loc, word !== null ? word[1]! : body.split(/\s/)[0]!);
  }

  /**
   * The next token, lexed into `into` (the parser reuses its token objects;
   * without it, a new object).
   */
  next(mode: LexMode, into?: Token): Token {
    this.target = (into as MutableToken | undefined) ?? blankToken();
    const pragma = this.skip();
    if (pragma !== undefined) return pragma;
    const t = this.text;
    const start = this.pos;
    const loc = this.location();
    const lineStart = this.atLineStart;
    this.atLineStart = false;
    if (start >= t.length) return this.token('eof', '', undefined, undefined, undefined, undefined, loc, start, lineStart);
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
      let plain = IDENT_START[c] === 1;
      for (let q = start + 1; plain && q < p; q++) plain = IDENT_PART[t.charCodeAt(q)] === 1;
      if (plain) {
        this.pos = p;
        return this.token(D_KEYWORDS.has(text) ? 'keyword' : 'ident', text, undefined, undefined, undefined, undefined, loc, p, lineStart);
      }
      this.pos = p;
      return this.token('pspec', text, undefined, undefined, undefined, undefined, loc, p, lineStart);
    }

    if (c < 128 && IDENT_START[c] === 1) {
      let p = start + 1;
      let hash = c;
      while (p < t.length) {
        const d = t.charCodeAt(p);
        if (d < 128 && IDENT_PART[d] === 1) {
          hash = (Math.imul(hash, 31) + d) | 0;
          p++;
        } else break;
      }
      const text = this.name(start, p, hash);
      this.pos = p;
      return this.token(D_KEYWORDS.has(text) ? 'keyword' : 'ident', text, undefined, undefined, undefined, undefined, loc, p, lineStart);
    }

    if (c >= 48 && c <= 57) return this.number(start, loc, lineStart);
    if (c === 34) return this.string(start, loc, lineStart);
    if (c === 39) return this.charConst(start, loc, lineStart);

    if (c === 64) {
      // @ or @name
      let p = start + 1;
      let hash = c;
      while (p < t.length) {
        const d = t.charCodeAt(p);
        if (d < 128 && IDENT_PART[d] === 1) {
          hash = (Math.imul(hash, 31) + d) | 0;
          p++;
        } else break;
      }
      this.pos = p;
      return this.token('agg', this.name(start + 1, p, hash), undefined, undefined, undefined, undefined, loc, p, lineStart);
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
      return this.token('macro', t.slice(nameStart, p), undefined, undefined, undefined, stringMacro, loc, p, lineStart);
    }

    const c2 = t.charCodeAt(start + 1);
    if ((c === 46 || c === 60 || c === 62) && t.startsWith(c === 46 ? '...' : c === 60 ? '<<=' : '>>=', start)) {
      this.pos = start + 3;
      return this.token('punct', c === 46 ? '...' : c === 60 ? '<<=' : '>>=', undefined, undefined, undefined, undefined, loc, this.pos, lineStart);
    }
    const two = c2 < 128 ? PUNCT2_BY_CODES.get(c * 128 + c2) : undefined;
    if (two !== undefined) {
      this.pos = start + 2;
      return this.token('punct', two, undefined, undefined, undefined, undefined, loc, this.pos, lineStart);
    }
    const one = c < 128 ? PUNCT1_BY_CODE[c] : undefined;
    if (one !== undefined) {
      this.pos = start + 1;
      return this.token('punct', one, undefined, undefined, undefined, undefined, loc, this.pos, lineStart);
    }
    return fail('D_SYNTAX', loc, `"${t[start]!}"`);
  }

  private number(start: number, loc: Loc, lineStart: boolean): Token {
    const t = this.text;
    let p = start;
    let digits: string;
    let radix: 10 | 16 | 8 = 10;
    if (t[p] === '0' && (t[p + 1] === 'x' || t[p + 1] === 'X')) {
      radix = 16;
      p += 2;
      const ds = p;
      while (isHexDigit(t.charCodeAt(p))) p++;
      digits = t.slice(ds, p);
      if (digits === '') fail('D_INT_DIGIT', loc, t.slice(start, p + 1), t[p] ?? '');
    } else {
      const ds = p;
      while (isDigit(t.charCodeAt(p))) p++;
      digits = t.slice(ds, p);
      if (digits.length > 1 && digits[0] === '0') {
        radix = 8;
        const bad = /[89]/.exec(digits);
        if (bad !== null) fail('D_INT_DIGIT', loc, digits, bad[0]);
      }
    }
    if (t[p] === '.' || t[p] === 'e' || t[p] === 'E') {
      if (radix === 10 && (t[p] === '.' ? /[0-9]/.test(t[p + 1] ?? '') : true)) {
        fail('D_SYNTAX', loc, `"${t.slice(start, p + 1)}"`);
      }
    }
    const sfxStart = p;
    for (let d = t.charCodeAt(p); d === 117 || d === 85 || d === 108 || d === 76; d = t.charCodeAt(p)) p++; // u U l L
    const suffix = t.slice(sfxStart, p).toLowerCase();
    if (suffix !== '' && !['u', 'l', 'ul', 'lu', 'll', 'ull', 'llu'].includes(suffix)) {
      fail('D_SYNTAX', loc, `"${t.slice(start, p)}"`);
    }
    // The constant ends at the first character that cannot continue it: in
    // 10ms or 0abc an identifier follows (dt_lex.l's integer pattern).
    let value: bigint;
    if (radix === 16) value = BigInt('0x' + digits);
    else if (radix === 8) value = BigInt('0o' + digits.slice(1));
    else value = BigInt(digits);
    if (value > 0xffffffffffffffffn) fail('D_INT_OFLOW', loc, t.slice(start, p));
    this.pos = p;
    const norm = suffix.includes('u') ? (suffix.includes('ll') ? 'ull' : suffix.includes('l') ? 'ul' : 'u') : suffix;
    // The parser reads an int's value, not its text (messages quote the source).
    return this.token('int', '', value, norm, radix === 10, undefined, loc, p, lineStart);
  }

  /**
   * One escape sequence starting after the backslash at p, as libdtrace's
   * stresc2chr: returns [byte, next position], or [-1, p] for an escape it
   * does not know, which keeps its backslash.
   */
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
        // Every hex digit that follows counts; the byte is the value's low 8 bits (0 with no digits).
        let q = p + 1;
        let v = 0;
        while (q < t.length && /[0-9a-fA-F]/.test(t[q]!)) v = (v * 16 + parseInt(t[q++]!, 16)) & 0xff;
        return [v, q];
      }
      case '"':
      case '\\':
        return [t.charCodeAt(p), p + 1];
      default:
        if (c !== undefined && c >= '0' && c <= '7') {
          let q = p;
          while (q < p + 3 && /[0-7]/.test(t[q] ?? '')) q++;
          return [parseInt(t.slice(p, q), 8) & 0xff, q];
        }
        return [-1, p];
    }
  }

  private string(start: number, loc: Loc, lineStart: boolean): Token {
    const t = this.text;
    let p = start + 1;
    // The common case, no escapes or newlines: one slice.
    for (let q = p; q < t.length; q++) {
      const c = t.charCodeAt(q);
      if (c === 34) {
        this.pos = q + 1;
        return this.token('string', t.slice(p, q), undefined, undefined, undefined, undefined, loc, this.pos, lineStart);
      }
      if (c === 92 || c === 10) break;
    }
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
        if (code < 0) {
          out += '\\';
          p = q;
          continue;
        }
        out += String.fromCharCode(code);
        p = q;
        continue;
      }
      out += c;
      p++;
    }
    this.pos = p + 1;
    return this.token('string', out, undefined, undefined, undefined, undefined, loc, this.pos, lineStart);
  }

  private charConst(start: number, loc: Loc, lineStart: boolean): Token {
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
        if (code < 0) {
          bytes.push(92);
          p = q;
          continue;
        }
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
    return this.token('char', t.slice(start, p + 1), value, undefined, undefined, undefined, loc, this.pos, lineStart);
  }
}
