// Pass: #pragma D directives and options, after libdtrace's dt_pragma.c —
// `option name[=value]`, `attributes`, `binding`, `depends_on`, and
// `#pragma error`. Options are checked against dtrace's option list and
// their value syntax (sizes, times, booleans).
import { booleanOptionValue } from '@wdtrace/dtrace-core';
import type { PragmaItem } from '../ast.js';
import { CompileError, fail } from '../diagnostics.js';
import type { CompileContext } from '../context.js';
import type { Pass } from './pass.js';
import { BUILTIN_FUNCTIONS, BUILTIN_VARIABLES } from '../builtins.js';
import { DTRACE_OPTIONS, parseSizeOption, parseTimeOption } from '../options.js';

/** Options whose handlers refuse to run while a D program is compiled (dt_opt_cpp_*, dt_opt_ld_path, dt_opt_stdc, dt_opt_setenv). */
const COMPILER_SETUP_OPTIONS = new Set(['cpphdrs', 'cpppath', 'define', 'incdir', 'undef', 'ldpath', 'stdc', 'setenv', 'unsetenv']);

export function setOption(ctx: CompileContext, name: string, value: string | null, item: PragmaItem | undefined): void {
  const loc = item?.loc;
  const kind = DTRACE_OPTIONS.get(name);
  if (kind === undefined) fail('D_PRAGMA_OPTSET', loc, name, value === null ? '' : ` to '${value}'`, 'Invalid option name');
  if (item !== undefined && COMPILER_SETUP_OPTIONS.has(name)) {
    // dt_options.c: these set up the compiler itself (EDT_BADOPTCTX once a program is being compiled); a bad value is reported first.
    const badValue = name === 'cpphdrs' ? value !== null : name !== 'setenv' && name !== 'unsetenv' && value === null;
    fail('D_PRAGMA_OPTSET', loc, name, value === null ? '' : ` to '${value}'`, badValue ? 'Invalid value for specified option' : 'Option cannot be used from within a D program');
  }
  if (kind === 'bool') {
    if (booleanOptionValue(value) === undefined) {
      fail('D_PRAGMA_OPTSET', loc, name, value === null ? '' : ` to '${value}'`, 'Invalid value for specified option');
    }
  } else if (value === null || value === '') {
    fail('D_PRAGMA_OPTSET', loc, name, value === null ? '' : ` to '${value}'`, 'Invalid value for specified option');
  } else if (kind === 'size' && parseSizeOption(value) === undefined) {
    fail('D_PRAGMA_OPTSET', loc, name, value === null ? '' : ` to '${value}'`, 'Invalid value for specified option');
  } else if (kind === 'time' && parseTimeOption(value) === undefined) {
    fail('D_PRAGMA_OPTSET', loc, name, value === null ? '' : ` to '${value}'`, 'Invalid value for specified option');
  } else if (kind === 'int' && !isCountValue(value)) {
    fail('D_PRAGMA_OPTSET', loc, name, value === null ? '' : ` to '${value}'`, 'Invalid value for specified option');
  }
  ctx.pragmaOptions.set(name, value);
  if (name === 'strsize' && value !== null) ctx.env.stringSize = parseSizeOption(value)!;
}

/**
 * A count as dt_opt_runtime reads it: strtoull in base 0 (decimal, 0x hex,
 * 0 octal, a leading sign allowed), refused when the 64-bit result is
 * negative as a signed value: nspec=-72 fails.
 */
function isCountValue(value: string): boolean {
  const m = /^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)$/.exec(value);
  if (m === null) return false;
  const digits = m[2]!;
  const n = digits.length > 1 && digits[0] === '0' && !/^0[xX]/.test(digits) ? BigInt('0o' + digits.slice(1)) : BigInt(digits);
  if (n > 0xffffffffffffffffn) return false;
  return BigInt.asIntN(64, m[1] === '-' ? -n : n) >= 0n;
}

const STABILITY = ['Internal', 'Private', 'Obsolete', 'External', 'Unstable', 'Evolving', 'Stable', 'Standard'];
const DATA_CLASS = ['Unknown', 'CPU', 'Platform', 'Group', 'ISA', 'Common'];

/** Names a pragma may refer to: built-ins, and the program's declarations and providers. */
function knownIdentifier(ctx: CompileContext, name: string): boolean {
  if (BUILTIN_VARIABLES.has(name) || BUILTIN_FUNCTIONS.has(name)) return true;
  for (const item of ctx.ast?.items ?? []) {
    if (item.k === 'provider' && item.name === name) return true;
    if (item.k === 'inline' && item.declarator.name === name) return true;
    if (item.k === 'decl' && item.declarators.some((d) => d.declarator.name === name)) return true;
  }
  return ctx.options.probes?.match({ provider: name, module: '', function: '', name: '' }).length !== undefined && (ctx.options.probes?.match({ provider: name, module: '', function: '', name: '' }).length ?? 0) > 0;
}

