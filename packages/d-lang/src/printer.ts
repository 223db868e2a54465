// D source from the AST: how `-d` shows the program after the sugar pass
// (if/else already turned into predicated clauses), one clause per
// paragraph, expressions fully parenthesised only where precedence needs it.
import type { Declarator, Derivation, Expr, ProgramAst, ProgramItem, Statement, TypeName, TypeSpecifier } from './ast.js';

const PREC: Record<string, number> = {
  ',': 1,
  '=': 2,
  '?': 3,
  '||': 4,
  '^^': 5,
  '&&': 6,
  '|': 7,
  '^': 8,
  '&': 9,
  '==': 10,
  '!=': 10,
  '<': 11,
  '>': 11,
  '<=': 11,
  '>=': 11,
  '<<': 12,
  '>>': 12,
  '+': 13,
  '-': 13,
  '*': 14,
  '/': 14,
  '%': 14,
};

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 32 || c === 127) out += '\\' + c.toString(8).padStart(3, '0');
    else out += ch;
  }
  return out + '"';
}

function precOf(e: Expr): number {
  switch (e.k) {
    case 'binary':
      return PREC[e.op] ?? 15;
    case 'assign':
      return 2;
    case 'ternary':
      return 3;
    case 'unary':
      return e.op.endsWith('post') ? 17 : 16;
    case 'cast':
      return 16;
    default:
      return 18;
  }
}

export function printExpr(e: Expr, min = 0): string {
  const s = printBare(e);
  return precOf(e) < min ? `(${s})` : s;
}

function printBare(e: Expr): string {
  switch (e.k) {
    case 'int':
      return e.value.toString() + (e.suffix === '' ? '' : e.suffix.toUpperCase());
    case 'string':
      return quote(e.value);
    case 'ident':
      return e.module === undefined ? e.name : e.module === '' ? `\`${e.name}` : `${e.module}\`${e.name}`;
    case 'var':
      return `${e.scope}->${e.name}`;
    case 'agg':
      return `@${e.name}`;
    case 'macro':
      return `${e.asString ? '$$' : '$'}${e.name}`;
    case 'unary':
      switch (e.op) {
        case '++pre':
          return `++${printExpr(e.operand, 16)}`;
        case '--pre':
          return `--${printExpr(e.operand, 16)}`;
        case '++post':
          return `${printExpr(e.operand, 17)}++`;
        case '--post':
          return `${printExpr(e.operand, 17)}--`;
        case 'sizeof':
          return `sizeof (${printExpr(e.operand)})`;
        case 'stringof':
          return `stringof(${printExpr(e.operand)})`;
        default:
          return `${e.op}${printExpr(e.operand, 16)}`;
      }
    case 'sizeoftype':
      return `sizeof (${printTypeName(e.typeName)})`;
    case 'offsetof':
      return `offsetof(${printTypeName(e.typeName)}, ${e.member})`;
    case 'binary': {
      const p = PREC[e.op] ?? 15;
      return `${printExpr(e.left, p)} ${e.op === ',' ? ',' : e.op} ${printExpr(e.right, p + 1)}`.replace(' , ', ', ');
    }
    case 'assign':
      return `${printExpr(e.left, 3)} ${e.op} ${printExpr(e.right, 2)}`;
    case 'ternary':
      return `${printExpr(e.cond, 4)} ? ${printExpr(e.then)} : ${printExpr(e.otherwise, 3)}`;
    case 'call':
      return `${printExpr(e.callee, 17)}(${e.args.map((a) => printExpr(a, 2)).join(', ')})`;
    case 'index':
      return `${printExpr(e.base, 17)}[${e.args.map((a) => printExpr(a, 2)).join(', ')}]`;
    case 'member':
      return `${printExpr(e.base, 17)}${e.arrow ? '->' : '.'}${e.name}`;
    case 'cast':
      return `(${printTypeName(e.typeName)})${printExpr(e.operand, 16)}`;
    case 'xlate':
      return `xlate <${printTypeName(e.typeName)}> (${printExpr(e.operand)})`;
  }
}

