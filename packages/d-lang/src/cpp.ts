// The C preprocessor for -C, after what dtrace asks of cpp(1): object- and
// function-like macros (with # and ## operators), #include "..." and <...>
// through an injected resolver (no file system here), #if/#ifdef/#ifndef/
// #elif/#else/#endif with defined() and integer expressions, #undef, #line,
// #error, and -D/-U/-I. #pragma lines pass through for the D compiler, and
// line markers (# N "file") keep diagnostics on the right source line.
import type { IncludeResolver } from './context.js';
import { type SourceLocation, fail } from './diagnostics.js';

export interface PreprocessOptions {
  readonly defines: readonly string[];
  readonly undefines: readonly string[];
  readonly includePaths: readonly string[];
  readonly resolve?: IncludeResolver;
  readonly fileName?: string;
}

interface Macro {
  readonly params?: string[];
  readonly variadic?: boolean;
  readonly body: string;
}

const MAX_INCLUDE_DEPTH = 32;
const MAX_EXPANSION = 1_000_000;

class Preprocessor {
  readonly macros = new Map<string, Macro>();
  readonly includes: string[] = [];
  private readonly out: string[] = [];
  private expansions = 0;

  constructor(readonly options: PreprocessOptions) {
    this.macros.set('__SUNW_D', { body: '1' });
    this.macros.set('__SUNW_D_VERSION', { body: '0x01010000' });
    for (const d of options.defines) {
      const eq = d.indexOf('=');
      const name = eq < 0 ? d : d.slice(0, eq);
      const m = /^([A-Za-z_]\w*)(\(([^)]*)\))?$/.exec(name);
      if (m === null) fail('D_PRAGCTL_INVAL', undefined, `define ${d}`);
      const body = eq < 0 ? '1' : d.slice(eq + 1);
      if (m[2] !== undefined) this.macros.set(m[1]!, { params: m[3]!.split(',').map((p) => p.trim()).filter((p) => p !== ''), body });
      else this.macros.set(m[1]!, { body });
    }
    for (const u of options.undefines) this.macros.delete(u);
  }

  result(): string {
    return this.out.join('\n') + '\n';
  }

  private loc(line: number, file: string | undefined): SourceLocation {
    return { line, column: 1, offset: 0, ...(file !== undefined ? { file } : {}) };
  }

  run(text: string, file: string | undefined, depth: number): void {
    // Join continuation lines, remembering original line numbers.
    const raw = text.split('\n');
    const lines: { text: string; line: number }[] = [];
    for (let i = 0; i < raw.length; i++) {
      let t = raw[i]!;
      const start = i + 1;
      while (t.endsWith('\\') && i + 1 < raw.length) {
        t = t.slice(0, -1) + raw[++i]!;
      }
      lines.push({ text: t, line: start });
    }
    const stack: { active: boolean; taken: boolean; parentActive: boolean }[] = [];
    const active = (): boolean => stack.every((s) => s.active);
    let inComment = false;
    this.out.push(`# ${1} "${file ?? '<stdin>'}"`);
    for (const { text: lineText, line } of lines) {
      const stripped = this.stripComments(lineText, inComment);
      inComment = stripped.inComment;
      const t = stripped.text;
      const m = /^\s*#\s*(\w*)\s*(.*)$/.exec(t);
      if (m !== null && !stripped.startedInComment) {
        const [, directive, rest] = m as unknown as [string, string, string];
        const loc = this.loc(line, file);
        switch (directive) {
          case 'if':
          case 'ifdef':
          case 'ifndef': {
            const parent = active();
            let cond = false;
            if (parent) {
              if (directive === 'ifdef') cond = this.macros.has(rest.trim());
              else if (directive === 'ifndef') cond = !this.macros.has(rest.trim());
              else cond = this.evaluate(rest, loc) !== 0n;
            }
            stack.push({ active: cond, taken: cond, parentActive: parent });
            this.out.push('');
            continue;
          }
          case 'elif': {
            const top = stack[stack.length - 1];
            if (top === undefined) fail('D_PRAGCTL_INVAL', loc, 'elif');
            const cond = top.parentActive && !top.taken && this.evaluate(rest, loc) !== 0n;
            top.active = cond;
            top.taken ||= cond;
            this.out.push('');
            continue;
          }
          case 'else': {
            const top = stack[stack.length - 1];
            if (top === undefined) fail('D_PRAGCTL_INVAL', loc, 'else');
            top.active = top.parentActive && !top.taken;
            top.taken = true;
            this.out.push('');
            continue;
          }
          case 'endif':
            if (stack.pop() === undefined) fail('D_PRAGCTL_INVAL', loc, 'endif');
            this.out.push('');
            continue;
          default:
            break;
        }
        if (!active()) {
          this.out.push('');
          continue;
        }
        switch (directive) {
          case 'define': {
            const dm = /^([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)$/.exec(rest);
            if (dm === null) fail('D_PRAGCTL_INVAL', loc, 'define');
            if (dm[2] !== undefined) {
              const params = dm[3]!.split(',').map((p) => p.trim()).filter((p) => p !== '');
              const variadic = params[params.length - 1] === '...';
              this.macros.set(dm[1]!, { params: variadic ? params.slice(0, -1) : params, variadic, body: dm[4]!.trim() });
            } else this.macros.set(dm[1]!, { body: dm[4]!.trim() });
            this.out.push('');
            continue;
          }
          case 'undef':
            this.macros.delete(rest.trim());
            this.out.push('');
            continue;
          case 'include': {
            if (depth >= MAX_INCLUDE_DEPTH) fail('D_PRAGCTL_INVAL', loc, 'include nested too deeply');
            const im = /^(?:"([^"]+)"|<([^>]+)>)/.exec(rest.trim());
            if (im === null) fail('D_PRAGCTL_INVAL', loc, `include ${rest}`);
            const name = im[1] ?? im[2]!;
            const found = this.options.resolve?.(name, file, im[2] !== undefined);
            if (found === undefined) fail('D_PRAGCTL_INVAL', loc, `include: cannot find ${name}`);
            this.includes.push(found.path);
            this.run(found.text, found.path, depth + 1);
            this.out.push(`# ${line + 1} "${file ?? '<stdin>'}"`);
            continue;
          }
          case 'line': {
            this.out.push(`#line ${this.expand(rest, loc)}`);
            continue;
          }
          case 'error':
            return fail('D_PRAGERR', loc, rest);
          case 'pragma':
            this.out.push(`#pragma ${rest}`);
            continue;
          case 'warning':
          case 'ident':
          case '':
            this.out.push('');
            continue;
          default:
            if (/^\d+$/.test(directive)) {
              this.out.push(t);
              continue;
            }
            return fail('D_PRAGCTL_INVAL', loc, directive);
        }
      }
      this.out.push(active() ? this.expand(t, this.loc(line, file)) : '');
    }
    if (stack.length !== 0) fail('D_PRAGCTL_INVAL', this.loc(lines.length, file), 'if: missing #endif');
  }

  /** Remove comments (block comments may span lines); strings are kept intact. */
  private stripComments(t: string, inComment: boolean): { text: string; inComment: boolean; startedInComment: boolean } {
    const startedInComment = inComment;
    let out = '';
    let i = 0;
    while (i < t.length) {
      if (inComment) {
        const end = t.indexOf('*/', i);
        if (end < 0) return { text: out, inComment: true, startedInComment };
        i = end + 2;
        inComment = false;
        out += ' ';
        continue;
      }
      const c = t[i]!;
      if (c === '"' || c === "'") {
        let j = i + 1;
        while (j < t.length && t[j] !== c) j += t[j] === '\\' ? 2 : 1;
        out += t.slice(i, j + 1);
        i = j + 1;
        continue;
      }
      if (c === '/' && t[i + 1] === '*') {
        inComment = true;
        i += 2;
        continue;
      }
      if (c === '/' && t[i + 1] === '/') break;
      out += c;
      i++;
    }
    return { text: out, inComment, startedInComment };
  }

  /** Expand macros in a line of text (strings and character constants untouched). */
  expand(text: string, loc: SourceLocation, hide: ReadonlySet<string> = new Set()): string {
    let out = '';
    let i = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"' || c === "'") {
        let j = i + 1;
        while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
        out += text.slice(i, j + 1);
        i = j + 1;
        continue;
      }
      if (/[A-Za-z_]/.test(c) && (i === 0 || !/[\w$@`]/.test(text[i - 1]!))) {
        let j = i + 1;
        while (j < text.length && /\w/.test(text[j]!)) j++;
        const name = text.slice(i, j);
        const m = this.macros.get(name);
        if (m === undefined || hide.has(name)) {
          out += name;
          i = j;
          continue;
        }
        if (++this.expansions > MAX_EXPANSION) fail('D_PRAGCTL_INVAL', loc, 'define: macro expansion too deep');
        const inner = new Set(hide);
        inner.add(name);
        if (m.params === undefined) {
          out += this.expand(m.body, loc, inner);
          i = j;
          continue;
        }
        let k = j;
        while (k < text.length && /\s/.test(text[k]!)) k++;
        if (text[k] !== '(') {
          out += name;
          i = j;
          continue;
        }
        const { args, end } = this.collectArgs(text, k, loc);
        const nParams = m.params.length;
        if (!m.variadic && args.length !== nParams && !(nParams === 0 && args.length === 1 && args[0]!.trim() === '')) {
          fail('D_PRAGCTL_INVAL', loc, `define: macro ${name} requires ${nParams} arguments`);
        }
        let body = m.body;
        const values = new Map<string, string>();
        m.params.forEach((p, idx) => values.set(p, (args[idx] ?? '').trim()));
        if (m.variadic) values.set('__VA_ARGS__', args.slice(nParams).map((a) => a.trim()).join(', '));
        // # stringizing and ## pasting, then argument substitution.
        body = body.replace(/#\s*([A-Za-z_]\w*)/g, (all, p: string) => (values.has(p) && !all.startsWith('##') ? JSON.stringify(values.get(p)) : all));
        body = body.replace(/\b([A-Za-z_]\w*)\b/g, (w) => (values.has(w) ? this.expand(values.get(w)!, loc, hide) : w));
        body = body.replace(/\s*##\s*/g, '');
        out += this.expand(body, loc, inner);
        i = end;
        continue;
      }
      out += c;
      i++;
    }
    return out;
  }

  private collectArgs(text: string, open: number, loc: SourceLocation): { args: string[]; end: number } {
    const args: string[] = [];
    let depth = 0;
    let cur = '';
    for (let i = open + 1; i < text.length; i++) {
      const c = text[i]!;
      if (c === '"' || c === "'") {
        let j = i + 1;
        while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
        cur += text.slice(i, j + 1);
        i = j;
        continue;
      }
      if (c === '(') depth++;
      if (c === ')') {
        if (depth === 0) {
          args.push(cur);
          return { args, end: i + 1 };
        }
        depth--;
      }
      if (c === ',' && depth === 0) {
        args.push(cur);
        cur = '';
        continue;
      }
      cur += c;
    }
    return fail('D_PRAGCTL_INVAL', loc, 'define: unterminated macro argument list');
  }

  /** #if expression: defined(), integer constants and C operators. */
  private evaluate(expr: string, loc: SourceLocation): bigint {
    const withDefined = expr.replace(/defined\s*(\(\s*([A-Za-z_]\w*)\s*\)|\s+([A-Za-z_]\w*))/g, (_a, _b, x?: string, y?: string) => (this.macros.has((x ?? y)!) ? '1' : '0'));
    const expanded = this.expand(withDefined, loc).replace(/\b[A-Za-z_]\w*\b/g, '0');
    return new CondParser(expanded.replace(/(\d+)[uUlL]+/g, '$1'), loc).parse();
  }
}

/** A tiny precedence-climbing evaluator for #if expressions. */
class CondParser {
  private i = 0;
  private readonly toks: string[];
  constructor(
    text: string,
    private readonly loc: SourceLocation,
  ) {
    this.toks = text.match(/0[xX][0-9a-fA-F]+|\d+|'(?:\\.|[^'])'|&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>&|^!~?:()]/g) ?? [];
  }
  parse(): bigint {
    const v = this.ternary();
    if (this.i !== this.toks.length) fail('D_PRAGCTL_INVAL', this.loc, 'if: invalid expression');
    return v;
  }
  private ternary(): bigint {
    const c = this.binary(0);
    if (this.toks[this.i] === '?') {
      this.i++;
      const a = this.ternary();
      if (this.toks[this.i++] !== ':') fail('D_PRAGCTL_INVAL', this.loc, 'if: invalid expression');
      const b = this.ternary();
      return c !== 0n ? a : b;
    }
    return c;
  }
  private static readonly LEVELS = [['||'], ['&&'], ['|'], ['^'], ['&'], ['==', '!='], ['<', '>', '<=', '>='], ['<<', '>>'], ['+', '-'], ['*', '/', '%']];
  private binary(level: number): bigint {
    if (level >= CondParser.LEVELS.length) return this.unary();
    let l = this.binary(level + 1);
    while (CondParser.LEVELS[level]!.includes(this.toks[this.i] ?? '')) {
      const op = this.toks[this.i++]!;
      const r = this.binary(level + 1);
      if ((op === '/' || op === '%') && r === 0n) fail('D_PRAGCTL_INVAL', this.loc, 'if: division by zero');
      l = { '||': l !== 0n || r !== 0n ? 1n : 0n, '&&': l !== 0n && r !== 0n ? 1n : 0n, '|': l | r, '^': l ^ r, '&': l & r, '==': l === r ? 1n : 0n, '!=': l !== r ? 1n : 0n, '<': l < r ? 1n : 0n, '>': l > r ? 1n : 0n, '<=': l <= r ? 1n : 0n, '>=': l >= r ? 1n : 0n, '<<': l << r, '>>': l >> r, '+': l + r, '-': l - r, '*': l * r, '/': r === 0n ? 0n : l / r, '%': r === 0n ? 0n : l % r }[op]!;
    }
    return l;
  }
  private unary(): bigint {
    const t = this.toks[this.i++];
    if (t === undefined) return fail('D_PRAGCTL_INVAL', this.loc, 'if: invalid expression');
    if (t === '-') return -this.unary();
    if (t === '+') return this.unary();
    if (t === '!') return this.unary() === 0n ? 1n : 0n;
    if (t === '~') return ~this.unary();
    if (t === '(') {
      const v = this.ternary();
      if (this.toks[this.i++] !== ')') fail('D_PRAGCTL_INVAL', this.loc, 'if: invalid expression');
      return v;
    }
    if (t.startsWith("'")) return BigInt(t.charCodeAt(1));
    if (/^\d/.test(t)) return BigInt(t.length > 1 && t[0] === '0' && !/^0[xX]/.test(t) ? '0o' + t.slice(1) : t);
    return fail('D_PRAGCTL_INVAL', this.loc, 'if: invalid expression');
  }
}

/** Preprocess D source. Throws CompileError with D_PRAGCTL_INVAL / D_PRAGERR on bad directives. */
export function preprocess(text: string, options: PreprocessOptions): { text: string; includes: string[] } {
  const resolveWithPaths: IncludeResolver | undefined =
    options.resolve === undefined
      ? undefined
      : (path, from, system) => {
          const direct = options.resolve!(path, from, system);
          if (direct !== undefined) return direct;
          for (const dir of options.includePaths) {
            const f = options.resolve!(`${dir.replace(/\/$/, '')}/${path}`, from, system);
            if (f !== undefined) return f;
          }
          return undefined;
        };
  const p = new Preprocessor({ ...options, ...(resolveWithPaths !== undefined ? { resolve: resolveWithPaths } : {}) });
  p.run(text, options.fileName, 0);
  return { text: p.result(), includes: p.includes };
}
