// The D parser: a hand-written recursive-descent parser from tokens to the
// AST, after the grammar of libdtrace's dt_grammar.y. Methods are grouped by
// grammar level: program items, declarations and types, statements, then
// expressions by precedence (comma, assignment, ?:, ||, ^^, &&, |, ^, &,
// equality, relational, shift, additive, multiplicative, cast, unary,
// postfix, primary). The first syntax error stops the parse with D_SYNTAX
// "syntax error near ...", like dtrace.

import type {
  ClauseItem,
  DeclarationItem,
  Declarator,
  Derivation,
  Expr,
  InitDeclarator,
  ParamDecl,
  ProgramAst,
  ProgramItem,
  Statement,
  TaggedTypeSpec,
  TypeName,
  TypeSpecifier,
} from './ast.js';
import { CompileError, type Loc, Locator, fail } from './diagnostics.js';
import { type LexMode, Lexer, type LexerMark, TOKEN_DECIMAL, TOKEN_STRING_MACRO, type Token, blankToken, tokenSuffix } from './lexer.js';
import { SpecifierState } from './dtypes.js';

const BASE_TYPE_WORDS = new Set(['void', 'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', 'string']);
const QUALIFIERS = new Set(['const', 'volatile', 'restrict']);
const STORAGE = new Set(['typedef', 'extern', 'static', 'register', 'auto', 'self', 'this']);
const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|=', '<<=', '>>=']);

/** Binary operator precedence, lowest first (below them: ?:, assignment, comma). */
const BINARY_PRECEDENCE: ReadonlyMap<string, number> = new Map([
  ['||', 1],
  ['^^', 2],
  ['&&', 3],
  ['|', 4],
  ['^', 5],
  ['&', 6],
  ['==', 7],
  ['!=', 7],
  ['<', 8],
  ['>', 8],
  ['<=', 8],
  ['>=', 8],
  ['<<', 9],
  ['>>', 9],
  ['+', 10],
  ['-', 10],
  ['*', 11],
  ['/', 11],
  ['%', 11],
]);