function printSpecifier(s: TypeSpecifier): string {
  const parts = [...s.qualifiers];
  if (s.tagged !== undefined) {
    let t = `${s.tagged.keyword}${s.tagged.name === '' ? '' : ' ' + s.tagged.name}`;
    if (s.tagged.members !== undefined) {
      t += ' { ' + s.tagged.members.map((m) => `${printSpecifier(m.specifier)} ${printDeclarator(m.declarator)}${m.bitWidth !== undefined ? ' : ' + printExpr(m.bitWidth) : ''};`).join(' ') + ' }';
    }
    if (s.tagged.enumerators !== undefined) {
      t += ' { ' + s.tagged.enumerators.map((x) => (x.value !== undefined ? `${x.name} = ${printExpr(x.value)}` : x.name)).join(', ') + ' }';
    }
    parts.push(t);
  } else parts.push(...s.words);
  const text = parts.join(' ');
  if (s.module === undefined) return text;
  return s.module === '' ? `\`${text}` : `${s.module}\`${text}`;
}

function printDeclarator(d: Declarator): string {
  let s = d.name;
  let lastWasPointer = false;
  for (const der of d.derivations as Derivation[]) {
    if (der.kind === 'pointer') {
      s = `*${der.qualifiers.length > 0 ? der.qualifiers.join(' ') + ' ' : ''}${s}`;
      lastWasPointer = true;
      continue;
    }
    if (lastWasPointer) s = `(${s})`;
    lastWasPointer = false;
    if (der.kind === 'array') {
      s += der.tuple !== undefined ? `[${der.tuple.map(printTypeName).join(', ')}]` : der.size !== undefined ? `[${printExpr(der.size)}]` : '[]';
    } else {
      const ps = der.params.map((p) => `${printSpecifier(p.specifier)}${p.declarator.name !== '' || p.declarator.derivations.length > 0 ? ' ' + printDeclarator(p.declarator) : ''}`);
      if (der.variadic) ps.push('...');
      s += `(${ps.join(', ')})`;
    }
  }
  return s;
}

export function printTypeName(t: TypeName): string {
  const d = printDeclarator(t.declarator);
  return d === '' ? printSpecifier(t.specifier) : `${printSpecifier(t.specifier)} ${d}`;
}

function printStatements(body: Statement[], indent: string): string[] {
  const out: string[] = [];
  for (const s of body) {
    if (s.k === 'expr') out.push(`${indent}${printExpr(s.expr)};`);
    else {
      out.push(`${indent}if (${printExpr(s.cond)}) {`);
      out.push(...printStatements(s.then, indent + '\t'));
      if (s.otherwise !== undefined) {
        out.push(`${indent}} else {`);
        out.push(...printStatements(s.otherwise, indent + '\t'));
      }
      out.push(`${indent}}`);
    }
  }
  return out;
}

export function printItem(item: ProgramItem): string {
  switch (item.k) {
    case 'clause': {
      const lines = [item.probes.map((p) => p.text).join(',\n')];
      if (item.predicate !== undefined) lines.push(`/${printExpr(item.predicate)}/`);
      if (item.body !== undefined) {
        lines.push('{');
        lines.push(...printStatements(item.body, '\t'));
        lines.push('}');
      }
      return lines.join('\n');
    }
    case 'decl': {
      const parts = [item.storage, printSpecifier(item.specifier)].filter((x) => x !== undefined);
      const ds = item.declarators.map((d) => printDeclarator(d.declarator)).join(', ');
      return `${parts.join(' ')}${ds === '' ? '' : ' ' + ds};`;
    }
    case 'inline':
      return `inline ${printSpecifier(item.specifier)} ${printDeclarator(item.declarator)} = ${printExpr(item.value)};`;
    case 'translator':
      return [
        `translator ${printTypeName(item.output)} < ${printTypeName(item.input)} ${item.inputName} > {`,
        ...item.members.map((m) => `\t${m.name} = ${printExpr(m.value)};`),
        '};',
      ].join('\n');
    case 'provider':
      return [`provider ${item.name} {`, ...item.probes.map((p) => `\tprobe ${p.name}(${p.params.map(printTypeName).join(', ')})${p.xlated !== undefined ? ` : (${p.xlated.map(printTypeName).join(', ')})` : ''};`), '};'].join('\n');
    case 'pragma':
      return `#pragma ${item.text}`;
  }
}

/** The whole program as D text. */
export function printProgram(ast: ProgramAst): string {
  return ast.items.map(printItem).join('\n\n') + '\n';
}