/** #pragma error's text as dt_pragma_error prints it: each token (strings without quotes) followed by a space. */
function pragmaErrorText(words: readonly string[]): string {
  return words.map((w, i) => (i === 0 ? w.replace(/^"/, '') : w)).map((w, i) => (i === words.length - 1 ? w.replace(/"$/, '') : w)).map((w) => `${w} `).join('');
}

function pragmaD(ctx: CompileContext, item: PragmaItem, words: string[]): void {
  const what = words[0];
  switch (what) {
    case 'option': {
      if (words.length < 2) fail('D_PRAGMA_MALFORM', item.loc, 'option');
      if (words.length > 2) throw new CompileError({ severity: 'error', tag: 'D_PRAGMA_MALFORM', message: 'superfluous arguments specified for #pragma option', location: item.loc });
      for (const w of words.slice(1)) {
        const eq = w.indexOf('=');
        const name = eq < 0 ? w : w.slice(0, eq);
        const value = eq < 0 ? null : w.slice(eq + 1);
        setOption(ctx, name, value, item);
      }
      return;
    }
    case 'attributes': {
      // #pragma D attributes name/data/class ident
      if (words.length !== 3) fail('D_PRAGMA_MALFORM', item.loc, 'attributes <attributes> <ident>');
      const parts = words[1]!.split('/');
      if (parts.length !== 3 || !STABILITY.includes(parts[0]!) || !STABILITY.includes(parts[1]!) || !DATA_CLASS.includes(parts[2]!)) {
        fail('D_PRAGMA_MALFORM', item.loc, 'attributes <attributes> <ident>');
      }
      if (!knownIdentifier(ctx, words[2]!)) fail('D_PRAGMA_SCOPE', item.loc, 'attributes', words[2]!);
      return;
    }
    case 'binding': {
      if (words.length !== 3) fail('D_PRAGMA_MALFORM', item.loc, 'binding');
      if (!/^"?\d+(\.\d+){0,2}"?$/.test(words[1]!)) fail('D_PRAGMA_MALFORM', item.loc, 'binding');
      return;
    }
    case 'depends_on': {
      if (words.length !== 3) fail('D_PRAGMA_MALFORM', item.loc, 'depends_on');
      const kind = words[1]!;
      if (!['provider', 'module', 'library'].includes(kind)) fail('D_PRAGMA_INVAL', item.loc, `depends_on ${kind}`);
      // Only a library may name the libraries it needs (dt_pragma_depends); this pass sees the program's pragmas.
      if (kind === 'library') throw new CompileError({ severity: 'error', tag: 'D_PRAGMA_DEPEND', message: 'main program may not explicitly depend on a library', location: item.loc });
      if (kind === 'provider' && ctx.options.probes !== undefined) {
        const found = ctx.options.probes.match({ provider: words[2]!, module: '', function: '', name: '' });
        if (found.length === 0) fail('D_PRAGMA_DEPEND', item.loc, 'provider', words[2]!);
      }
      return;
    }
    case 'error':
      return fail('D_PRAGERR', item.loc, pragmaErrorText(words.slice(1)));
    default:
      return fail('D_PRAGMA_INVAL', item.loc, words.join(' '));
  }
}

export const pragmasPass: Pass = {
  name: 'pragmas',
  reads: 'ast (pragma items), -x options',
  writes: 'pragmaOptions; removes pragma items from the ast',
  run(ctx) {
    for (const [name, value] of Object.entries(ctx.options.options ?? {})) setOption(ctx, name, value, undefined);
    const ast = ctx.ast!;
    ast.items = ast.items.filter((item) => {
      if (item.k !== 'pragma') return true;
      const words = item.text.split(/\s+/).filter((w) => w !== '');
      if (words.length === 0) return false;
      if (words[0] === 'D') pragmaD(ctx, item, words.slice(1));
      else if (words[0] === 'error') fail('D_PRAGERR', item.loc, pragmaErrorText(words.slice(1)));
      else if (words[0] === 'line' || words[0] === 'ident') {
        /* accepted and ignored, as by dtrace */
      } else if (words[0] === 'binding' || words[0] === 'depends_on' || words[0] === 'attributes' || words[0] === 'option') {
        pragmaD(ctx, item, words);
      }
      else fail('D_PRAGMA_UNUSED', item.loc, words[0]!);
      return false;
    });
  },
};