/** After a '/': blanks and comments, then '{' or the end of input (sticky: matched in place, no copying). */
const PREDICATE_END = /(?:\s|\/\*[\s\S]*?\*\/|\/\/[^\n]*\n)*(?:\{|$)/y;

export interface ParserOptions {
  /** Is `name` a typedef name known before the program (C, D and kernel dictionaries)? */
  readonly isTypedefName?: (name: string) => boolean;
  /** Whether module`name names a type (a scoped type name may start a cast, sizeof or offsetof operand). */
  readonly isScopedTypeName?: (module: string, name: string) => boolean;
  /**
   * The text's locator: its base places the text in the compilation's
   * location space, and it collects the line markers for resolving Locs
   * (default: a new one at base 0).
   */
  readonly locator?: Locator;
  /** Is the text a file (-s)? A probe description then needs a predicate or actions (dt_grammar.y). */
  readonly fromFile?: boolean;
}

export class Parser {
  private readonly lexer: Lexer;
  private tok: Token;
  private tokMode: LexMode;
  /** Lexer state before the current token (to re-lex it in the other mode); updated in place. */
  private readonly tokMark: LexerMark;
  private readonly typedefs = new Set<string>();
  /** Inside a predicate: a '/' followed by '{' or end of input closes it. */
  private inPredicate = false;
  /** Loc of the text's first character. */
  private readonly base: Loc;

  constructor(
    readonly text: string,
    private readonly options: ParserOptions = {},
  ) {
    this.lexer = new Lexer(text, options.locator);
    this.base = this.lexer.locator.base;
    this.tokMark = this.lexer.mark();
    this.tokMode = 'clause';
    this.tok = this.lexer.next('clause', this.tokA);
  }

  /**
   * The two objects tokens are lexed into, in turn (no object per token):
   * a token stays as it is through the next lex (advance, or a re-lex in
   * the other mode) and is overwritten by the one after. So a token is read
   * before anything that may lex twice (a nested parse, accept, expect);
   * what is needed later (text, loc) is copied out first.
   */
  private readonly tokA = blankToken();
  private readonly tokB = blankToken();

  /** The token object not holding the current token. */
  private spare(): Token {
    return this.tok === this.tokA ? this.tokB : this.tokA;
  }

  // -------------------------------------------------------------------------
  // Token plumbing.

  /** The current token, lexed in `mode` (re-lexed if it was lexed in the other mode). */
  private peek(mode: LexMode): Token {
    if (mode !== this.tokMode) {
      this.lexer.reset(this.tokMark);
      this.tokMode = mode;
      this.tok = this.lexer.next(mode, this.spare());
    }
    return this.tok;
  }

  private advance(mode: LexMode = 'expr'): Token {
    const t = this.tok;
    this.lexer.markInto(this.tokMark);
    this.tokMode = mode;
    this.tok = this.lexer.next(mode, this.spare());
    return t;
  }

  /** The parser's position, for backtracking. */
  private save(): { lexer: LexerMark; tok: Token; tokMode: LexMode; tokMark: LexerMark } {
    // The token is copied: its object is lexed into again.
    return { lexer: this.lexer.mark(), tok: { ...this.tok }, tokMode: this.tokMode, tokMark: { ...this.tokMark } };
  }

  private restore(s: ReturnType<Parser['save']>): void {
    this.lexer.reset(s.lexer);
    this.tok = s.tok;
    this.tokMode = s.tokMode;
    Object.assign(this.tokMark, s.tokMark);
  }

  private is(text: string, mode: LexMode = 'expr'): boolean {
    const t = this.peek(mode);
    return (t.kind === 'punct' || t.kind === 'keyword') && t.text === text;
  }

  private accept(text: string, mode: LexMode = 'expr'): boolean {
    if (this.is(text, mode)) {
      this.advance(mode);
      return true;
    }
    return false;
  }

  private expect(text: string, mode: LexMode = 'expr', nextMode: LexMode = 'expr'): Token {
    if (!this.is(text, mode)) this.syntaxError(this.peek(mode));
    return this.advance(nextMode);
  }

  private syntaxError(t: Token): never {
    if (t.kind === 'eof') {
      return fail('D_SYNTAX', t.loc, 'end of input');
    }
    const near = t.kind === 'string' ? `"${t.text}"` : t.kind === 'agg' ? `@${t.text}` : t.kind === 'macro' ? `$${t.text}` : this.text.slice(t.loc - this.base, t.end);
    return fail('D_SYNTAX', t.loc, `"${near}"`);
  }

  private identName(mode: LexMode = 'expr'): string {
    const t = this.peek(mode);
    if (t.kind !== 'ident') this.syntaxError(t);
    this.advance();
    return t.text;
  }

  isTypedefName(name: string): boolean {
    return this.typedefs.has(name) || (this.options.isTypedefName?.(name) ?? false);
  }

  // -------------------------------------------------------------------------
  // Program items.

  parseProgram(): ProgramAst {
    const loc = this.peek('clause').loc;
    const items: ProgramItem[] = [];
    for (;;) {
      const t = this.peek('clause');
      if (t.kind === 'eof') return { items: [...items, ...this.innerPragmas], loc, end: t.loc };
      items.push(this.parseItem());
    }
  }

  private parseItem(): ProgramItem {
    const t = this.peek('clause');
    if (t.kind === 'pragma') {
      this.advance('clause');
      return { k: 'pragma', text: t.text, loc: t.loc };
    }
    if (t.kind === 'punct' && t.text === ';') {
      // A stray ';' at the top level is accepted (as after a clause body).
      this.advance('clause');
      return this.parseItem2();
    }
    if (t.kind === 'keyword') {
      switch (t.text) {
        case 'inline':
          return this.parseInline();
        case 'translator':
          return this.parseTranslator();
        case 'provider':
          return this.parseProvider();
        default:
          if (STORAGE.has(t.text) || QUALIFIERS.has(t.text) || BASE_TYPE_WORDS.has(t.text) || t.text === 'struct' || t.text === 'union' || t.text === 'enum') {
            return this.parseDeclaration();
          }
      }
    }
    if (t.kind === 'ident' && this.isTypedefName(t.text)) {
      return this.parseDeclaration();
    }
    if (t.kind === 'punct' && t.text === '`') return this.parseDeclaration();
    if (t.kind === 'pspec' && /^[A-Za-z_]\w*`[A-Za-z_]\w*$/.test(t.text)) return this.parseDeclaration();
    if (t.kind === 'ident' || t.kind === 'pspec') return this.parseClause();
    return this.syntaxError(t);
  }

  private parseItem2(): ProgramItem {
    const t = this.peek('clause');
    if (t.kind === 'eof') return { k: 'pragma', text: '', loc: t.loc };
    return this.parseItem();
  }

  private parseClause(): ClauseItem {
    const loc = this.peek('clause').loc;
    const probes: ClauseItem['probes'] = [];
    for (;;) {
      const t = this.peek('clause');
      if (t.kind !== 'ident' && t.kind !== 'pspec' && t.kind !== 'keyword') this.syntaxError(t);
      probes.push({ text: t.text, loc: t.loc });
      this.advance('clause');
      if (this.accept(',', 'clause')) continue;
      break;
    }
    const clause: ClauseItem = { k: 'clause', probes: probes.slice(), loc };
    if (this.is('/', 'clause')) {
      this.advance('expr');
      this.inPredicate = true;
      const predicate = this.parseExpression();
      this.inPredicate = false;
      this.expect('/', 'expr', 'clause');
      // dtrace's lexer reads past the closing '/' to the next token to tell it
      // from a division: the nodes made on seeing it carry that token's line.
      clause.predicate = atLookahead(predicate, this.peek('clause').loc);
    }
    if (this.is('{', 'clause')) {
      this.advance('expr');
      clause.body = this.parseStatements();
      clause.end = this.peek('expr').loc;
      this.expect('}', 'expr', 'clause');
    } else {
      if (this.options.fromFile === true) {
        throw new CompileError({ severity: 'error', tag: 'D_SYNTAX', message: 'expected predicate and/or actions following probe description', location: probes[0]!.loc });
      }
      const t = this.peek('clause');
      // A description without a body takes the default action; it must end the program or be followed by another item.
      if (t.kind !== 'eof' && !(t.kind === 'punct' && t.text === ';')) this.syntaxError(t);
    }
    return clause;
  }

  /**
   * Lists being parsed (statements, arguments) are collected on these
   * stacks, then copied out at their exact size: a list grown by push keeps
   * spare capacity, and would be one more allocation to copy. Nested lists
   * stack above the outer one's entries.
   */
  private readonly statementStack: Statement[] = [];
  /** Control lines met between a clause's statements, handled with the program's. */
  private readonly innerPragmas: ProgramItem[] = [];
  private statementTop = 0;
  private readonly argStack: Expr[] = [];
  private argTop = 0;

  private parseStatements(): Statement[] {
    const base = this.statementTop;
    for (;;) {
      const t = this.peek('expr');
      if (t.kind === 'eof' || (t.kind === 'punct' && t.text === '}')) {
        const out = this.statementStack.slice(base, this.statementTop);
        this.statementTop = base;
        return out;
      }
      if (t.kind === 'punct' && t.text === ';') {
        this.advance();
        continue;
      }
      if (t.kind === 'pragma') {
        // dtrace's lexer acts on a control line wherever it is, a clause's body included.
        this.advance();
        this.innerPragmas.push({ k: 'pragma', text: t.text, loc: t.loc });
        continue;
      }
      if (t.kind === 'keyword' && t.text === 'if') {
        const s = this.parseIf();
        this.statementStack[this.statementTop++] = s;
        continue;
      }
      const loc = t.loc;
      const expr = this.parseExpression();
      this.statementStack[this.statementTop++] = { k: 'expr', expr, loc };
      if (this.accept(';')) continue;
      if (!this.is('}')) this.syntaxError(this.peek('expr'));
    }
  }

  private parseIf(): Statement {
    const loc = this.expect('if').loc;
    this.expect('(');
    const cond = this.parseExpression();
    this.expect(')');
    const then = this.parseIfBody();
    let otherwise: Statement[] | undefined;
    if (this.accept('else')) {
      otherwise = this.is('if') ? [this.parseIf()] : this.parseIfBody();
    }
    return { k: 'if', cond, then, ...(otherwise !== undefined ? { otherwise } : {}), loc };
  }

  private parseIfBody(): Statement[] {
    if (this.accept('{')) {
      const body = this.parseStatements();
      this.expect('}');
      return body;
    }
    if (this.is('if')) return [this.parseIf()];
    const loc = this.peek('expr').loc;
    const expr = this.parseExpression();
    this.expect(';');
    return [{ k: 'expr', expr, loc }];
  }

  private parseInline(): ProgramItem {
    const loc = this.expect('inline', 'clause').loc;
    const specifier = this.parseSpecifiers(false).specifier;
    const declarator = this.parseDeclarator(false);
    this.expect('=');
    const value = this.parseAssignment();
    this.expect(';', 'expr', 'clause');
    return { k: 'inline', specifier, declarator, value, loc };
  }

  private parseTranslator(): ProgramItem {
    const loc = this.expect('translator', 'clause').loc;
    const output = this.parseTypeName();
    this.expect('<');
    const inputSpec = this.parseSpecifiers(false).specifier;
    const inputDecl = this.parseDeclarator(false);
    const input: TypeName = { specifier: inputSpec, declarator: { ...inputDecl, name: '' }, loc: inputSpec.loc };
    const inputName = inputDecl.name;
    this.expect('>');
    this.expect('{');
    const members: { name: string; value: Expr; loc: Loc }[] = [];
    while (!this.is('}')) {
      const mloc = this.peek('expr').loc;
      const name = this.identName();
      this.expect('=');
      const value = this.parseAssignment();
      this.expect(';');
      members.push({ name, value, loc: mloc });
    }
    this.expect('}');
    const end = this.peek('expr').loc;
    this.expect(';', 'expr', 'clause');
    return { k: 'translator', output, input, inputName, members, loc, end };
  }

  private parseProvider(): ProgramItem {
    const loc = this.expect('provider', 'clause').loc;
    const name = this.identName();
    this.expect('{');
    const probes: { name: string; params: TypeName[]; xlated?: TypeName[]; loc: Loc }[] = [];
    while (!this.is('}')) {
      const ploc = this.expect('probe').loc;
      const t = this.peek('expr');
      if (t.kind !== 'ident') this.syntaxError(t);
      // Probe names may contain "__" for '-'; the name is an identifier here.
      const pname = this.identName();
      const params = this.parseProbeParams();
      let xlated: TypeName[] | undefined;
      if (this.accept(':')) xlated = this.parseProbeParams();
      this.expect(';');
      probes.push({ name: pname, params, ...(xlated !== undefined ? { xlated } : {}), loc: ploc });
    }
    this.expect('}');
    this.expect(';', 'expr', 'clause');
    return { k: 'provider', name, probes, loc };
  }

  private parseProbeParams(): TypeName[] {
    this.expect('(');
    const params: TypeName[] = [];
    if (this.accept(')')) return params;
    for (;;) {
      const p = this.parseParam();
      params.push({ specifier: p.specifier, declarator: p.declarator, loc: p.specifier.loc });
      if (this.accept(',')) continue;
      this.expect(')');
      return params;
    }
  }

  // -------------------------------------------------------------------------
  // Declarations and types.

  private startsTypeName(): boolean {
    const t = this.peek('expr');
    if (t.kind === 'keyword') {
      return BASE_TYPE_WORDS.has(t.text) || QUALIFIERS.has(t.text) || t.text === 'struct' || t.text === 'union' || t.text === 'enum';
    }
    if (t.kind !== 'ident') return false;
    if (this.text[t.end] === '`') {
      // module`type or struct/union/enum module`tag: a type when the module has one of that name.
      const m = /^`[ \t]*([A-Za-z_][A-Za-z0-9_]*)/.exec(this.text.slice(t.end, t.end + 256));
      if (m === null) return false;
      const word = m[1]!;
      if (word === 'struct' || word === 'union' || word === 'enum') return true;
      return this.options.isScopedTypeName?.(t.text, word) ?? false;
    }
    return this.isTypedefName(t.text);
  }

  private parseDeclaration(): DeclarationItem {
    const loc = this.peek('clause').loc;
    // The first specifier may have been lexed in clause mode; declarations are lexed in expr mode.
    this.peek('expr');
    const { specifier, storage } = this.parseSpecifiers(true);
    const declarators: InitDeclarator[] = [];
    if (!this.is(';')) {
      for (;;) {
        const declarator = this.parseDeclarator(false);
        let init: Expr | undefined;
        if (this.accept('=')) init = this.parseAssignment();
        declarators.push({ declarator, ...(init !== undefined ? { init } : {}) });
        if (storage === 'typedef' && declarator.name !== '') this.typedefs.add(declarator.name);
        if (this.accept(',')) continue;
        break;
      }
    }
    this.expect(';', 'expr', 'clause');
    return { k: 'decl', ...(storage !== undefined ? { storage } : {}), specifier, declarators, loc };
  }

  /** Declaration specifiers: storage class, qualifiers and one base type (words, tag, or typedef name). */
  private parseSpecifiers(allowStorage: boolean): { specifier: TypeSpecifier; storage?: DeclarationItem['storage'] } {
    const loc = this.peek('expr').loc;
    const words: string[] = [];
    const qualifiers: string[] = [];
    let storage: DeclarationItem['storage'];
    let tagged: TaggedTypeSpec | undefined;
    let module: string | undefined;
    let sawTypedefName = false;
    const state = new SpecifierState();
    for (;;) {
      const t = this.peek('expr');
      if (t.kind === 'keyword' && STORAGE.has(t.text)) {
        if (!allowStorage) this.syntaxError(t);
        if (storage !== undefined) fail('D_DECL_CLASS', t.loc);
        storage = t.text as DeclarationItem['storage'];
        this.advance();
        continue;
      }
      if (t.kind === 'keyword' && QUALIFIERS.has(t.text)) {
        qualifiers.push(t.text);
        this.advance();
        continue;
      }
      if (t.kind === 'keyword' && BASE_TYPE_WORDS.has(t.text)) {
        // After a tag or typedef name only an attribute may follow ("struct s long" fails as dt_decl_check does).
        state.word(t.text, t.loc);
        if (tagged === undefined) words.push(t.text);
        this.advance();
        continue;
      }
      if (t.kind === 'keyword' && (t.text === 'struct' || t.text === 'union' || t.text === 'enum')) {
        const scope: { module?: string } = {};
        tagged = this.parseTagged(module === undefined && tagged === undefined && words.length === 0 ? scope : undefined, (at) => state.tag(t.text, at));
        if (scope.module !== undefined) module = scope.module;
        continue;
      }
      if (t.kind === 'ident' && words.length === 0 && tagged === undefined && !sawTypedefName && this.text[t.end] === '`') {
        // module`type
        module = t.text;
        this.advance();
        this.advance();
        const n = this.peek('expr');
        if (n.kind === 'keyword' && (n.text === 'struct' || n.text === 'union' || n.text === 'enum')) tagged = this.parseTagged();
        else if (n.kind === 'ident' || n.kind === 'keyword') {
          words.push(n.text);
          sawTypedefName = true;
          this.advance();
        } else this.syntaxError(n);
        continue;
      }
      if (t.kind === 'ident' && words.length > 0 && tagged === undefined && !sawTypedefName && this.isTypedefName(t.text) && /^\s*[A-Za-z_*(]/.test(this.text.slice(t.end))) {
        // "long foo_t x": a typedef name after base words.
        state.word(t.text, t.loc);
        words.push(t.text);
        sawTypedefName = true;
        this.advance();
        continue;
      }
      if (t.kind === 'ident' && words.length === 0 && tagged === undefined && !sawTypedefName && this.isTypedefName(t.text)) {
        words.push(t.text);
        sawTypedefName = true;
        this.advance();
        continue;
      }
      if (t.kind === 'punct' && t.text === '`' && words.length === 0 && tagged === undefined && !sawTypedefName) {
        // `module`type or `type: a scoped type name.
        this.advance();
        const m = this.peek('expr');
        if (m.kind === 'ident' || m.kind === 'keyword') {
          if (m.kind === 'keyword' && (m.text === 'struct' || m.text === 'union' || m.text === 'enum')) {
            module = '';
            tagged = this.parseTagged();
            continue;
          }
          const mtext = m.text;
          this.advance();
          if (this.accept('`')) {
            module = mtext;
            const n = this.peek('expr');
            if (n.kind === 'keyword' && (n.text === 'struct' || n.text === 'union' || n.text === 'enum')) {
              tagged = this.parseTagged();
            } else if (n.kind === 'ident' || n.kind === 'keyword') {
              words.push(n.text);
              sawTypedefName = true;
              this.advance();
            } else this.syntaxError(n);
          } else {
            module = '';
            words.push(mtext);
            sawTypedefName = true;
          }
          continue;
        }
        this.syntaxError(m);
      }
      break;
    }
    if (words.length === 0 && tagged === undefined) {
      // A storage class or qualifier alone declares an int ("self x;"), as
      // dt_decl_type does for a declaration without a type name.
      if (storage === undefined && qualifiers.length === 0) this.syntaxError(this.peek('expr'));
      words.push('int');
    }
    const specifier: TypeSpecifier = { words, qualifiers, ...(tagged !== undefined ? { tagged } : {}), ...(module !== undefined ? { module } : {}), loc };
    return { specifier, ...(storage !== undefined ? { storage } : {}) };
  }

  /** struct/union/enum with its tag (`struct module`tag` gives the module in `scope`) or body. */
  private parseTagged(scope?: { module?: string }, specified?: (at: Loc) => void): TaggedTypeSpec {
    const keyword = this.advance().text as 'struct' | 'union' | 'enum';
    let name = '';
    const t = this.peek('expr');
    if (t.kind === 'ident' || t.kind === 'keyword') {
      if (!this.is('{')) {
        name = t.text;
        this.advance();
        if (scope !== undefined && t.kind === 'ident' && this.text[t.end] === '`') {
          // struct module`tag
          this.advance();
          const tag = this.peek('expr');
          if (tag.kind !== 'ident') this.syntaxError(tag);
          scope.module = name;
          name = tag.text;
          this.advance();
        }
      }
    }
    // The tag counts as the declaration's type once its name and the token after it are read.
    specified?.(this.peek('expr').loc);
    if (!this.accept('{')) {
      if (name === '') this.syntaxError(this.peek('expr'));
      return { keyword, name };
    }
    if (keyword === 'enum') {
      const enumerators: NonNullable<TaggedTypeSpec['enumerators']> = [];
      while (!this.is('}')) {
        const eloc = this.peek('expr').loc;
        const ename = this.identName();
        let value: Expr | undefined;
        if (this.accept('=')) value = this.parseConditional();
        enumerators.push({ name: ename, ...(value !== undefined ? { value } : {}), loc: eloc, end: this.peek('expr').loc });
        if (!this.accept(',')) break;
      }
      this.expect('}');
      return { keyword, name, enumerators };
    }
    const members: NonNullable<TaggedTypeSpec['members']> = [];
    while (!this.is('}')) {
      const mloc = this.peek('expr').loc;
      const { specifier } = this.parseSpecifiers(false);
      for (;;) {
        let declarator: Declarator;
        if (this.is(':')) declarator = { name: '', derivations: [], loc: this.peek('expr').loc };
        else if (this.is(';')) {
          // anonymous struct/union member
          declarator = { name: '', derivations: [], loc: this.peek('expr').loc };
          members.push({ specifier, declarator, loc: mloc });
          break;
        } else declarator = this.parseDeclarator(false);
        let bitWidth: Expr | undefined;
        if (this.accept(':')) bitWidth = this.parseConditional();
        members.push({ specifier, declarator, ...(bitWidth !== undefined ? { bitWidth } : {}), loc: mloc });
        if (!this.accept(',')) break;
      }
      this.expect(';');
    }
    this.expect('}');
    return { keyword, name, members };
  }

  /**
   * A declarator: pointers, then a name (or nothing when abstract) or a
   * parenthesised declarator, then array and function suffixes.
   */
  private parseDeclarator(abstract: boolean): Declarator {
    const loc = this.peek('expr').loc;
    const pointers: Derivation[] = [];
    while (this.accept('*')) {
      const qualifiers: string[] = [];
      while (this.peek('expr').kind === 'keyword' && QUALIFIERS.has(this.peek('expr').text)) qualifiers.push(this.advance().text);
      pointers.push({ kind: 'pointer', qualifiers });
    }
    let name = '';
    let inner: Derivation[] = [];
    const t = this.peek('expr');
    if (t.kind === 'ident') {
      name = t.text;
      this.advance();
    } else if (t.kind === 'punct' && t.text === '(' && this.parenStartsDeclarator(abstract)) {
      this.advance();
      const d = this.parseDeclarator(abstract);
      this.expect(')');
      name = d.name;
      inner = d.derivations;
    } else if (!abstract) {
      this.syntaxError(t);
    }
    const suffixes: Derivation[] = [];
    for (;;) {
      if (this.accept('[')) {
        if (this.accept(']')) {
          suffixes.push({ kind: 'array' });
          continue;
        }
        if (this.startsTypeName() || this.is('...')) {
          // An associative array's tuple signature: dt_decl_prototype(..., "array", DT_DP_ANON).
          const tuple: TypeName[] = [];
          for (let i = 1; ; i++) {
            const at = this.peek('expr').loc;
            if (this.is('...')) fail('D_DECL_PROTO_VARARGS', at, 'array');
            const tn = this.parseTypeName();
            if (isVoidTypeName(tn)) fail('D_DECL_PROTO_TYPE', at, 'array', 'void', '(anonymous)', i);
            tuple.push(tn);
            if (!this.accept(',')) break;
          }
          this.expect(']');
          suffixes.push({ kind: 'array', tuple });
          continue;
        }
        const size = this.parseConditional();
        this.expect(']');
        suffixes.push({ kind: 'array', size });
        continue;
      }
      if (this.is('(')) {
        this.advance();
        const params: ParamDecl[] = [];
        let variadic = false;
        // dt_decl_prototype(..., "function", DT_DP_VARARGS | DT_DP_VOID | DT_DP_ANON): a void parameter is nameless and alone.
        let voids = 0;
        if (!this.is(')')) {
          for (;;) {
            if (this.accept('...')) {
              variadic = true;
              break;
            }
            const p = this.parseParam();
            if (isVoidTypeName(p)) {
              voids++;
              if (p.declarator.name !== '') fail('D_DECL_PROTO_NAME', p.declarator.loc, p.declarator.name);
            }
            params.push(p);
            if (!this.accept(',')) break;
          }
        }
        if (voids > 0 && params.length + (variadic ? 1 : 0) > 1) fail('D_DECL_PROTO_VOID', this.peek('expr').loc);
        this.expect(')');
        suffixes.push({ kind: 'function', params, variadic });
        continue;
      }
      break;
    }
    // Derivations from the identifier outwards: inner declarator, then suffixes, then pointers (innermost pointer last).
    return { name, derivations: [...inner, ...suffixes, ...pointers.reverse()], loc };
  }

  /** In "(" position: does it open a nested declarator rather than a parameter list? */
  private parenStartsDeclarator(abstract: boolean): boolean {
    const saved = this.save();
    this.advance();
    const n = this.peek('expr');
    const result = (n.kind === 'punct' && (n.text === '*' || n.text === '(' || n.text === '[')) || (!abstract && n.kind === 'ident' && !this.isTypedefName(n.text));
    this.restore(saved);
    return result;
  }

  private parseParam(): ParamDecl {
    const { specifier } = this.parseSpecifiers(false);
    const declarator = this.parseDeclarator(true);
    return { specifier, declarator };
  }

  parseTypeName(): TypeName {
    const loc = this.peek('expr').loc;
    const { specifier } = this.parseSpecifiers(false);
    const declarator = this.parseDeclarator(true);
    if (declarator.name !== '') fail('D_SYNTAX', declarator.loc, `"${declarator.name}"`);
    return { specifier, declarator, loc };
  }

  // -------------------------------------------------------------------------
  // Expressions.

  parseExpression(): Expr {
    let left = this.parseAssignment();
    while (this.is(',') && !this.inArgs) {
      const loc = this.advance().loc;
      const right = this.parseAssignment();
      left = { k: 'binary', op: ',', left, right, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
    }
    return left;
  }

  private inArgs = false;

  private parseAssignment(): Expr {
    const left = this.parseConditional();
    const t = this.peek('expr');
    if (t.kind === 'punct' && ASSIGN_OPS.has(t.text)) {
      const op = t.text;
      const loc = t.loc;
      this.advance();
      const right = this.parseAssignment();
      return { k: 'assign', op, left, right, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
    }
    return left;
  }

  private parseConditional(): Expr {
    const cond = this.parseBinary(1);
    if (this.is('?')) {
      const loc = this.advance().loc;
      const savedArgs = this.inArgs;
      this.inArgs = false;
      const then = this.parseExpression();
      this.inArgs = savedArgs;
      this.expect(':');
      const otherwise = this.parseConditional();
      return { k: 'ternary', cond, then, otherwise, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
    }
    return cond;
  }

  /** Binary operators by precedence climbing: left-associative, operators of at least `minPrecedence`. */
  private parseBinary(minPrecedence: number): Expr {
    let left = this.parseCast();
    for (;;) {
      const t = this.peek('expr');
      if (t.kind !== 'punct') return left;
      const prec = BINARY_PRECEDENCE.get(t.text);
      if (prec === undefined || prec < minPrecedence) return left;
      if (t.text === '/' && this.inPredicate && this.closesPredicate(t)) return left;
      const op = t.text;
      const loc = t.loc;
      this.advance();
      const right = this.parseBinary(prec + 1);
      left = { k: 'binary', op, left, right, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
    }
  }

  /** A '/' in a predicate closes it when followed by '{', end of input, or another clause. */
  private closesPredicate(slash: Token): boolean {
    PREDICATE_END.lastIndex = slash.end;
    return PREDICATE_END.test(this.text);
  }

  private parseCast(): Expr {
    if (this.is('(')) {
      // Cast when "(" starts a type name.
      const saved = this.save();
      const loc = this.advance().loc;
      if (this.startsTypeName()) {
        const typeName = this.parseTypeName();
        this.expect(')');
        const operand = this.parseCast();
        return { k: 'cast', typeName, operand, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
      }
      this.restore(saved);
    }
    return this.parseUnary();
  }

  private parseUnary(): Expr {
    const t = this.peek('expr');
    const text = t.text;
    const loc = t.loc;
    if (t.kind === 'punct') {
      switch (text) {
        case '++':
        case '--': {
          this.advance();
          const operand = this.parseUnary();
          return { k: 'unary', op: text === '++' ? '++pre' : '--pre', operand, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
        }
        case '-':
        case '+':
        case '!':
        case '~':
        case '*':
        case '&': {
          this.advance();
          const operand = this.parseCast();
          return { k: 'unary', op: text, operand, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
        }
      }
    }
    if (t.kind === 'keyword' && (text === 'sizeof' || text === 'stringof')) {
      this.advance();
      if (text === 'sizeof' && this.is('(')) {
        const saved = this.save();
        this.advance();
        if (this.startsTypeName()) {
          const typeName = this.parseTypeName();
          this.expect(')');
          return { k: 'sizeoftype', typeName, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
        }
        this.restore(saved);
      }
      const operand = this.parseUnary();
      return { k: 'unary', op: text, operand, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
    }
    return this.parsePostfix();
  }

  private parseArgs(close: string): Expr[] {
    const args: Expr[] = [];
    if (this.accept(close)) return args;
    const savedArgs = this.inArgs;
    const savedPred = this.inPredicate;
    this.inArgs = true;
    this.inPredicate = false;
    const base = this.argTop;
    for (;;) {
      const a = this.parseAssignment();
      this.argStack[this.argTop++] = a;
      if (this.accept(',')) continue;
      break;
    }
    this.inArgs = savedArgs;
    this.inPredicate = savedPred;
    const list = this.argStack.slice(base, this.argTop);
    this.argTop = base;
    this.expect(close);
    return list;
  }

  private parsePostfix(): Expr {
    let e = this.parsePrimary();
    for (;;) {
      const t = this.peek('expr');
      if (t.kind !== 'punct') return e;
      const text = t.text;
      const loc = t.loc;
      switch (text) {
        case '[':
          this.advance();
          e = { k: 'index', base: e, args: this.parseArgs(']'), loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
          continue;
        case '(':
          this.advance();
          e = { k: 'call', callee: e, args: this.parseArgs(')'), loc: e.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
          continue;
        case '.':
        case '->': {
          this.advance();
          const n = this.peek('expr');
          if (n.kind !== 'ident' && n.kind !== 'keyword') this.syntaxError(n);
          this.advance();
          e = { k: 'member', base: e, arrow: text === '->', name: n.text, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
          continue;
        }
        case '++':
        case '--':
          this.advance();
          e = { k: 'unary', op: text === '++' ? '++post' : '--post', operand: e, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
          continue;
        default:
          return e;
      }
    }
  }

  private parsePrimary(): Expr {
    const t = this.peek('expr');
    // Copied out: `t` is lexed into again two tokens on.
    const text = t.text;
    const loc = t.loc;
    switch (t.kind) {
      case 'int':
        this.advance();
        return { k: 'int', value: t.value!, suffix: tokenSuffix(t), decimal: (t.flags & TOKEN_DECIMAL) !== 0, loc: t.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
      case 'char':
        this.advance();
        return { k: 'int', value: t.value!, suffix: '', decimal: true, isChar: true, loc: t.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
      case 'string': {
        this.advance();
        let value = t.text;
        // Adjacent string literals concatenate.
        while (this.peek('expr').kind === 'string') value += this.advance().text;
        return { k: 'string', value, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
      }
      case 'ident': {
        this.advance();
        const n = this.peek('expr');
        if (n.kind === 'punct' && n.text === '`' && n.loc === this.base + t.end) {
          // module`symbol
          this.advance();
          const s = this.peek('expr');
          if (s.kind !== 'ident') this.syntaxError(s);
          this.advance();
          return { k: 'ident', name: s.text, module: text, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
        }
        return { k: 'ident', name: t.text, loc: t.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
      }
      case 'agg':
        this.advance();
        return { k: 'agg', name: t.text, loc: t.loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
      case 'macro':
        this.advance();
        return { k: 'macro', name: t.text, asString: (t.flags & TOKEN_STRING_MACRO) !== 0, loc: t.loc };
      case 'keyword':
        if (t.text === 'self' || t.text === 'this') {
          this.advance();
          this.expect('->');
          const n = this.peek('expr');
          if (n.kind !== 'ident' && n.kind !== 'keyword') this.syntaxError(n);
          this.advance();
          return { k: 'var', scope: text as 'self' | 'this', name: n.text, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
        }
        if (t.text === 'offsetof') {
          this.advance();
          this.expect('(');
          const typeName = this.parseTypeName();
          this.expect(',');
          const m = this.peek('expr');
          if (m.kind !== 'ident' && m.kind !== 'keyword') this.syntaxError(m);
          const member = m.text;
          this.advance();
          this.expect(')');
          return { k: 'offsetof', typeName, member, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
        }
        if (t.text === 'xlate') {
          this.advance();
          this.expect('<');
          const typeName = this.parseTypeName();
          this.expect('>');
          this.expect('(');
          const operand = this.parseExpression();
          this.expect(')');
          return { k: 'xlate', typeName, operand, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
        }
        break;
      case 'punct':
        if (t.text === '(') {
          this.advance();
          const savedArgs = this.inArgs;
          const savedPred = this.inPredicate;
          this.inArgs = false;
          this.inPredicate = false;
          const e = this.parseExpression();
          this.inArgs = savedArgs;
          this.inPredicate = savedPred;
          this.expect(')');
          return e;
        }
        if (t.text === '`') {
          // `sym or `mod`sym is handled as: ` ident [` ident]
          this.advance();
          const a = this.peek('expr');
          if (a.kind !== 'ident') this.syntaxError(a);
          const first = a.text;
          this.advance();
          if (this.accept('`')) {
            const b = this.peek('expr');
            if (b.kind !== 'ident') this.syntaxError(b);
            this.advance();
            return { k: 'ident', name: b.text, module: first, loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
          }
          return { k: 'ident', name: first, module: '', loc, type: undefined, constValue: undefined, ref: undefined, lvalue: undefined };
        }
        break;
    }
    return this.syntaxError(t);
  }
}

/** Parse a whole D program. Throws CompileError (D_SYNTAX ...), its location resolved, on the first error. */
export function parseProgram(text: string, options: ParserOptions = {}): ProgramAst {
  const locator = options.locator ?? new Locator(text, 0);
  try {
    return new Parser(text, { ...options, locator }).parseProgram();
  } catch (e) {
    if (e instanceof CompileError) e.locate(locator);
    throw e;
  }
}

/** Is a parameter or tuple member the type void itself (no pointer, array or function derivation)? */
function isVoidTypeName(t: { specifier: TypeSpecifier; declarator: Declarator }): boolean {
  return t.specifier.tagged === undefined && t.specifier.words.length === 1 && t.specifier.words[0] === 'void' && t.declarator.derivations.length === 0;
}

/**
 * The expression with the nodes a yacc parser reduces on its following
 * token (the rightmost chain: right operands, the last operand of ?:, a
 * prefix operator's or a cast's operand) placed at `loc`, as dtrace's nodes
 * take the line the lexer is at when they are made.
 */
function atLookahead(e: Expr, loc: Loc): Expr {
  switch (e.k) {
    case 'binary':
    case 'assign':
      return { ...e, loc, right: atLookahead(e.right, loc) };
    case 'ternary':
      return { ...e, loc, otherwise: atLookahead(e.otherwise, loc) };
    case 'unary':
      if (e.op === '++post' || e.op === '--post' || e.op === 'sizeof' || e.op === 'stringof') return { ...e, loc };
      return { ...e, loc, operand: atLookahead(e.operand, loc) };
    case 'cast':
      return { ...e, loc, operand: atLookahead(e.operand, loc) };
    default:
      return { ...e, loc };
  }
}
